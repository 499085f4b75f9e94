#!/bin/bash
# Host tests of sgfuzz, under ASan/UBSan: the models' unit checks
# (selftest), usage errors, and every generator and call path of the CDB
# fuzzer and the race driver against a fake sysfs whose device nodes are
# /dev/null (nothing there is SCSI: every call fails, nothing may crash).
set -u
fuzz=${1:-./sgfuzz-san}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
t() {	# t ID DESCRIPTION EXPECTED-EXIT CMD...: the check sgfuzz.ID
	local id=sgfuzz.$1 desc=$2 want=$3 rc
	shift 3
	"$@" >"$tmp/out" 2>&1 && rc=0 || rc=$?
	if [ "$rc" = "$want" ]; then
		echo "ok - $id: $desc (exit $rc)"
	else
		echo "not ok - $id: $desc: exit $rc, expected $want"
		sed 's/^/# /' "$tmp/out" | tail -5
		failed=1
	fi
}

# the models' unit checks (sysfs.c's selftest) print sgfuzz.model.CASE
"$fuzz" selftest || failed=1
t usage.no-mode "no mode is a usage error" 2 "$fuzz"
t usage.unknown-mode "an unknown mode is a usage error" 2 "$fuzz" nope
t usage.cdb-no-device "cdb without a device is a usage error" 2 "$fuzz" cdb
t usage.no-such-device "a device that does not exist is a setup error" 2 env SGFUZZ_SYSFS="$tmp/none" "$fuzz" cdb 0:0:0:0

# a fake device of each command set, its nodes /dev/null
mkdir -p "$tmp/dev/bsg"
for t_ in 0 1 5 8 6 3; do
	d=$tmp/sys/$t_:0:0:0
	mkdir -p "$d/scsi_generic/sg$t_" "$d/block/sd$t_" "$d/cmd_filter"
	echo $t_ >"$d/type"
	echo Linux >"$d/vendor"
	ln -s /dev/null "$tmp/dev/sg$t_"
	ln -s /dev/null "$tmp/dev/sd$t_"
	ln -s /dev/null "$tmp/dev/bsg/$t_:0:0:0"
	echo 0 >"$d/cmd_filter/allowed"
	echo 0 >"$d/cmd_filter/denied"
done
devs=(0:0:0:0 1:0:0:0 5:0:0:0 8:0:0:0 6:0:0:0 3:0:0:0)
export SGFUZZ_SYSFS=$tmp/sys SGFUZZ_DEV=$tmp/dev
t cdb.calls "cdb: 20000 calls of every kind on /dev/null, no crash, nothing decided" 0 \
	"$fuzz" cdb -s 7 -n 20000 -l "$tmp/log" -c "$tmp/cov" "${devs[@]}"
# (io_uring: drawn as often as the other calls where the kernel has
# io_uring, to which /dev/null may answer, as recent kernels' does)
if grep -q '^consulted=0$' "$tmp/out" && grep -q '^calls=20000$' "$tmp/out" &&
   [ "$(grep -vc '^#' "$tmp/log")" -gt 10000 ] && [ "$(wc -l <"$tmp/cov")" = 5 ] &&
   grep -q '^calls_uring=[1-9]' "$tmp/out" && grep -q '^uring_bsg=' "$tmp/out"; then
	echo "ok - sgfuzz.cdb.report: cdb reports its calls (io_uring among them: $(sed -n 's/^calls_uring=//p' "$tmp/out")), a log line per call and a 5-row coverage map"
else
	echo "not ok - sgfuzz.cdb.report: cdb's report, log or coverage map"
	sed 's/^/# /' "$tmp/out" | head -40
	failed=1
fi
# (without address randomization: a v3 header sent down the old interface
# makes its pointers part of the CDB)
replay() {
	setarch "$(uname -m)" -R "$fuzz" cdb -s 9 -n 3000 -l /dev/stdout "${devs[@]}" |
		grep -v '^#\|pid=\|seconds=\|rate=\|slowest'
}
t cdb.replay "the same seed gives the same calls" 0 cmp <(replay) <(replay)
t hammer "hammer: 1 s on /dev/null, nothing allowed or refused" 0 "$fuzz" hammer -t 1 "$tmp/dev/sg*"
# a fault: its record on standard error (the call, the address, the thread
# pointer now and at the start, the mappings), and death by the signal
# shellcheck disable=SC2317 # (called through t)
fault() {
	"$fuzz" hammer -t 10 "$tmp/dev/sg*" 2>"$tmp/fault.err" &
	local p=$! rc=0
	sleep 1
	kill -SEGV "$p"
	wait "$p" || rc=$?
	grep -q '^sgfuzz: fault: signal=0xb call=.* fs=0x[0-9a-f]* fs_at_start=0x' "$tmp/fault.err" &&
		grep -q 'thread block: 0x' "$tmp/fault.err" && grep -q 'r-xp .*sgfuzz' "$tmp/fault.err" || rc=1
	return "$rc"
}
t fault "a fault is reported with the thread pointer and the mappings, and kills as the signal would" 139 fault
exit $failed
