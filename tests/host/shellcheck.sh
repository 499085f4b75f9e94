#!/bin/bash
# Every shell script of the project is clean under shellcheck at its
# default severity (style included): the files with a bash or sh shebang
# in the folders below (kernel/'s patch folders excepted), and the
# libraries that are sourced, which have none. One line per file; the
# test fails when shellcheck is missing. Sourced files resolve from the
# script's own folder (-P SCRIPTDIR), or from the top (a "source=" directive).
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
if ! command -v shellcheck >/dev/null 2>&1; then
	echo "not ok - shellcheck.installed: shellcheck is not installed"
	exit 1
fi
libs=(rig/lib.sh rig/fixtures.sh tests/guest/lib.sh rig/guest/setup.sh)
shebang='^#![[:space:]]*/(usr/)?bin/(env[[:space:]]+)?(ba)?sh([[:space:]]|$)'
files=()
while IFS= read -r -d '' f; do
	first=
	LC_ALL=C read -r -n 128 first <"$f" 2>/dev/null
	[[ $first =~ $shebang ]] && files+=("${f#./}")
done < <(find ./run ./.ci/run ./rig ./tests/guest ./tests/host ./kernel ./policy \
	./tools/sgfilter/tests ./tests/sgprobe ./tests/orphan ./tests/fuzz \
	\( -path ./kernel/patches -o -path ./kernel/rig-patches \) -prune -o -type f -print0)
mapfile -t files < <(printf '%s\n' "${files[@]}" "${libs[@]}" | sort -u)
fail=0
for f in "${files[@]}"; do
	if [ ! -f "$f" ]; then
		echo "not ok - shellcheck.$f: $f: no such file"
		fail=1
		continue
	fi
	out=$(shellcheck --norc -S style -x -P SCRIPTDIR -f gcc "$f" 2>&1) && rc=0 || rc=$?
	if [ "$rc" = 0 ] && [ -z "$out" ]; then
		echo "ok - shellcheck.$f: $f is clean under shellcheck"
		continue
	fi
	n=$(grep -cE '^[^:]+:[0-9]+:[0-9]+: ' <<<"$out")
	if [ "$n" -gt 0 ]; then
		echo "not ok - shellcheck.$f: $f: $n findings"
	else
		echo "not ok - shellcheck.$f: $f: shellcheck exited with status $rc"
	fi
	while IFS= read -r l; do echo "# $l"; done <<<"$out"
	fail=1
done
exit $fail
