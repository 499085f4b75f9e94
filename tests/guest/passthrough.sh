#!/bin/bash
# The unfiltered switch, cmd_filter/unfiltered, on devices that have no
# block queue directory: tgt's tape drive and changer, scsi_debug's tape,
# changer, scanner and processor. A VM-style pass-through of a tape through
# its /dev/sg* (what QEMU's scsi-generic does for an unprivileged emulator)
# gets every command once root sets it, as a read-write sg open did on 6.1,
# and for that device only. For a disk the file is the same state as the
# queue/unpriv_sgio that libvirt writes. On the stock kernel there is no switch:
# the suite says so and shows what the switch restores, 6.1's unfiltered
# read-write sg open.
. "$(dirname "$0")/lib.sh"
SGFILTER=$SGF_BUILD/bin/sgfilter
uf() { echo "/sys/bus/scsi/devices/$1/cmd_filter/unfiltered"; }
WB="3b 05 00 00 00 00 00 00 00 00"	# WRITE BUFFER, download microcode
SPOUT="b5 20 00 10 00 00 00 00 00 00 00 00"	# SECURITY PROTOCOL OUT, tape encryption
VENDOR="c0 00 00 00 00 00"

# denied_of DEV: how many of the 256 opcodes (zeroed 10-byte CDBs, as the
# matrix's root pass sends them) a read-write open of DEV gets refused, as
# the user
denied_of() {
	local op
	for op in $(seq 0 255); do
		printf -- '-e sgio -m rw -t 5000 %s %02x 00 00 00 00 00 00 00 00 00\n' "$1" "$op"
	done | as_user "$PROBE" -b | grep -c 'verdict=denied' || true
}

if [ "$SGF_KERNEL" = stock ]; then
	check stock.switch-absent.VTAPE "stock $SGF_KVER has no cmd_filter/unfiltered for the tape $VTAPE_HCTL" test ! -e "$(uf "$VTAPE_HCTL")"
	n=$(denied_of "$TAPE_SG")
	check stock.TAPE.all-opcodes "stock $SGF_KVER: TAPE $TAPE_SG read-write: all 256 opcodes reach the tape ($n denied)" test "$n" = 0
	PROBE_AS="as_member tape" probe_all <<EOF
reached|stock.VTAPE.write-buffer|stock $SGF_KVER: tape member, VTAPE $VTAPE_SG read-write: WRITE BUFFER|-m rw $VTAPE_SG $WB
reached|stock.VTAPE.security-protocol-out|stock $SGF_KVER: tape member, VTAPE $VTAPE_SG read-write: SECURITY PROTOCOL OUT|-m rw $VTAPE_SG $SPOUT
EOF
	finish_suite
fi

# This suite holds sg's read-write opens and write() to the filter, which
# the patched kernel does only with the opt-in sg.filter_all (finish_suite
# puts it back).
sg_filter_all Y

# ---- every SCSI device has the switch, off
for role in VTAPE VCHANGER TAPE CHANGER DBGSCAN DBGPROC HD CD; do
	hctl=${role}_HCTL
	check "switch.$role" "$role (${!hctl}, $(cat "/sys/bus/scsi/devices/${!hctl}/cmd_filter/cmd_set")) has cmd_filter/unfiltered, 0" \
		test "$(cat "$(uf "${!hctl}")")" = 0
done

# ---- who may set it, and what it takes
F=$(uf "$VTAPE_HCTL")
put 1 "$F" as_member tape
check set.tape-member "a tape member cannot open cmd_filter/unfiltered for writing (${out##*: })" \
	test "$rc" != 0 -a "$(cat "$F")" = 0
put 1 "$F" "${NORAWIO[@]}"
check set.no-rawio "root without CAP_SYS_RAWIO gets EPERM (${out##*: })" \
	test "$(cat "$F")" = 0 -a -n "$(grep -o 'Operation not permitted' <<<"$out")"
put 1 "$F" unshare -Ur
check set.userns "root in a user namespace (CAP_SYS_RAWIO there) gets EPERM (${out##*: })" \
	test "$(cat "$F")" = 0 -a -n "$(grep -o 'Operation not permitted' <<<"$out")"
for bad in 2 yes -1 "1 1" " "; do
	case $bad in " ") id=space ;; "1 1") id=two-words ;; -1) id=minus-1 ;; *) id=$bad ;; esac
	put "$bad" "$F"
	check "set.bad-value.$id" "unfiltered refuses '$bad' and stays 0 (${out##*: })" test "$rc" != 0 -a "$(cat "$F")" = 0
done

# ---- before: the tape's pass-through loses what the policy refuses
PROBE_AS="as_member tape" probe_all <<EOF
denied|unfiltered-0.VTAPE.write-buffer|unfiltered=0: tape member, VTAPE $VTAPE_SG read-write: WRITE BUFFER|-m rw $VTAPE_SG $WB
denied|unfiltered-0.VTAPE.security-protocol-out|unfiltered=0: tape member, VTAPE $VTAPE_SG read-write: SECURITY PROTOCOL OUT|-m rw $VTAPE_SG $SPOUT
denied|unfiltered-0.VTAPE.vendor-c0|unfiltered=0: tape member, VTAPE $VTAPE_SG read-write: vendor 0xc0|-m rw $VTAPE_SG $VENDOR
EOF

# ---- root sets it for the tape (libvirt would, for a <hostdev> tape)
put 1 "$F"
check set.root.VTAPE "root sets VTAPE's cmd_filter/unfiltered to 1" test "$rc" = 0 -a "$(cat "$F")" = 1
check sgfilter.show.VTAPE "sgfilter show marks VTAPE as not filtered" \
	grep -q "unfiltered=1: NOT FILTERED" <("$SGFILTER" show "$VTAPE_SG")
PROBE_AS="as_member tape" probe_all <<EOF
reached|unfiltered-1.VTAPE.write-buffer|unfiltered=1: tape member, VTAPE $VTAPE_SG read-write: WRITE BUFFER|-m rw $VTAPE_SG $WB
reached|unfiltered-1.VTAPE.security-protocol-out|unfiltered=1: tape member, VTAPE $VTAPE_SG read-write: SECURITY PROTOCOL OUT|-m rw $VTAPE_SG $SPOUT
reached|unfiltered-1.VTAPE.vendor-c0|unfiltered=1: tape member, VTAPE $VTAPE_SG read-write: vendor 0xc0|-m rw $VTAPE_SG $VENDOR
denied|unfiltered-1.VCHANGER.write-buffer|unfiltered=1 on VTAPE only: tape member, VCHANGER $VCHANGER_SG read-write: WRITE BUFFER|-m rw $VCHANGER_SG $WB
denied|unfiltered-1.VTAPE.nst-sgio.write-buffer|unfiltered=1, st's own rule: tape member, VTAPE $VTAPE_NST SG_IO: WRITE BUFFER|-e sgio -m rw $VTAPE_NST $WB
EOF
probe_all <<EOF
denied|unfiltered-1.TAPE.write-buffer|unfiltered=1 on VTAPE only: TAPE $TAPE_SG read-write: WRITE BUFFER|-m rw $TAPE_SG $WB
EOF
put 0 "$F"
PROBE_AS="as_member tape" probe_all <<EOF
denied|unfiltered-0-again.VTAPE.write-buffer|unfiltered=0 again: tape member, VTAPE $VTAPE_SG read-write: WRITE BUFFER|-m rw $VTAPE_SG $WB
EOF

# ---- the whole opcode space, as a guest's driver might send it, through
# sgfilter's switch, on scsi_debug's tape (which answers every opcode)
check sgfilter.unfiltered-1.TAPE "sgfilter unfiltered TAPE 1" "$SGFILTER" unfiltered "$TAPE_SG" 1
n=$(denied_of "$TAPE_SG")
check unfiltered-1.TAPE.all-opcodes "unfiltered=1: TAPE $TAPE_SG read-write: all 256 opcodes reach the tape, as on stock $SGF_KVER ($n denied)" test "$n" = 0
check sgfilter.unfiltered-0.TAPE "sgfilter unfiltered TAPE 0" "$SGFILTER" unfiltered "$TAPE_SG" 0
n=$(denied_of "$TAPE_SG")
check unfiltered-0-again.TAPE.all-opcodes "unfiltered=0 again: the ssc policy refuses $n of the 256 opcodes" test "$n" -gt 0

# ---- the other devices without a block queue
for role in CHANGER DBGSCAN DBGPROC; do
	hctl=${role}_HCTL sg=${role}_SG
	echo 1 >"$(uf "${!hctl}")"
	probe_all <<EOF
reached|unfiltered-1.$role.write-buffer|unfiltered=1: $role ${!sg} read-write: WRITE BUFFER|-m rw ${!sg} $WB
EOF
	echo 0 >"$(uf "${!hctl}")"
	probe_all <<EOF
denied|unfiltered-0.$role.write-buffer|unfiltered=0: $role ${!sg} read-write: WRITE BUFFER|-m rw ${!sg} $WB
EOF
done

# ---- a disk: one state behind cmd_filter/unfiltered and queue/unpriv_sgio
Q=/sys/dev/block/$(cat "/sys/class/block/$(basename "$HD_NODE")/dev")/queue/unpriv_sgio
put 1 "$Q"	# as libvirt writes it: "1", no newline
check disk.unpriv-sgio-sets.HD "libvirt's write of queue/unpriv_sgio shows in HD's cmd_filter/unfiltered" \
	test "$rc" = 0 -a "$(cat "$(uf "$HD_HCTL")")" = 1
echo 0 >"$(uf "$HD_HCTL")"
check disk.unfiltered-clears.HD "clearing cmd_filter/unfiltered clears queue/unpriv_sgio" test "$(cat "$Q")" = 0
finish_suite
