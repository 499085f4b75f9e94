#!/bin/bash
# rig/splat-scan, the boot verdict's splat scan: a clean console log gives
# nothing; one line of each kind of splat, planted in it during a suite,
# is found and placed in that suite; a splat in a line without a printk
# time stamp (a suite's own output) is not the kernel's; an unreadable log
# is an error. Prints TAP.
. "$(dirname "$0")/../../rig/lib.sh"
scan=$SGF_TOP/rig/splat-scan
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
clean() {
	cat <<'LOG'
[    0.000000] Linux version 7.2.13 (root@host) #1 SMP PREEMPT_DYNAMIC
[    1.234567] scsi 0:0:0:0: Direct-Access     QEMU     QEMU HARDDISK    2.5+ PQ: 0 ANSI: 5
[    2.000000] sgf-guest: suite holes begins
holes: WARNING: this is the suite's own output, not the kernel's
[    2.500000] sd 0:0:0:0: [sda] Synchronize Cache(10) failed: Result: hostbyte=DID_OK driverbyte=DRIVER_OK
[    3.000000] sgf-guest: suite holes ends
LOG
}
clean >"$tmp/clean.log"
if out=$("$scan" "$tmp/clean.log") && [ -z "$out" ]; then
	echo "ok - splat-scan.clean: a clean log (with a suite's own WARNING line) has no splat"
else
	echo "not ok - splat-scan.clean: a clean log gave: ${out:-exit status $?}"
fi
n=0
while IFS='|' read -r id line; do
	[ -n "$id" ] || continue
	n=$((n + 1))
	{ clean | sed '/suite holes ends/d'; echo "[    2.700000] $line"; echo "[    3.000000] sgf-guest: suite holes ends"; } >"$tmp/$id.log"
	out=$("$scan" "$tmp/$id.log")
	if [ "$(printf '%s' "$out" | cut -f1)" = holes ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ]; then
		echo "ok - splat-scan.$id: found during the suite holes: $line"
	else
		echo "not ok - splat-scan.$id: not found (or not placed in the suite holes): $line"
	fi
done <<'KINDS'
bug-at|kernel BUG at drivers/scsi/scsi_lib.c:1234!
invalid-opcode|invalid opcode: 0000 [#1] PREEMPT SMP NOPTI
oops|Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] SMP
bug-colon|BUG: unable to handle page fault for address: ffffffffc0a1b2c3
soft-lockup|watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [sgfuzz:123]
slub-redzone|BUG kmalloc-64 (Not tainted): Redzone overwritten
slub-poison|BUG skbuff_head_cache (Tainted: G    B             ): Poison overwritten
warning|WARNING: CPU: 1 PID: 123 at drivers/scsi/scsi_cmd_filter.c:99 scsi_cmd_allowed+0x12/0x40
kasan|KASAN: slab-out-of-bounds in scsi_cmd_allowed+0x1c/0x80
ubsan|UBSAN: array-index-out-of-bounds in drivers/scsi/scsi_cmd_filter.c:120:9
panic|Kernel panic - not syncing: Fatal exception
gpf|general protection fault: 0000 [#1] SMP NOPTI
lockdep|WARNING: possible circular locking dependency detected
hung-task|INFO: task kworker/0:1:42 blocked for more than 120 seconds.
rcu-stall|rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
list-del|list_del corruption. prev->next should be ffff888004a1b2c0, but was ffff888004a1b2c8
list-add|list_add corruption. next->prev should be prev (ffff888004a1b2c0), but was 0000000000000000
stack-protector|Kernel panic - not syncing: stack-protector: Kernel stack is corrupted in: scsi_ioctl+0x99/0xa0
KINDS
{ clean; echo "[    4.000000] kernel BUG at mm/slub.c:1!"; } >"$tmp/after.log"
if [ "$("$scan" "$tmp/after.log" | cut -f1)" = between-suites ]; then
	echo "ok - splat-scan.between-suites: a splat after a suite's end is placed between suites"
else
	echo "not ok - splat-scan.between-suites: a splat after a suite's end was not placed between suites"
fi
if "$scan" "$tmp/missing.log" >/dev/null 2>&1; then
	echo "not ok - splat-scan.unreadable: a missing log was scanned as clean"
else
	echo "ok - splat-scan.unreadable: a missing log is an error (exit $?)"
fi
echo "# $n kinds of splat planted"
