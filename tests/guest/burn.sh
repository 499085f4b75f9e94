#!/bin/bash
# Real burning software as the unprivileged user, through a writable open of
# the burner's sr node: growisofs on BURN1, cdrskin (TAO) on BURN2, then the
# disc is read back and compared with the ISO. The host compares tgt's
# backing files with the ISO afterwards.
. "$(dirname "$0")/lib.sh"

iso=$SGF_RUN/burn.iso
size=$(stat -c %s "$iso")

trace_reset
check wodim.checkdrive.BURN1 "wodim -checkdrive on $BURN1_NODE" as_user wodim -checkdrive dev="$BURN1_NODE"
check xorriso.toc.BURN1 "xorriso reads the blank medium's state on $BURN1_NODE" \
	as_user xorriso -outdev "$BURN1_NODE" -toc
check growisofs.burn.BURN1 "growisofs burns the ISO to $BURN1_NODE" \
	as_user growisofs -dvd-compat -Z "$BURN1_NODE=$iso"
# wodim locks all its memory (mlockall) and then maps 12 MB of buffers,
# more than a user's default RLIMIT_MEMLOCK (8 MB) on any kernel; a site
# that lets users burn with wodim raises that limit (PAM limits.conf).
AS_USER_WRAP="prlimit --memlock=unlimited --" \
	check wodim.prcap.BURN2 "wodim -prcap on $BURN2_NODE" as_user wodim -prcap dev="$BURN2_NODE"
check cdrskin.burn.BURN2 "cdrskin -tao burns the ISO to $BURN2_NODE" \
	as_user cdrskin -v dev="$BURN2_NODE" -tao "$iso"
# What the tools really sent, from the midlayer's tracepoint.
commands_check BURN1 mmc
commands_check BURN2 mmc
# Read back with READ(10) through SG_IO: the block layer's idea of the
# capacity may still be the blank disc's until the medium is re-checked.
for role in BURN1 BURN2; do
	n=${role}_NODE
	check "readback.$role" "readback of ${!n} (READ(10) as the user) equals the ISO" cmp -n "$size" "$iso" \
		<(as_user sg_dd if="${!n}" blk_sgio=1 bs=2048 count=$((size / 2048)) of=- 2>/dev/null)
done
# Read-only users of the drives keep working.
check sg-inq.CD "sg_inq as user on $CD_NODE" as_user sg_inq "$CD_NODE"
check sg-vpd.CD "sg_vpd as user on $CD_NODE" as_user sg_vpd "$CD_NODE"
check sg-readcap.CD "sg_readcap as user on $CD_NODE" as_user sg_readcap "$CD_NODE"
check eject.open.CD "eject as user opens the tray of $CD_NODE" as_user eject "$CD_NODE"
check eject.close.CD "eject -t as user closes it again" as_user eject -t "$CD_NODE"
finish_suite
