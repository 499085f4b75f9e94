#!/bin/bash
# The Debian system (./run debian only, last suite of the boot): SCSI as
# modules that udev loaded, the nodes' owners, groups and ACLs as udev and
# logind made them, AppArmor enforcing and no denial of its own; on the
# patched kernel the filter's sysfs files, sgfilter, the tracepoint and the
# log line with SCSI as modules, and sg and scsi_debug unloaded and loaded
# again while devices have policies of their own. Both kernels run it; the
# node listing (debian-nodes.txt) is compared by the host.
# timeout: 600
. "$(dirname "$0")/lib.sh"

[ "${SGF_UDEV:-0}" = 1 ] || { echo "# debian-system: for the Debian image only (./run debian)"; exit 1; }

# --- SCSI as modules, loaded by udev at boot (scsi_debug by setup)
for m in scsi_mod sd_mod sr_mod st ch sg virtio_scsi cdrom; do
	check "module.$m" "$m is a loaded module ($(grep -c "^$m " /proc/modules) in /proc/modules)" \
		grep -q "^$m " /proc/modules
done

# --- the nodes as udev made them (systemd's 50-udev-default.rules; bsg
# has no rule): owner, group, mode, and the console user's ACL
node_is() {
	local role=$1 node=$2 want=$3 have
	have=$(stat -L -c '%U:%G %a' "$node")
	if [ "$have" = "$want" ]; then
		ok "node.$role" "$node is $have"
	else
		not_ok "node.$role" "$node is $have, udev's rules give $want"
	fi
}
node_is HD.block "$HD_NODE" "root:disk 660"
node_is HD.sg "$HD_SG" "root:disk 660"
node_is HD.bsg "$HD_BSG" "root:root 600"
node_is CD.block "$CD_NODE" "root:cdrom 660"
node_is CD.sg "$CD_SG" "root:cdrom 660"
node_is VTAPE.st "$VTAPE_NODE" "root:tape 660"
node_is VTAPE.sg "$VTAPE_SG" "root:tape 660"
node_is VCHANGER.sch "$VCHANGER_NODE" "root:cdrom 660"
node_is VCHANGER.sg "$VCHANGER_SG" "root:tape 660"
# one line a node, "H:C:T:L KIND OWNER:GROUP MODE ACL...", by the device
# and the kind of node (sd, sr, sg, st, nst, sch, bsg) rather than by its
# name: an asynchronous scan may number sdX and sgN differently each boot
{
	for n in /dev/sd? /dev/sr* /dev/sg* /dev/st? /dev/nst? /dev/sch* /dev/bsg/*; do
		[ -e "$n" ] || continue
		hctl=$(udevadm info -q path -n "$n" | grep -oE '/[0-9]+:[0-9]+:[0-9]+:[0-9]+/' | tail -1 | tr -d /)
		case $n in
		/dev/bsg/*) kind=bsg ;;
		/dev/nst*) kind=nst ;;
		/dev/sch*) kind=sch ;;
		*) kind=$(basename "$n" | cut -c1-2) ;;   # sd, sr, sg, st
		esac
		printf '%s %s %s %s\n' "${hctl:-?}" "$kind" "$(stat -L -c '%U:%G %a' "$n")" \
			"$(getfacl -cp "$n" 2>/dev/null | grep '^user:[a-z]' | tr '\n' ' ')"
	done
} >/tmp/out/debian-nodes.txt
user=$(id -nu "$USER_ID")
session=$(loginctl show-seat seat0 -p ActiveSession --value 2>/dev/null)
check session "$user is logged in on seat0's active session (${session:-none})" \
	test "$(loginctl show-session "${session:-none}" -p Name --value 2>/dev/null)" = "$user"
for role in CD BURN1 BURN3; do
	node=${role}_NODE sg=${role}_SG
	for n in "${!node}" "${!sg}"; do
		check "uaccess.$role.$(basename "$n")" "$n has logind's ACL for $user ($(getfacl -cp "$n" 2>/dev/null | grep "^user:$user" || echo none))" \
			grep -qx "user:$user:rw-" <(getfacl -cp "$n" 2>/dev/null)
	done
done
check uaccess.HD.none "the disk $HD_NODE has no ACL for $user (disks go by group disk)" \
	test -z "$(getfacl -cp "$HD_NODE" 2>/dev/null | grep "^user:$user")"

# --- AppArmor enforcing, and not one denial since boot
check apparmor.enabled "AppArmor is enabled ($(cat /sys/module/apparmor/parameters/enabled 2>/dev/null))" \
	test "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y
enforced=$(grep -c '(enforce)' /sys/kernel/security/apparmor/profiles 2>/dev/null || true)
check apparmor.enforce "AppArmor has profiles in enforce mode (${enforced:-0})" test "${enforced:-0}" -gt 0

if [ "$SGF_KERNEL" = patched ]; then
	# --- the filter with SCSI as modules
	d=/sys/bus/scsi/devices/$DBGDISK_HCTL
	for f in cmd_set denied read write priv custom reset unfiltered; do
		check "sysfs.$f" "$d/cmd_filter/$f exists" test -e "$d/cmd_filter/$f"
	done
	check sysfs.filter-all "sg's filter_all parameter is there ($(cat "$SG_FILTER_ALL" 2>/dev/null))" \
		test "$(cat "$SG_FILTER_ALL" 2>/dev/null)" = N
	check sgfilter.show "sgfilter show $DBGDISK_SG" "$SGF_BUILD/bin/sgfilter" show "$DBGDISK_SG"
	# (sgfilter's own exit status, and the class exactly)
	# shellcheck disable=SC2317 # called by check
	unmap_class() {
		local o
		o=$("$SGF_BUILD/bin/sgfilter" --json check "$DBGDISK_SG" 42 00 00 00 00 00 00 00 18 00) &&
			[[ $o == *'"class":"write"'* ]]
	}
	check sgfilter.check "sgfilter check says UNMAP is of class write (a writable open) on the disk" unmap_class
	T=/sys/kernel/tracing
	echo >$T/trace
	echo 1 >$T/events/scsi/scsi_cmd_filter_deny/enable
	echo 1 >$T/tracing_on   # (commands_check of an earlier suite left it off)
	dmesg -C
	user_probe -m ro "$DBGDISK_NODE" 42 00 00 00 00 00 00 00 18 00
	echo 0 >$T/events/scsi/scsi_cmd_filter_deny/enable
	check deny.verdict "UNMAP through a read-only open of $DBGDISK_NODE as $user (a member of disk): $PROBE_VERDICT" \
		test "$PROBE_VERDICT" = denied
	check deny.tracepoint "the tracepoint recorded it" grep -q 'scsi_cmd_filter_deny:.*opcode=0x42' $T/trace
	check deny.log "the kernel log says so" sh -c "dmesg | grep -q 'command filter: denied UNMAP (0x42) to sgprobe'"

	# --- a device marked unfiltered: a writable open sends anything (the
	# AppArmor check below covers this too)
	# (WRITE BUFFER in mode 2, data to the buffer, of no bytes)
	user_probe -m rw "$DBGDISK_NODE" 3b 02 00 00 00 00 00 00 00 00
	check unfiltered.before "WRITE BUFFER through a writable open of $DBGDISK_NODE, filtered: $PROBE_VERDICT" \
		test "$PROBE_VERDICT" = denied
	check unfiltered.set "mark $DBGDISK_HCTL unfiltered" sh -c "echo 1 >'$d/cmd_filter/unfiltered'"
	user_probe -m rw "$DBGDISK_NODE" 3b 02 00 00 00 00 00 00 00 00
	check unfiltered.reached "the same through a writable open of the unfiltered $DBGDISK_NODE: $PROBE_VERDICT" \
		test "$PROBE_VERDICT" = reached
	check unfiltered.unset "and filtered again" sh -c "echo 0 >'$d/cmd_filter/unfiltered'"

	# --- unload and load the modules while devices have policies
	check policy.set "a policy of its own on $DBGDISK_HCTL" sh -c "echo +0x42 >'$d/cmd_filter/priv'"
	check policy.custom "it says custom" test "$(cat "$d/cmd_filter/custom")" = 1
	check reload.sg "sg unloads and loads again" sh -c 'modprobe -r sg && modprobe sg'
	check reload.sg.param "sg.filter_all is there again" test -e "$SG_FILTER_ALL"
	check reload.policy-kept "$DBGDISK_HCTL keeps its policy over sg's reload (the policy is the device's)" \
		test "$(cat "$d/cmd_filter/custom")" = 1
	# scsi_debug: its hosts removed first (and the devices with them),
	# then the module, then one new host
	udevadm settle
	echo "-$(cat /sys/bus/pseudo/drivers/scsi_debug/add_host)" >/sys/bus/pseudo/drivers/scsi_debug/add_host
	udevadm settle
	for _ in $(seq 20); do modprobe -r scsi_debug 2>/dev/null && break; sleep 0.5; done
	check reload.scsi_debug.unload "scsi_debug unloads with its devices, one of which had a policy of its own" \
		test ! -d /sys/module/scsi_debug
	check reload.scsi_debug.load "and loads again with one disk" modprobe scsi_debug add_host=1 ptype=0 dev_size_mb=16
	udevadm settle
	new=
	for x in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*:*:*:*; do
		[ -e "$x/type" ] && new=$(basename "$x")
	done
	check reload.default "the new scsi_debug disk ${new:-none} starts on the default policy" \
		test -n "$new" -a "$(cat "/sys/bus/scsi/devices/$new/cmd_filter/custom" 2>/dev/null)" = 0
fi

# --- README's recipe for a monitoring account: its udev rule, the line of
# README.md as a user copies it, gives the account read access to the
# disks, and smartctl -a as that account prints what it prints for root
# (the fixture's disk is QEMU's SCSI disk: Debian's 6.1 cloud config has
# no AHCI; the health suite shows ATA PASS-THROUGH on a SATA disk). Last
# but one: the rule would give every disk added later the ACL too, so it
# goes, and the ACL with it.
rule=$(sed -n 's/^# \(ACTION==.*setfacl -m u:monitor:r .*\)$/\1/p' "$SGF_TOP/README.md")
if [ -z "$rule" ]; then
	not_ok monitor.rule "README.md has no udev rule for the monitoring account"
else
	useradd --system --no-create-home --shell /usr/sbin/nologin monitor
	echo "$rule" >/etc/udev/rules.d/60-smart-monitor.rules
	udevadm control --reload
	udevadm trigger --action=change --settle "$HD_NODE"
	check monitor.acl "README's udev rule gives monitor read access to $HD_NODE ($(getfacl -cp "$HD_NODE" 2>/dev/null | grep '^user:monitor' || echo none))" \
		grep -qx 'user:monitor:r--' <(getfacl -cp "$HD_NODE" 2>/dev/null)
	mon() {
		HOME=/tmp setpriv --reuid=monitor --regid=monitor --init-groups \
			--inh-caps=-all --bounding-set=-all -- "$@"
	}
	# (passes on EACCES alone)
	check monitor.no-write "$HD_NODE does not open for writing to monitor" \
		mon python3 -c 'import os, sys
try:
    os.open(sys.argv[1], os.O_WRONLY)
except PermissionError:
    sys.exit(0)
sys.exit(1)' "$HD_NODE"
	root_out=$(smartctl -a "$HD_NODE" 2>&1 | grep -v '^Local Time is:')
	mon_out=$(mon smartctl -a "$HD_NODE" 2>&1 | grep -v '^Local Time is:')
	if [ "$mon_out" = "$root_out" ]; then
		ok monitor.smartctl-a "smartctl -a $HD_NODE as monitor prints root's output ($(wc -l <<<"$root_out") lines)"
	else
		not_ok monitor.smartctl-a "smartctl -a $HD_NODE as monitor differs from root's" \
			"$(diff <(echo "$root_out") <(echo "$mon_out") | head -12)"
	fi
	rm -f /etc/udev/rules.d/60-smart-monitor.rules
	udevadm control --reload
	setfacl -x u:monitor "$HD_NODE"
fi

# last: every AppArmor line the kernel logged since boot
denials=$(journalctl -k -b --no-pager 2>/dev/null | grep -c 'apparmor="DENIED"' || true)
check apparmor.no-denial "no AppArmor denial in the kernel's audit log since boot (${denials:-0})" \
	test "${denials:-0}" = 0
journalctl -k -b --no-pager 2>/dev/null | grep 'apparmor="DENIED"' | head -5 | sed 's/^/# /'
finish_suite
