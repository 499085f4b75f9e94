#!/bin/bash
# Host-side tests of sgprobe's argument handling and error paths, run under
# ASan/UBSan: bad input gets a usage error (64) and a message, never a crash.
probe=${1:?usage: test-args.sh SGPROBE}
n=0
expect() { # expect ID EXIT DESCRIPTION ARGS...: the check sgprobe.ID
	local id=sgprobe.$1 want=$2 desc=$3 rc
	shift 3
	"$probe" "$@" >/tmp/sgprobe-test.out 2>&1 && rc=0 || rc=$?
	n=$((n + 1))
	if [ "$rc" = "$want" ] && ! grep -q 'Sanitizer\|runtime error' /tmp/sgprobe-test.out; then
		echo "ok - $id: $desc (exit $rc)"
	else
		echo "not ok - $id: $desc: expected exit $want, got $rc"
		sed 's/^/# /' /tmp/sgprobe-test.out | head -5
	fi
}
expect usage.no-arguments 64 "no arguments is a usage error"
expect usage.no-cdb 64 "a device without a CDB is a usage error" /dev/null
expect usage.unknown-entry 64 "an unknown entry point is a usage error" -e nope /dev/null 12
expect usage.unknown-mode 64 "an unknown open mode is a usage error" -m rx /dev/null 12
expect usage.cdb-byte-over-0xff 64 "a CDB byte over 0xff is a usage error" /dev/null 100
expect usage.cdb-byte-not-hex 64 "a non-hex CDB byte is a usage error" /dev/null zz
expect usage.cdb-byte-empty 64 "an empty CDB byte is a usage error" /dev/null ""
expect usage.in-and-out 64 "-i and -o together are a usage error" -i 4 -o 4 /dev/null 12
expect usage.data-over-1MiB 64 "a data length over 1 MiB is a usage error" -i 2000000 /dev/null 12
expect usage.packet-cdb-13 64 "a 13-byte CDB for CDROM_SEND_PACKET is a usage error" -e packet /dev/null \
	0 0 0 0 0 0 0 0 0 0 0 0 0
# shellcheck disable=SC2046 # a CDB byte per argument
expect usage.cdb-over-260 64 "a CDB over 260 bytes is a usage error" /dev/null $(printf '00 %.0s' $(seq 261))
expect usage.data-odd-digits 64 "-d with an odd number of digits is a usage error" -d abc /dev/null 12
expect usage.data-not-hex 64 "-d with a non-hex digit is a usage error" -d 0g /dev/null 12
expect os.data-valid 3 "-d with valid bytes reaches the open" -d 00ff /dev/does-not-exist 2a 00 00 00 00 00 00 00 01 00
expect os.missing-device 3 "a missing device is an OS error" /dev/does-not-exist 12 00 00 00 24 00
for e in sgio sic packet sgrw bsg; do
	expect "os.not-scsi.$e" 3 "entry $e on a non-SCSI file is an OS error" -e $e -i 36 /dev/null 12 00 00 00 24 00
done
# (the ring is set up, the command submitted and its completion read:
# /dev/zero has no uring_cmd, /dev/null's is a no-op on recent kernels)
expect os.not-scsi.uring 3 "entry uring on a file without uring_cmd is an OS error" -e uring -i 36 /dev/zero 12 00 00 00 24 00
# shellcheck disable=SC2046 # a CDB byte per argument
expect os.cdb-260 3 "a 260-byte CDB on a non-SCSI file is an OS error" /dev/null $(printf '00 %.0s' $(seq 260))
expect usage.map-without-length 64 "-M without -i or -o is a usage error" -M /dev/null /dev/null 12
expect usage.map-with-data 64 "-M with -d is a usage error" -M /dev/null -d 00 /dev/null 12
expect usage.map-sic 64 "-M with -e sic is a usage error" -M /dev/null -e sic -o 4 /dev/null 12
expect usage.map-missing-file 3 "-M naming no file is an OS error" -M /nonexistent -o 4 /dev/null 12
expect usage.fd-not-numeric 64 "a non-numeric -F descriptor is a usage error" -F x /dev/null 12
expect usage.fd-over-1023 64 "-F beyond 1023 is a usage error" -F 1024 /dev/null 12
expect os.fd-not-open 3 "-F with a descriptor that is not open is an OS error" -F 77 /dev/null 12 00 00 00 24 00
expect os.fd-not-scsi 3 "-F with an inherited non-SCSI descriptor is an OS error" -F 0 /dev/null 12 00 00 00 24 00
expect help 0 "-h prints help" -h
rm -f /tmp/sgprobe-test.out
# batch ID DESCRIPTION INPUT-LINE... -- PATTERN...: sgprobe -b on the input
# lines exits 64 (a line of them is bad) and prints one line per PATTERN
# (grep -E), in order
batch() {
	local id=sgprobe.$1 desc=$2 in=() out rc i good=1
	shift 2
	while [ "$1" != -- ]; do in+=("$1"); shift; done
	shift
	out=$(printf '%s\n' "${in[@]}" | "$probe" -b 2>/dev/null) && rc=0 || rc=$?
	{ [ "$rc" = 64 ] && [ "$(echo "$out" | wc -l)" = $# ]; } || good=0
	for ((i = 1; i <= $#; i++)); do
		echo "$out" | sed -n "${i}p" | grep -qE "${!i}" || good=0
	done
	if [ "$good" = 1 ]; then
		echo "ok - $id: $desc (exit 64)"
	else
		echo "not ok - $id: $desc: exit $rc"
		# shellcheck disable=SC2001 # prefixes every line
		echo "$out" | sed 's/^/# /'
	fi
}
# one result line per probe line (none for a blank one), usage errors flagged
batch batch "batch mode answers each line, flags the bad one" \
	"-e sgio /dev/null 12 00 00 00 24 00" "" "-e nope /dev/null 12" \
	"-m rw -e bsg /dev/does-not-exist 00 00 00 00 00 00" -- \
	'^sgprobe entry=sgio ' '^sgprobe verdict=usage$' '^sgprobe entry=bsg.*mode=rw.*errno=ENOENT'
# a tagged line's result begins with its tag; a tag alone is a usage error
batch batch-tags "a tagged line's result begins with its tag, a tag alone is a usage error" \
	"@a -e sgio /dev/null 12 00 00 00 24 00" "@b" "@c -e nope /dev/null 12" -- \
	'^@a sgprobe entry=sgio ' '^@b sgprobe verdict=usage$' '^@c sgprobe verdict=usage$'
