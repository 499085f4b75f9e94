#!/bin/bash
# The matrix (matrix.py) as the unprivileged user, with the midlayer's
# scsi_dispatch_cmd_start tracepoint recording what reached the devices:
# first as the kernel boots (sg's read-write opens, write() and scanners
# unfiltered, as on stock), then on the patched kernel again through sg
# with the opt-in sg.filter_all; then the same opcodes as root, who may
# send anything.
. "$(dirname "$0")/lib.sh"
echo 32768 >/sys/kernel/tracing/buffer_size_kb
rm -f /tmp/matrix-results.txt /tmp/matrix-sg-rw.txt
trace_reset
# (io_uring on bsg nodes is an entry point of the kernels that have it)
has_uring_bsg && export URING_BSG=1
as_user python3 "$SGF_TOP/tests/guest/matrix.py" || SGF_FAILED=1
if [ -s /tmp/matrix-sg-rw.txt ]; then
	cp /tmp/matrix-sg-rw.txt /tmp/out/matrix-sg-rw.txt
	ok sg-rw-verdicts "the unfiltered sg probes and their verdicts are in out/matrix-sg-rw.txt ($(wc -l </tmp/matrix-sg-rw.txt) probes)"
else
	not_ok sg-rw-verdicts "matrix.py left no verdicts of the unfiltered sg probes"
fi
if [ "$SGF_KERNEL" = patched ]; then
	sg_filter_all Y
	as_user python3 "$SGF_TOP/tests/guest/matrix.py" --filter-all || SGF_FAILED=1
	sg_filter_all N
fi
echo 0 >/sys/kernel/tracing/tracing_on
if out=$(python3 "$SGF_TOP/tests/guest/dispatch-check.py" /tmp/matrix-results.txt \
	</sys/kernel/tracing/trace 2>&1); then
	ok dispatch "denied commands never reached a device: $(echo "$out" | head -1)"
else
	not_ok dispatch "the device-side count disagrees with the verdicts (out/matrix-dispatch-*.txt)" "$out"
	# the evidence, for the host: every probe's verdict and the trace
	cp /tmp/matrix-results.txt /tmp/out/matrix-dispatch-results.txt
	cp /sys/kernel/tracing/trace /tmp/out/matrix-dispatch-trace.txt
fi
echo >/sys/kernel/tracing/trace
echo 1408 >/sys/kernel/tracing/buffer_size_kb

# CAP_SYS_RAWIO: root sends every opcode through sg on each scsi_debug
# device, read-only, and nothing is refused.
for role in DBGDISK DBGCD TAPE CHANGER DBGSCAN DBGPROC; do
	sg=${role}_SG
	denied=$(for op in $(seq 0 255); do
		printf -- '-e sgio -m ro -t 5000 %s %02x 00 00 00 00 00 00 00 00 00\n' "${!sg}" "$op"
	done | "$PROBE" -b | grep -c 'verdict=denied' || true)
	check "root.$role" "root (CAP_SYS_RAWIO) sends all 256 opcodes to $role ${!sg} read-only: $denied denied" \
		test "$denied" = 0
done
finish_suite
