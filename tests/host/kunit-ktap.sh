#!/bin/bash
# rig/guest/kunit-ktap, which ./run debian's benchmark kernel needs (its
# KUnit suites are in scsi_mod.ko), on a real kernel log: a rig boot's
# console, its timestamps and the top-level plan taken off, which is how
# the same suites print when a module loads (lib/kunit: a module's suites
# have no plan line of their own). The document must parse with the
# tree's kunit.py, and every case of the filter's three suites pass.
#   tests/host/kunit-ktap.sh RUN-FOLDER KERNEL-TREE
# One result, RUN.kunit-ktap.
run=${1:?usage: tests/host/kunit-ktap.sh RUN-FOLDER KERNEL-TREE}
tree=${2:?usage: tests/host/kunit-ktap.sh RUN-FOLDER KERNEL-TREE}
top=$(cd "$(dirname "$0")/../.." && pwd)
id=$(basename "$run").kunit-ktap
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the log as dmesg -t prints it (no timestamps, no serial line's \r), without
# the executor's plan of built-in suites
tr -d '\r' <"$run/console.log" | sed 's/^\[[ 0-9.]*\] //' | awk '
	/^KTAP version 1$/ { held = $0; next }
	held != "" && /^1\.\.[0-9]+$/ { held = ""; next }
	held != "" { print held; held = "" }
	{ print }' >"$tmp/kmsg.txt"
if grep -q '^1\.\.' "$tmp/kmsg.txt"; then
	echo "not ok - $id: the top-level plan is still in the log made from $run/console.log"
	exit 1
fi
python3 "$top/rig/guest/kunit-ktap" "$tmp/kmsg.txt" >"$tmp/kunit.ktap"
python3 "$tree/tools/testing/kunit/kunit.py" parse --json="$tmp/kunit.json" \
	"$tmp/kunit.ktap" >"$tmp/parse.log" 2>&1 && rc=0 || rc=$?
summary=$(python3 - "$tmp/kunit.json" <<'PY'
import json
import sys

try:
    top = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("no results")
    sys.exit(1)
suites = {g["name"]: g for g in top.get("sub_groups", [])}
bad = []
n = 0
for name in ("scsi_cmd_filter", "scsi_cmd_policy", "scsi_cmd_filter_bench"):
    if name not in suites:
        bad.append(f"{name} missing")
        continue
    for c in suites[name].get("test_cases", []):
        n += 1
        if c["status"] != "PASS":
            bad.append(f"{name}.{c['name']} {c['status']}")
print(f"{n} cases of 3 suites passed" if not bad and n else "; ".join(bad) or "no cases")
sys.exit(1 if bad or not n else 0)
PY
) && ok=1 || ok=0
if [ "$rc" = 0 ] && [ "$ok" = 1 ]; then
	echo "ok - $id: rig/guest/kunit-ktap makes one document of the module-form log that kunit.py parses: $summary"
else
	echo "not ok - $id: kunit.py exit $rc: $summary"
	tail -5 "$tmp/parse.log" | sed 's/^/# /'
	exit 1
fi
