# shellcheck shell=bash
# Common helpers for the rig's host-side scripts: paths, logging, stage timing.
set -euo pipefail

SGF_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SGF_BUILD=${SGF_BUILD:-$SGF_TOP/build}
# The kernels the series exists for: Debian's linux-source-<version>.
# SGF_KVER picks one (6.1 unless set); every path below is that kernel's.
SGF_KVERS=(6.1 6.12 7.2)
SGF_KVER_SET=${SGF_KVER_SET:-${SGF_KVER:+1}}   # set: the caller chose the version
SGF_KVER=${SGF_KVER:-6.1}
case " ${SGF_KVERS[*]} " in
*" $SGF_KVER "*) ;;
*) printf 'error: SGF_KVER=%s: the series exists for %s\n' "$SGF_KVER" "${SGF_KVERS[*]}" >&2; exit 1 ;;
esac
SGF_TREE=$SGF_BUILD/linux-$SGF_KVER           # patched tree: git repo, series applied
SGF_OUT=$SGF_BUILD/out/$SGF_KVER              # its kernel build outputs, one per flavour
# The stock tree (a worktree at tag "stock") and its outputs stand in a
# folder of their own at the same relative places, so that a compiler call
# looks the same for both trees and ccache serves the stock kernel every
# object whose source the series does not change.
# shellcheck disable=SC2034 # used by the scripts that source this file
SGF_STOCK=$SGF_BUILD/stock/linux-$SGF_KVER
SGF_STOCK_OUT=$SGF_BUILD/stock/out/$SGF_KVER
# shellcheck disable=SC2034 # used by the scripts that source this file
SGF_RUNS=$SGF_BUILD/runs                      # one folder per guest boot
# fixes of stock code the series does not touch, each posted on its own
# ahead of the series (kernel/fixes/README); the series applies on top
SGF_FIXES=$SGF_TOP/kernel/fixes/$SGF_KVER
SGF_PATCHES=$SGF_TOP/kernel/patches/$SGF_KVER
SGF_RIG_PATCHES=$SGF_TOP/kernel/rig-patches/$SGF_KVER   # applied after the series, never sent upstream
SGF_SOURCE_TARBALL=${SGF_SOURCE_TARBALL:-/usr/src/linux-source-$SGF_KVER.tar.xz}
export SGF_TOP SGF_BUILD SGF_KVER SGF_KVER_SET

say() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Stage timing: every stage prints one line with its wall time, and the
# totals are kept in $SGF_BUILD/timings for the final summary.
stage() {
	SGF_STAGE_NAME=$1
	SGF_STAGE_T0=$(date +%s.%N)
	say "=== stage: $1"
}
stage_done() {
	local t
	t=$(awk -v a="$SGF_STAGE_T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	say "=== stage: $SGF_STAGE_NAME: ${t}s"
	mkdir -p "$SGF_BUILD"
	printf '%-40s %8ss\n' "$SGF_STAGE_NAME" "$t" >>"$SGF_BUILD/timings"
}

# The kernel image for a tree ("stock" or "patched") and flavour ("plain"
# or "debug").
kernel_out() { if [ "$1" = stock ]; then echo "$SGF_STOCK_OUT/$1-$2"; else echo "$SGF_OUT/$1-$2"; fi; }
kernel_image() { echo "$(kernel_out "$1" "$2")/arch/x86/boot/bzImage"; }

# Identity of the series as checked in: the series file and every patch it
# names, with the fixes before it and the workbench's patches after it.
# rig/kernel-tree re-applies them when this changes.
series_id() {
	local d p
	for d in "$SGF_FIXES" "$SGF_PATCHES" "$SGF_RIG_PATCHES"; do
		[ -f "$d/series" ] || continue
		(cd "$d" && cat series && while read -r p; do
			case "$p" in ''|'#'*) continue ;; esac
			cat "$p"
		done <series)
	done | sha256sum | cut -d' ' -f1
}

# the repository's commit, "-dirty" with uncommitted changes
repo_describe() { git -C "$SGF_TOP" describe --always --dirty 2>/dev/null || echo '?'; }

# report_header COMMAND: the header every file in reports/ starts with, for
# the kernel version SGF_KVER; ./run test warns when a report's "Series:"
# is not the series as it is now (check_reports, in ./run).
# The series is the one the kernel tree carries (rig/kernel-tree), which
# is what the kernels were built from, and the repository's commit is the
# one ./run started at (SGF_RUN_DESCRIBE): a report written at the end of
# an hour's run says what ran, and says so when the series has changed.
# "report_header COMMAND patches": the command built kernel/patches itself.
report_header() {
	local now built repo
	now=$(series_id | cut -c1-12)
	built=$now
	[ "${2:-}" = patches ] ||
		built=$(cut -c1-12 "$SGF_TREE/.git/sgf-series-id" 2>/dev/null || echo "$now")
	repo=${SGF_RUN_DESCRIBE:-$(repo_describe)}
	echo "Command: $1"
	echo "Kernel:  $SGF_KVER ($(make -s -C "$SGF_TREE" kernelversion 2>/dev/null || echo '?'))"
	if [ "$built" = "$now" ]; then
		echo "Series:  $now (kernel/patches/$SGF_KVER and kernel/rig-patches/$SGF_KVER; repository at $repo)"
	else
		echo "Series:  $built (build/linux-$SGF_KVER, which the kernels were built from; kernel/patches/$SGF_KVER and kernel/rig-patches/$SGF_KVER are now $now; repository at $repo)"
	fi
	echo "Date:    $(date -u +%F)"
	echo
}
