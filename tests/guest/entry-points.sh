#!/bin/bash
# sgprobe through every entry point on every fixture, as the unprivileged
# user. Only facts that hold on stock 6.1 and on the filter alike, one table
# row per (kind of node, entry point, open mode, command):
#   INQUIRY reaches the device; WRITE BUFFER (download microcode, here with
#   a zero length) is denied wherever a filter or a driver rule applies.
# Driver rules seen on stock 6.1 and kept: st refuses every raw-command
# ioctl without CAP_SYS_RAWIO; sg refuses ioctls it does not know (such as
# CDROM_SEND_PACKET) on a read-only open; sg's write()/read() interface
# needs a writable open (stock 6.1 then filters nothing, so it is only
# checked with INQUIRY here).
. "$(dirname "$0")/lib.sh"

declare -A CDB=(
	[INQUIRY]="12 00 00 00 24 00"
	[WRITE_BUFFER]="3b 05 00 00 00 00 00 00 00 00"
)

# kind entry mode command expected
ROWS="
block	sgio	ro	INQUIRY		reached
block	sgio	ro	WRITE_BUFFER	denied
block	sic	ro	INQUIRY		reached
block	sic	ro	WRITE_BUFFER	denied
block	packet	ro	INQUIRY		reached
block	packet	ro	WRITE_BUFFER	denied
st	sgio	ro	INQUIRY		denied
st	sic	ro	INQUIRY		denied
st	packet	ro	INQUIRY		denied
ch	sgio	ro	INQUIRY		reached
ch	sgio	ro	WRITE_BUFFER	denied
ch	sic	ro	INQUIRY		reached
ch	packet	ro	WRITE_BUFFER	denied
sg	sgio	ro	INQUIRY		reached
sg	sgio	ro	WRITE_BUFFER	denied
sg	sgrw	rw	INQUIRY		reached
sg	sic	ro	INQUIRY		reached
sg	sic	ro	WRITE_BUFFER	denied
sg	packet	ro	INQUIRY		denied
sg	packet	rw	INQUIRY		reached
sg	packet	rw	WRITE_BUFFER	denied
bsg	bsg	ro	INQUIRY		reached
bsg	bsg	ro	WRITE_BUFFER	denied
"
# io_uring on bsg nodes, where the kernel has it: the filter as on bsg's SG_IO
has_uring_bsg && ROWS+="
bsg	uring	ro	INQUIRY		reached
bsg	uring	ro	WRITE_BUFFER	denied
"

kind_of() {
	case "$1" in
	/dev/bsg/*) echo bsg ;;
	/dev/sg*) echo sg ;;
	/dev/st* | /dev/nst*) echo st ;;
	/dev/sch*) echo ch ;;
	*) echo block ;;
	esac
}

# One "EXPECTED|CASE|DESCRIPTION|ARGS" line per row that fits each fixture's
# nodes; CASE is ROLE.KIND.ENTRY.MODE.COMMAND (kebab-case command).
specs() {
	local role v var dev kind k entry mode cmd want in c
	for role in HD CD BURN1 TAPE CHANGER DBGDISK; do
		for v in NODE SG BSG; do
			var=${role}_$v
			dev=${!var}
			kind=$(kind_of "$dev")
			while read -r k entry mode cmd want; do
				[ "$k" = "$kind" ] || continue
				in=
				[ "$cmd" = INQUIRY ] && in="-i 36"
				c=${cmd,,}
				echo "$want|$role.$kind.$entry.$mode.${c//_/-}|$role $dev $entry $mode $cmd|-e $entry -m $mode $in $dev ${CDB[$cmd]}"
			done <<<"$ROWS"
		done
	done
}

probe_all < <(specs)
finish_suite
