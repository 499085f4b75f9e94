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
	check stock.param-absent "stock $SGF_KVER has no sg.filter_all" test ! -e "$SG_FILTER_ALL"
	check stock.attr-absent.HD "stock $SGF_KVER has no filter_all for $HD_SG" test ! -e "$(attr "$HD_SG")"
	probe_all <<EOF2
reached|off.HD.rw.sgio.write-buffer|stock $SGF_KVER: HD $HD_SG read-write: WRITE BUFFER|-m rw $HD_SG $WB
reached|off.DBGSCAN.ro.set-window|stock $SGF_KVER: DBGSCAN $DBGSCAN_SG read-only: SET WINDOW|-m ro $DBGSCAN_SG $SETWIN
EOF2
	finish_suite
fi

if [ "$SG_FILTER_ALL_BOOT" = Y ]; then
	ok param.default "this boot has sg.filter_all on its command line: $SG_FILTER_ALL says Y"
	sg_filter_all N boot-y-off
else
	check param.default "sg.filter_all is off by default ($SG_FILTER_ALL: $SG_FILTER_ALL_BOOT)" test "$SG_FILTER_ALL_BOOT" = N
fi
for role in HD CD DBGSCAN; do
	sg=${role}_SG dev=${!sg}
	check "attr.default.$role" "$(attr "$dev") is 0 by default" test "$(cat "$(attr "$dev")")" = 0
done

probe_all <<EOF2
reached|off.HD.rw.sgio.write-buffer|off: HD $HD_SG read-write, SG_IO: WRITE BUFFER|-m rw $HD_SG $WB
reached|off.HD.rw.sgrw.write-buffer|off: HD $HD_SG read-write, write(): WRITE BUFFER|-e sgrw -m rw $HD_SG $WB
denied|off.HD.ro.sgio.write-buffer|off: HD $HD_SG read-only, SG_IO: WRITE BUFFER (filtered as on stock)|-m ro $HD_SG $WB
reached|off.DBGSCAN.ro.set-window|off: DBGSCAN $DBGSCAN_SG read-only: SET WINDOW (scanners unfiltered as on stock)|-m ro $DBGSCAN_SG $SETWIN
EOF2

# ---- the module parameter: every sg device
put Y "$SG_FILTER_ALL" "${NORAWIO[@]}"
check param.no-rawio "root without CAP_SYS_RAWIO cannot set sg.filter_all (rc $rc: ${out##*: }, still $(cat "$SG_FILTER_ALL"))" \
	test "$rc" != 0 -a "$(cat "$SG_FILTER_ALL")" = N
put maybe "$SG_FILTER_ALL"
check param.bad-value "writing 'maybe' to sg.filter_all fails and leaves N (rc $rc: ${out##*: }, now $(cat "$SG_FILTER_ALL"))" \
	test "$rc" != 0 -a "$(cat "$SG_FILTER_ALL")" = N
sg_filter_all Y
probe_all <<EOF2
denied|param-y.HD.rw.sgio.write-buffer|sg.filter_all=Y: HD $HD_SG read-write, SG_IO: WRITE BUFFER|-m rw $HD_SG $WB
denied|param-y.HD.rw.sgrw.write-buffer|sg.filter_all=Y: HD $HD_SG read-write, write(): WRITE BUFFER|-e sgrw -m rw $HD_SG $WB
denied|param-y.CD.rw.sgio.write-buffer|sg.filter_all=Y: CD $CD_SG read-write, SG_IO: WRITE BUFFER|-m rw $CD_SG $WB
reached|param-y.HD.rw.sgio.inquiry|sg.filter_all=Y: HD $HD_SG read-write, SG_IO: INQUIRY|-m rw -i 36 $HD_SG 12 00 00 00 24 00
denied|param-y.DBGSCAN.ro.set-window|sg.filter_all=Y: DBGSCAN $DBGSCAN_SG read-only: SET WINDOW|-m ro $DBGSCAN_SG $SETWIN
reached|param-y.DBGSCAN.rw.set-window|sg.filter_all=Y: DBGSCAN $DBGSCAN_SG read-write: SET WINDOW|-m rw $DBGSCAN_SG $SETWIN
EOF2
sg_filter_all N
probe_all <<EOF2
reached|param-n-again.HD.rw.write-buffer|sg.filter_all=N again: HD $HD_SG read-write: WRITE BUFFER|-m rw $HD_SG $WB
EOF2

# ---- the attribute: one device, and no other
a=$(attr "$HD_SG")
put 1 "$a"
check attr.set.HD "root writes 1 to $a (rc $rc)" test "$rc" = 0
probe_all <<EOF2
denied|attr-1.HD.rw.write-buffer|filter_all=1 on HD: HD $HD_SG read-write: WRITE BUFFER|-m rw $HD_SG $WB
reached|attr-1.CD.rw.write-buffer|filter_all=1 on HD only: CD $CD_SG read-write: WRITE BUFFER|-m rw $CD_SG $WB
EOF2
for bad in 2 maybe -1; do
	case $bad in -1) id=minus-1 ;; *) id=$bad ;; esac
	put "$bad" "$a"
	check "attr.bad-value.$id.HD" "writing '$bad' to $a fails with EINVAL and leaves 1 (rc $rc: ${out##*: }, now $(cat "$a"))" \
		test "$rc" != 0 -a "$(cat "$a")" = 1
done
put 0 "$a" "${NORAWIO[@]}"
check attr.no-rawio.HD "root without CAP_SYS_RAWIO cannot write $a (rc $rc: ${out##*: }, still $(cat "$a"))" \
	test "$rc" != 0 -a "$(cat "$a")" = 1
put 0 "$a"
check attr.clear.HD "root writes 0 to $a (rc $rc, now $(cat "$a"))" test "$rc" = 0 -a "$(cat "$a")" = 0
probe_all <<EOF2
reached|attr-0-again.HD.rw.write-buffer|filter_all=0 again: HD $HD_SG read-write: WRITE BUFFER|-m rw $HD_SG $WB
EOF2
finish_suite
