#!/bin/bash
# The policy document is valid, and the tables in the kernel series are
# exactly what it generates: the two cannot drift apart.
. "$(dirname "$0")/../../rig/lib.sh"
gen=$SGF_TOP/policy/gen-kernel-table
if out=$("$gen" --check 2>&1); then
	echo "ok - policy(host): default.policy is valid, every change from 6.1 has its reason"
else
	echo "not ok - policy(host): default.policy is invalid"
	echo "$out" | sed 's/^/# /' | head -20
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen" --header "$tmp/table.h" --kunit "$tmp/kunit.h" --names "$tmp/names.h" \
	--tool "$tmp/tool.h"
if cmp -s "$tmp/tool.h" "$SGF_TOP/tools/sgfilter/default_policy.h"; then
	echo "ok - policy(host): tools/sgfilter/default_policy.h matches default.policy"
else
	echo "not ok - policy(host): tools/sgfilter/default_policy.h differs from what default.policy generates (run policy/regen-kernel-files)"
fi
for f in table:scsi_cmd_filter_table.h kunit:scsi_cmd_filter_kunit.h names:scsi_cmd_filter_names.h; do
	if cmp -s "$tmp/${f%%:*}.h" "$SGF_TREE/drivers/scsi/${f#*:}"; then
		echo "ok - policy(host): drivers/scsi/${f#*:} in the series matches default.policy"
	else
		echo "not ok - policy(host): drivers/scsi/${f#*:} differs from what default.policy generates (run policy/regen-kernel-files)"
	fi
done
# The transcription of 6.1's list names its constants: each must have the
# value the stock headers give it (this caught WRITE_LONG_2 = 0xea).
if out=$(python3 - "$SGF_STOCK" "$SGF_TOP/policy/linux-6.1.list" <<'PY'
import re, sys
stock, listing = sys.argv[1], sys.argv[2]
defs = {}
for f in ("include/scsi/scsi_proto.h", "include/uapi/linux/cdrom.h"):
    for m in re.finditer(r"#define\s+(\w+)\s+(0x[0-9a-fA-F]+|\d+)", open(f"{stock}/{f}").read()):
        defs.setdefault(m.group(1), int(m.group(2), 0))
bad = 0
for line in open(listing):
    line = line.split("#")[0].strip()
    if line:
        op, _, names = line.split(None, 2)
        for n in (x.strip() for x in names.split(",")):
            if defs.get(n) != int(op, 16):
                print(f"{n} is {defs.get(n)!r} in 6.1's headers, listed as {op}")
                bad = 1
sys.exit(bad)
PY
); then
	echo "ok - policy(host): every constant in linux-6.1.list has the value 6.1's headers give it"
else
	echo "not ok - policy(host): linux-6.1.list disagrees with 6.1's headers"
	echo "$out" | sed 's/^/# /'
fi
