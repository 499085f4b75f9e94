# shellcheck shell=bash
# Helpers for in-guest suites. A suite prints one line per test:
#   ok - DESCRIPTION            or    not ok - DESCRIPTION
# plus "# " diagnostics; the host numbers the lines into one TAP stream.
# Environment (from the rig): SGF_TOP, SGF_BUILD, SGF_KERNEL (stock|patched), SGF_RUN
# (the run folder on the host, read-only here), and /tmp/devices.env.

# shellcheck source=/dev/null
. /tmp/devices.env
SUITE=$(basename "$0" .sh)
PROBE=$SGF_BUILD/bin/sgprobe
USER_ID=65534
SGF_FAILED=0

# Run a command as the unprivileged user (uid/gid 65534, no groups, no caps).
# $AS_USER_WRAP, if set, is a command root runs it through first (prlimit).
as_user() {
	HOME=/tmp/home ${AS_USER_WRAP:-} setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups \
		--inh-caps=-all --bounding-set=-all -- "$@"
}

ok() { echo "ok - $SUITE: $1"; }
not_ok() {
	echo "not ok - $SUITE: $1"
	shift
	local l
	for l in "$@"; do echo "# $l"; done
	SGF_FAILED=1
}

# check DESCRIPTION CMD...: passes when CMD exits 0; its output is shown on
# failure.
check() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1) && rc=0 || rc=$?
	if [ $rc = 0 ]; then
		ok "$desc"
	else
		not_ok "$desc" "exit $rc: $*" "$(echo "$out" | tail -5)"
	fi
}

# parse_verdict LINE: set PROBE_VERDICT to the verdict (reached, denied,
# error) of an sgprobe result line, or empty; no process spawned.
parse_verdict() {
	PROBE_VERDICT=
	if [[ $1 =~ verdict=([a-z]+) ]]; then PROBE_VERDICT=${BASH_REMATCH[1]}; fi
}

# user_probe SGPROBE-ARGS...: one sgprobe run as the user; sets PROBE_OUT
# (its output) and PROBE_VERDICT.
user_probe() {
	PROBE_OUT=$(as_user "$PROBE" "$@" 2>&1)
	parse_verdict "$PROBE_OUT"
}

# probe_all: many probes in one sgprobe -b process (a process per probe
# costs most of a second on the debug guest), each verdict compared with
# the expected one. Reads lines "EXPECTED|DESCRIPTION|SGPROBE-ARGS" on stdin.
probe_all() {
	local specs results spec rest want desc i=0
	mapfile -t specs
	mapfile -t results < <(for spec in "${specs[@]}"; do
		echo "${spec#*|*|}"
	done | as_user "$PROBE" -b)
	for spec in "${specs[@]}"; do
		want=${spec%%|*} rest=${spec#*|}
		desc=${rest%%|*}
		parse_verdict "${results[i]:-}"
		if [ "$PROBE_VERDICT" = "$want" ]; then
			ok "$desc: $want"
		else
			not_ok "$desc: expected $want" "${results[i]:-no answer}"
		fi
		i=$((i + 1))
	done
}

# Last line of every suite: its exit status tells the init whether it passed.
finish_suite() { exit $SGF_FAILED; }

# hole DESCRIPTION SGPROBE-ARGS...: a security regression test. On the
# patched kernel the command must be denied. On stock 6.1 the same test
# must fail, the command reaching the device as we measured; a hole that
# stock does not show means the test could not fail, which is a failure.
hole() {
	local desc=$1
	shift
	user_probe "$@"
	if [ "$SGF_KERNEL" = stock ]; then
		if [ "$PROBE_VERDICT" = reached ]; then
			ok "$desc: reached the device on stock 6.1 (the hole; this test fails there, as it must)"
		else
			not_ok "$desc: stock 6.1 did not show the hole (got ${PROBE_VERDICT:-nothing}), so the test cannot fail" "$PROBE_OUT"
		fi
	elif [ "$PROBE_VERDICT" = denied ]; then
		ok "$desc: denied"
	else
		not_ok "$desc: expected denied, got ${PROBE_VERDICT:-nothing}" "$PROBE_OUT"
	fi
}

# Count the commands the SCSI midlayer dispatched to device H:C:T:L with
# this opcode (hex, two digits) since trace_reset: the device-side view.
trace_reset() {
	echo 0 >/sys/kernel/tracing/tracing_on
	echo >/sys/kernel/tracing/trace
	echo 1 >/sys/kernel/tracing/events/scsi/scsi_dispatch_cmd_start/enable
	echo 1 >/sys/kernel/tracing/tracing_on
}
trace_count() {
	local h c t l
	IFS=: read -r h c t l <<<"$1"
	grep -c "host_no=$h channel=$c id=$t lun=$l .*raw=$2" /sys/kernel/tracing/trace || true
}
