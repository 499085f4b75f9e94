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

# Each check's result line is "ok - sgfilter.cli.ID: DESCRIPTION"; a check
# of a command's output is named after the command's own (show, show.X).
ok() { echo "ok - sgfilter.cli.$1: $2"; }	# ok ID DESCRIPTION
not_ok() { echo "not ok - sgfilter.cli.$1: $2"; }
# expect ID CODE DESCRIPTION -- ARGS...: exit code and output in $out
expect() {
	local id=$1 want=$2 what=$3
	shift 4
	out=$("$SGF" "$@" 2>&1)
	rc=$?
	# shellcheck disable=SC2001 # prefixes every line
	if [ "$rc" = "$want" ]; then ok "$id" "$what (exit $rc)"; else
		not_ok "$id" "$what: exit $rc, wanted $want"; echo "$out" | sed 's/^/# /'; fi
}
has() { # has ID DESCRIPTION PATTERN: $out matches
	# shellcheck disable=SC2001 # prefixes every line
	if grep -qE -- "$3" <<<"$out"; then ok "$1" "$2"; else
		not_ok "$1" "$2: no '$3' in output"; echo "$out" | sed 's/^/# /'; fi
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

expect usage.no-arguments 1 "no arguments is a usage error" -- 
expect help 0 "--help" -- --help
has help.exit-codes "--help lists the exit codes" "6 kernel refused"
expect usage.unknown-command 1 "unknown command" -- frobnicate 0:0:0:0
expect usage.unknown-option 1 "unknown option" -- --bogus show 0:0:0:0
expect usage.show-extra-argument 1 "show with extra arguments" -- show 0:0:0:0 extra
expect usage.allow-no-command 1 "allow without a command" -- allow 0:0:0:0
expect usage.w-outside-allow 1 "-w outside allow" -- deny -w 0:0:0:0 unmap
expect device.no-such-hctl 2 "no such H:C:T:L" -- show 9:9:9:9
expect device.no-such-node 2 "no such device node" -- show /dev/nonexistent-sgfilter
expect device.regular-file 2 "a regular file is not a device" -- show /etc/hostname
expect device.no-filter-kernel 5 "kernel without the feature" -- show 5:0:0:0

expect show 0 "show" -- show 0:0:0:0
has show.set-and-policy "show names the command set and policy" "^0:0:0:0: command set sbc, the default policy"
has show.unmap-write "show names UNMAP as write" "^write  0x42 +UNMAP"
has show.read-capacity-16 "show names READ CAPACITY(16) by service action" "^read   0x9e/sa=0x10 +READ CAPACITY\(16\)"
has show.no-differences "show: no differences on the default" "^0 differences"
expect show-json 0 "show --json" -- --json show 0:0:0:0
if python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["command_set"]=="sbc" and d["custom"] is False and d["unfiltered"]==0' <<<"$out"; then
	ok show-json.fields "show --json is valid JSON with the device's fields"; else
	not_ok show-json.fields "show --json: $out"; fi
expect show-cd 0 "show on the CD" -- show 0:0:1:0
has show-cd.read-sub-channel "the CD's 0x42 is READ SUB-CHANNEL" "^read   0x42 +READ SUB-CHANNEL"
has show-cd.send-key-exception "the CD's privileged SEND KEY exception" "^priv   0xa3/cdb10&0x3f=0x06"

if [ "$(id -u)" = 0 ] && mknod "$T/sda" b 8 0 2>/dev/null; then
	expect node.show 0 "a block node resolves to its SCSI device" -- show "$T/sda"
	has node.show.device "the node's device is 0:0:0:0" "^0:0:0:0: command set sbc"
	expect node.show-json 0 "show --json through the node reads cmd_filter/unfiltered" -- --json show "$T/sda"
	has node.show-json.unfiltered "unfiltered read through the node" '"unfiltered":0'
else
	for id in node.show node.show.device node.show-json node.show-json.unfiltered; do
		ok "$id" "SKIP block node resolution (needs root for mknod)"
	done
fi

expect stats 0 "stats" -- stats 0:0:0:0
has stats.counters "stats shows the counters" "17 allowed, 3 denied"
expect stats-json 0 "stats --json" -- --json stats 0:0:0:0
has stats-json.counters "stats --json" '"allowed":17,"denied":3'
# the series counts refusals only; allowed is the workbench kernels' own
cnt=$SGFILTER_SYSFS/bus/scsi/devices/0:0:0:0/cmd_filter
mv "$cnt/allowed" "$cnt/allowed.away"
expect stats-no-allowed 0 "stats without cmd_filter/allowed" -- stats 0:0:0:0
has stats-no-allowed.denied-alone "stats shows the refusals alone" "^0:0:0:0: 3 denied$"
expect stats-json-no-allowed 0 "stats --json without cmd_filter/allowed" -- --json stats 0:0:0:0
has stats-json-no-allowed.denied-alone "stats --json without allowed" '^\{"device":"0:0:0:0","denied":3\}$'
mv "$cnt/allowed.away" "$cnt/allowed"

expect check.unmap 0 "check UNMAP" -- check 0:0:0:0 42 00 00 00 00 00 00 00 08 00
has check.unmap.read-only-denied "check: read-only open denied" "read-only open: +denied"
has check.unmap.writable-allowed "check: writable open allowed" "writable open: +allowed"
expect check.json-run-together 0 "check a run-together CDB" -- --json check 0:0:1:0 a30000000000000000000600
has check.json-run-together.send-key-region-priv "check --json: SEND KEY region is priv" '"class":"priv"'
has check.json-run-together.rule-named "check --json names the rule" '"command":"0xa3/cdb10&0x3f=0x06"'
expect check.sai16 0 "check SERVICE ACTION IN(16) 0x10" -- check 0:0:0:0 9e 10 00 00 00 00 00 00 00 00 00 00 00 20 00 00
has check.sai16.read-capacity-16 "check names READ CAPACITY(16)" "0x9e/sa=0x10 READ CAPACITY\(16\)"
# sg's rule for its read-write opens: not filtered unless filter_all says so
mkdir -p "$SGFILTER_SYSFS/module/sg/parameters" "$SGFILTER_SYSFS/class/scsi_generic/sg0"
echo N >"$SGFILTER_SYSFS/module/sg/parameters/filter_all"
echo 0 >"$SGFILTER_SYSFS/class/scsi_generic/sg0/filter_all"
ln -s ../../../../class/scsi_generic/sg0 "$SGFILTER_SYSFS/bus/scsi/devices/0:0:0:0/generic"
expect check.sg-off 0 "check with sg's switches off" -- check 0:0:0:0 3b 05 00 00 00 00 00 00 00 00
has check.sg-off.rw-sg-unfiltered "check: a read-write sg open is not filtered by default" "read-write open of its sg node: not filtered"
expect check.json-sg-off 0 "check --json with sg's switches off" -- --json check 0:0:0:0 3b 05 00 00 00 00 00 00 00 00
has check.json-sg-off.rw-sg-unfiltered "check --json: sg_read_write_open unfiltered" '"sg_read_write_open":"unfiltered"'
echo 1 >"$SGFILTER_SYSFS/class/scsi_generic/sg0/filter_all"
expect check.sg-device-filter-all 0 "check with the device's filter_all set" -- check 0:0:0:0 3b 05 00 00 00 00 00 00 00 00
has check.sg-device-filter-all.rw-sg-filtered "check: the device's filter_all filters its read-write sg open" "read-write open of its sg node: filtered"
echo 0 >"$SGFILTER_SYSFS/class/scsi_generic/sg0/filter_all"
echo Y >"$SGFILTER_SYSFS/module/sg/parameters/filter_all"
expect check.json-sg-filter-all 0 "check --json with sg.filter_all set" -- --json check 0:0:0:0 3b 05 00 00 00 00 00 00 00 00
has check.json-sg-filter-all.rw-sg-filtered "check --json: sg.filter_all filters every read-write sg open" '"sg_read_write_open":"filtered"'
expect check.json-no-sg 0 "check on a device without an sg node" -- --json check 0:0:1:0 12 00 00 00 24 00
has check.json-no-sg.unknown "check --json: no sg node, no claim" '"sg_read_write_open":"unknown"'
expect check.malformed-cdb 4 "check with a malformed CDB" -- check 0:0:0:0 4z
expect check.odd-hex 4 "check with an odd run of hex" -- check 0:0:0:0 420

# allow and deny write one edit of "+" tokens to one class file, which the
# kernel applies all or nothing (the guest's device-policy suite shows the
# result); here, the first line of the fake file shows what was written
# (sgfilter writes as to sysfs, without truncating).
restore() { local c; for c in read write priv; do default_of "$2" $c >"$SGFILTER_SYSFS/bus/scsi/devices/$1/cmd_filter/$c"; done; }
M=$SGFILTER_SYSFS/bus/scsi/devices/0:0:1:0/cmd_filter
expect allow.vendor 0 "allow a vendor command" -- allow 0:0:0:0 0xc1
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(head -n1 "$D/read")" = "+0xc1" ] && ok allow.vendor.one-edit "allow wrote one edit, +0xc1, to read" ||
	not_ok allow.vendor.one-edit "allow wrote: $(cat "$D/read")"
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/write")" = "$(default_of sbc write)" ] && [ "$(cat "$D/priv")" = "$(default_of sbc priv)" ] &&
	ok allow.vendor.other-classes "allow wrote no other class file" ||
	not_ok allow.vendor.other-classes "allow touched write or priv"
restore 0:0:0:0 sbc
expect allow.w-by-name 0 "allow -w by name, a command twice" -- allow -w 0:0:0:0 "write buffer" 0x3b
has allow.w-by-name.named "allow -w names the command" "0x3b WRITE BUFFER"
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(head -n1 "$D/write")" = "+0x3b" ] && ok allow.w-by-name.one-edit "allow -w wrote +0x3b to write, once" ||
	not_ok allow.w-by-name.one-edit "write list: $(cat "$D/write")"
restore 0:0:0:0 sbc
expect allow.unknown-name 4 "allow an unknown name" -- allow 0:0:0:0 "move medium"
has allow.unknown-name.set-named "the error names the command set" "unknown command 'move medium' for command set sbc"
expect allow.malformed 4 "allow a malformed token" -- allow 0:0:0:0 0x9e/sa=0x99
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/read")" = "$(default_of sbc read)" ] && ok allow.refused-nothing-written "a refused allow wrote nothing" ||
	not_ok allow.refused-nothing-written "a refused allow wrote: $(cat "$D/read")"
expect deny.unmap 0 "deny UNMAP by name" -- deny 0:0:0:0 unmap
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(head -n1 "$D/priv")" = "+0x42" ] && ok deny.unmap.one-edit "deny wrote +0x42 to priv" ||
	not_ok deny.unmap.one-edit "deny wrote: $(cat "$D/priv")"
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/write")" = "$(default_of sbc write)" ] && ok deny.unmap.other-classes "deny wrote no other class file" ||
	not_ok deny.unmap.other-classes "deny touched write"
restore 0:0:0:0 sbc
# an exception that a CDB could match beside a read row, neither more
# specific: the kernel would refuse it, and sgfilter says why first
expect deny.ambiguous 6 "deny a range of ATA logs on byte 8 alone" -- deny 0:0:0:0 "0x85/cdb8&0xe0=0xa0"
has deny.ambiguous.says-why "the error names both commands and the reason" \
	'0x85/cdb8&0xe0=0xa0 \(priv\) and 0x85/cdb1&0x1[ef]=0x0[89]/.* \(read\) can match one CDB'
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/priv")" = "$(default_of sbc priv)" ] && ok deny.ambiguous.nothing-written "a refused deny wrote nothing" ||
	not_ok deny.ambiguous.nothing-written "a refused deny wrote: $(cat "$D/priv")"
expect deny.specific 0 "deny a log with every field of the read it narrows" -- \
	deny 0:0:0:0 "0x85/cdb1&0x1e=0x08/cdb2&0x0f=0x0e/cdb4&0xff=0xd5/cdb8&0xff=0x06/cdb14&0xff=0xb0"
restore 0:0:0:0 sbc
expect deny.service-action 0 "deny a service action of an allowed opcode" -- deny 0:0:1:0 0xa3/sa=0x02
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(head -n1 "$M/priv")" = "+0xa3/sa=0x02" ] && ok deny.service-action.one-edit "deny wrote the exception to priv as one edit" ||
	not_ok deny.service-action.one-edit "priv list: $(cat "$M/priv")"
restore 0:0:1:0 mmc
expect unfiltered.no-value 1 "unfiltered without a value" -- unfiltered 0:0:0:0
expect unfiltered.not-0-or-1 1 "unfiltered takes only 0 or 1" -- unfiltered 0:0:0:0 yes
expect unfiltered.extra-argument 1 "unfiltered with extra arguments" -- unfiltered 0:0:0:0 1 1
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/unfiltered")" = 0 ] && ok unfiltered.refused-nothing-written "refused unfiltered calls wrote nothing" ||
	not_ok unfiltered.refused-nothing-written "a refused unfiltered call wrote '$(cat "$D/unfiltered")'"
expect unfiltered.no-filter-kernel 5 "unfiltered on a kernel without the feature" -- unfiltered 5:0:0:0 1
expect unfiltered.set-1 0 "unfiltered 1" -- unfiltered 0:0:0:0 1
has unfiltered.set-1.not-filtered "unfiltered 1 says the device is not filtered" "^0:0:0:0: NOT FILTERED"
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/unfiltered")" = 1 ] && ok unfiltered.set-1.written "unfiltered 1 wrote 1" ||
	not_ok unfiltered.set-1.written "unfiltered wrote '$(cat "$D/unfiltered")'"
expect unfiltered.show 0 "show an unfiltered device" -- show 0:0:0:0
has unfiltered.show.marked "show marks it NOT FILTERED for writable opens" "^0:0:0:0: command set sbc, the default policy; unfiltered=1: NOT FILTERED for writable opens"
expect unfiltered.check 0 "check on an unfiltered device" -- check 0:0:0:0 3b 05 00 00 00 00 00 00 00 00
has unfiltered.check.write-buffer "check: WRITE BUFFER passes an unfiltered device" "unfiltered is 1"
has unfiltered.check.writable-allowed "check: a writable open of an unfiltered device sends WRITE BUFFER" "writable open:   allowed"
has unfiltered.check.read-only-denied "check: a read-only open of an unfiltered device is filtered as before" "read-only open:  denied"
expect unfiltered.set-0 0 "unfiltered 0" -- unfiltered 0:0:0:0 0
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/unfiltered")" = 0 ] && ok unfiltered.set-0.written "unfiltered 0 wrote 0" ||
	not_ok unfiltered.set-0.written "unfiltered wrote '$(cat "$D/unfiltered")'"
expect reset 0 "reset" -- reset 0:0:0:0
# shellcheck disable=SC2015 # ok only prints: if-then-else
[ "$(cat "$D/reset")" = 1 ] && ok reset.written "reset wrote 1" || not_ok reset.written "reset wrote '$(cat "$D/reset")'"

# errors of the kernel's files: a directory in place of a file
rm "$D/read" && mkdir "$D/read"
expect error.policy-unreadable 7 "an unreadable policy file is an OS error" -- show 0:0:0:0
rmdir "$D/read" && echo "0x28 junk" >"$D/read"
expect error.policy-unparsable 7 "an unparsable policy file is reported" -- show 0:0:0:0
has error.policy-unparsable.token-named "the unparsable token is named" "cannot parse 'junk'"
