#!/bin/bash
# The cover letter's cost figures (kernel/cover-letter.txt) are copies of
# the newest perf report, reports/perf-7.2.txt: each one is read from the
# report here and must appear in the letter as the report rounds it. One
# result; TAP.
top=$(cd "$(dirname "$0")/../.." && pwd)
cover=$top/kernel/cover-letter.txt
report=$top/reports/perf-7.2.txt
echo "1..1"
if [ ! -r "$cover" ] || [ ! -r "$report" ]; then
	echo "not ok - cover-figures: cannot read $cover or $report"
	exit 1
fi
ratio() { sed -n "s/^  $1 .*filter\/7.2 \([0-9.]*\) .*/\1/p" "$report"; }
cpus() { sed -n "s/.*against one CPU: 7.2 \([0-9.]*\)x, filter \([0-9.]*\)x.*/\\$1/p" "$report"; }
norm() { sed -n "s/^  $1 *ratio \([0-9.]*\) .*/\1/p" "$report"; }
two() { printf '%.2f' "$1"; }
w=$(sed -n 's/^  write4k .*patched \([0-9.]*\) .*stock \([0-9.]*\) .*/\1 \2/p' "$report")
lo=$(printf '%s\n' "$(norm tur)" "$(norm read4k)" "$(norm tur2)" | sort -n | head -1)
hi=$(printf '%s\n' "$(norm tur)" "$(norm read4k)" "$(norm tur2)" | sort -n | tail -1)
# each phrase of the letter, with the report's figure in it
want=("costs $(ratio burn) of stock's"
	"and $(ratio disk) for a disk"
	"grew $(cpus 2) times against stock's $(cpus 1)"
	"were $(two "$lo") to $(two "$hi") of stock's"
	"took $(two "${w% *}") of root's"
	"against $(two "${w#* }") on stock")
text=$(tr '\n' ' ' <"$cover" | tr -s ' ')
missing=()
for p in "${want[@]}"; do
	[[ $text == *"$p"* ]] || missing+=("'$p'")
done
if [ ${#missing[@]} = 0 ] && [ -n "$(ratio burn)" ] && [ -n "$w" ]; then
	echo "ok - cover-figures: the cover letter's cost figures are reports/perf-7.2.txt's (${#want[@]} phrases)"
else
	echo "not ok - cover-figures: the cover letter does not say what reports/perf-7.2.txt measured: missing ${missing[*]}"
	exit 1
fi
