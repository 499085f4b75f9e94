#!/bin/bash
# End-to-end cost of the filter: SG_IO round trips per second from the
# unprivileged user to a scsi_debug disk with no delay, TEST UNIT READY and
# READ(10) of 4 KiB; and the same 4 KiB read with O_DIRECT pread(), which
# does not pass the filter, as the yardstick of the machine's speed at that
# moment. ./run perf boots the patched and the stock kernel the same way,
# in alternating rounds, and compares; each line of /tmp/out/perf-e2e.txt
# is one measurement. Then two processes on the two vCPUs at once ("tur2").
# timeout: 1500
. "$(dirname "$0")/lib.sh"

RATE=$SGF_BUILD/bin/sgio-rate
rounds=${SGF_PERF_ROUNDS:-5} seconds=${SGF_PERF_SECONDS:-1}
D=/sys/bus/pseudo/drivers/scsi_debug
echo 0 >$D/delay
echo 0 >$D/ndelay
check no-delay "scsi_debug answers without delay" test "$(cat $D/delay) $(cat $D/ndelay)" = "0 0"
: >/tmp/out/perf-e2e.txt
for r in $(seq "$rounds"); do
	for cmd in tur read4k pread4k; do
		out=$(as_user "$RATE" -t "$seconds" $cmd "$DBGDISK_NODE" 2>&1) && rc=0 || rc=$?
		echo "kernel=$SGF_KERNEL round=$r $out" >>/tmp/out/perf-e2e.txt
		check "round-$r.$cmd" "round $r: $cmd as uid $USER_ID on $DBGDISK_NODE: ${out##* }" test "$rc" = 0
	done
	# a data-out command, which the kernel copies for the user and maps for
	# root: the same WRITE(10) as each, in the same boot (the copy's cost)
	for who in user root; do
		if [ $who = user ]; then
			out=$(as_user "$RATE" -t "$seconds" write4k "$DBGDISK_NODE" 2>&1) && rc=0 || rc=$?
		else
			out=$("$RATE" -t "$seconds" write4k "$DBGDISK_NODE" 2>&1) && rc=0 || rc=$?
		fi
		echo "kernel=$SGF_KERNEL round=$r who=$who ${out/cmd=write4k/cmd=write4k-$who}" >>/tmp/out/perf-e2e.txt
		check "round-$r.write4k-$who" "round $r: write4k as $who on $DBGDISK_NODE: ${out##* }" test "$rc" = 0
	done
	# two processes, one on each vCPU, sending TEST UNIT READY to the same
	# disk at once: the sum of their rates ("tur2")
	as_user taskset -c 0 "$RATE" -t "$seconds" tur "$DBGDISK_NODE" >/tmp/tur2.0 2>&1 &
	p0=$!
	as_user taskset -c 1 "$RATE" -t "$seconds" tur "$DBGDISK_NODE" >/tmp/tur2.1 2>&1 &
	p1=$!
	wait $p0 && wait $p1 && rc=0 || rc=$?
	sum=$(sed -n 's/.* rate=\([0-9.]*\).*/\1/p' /tmp/tur2.0 /tmp/tur2.1 | awk '{ s += $1 } END { printf "%.1f", s }')
	echo "kernel=$SGF_KERNEL round=$r cmd=tur2 procs=2 rate=$sum" >>/tmp/out/perf-e2e.txt
	check "round-$r.tur2" "round $r: tur from two processes on two vCPUs at once: rate=$sum" test "$rc" = 0
done
finish_suite
