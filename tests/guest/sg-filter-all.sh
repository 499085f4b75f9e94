#!/bin/bash
# sg's opt-in hardening: the module parameter sg.filter_all and the
# filter_all attribute of each sg class device. Off, sg filters what stock
# filters (SG_IO on an open that is not read-write, scanners excepted); on,
# every command sg sends, on any open, scanners included, for all devices
# (the parameter) or one (the attribute). Bad values and writers without
# CAP_SYS_RAWIO change nothing. On stock neither exists, and a read-write
# sg open reaches the device with anything.
. "$(dirname "$0")/lib.sh"
WB="3b 05 00 00 00 00 00 00 00 00"	# WRITE BUFFER, download microcode
SETWIN="24 00 00 00 00 00 00 00 00 00"	# SET WINDOW (scanner)
attr() { echo "/sys/class/scsi_generic/$(basename "$1")/filter_all"; }

if [ "$SGF_KERNEL" = stock ]; then
	check "stock $SGF_KVER has no sg.filter_all" test ! -e "$SG_FILTER_ALL"
	check "stock $SGF_KVER has no filter_all for $HD_SG" test ! -e "$(attr "$HD_SG")"
	probe_all <<EOF2
reached|stock $SGF_KVER: HD $HD_SG read-write: WRITE BUFFER|-m rw $HD_SG $WB
reached|stock $SGF_KVER: DBGSCAN $DBGSCAN_SG read-only: SET WINDOW|-m ro $DBGSCAN_SG $SETWIN
EOF2
	finish_suite
fi

if [ "$SG_FILTER_ALL_BOOT" = Y ]; then
	ok "this boot has sg.filter_all on its command line: $SG_FILTER_ALL says Y"
	sg_filter_all N
else
	check "sg.filter_all is off by default ($SG_FILTER_ALL: $SG_FILTER_ALL_BOOT)" test "$SG_FILTER_ALL_BOOT" = N
fi
for dev in "$HD_SG" "$CD_SG" "$DBGSCAN_SG"; do
	check "$(attr "$dev") is 0 by default" test "$(cat "$(attr "$dev")")" = 0
done

probe_all <<EOF2
reached|off: HD $HD_SG read-write, SG_IO: WRITE BUFFER|-m rw $HD_SG $WB
reached|off: HD $HD_SG read-write, write(): WRITE BUFFER|-e sgrw -m rw $HD_SG $WB
denied|off: HD $HD_SG read-only, SG_IO: WRITE BUFFER (filtered as on stock)|-m ro $HD_SG $WB
reached|off: DBGSCAN $DBGSCAN_SG read-only: SET WINDOW (scanners unfiltered as on stock)|-m ro $DBGSCAN_SG $SETWIN
EOF2

# ---- the module parameter: every sg device
put Y "$SG_FILTER_ALL" "${NORAWIO[@]}"
check "root without CAP_SYS_RAWIO cannot set sg.filter_all (rc $rc: ${out##*: }, still $(cat "$SG_FILTER_ALL"))" \
	test "$rc" != 0 -a "$(cat "$SG_FILTER_ALL")" = N
put maybe "$SG_FILTER_ALL"
check "writing 'maybe' to sg.filter_all fails and leaves N (rc $rc: ${out##*: }, now $(cat "$SG_FILTER_ALL"))" \
	test "$rc" != 0 -a "$(cat "$SG_FILTER_ALL")" = N
sg_filter_all Y
probe_all <<EOF2
denied|sg.filter_all=Y: HD $HD_SG read-write, SG_IO: WRITE BUFFER|-m rw $HD_SG $WB
denied|sg.filter_all=Y: HD $HD_SG read-write, write(): WRITE BUFFER|-e sgrw -m rw $HD_SG $WB
denied|sg.filter_all=Y: CD $CD_SG read-write, SG_IO: WRITE BUFFER|-m rw $CD_SG $WB
reached|sg.filter_all=Y: HD $HD_SG read-write, SG_IO: INQUIRY|-m rw -i 36 $HD_SG 12 00 00 00 24 00
denied|sg.filter_all=Y: DBGSCAN $DBGSCAN_SG read-only: SET WINDOW|-m ro $DBGSCAN_SG $SETWIN
reached|sg.filter_all=Y: DBGSCAN $DBGSCAN_SG read-write: SET WINDOW|-m rw $DBGSCAN_SG $SETWIN
EOF2
sg_filter_all N
probe_all <<EOF2
reached|sg.filter_all=N again: HD $HD_SG read-write: WRITE BUFFER|-m rw $HD_SG $WB
EOF2

# ---- the attribute: one device, and no other
a=$(attr "$HD_SG")
put 1 "$a"
check "root writes 1 to $a (rc $rc)" test "$rc" = 0
probe_all <<EOF2
denied|filter_all=1 on HD: HD $HD_SG read-write: WRITE BUFFER|-m rw $HD_SG $WB
reached|filter_all=1 on HD only: CD $CD_SG read-write: WRITE BUFFER|-m rw $CD_SG $WB
EOF2
for bad in 2 maybe -1; do
	put "$bad" "$a"
	check "writing '$bad' to $a fails with EINVAL and leaves 1 (rc $rc: ${out##*: }, now $(cat "$a"))" \
		test "$rc" != 0 -a "$(cat "$a")" = 1
done
put 0 "$a" "${NORAWIO[@]}"
check "root without CAP_SYS_RAWIO cannot write $a (rc $rc: ${out##*: }, still $(cat "$a"))" \
	test "$rc" != 0 -a "$(cat "$a")" = 1
put 0 "$a"
check "root writes 0 to $a (rc $rc, now $(cat "$a"))" test "$rc" = 0 -a "$(cat "$a")" = 0
probe_all <<EOF2
reached|filter_all=0 again: HD $HD_SG read-write: WRITE BUFFER|-m rw $HD_SG $WB
EOF2
finish_suite
