#!/bin/bash
# The workbench itself: fixtures present, the unprivileged user is really
# unprivileged, and it can talk to every device with read-only tools.
. "$(dirname "$0")/lib.sh"

check kernel "guest runs the $SGF_KERNEL kernel $(uname -r)" test -n "$(uname -r)"
check vcpus-online "guest has its two vCPUs online ($(cat /sys/devices/system/cpu/online)): the races run in parallel" \
	test "$(cat /sys/devices/system/cpu/online)" = 0-1
check user-uid "unprivileged user is uid $USER_ID" test "$(as_user id -u)" = "$USER_ID"
# rig/boot -H gives the patched kernel a bare "sg.filter_all": the boot must
# have taken it (a bool parameter takes the bare form as on), or the
# hardened suites would run unhardened
if grep -qw 'sg\.filter_all' /proc/cmdline; then
	check filter-all-cmdline "sg.filter_all on the command line ($(tr ' ' '\n' </proc/cmdline | grep '^sg\.filter_all')): $SG_FILTER_ALL says $SG_FILTER_ALL_BOOT" \
		test "$SG_FILTER_ALL_BOOT" = Y
fi
check user-no-caps "unprivileged user has no capabilities" \
	grep -qx 'CapEff:	0000000000000000' <(as_user cat /proc/self/status)

for role in HD CD BURN1 BURN2 TAPE CHANGER DBGDISK; do
	node=${role}_NODE sg=${role}_SG bsg=${role}_BSG hctl=${role}_HCTL
	check "devices.$role" "$role (${!hctl}) has ${!node}, ${!sg} and ${!bsg}" \
		test -e "${!node}" -a -e "${!sg}" -a -e "${!bsg}"
done
check type.HD "HD is a disk (type 0)" test "$(cat "/sys/bus/scsi/devices/$HD_HCTL/type")" = 0
check type.TAPE "TAPE is a tape (type 1)" test "$(cat "/sys/bus/scsi/devices/$TAPE_HCTL/type")" = 1
check type.CHANGER "CHANGER is a medium changer (type 8)" \
	test "$(cat "/sys/bus/scsi/devices/$CHANGER_HCTL/type")" = 8
check model.BURN1 "burner is the tgt DVD burner" \
	grep -q VIRTUAL-CDROM "/sys/bus/scsi/devices/$BURN1_HCTL/model"

for role in HD CD BURN1 TAPE CHANGER DBGDISK; do
	sg=${role}_SG
	check "sg-inq.$role" "sg_inq as user on $role ${!sg}" as_user sg_inq "${!sg}"
done
check sg-readcap.HD "sg_readcap as user on HD $HD_NODE" as_user sg_readcap "$HD_NODE"
check read-iso.CD "user reads the ISO on CD $CD_NODE" \
	cmp -n 65536 <(as_user dd if="$CD_NODE" bs=64k count=1 status=none) \
	"$SGF_RUN/cd.iso"
finish_suite
