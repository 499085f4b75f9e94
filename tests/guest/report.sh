#!/bin/bash
# Material for the main job's report (./run report): the devices the guest
# sees, and what the kernel decides for a few telling commands sent by the
# unprivileged user. Writes /tmp/out/devices.txt and /tmp/out/decisions.txt;
# every probe must give a verdict (reached or denied), which is the test.
. "$(dirname "$0")/lib.sh"

# The command set the policy gives each peripheral type.
set_of() {
	python3 -c "import sys; sys.path.insert(0, '$SGF_TOP/tests/guest'); import sgfpolicy
_, pol = sgfpolicy.load()
print(' '.join(pol.set_of_type(int(t)) for t in sys.argv[1:]))" "$@"
}
{
	roles="HD CD BURN1 BURN2 TAPE CHANGER DBGDISK DBGCD DBGSCAN DBGPROC"
	types=$(for role in $roles; do h=${role}_HCTL; cat "/sys/bus/scsi/devices/${!h}/type"; done)
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

# role node-variable mode entry name cdb...
decide() {
	local role=$1 var=${1}_$2 mode=$3 entry=$4 name=$5
	shift 5
	user_probe -e "$entry" -m "$mode" "${!var}" "$@"
	echo "$role|${!var}|$mode|$entry|$name|$*|${PROBE_VERDICT:-none}|${PROBE_OUT#* verdict=}" >>/tmp/out/decisions.txt
	if [ -n "$PROBE_VERDICT" ] && [ "$PROBE_VERDICT" != error ]; then
		ok "$role ${!var} $mode $entry $name: $PROBE_VERDICT"
	else
		not_ok "$role ${!var} $mode $entry $name: no verdict" "$PROBE_OUT"
	fi
}

: >/tmp/out/decisions.txt
decide HD NODE ro sgio "READ(10)" 28 00 00 00 00 00 00 00 01 00
decide HD NODE ro sgio "UNMAP (empty list)" 42 00 00 00 00 00 00 00 00 00
decide HD NODE ro sgio "MAINTENANCE OUT" a4 00 00 00 00 00 00 00 00 00 00 00
decide HD NODE rw sgio "ATA PASS-THROUGH(12)" a1 00 00 00 00 00 00 00 00 00 00 00
decide HD NODE rw sgio "SECURITY PROTOCOL IN" a2 00 00 00 00 00 00 00 00 00 00 00
decide HD NODE rw sgio "opcode 0x0d (unassigned)" 0d 00 00 00 00 00
decide HD SG rw sgio "WRITE BUFFER (zero length)" 3b 05 00 00 00 00 00 00 00 00
decide CD NODE rw sgio "BLANK (MMC)" a1 11 00 00 00 00 00 00 00 00 00 00
decide TAPE NODE ro sgio "ERASE (tape)" 19 00 00 00 00 00
decide CHANGER NODE ro sgio "INITIALIZE ELEMENT STATUS" 07 00 00 00 00 00
decide CD NODE ro sgio "READ TOC (MMC)" 43 00 00 00 00 00 00 00 0c 00
decide BURN1 NODE rw sgio "SEND OPC INFORMATION (MMC)" 54 00 00 00 00 00 00 00 00 00
decide DBGDISK SG rw sgrw "FORMAT UNIT via sg write()" 04 00 00 00 00 00
decide DBGSCAN SG rw sgio "SET WINDOW (scanner)" 24 00 00 00 00 00 00 00 00 00
decide DBGSCAN SG rw sgio "vendor command 0xc1" c1 00 00 00 00 00 00 00 00 00
finish_suite
