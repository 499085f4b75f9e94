# shellcheck shell=bash
# Common helpers for the rig's host-side scripts: paths, logging, stage timing.
set -euo pipefail

SGF_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SGF_BUILD=${SGF_BUILD:-$SGF_TOP/build}
SGF_TREE=$SGF_BUILD/linux            # patched tree: git repo, series applied
SGF_STOCK=$SGF_BUILD/linux-stock     # stock tree: worktree at tag "stock"
SGF_OUT=$SGF_BUILD/out               # kernel build outputs, one per kernel
SGF_RUNS=$SGF_BUILD/runs             # one folder per guest boot
SGF_PATCHES=$SGF_TOP/kernel/patches
SGF_RIG_PATCHES=$SGF_TOP/kernel/rig-patches   # applied after the series, never sent upstream
SGF_SOURCE_TARBALL=${SGF_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
export SGF_TOP SGF_BUILD

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
kernel_image() { echo "$SGF_OUT/$1-$2/arch/x86/boot/bzImage"; }

# Identity of the series as checked in: the series file and every patch it
# names. rig/kernel-tree re-applies the series when this changes.
series_id() {
	local d p
	for d in "$SGF_PATCHES" "$SGF_RIG_PATCHES"; do
		[ -f "$d/series" ] || continue
		(cd "$d" && cat series && while read -r p; do
			case "$p" in ''|'#'*) continue ;; esac
			cat "$p"
		done <series)
	done | sha256sum | cut -d' ' -f1
}
