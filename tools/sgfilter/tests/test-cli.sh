#!/bin/bash
# sgfilter's command line against a fake sysfs tree (SGFILTER_SYSFS): every
# command, --json, device names, and every error exit code. The binary is
# the ASan/UBSan build ("make check"). The kernel side is tested in the
# guest (tests/guest/policy.sh).
SGF=${1:?usage: test-cli.sh path/to/sgfilter}
SGF=$(realpath "$SGF")
HERE=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export SGFILTER_SYSFS=$T/sys

ok() { echo "ok - sgfilter cli: $*"; }
not_ok() { echo "not ok - sgfilter cli: $*"; }
# expect CODE DESCRIPTION -- ARGS...: exit code and output in $out
expect() {
	local want=$1 what=$2
	shift 3
	out=$("$SGF" "$@" 2>&1)
	rc=$?
	# shellcheck disable=SC2001 # prefixes every line
	if [ "$rc" = "$want" ]; then ok "$what (exit $rc)"; else
		not_ok "$what: exit $rc, wanted $want"; echo "$out" | sed 's/^/# /'; fi
}
has() { # has DESCRIPTION PATTERN: $out matches
	# shellcheck disable=SC2001 # prefixes every line
	if grep -qE -- "$2" <<<"$out"; then ok "$1"; else
		not_ok "$1: no '$2' in output"; echo "$out" | sed 's/^/# /'; fi
}
default_of() { # default_of SET CLASS: the generated default line
	python3 - "$HERE/default_policy.h" "$1" "$2" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
m = re.search(r'\{ "%s",\n\t  "([^"]*)",\n\t  "([^"]*)",\n\t  "([^"]*)"' % sys.argv[2], src)
print(m.group({"read": 1, "write": 2, "priv": 3}[sys.argv[3]]))
PY
}
# a fake SCSI device H:C:T:L of command set SET, on the default policy
fake_dev() {
	local d=$SGFILTER_SYSFS/bus/scsi/devices/$1/cmd_filter c
	mkdir -p "$d"
	echo "$2" >"$d/cmd_set"
	echo 0 >"$d/custom"
	for c in read write priv; do default_of "$2" $c >"$d/$c"; done
	: >"$d/reset"
	echo 0 >"$d/unfiltered"
	echo 17 >"$d/allowed"
	echo 3 >"$d/denied"
}
fake_dev 0:0:0:0 sbc
fake_dev 0:0:1:0 mmc
mkdir -p "$SGFILTER_SYSFS/bus/scsi/devices/5:0:0:0"	# a kernel without the filter
D=$SGFILTER_SYSFS/bus/scsi/devices/0:0:0:0/cmd_filter
# /dev/sda -> block 8:0 -> 0:0:0:0
mkdir -p "$SGFILTER_SYSFS/block/sda" "$SGFILTER_SYSFS/dev/block"
ln -s ../../bus/scsi/devices/0:0:0:0 "$SGFILTER_SYSFS/block/sda/device"
ln -s ../../block/sda "$SGFILTER_SYSFS/dev/block/8:0"

expect 1 "no arguments is a usage error" -- 
expect 0 "--help" -- --help
has "--help lists the exit codes" "6 kernel refused"
expect 1 "unknown command" -- frobnicate 0:0:0:0
expect 1 "unknown option" -- --bogus show 0:0:0:0
expect 1 "show with extra arguments" -- show 0:0:0:0 extra
expect 1 "allow without a command" -- allow 0:0:0:0
expect 1 "-w outside allow" -- deny -w 0:0:0:0 unmap
expect 2 "no such H:C:T:L" -- show 9:9:9:9
expect 2 "no such device node" -- show /dev/nonexistent-sgfilter
expect 2 "a regular file is not a device" -- show /etc/hostname
expect 5 "kernel without the feature" -- show 5:0:0:0

expect 0 "show" -- show 0:0:0:0
has "show names the command set and policy" "^0:0:0:0: command set sbc, the default policy"
has "show names UNMAP as write" "^write  0x42 +UNMAP"
has "show names READ CAPACITY(16) by service action" "^read   0x9e/sa=0x10 +READ CAPACITY\(16\)"
has "show: no differences on the default" "^0 differences"
expect 0 "show --json" -- --json show 0:0:0:0
if python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["command_set"]=="sbc" and d["custom"] is False and d["unfiltered"]==0' <<<"$out"; then
	ok "show --json is valid JSON with the device's fields"; else not_ok "show --json: $out"; fi
expect 0 "show on the CD" -- show 0:0:1:0
has "the CD's 0x42 is READ SUB-CHANNEL" "^read   0x42 +READ SUB-CHANNEL"
has "the CD's privileged SEND KEY exception" "^priv   0xa3/cdb10&0x3f=0x06"

if [ "$(id -u)" = 0 ] && mknod "$T/sda" b 8 0 2>/dev/null; then
	expect 0 "a block node resolves to its SCSI device" -- show "$T/sda"
	has "the node's device is 0:0:0:0" "^0:0:0:0: command set sbc"
	expect 0 "show --json through the node reads cmd_filter/unfiltered" -- --json show "$T/sda"
	has "unfiltered read through the node" '"unfiltered":0'
else
	ok "# SKIP block node resolution (needs root for mknod)"
fi

expect 0 "stats" -- stats 0:0:0:0
has "stats shows the counters" "17 allowed, 3 denied"
expect 0 "stats --json" -- --json stats 0:0:0:0
has "stats --json" '"allowed":17,"denied":3'
# the series counts refusals only; allowed is the workbench kernels' own
cnt=$SGFILTER_SYSFS/bus/scsi/devices/0:0:0:0/cmd_filter
mv "$cnt/allowed" "$cnt/allowed.away"
expect 0 "stats without cmd_filter/allowed" -- stats 0:0:0:0
has "stats shows the refusals alone" "^0:0:0:0: 3 denied$"
expect 0 "stats --json without cmd_filter/allowed" -- --json stats 0:0:0:0
has "stats --json without allowed" '^\{"device":"0:0:0:0","denied":3\}$'
mv "$cnt/allowed.away" "$cnt/allowed"

expect 0 "check UNMAP" -- check 0:0:0:0 42 00 00 00 00 00 00 00 08 00
has "check: read-only open denied" "read-only open: +denied"
has "check: writable open allowed" "writable open: +allowed"
expect 0 "check a run-together CDB" -- --json check 0:0:1:0 a30000000000000000000600
has "check --json: SEND KEY region is priv" '"class":"priv"'
has "check --json names the rule" '"command":"0xa3/cdb10&0x3f=0x06"'
expect 0 "check SERVICE ACTION IN(16) 0x10" -- check 0:0:0:0 9e 10 00 00 00 00 00 00 00 00 00 00 00 20 00 00
has "check names READ CAPACITY(16)" "0x9e/sa=0x10 READ CAPACITY\(16\)"
# sg's rule for its read-write opens: not filtered unless filter_all says so
mkdir -p "$SGFILTER_SYSFS/module/sg/parameters" "$SGFILTER_SYSFS/class/scsi_generic/sg0"
echo N >"$SGFILTER_SYSFS/module/sg/parameters/filter_all"
echo 0 >"$SGFILTER_SYSFS/class/scsi_generic/sg0/filter_all"
ln -s ../../../../class/scsi_generic/sg0 "$SGFILTER_SYSFS/bus/scsi/devices/0:0:0:0/generic"
expect 0 "check with sg's switches off" -- check 0:0:0:0 3b 05 00 00 00 00 00 00 00 00
has "check: a read-write sg open is not filtered by default" "read-write open of its sg node: not filtered"
expect 0 "check --json with sg's switches off" -- --json check 0:0:0:0 3b 05 00 00 00 00 00 00 00 00
has "check --json: sg_read_write_open unfiltered" '"sg_read_write_open":"unfiltered"'
echo 1 >"$SGFILTER_SYSFS/class/scsi_generic/sg0/filter_all"
expect 0 "check with the device's filter_all set" -- check 0:0:0:0 3b 05 00 00 00 00 00 00 00 00
has "check: the device's filter_all filters its read-write sg open" "read-write open of its sg node: filtered"
echo 0 >"$SGFILTER_SYSFS/class/scsi_generic/sg0/filter_all"
echo Y >"$SGFILTER_SYSFS/module/sg/parameters/filter_all"
expect 0 "check --json with sg.filter_all set" -- --json check 0:0:0:0 3b 05 00 00 00 00 00 00 00 00
has "check --json: sg.filter_all filters every read-write sg open" '"sg_read_write_open":"filtered"'
expect 0 "check on a device without an sg node" -- --json check 0:0:1:0 12 00 00 00 24 00
has "check --json: no sg node, no claim" '"sg_read_write_open":"unknown"'
expect 4 "check with a malformed CDB" -- check 0:0:0:0 4z
expect 4 "check with an odd run of hex" -- check 0:0:0:0 420

# allow and deny write one edit of "+" tokens to one class file, which the
# kernel applies all or nothing (the guest's device-policy suite shows the
# result); here, the first line of the fake file shows what was written
# (sgfilter writes as to sysfs, without truncating).
restore() { local c; for c in read write priv; do default_of "$2" $c >"$SGFILTER_SYSFS/bus/scsi/devices/$1/cmd_filter/$c"; done; }
M=$SGFILTER_SYSFS/bus/scsi/devices/0:0:1:0/cmd_filter
expect 0 "allow a vendor command" -- allow 0:0:0:0 0xc1
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(head -n1 "$D/read")" = "+0xc1" ] && ok "allow wrote one edit, +0xc1, to read" ||
	not_ok "allow wrote: $(cat "$D/read")"
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/write")" = "$(default_of sbc write)" ] && [ "$(cat "$D/priv")" = "$(default_of sbc priv)" ] &&
	ok "allow wrote no other class file" || not_ok "allow touched write or priv"
restore 0:0:0:0 sbc
expect 0 "allow -w by name, a command twice" -- allow -w 0:0:0:0 "write buffer" 0x3b
has "allow -w names the command" "0x3b WRITE BUFFER"
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(head -n1 "$D/write")" = "+0x3b" ] && ok "allow -w wrote +0x3b to write, once" ||
	not_ok "write list: $(cat "$D/write")"
restore 0:0:0:0 sbc
expect 4 "allow an unknown name" -- allow 0:0:0:0 "move medium"
has "the error names the command set" "unknown command 'move medium' for command set sbc"
expect 4 "allow a malformed token" -- allow 0:0:0:0 0x9e/sa=0x99
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/read")" = "$(default_of sbc read)" ] && ok "a refused allow wrote nothing" ||
	not_ok "a refused allow wrote: $(cat "$D/read")"
expect 0 "deny UNMAP by name" -- deny 0:0:0:0 unmap
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(head -n1 "$D/priv")" = "+0x42" ] && ok "deny wrote +0x42 to priv" ||
	not_ok "deny wrote: $(cat "$D/priv")"
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/write")" = "$(default_of sbc write)" ] && ok "deny wrote no other class file" ||
	not_ok "deny touched write"
restore 0:0:0:0 sbc
expect 0 "deny a service action of an allowed opcode" -- deny 0:0:1:0 0xa3/sa=0x02
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(head -n1 "$M/priv")" = "+0xa3/sa=0x02" ] && ok "deny wrote the exception to priv as one edit" ||
	not_ok "priv list: $(cat "$M/priv")"
restore 0:0:1:0 mmc
expect 1 "unfiltered without a value" -- unfiltered 0:0:0:0
expect 1 "unfiltered takes only 0 or 1" -- unfiltered 0:0:0:0 yes
expect 1 "unfiltered with extra arguments" -- unfiltered 0:0:0:0 1 1
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/unfiltered")" = 0 ] && ok "refused unfiltered calls wrote nothing" ||
	not_ok "a refused unfiltered call wrote '$(cat "$D/unfiltered")'"
expect 5 "unfiltered on a kernel without the feature" -- unfiltered 5:0:0:0 1
expect 0 "unfiltered 1" -- unfiltered 0:0:0:0 1
has "unfiltered 1 says the device is not filtered" "^0:0:0:0: NOT FILTERED"
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/unfiltered")" = 1 ] && ok "unfiltered 1 wrote 1" || not_ok "unfiltered wrote '$(cat "$D/unfiltered")'"
expect 0 "show an unfiltered device" -- show 0:0:0:0
has "show marks it NOT FILTERED for writable opens" "^0:0:0:0: command set sbc, the default policy; unfiltered=1: NOT FILTERED for writable opens"
expect 0 "check on an unfiltered device" -- check 0:0:0:0 3b 05 00 00 00 00 00 00 00 00
has "check: WRITE BUFFER passes an unfiltered device" "unfiltered is 1"
has "check: a writable open of an unfiltered device sends WRITE BUFFER" "writable open:   allowed"
has "check: a read-only open of an unfiltered device is filtered as before" "read-only open:  denied"
expect 0 "unfiltered 0" -- unfiltered 0:0:0:0 0
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/unfiltered")" = 0 ] && ok "unfiltered 0 wrote 0" || not_ok "unfiltered wrote '$(cat "$D/unfiltered")'"
expect 0 "reset" -- reset 0:0:0:0
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/reset")" = 1 ] && ok "reset wrote 1" || not_ok "reset wrote '$(cat "$D/reset")'"

# errors of the kernel's files: a directory in place of a file
rm "$D/read" && mkdir "$D/read"
expect 7 "an unreadable policy file is an OS error" -- show 0:0:0:0
rmdir "$D/read" && echo "0x28 junk" >"$D/read"
expect 7 "an unparsable policy file is reported" -- show 0:0:0:0
has "the unparsable token is named" "cannot parse 'junk'"
