#!/bin/bash
# Real burning software as the unprivileged user, through a writable open of
# the burner's sr node: growisofs on BURN1, cdrskin (TAO) on BURN2, then the
# disc is read back and compared with the ISO. The host compares tgt's
# backing files with the ISO afterwards.
. "$(dirname "$0")/lib.sh"

iso=$SGF_RUN/burn.iso
size=$(stat -c %s "$iso")

check "wodim -checkdrive on $BURN1_NODE" as_user wodim -checkdrive dev="$BURN1_NODE"
check "xorriso reads the blank medium's state on $BURN1_NODE" \
	as_user xorriso -outdev "$BURN1_NODE" -toc
check "growisofs burns the ISO to $BURN1_NODE" \
	as_user growisofs -dvd-compat -Z "$BURN1_NODE=$iso"
check "cdrskin -tao burns the ISO to $BURN2_NODE" \
	as_user cdrskin -v dev="$BURN2_NODE" -tao "$iso"
# Read back with READ(10) through SG_IO: the block layer's idea of the
# capacity may still be the blank disc's until the medium is re-checked.
for n in "$BURN1_NODE" "$BURN2_NODE"; do
	check "readback of $n (READ(10) as the user) equals the ISO" cmp -n "$size" "$iso" \
		<(as_user sg_dd if="$n" blk_sgio=1 bs=2048 count=$((size / 2048)) of=- 2>/dev/null)
done
finish_suite
