#!/bin/bash
# Disk health for ordinary users (series patch 16), on a SATA disk on
# QEMU's AHCI controller (rig/boot adds it to boots that run this suite),
# driven by libata, whose SCSI/ATA translation answers ATA PASS-THROUGH.
# The unprivileged user (uid 65534) is given read access to that one disk
# and nothing else: its block, sg and bsg nodes owned by it, mode 0400, as
# "setfacl -m u:USER:r" would; never group disk.
#  - smartctl -i, -H, -a, -x (ATA PASS-THROUGH(16)) and -d sat,12 -a
#    (12-byte), and hdparm -I, as the user give root's answers on the
#    patched kernel, through the block node and the sg node; on stock the
#    user gets none of it (every ATA PASS-THROUGH refused).
#  - What writes, reads by another protocol or reads a log whose read is
#    an action is refused on both kernels
#    and never reaches the disk (the dispatch tracepoint): smartctl -s off
#    and -t short, hdparm --security-set-pass and --fwdownload, and
#    sgprobe's CDB for every field combination the rules exclude, through
#    the block, sg and bsg nodes; SMART stays enabled.
#  - Root still does everything; the unfiltered switch opens writable
#    opens only, so the user's read-only open stays filtered.
# timeout: 900
. "$(dirname "$0")/lib.sh"

if [ -z "${SATA_HCTL:-}" ]; then
	not_ok fixture "no SATA disk (vendor ATA) in this boot: rig/boot adds it for the health suite"
	finish_suite
fi
check fixture "the SATA disk $SATA_HCTL is $SATA_NODE, $SATA_SG, $SATA_BSG" \
	test -b "$SATA_NODE" -a -c "$SATA_SG" -a -c "$SATA_BSG"
# read access for the user to this disk alone (setup opened every node)
for n in "$SATA_NODE" "$SATA_SG" "$SATA_BSG"; do
	chown "$USER_ID:0" "$n" && chmod 0400 "$n"
done
check user-read "the user reads $SATA_NODE" \
	as_user dd if="$SATA_NODE" of=/dev/null bs=512 count=1 status=none
if as_user sh -c ": >>'$SATA_NODE'" 2>/dev/null; then
	not_ok user-no-write "$SATA_NODE opens for writing to the user"
else
	ok user-no-write "$SATA_NODE does not open for writing to the user"
fi

# smartctl's "Local Time is:" changes from run to run; nothing else does
norm() { grep -v '^Local Time is:'; }
run_root() { "$@" 2>&1 | norm; }
run_user() { as_user "$@" 2>&1 | norm; }

# row ID DESC SEEN: a line of /tmp/out/health-rows.txt, what the user got
# (./run report puts the two kernels' rows side by side)
row() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>/tmp/out/health-rows.txt; }
: >/tmp/out/health-rows.txt

# health ID DESC MARKER CMD...: CMD as root shows MARKER (the fixture
# answers); as the user, on patched the same output as root's, on stock
# not MARKER (refused)
health() {
	local id=$1 desc=$2 marker=$3 root user
	shift 3
	root=$(run_root "$@")
	user=$(run_user "$@")
	# (the user's output, and what it was, for ./run report)
	printf '%s\n' "$user" >"/tmp/out/health-$id.txt"
	if [ "$user" = "$root" ]; then
		row "$id" "$desc" "as root's"
	elif grep -qF -- "$marker" <<<"$user"; then
		row "$id" "$desc" differs
	else
		row "$id" "$desc" none
	fi
	if ! grep -qF -- "$marker" <<<"$root"; then
		not_ok "$id" "$desc: root's output lacks '$marker' (the fixture does not answer)" "$(tail -5 <<<"$root")"
	elif [ "$SGF_KERNEL" = stock ]; then
		if grep -qF -- "$marker" <<<"$user"; then
			not_ok "$id" "$desc: on stock $SGF_KVER the user got '$marker'" "$(tail -5 <<<"$user")"
		else
			ok "$id" "$desc: on stock $SGF_KVER the user gets none of it (root's shows '$marker')"
		fi
	elif [ "$user" = "$root" ]; then
		ok "$id" "$desc: the user's output is root's ($(wc -l <<<"$root") lines, '$marker')"
	else
		not_ok "$id" "$desc: the user's output differs from root's" \
			"$(diff <(echo "$root") <(echo "$user") | head -12)"
	fi
}

serial='Serial Number:    SGFSATA0'
health smartctl-i.block "smartctl -i $SATA_NODE" "$serial" smartctl -i "$SATA_NODE"
health smartctl-H.block "smartctl -H $SATA_NODE" 'test result: PASSED' smartctl -H "$SATA_NODE"
health smartctl-a.block "smartctl -a $SATA_NODE" 'SMART Attributes Data Structure' smartctl -a "$SATA_NODE"
health smartctl-x.block "smartctl -x $SATA_NODE" 'SMART Attributes Data Structure' smartctl -x "$SATA_NODE"
health smartctl-a-sat12.block "smartctl -d sat,12 -a $SATA_NODE (ATA PASS-THROUGH(12))" \
	'SMART Attributes Data Structure' smartctl -d sat,12 -a "$SATA_NODE"
health smartctl-a.sg "smartctl -d sat -a $SATA_SG" 'SMART Attributes Data Structure' \
	smartctl -d sat -a "$SATA_SG"
health hdparm-I.block "hdparm -I $SATA_NODE" 'Serial Number:      SGFSATA0' hdparm -I "$SATA_NODE"
health hdparm-I.sg "hdparm -I $SATA_SG" 'Serial Number:      SGFSATA0' hdparm -I "$SATA_SG"

# The reads through every entry point, by sgprobe: SMART READ DATA
# (16-byte, PIO data-in from the device), as the user, read-only
smart_read=(85 08 0e 00 d0 00 01 00 00 00 4f 00 c2 00 b0 00)
# (entry point, node, name: bsg's node names hold colons)
for e in "sgio|$SATA_NODE|block" "sgio|$SATA_SG|sg" "bsg|$SATA_BSG|bsg"; do
	IFS='|' read -r entry node where <<<"$e"
	user_probe -e "$entry" -m ro -i 512 "$node" "${smart_read[@]}"
	row "smart-read-data.$where" "SMART READ DATA through $where ($node)" "${PROBE_VERDICT:-none}"
	if [ "$SGF_KERNEL" = stock ]; then
		check "smart-read-data.$where" "SMART READ DATA through $where ($node), read-only: denied on stock $SGF_KVER" \
			test "$PROBE_VERDICT" = denied
	else
		check "smart-read-data.$where" "SMART READ DATA through $where ($node), read-only: reaches the disk" \
			test "$PROBE_VERDICT" = reached
	fi
done

# ---- refused on both kernels, and never dispatched
trace_reset
# what: CDB (16 bytes) and sgprobe's data option, one per field
# combination the rules of patch 16 leave out, and the logs they keep
# privileged
refused_cdbs=(
	"smart-write-log|-o 512|85 0a 06 00 d6 00 01 00 e0 00 4f 00 c2 00 b0 00"
	"smart-enable|-|85 06 20 00 d8 00 00 00 00 00 4f 00 c2 00 b0 00"
	"smart-disable|-|85 06 20 00 d9 00 00 00 00 00 4f 00 c2 00 b0 00"
	"smart-self-test|-|85 06 20 00 d4 00 00 00 01 00 4f 00 c2 00 b0 00"
	"smart-autosave|-|85 06 20 00 d2 00 f1 00 00 00 4f 00 c2 00 b0 00"
	"security-set-password|-o 512|85 0a 06 00 00 00 01 00 00 00 00 00 00 00 f1 00"
	"security-erase-unit|-o 512|85 0a 06 00 00 00 01 00 00 00 00 00 00 00 f4 00"
	"download-microcode|-o 512|85 0a 06 00 07 00 01 00 00 00 00 00 00 00 92 00"
	"set-features|-|85 06 20 00 02 00 00 00 00 00 00 00 00 00 ef 00"
	"write-sectors|-o 512|85 0a 06 00 00 00 01 00 00 00 00 00 00 40 30 00"
	"identify.data-out|-o 512|85 0a 0e 00 00 00 01 00 00 00 00 00 00 00 ec 00"
	"identify.to-device|-o 512|85 08 06 00 00 00 01 00 00 00 00 00 00 00 ec 00"
	"identify.hard-reset|-|85 00 00 00 00 00 00 00 00 00 00 00 00 00 ec 00"
	"identify.srst|-|85 02 00 00 00 00 00 00 00 00 00 00 00 00 ec 00"
	"smart-read-data.non-data|-|85 06 20 00 d0 00 01 00 00 00 4f 00 c2 00 b0 00"
	"smart-read-data.data-out|-o 512|85 0a 06 00 d0 00 01 00 00 00 4f 00 c2 00 b0 00"
	"check-power-mode.moves-data|-i 512|85 06 2e 00 00 00 01 00 00 00 00 00 00 00 e5 00"
	"read-log-ext.28-bit|-i 512|85 08 0e 00 00 00 01 00 00 00 00 00 00 00 2f 00"
	"read-log-ext.reset|-i 512|85 09 0e 00 01 00 01 00 11 00 00 00 00 00 2f 00"
	"read-log-ext.feature-high|-i 512|85 09 0e 01 00 00 01 00 04 00 00 00 00 00 2f 00"
	"read-log-ext.ncq-error-log|-i 512|85 09 0e 00 00 00 01 00 10 00 00 00 00 00 2f 00"
	"read-log-ext.ncq-sense-log|-i 512|85 09 0e 00 00 00 01 00 0f 00 00 00 00 00 2f 00"
	"read-log-ext.stream-error-log|-i 512|85 09 0e 00 00 00 01 00 22 00 00 00 00 00 2f 00"
	"read-log-ext.sct-data-transfer|-i 512|85 09 0e 00 00 00 01 00 e1 00 00 00 00 00 2f 00"
	"read-log-ext.vendor-log|-i 512|85 09 0e 00 00 00 01 00 a6 00 00 00 00 00 2f 00"
	"smart-read-log.sct-data-transfer|-i 512|85 08 0e 00 d5 00 01 00 e1 00 4f 00 c2 00 b0 00"
	"read-log-dma-ext|-i 512|85 0d 0e 00 00 00 01 00 04 00 00 00 00 00 47 00"
)
for r in "${refused_cdbs[@]}"; do
	IFS='|' read -r what data cdb <<<"$r"
	opts=()
	[ "$data" = - ] || read -r -a opts <<<"$data"
	# shellcheck disable=SC2086 # the CDB's bytes are words
	for e in "sgio|$SATA_NODE|block" "sgio|$SATA_SG|sg" "bsg|$SATA_BSG|bsg"; do
		IFS='|' read -r entry node where <<<"$e"
		user_probe -e "$entry" -m ro "${opts[@]}" "$node" $cdb
		check "refused.$what.$where" "$what ($cdb) through $where, read-only: denied" \
			test "$PROBE_VERDICT" = denied
	done
	# ATA command and feature of the CDB, as the tracepoint prints it
	n=$(trace_count "$SATA_HCTL" "$cdb")
	check "refused.$what.dispatched" "$what: never dispatched to the disk ($n)" test "$n" = 0
done

# Real programs that write, as the user: never dispatched. On the patched
# kernel they get as far as the write (the reads before it are allowed)
# and fail there; on stock they fail sooner, at the IDENTIFY they need
# first (smartctl then takes the disk for a SCSI one and exits 0).
trace_reset
# write_refused ID DESC TRACE-PATTERN CMD...
write_refused() {
	local id=$1 desc=$2 pattern=$3 rc=0 n
	shift 3
	as_user "$@" >/dev/null 2>&1 || rc=$?
	n=$(trace_count "$SATA_HCTL" "$pattern")
	if [ "$SGF_KERNEL" = stock ]; then
		check "$id" "$desc as the user on stock $SGF_KVER (exit $rc): never reached the disk ($n)" test "$n" = 0
	else
		check "$id" "$desc as the user: refused (exit $rc) and never reached the disk ($n)" \
			test "$rc" != 0 -a "$n" = 0
	fi
}
write_refused smartctl-s-off "smartctl -s off (SMART DISABLE OPERATIONS)" \
	'85 .. .. .. d9 .. .. .. .. .. .. .. .. .. b0' smartctl -s off "$SATA_NODE"
write_refused smartctl-t-short "smartctl -t short (SMART EXECUTE OFF-LINE IMMEDIATE)" \
	'85 .. .. .. d4 .. .. .. .. .. .. .. .. .. b0' smartctl -t short "$SATA_NODE"
write_refused hdparm-security-set-pass "hdparm --security-set-pass (SECURITY SET PASSWORD)" \
	'.. .. .. .. .. .. .. .. .. .. .. .. .. .. f1' \
	hdparm --user-master u --security-set-pass sgfilter "$SATA_NODE"
head -c 512 /dev/zero >/tmp/health.fw && chmod 0644 /tmp/health.fw
write_refused hdparm-fwdownload "hdparm --fwdownload (DOWNLOAD MICROCODE)" \
	'.. .. .. .. .. .. .. .. .. .. .. .. .. .. 92' \
	hdparm --yes-i-know-what-i-am-doing --please-destroy-my-drive --fwdownload /tmp/health.fw "$SATA_NODE"
check smart-still-enabled "SMART is still enabled (root's smartctl -i)" \
	bash -c "smartctl -i '$SATA_NODE' | grep -q 'SMART support is: Enabled'"

# ---- root, and the unfiltered switch
trace_reset
check root.smart-disable-enable "root turns SMART off and on again (smartctl -s off; -s on)" \
	bash -c "smartctl -s off '$SATA_NODE' >/dev/null && smartctl -s on '$SATA_NODE' >/dev/null"
n=$(trace_count "$SATA_HCTL" '85 .. .. .. d9 .. .. .. .. .. .. .. .. .. b0')
check root.dispatched "root's SMART DISABLE reached the disk ($n)" test "$n" -gt 0
if [ "$SGF_KERNEL" = patched ]; then
	unf=/sys/bus/scsi/devices/$SATA_HCTL/cmd_filter/unfiltered
	echo 1 >"$unf"
	user_probe -m ro "$SATA_NODE" 85 06 20 00 d9 00 00 00 00 00 4f 00 c2 00 b0 00
	check unfiltered.read-only "with cmd_filter/unfiltered=1 the user's read-only open is still filtered: SMART DISABLE denied" \
		test "$PROBE_VERDICT" = denied
	echo 0 >"$unf"
fi
finish_suite
