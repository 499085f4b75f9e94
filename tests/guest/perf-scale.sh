#!/bin/bash
# The filter at scale: a scsi_debug host with many LUNs (1,024 by default),
# the memory the kernel spends on them (the filter's share is the
# difference from stock), and on the patched kernel the memory and time of
# custom policies. Writes key=value lines to /tmp/out/perf-scale.txt.
# timeout: 1500
. "$(dirname "$0")/lib.sh"

tgts=${SGF_PERF_TGTS:-4} luns=${SGF_PERF_LUNS:-256}
n=$((tgts * luns))
D=/sys/bus/pseudo/drivers/scsi_debug
out=/tmp/out/perf-scale.txt
slab() { awk '/^Slab:/ { print $2 }' /proc/meminfo; }
ns() { date +%s%N; }
say() { echo "$1" >>$out; echo "# $1"; }

: >$out
# kernel start to init, less the KUnit suites built into the patched kernel
# (from the first KTAP line to the last top-level result)
read -r boot kunit < <(dmesg | awk '
	match($0, /^\[ *[0-9.]+\]/) { t = substr($0, 2, RLENGTH - 2) + 0; text = substr($0, RLENGTH + 2) }
	text ~ /^KTAP version/ && !ks { ks = t }
	text ~ /^(not )?ok [0-9]+ / { ke = t }
	text ~ /^Run .* as init process/ && !init { init = t }
	END { k = (ks && ke) ? ke - ks : 0; printf "%.3f %.3f\n", init - k, k }')
say "kernel=$SGF_KERNEL boot_to_init_s=$boot kunit_s=$kunit"
echo 0 >$D/delay
echo 0 >$D/ndelay
echo 0 >$D/ptype
echo "$tgts" >$D/num_tgts
echo "$luns" >$D/max_luns
hosts=$(ls /sys/class/scsi_host)
sync
s0=$(slab) t0=$(ns)
echo 1 >$D/add_host
host=
for h in /sys/class/scsi_host/host*; do
	grep -qx "$(basename "$h")" <<<"$hosts" || host=${h##*host}
done
check host-added "a scsi_debug host with $tgts targets x $luns LUNs was added (host$host)" test -n "$host"
# sd attaches asynchronously: wait for every disk
for _ in $(seq 600); do
	# shellcheck disable=SC2012 # counts entries named H:C:T:L
	got=$(ls -d /sys/class/scsi_disk/"$host":* 2>/dev/null | wc -l)
	[ "$got" -ge $n ] && break
	sleep 0.5
done
t1=$(ns)
sync
s1=$(slab)
check disks "all $n LUNs have a disk ($got)" test "$got" = $n
say "kernel=$SGF_KERNEL luns=$n add_host_to_all_disks_ms=$(((t1 - t0) / 1000000))"
say "kernel=$SGF_KERNEL luns=$n slab_kb_added=$((s1 - s0)) slab_bytes_per_lun=$(((s1 - s0) * 1024 / n))"

if [ "$SGF_KERNEL" = patched ]; then
	mapfile -t devs < <(ls -d /sys/bus/scsi/devices/"$host":*)
	custom=0
	for d in "${devs[@]}"; do read -r c <"$d/cmd_filter/custom"; custom=$((custom + c)); done
	check default-policy "every LUN is on the shared default policy (custom: $custom)" test $custom = 0
	# One process times the reads and writes (open, read or write, close)
	# and weighs the slab around them. Every file is looked up first, so
	# that the sysfs inodes and dentries that creates are not counted.
	python3 - "${devs[@]}" >>$out <<PY
import os, sys, time
devs = sys.argv[1:]
def slab():
    for l in open("/proc/meminfo"):
        if l.startswith("Slab:"):
            return int(l.split()[1])
def caches():
    """Bytes in use per slab cache (/proc/slabinfo: active objects x size)."""
    out = {}
    for l in open("/proc/slabinfo").readlines()[2:]:
        f = l.split()
        out[f[0]] = int(f[1]) * int(f[3])
    return out
def shrink():
    """Give every cache's empty slabs back (SLUB's shrink file)."""
    for c in os.listdir("/sys/kernel/slab"):
        try:
            with open(f"/sys/kernel/slab/{c}/shrink", "w") as f:
                f.write("1")
        except OSError:
            pass
def each(op):
    t = time.perf_counter_ns()
    for d in devs:
        op(d)
    return (time.perf_counter_ns() - t) / 1000 / len(devs)
def rd(d, name="cmd_filter/read"):
    with open(os.path.join(d, name)) as f:
        return f.read()
def wr(d, name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
for d in devs:
    for name in ("cmd_filter/read", "cmd_filter/reset", "cmd_filter/custom", "vendor"):
        os.stat(os.path.join(d, name))
line = rd(devs[0]).strip()
us_vendor = each(lambda d: rd(d, "vendor"))
us_read = each(rd)
os.sync(); time.sleep(1)
shrink()
s0, c0 = slab(), caches()
us_write = each(lambda d: wr(d, "cmd_filter/read", line + " 0xc1\n"))
time.sleep(1)  # the replaced default needs no freeing; let RCU settle anyway
s1 = slab()
custom = sum(int(rd(d, "cmd_filter/custom")) for d in devs)
us_reset = each(lambda d: wr(d, "cmd_filter/reset", "1\n"))
time.sleep(1)  # policies are freed after an RCU grace period
s2 = slab()
# What the reset has not given back yet: kfree_rcu() frees in batches
# (KFREE_DRAIN_JIFFIES, 5 s, in 6.1); SLUB keeps freed objects in partly
# used slabs until they are shrunk; what is left after both is held.
time.sleep(6)
s3 = slab()
shrink()
s4, c4 = slab(), caches()
grown = sorted(((c4.get(c, 0) - c0.get(c, 0), c) for c in c4), reverse=True)[:3]
left = sum(int(rd(d, "cmd_filter/custom")) for d in devs)
n = len(devs)
k = "kernel=$SGF_KERNEL"
print(f"{k} op=read_vendor count={n} us_per_op={us_vendor:.1f}")
print(f"{k} op=read_policy count={n} us_per_op={us_read:.1f}")
print(f"{k} op=write_policy count={n} us_per_op={us_write:.1f}")
print(f"{k} op=reset_policy count={n} us_per_op={us_reset:.1f}")
print(f"{k} luns={n} customized={custom} custom_bytes_per_lun={(s1 - s0) * 1024 // n}")
print(f"{k} luns={n} custom_after_reset={left} bytes_per_lun_after_reset={(s2 - s0) * 1024 // n}")
print(f"{k} luns={n} bytes_per_lun_7s_after_reset={(s3 - s0) * 1024 // n} "
      f"bytes_per_lun_after_reset_and_shrink={(s4 - s0) * 1024 // n} "
      f"grown_caches={','.join(f'{c}:{b // n}' for b, c in grown if b > 0) or 'none'}")
PY
	tail -7 $out | sed 's/^/# /'
	check custom-policy "writing cmd_filter/read gave every LUN its own policy" \
		grep -q "customized=$n " $out
	check reset "reset returned every LUN to the default policy" \
		grep -q "custom_after_reset=0 " $out
fi
finish_suite
