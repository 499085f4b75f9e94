# shellcheck shell=bash
# Helpers for in-guest suites. A suite prints one line per test:
#   ok - SUITE.CASE: DESCRIPTION    or    not ok - SUITE.CASE: DESCRIPTION
# plus "# " diagnostics; the host numbers the lines into one TAP stream.
# CASE is the check's stable identifier (docs/testing.md, "Result lines and
# their identifiers"): letters, digits and _ . + / -, the same in every
# run and on both kernels; the values a run measures go in DESCRIPTION.
# Environment (from the rig): SGF_TOP, SGF_BUILD, SGF_KERNEL (stock|patched), SGF_RUN
# (the run folder on the host, read-only here), and /tmp/devices.env.

# shellcheck source=/dev/null
. /tmp/devices.env
SUITE=$(basename "$0" .sh)
PROBE=$SGF_BUILD/bin/sgprobe
# (./run debian: the console user, SGF_USER_ID, whose ACLs logind sets)
USER_ID=${SGF_USER_ID:-65534}
SGF_FAILED=0
# A group of SGF_USER_GROUPS the system does not know fails the suite
# here: as_user would fail every command, which a probe could take for
# the node's refusal.
for _g in ${SGF_USER_GROUPS:+${SGF_USER_GROUPS//,/ }}; do
	getent group "$_g" >/dev/null || {
		echo "not ok - $SUITE.groups: SGF_USER_GROUPS names '$_g', which is no group here"
		exit 1
	}
done
unset _g

# Run a command as the unprivileged user (USER_ID: 65534, or ./run debian's
# console user, with a gid of the same number; no groups, no caps).
# $AS_USER_WRAP, if set, is a command root runs it through first (prlimit).
# ./run debian runs some suites with the user in groups (SGF_USER_GROUPS,
# by commas: the members of disk and cdrom that udev's permissions let in).
as_user() {
	local groups=--clear-groups g gids='' n
	if [ -n "${SGF_USER_GROUPS:-}" ]; then
		for g in ${SGF_USER_GROUPS//,/ }; do
			n=$(getent group "$g" | cut -d: -f3)
			[ -n "$n" ] || { echo "as_user: no group '$g'" >&2; return 1; }
			gids+=${gids:+,}$n
		done
		groups=--groups=$gids
	fi
	HOME=/tmp/home ${AS_USER_WRAP:-} setpriv --reuid="$USER_ID" --regid="$USER_ID" "$groups" \
		--inh-caps=-all --bounding-set=-all -- "$@"
}

# io_uring commands on bsg nodes (IORING_OP_URING_CMD, sgprobe -e uring):
# an entry point since Linux 7.1, which the suites try wherever it exists;
# the older kernels answer EOPNOTSUPP
has_uring_bsg() { case "$SGF_KVER" in 6.*) return 1 ;; esac; }

# ok CASE DESCRIPTION; not_ok CASE DESCRIPTION [DIAGNOSTIC...]
ok() { echo "ok - $SUITE.$1: $2"; }
not_ok() {
	echo "not ok - $SUITE.$1: $2"
	shift 2
	local l
	for l in "$@"; do echo "# $l"; done
	SGF_FAILED=1
}

# check CASE DESCRIPTION CMD...: passes when CMD exits 0; its output is
# shown on failure.
check() {
	local id=$1 desc=$2 out rc
	shift 2
	out=$("$@" 2>&1) && rc=0 || rc=$?
	if [ $rc = 0 ]; then
		ok "$id" "$desc"
	else
		not_ok "$id" "$desc" "exit $rc: $*" "$(echo "$out" | tail -5)"
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
# the expected one. Reads lines "EXPECTED|CASE|DESCRIPTION|SGPROBE-ARGS" on
# stdin.
# The probes run as the user, or through $PROBE_AS ("as_member tape").
probe_all() {
	local specs results spec rest want id desc i=0
	mapfile -t specs
	mapfile -t results < <(for spec in "${specs[@]}"; do
		echo "${spec#*|*|*|}"
	done | ${PROBE_AS:-as_user} "$PROBE" -b)
	for spec in "${specs[@]}"; do
		want=${spec%%|*} rest=${spec#*|}
		id=${rest%%|*} rest=${rest#*|}
		desc=${rest%%|*}
		parse_verdict "${results[i]:-}"
		if [ "$PROBE_VERDICT" = "$want" ]; then
			ok "$id" "$desc: $want"
		else
			not_ok "$id" "$desc: expected $want" "${results[i]:-no answer}"
		fi
		i=$((i + 1))
	done
}

# sg's opt-in hardening, sg.filter_all (patched kernels only): off by
# default, so that sg filters what stock filters (SG_IO on an open that is
# not read-write, scanners excepted). A suite that holds sg's read-write
# opens, write() and scanners to the filter turns it on for itself with
# "sg_filter_all Y"; finish_suite puts back what the boot started with
# (rig/boot's -H sets it on the kernel command line). A write that fails is
# the result filter-all-set.CASE, CASE the second argument or else the value:
# a suite that sets the same value twice names the second time.
SG_FILTER_ALL=/sys/module/sg/parameters/filter_all
SG_FILTER_ALL_BOOT=$(cat "$SG_FILTER_ALL" 2>/dev/null || echo -)
sg_filter_all() {
	[ "$SGF_KERNEL" = patched ] || return 0
	echo "$1" >"$SG_FILTER_ALL" ||
		not_ok "filter-all-set.${2:-$1}" "could not set $SG_FILTER_ALL to $1"
}
# true while the patched kernel filters every sg command
sg_hardened() {
	[ "$SGF_KERNEL" = patched ] && [ "$(cat "$SG_FILTER_ALL" 2>/dev/null)" = Y ]
}

# Last line of every suite: its exit status tells the init whether it passed.
finish_suite() {
	if [ "$SGF_KERNEL" = patched ] && [ "$SG_FILTER_ALL_BOOT" != - ]; then
		echo "$SG_FILTER_ALL_BOOT" >"$SG_FILTER_ALL"
	fi
	exit $SGF_FAILED
}

# hole CASE DESCRIPTION SGPROBE-ARGS...: a security regression test. On the
# patched kernel the command must be denied. On the stock kernel the same test
# must fail, the command reaching the device as we measured; a hole that
# stock does not show means the test could not fail, which is a failure.
hole() {
	local id=$1 desc=$2 a node=
	shift 2
	# Under udev's permissions (./run debian) a node may not open to the
	# user at all (bsg is root's): that hole is not there to test.
	if [ "${SGF_UDEV:-0}" = 1 ]; then
		for a in "$@"; do case $a in /dev/*) node=$a; break ;; esac; done
		if [ -n "$node" ] && ! as_user test -r "$node"; then
			ok "$id" "SKIP $desc: $node ($(stat -c '%U:%G %a' "$node")) does not open to the user under udev's permissions"
			return
		fi
	fi
	user_probe "$@"
	if [ "$SGF_KERNEL" = stock ]; then
		if [ "$PROBE_VERDICT" = reached ]; then
			ok "$id" "$desc: reached the device on stock $SGF_KVER (the hole; this test fails there, as it must)"
		else
			not_ok "$id" "$desc: stock $SGF_KVER did not show the hole (got ${PROBE_VERDICT:-nothing}), so the test cannot fail" "$PROBE_OUT"
		fi
	elif [ "$PROBE_VERDICT" = denied ]; then
		ok "$id" "$desc: denied"
	else
		not_ok "$id" "$desc: expected denied, got ${PROBE_VERDICT:-nothing}" "$PROBE_OUT"
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

# put TEXT FILE [WRAPPER...]: write TEXT to FILE in one write() (coreutils
# printf, which names the errno; dash's echo says "I/O error" for any);
# sets rc and out (the error message).
put() {
	local text=$1 file=$2
	shift 2
	# shellcheck disable=SC2016 # sh expands $1 and $2
	out=$("$@" sh -c '/usr/bin/printf "%s" "$1" >"$2"' put "$text" "$file" 2>&1) && rc=0 || rc=$?
}
# root without CAP_SYS_RAWIO, as a WRAPPER for put
# shellcheck disable=SC2034 # used by the suites that source this file
NORAWIO=(setpriv --inh-caps=-sys_rawio --bounding-set=-sys_rawio --)

# as_member GROUP[,GROUP...] CMD...: the unprivileged user as a member of
# GROUP (tape, cdrom), with the access udev gives that group's users and
# nothing more.
as_member() {
	local gid='' g n
	for g in ${1//,/ }; do
		n=$(getent group "$g" | cut -d: -f3)
		[ -n "$n" ] || { echo "as_member: no group '$g'" >&2; return 1; }
		gid+=${gid:+,}$n
	done
	shift
	HOME=/tmp/home ${AS_USER_WRAP:-} setpriv --reuid="$USER_ID" --regid="$USER_ID" \
		--groups="$gid" --inh-caps=-all --bounding-set=-all -- "$@"
}

# Compatibility checks (suites compat-*): real programs as a member of
# $COMPAT_GROUP. Each records a line "ID<tab>EXIT-STATUS<tab>listed or -
# <tab>DESCRIPTION" in /tmp/out/$SUITE.outcomes ("listed": a difference the
# policy lists); after both kernels ran, tests/host/compat-compare holds the
# patched kernel's records against the stock kernel's: every unlisted outcome must
# be the same.
# compat_run CMD...: sets COMPAT_OUT (without NUL bytes, which a shell
# variable cannot hold and some of compat-tape's programs print) and
# COMPAT_RC
compat_run() {
	[ -n "${COMPAT_TMP:-}" ] || COMPAT_TMP=$(mktemp)
	as_member "$COMPAT_GROUP" "$@" >"$COMPAT_TMP" 2>&1 && COMPAT_RC=0 || COMPAT_RC=$?
	COMPAT_OUT=$(tr -d '\000' <"$COMPAT_TMP")
}
# compat_record ID DESCRIPTION [listed]
compat_record() {
	printf '%s\t%s\t%s\t%s\n' "$1" "$COMPAT_RC" "${3:--}" "$2" >>"/tmp/out/$SUITE.outcomes"
}

# works ID DESCRIPTION CMD...: the program succeeds (exits 0).
works() {
	local id=$1 desc=$2
	shift 2
	compat_run "$@"
	compat_record "$id" "$desc"
	if [ "$COMPAT_RC" = 0 ]; then
		ok "$id" "$desc"
	else
		not_ok "$id" "$desc" "exit $COMPAT_RC: $*" "$(echo "$COMPAT_OUT" | tail -5)"
	fi
}

# The kernel let an sg3_utils program's command reach the device, whatever
# the device answered: sg3_utils exits 50 + errno when the OS fails the
# command (51: EPERM, the filter's refusal), 1 on a usage error.
sg_reached() { [ "$1" != 1 ] && [ "$1" -lt 50 ]; }

# reaches ID DESCRIPTION CMD...: an sg3_utils program's command reaches the
# device (tgt rejects some with ILLEGAL REQUEST: that is the device's answer).
reaches() {
	local id=$1 desc=$2
	shift 2
	compat_run "$@"
	compat_record "$id" "$desc"
	if sg_reached "$COMPAT_RC"; then
		ok "$id" "$desc: reaches the device (exit $COMPAT_RC)"
	else
		not_ok "$id" "$desc: the kernel refused it (exit $COMPAT_RC)" "$*" "$(echo "$COMPAT_OUT" | tail -3)"
	fi
}

# refused ID DESCRIPTION DEV COMMAND CMD...: a command through a read-write
# sg open that sg.filter_all refuses, a difference the documentation lists
# with its reason. Stock lets the command reach the device, and so does the
# patched kernel by default (the outcome must be stock's). With filter_all
# the patched kernel refuses it (EPERM), until root runs the documented
# remedy, "sgfilter allow DEV COMMAND"; then it reaches the device, and
# "sgfilter reset DEV" restores the default.
refused() {
	local id=$1 desc=$2 dev=$3 cmd=$4 rc
	shift 4
	# a listed refusal is not the default policy's traffic (commands_check)
	echo 0 >/sys/kernel/tracing/tracing_on
	compat_run "$@"
	if ! sg_hardened; then
		# stock, or the patched kernel without sg.filter_all: stock's outcome
		compat_record "$id" "$desc"
		if sg_reached "$COMPAT_RC"; then
			ok "$id" "$desc: reaches the device ($SGF_KERNEL $SGF_KVER, read-write sg open unfiltered) (exit $COMPAT_RC)"
		else
			not_ok "$id" "$desc: $SGF_KERNEL $SGF_KVER refused it (exit $COMPAT_RC)" "$*" "$(echo "$COMPAT_OUT" | tail -3)"
		fi
		echo 1 >/sys/kernel/tracing/tracing_on
		return
	fi
	compat_record "$id" "$desc" listed
	if [ "$COMPAT_RC" != 51 ]; then
		not_ok "$id" "$desc: expected the listed refusal (exit 51, EPERM), got exit $COMPAT_RC" "$*" \
			"$(echo "$COMPAT_OUT" | tail -3)"
		echo 1 >/sys/kernel/tracing/tracing_on
		return
	fi
	"$SGF_BUILD/bin/sgfilter" allow "$dev" "$cmd" >/dev/null 2>&1 && rc=0 || rc=$?
	compat_run "$@"
	"$SGF_BUILD/bin/sgfilter" reset "$dev" >/dev/null 2>&1 || true
	if [ "$rc" = 0 ] && sg_reached "$COMPAT_RC"; then
		ok "$id" "$desc: refused as listed (EPERM); after 'sgfilter allow $dev $cmd' it reaches the device (exit $COMPAT_RC)"
	else
		not_ok "$id" "$desc: 'sgfilter allow $dev $cmd' (exit $rc) did not restore it (exit $COMPAT_RC)" \
			"$(echo "$COMPAT_OUT" | tail -3)"
	fi
	echo 1 >/sys/kernel/tracing/tracing_on
}

# commands_check ROLE SET: what the programs really sent to ROLE's device
# since trace_reset (the midlayer's scsi_dispatch_cmd_start tracepoint):
# every command must be one the SET policy gives an unprivileged writable
# open. On the stock kernel, where a read-write sg open is not filtered, this is
# what holds the policy against real software. The list is left in
# /tmp/out/commands-SUITE-ROLE.txt.
commands_check() {
	local role=$1 set=$2 hctl=${1}_HCTL out=/tmp/out/commands-$SUITE-$1.txt rc
	echo 0 >/sys/kernel/tracing/tracing_on
	python3 "$SGF_TOP/tests/guest/policy-check.py" "${!hctl}" "$set" \
		</sys/kernel/tracing/trace >"$out" 2>&1 && rc=0 || rc=$?
	if [ $rc = 0 ]; then
		ok "commands.$role" "every command the programs sent to $role is permitted by the $set policy ($(tail -1 "$out"))"
	else
		not_ok "commands.$role" "commands sent to $role outside the $set policy" "$(grep -v ' permitted$' "$out")"
	fi
}
