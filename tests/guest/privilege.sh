#!/bin/bash
# Privilege: what root inside a user namespace, and a process handed an
# open descriptor, can do.
#  - uid 65534 makes a user namespace (unshare -Ur) and is root there, with
#    every capability of that namespace, CAP_SYS_RAWIO included. The filter
#    asks for CAP_SYS_RAWIO in the initial namespace, so the holes stay
#    shut; the policy files and unpriv_sgio refuse it, also through a sysfs
#    it mounts itself in a network namespace of its own.
#  - root opens a device and the descriptor passes (inherited across exec)
#    to uid 65534: the filter decides by the receiver's capabilities and the
#    descriptor's open mode, so it grants no more than the receiver would
#    get by opening the node itself, which is less than 6.1 grants through
#    a read-write sg descriptor (6.1 skips its filter there); and sg's
#    write() still refuses a descriptor opened with other credentials.
# Security tests use hole(): on the stock kernel they must fail (the command
# reaches the device), on the filter they must pass.
. "$(dirname "$0")/lib.sh"
# This suite holds sg's read-write opens and write() to the filter, which
# the patched kernel does only with the opt-in sg.filter_all (finish_suite
# puts it back).
sg_filter_all Y

# user_probe through a user namespace where the user is root
userns_probe() {
	PROBE_OUT=$(as_user unshare -Ur "$PROBE" "$@" 2>&1)
	parse_verdict "$PROBE_OUT"
}

capeff=$(as_user unshare -Ur sh -c 'sed -n "s/^CapEff:[[:space:]]*//p" /proc/self/status' 2>&1)
uid=$(as_user unshare -Ur id -u 2>&1)
if [ "$uid" = 0 ] && [[ $capeff =~ ^[0-9a-f]+$ ]] && [ $((0x$capeff >> 17 & 1)) = 1 ]; then
	ok userns.root "uid 65534 is root in its own user namespace, with CAP_SYS_RAWIO there (CapEff $capeff)"
else
	not_ok userns.root "could not make a user namespace as uid 65534 (uid '$uid', CapEff '$capeff')"
fi

# hole() with the probe run as root of a user namespace
user_probe() { userns_probe "$@"; }
UNMAP_LIST=001600100000000000000000000003e80000000800000000
hole userns.unmap.HD.block-ro "user-namespace root, HD $HD_NODE read-only open: UNMAP (0x42)" -m ro -d $UNMAP_LIST \
	"$HD_NODE" 42 00 00 00 00 00 00 00 18 00
hole userns.write-buffer.HD.sg-rw "user-namespace root, HD $HD_SG read-write open: WRITE BUFFER (0x3b)" -m rw \
	"$HD_SG" 3b 05 00 00 00 00 00 00 00 00
hole userns.ata-pass-through-12.HD.block-rw "user-namespace root, HD $HD_NODE writable open: ATA PASS-THROUGH(12) (0xa1)" -m rw \
	"$HD_NODE" a1 00 00 00 00 00 00 00 00 00 00 00
hole userns.sanitize.DBGDISK.bsg-ro "user-namespace root, DBGDISK $DBGDISK_BSG read-only open: SANITIZE (0x48) through bsg" \
	-e bsg -m ro "$DBGDISK_BSG" 48 00 00 00 00 00 00 00 00 00

# policy files and unpriv_sgio from the user namespace
pol=/sys/bus/scsi/devices/$DBGDISK_HCTL/cmd_filter
q=$(echo "/sys/bus/scsi/devices/$DBGDISK_HCTL"/block/*/queue)
if [ "$SGF_KERNEL" = patched ]; then
	before=$(cat "$pol/read" "$pol/write" "$pol/priv" "$pol/custom" "$q/unpriv_sgio")
	for f in $pol/read $pol/write $pol/priv $pol/reset $q/unpriv_sgio; do
		val=0x3b
		case $f in */reset) val=1 ;; */unpriv_sgio) val=1 ;; esac
		out=$(as_user unshare -Ur sh -c "/usr/bin/printf '%s' $val >$f" 2>&1) && rc=0 || rc=$?
		if [ "$rc" != 0 ] && [[ $out == *"Permission denied"* || $out == *"not permitted"* ]]; then
			ok "userns.policy-write.DBGDISK.${f##*/}" "user-namespace root cannot write ${f#/sys/bus/scsi/devices/}: ${out##*: }"
		else
			not_ok "userns.policy-write.DBGDISK.${f##*/}" "user-namespace root wrote $f (exit $rc: $out)"
		fi
	done
	# its own sysfs, mounted in a network namespace it owns
	mkdir -p /tmp/ns-sys && chmod 0777 /tmp/ns-sys
	out=$(as_user unshare -Urnm sh -c "mount -t sysfs sysfs /tmp/ns-sys &&
		echo mounted && ls /tmp/ns-sys/bus/scsi/devices/$DBGDISK_HCTL/cmd_filter/read &&
		/usr/bin/printf 0x3b >/tmp/ns-sys/bus/scsi/devices/$DBGDISK_HCTL/cmd_filter/read" 2>&1) &&
		rc=0 || rc=$?
	if [[ $out == mounted* ]] && [ "$rc" != 0 ] &&
	   [[ $out == *"Permission denied"* || $out == *"not permitted"* ]]; then
		ok userns.own-sysfs.DBGDISK "user-namespace root mounts its own sysfs and still cannot write cmd_filter/read: ${out##*: }"
	else
		not_ok userns.own-sysfs.DBGDISK "a sysfs mounted in a user namespace: exit $rc" "$out"
	fi
	after=$(cat "$pol/read" "$pol/write" "$pol/priv" "$pol/custom" "$q/unpriv_sgio")
	check userns.policy-unchanged.DBGDISK "the policy and unpriv_sgio are byte-identical after those attempts" \
		test "$before" = "$after"
else
	check userns.no-policy.DBGDISK "stock $SGF_KVER has no per-device policy for a user namespace to change" \
		test ! -e "$pol" -a ! -e "$q/unpriv_sgio"
fi

# descriptors opened by root, used by uid 65534 (inherited across exec, as
# through SCM_RIGHTS: the same open file, another process's credentials)
# passed_probe SGPROBE-ARGS: the probe as uid 65534 on descriptor 7, which
# root opened on $FD_DEV with $FD_MODE (rw or ro)
passed_probe() {
	if [ "$FD_MODE" = rw ]; then
		PROBE_OUT=$(as_user "$PROBE" -F 7 "$@" 7<>"$FD_DEV" 2>&1)
	else
		PROBE_OUT=$(as_user "$PROBE" -F 7 "$@" 7<"$FD_DEV" 2>&1)
	fi
	parse_verdict "$PROBE_OUT"
}
user_probe() { passed_probe "$@"; }
FD_MODE=rw FD_DEV=$HD_SG
hole passed-fd.write-buffer.HD.sg-rw "root's read-write $HD_SG passed to uid 65534, SG_IO: WRITE BUFFER (0x3b)" \
	-e sgio "$HD_SG" 3b 05 00 00 00 00 00 00 00 00
hole passed-fd.sanitize.HD.sg-rw "root's read-write $HD_SG passed to uid 65534, SG_IO: SANITIZE (0x48)" \
	-e sgio "$HD_SG" 48 00 00 00 00 00 00 00 00 00
FD_MODE=ro FD_DEV=$HD_NODE
hole passed-fd.unmap.HD.block-ro "root's read-only $HD_NODE passed to uid 65534, SG_IO: UNMAP (0x42)" \
	-e sgio -d $UNMAP_LIST "$HD_NODE" 42 00 00 00 00 00 00 00 18 00
FD_MODE=ro FD_DEV=$DBGDISK_BSG
hole passed-fd.sanitize.DBGDISK.bsg-ro "root's read-only $DBGDISK_BSG passed to uid 65534, bsg: SANITIZE (0x48)" \
	-e bsg "$DBGDISK_BSG" 48 00 00 00 00 00 00 00 00 00

# what the receiver may do is what it may do with its own open: INQUIRY
FD_MODE=rw FD_DEV=$HD_SG
passed_probe -e sgio -i 36 "$HD_SG" 12 00 00 00 24 00
check passed-fd.inquiry.HD.sg-rw "a passed read-write sg descriptor still carries INQUIRY (SG_IO): ${PROBE_VERDICT:-?}" \
	test "$PROBE_VERDICT" = reached
# sg's write(): the credential check of 6.1 stays, for any command
cnt=/sys/bus/scsi/devices/$HD_HCTL/cmd_filter
[ "$SGF_KERNEL" = patched ] && before=$(cat "$cnt/allowed" "$cnt/denied")
passed_probe -e sgrw -i 36 "$HD_SG" 12 00 00 00 24 00
check passed-fd.sg-write.HD "sg write() through a passed descriptor is refused (EPERM), even INQUIRY, as on stock $SGF_KVER: ${PROBE_VERDICT:-?}" \
	test "$PROBE_VERDICT" = denied
if [ "$SGF_KERNEL" = patched ]; then
	after=$(cat "$cnt/allowed" "$cnt/denied")
	# shellcheck disable=SC2086,SC2116 # echo joins the counters on one line
	check passed-fd.sg-write.HD.counters "... by sg's credential check, before the filter (counters $(echo $before) -> $(echo $after))" \
		test "$before" = "$after"
fi
line=$(dmesg | grep -m1 'changed security contexts after opening file descriptor' || true)
check passed-fd.sg-write.logged "the kernel logs sg's refusal: ${line#*] }" test -n "$line"

# a user-namespace root handed root's descriptor gains nothing either
user_probe() {
	PROBE_OUT=$(as_user unshare -Ur "$PROBE" -F 7 "$@" 7<>"$HD_SG" 2>&1)
	parse_verdict "$PROBE_OUT"
}
hole userns.passed-fd.write-buffer.HD.sg-rw "root's read-write $HD_SG passed to a user-namespace root, SG_IO: WRITE BUFFER (0x3b)" \
	-e sgio "$HD_SG" 3b 05 00 00 00 00 00 00 00 00
finish_suite
