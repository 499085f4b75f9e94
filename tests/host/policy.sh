#!/bin/bash
# The policy document is valid, the series carries it unchanged (the kernel
# builds its tables from drivers/scsi/scsi_cmd_filter.policy), and the
# kernel's host program that builds them parses it and refuses a broken one.
. "$(dirname "$0")/../../rig/lib.sh"
model=$SGF_TOP/policy/model
policy=$SGF_TOP/policy/default.policy
if out=$("$model" --check 2>&1); then
	echo "ok - policy.document.valid: default.policy is valid, every change from 6.1 has its reason"
else
	echo "not ok - policy.document.valid: default.policy is invalid"
	echo "$out" | sed 's/^/# /' | head -20
fi
# By default the paths 6.1 filters lose only holes: a row stricter than
# 6.1 must say "hole:", so MODE SELECT on a disk cannot quietly become
# privileged again (a guest's disk passed through with SG_IO sends it).
tmpm=$(mktemp)
sed 's/^spc  0x15          write  MODE SELECT(6)$/spc  0x15          priv   MODE SELECT(6) -- changed: device configuration/' \
	"$policy" >"$tmpm"
if cmp -s "$policy" "$tmpm"; then
	echo "not ok - policy.document.stricter-needs-hole: no MODE SELECT(6) row to make stricter (the test needs updating)"
elif out=$("$model" --check --policy "$tmpm" 2>&1); then
	echo "not ok - policy.document.stricter-needs-hole: a row stricter than 6.1 without 'hole:' was accepted"
else
	echo "ok - policy.document.stricter-needs-hole: a row stricter than 6.1 without 'hole:' is refused ($(echo "$out" | tail -1 | cut -c1-90))"
fi
# Two rows of different classes that a CDB could both match, neither
# implying the other, would be decided by the order of their bytes: the
# model refuses them, as the generator does (below).
{ cat "$policy"; echo "sbc  0x85/cdb8&0xe0=0xa0  priv  NOTHING"; } >"$tmpm"
if out=$("$model" --check --policy "$tmpm" 2>&1); then
	echo "not ok - policy.document.ambiguous: an exception on byte 8 alone beside the health reads was accepted"
else
	echo "ok - policy.document.ambiguous: an exception that a CDB could match beside a read row, neither implying the other, is refused ($(echo "$out" | tail -1 | cut -c1-90))"
fi
rm -f "$tmpm"
# one policy source for every kernel the series exists for
tmp0=$(mktemp -d)
for v in "${SGF_KVERS[@]}"; do
	intree=$SGF_BUILD/linux-$v/drivers/scsi/scsi_cmd_filter.policy
	if cmp -s "$policy" "$intree"; then
		echo "ok - policy.series.$v.document: the $v series carries default.policy as drivers/scsi/scsi_cmd_filter.policy"
	else
		echo "not ok - policy.series.$v.document: drivers/scsi/scsi_cmd_filter.policy in the $v series differs from default.policy (run SGF_KVER=$v policy/update)"
	fi
	# the fix (the patch that adds the file) carries it without the
	# health section and with 6.1's class on every row that allows more
	# than 6.1: holes closed, nothing else; the next patch that changes it
	# carries it without the health section, which the last one adds
	tree=$SGF_BUILD/linux-$v f=drivers/scsi/scsi_cmd_filter.policy
	mapfile -t touch < <(git -C "$tree" log --reverse --format=%H stock..HEAD -- "$f")
	"$model" --without-health "$tmp0/relax.policy"
	"$model" --policy "$tmp0/relax.policy" --holes-only "$tmp0/holes.policy"
	if [ ${#touch[@]} = 3 ] && cmp -s "$tmp0/holes.policy" <(git -C "$tree" show "${touch[0]}:$f") &&
	   ! "$model" --policy <(git -C "$tree" show "${touch[0]}:$f") --diff | grep -q '^    changed:'; then
		echo "ok - policy.series.$v.fix: the $v fix ($(git -C "$tree" log -1 --format=%s "${touch[0]}")) carries the document with 6.1's class wherever it would allow more, without disk health (policy/model --holes-only)"
	else
		echo "not ok - policy.series.$v.fix: the $v fix does not carry policy/model --holes-only without disk health (run SGF_KVER=$v policy/update)"
	fi
	if [ ${#touch[@]} = 3 ] && cmp -s "$tmp0/relax.policy" <(git -C "$tree" show "${touch[1]}:$f") &&
	   git -C "$tree" show "${touch[2]}" -- "$f" | grep '^+# ---- sbc, disk health:' >/dev/null; then
		echo "ok - policy.series.$v.health: the section on disk health is the $v patch's of its own ($(git -C "$tree" log -1 --format=%s "${touch[2]}")), and no earlier one's"
	else
		echo "not ok - policy.series.$v.health: the $v series does not add the disk health section in the third patch that changes $f (run SGF_KVER=$v policy/update)"
	fi
done
rm -rf "$tmp0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen=$tmp/gen_scsi_cmd_filter
if gcc -O2 -Wall -Wextra -Werror -o "$gen" "$SGF_TREE/drivers/scsi/gen_scsi_cmd_filter.c" 2>"$tmp/cc.log" &&
   "$gen" "$policy" >"$tmp/table.h" 2>"$tmp/gen.log"; then
	echo "ok - policy.gen.builds: the kernel's gen_scsi_cmd_filter builds warning-free and turns default.policy into $(grep -c '\.opcode = ' "$tmp/table.h") rules"
else
	echo "not ok - policy.gen.builds: the kernel's gen_scsi_cmd_filter failed on default.policy"
	cat "$tmp/cc.log" "$tmp/gen.log" | sed 's/^/# /' | head -10
fi
# A broken document is refused, naming its line, and writes no table.
n=0
while IFS='|' read -r id what row; do
	n=$((n + 1))
	{ cat "$policy"; printf '%s\n' "$row"; } >"$tmp/bad.policy"
	line=$(wc -l <"$tmp/bad.policy")
	if "$gen" "$tmp/bad.policy" >"$tmp/bad.h" 2>"$tmp/bad.log"; then
		echo "not ok - policy.gen.refuses.$id: gen_scsi_cmd_filter accepted $what"
	elif grep -q "bad.policy:$line:" "$tmp/bad.log"; then
		echo "ok - policy.gen.refuses.$id: gen_scsi_cmd_filter refuses $what at its line ($(head -c 80 "$tmp/bad.log"))"
	else
		echo "not ok - policy.gen.refuses.$id: gen_scsi_cmd_filter refused $what without its line: $(head -c 120 "$tmp/bad.log")"
	fi
done <<'ROWS'
unknown-class|an unknown class|sbc  0xc5  maybe  VENDOR
duplicate-row|a row given twice|sbc  0x28  read  READ(10)
duplicate-service-action|a service action given twice, once as a field|sbc  0x9e/cdb1&0x1f=0x10  read  READ CAPACITY(16)
unknown-set|a set no type uses|sbx  0x28  read  READ(10)
service-action-range|a service action over 0x1f|sbc  0x9e/sa=0x20  read  NOTHING
field-byte-range|a field byte beyond 31|mmc  0xa3/cdb32&0x3f=0x06  priv  NOTHING
value-outside-mask|a value outside its mask|mmc  0xa3/cdb10&0x0f=0x10  priv  NOTHING
empty-range|an empty range|scanner  0xff-0xc0  write  NOTHING
service-action-span|a range of service actions|sbc  0x9e/sa=0x18-0x9e/sa=0x19  read  NOTHING
no-name|a row without a name|sbc  0xc5  read
note-not-change|a note that is not a change|sbc  0xc5  read  VENDOR -- because
fields-out-of-order|fields not in the order of their bytes|sbc  0x85/cdb14&0xff=0xec/cdb1&0x1e=0x08  read  NOTHING
field-twice|one byte as two fields|sbc  0x85/cdb1&0x1e=0x08/cdb1&0x01=0x01  read  NOTHING
too-many-fields|seven fields|sbc  0x85/cdb1&0x01=0x01/cdb2&0x01=0x01/cdb3&0x01=0x01/cdb4&0x01=0x01/cdb5&0x01=0x01/cdb6&0x01=0x01/cdb7&0x01=0x01  read  NOTHING
service-action-and-field|a service action with a field|sbc  0x9e/sa=0x10/cdb14&0xff=0x00  read  NOTHING
sa-as-two-fields|the service action of 0x7f as two fields|sbc  0x7f/cdb8&0xff=0x00/cdb9&0xff=0x0d  write  NOTHING
ambiguous|an exception that a CDB could match beside a read row, neither implying the other|sbc  0x85/cdb8&0xe0=0xa0  priv  NOTHING
ROWS
# same_as_default FILE: the generator builds the tables of default.policy
# from FILE, and the model decides the same cases
same_as_default() {
	"$gen" "$1" 2>&1 | sed 1,2d | cmp -s - <(sed 1,2d "$tmp/table.h") &&
		cmp -s <("$model" --policy "$1" --cases /dev/stdout | sort) \
			<("$model" --cases /dev/stdout | sort)
}
# The order of the rows does not matter: the generator puts every set's
# rules in the order the kernel tries them (scsi_filter_token_cmp(), which
# a device's own policy is sorted by as well), and the model follows it.
# With each set's rows reversed, the tables and the decisions stay.
python3 - "$policy" >"$tmp/reversed.policy" <<'PY'
import sys
rows, order = {}, []
for line in open(sys.argv[1]):
    if not line.strip() or line.startswith("#"):
        continue
    key = "type" if line.startswith("type ") else line.split()[0]
    if key not in rows:
        rows[key] = []
        order.append(key)
    rows[key].append(line)
for key in order:
    sys.stdout.writelines(rows[key] if key == "type" else reversed(rows[key]))
PY
if same_as_default "$tmp/reversed.policy"; then
	echo "ok - policy.gen.row-order: with every set's rows in reverse order, gen_scsi_cmd_filter builds the same tables and the model decides the same"
else
	echo "not ok - policy.gen.row-order: the order of the document's rows changes the tables or the model's decisions"
fi
# What the kernel, sgfilter and the model parse alike, the document
# parses too: hex digits in either case, and the service action written as
# the field it is; each gives the tables the lowercase form gives.
while IFS='|' read -r id what from to; do
	sed "s#^$from #$to #" "$policy" >"$tmp/case.policy"
	if cmp -s "$policy" "$tmp/case.policy"; then
		echo "not ok - policy.gen.spelling.$id: no row '$from' to respell (the test needs updating)"
	elif same_as_default "$tmp/case.policy"; then
		echo "ok - policy.gen.spelling.$id: gen_scsi_cmd_filter and the model read $what ('$to') as the kernel's sysfs files do"
	else
		echo "not ok - policy.gen.spelling.$id: $what ('$to') is not read as '$from'"
	fi
done <<'ROWS'
uppercase-hex|uppercase hex digits|sbc  0x9e/sa=0x10|sbc  0x9E/sa=0x10
service-action-as-field|a service action written as its field|sbc  0x9e/sa=0x10|sbc  0x9e/cdb1\&0x1f=0x10
ROWS
# The transcription of 6.1's list names its constants: each must have the
# value the stock headers give it (this caught WRITE_LONG_2 = 0xea), on
# every kernel; and every later kernel's scsi_cmd_allowed() must list the
# same opcodes as 6.1's, so that the one transcription is the old policy of
# both (on 6.12 the function differs only in taking bool open_for_write).
for v in "${SGF_KVERS[@]}"; do
	stock=$SGF_BUILD/stock/linux-$v
	if out=$(python3 - "$stock" "$SGF_TOP/policy/linux-6.1.list" "$SGF_BUILD/stock/linux-6.1" <<'PY'
import re, sys
stock, listing, stock61 = sys.argv[1], sys.argv[2], sys.argv[3]
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
                print(f"{n} is {defs.get(n)!r} in the headers, listed as {op}")
                bad = 1
def cases(tree):
    src = open(f"{tree}/drivers/scsi/scsi_ioctl.c").read()
    body = src[src.index("bool scsi_cmd_allowed("):]
    body = body[:body.index("EXPORT_SYMBOL(scsi_cmd_allowed)")]
    return re.findall(r"^\s*case (\w+):", body, re.M)
if cases(stock) != cases(stock61):
    print("scsi_cmd_allowed()'s case list differs from 6.1's")
    bad = 1
sys.exit(bad)
PY
	); then
		same=" and its scsi_cmd_allowed() lists the same opcodes as 6.1's"
		[ "$v" = 6.1 ] && same=
		echo "ok - policy.linux-6.1-list.$v: every constant in linux-6.1.list has the value $v's headers give it$same"
	else
		echo "not ok - policy.linux-6.1-list.$v: linux-6.1.list disagrees with $v's stock kernel"
		# shellcheck disable=SC2001 # prefixes every line
		echo "$out" | sed 's/^/# /'
	fi
done
# The stable fix (patches 1 and 2: scsi_cmd_safe_on_device() in
# scsi_ioctl.c), compiled beside stock's scsi_cmd_allowed(): it only
# narrows stock, closes the holes, and the policy that replaces it refuses
# what it refuses
for v in "${SGF_KVERS[@]}"; do
	if ! grep -q 'scsi_cmd_safe_on_device(' "$SGF_TOP/kernel/patches/$v"/0002-*.patch 2>/dev/null; then
		echo "not ok - policy.stable-fix.$v: kernel/patches/$v has no stable fix with scsi_cmd_safe_on_device() as patch 2"
	elif out=$("$SGF_TOP/tests/host/stable-fix.py" "$SGF_TOP/kernel/patches/$v" "$SGF_BUILD/stock/linux-$v" 2>&1); then
		echo "ok - policy.stable-fix.$v: $v's stable fix and the policy after it agree: $out"
	else
		echo "not ok - policy.stable-fix.$v: $v's stable fix and the policy after it disagree"
		echo "$out" | sed 's/^/# /' | head -10
	fi
done
# ... and the check can fail: SANITIZE read-class on disks again, and the
# series without its patch 2 (patch 3 in its place, which changes
# scsi_ioctl.c elsewhere)
v=${SGF_KVERS[0]}
tmpm=$(mktemp)
tmpd=$(mktemp -d)
sed 's/^sbc  0x48          priv   SANITIZE -- hole: .*$/sbc  0x48          read   SANITIZE/' \
	"$policy" >"$tmpm"
if cmp -s "$policy" "$tmpm"; then
	echo "not ok - policy.stable-fix.can-fail: no SANITIZE row on disks to loosen (the test needs updating)"
elif out=$("$SGF_TOP/tests/host/stable-fix.py" "$SGF_TOP/kernel/patches/$v" "$SGF_BUILD/stock/linux-$v" "$tmpm" 2>&1); then
	echo "not ok - policy.stable-fix.can-fail: a policy that lets a read-only open SANITIZE a disk passed the stable-fix check"
elif echo "$out" | grep -q 'allows 0x48 .* on type 0x00 with a read-only open'; then
	echo "ok - policy.stable-fix.can-fail: a policy that lets a read-only open SANITIZE a disk fails the stable-fix check ($(echo "$out" | tail -1))"
else
	echo "not ok - policy.stable-fix.can-fail: the check failed without naming SANITIZE on a disk"
	echo "$out" | tail -5 | sed 's/^/# /'
fi
cp "$SGF_TOP/kernel/patches/$v"/0001-*.patch "$tmpd"/
for p in "$SGF_TOP/kernel/patches/$v"/0003-*.patch; do cp "$p" "$tmpd/0002-${p##*/0003-}"; done
# (failing for the holes it names, not for a crash of the check)
if out=$("$SGF_TOP/tests/host/stable-fix.py" "$tmpd" "$SGF_BUILD/stock/linux-$v" 2>&1); then
	echo "not ok - policy.stable-fix.without-fix: the series without its stable fix passed the stable-fix check"
elif n=$(echo "$out" | grep -c '^the fix allows ') && [ "$n" -gt 0 ]; then
	echo "ok - policy.stable-fix.without-fix: the series without its stable fix fails the stable-fix check ($n holes open)"
else
	echo "not ok - policy.stable-fix.without-fix: the check failed without naming a hole"
	echo "$out" | tail -5 | sed 's/^/# /'
fi
rm -rf "$tmpm" "$tmpd"
