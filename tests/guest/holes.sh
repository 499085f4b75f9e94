#!/bin/bash
# The holes measured on stock 6.1 as uid 65534, one test each. Every test
# here fails on stock (the command reaches the device) and passes on the
# filter (denied); the rig runs this suite on both kernels. Those on the
# paths stock filters are closed by default; those on a read-write sg open
# by the opt-in sg.filter_all.
. "$(dirname "$0")/lib.sh"

# An io_uring command on a bsg node whose submitter exits before it
# completes: its sense data must not land in another process (the fix
# posted ahead of the series, kernel/fixes/). sgorphan keeps a root
# process on each CPU reading a page at the address the user's command
# gives for its sense data, and scsi_debug's delay (1,000 jiffies, 4 s at
# the rig's HZ=250) keeps the command in flight past the submitter's exit.
# The trace of io_uring_complete shows that the command completed, in a
# kworker, while the victims watched (their 10 s): so a page that did not
# change is the fix, not a command that never ran.
# orphan_sense CASE [--defer]
orphan_sense() {
	local id=$1 node=/dev/bsg/$DBGDISK_HCTL ring=${2:+ (DEFER_TASKRUN ring)}
	local delay=/sys/bus/pseudo/drivers/scsi_debug/delay old out rc=0 t0 line when
	local desc="DBGDISK $node read-only open, io_uring$ring: READ(10) that ends in CHECK CONDITION, the submitter gone before it completes"
	local tr=/sys/kernel/tracing
	if [ "${SGF_UDEV:-0}" = 1 ] && ! as_user test -r "$node"; then
		ok "$id" "SKIP $desc: $node ($(stat -c '%U:%G %a' "$node")) does not open to the user under udev's permissions"
		return
	fi
	old=$(cat $delay)
	echo 1000 >$delay
	if [ "$(cat $delay)" != 1000 ]; then
		not_ok "$id" "$desc: scsi_debug's delay is $(cat $delay), not 1000"
		echo "$old" >$delay
		return
	fi
	echo 0 >$tr/tracing_on
	echo >$tr/trace
	echo 1 >$tr/events/io_uring/io_uring_complete/enable
	echo 1 >$tr/tracing_on
	t0=$(cut -d' ' -f1 /proc/uptime)
	out=$("$SGF_BUILD/bin/sgorphan" --user "$USER_ID" --seconds 10 ${2:+"$2"} "$node" 2>&1) || rc=$?
	echo "$old" >$delay
	echo 0 >$tr/events/io_uring/io_uring_complete/enable
	line=$(grep -m1 'io_uring_complete:.*user_data 0x5e45e' $tr/trace || true)
	local -a diag
	mapfile -t diag <<<"$out"
	diag+=("trace: ${line:-no io_uring_complete of user_data 0x5e45e}")
	# "<comm>-<pid> [cpu] flags seconds: io_uring_complete: ..."
	when=$(sed -n 's/^ *\(.*\)-[0-9]* *\[[0-9]*\] [^ ]* *\([0-9.]*\): io_uring_complete:.*/\1 \2/p' <<<"$line")
	if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
		if [ -z "$when" ]; then
			not_ok "$id" "$desc: the command did not complete while sgorphan ran (no io_uring_complete traced)" "${diag[@]}"
			return
		fi
		case "${when%% *}" in
		kworker/*) ;;
		*) not_ok "$id" "$desc: it completed in ${when%% *}, not in a kworker" "${diag[@]}"
		   return ;;
		esac
		if ! awk -v t="${when#* }" -v t0="$t0" 'BEGIN { exit !(t < t0 + 9) }'; then
			not_ok "$id" "$desc: it completed $(awk -v t="${when#* }" -v t0="$t0" 'BEGIN { printf "%.1f", t - t0 }') s after sgorphan started, past the victims' watch" "${diag[@]}"
			return
		fi
	fi
	case "$SGF_KERNEL:$rc" in
	stock:1) ok "$id" "$desc: its sense data landed in another process on stock $SGF_KVER (the hole; this test fails there, as it must)" ;;
	stock:0) not_ok "$id" "$desc: stock $SGF_KVER wrote into no other process, so the test cannot fail" "${diag[@]}" ;;
	patched:0) ok "$id" "$desc: it completed in ${when%% *}; no other process written" ;;
	patched:1) not_ok "$id" "$desc: its sense data landed in another process" "${diag[@]}" ;;
	*) not_ok "$id" "$desc: sgorphan exited $rc (3: OS error, 4: the command was not in flight)" "${diag[@]}" ;;
	esac
}

# UNMAP of LBAs 1000-1007 through a read-only open of the disk: on stock
# the data is gone. Parameter list: header (data length 22, descriptor
# length 16), one descriptor (LBA 1000, 8 blocks).
UNMAP_LIST=001600100000000000000000000003e80000000800000000
pattern=/tmp/pattern.bin
head -c 4096 /dev/urandom >$pattern
dd if=$pattern of="$HD_NODE" bs=512 seek=1000 count=8 oflag=direct conv=notrunc status=none
trace_reset
hole unmap.HD.block-ro "HD $HD_NODE read-only open: UNMAP (0x42)" -m ro -d $UNMAP_LIST \
	"$HD_NODE" 42 00 00 00 00 00 00 00 18 00
dispatched=$(trace_count "$HD_HCTL" 42)
if [ "$SGF_KERNEL" = stock ]; then
	check unmap.HD.block-ro.dispatched "HD: on stock the UNMAP was dispatched to the device ($dispatched)" test "$dispatched" -gt 0
else
	check unmap.HD.block-ro.dispatched "HD: the denied UNMAP never reached the device (dispatched: $dispatched)" test "$dispatched" = 0
fi
survived=no
cmp -s $pattern <(dd if="$HD_NODE" bs=512 skip=1000 count=8 iflag=direct status=none) && survived=yes
if [ "$SGF_KERNEL" = stock ]; then
	check unmap.HD.block-ro.data "HD: on stock the UNMAP erased the data (data survived: $survived)" test $survived = no
else
	check unmap.HD.block-ro.data "HD: the data survives the denied UNMAP" test $survived = yes
fi

hole maintenance-out.HD.block-ro "HD $HD_NODE read-only open: MAINTENANCE OUT (0xa4)" -m ro \
	"$HD_NODE" a4 00 00 00 00 00 00 00 00 00 00 00
hole sanitize.HD.block-ro "HD $HD_NODE read-only open: SANITIZE (0x48)" -m ro \
	"$HD_NODE" 48 00 00 00 00 00 00 00 00 00
hole ata-pass-through-12.HD.block-rw "HD $HD_NODE writable open: ATA PASS-THROUGH(12) (0xa1)" -m rw \
	"$HD_NODE" a1 00 00 00 00 00 00 00 00 00 00 00
hole remove-element-and-truncate.HD.block-ro "HD $HD_NODE read-only open: REMOVE ELEMENT AND TRUNCATE (0x9e/0x18)" -m ro \
	"$HD_NODE" 9e 18 00 00 00 00 00 00 00 00 00 00 00 00 00 00
hole opcode-0d.HD.block-rw "HD $HD_NODE writable open: opcode 0x0d (6.1's WRITE_SAME_32 slip)" -m rw \
	"$HD_NODE" 0d 00 00 00 00 00
hole sanitize.HD.sg-ro "HD $HD_SG read-only open: SANITIZE (0x48) through sg" -m ro \
	"$HD_SG" 48 00 00 00 00 00 00 00 00 00
# A read-write sg open and sg's write() are not filtered on stock, nor by
# default on the patched kernel (sg's contract with userspace); the opt-in
# sg.filter_all closes them.
sg_filter_all Y
for role in HD CD; do
	sg=${role}_SG
	for e in sgio sgrw; do
		hole "write-buffer.$role.sg-rw.$e" "$role ${!sg} read-write open, $e: WRITE BUFFER (0x3b) (sg.filter_all)" -e $e -m rw \
			"${!sg}" 3b 05 00 00 00 00 00 00 00 00
	done
done
hole sanitize.HD.sg-rw "HD $HD_SG read-write open: SANITIZE (0x48) (sg.filter_all)" -m rw \
	"$HD_SG" 48 00 00 00 00 00 00 00 00 00
sg_filter_all N
hole unmap.HD.bsg-ro "HD $HD_BSG read-only open: UNMAP (0x42) through bsg" -e bsg -m ro \
	-d $UNMAP_LIST "$HD_BSG" 42 00 00 00 00 00 00 00 18 00
if has_uring_bsg; then
	hole unmap.HD.uring-ro "HD $HD_BSG read-only open: UNMAP (0x42) through io_uring" -e uring -m ro \
		-d $UNMAP_LIST "$HD_BSG" 42 00 00 00 00 00 00 00 18 00
	hole sanitize.HD.uring-ro "HD $HD_BSG read-only open: SANITIZE (0x48) through io_uring" -e uring -m ro \
		"$HD_BSG" 48 00 00 00 00 00 00 00 00 00
	orphan_sense orphan-sense.DBGDISK.uring
	orphan_sense orphan-sense.DBGDISK.uring-defer --defer
fi
finish_suite
