#!/bin/bash
# Memory comes back: every SCSI device is given policies of its own, edited,
# refused malformed edits and reset, many times over; kmemleak (in the
# leaks flavour of the debug kernel) then scans for objects nothing points
# at any more, and none may have been allocated by the command filter.
# Only for ./run leaks, whose kernel is the patched one.
# timeout: 1200
. "$(dirname "$0")/lib.sh"

KML=/sys/kernel/debug/kmemleak
ROUNDS=${SGF_LEAK_ROUNDS:-20}

T0=$(date +%s)
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
check kmemleak-on "kmemleak is on in this kernel ($KML)" test -w "$KML"
[ -w "$KML" ] || finish_suite
# forget what was reported before (boot, earlier suites)
echo clear >"$KML"
echo "# kmemleak ready after $(($(date +%s) - T0)) s"

# each device, with two vendor opcodes its policy does not name
devs=() free=()
for d in /sys/bus/scsi/devices/*/cmd_filter; do
	[ -w "$d/read" ] || continue
	# (in the shell: a fork costs a good part of a second under KASAN)
	named=" $(cat "$d/read" "$d/write" "$d/priv" | tr '\n/' '  ') " ops=()
	for ((op = 0xc0; op <= 0xff && ${#ops[@]} < 2; op++)); do
		printf -v t '0x%02x' "$op"
		[[ $named == *" $t "* ]] || ops+=("$t")
	done
	[ ${#ops[@]} = 2 ] || continue
	devs+=("$d") free+=("${ops[*]}")
done
echo "# devices found after $(($(date +%s) - T0)) s"
check devices "${#devs[@]} SCSI devices have a writable policy" test ${#devs[@]} -gt 0

bad=0 t0=$(date +%s)
# shellcheck disable=SC2034 # r only counts the rounds
for r in $(seq "$ROUNDS"); do
	for i in "${!devs[@]}"; do
		d=${devs[$i]}
		read -r a b <<<"${free[$i]}"
		echo "+$a +$b" >"$d/read" || bad=$((bad + 1))
		echo "-$a" >"$d/read" || bad=$((bad + 1))
		echo "+$a" >"$d/write" || bad=$((bad + 1))
		# refused: a duplicate with a malformed token, a "-" of what is not there
		echo "+$b +nonsense" >"$d/read" 2>/dev/null && bad=$((bad + 1))
		echo "-$a" >"$d/priv" 2>/dev/null && bad=$((bad + 1))
		echo 1 >"$d/reset" || bad=$((bad + 1))
	done
done
echo "# $((ROUNDS * ${#devs[@]} * 6)) policy writes in $(($(date +%s) - t0)) s"
check policy-writes "$ROUNDS rounds of customize, edit, refused edits and reset on ${#devs[@]} devices ($bad writes did not end as they should)" \
	test $bad = 0
custom=0
for d in "${devs[@]}"; do custom=$((custom + $(cat "$d/custom"))); done
check default-policy "every device is back on its default policy" test $custom = 0

# kmemleak reports an object only once it is 5 s old and unreferenced; a
# policy freed by kfree_rcu() is freed after a grace period. Scan twice.
sleep 6
t0=$(date +%s)
echo scan >"$KML"
sleep 1
echo scan >"$KML"
echo "# two kmemleak scans in $(($(date +%s) - t0)) s"
report=/tmp/out/kmemleak.txt
cat "$KML" >"$report"
total=$(grep -c '^unreferenced object' "$report" || true)
ours=$(awk '/^unreferenced object/{n++} /scsi_cmd_(policy|filter)/{hit[n]=1}
	END {c=0; for (k in hit) c++; print c}' "$report")
check kmemleak "kmemleak: no object the command filter allocated is left unreferenced ($ours of $total suspected leaks; kmemleak.txt in the run folder)" \
	test "$ours" = 0
echo "# the suite took $(($(date +%s) - T0)) s"
finish_suite
