#!/bin/bash
# Host-side tests of sgorphan's argument handling and error paths, run under
# ASan/UBSan: bad input gets a usage error (64) and a message, never a crash.
orphan=${1:?usage: test-args.sh SGORPHAN}
fail=0
expect() { # expect ID EXIT DESCRIPTION ARGS...: the check sgorphan.ID
	local id=sgorphan.$1 want=$2 desc=$3 rc out
	shift 3
	out=$(timeout 60 "$orphan" "$@" 2>&1) && rc=0 || rc=$?
	if [ "$rc" = "$want" ] && ! grep -q 'Sanitizer\|runtime error' <<<"$out"; then
		echo "ok - $id: $desc (exit $rc)"
	else
		echo "not ok - $id: $desc: expected exit $want, got $rc"
		printf "%s\n" "$out" | head -5 | sed "s/^/# /"
		fail=1
	fi
}
expect usage.no-arguments 64 "no device is a usage error"
expect usage.two-devices 64 "two devices are a usage error" /dev/null /dev/null
expect usage.unknown-option 64 "an unknown option is a usage error" --nope /dev/null
expect usage.user-not-number 64 "a uid that is not a number is a usage error" -u nobody /dev/null
expect usage.user-negative 64 "a negative uid is a usage error" -u -1 /dev/null
expect usage.seconds-zero 64 "--seconds 0 is a usage error" -s 0 /dev/null
expect usage.seconds-over-600 64 "--seconds 601 is a usage error" -s 601 /dev/null
expect usage.seconds-empty 64 "an empty --seconds is a usage error" -s '' /dev/null
expect help 0 "--help prints the usage" --help
expect os.missing-device 3 "a missing device is an OS error, after the victims started" -s 1 /dev/does-not-exist
expect os.missing-device.defer 3 "with --defer too" -d -s 1 /dev/does-not-exist
exit $fail
