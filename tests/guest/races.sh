#!/bin/bash
# Races, on the guest's two vCPUs:
#  1. root rewrites and resets the scsi_debug disk's policy as fast as it
#     can (sgfuzz rewrite) while two unprivileged processes send SG_IO to it
#     through sd, sg and bsg (sgfuzz hammer). Every policy written allows
#     TEST UNIT READY and INQUIRY and none allows WRITE BUFFER or 0xc1: a
#     refusal of the first or a pass of the second would be a verdict from a
#     half-written policy.
#  2. scsi_debug hosts are added and removed, devices deleted through sysfs,
#     while their policies are being written and two processes send SG_IO
#     through descriptors that outlive the devices.
# The rig fails the boot on any KASAN, lockdep or other splat.
#   SGF_RACE_SECONDS  length of each part (default 40)
# timeout: 600 + 4 * SGF_RACE_SECONDS
. "$(dirname "$0")/lib.sh"
# This suite holds sg's read-write opens and write() to the filter, which
# the patched kernel does only with the opt-in sg.filter_all (finish_suite
# puts it back).
sg_filter_all Y
FUZZ=$SGF_BUILD/bin/sgfuzz
SD=/sys/bus/pseudo/drivers/scsi_debug
secs=${SGF_RACE_SECONDS:-40}
summary=/tmp/out/races-summary.txt
: >$summary

# kv FILE KEY: the value of KEY=... in FILE
kv() { sed -n "s/^$2=//p" "$1" | head -1; }

# --- 1. policy rewrites against SG_IO
if [ "$SGF_KERNEL" = patched ]; then
	as_user "$FUZZ" hammer -s 1 -t "$secs" "$DBGDISK_SG" "$DBGDISK_NODE" "$DBGDISK_BSG" \
		>/tmp/h1.out 2>/tmp/h1.err &
	p1=$!
	as_user "$FUZZ" hammer -s 2 -t "$secs" "$DBGDISK_SG" "$DBGDISK_NODE" "$DBGDISK_BSG" \
		>/tmp/h2.out 2>/tmp/h2.err &
	p2=$!
	"$FUZZ" rewrite -s 3 -t "$secs" "$DBGDISK_HCTL" >/tmp/rw.out 2>/tmp/rw.err &
	p3=$!
	r1=0 r2=0 r3=0
	wait $p1 || r1=$?
	wait $p2 || r2=$?
	wait $p3 || r3=$?
	{
		echo "part1 hammer1 exit=$r1"; sed 's/^/  /' /tmp/h1.out /tmp/h1.err
		echo "part1 hammer2 exit=$r2"; sed 's/^/  /' /tmp/h2.out /tmp/h2.err
		echo "part1 rewrite exit=$r3"; sed 's/^/  /' /tmp/rw.out /tmp/rw.err
	} >>$summary
	calls=$(($(kv /tmp/h1.out calls) + $(kv /tmp/h2.out calls)))
	writes=$(kv /tmp/rw.out writes) resets=$(kv /tmp/rw.out resets)
	# the toggled commands must have been seen both ways: the race was real
	toggled=$(grep -h 'toggled' /tmp/h1.out /tmp/h2.out |
		awk '{a += $(NF - 2); d += $NF} END {print a + 0, d + 0}')
	if [ $r1 = 0 ] && [ $r2 = 0 ] && [ $r3 = 0 ] && [ "$calls" -gt 0 ] &&
	   [ "${writes:-0}" -gt 0 ] && [ "${toggled% *}" -gt 0 ] && [ "${toggled#* }" -gt 0 ]; then
		ok rewrite.sg-io "policy rewritten $writes times and reset $resets times in ${secs}s under $calls SG_IO from two processes: TEST UNIT READY and INQUIRY never refused, WRITE BUFFER and 0xc1 never allowed; toggled commands allowed/denied $toggled"
	else
		not_ok rewrite.sg-io "policy rewrites against SG_IO (hammers $r1 $r2, rewriter $r3, toggled $toggled)" \
			"$(head -5 /tmp/h1.err /tmp/h2.err /tmp/rw.err)"
	fi
fi

# --- 2. hot add and remove under traffic
# Each hot device gets the next sg node, sd name and host number: the
# hammers open the nodes above those the fixtures hold (computed here: a
# boot's fixtures, the SATA disk's AHCI ports among them, differ).
# globs_above PREFIX N SUFFIX: globs of PREFIX<n>SUFFIX for every n > N (N < 99)
globs_above() {
	local t=$(($2 / 10)) o=$(($2 % 10))
	if [ "$2" -lt 9 ]; then
		echo "$1[$(($2 + 1))-9]$3"
	elif [ $o -lt 9 ]; then
		echo "$1${t}[$((o + 1))-9]$3"
	fi
	[ $t -ge 9 ] || echo "$1[$((t + 1))-9][0-9]$3"
	echo "$1[1-9][0-9][0-9]$3"
}
sgs=(/dev/sg*)
nsg=${#sgs[@]}
hosts=(/sys/bus/scsi/devices/*:*:*:*)
maxhost=$(printf '%s\n' "${hosts[@]##*/}" | cut -d: -f1 | sort -n | tail -1)
lastsd=$(find /dev -maxdepth 1 -name 'sd[a-z]' | sort | tail -1)
lastsd=${lastsd#/dev/sd}
hot_nodes=()
if [ "$nsg" -ge 10 ] && [ "$nsg" -le 89 ] && [ "$maxhost" -lt 89 ] && [[ $lastsd =~ ^[a-x]$ ]]; then
	next=$(echo "$lastsd" | tr 'a-x' 'b-y')
	mapfile -t hot_nodes < <(globs_above /dev/sg $((nsg - 1)) ''
		globs_above /dev/bsg/ "$maxhost" ':*'
		echo "/dev/sd[$next-z]")
	echo "# hot nodes: ${hot_nodes[*]}"
else
	not_ok hot-add.fixtures "hot add: expected 10 to 89 sg nodes, hosts below 89 and sd names below sdy before, found $nsg, host $maxhost, sd$lastsd"
fi
as_user "$FUZZ" hammer -s 4 -t "$secs" "${hot_nodes[@]}" >/tmp/h3.out 2>/tmp/h3.err &
p1=$!
as_user "$FUZZ" hammer -s 5 -t "$secs" "${hot_nodes[@]}" >/tmp/h4.out 2>/tmp/h4.err &
p2=$!
# sleep without a process (one costs most of a second on the debug guest)
mkfifo /tmp/races.fifo
exec 8<>/tmp/races.fifo
nap() { read -rt "$1" -u 8 || true; }
end=$((SECONDS + secs - 5))
cycles=0 deletes=0 removals=0 policy_writes=0
echo 0 >$SD/ptype
while [ $SECONDS -lt $end ]; do
	declare -A seen=()
	for d in /sys/bus/scsi/devices/*:*:*:*; do seen[${d##*/}]=1; done
	echo 1 >$SD/add_host
	hot='' writer=
	for _ in $(seq 100); do
		for d in /sys/bus/scsi/devices/*:*:*:*; do
			[ -n "${seen[${d##*/}]:-}" ] || hot=${d##*/}
		done
		[ -n "$hot" ] && [ -e "/dev/bsg/$hot" ] && break
		nap 0.1
	done
	[ -n "$hot" ] || { not_ok hot-add.new-device "hot add: no new device after add_host"; break; }
	for f in "/sys/bus/scsi/devices/$hot"/scsi_generic/* "/sys/bus/scsi/devices/$hot"/block/*; do
		[ -e "$f" ] && [ -e "/dev/${f##*/}" ] && chmod 0666 "/dev/${f##*/}"
	done
	chmod 0666 "/dev/bsg/$hot"
	pol=/sys/bus/scsi/devices/$hot/cmd_filter
	if [ -d "$pol" ]; then
		# policy writes racing with the traffic and with the removal below
		(
			i=0 v=20
			while echo "0x00 0x12 0xc0/cdb2&0xff=0x11 0xc0/cdb2&0xff=0x$v" \
				>"$pol/read" 2>/dev/null; do
				printf -v v '%02x' $((0x20 + i % 90))
				i=$((i + 1))
				if [ $((i % 7)) = 0 ]; then echo 1 >"$pol/reset" 2>/dev/null || break; fi
			done
			echo "$i" >/tmp/hot-writes-$cycles
		) &
		writer=$!
	fi
	nap "0.$((RANDOM % 9 + 1))"
	if [ $((cycles % 2)) = 0 ]; then
		echo 1 >"/sys/bus/scsi/devices/$hot/delete" && deletes=$((deletes + 1))
	fi
	echo -1 >$SD/add_host && removals=$((removals + 1))
	if [ -n "$writer" ]; then
		wait "$writer" || true
		read -r w </tmp/hot-writes-$cycles || w=0
		policy_writes=$((policy_writes + w))
	fi
	cycles=$((cycles + 1))
done
exec 8>&-
r1=0 r2=0
wait $p1 || r1=$?
wait $p2 || r2=$?
{
	echo "part2 cycles=$cycles deletes=$deletes removals=$removals policy_writes=$policy_writes"
	echo "part2 hammer1 exit=$r1"; sed 's/^/  /' /tmp/h3.out /tmp/h3.err
	echo "part2 hammer2 exit=$r2"; sed 's/^/  /' /tmp/h4.out /tmp/h4.err
} >>$summary
calls=$(($(kv /tmp/h3.out calls) + $(kv /tmp/h4.out calls)))
gone=$(($(kv /tmp/h3.out gone) + $(kv /tmp/h4.out gone)))
viol=$(($(kv /tmp/h3.out violations) + $(kv /tmp/h4.out violations)))
reached=$(grep -h 'INQUIRY allowed' /tmp/h3.out /tmp/h4.out | awk '{s += $(NF - 2)} END {print s + 0}')
if [ "$SGF_KERNEL" = stock ]; then
	# stock lets WRITE BUFFER through a read-write sg open: the hammer must
	# see it, or this test could not fail there
	if [ "$viol" -gt 0 ]; then
		ok hot-add.stock-fails "stock $SGF_KVER fails, as it must: $viol refused commands (WRITE BUFFER, 0xc1) reached hot-added devices"
	else
		not_ok hot-add.stock-fails "stock $SGF_KVER showed no refused command reaching a device: the test could not fail"
	fi
	check hot-add.traffic "hot add/remove under traffic: $cycles cycles, $calls SG_IO ($reached INQUIRY answered, $gone failed on removed devices), no crash" \
		test "$cycles" -gt 3 -a "$r1" -le 1 -a "$r2" -le 1 -a "$reached" -gt 0 -a "$gone" -gt 0
else
	if [ $r1 = 0 ] && [ $r2 = 0 ] && [ "$cycles" -gt 3 ] && [ "$reached" -gt 0 ] && [ "$gone" -gt 0 ]; then
		ok hot-add.traffic "hot add/remove under traffic: $cycles scsi_debug hosts added and removed ($deletes devices deleted first), $policy_writes policy writes racing with them, $calls SG_IO ($reached INQUIRY answered, $gone failed on removed devices), no verdict against the policy"
	else
		not_ok hot-add.traffic "hot add/remove under traffic (hammers $r1 $r2, $cycles cycles, $reached answered, $gone gone, $viol violations)" \
			"$(head -5 /tmp/h3.err /tmp/h4.err)"
	fi
fi
finish_suite
