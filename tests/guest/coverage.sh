#!/bin/bash
# For ./run coverage: after the suites before it, save the gcov counts of
# the filter's objects (a kernel built with the coverage flavour) to
# /tmp/out/gcov/, where rig/render-coverage reads them.
. "$(dirname "$0")/lib.sh"

mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /tmp/out/gcov
n=0
while IFS= read -r f; do
	cp "$f" /tmp/out/gcov/ && n=$((n + 1))
done < <(find /sys/kernel/debug/gcov -name 'scsi_cmd_*.gcda' 2>/dev/null)
check gcov-saved "saved the gcov counts of $n objects of the filter" test "$n" -ge 2
finish_suite
