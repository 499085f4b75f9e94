#!/bin/bash
# Compatibility: a SCSI scanner (scsi_debug's, peripheral type 6) as a
# member of group "scanner", on both kernels: SANE's sane-find-scanner finds
# it through /dev/sg*, and what SANE's SCSI backends send beyond the
# standard scanner commands reaches it through a read-write sg open, as on
# 6.1, which did not filter scanners: vendor-specific commands, RESERVE and
# RELEASE UNIT, the self-test. WRITE BUFFER, which no SANE backend sends, is
# a listed refusal. scsi_debug answers what it does not know with ILLEGAL
# REQUEST: what counts is that the command reached it. The host compares the
# outcomes with stock 6.1's (tests/host/compat-compare).
. "$(dirname "$0")/lib.sh"
COMPAT_GROUP=scanner
sg=$DBGSCAN_SG
# scsi_debug answers INQUIRY with the peripheral type last set (setup.sh
# leaves the disk's, 0); the kernel keeps the type it scanned. For SANE to
# see a scanner, INQUIRY says scanner while this suite runs.
ptype=/sys/bus/pseudo/drivers/scsi_debug/ptype
echo 6 >$ptype
trap 'echo 0 >$ptype' EXIT
# scsi_debug reports a unit attention with the first command after a
# power on or reset: take it here, unrecorded, so that no outcome depends
# on which suites ran before this one in the boot
sg_turs "$sg" >/dev/null 2>&1 || true
sg_turs "$sg" >/dev/null 2>&1 || true

trace_reset
# (named: by itself it looks at sg0-sg9 and sga-sgz only)
compat_run sane-find-scanner -q "$sg"
compat_record find-scanner "sane-find-scanner -q $sg"
if grep -q "found SCSI scanner .*at $sg" <<<"$COMPAT_OUT"; then
	ok find-scanner "sane-find-scanner finds the scanner at $sg"
else
	not_ok find-scanner "sane-find-scanner does not find the scanner at $sg (exit $COMPAT_RC)" "$(head -5 <<<"$COMPAT_OUT")"
fi
raw() { reaches "$1" "$2" sg_raw "${@:3}"; }
raw raw-reserve "RESERVE UNIT" "$sg" 16 00 00 00 00 00
raw raw-release "RELEASE UNIT" "$sg" 17 00 00 00 00 00
raw raw-selftest "SEND DIAGNOSTIC, self-test" "$sg" 1d 04 00 00 00 00
raw raw-vendor-c0 "vendor command 0xc0" "$sg" c0 00 00 00 00 00 00 00 00 00
raw raw-vendor-d2 "vendor command 0xd2 (coolscan's SET SCAN HEAD)" "$sg" d2 00 00 00 00 00 00 00 00 00
raw raw-vendor-ff "vendor command 0xff" "$sg" ff 00 00 00 00 00 00 00 00 00
raw raw-get-window "GET WINDOW" -r 64 "$sg" 25 00 00 00 00 00 00 00 40 00
refused raw-write-buffer "WRITE BUFFER (firmware download; no SANE backend sends it)" "$sg" \
	"write buffer" sg_raw "$sg" 3b 05 00 00 00 00 00 00 00 00
commands_check DBGSCAN scanner
finish_suite
