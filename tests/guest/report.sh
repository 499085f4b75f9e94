#!/bin/bash
# Material for the main job's report (./run report): the devices the guest
# sees, and what the kernel decides for a few telling commands sent by the
# unprivileged user. Writes /tmp/out/devices.txt and /tmp/out/decisions.txt;
# every probe must give a verdict (reached or denied), which is the test.
# On the patched kernel also: a denial's audit trail (/tmp/out/audit.txt)
# and a per-device policy changed with sgfilter (/tmp/out/sgfilter.txt).
. "$(dirname "$0")/lib.sh"

# The command set the policy gives each peripheral type.
set_of() {
	python3 -c "import sys; sys.path.insert(0, '$SGF_TOP/tests/guest'); import sgfpolicy
_, pol = sgfpolicy.load()
print(' '.join(pol.set_of_type(int(t)) for t in sys.argv[1:]))" "$@"
}
{
	roles="HD CD BURN1 BURN2 TAPE CHANGER DBGDISK DBGCD DBGSCAN DBGPROC"
	# (the SATA disk of the report's health section, in boots that have it)
	[ -z "${SATA_HCTL:-}" ] || roles="$roles SATA"
	types=$(for role in $roles; do h=${role}_HCTL; cat "/sys/bus/scsi/devices/${!h}/type"; done)
	# shellcheck disable=SC2086 # $types holds a type per line
	read -r -a sets <<<"$(set_of $types)"
	printf '%-8s %-9s %-15s %-4s %-8s %s\n' ROLE H:C:T:L NODES TYPE "CMD SET" "VENDOR MODEL"
	i=0
	for role in $roles; do
		h=${role}_HCTL n=${role}_NODE s=${role}_SG
		d=/sys/bus/scsi/devices/${!h}
		nodes=$(basename "${!s}")
		[ -n "${!n}" ] && nodes="$(basename "${!n}"),$nodes"
		printf '%-8s %-9s %-15s %-4s %-8s %s %s\n' "$role" "${!h}" "$nodes" \
			"$(cat "$d/type")" "${sets[$i]}" \
			"$(xargs <"$d/vendor")" "$(xargs <"$d/model")"
		i=$((i + 1))
	done
} >/tmp/out/devices.txt

if [ "$SGF_KERNEL" = patched ]; then
	SGFILTER=$SGF_BUILD/bin/sgfilter
	D=/sys/bus/scsi/devices/$HD_HCTL/cmd_filter
	T=/sys/kernel/tracing
	# audit first, while no denial has used up the log's rate limit
	dmesg -c >/dev/null
	echo 1 >$T/events/scsi/scsi_cmd_filter_deny/enable
	echo >$T/trace
	before="$(cat "$D/allowed") allowed, $(cat "$D/denied") denied"
	user_probe -m ro "$HD_NODE" 42 00 00 00 00 00 00 00 00 00
	echo 0 >$T/events/scsi/scsi_cmd_filter_deny/enable
	{
		echo "\$ sgprobe -m ro $HD_NODE 42 00 00 00 00 00 00 00 00 00   (as uid 65534: UNMAP, read-only open)"
		echo "$PROBE_OUT"
		echo "kernel log:"
		dmesg | grep 'command filter' | sed 's/^/  /'
		echo "tracepoint scsi:scsi_cmd_filter_deny:"
		grep scsi_cmd_filter_deny $T/trace | sed 's/^ */  /'
		echo "counters $D/{allowed,denied}:"
		echo "  before: $before; after: $(cat "$D/allowed") allowed, $(cat "$D/denied") denied"
	} >/tmp/out/audit.txt
	check audit.log-line.HD "report: the denial left a log line" grep -q 'denied UNMAP (0x42) to sgprobe' /tmp/out/audit.txt
	check audit.tracepoint.HD "report: the denial fired the tracepoint" grep -q 'opcode=0x42' /tmp/out/audit.txt

	run() { echo "\$ $*"; "$@" 2>&1 | sed 's/^/  /'; }
	{
		run "$SGFILTER" show "$CD_NODE"
		echo
		echo "A lab lets its changer's users send vendor command 0xc1:"
		run "$SGFILTER" check "$CHANGER_SG" c1 00 00 00 00 00
		user_probe -m ro "$CHANGER_SG" c1 00 00 00 00 00
		echo "  user's 0xc1 before: ${PROBE_VERDICT:-?}"
		run "$SGFILTER" allow "$CHANGER_SG" 0xc1
		user_probe -m ro "$CHANGER_SG" c1 00 00 00 00 00
		echo "  user's 0xc1 after:  ${PROBE_VERDICT:-?}"
		run "$SGFILTER" show "$CHANGER_SG"
		run "$SGFILTER" reset "$CHANGER_SG"
		user_probe -m ro "$CHANGER_SG" c1 00 00 00 00 00
		echo "  user's 0xc1 after reset: ${PROBE_VERDICT:-?}"
		echo
		echo "A VM host hands the disk to a guest (libvirt sgio='unfiltered'):"
		q=/sys/class/block/$(basename "$HD_NODE")/queue/unpriv_sgio
		echo "\$ echo 1 >$q"
		echo 1 >"$q"
		user_probe -m rw "$HD_NODE" 3b 05 00 00 00 00 00 00 00 00
		echo "  user's WRITE BUFFER on $HD_NODE: ${PROBE_VERDICT:-?}"
		user_probe -m rw "$DBGDISK_NODE" 3b 05 00 00 00 00 00 00 00 00
		echo "  user's WRITE BUFFER on another disk, $DBGDISK_NODE: ${PROBE_VERDICT:-?}"
		echo 0 >"$q"
		echo "\$ echo 0 >$q"
		echo
		run "$SGFILTER" stats "$HD_NODE"
	} >/tmp/out/sgfilter.txt
	check sgfilter.allow.CHANGER "report: sgfilter allow let the changer's user send 0xc1" \
		grep -q "0xc1 after:  reached" /tmp/out/sgfilter.txt
	check sgfilter.reset.CHANGER "report: sgfilter reset denied it again" \
		grep -q "0xc1 after reset: denied" /tmp/out/sgfilter.txt
fi

# decide CASE ROLE NODE-VARIABLE MODE ENTRY NAME CDB...: the result's CASE
# is decision.ROLE.CASE
decide() {
	local id=decision.$2.$1 role=$2 var=${2}_$3 mode=$4 entry=$5 name=$6
	shift 6
	user_probe -e "$entry" -m "$mode" "${!var}" "$@"
	echo "$role|${!var}|$mode|$entry|$name|$*|${PROBE_VERDICT:-none}|${PROBE_OUT#* verdict=}" >>/tmp/out/decisions.txt
	if [ -n "$PROBE_VERDICT" ] && [ "$PROBE_VERDICT" != error ]; then
		ok "$id" "$role ${!var} $mode $entry $name: $PROBE_VERDICT"
	else
		not_ok "$id" "$role ${!var} $mode $entry $name: no verdict" "$PROBE_OUT"
	fi
}

: >/tmp/out/decisions.txt
decide read-10 HD NODE ro sgio "READ(10)" 28 00 00 00 00 00 00 00 01 00
decide unmap HD NODE ro sgio "UNMAP (empty list)" 42 00 00 00 00 00 00 00 00 00
decide maintenance-out HD NODE ro sgio "MAINTENANCE OUT" a4 00 00 00 00 00 00 00 00 00 00 00
decide ata-pass-through-12 HD NODE rw sgio "ATA PASS-THROUGH(12)" a1 00 00 00 00 00 00 00 00 00 00 00
decide remove-element-and-truncate HD NODE ro sgio "REMOVE ELEMENT AND TRUNCATE" 9e 18 00 00 00 00 00 00 00 00 00 00 00 00 00 00
decide opcode-0d HD NODE rw sgio "opcode 0x0d (unassigned)" 0d 00 00 00 00 00
decide write-buffer HD SG rw sgio "WRITE BUFFER (zero length)" 3b 05 00 00 00 00 00 00 00 00
decide blank CD NODE rw sgio "BLANK (MMC)" a1 11 00 00 00 00 00 00 00 00 00 00
decide erase TAPE NODE ro sgio "ERASE (tape)" 19 00 00 00 00 00
decide initialize-element-status CHANGER NODE ro sgio "INITIALIZE ELEMENT STATUS" 07 00 00 00 00 00
decide read-toc CD NODE ro sgio "READ TOC (MMC)" 43 00 00 00 00 00 00 00 0c 00
decide send-opc-information BURN1 NODE rw sgio "SEND OPC INFORMATION (MMC)" 54 00 00 00 00 00 00 00 00 00
decide sanitize DBGDISK SG rw sgrw "SANITIZE via sg write()" 48 00 00 00 00 00 00 00 00 00
decide set-window DBGSCAN SG rw sgio "SET WINDOW (scanner)" 24 00 00 00 00 00 00 00 00 00
decide vendor-c1 DBGSCAN SG rw sgio "vendor command 0xc1" c1 00 00 00 00 00 00 00 00 00
# the same read-write sg opens with the opt-in hardening (patched only)
sg_filter_all Y
decide write-buffer.filter-all HD SG rw sgio "WRITE BUFFER, sg.filter_all=Y" 3b 05 00 00 00 00 00 00 00 00
decide sanitize.filter-all DBGDISK SG rw sgrw "SANITIZE via sg write(), sg.filter_all=Y" 48 00 00 00 00 00 00 00 00 00
decide set-window.filter-all DBGSCAN SG rw sgio "SET WINDOW (scanner), sg.filter_all=Y" 24 00 00 00 00 00 00 00 00 00
decide vendor-c1.filter-all DBGSCAN SG rw sgio "vendor command 0xc1, sg.filter_all=Y" c1 00 00 00 00 00 00 00 00 00
sg_filter_all N
finish_suite
