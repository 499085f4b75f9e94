# shellcheck shell=bash
# Guest device setup: add the scsi_debug devices of other peripheral types,
# open the device nodes to the unprivileged user, and write the map of
# fixtures to /tmp/devices.env for the suites.

SCSI_DEBUG=/sys/bus/pseudo/drivers/scsi_debug

# scsi_debug has one global peripheral type; the kernel fixes each device's
# type when it scans it, so add one host per type: tape, changer, CD,
# scanner, processor, and the disk last (later INQUIRYs of every scsi_debug
# device answer with the last type set; the kernel's view, sdev->type,
# keeps the scanned one, and that is what the command filter uses).
# A kernel that scans hosts asynchronously (SCSI_SCAN_ASYNC, as Debian's
# do) may ask a new host's INQUIRY after the next type is set: each host's
# device must be there before the type changes.
add_scsi_debug() {
	local t n i
	for t in 1 8 5 6 3 0; do
		n=$(scsi_debug_devices)
		echo "$t" >"$SCSI_DEBUG/ptype"
		echo 1 >"$SCSI_DEBUG/add_host"
		# shellcheck disable=SC2034 # i only counts the tries
		for i in $(seq 200); do
			[ "$(scsi_debug_devices)" -gt "$n" ] && continue 2
			sleep 0.05
		done
		echo "setup: scsi_debug's host of type $t brought no device in 10 s" >&2
		return 1
	done
}
scsi_debug_devices() {
	local d n=0
	for d in "$SCSI_DEBUG"/adapter*/host*/target*/*:*:*:*; do
		[ -e "$d/type" ] && n=$((n + 1))
	done
	echo $n
}

wait_for() {
	local i
	# shellcheck disable=SC2034 # i only counts the tries
	for i in $(seq 100); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	echo "setup: $1 did not appear" >&2
	return 1
}

# role VENDOR-MODEL-PATTERN TYPE -> "H:C:T:L" lines
find_hctl() {
	local d
	for d in /sys/bus/scsi/devices/*:*:*:*; do
		[ "$(cat "$d/type")" = "$2" ] || continue
		# shellcheck disable=SC2254 # $1 is a glob pattern
		case "$(cat "$d/vendor") $(cat "$d/model")" in
		$1) basename "$d" ;;
		esac
	done
}

# Write ROLE_SG, ROLE_BSG, ROLE_HCTL and ROLE_NODE (the upper-level node:
# sdX, srN, stN, schN) for one device.
describe() {
	local role=$1 hctl=$2 d node
	d=/sys/bus/scsi/devices/$hctl
	[ -n "$hctl" ] || { echo "setup: no device for $role" >&2; return 1; }
	node=
	if [ -d "$d/block" ]; then node=/dev/$(ls "$d/block"); fi
	# shellcheck disable=SC2010 # sysfs names: st0, nst0a, ...
	if [ -d "$d/scsi_tape" ]; then node=/dev/$(ls "$d/scsi_tape" | grep -m1 '^st[0-9]*$'); fi
	if [ -d "$d/scsi_changer" ]; then node=/dev/$(ls "$d/scsi_changer"); fi
	echo "${role}_HCTL=$hctl"
	echo "${role}_NODE=$node"
	echo "${role}_SG=/dev/$(ls "$d/scsi_generic")"
	echo "${role}_BSG=/dev/bsg/$hctl"
}

# The library's nodes, grouped and moded as udev does (unless udev runs:
# SGF_UDEV=1); prints their roles.
library_nodes() {
	local d n
	# shellcheck source=/dev/null # setup_devices writes it at run time
	. /tmp/devices.env
	echo "VTAPE_NST=/dev/n$(basename "$VTAPE_NODE")"
	[ "${SGF_UDEV:-0}" = 0 ] || return 0
	d=/sys/bus/scsi/devices/$VTAPE_HCTL
	# shellcheck disable=SC2045 # sysfs names: st0, nst0a, ...
	for n in $(ls "$d/scsi_tape"); do
		chgrp tape "/dev/$n" && chmod 0660 "/dev/$n"
	done
	chgrp tape "$VTAPE_SG" "$VCHANGER_SG" && chmod 0660 "$VTAPE_SG" "$VCHANGER_SG"
	chgrp cdrom "$VCHANGER_NODE" && chmod 0660 "$VCHANGER_NODE"
	chmod 0600 "$VTAPE_BSG" "$VCHANGER_BSG"
}

# SGF_UDEV=1 (./run debian): a Debian system, where udev loaded the SCSI
# drivers and gives the nodes their owners, groups and ACLs; setup changes
# none of them, and loads scsi_debug, which has no hotplug alias.
setup_devices() {
	if [ "${SGF_UDEV:-0}" = 1 ] && [ ! -d "$SCSI_DEBUG" ]; then
		modprobe scsi_debug add_host=0 dev_size_mb=16 || return 1
	fi
	add_scsi_debug
	wait_for /dev/st1 && wait_for /dev/sch1 && wait_for /dev/sr4 || return 1
	[ "${SGF_UDEV:-0}" = 0 ] || udevadm settle --timeout=120 || return 1
	local burners sata
	burners=$(find_hctl '*VIRTUAL-CDROM*' 5 | sort -t: -k3,3n)
	{
		describe HD "$(find_hctl 'QEMU *HARDDISK*' 0)"
		describe CD "$(find_hctl 'QEMU *CD-ROM*' 5)"
		describe BURN1 "$(echo "$burners" | sed -n 1p)"
		describe BURN2 "$(echo "$burners" | sed -n 2p)"
		describe BURN3 "$(echo "$burners" | sed -n 3p)"
		describe VTAPE "$(find_hctl '*VIRTUAL-TAPE*' 1)"
		describe VCHANGER "$(find_hctl '*VIRTUAL-CHANGER*' 8)"
		describe TAPE "$(find_hctl 'Linux *scsi_debug*' 1)"
		describe CHANGER "$(find_hctl 'Linux *scsi_debug*' 8)"
		describe DBGDISK "$(find_hctl 'Linux *scsi_debug*' 0)"
		describe DBGCD "$(find_hctl 'Linux *scsi_debug*' 5)"
		describe DBGSCAN "$(find_hctl 'Linux *scsi_debug*' 6)"
		describe DBGPROC "$(find_hctl 'Linux *scsi_debug*' 3)"
		# the SATA disk of the health and fuzz suites (libata's vendor "ATA"), if any
		sata=$(find_hctl 'ATA *' 0)
		[ -z "$sata" ] || describe SATA "$sata"
	} >/tmp/devices.env || return 1
	# Like a desktop's "cdrom"/"disk" group: every node is open to the
	# unprivileged user, so the filter alone decides (not under udev).
	[ "${SGF_UDEV:-0}" = 1 ] ||
		chmod 0666 /dev/sd* /dev/sr* /dev/sg* /dev/bsg/* /dev/st* /dev/nst* /dev/sch*
	# tgt's tape library gets what systemd's 50-udev-default.rules give:
	# the drive's st/nst nodes and the sg nodes of tape and changer to
	# group "tape", the changer's sch node to group "cdrom", read-write for
	# the group and nothing for others; bsg stays root's. The compatibility
	# suites run the user as a member of those groups (as_member).
	library_nodes >>/tmp/devices.env
	mkdir -p /tmp/home && chmod 1777 /tmp/home
	cat /tmp/devices.env
}

# A suite's time limit: its "# timeout: EXPR" line, bash arithmetic that
# may use its knobs (SGF_FUZZ_SECONDS, ...; unset ones count 0), else 600
# seconds; times SGF_TIMEOUT_SCALE for the slower debug kernels.
suite_timeout() {
	local expr
	expr=$(sed -n 's/^# timeout: //p' "tests/guest/$1.sh" | head -1)
	echo $(((${expr:-600}) * ${SGF_TIMEOUT_SCALE:-1}))
}

# run_suites OUT: every suite of SGF_SUITES, its TAP in OUT/SUITE.tap, with
# the groups SUITE_GROUPS gives it (./run debian) as SGF_USER_GROUPS. Each
# suite's start and end go to the kernel log, so that the rig can name the
# suite a kernel splat happened in; its exit status and time to
# SUITE.status ("STATUS SECONDS"; 124 = killed at its time limit). Fails
# if a suite did.
declare -A SUITE_GROUPS=()
run_suites() {
	local out=$1 suite limit t0 rc status=0
	for suite in $SGF_SUITES; do
		limit=$(suite_timeout "$suite")
		echo "sgf-guest: suite $suite begins (time limit ${limit}s)" >/dev/kmsg
		t0=$(date +%s)
		rc=0
		SGF_USER_GROUPS=${SUITE_GROUPS[$suite]:-} timeout -k 10 "$limit" bash "tests/guest/$suite.sh" \
			>"$out/$suite.tap" 2>"$out/$suite.err" || rc=$?
		echo "$rc $(($(date +%s) - t0))" >"$out/$suite.status"
		echo "sgf-guest: suite $suite ends (status $rc)" >/dev/kmsg
		[ "$rc" = 0 ] || status=1
	done
	return $status
}
