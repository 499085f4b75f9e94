#!/bin/bash
# Per-device policy, unpriv_sgio, the audit of denials, and sgfilter, on the
# real sysfs of the booted kernel. On the stock kernel none of this exists: the
# suite checks that sgfilter says so (exit 5) and that unpriv_sgio is absent.
. "$(dirname "$0")/lib.sh"

SGFILTER=$SGF_BUILD/bin/sgfilter
cf() { echo "/sys/bus/scsi/devices/$1/cmd_filter"; }
queue_of() { echo "/sys/class/block/$(basename "$1")/queue"; }

if [ "$SGF_KERNEL" = stock ]; then
	rc=0
	out=$("$SGFILTER" show "$HD_NODE" 2>&1) || rc=$?
	check stock.sgfilter-show "sgfilter on stock $SGF_KVER reports a kernel without the feature (exit $rc)" test $rc = 5
	check stock.no-cmd-filter.HD "stock $SGF_KVER has no cmd_filter/ for $HD_HCTL" test ! -e "$(cf "$HD_HCTL")"
	check stock.no-unpriv-sgio.HD "stock $SGF_KVER has no queue/unpriv_sgio" test ! -e "$(queue_of "$HD_NODE")/unpriv_sgio"
	# what unpriv_sgio=1 would change on the patched kernel is what stock
	# already does for a read-write sg open: WRITE BUFFER reaches the disk
	user_probe -e sgio -m rw "$HD_SG" 3b 05 00 00 00 00 00 00 00 00
	check stock.sg-rw.HD.write-buffer "stock $SGF_KVER: WRITE BUFFER through a read-write sg open reaches the disk" \
		test "$PROBE_VERDICT" = reached
	finish_suite
fi

# This suite holds sg's read-write opens and write() to the filter, which
# the patched kernel does only with the opt-in sg.filter_all (finish_suite
# puts it back).
sg_filter_all Y

# ---- what sysfs shows on the default policy is the policy document's answer
roles=()
for role in HD CD BURN1 TAPE CHANGER DBGDISK DBGCD DBGSCAN DBGPROC; do
	hctl=${role}_HCTL
	[ -n "${!hctl:-}" ] && roles+=("$role|$(cat "/sys/bus/scsi/devices/${!hctl}/type")")
done
# one python process for all: "ROLE SET CLASS: the line the file must show"
lines=0
while IFS= read -r line; do
	lines=$((lines + 1))
	role=${line%% *} rest=${line#* } set=${rest%% *} rest=${rest#* }
	cls=${rest%%:*} want=${rest#*: }
	hctl=${role}_HCTL d=$(cf "${!hctl}")
	[ "$cls" = read ] && check "default.$role.cmd-set" "$role: cmd_filter/cmd_set is $set, on the default policy" \
		test "$(cat "$d/cmd_set") $(cat "$d/custom")" = "$set 0"
	check "default.$role.$cls" "$role: cmd_filter/$cls is the generator's default for $set" \
		test "$(cat "$d/$cls")" = "$want"
done < <(python3 - "${roles[@]}" <<'PY'
import os
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ["SGF_TOP"], "tests/guest"))
import sgfpolicy
gen, pol = sgfpolicy.load()
for arg in sys.argv[1:]:
    role, ptype = arg.split("|")
    s = pol.set_of_type(int(ptype))
    for cls, line in gen.sysfs_classes(pol, s).items():
        print(f"{role} {s} {cls}: {line}")
PY
)
check default.model "the model gave the 3 files of each of the ${#roles[@]} devices ($lines lines)" \
	test "$lines" = $((3 * ${#roles[@]})) -a "${#roles[@]}" -gt 5

D=$(cf "$HD_HCTL")
snapshot() { for f in cmd_set custom read write priv; do echo "$f: $(cat "$D/$f")"; done; }
before=$(snapshot)
PR_IN=(5e 00 00 00 00 00 00 00 08 00)	# PERSISTENT RESERVE IN, READ KEYS

# ---- who may change a policy
put 0x5e "$D/read" as_user
check access.user-write "user cannot open cmd_filter/read for writing (${out##*: })" \
	grep -q "Permission denied" <<<"$out"
put 0x5e "$D/read" "${NORAWIO[@]}"
check access.norawio-write "root without CAP_SYS_RAWIO: write gets EPERM (${out##*: })" \
	grep -q "Operation not permitted" <<<"$out"
put 1 "$D/reset" "${NORAWIO[@]}"
check access.norawio-reset "root without CAP_SYS_RAWIO: reset gets EPERM (${out##*: })" \
	grep -q "Operation not permitted" <<<"$out"
rc=0
out=$(as_user "$SGFILTER" allow "$HD_NODE" 0x5e 2>&1) || rc=$?
check access.sgfilter-user "sgfilter allow as user: not permitted (exit $rc)" test $rc = 3
check access.unchanged "the refused writes left the policy byte-identical" test "$(snapshot)" = "$before"

# ---- a change takes effect for the next command; reset restores the default
user_probe -m ro "$HD_NODE" "${PR_IN[@]}"
check change.HD.pr-in-default "default: PERSISTENT RESERVE IN from the user is denied" test "$PROBE_VERDICT" = denied
check change.HD.allow "root: sgfilter allow $HD_NODE 'persistent reserve in'" \
	"$SGFILTER" allow "$HD_NODE" "persistent reserve in"
user_probe -m ro "$HD_NODE" "${PR_IN[@]}"
check change.HD.pr-in-allowed "after allow: the user's next PERSISTENT RESERVE IN reaches the disk" \
	test "$PROBE_VERDICT" = reached
check change.HD.custom "cmd_filter/custom is 1 and read lists 0x5e" \
	test "$(cat "$D/custom")" = 1 -a -n "$(grep -ow 0x5e "$D/read")"
user_probe -m ro "$DBGDISK_NODE" "${PR_IN[@]}"
check change.DBGDISK.pr-in-default "another disk (DBGDISK) keeps the default: denied there" test "$PROBE_VERDICT" = denied
check change.HD.deny "root: sgfilter deny $HD_NODE 'READ(10)'" "$SGFILTER" deny "$HD_NODE" "READ(10)"
user_probe -m ro "$HD_NODE" 28 00 00 00 00 00 00 00 01 00
check change.HD.read10-denied "after deny: the user's READ(10) is denied" test "$PROBE_VERDICT" = denied
check change.HD.reset "root: sgfilter reset $HD_NODE" "$SGFILTER" reset "$HD_NODE"
check change.HD.reset-default "after reset the policy is byte-identical to the default" test "$(snapshot)" = "$before"
user_probe -m ro "$HD_NODE" 28 00 00 00 00 00 00 00 01 00
check change.HD.reset-read10 "after reset: READ(10) reaches the disk again" test "$PROBE_VERDICT" = reached
user_probe -m ro "$HD_NODE" "${PR_IN[@]}"
check change.HD.reset-pr-in "after reset: PERSISTENT RESERVE IN is denied again" test "$PROBE_VERDICT" = denied

# ---- writes are all or nothing, and read back as written
echo "0x28 0x08 0x9e/sa=0x10 0xc1" >"$D/read"
check write.order "an accepted write reads back in the kernel's order" \
	test "$(cat "$D/read")" = "0x08 0x28 0x9e/sa=0x10 0xc1"
custom=$(snapshot)
for spec in "junk|0x28 junk" "sa-0x9e-0x20|0x9e/sa=0x20" "duplicate|0x28 0x28" \
	"zero-mask|0xa3/cdb10&0x00=0x00" "opcode-0x100|0x100" "no-0x|28"; do
	bad=${spec#*|}
	put "$bad" "$D/read"
	check "write.einval.${spec%%|*}" "write '$bad': EINVAL (${out##*: }), policy byte-identical" \
		test $rc != 0 -a "$(snapshot)" = "$custom" -a -n "$(grep -o 'Invalid argument' <<<"$out")"
done
out=$(python3 -c "import os
fd = os.open('$D/write', os.O_WRONLY)
try:
    os.write(fd, b'0x2a\\0 0x2e')
except OSError as e:
    print(e.strerror)" 2>&1)
check write.einval.nul "a write with a NUL byte: EINVAL ($out), policy byte-identical" \
	test "$out" = "Invalid argument" -a "$(snapshot)" = "$custom"
put 0x28 "$D/priv"
check write.einval.opcode-in-priv "a whole opcode written to priv: EINVAL, policy byte-identical" \
	test $rc != 0 -a "$(snapshot)" = "$custom" -a -n "$(grep -o 'Invalid argument' <<<"$out")"
put 2 "$D/reset"
check write.reset-only-1 "reset accepts only 1" test $rc != 0 -a "$(snapshot)" = "$custom"

# ---- an opcode's rules are tried in one order, whatever order they are
# written in: by the field's first byte, the widest field first, the
# largest mask first (scsi_filter_token_cmp()); the first that matches decides
put "0xa3/cdb10&0x0f=0x06 0xa3/cdb2&0x1f=0x05 0xa3/cdb10&0x3f=0x06 0x7f/cdb8&0xff=0x00 0x7f/sa=0x0001" "$D/read"
check field-order.read-back "field rules read back by opcode, first byte, widest field, largest mask (rc $rc)" \
	test $rc = 0 -a "$(cat "$D/read")" = "0x7f/sa=0x0001 0x7f/cdb8&0xff=0x00 0xa3/cdb2&0x1f=0x05 0xa3/cdb10&0x3f=0x06 0xa3/cdb10&0x0f=0x06"
put "0xa3/cdb10&0x3f=0x06" "$D/read"
put "0xa3/cdb10&0x0f=0x06" "$D/priv"
MAINT_IN=(a3 00 00 00 00 00 00 00 00 00)	# MAINTENANCE IN, 12 bytes with byte 10 next
user_probe -m ro "$HD_NODE" "${MAINT_IN[@]}" 06 00
check field-order.larger-mask-first "MAINTENANCE IN, byte 10 0x06: the larger mask's rule (read) decides before the smaller one's (priv): reached" \
	test "$PROBE_VERDICT" = reached
user_probe -m ro "$HD_NODE" "${MAINT_IN[@]}" 16 00
check field-order.smaller-mask "MAINTENANCE IN, byte 10 0x16: only the smaller mask's rule (priv) matches: denied" \
	test "$PROBE_VERDICT" = denied
echo 1 >"$D/reset"
check field-order.reset "reset after the field rules restores the default" test "$(snapshot)" = "$before"

# ---- "+" and "-" edits: one write changes what it names, and nothing else
echo 1 >"$D/reset"
read0=$(cat "$D/read") write0=$(cat "$D/write") priv0=$(cat "$D/priv")
tokset() { tr ' ' '\n' | grep . | sort | tr '\n' ' '; }
put "+0x42 -0x28 +0xc1" "$D/read"
check edit.accepted "edit '+0x42 -0x28 +0xc1' of read: accepted (rc $rc)" test $rc = 0
check edit.read "... read lost READ(10), gained UNMAP and 0xc1, kept the rest" \
	test "$(tokset <"$D/read")" = "$(echo "$read0 0x42 0xc1" | tr ' ' '\n' | grep -vx 0x28 | tr '\n' ' ' | tokset)"
check edit.write "... UNMAP left write, which kept everything else" 	test "$(cat "$D/write")" = "${write0/ 0x42/}"
check edit.priv "... priv is unchanged" test "$(cat "$D/priv")" = "$priv0"
user_probe -m ro "$HD_NODE" 28 00 00 00 00 00 00 00 01 00
check edit.read10-denied "after '-0x28': the user's READ(10) is denied" test "$PROBE_VERDICT" = denied
edited=$(snapshot)
for spec in "minus-0x2a|-0x2a" "plus-and-plain|+0x28 0x2a" "minus-0xc5|-0xc5" "plus-0x28-twice|+0x28 +0x28"; do
	bad=${spec#*|}
	put "$bad" "$D/read"
	check "edit.einval.${spec%%|*}" "edit '$bad' of read: EINVAL, policy byte-identical" \
		test $rc != 0 -a "$(snapshot)" = "$edited" -a -n "$(grep -o 'Invalid argument' <<<"$out")"
done
# an exception of another class that a CDB could match beside a read
# row, neither testing every bit the other tests, is refused (only the
# order of their bytes would decide); one with every field of the read
# row it narrows is taken, and decides
put "+0x85/cdb8&0xe0=0xa0" "$D/priv"
check edit.einval.ambiguous "edit '+0x85/cdb8&0xe0=0xa0' of priv, beside the health reads on bytes 1-14: EINVAL, policy byte-identical" \
	test $rc != 0 -a "$(snapshot)" = "$edited" -a -n "$(grep -o 'Invalid argument' <<<"$out")"
narrow="0x85/cdb1&0x1e=0x08/cdb2&0x0f=0x0e/cdb4&0xff=0xd5/cdb8&0xff=0x06/cdb14&0xff=0xb0"
put "+$narrow" "$D/priv"
check edit.narrower "edit '+$narrow' of priv (SMART READ LOG of the self-test log): accepted (rc $rc)" \
	test $rc = 0 -a -n "$(grep -o -F "$narrow" "$D/priv")"
SMART_LOG=(85 08 0e 00 d5 00 01 00)	# SMART READ LOG, one sector, then the log address
user_probe -m ro "$HD_NODE" "${SMART_LOG[@]}" 06 00 4f 00 c2 00 b0 00
check edit.narrower.denies "... the user's SMART READ LOG of log 0x06: denied" test "$PROBE_VERDICT" = denied
user_probe -m ro "$HD_NODE" "${SMART_LOG[@]}" 01 00 4f 00 c2 00 b0 00
check edit.narrower.keeps "... of log 0x01 (the summary error log): still reached" test "$PROBE_VERDICT" = reached
put "-$narrow" "$D/priv"
check edit.narrower.removed "'-' of it restores the policy byte-identical" test $rc = 0 -a "$(snapshot)" = "$edited"
put "+0x9e" "$D/priv"
check edit.priv-0x9e "edit '+0x9e' of priv: every form of 0x9e is privileged" \
	test $rc = 0 -a -z "$(grep -o '0x9e[^ ]*' "$D/read" "$D/write")"
echo 1 >"$D/reset"
check edit.reset "reset after the edits restores the default" test "$(snapshot)" = "$before"
echo 1 >"$D/reset"
check edit.reset-again "reset by hand restores the default" test "$(snapshot)" = "$before"

# ---- the lab's case: one vendor command for a changer's users
user_probe -m ro "$CHANGER_SG" c1 00 00 00 00 00
check changer-0xc1.default "changer: vendor command 0xc1 denied by default" test "$PROBE_VERDICT" = denied
check changer-0xc1.allow "root: sgfilter allow $CHANGER_SG 0xc1" "$SGFILTER" allow "$CHANGER_SG" 0xc1
user_probe -m ro "$CHANGER_SG" c1 00 00 00 00 00
check changer-0xc1.allowed "changer: the user's 0xc1 now reaches the device" test "$PROBE_VERDICT" = reached
check changer-0xc1.reset "root: sgfilter reset $CHANGER_HCTL" "$SGFILTER" reset "$CHANGER_HCTL"

# ---- the example udev rules: each RUN command works on a device of its type
# (there is no udevd in the guest; the rule's match keys are plain sysfs)
while IFS='|' read -r type cmd; do
	dev=
	for role in HD TAPE CHANGER DBGDISK; do
		hctl=${role}_HCTL
		[ "$(cat "/sys/bus/scsi/devices/${!hctl}/type")" = "$type" ] && dev=${!hctl} && break
	done
	[ -n "$dev" ] || continue
	cmd=${cmd//%k/$dev}
	cmd=${cmd//\/usr\/local\/sbin\/sgfilter/$SGFILTER}
	check "udev-example.type-$type" "udev example (type $type): ${cmd#"$SGFILTER" } makes $dev custom" \
		sh -c "$cmd && test \"\$(cat $(cf "$dev")/custom)\" = 1"
	"$SGFILTER" reset "$dev" >/dev/null
done < <(sed -e ':a' -e '/\\$/N; s/\\\n *//; ta' "$SGF_TOP/tools/sgfilter/60-sgfilter.rules.example" |
	grep -v '^#' | grep -v 'ATTRS{vendor}' |
	sed -n 's/.*ATTR{type}=="\([0-9]*\)".*RUN+="\([^"]*\)".*/\1|\2/p')

# ---- unpriv_sgio: the filter off for the writable opens of one device, on all its nodes
Q=$(queue_of "$HD_NODE")
check unpriv-sgio.default "HD has queue/unpriv_sgio, 0 by default" test "$(cat "$Q/unpriv_sgio")" = 0
put 1 "$Q/unpriv_sgio" as_user
check unpriv-sgio.user "user cannot set unpriv_sgio" test $rc != 0 -a "$(cat "$Q/unpriv_sgio")" = 0
put 1 "$Q/unpriv_sgio" "${NORAWIO[@]}"
check unpriv-sgio.norawio "root without CAP_SYS_RAWIO gets EPERM on unpriv_sgio (${out##*: })" \
	test "$(cat "$Q/unpriv_sgio")" = 0 -a -n "$(grep -o 'Operation not permitted' <<<"$out")"
put 2 "$Q/unpriv_sgio"
check unpriv-sgio.refuses-2 "unpriv_sgio refuses 2 (${out##*: })" test $rc != 0 -a "$(cat "$Q/unpriv_sgio")" = 0
echo 1 >"$Q/unpriv_sgio"
WB=(3b 05 00 00 00 00 00 00 00 00)	# WRITE BUFFER, download microcode
probe_all <<EOF
reached|unpriv-sgio.on.HD.sd-rw|unpriv_sgio=1: HD $HD_NODE read-write: WRITE BUFFER|-m rw $HD_NODE ${WB[*]}
reached|unpriv-sgio.on.HD.sg-rw|unpriv_sgio=1: HD $HD_SG (same queue) read-write: WRITE BUFFER|-m rw $HD_SG ${WB[*]}
reached|unpriv-sgio.on.HD.bsg-rw|unpriv_sgio=1: HD $HD_BSG (same queue) read-write: WRITE BUFFER|-e bsg -m rw $HD_BSG ${WB[*]}
denied|unpriv-sgio.on.HD.sd-ro|unpriv_sgio=1, a read-only open stays filtered: HD $HD_NODE read-only: WRITE BUFFER|-m ro $HD_NODE ${WB[*]}
denied|unpriv-sgio.on.HD.bsg-ro|unpriv_sgio=1, a read-only open stays filtered: HD $HD_BSG read-only: SANITIZE|-e bsg -m ro $HD_BSG 48 01 00 00 00 00 00 00 00 00
denied|unpriv-sgio.on.DBGDISK.sd-ro|unpriv_sgio=1 on HD only: DBGDISK $DBGDISK_NODE read-only: WRITE BUFFER|-m ro $DBGDISK_NODE ${WB[*]}
denied|unpriv-sgio.on.CD.sg-rw|unpriv_sgio=1 on HD only: CD $CD_SG read-write: WRITE BUFFER|-m rw $CD_SG ${WB[*]}
EOF
check unpriv-sgio.on.HD.show "sgfilter show marks HD as not filtered" \
	grep -q "unfiltered=1: NOT FILTERED" <("$SGFILTER" show "$HD_NODE")
echo 0 >"$Q/unpriv_sgio"
probe_all <<EOF
denied|unpriv-sgio.off.HD.sg-rw|unpriv_sgio=0 again: HD $HD_SG read-write: WRITE BUFFER|-m rw $HD_SG ${WB[*]}
EOF

# ---- audit: log line, counters, tracepoint, for each entry point
T=/sys/kernel/tracing
echo 0 >$T/tracing_on
echo >$T/trace
echo 1 >$T/events/scsi/scsi_cmd_filter_deny/enable
echo 1 >$T/tracing_on
allowed0=$(cat "$D/allowed") denied0=$(cat "$D/denied")
sleep 5	# a fresh rate-limit window: earlier suites logged many denials
dmesg -c >/dev/null
probe_all <<EOF
denied|audit.HD.sgio|audit: HD $HD_NODE SG_IO read-only: PERSISTENT RESERVE IN|-e sgio -m ro $HD_NODE ${PR_IN[*]}
denied|audit.HD.sg-write|audit: HD $HD_SG sg write() read-write: WRITE BUFFER|-e sgrw -m rw $HD_SG ${WB[*]}
denied|audit.HD.bsg|audit: HD $HD_BSG bsg read-only: SERVICE ACTION IN(16) sa 0x14|-e bsg -m ro $HD_BSG 9e 14 00 00 00 00 00 00 00 00 00 00 00 20 00 00
denied|audit.HD.send-command|audit: HD $HD_NODE SCSI_IOCTL_SEND_COMMAND read-only: UNMAP|-e sic -m ro $HD_NODE 42 00 00 00 00 00 00 00 00 00
reached|audit.HD.inquiry|audit: HD $HD_NODE read-only: INQUIRY|-m ro -i 36 $HD_NODE 12 00 00 00 24 00
EOF
user_probe -e packet -m ro "$CD_NODE" 3b 05 00 00 00 00 00 00 00 00 00 00
check audit.CD.send-packet "audit: CD $CD_NODE CDROM_SEND_PACKET: WRITE BUFFER denied" test "$PROBE_VERDICT" = denied
# READ(16) is no MMC command (6.1 allows it on every device): the CD's
# set refuses it by a row of several opcodes, which names none of them
user_probe -e sgio -m ro "$CD_NODE" 88 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00
check audit.CD.sgio "audit: CD $CD_NODE SG_IO read-only: READ(16) denied" test "$PROBE_VERDICT" = denied
echo 0 >$T/tracing_on
check audit.HD.denied-counter "audit: cmd_filter/denied of HD rose by 4 ($denied0 -> $(cat "$D/denied"))" \
	test "$(cat "$D/denied")" = $((denied0 + 4))
check audit.HD.allowed-counter "audit: cmd_filter/allowed of HD rose by 1 ($allowed0 -> $(cat "$D/allowed"))" \
	test "$(cat "$D/allowed")" = $((allowed0 + 1))
log=$(dmesg | sed -E 's/sgprobe\[[0-9]+\]/sgprobe[PID]/')
echo "$log" | grep "command filter" | sed 's/^/# /'
# Since 6.5, scsi_cmd_allowed() is told only whether the open is for
# writing (bool open_for_write), not the whole open mode: the 6.12 series
# logs a "writable open" where the 6.1 one tells "read-write" from
# "write-only"
rw_open=read-write
[ "$SGF_KVER" = 6.1 ] || rw_open=writable
while IFS='|' read -r id want; do
	check "audit.log.$id" "audit: log line '${want#*: }'" grep -qF "$want" <<<"$log"
done <<EOF
HD.sgio|$HD_HCTL: command filter: denied PERSISTENT RESERVE IN (0x5e) to sgprobe[PID] uid 65534, read-only open, SG_IO
HD.sg-write|$HD_HCTL: command filter: denied WRITE BUFFER (firmware download) (0x3b) to sgprobe[PID] uid 65534, $rw_open open, sg write()
HD.bsg|$HD_HCTL: command filter: denied SERVICE ACTION IN(16) (other service actions) (0x9e/sa=0x14) to sgprobe[PID] uid 65534, read-only open, bsg
HD.send-command|$HD_HCTL: command filter: denied UNMAP (0x42) to sgprobe[PID] uid 65534, read-only open, SCSI_IOCTL_SEND_COMMAND
CD.send-packet|$CD_HCTL: command filter: denied WRITE BUFFER (firmware download) (0x3b) to sgprobe[PID] uid 65534, read-only open, CDROM_SEND_PACKET
CD.sgio|$CD_HCTL: command filter: denied unnamed command (0x88) to sgprobe[PID] uid 65534, read-only open, SG_IO
EOF
check audit.log.no-null "audit: no log line names a command '(null)'" \
	test "$(grep "command filter" <<<"$log" | grep -c '(null)')" = 0
trace=$(grep scsi_cmd_filter_deny $T/trace)
# shellcheck disable=SC2001 # prefixes every line
echo "$trace" | sed 's/^/# /'
# a service action is reported where the command set has rules on it
# (0x9e on a disk), not for an opcode it decides as a whole (0x5e); the
# whole CDB is recorded
for spec in "HD.sgio|opcode=0x5e sa=-1 .*via=SG_IO uid=65534" "HD.sg-write|opcode=0x3b sa=-1 .*via=SG_WRITE uid=65534" \
	"HD.bsg|opcode=0x9e sa=20 cmd_len=16 writable=0 via=BSG uid=65534 cdb=\\(9e 14( [0-9a-f]{2}){14}\\)" \
	"HD.send-command|opcode=0x42 .*via=SEND_COMMAND uid=65534" "CD.send-packet|opcode=0x3b .*via=SEND_PACKET uid=65534" \
	"CD.sgio|opcode=0x88 .*via=SG_IO uid=65534"; do
	want=${spec#*|}
	check "audit.trace.${spec%%|*}" "audit: tracepoint event '$want'" grep -qE "$want" <<<"$trace"
done
check audit.trace.count "audit: exactly 6 denial events traced" test "$(grep -c . <<<"$trace")" = 6
echo 0 >$T/events/scsi/scsi_cmd_filter_deny/enable

# ---- sgfilter against the real sysfs: every way to name a device
for spec in "sd|$HD_NODE" "sg|$HD_SG" "bsg|$HD_BSG" "hctl|$HD_HCTL" "partition|${HD_NODE}1"; do
	dev=${spec#*|}
	[ -e "$dev" ] || [ "$dev" = "$HD_HCTL" ] || continue
	check "sgfilter.show.HD.${spec%%|*}" "sgfilter show $dev names $HD_HCTL, command set sbc" \
		grep -q "^$HD_HCTL: command set sbc, the default policy" <("$SGFILTER" show "$dev")
done
check sgfilter.show.CD.read-0x42 "sgfilter show $CD_NODE: the CD's 0x42 is READ SUB-CHANNEL" \
	grep -qE "^read +0x42 +READ SUB-CHANNEL" <("$SGFILTER" show "$CD_NODE")
check sgfilter.stats.HD "sgfilter stats equals the sysfs counters" \
	grep -qx "$HD_HCTL: $(cat "$D/allowed") allowed, $(cat "$D/denied") denied" \
	<("$SGFILTER" stats "$HD_NODE")
check sgfilter.json-show.CD "sgfilter --json show is valid JSON" \
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["command_set"]=="mmc"' \
	< <("$SGFILTER" --json show "$CD_NODE")
# sgfilter check agrees with what the kernel does
for spec in "HD|$HD_NODE|42 00 00 00 00 00 00 00 00 00" "CD|$CD_NODE|42 00 00 00 00 00 00 00 00 00" \
	"HD|$HD_NODE|9e 10 00 00 00 00 00 00 00 00 00 00 00 20 00 00" "TAPE|$TAPE_SG|1b 00 00 00 00 00" \
	"CHANGER|$CHANGER_SG|a5 00 00 00 00 00 00 00 00 00 00 00"; do
	IFS='|' read -r role dev cdb <<<"$spec"
	# shellcheck disable=SC2086 # $cdb holds the CDB's bytes
	json=$("$SGFILTER" --json check "$dev" $cdb)
	for mode in ro rw; do
		key=$([ $mode = ro ] && echo read_only_open || echo writable_open)
		[[ $json =~ \"$key\":\"([a-z]+)\" ]] && said=${BASH_REMATCH[1]} || said=none
		# shellcheck disable=SC2086 # $cdb holds the CDB's bytes
		user_probe -m $mode "$dev" $cdb
		got=$([ "$PROBE_VERDICT" = denied ] && echo denied || echo allowed)
		check "sgfilter.check.$role.0x${cdb:0:2}.$mode" "sgfilter check $role ${cdb:0:2}.. $mode says $said, the kernel $got" test "$said" = "$got"
	done
done
finish_suite
