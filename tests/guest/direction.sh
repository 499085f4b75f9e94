#!/bin/bash
# The data direction: no device may write into memory its caller can only
# read. As uid 65534, with a read-only open of each device, data-in
# commands are sent "to the device" (SG_DXFER_TO_DEV, bsg's dout buffer
# through SG_IO and io_uring, CDROM_SEND_PACKET's CGC_DATA_WRITE) with a
# read-only shared mapping of a
# root-owned 0644 file as the buffer (sgprobe -M), through every entry
# point that maps a user buffer, on every device class of the boot (rig/boot
# attaches the direction fixtures). A case passes on the patched kernel
# when the file's bytes are unchanged afterwards. On stock each case says
# whether the device's data landed in the file; the cases of STOCK_EXPOSED
# (measured) must land there, so that the suite can fail, and the summary
# line lists every case that did.
. "$(dirname "$0")/lib.sh"

# Cases stock exposes, by version (device.entry.command), as measured
# with these fixtures (docs/direction.md): each must change the file on
# stock, so that a case can fail; a case not listed may go either way
# every version: ATAPI packets (libata takes their direction from the
# request) and megaraid_sas
EXPOSED_BOTH="
	atapi.sgio-block.read10 atapi.sgio-sg-dio.read10 atapi.bsg.read10
	atapi.packet.read10 atapi.sgio-block.read-cd
	atapi.sgio-sg-dio.read-cd atapi.bsg.read-cd atapi.packet.read-cd
	mega.sgio-block.inquiry mega.sgio-sg-dio.inquiry mega.bsg.inquiry
	mega.packet.inquiry mega.sgio-block.mode-sense10
	mega.sgio-sg-dio.mode-sense10 mega.bsg.mode-sense10
	mega.packet.mode-sense10 mega.sgio-block.report-luns
	mega.sgio-sg-dio.report-luns mega.bsg.report-luns
	mega.packet.report-luns mega.sgio-block.read10
	mega.sgio-sg-dio.read10 mega.bsg.read10 mega.sgio-block.read16
	mega.sgio-sg-dio.read16 mega.bsg.read16"
# 6.1 and 7.2 also: the SATA disk, where libata does not refuse a
# data-out request it would write into (6.12's ata_scsi_translate() does)
EXPOSED_SATA="
	sata.sgio-block.inquiry sata.sgio-sg-dio.inquiry sata.bsg.inquiry
	sata.packet.inquiry sata.sgio-block.mode-sense10
	sata.sgio-sg-dio.mode-sense10 sata.bsg.mode-sense10
	sata.packet.mode-sense10 sata.sgio-block.report-luns
	sata.sgio-sg-dio.report-luns sata.bsg.report-luns
	sata.packet.report-luns sata.sgio-block.read10
	sata.sgio-sg-dio.read10 sata.bsg.read10 sata.packet.read10
	sata.sgio-block.read16 sata.sgio-sg-dio.read16 sata.bsg.read16"
# 7.2 also: io_uring commands on bsg nodes, wherever bsg's SG_IO shows it
EXPOSED_URING="
	sata.uring.inquiry sata.uring.mode-sense10 sata.uring.report-luns
	sata.uring.read10 sata.uring.read16 atapi.uring.read10
	atapi.uring.read-cd mega.uring.inquiry mega.uring.mode-sense10
	mega.uring.report-luns mega.uring.read10 mega.uring.read16"
declare -A STOCK_EXPOSED=(
	[6.1]="$EXPOSED_BOTH $EXPOSED_SATA"
	[6.12]="$EXPOSED_BOTH"
	[7.2]="$EXPOSED_BOTH $EXPOSED_SATA $EXPOSED_URING"
)

# the list of this version, one blank between cases and around it
LISTED=" $(tr -s ' \t\n' ' ' <<<"${STOCK_EXPOSED[$SGF_KVER]:-}") "
victim=/tmp/direction-victim
orig=/tmp/direction-orig
LEN=4096
# the victim: 4 pages a user may read and not write (root's, 0644, on the
# guest's tmpfs, where the page cache is the file)
head -c $((4 * LEN)) < <(yes 'root-owned file, unchanged ') >$orig
chmod 0600 $orig
cp $orig $victim
chmod 0644 $victim
if ! as_user test -r $victim || as_user test -w $victim; then
	not_ok setup "the user cannot read $victim, or can write it"
fi

# role -> "H:C:T:L" of the device whose "vendor model" matches GLOB, of TYPE
hctl_of() {
	local d
	for d in /sys/bus/scsi/devices/*:*:*:*; do
		[ "$(cat "$d/type" 2>/dev/null)" = "$2" ] || continue
		# shellcheck disable=SC2254 # $1 is a glob pattern
		case "$(cat "$d/vendor") $(cat "$d/model")" in
		$1) basename "$d"; return 0 ;;
		esac
	done
	return 1
}

# The devices: role, how it is found, the host adapter's driver, and the
# block size of READ(10)'s blocks.
ROLES=(
	"sata|ATA *|0|ahci (libata)|512"
	"atapi|* DVD-ROM*|5|ahci (libata, ATAPI)|2048"
	"virtio|QEMU *HARDDISK*|0|virtio_scsi|512"
	"lsi|* SGFDIR-LSI*|0|sym53c8xx|512"
	"mega|* SGFDIR-MEGA*|0|megaraid_sas|512"
	"mpt|* SGFDIR-MPT*|0|mptsas|512"
	"usb|* SGFDIR-USB*|0|usb-storage|512"
	"uas|* SGFDIR-UAS*|0|uas|512"
	"dbg|Linux *scsi_debug*|0|scsi_debug|512"
	"dbgtape|Linux *scsi_debug*|1|scsi_debug (st)|0"
	"dbgchanger|Linux *scsi_debug*|8|scsi_debug (ch)|0"
)

allow_dio_boot=$(cat /proc/scsi/sg/allow_dio)
exposed=''
changed_ids=''

# The cases are queued, then sent by one sgprobe -b each batch (a
# process per case costs more than the probe under TCG): each case maps a
# victim of its own, a copy of the original in $vdir, so that one case's
# bytes cannot hide in another's. Batch 1 holds the direct I/O cases,
# sent with sg's allow_dio set; batch 0 the rest, with the boot's value.
# Each line is tagged with its case's number, which its result repeats.
vdir=/tmp/direction-victims
rm -rf $vdir
mkdir -m 0755 $vdir
if as_user test -w $vdir; then
	not_ok setup "the user can write $vdir, where the victims are"
fi
case_ids=() case_descs=()
: >/tmp/direction-batch-0
: >/tmp/direction-batch-1

# dir_case CASE-ID (device.entry.command) DESCRIPTION SGPROBE-ARG...: queue
# one case; the argument $victim names the case's own victim
dir_case() {
	local id=$1 desc=$2 b=0 a args=()
	shift 2
	for a in "$@"; do
		[ "$a" = -D ] && b=1
		[ "$a" = $victim ] && a=$vdir/$id
		args+=("$a")
	done
	cp $orig "$vdir/$id"
	chmod 0644 "$vdir/$id"
	echo "@${#case_ids[@]} ${args[*]}" >>/tmp/direction-batch-$b
	case_ids+=("$id") case_descs+=("$desc")
}

# judge_case I OUT: the verdict of queued case I, whose probe printed OUT
judge_case() {
	local id=${case_ids[$1]} desc=${case_descs[$1]} out=$2 state want
	if cmp -s "$vdir/$id" $orig; then
		state=unchanged
	else
		state=changed
		changed_ids+=" $id"
	fi
	# (stock: a case not listed may go either way, and says which)
	want=unchanged
	if [ "$SGF_KERNEL" = stock ]; then
		want=$state
		case "$LISTED" in *" $id "*) want=changed exposed+=" $id" ;; esac
	fi
	# (a probe that never sent its command, for a usage error or a node
	# or file it could not open or map, leaves the file as it was too:
	# that proves nothing)
	if ! grep -q '^sgprobe entry=.* verdict=' <<<"$out" || grep -q ' call=' <<<"$out"; then
		not_ok "$id" "$desc: sgprobe did not send the command" "${out:-(no output line)}"
	elif [ $state = "$want" ]; then
		ok "$id" "$desc: file $state (verdict=${out#*verdict=})"
	else
		not_ok "$id" "$desc: the root-owned file is $state, expected $want on $SGF_KERNEL" "$out"
	fi
}

for spec in "${ROLES[@]}"; do
	IFS='|' read -r role glob type hba bs <<<"$spec"
	if ! hctl=$(hctl_of "$glob" "$type"); then
		# Linux's mptsas attaches QEMU's SAS1068 but its discovery finds
		# no end device behind it (the disk QEMU puts on the bus): that
		# fixture cannot be had here, and says so
		# (its host, by the driver's name in sysfs: the boot's kernel
		# log may have rolled over by now)
		if [ "$role" = mpt ] && grep -qx mptsas /sys/class/scsi_host/host*/proc_name 2>/dev/null; then
			ok "$role.present" "SKIP $hba: the host adapter attached, its SAS discovery brought no disk (QEMU's mptsas1068)"
			continue
		fi
		not_ok "$role.present" "no device of $hba in this boot ($glob, type $type)" \
			"$(dmesg | grep -iE "${hba%% *}|scsi host" | tail -3)"
		continue
	fi
	d=/sys/bus/scsi/devices/$hctl
	node=''
	[ -d "$d/block" ] && node=/dev/$(ls "$d/block")
	# shellcheck disable=SC2010 # sysfs names: st0, nst0a, ...
	[ -d "$d/scsi_tape" ] && node=/dev/$(ls "$d/scsi_tape" | grep -m1 '^st[0-9]*$')
	[ -d "$d/scsi_changer" ] && node=/dev/$(ls "$d/scsi_changer")
	sg=/dev/$(ls "$d/scsi_generic")
	bsg=/dev/bsg/$hctl
	chmod 0666 "$node" "$sg" "$bsg" 2>/dev/null
	ok "$role.present" "$hba: $hctl, $node, $sg"

	# the data-in commands, LEN bytes each
	cmds=("inquiry|INQUIRY|12 00 00 10 00 00"
		"mode-sense10|MODE SENSE(10)|5a 00 3f 00 00 00 00 10 00 00"
		"report-luns|REPORT LUNS|a0 00 00 00 00 00 00 00 10 00 00 00")
	if [ "$bs" != 0 ]; then
		n=$(printf %02x $((LEN / bs)))
		cmds+=("read10|READ(10)|28 00 00 00 00 00 00 00 $n 00"
			"read16|READ(16)|88 00 00 00 00 00 00 00 00 00 00 00 00 $n 00 00")
	fi
	[ "$role" = atapi ] && cmds+=("read-cd|READ CD|be 00 00 00 00 00 00 00 02 10 00 00")
	# ATA PASS-THROUGH(16) IDENTIFY DEVICE, PIO data-in, one 512-byte block:
	# what the disk health policy lets any open of a disk send
	[ "$role" = sata ] && cmds+=("ata16-identify|ATA PASS-THROUGH(16) IDENTIFY|85 08 0e 00 00 00 01 00 00 00 00 00 00 00 ec 00")

	for c in "${cmds[@]}"; do
		IFS='|' read -r cid cname cdb <<<"$c"
		len=$LEN
		[ "$cid" = ata16-identify ] && len=512
		# shellcheck disable=SC2086 # the CDB's bytes are words
		{
			dir_case "$role.sgio-block.$cid" "$role $node read-only, SG_IO $cname to-device into a read-only mapping" \
				-m ro -M $victim -o $len "$node" $cdb
			dir_case "$role.sgio-sg.$cid" "$role $sg read-only, SG_IO $cname to-device into a read-only mapping" \
				-m ro -M $victim -o $len "$sg" $cdb
			dir_case "$role.sgio-sg-dio.$cid" "$role $sg read-only, allow_dio, SG_IO direct I/O $cname to-device into a read-only mapping" \
				-m ro -D -M $victim -o $len "$sg" $cdb
			dir_case "$role.sgrw.$cid" "$role $sg read-write, write() $cname to-device from a read-only mapping" \
				-e sgrw -m rw -M $victim -o $len "$sg" $cdb
			dir_case "$role.bsg.$cid" "$role $bsg read-only, bsg $cname with the mapping as dout buffer" \
				-e bsg -m ro -M $victim -o $len "$bsg" $cdb
			! has_uring_bsg ||
				dir_case "$role.uring.$cid" "$role $bsg read-only, io_uring $cname with the mapping as dout buffer" \
					-e uring -m ro -M $victim -o $len "$bsg" $cdb
			if [ ${#cdb} -le 35 ]; then
				dir_case "$role.packet.$cid" "$role $node read-only, CDROM_SEND_PACKET $cname CGC_DATA_WRITE into a read-only mapping" \
					-e packet -m ro -M $victim -o $len "$node" $cdb
			fi
		}
	done
	# The reverse: a data-out command given a data-in buffer that is a
	# read-only mapping (MODE SELECT(10) of a 16-byte list, writable open)
	# shellcheck disable=SC2086
	dir_case "$role.reverse.mode-select10" "$role $node writable, SG_IO MODE SELECT(10) from-device into a read-only mapping" \
		-m rw -M $victim -i 16 "$node" 55 10 00 00 00 00 00 00 10 00
done

# the two batches, as the user; one result line a case, in order
for b in 0 1; do
	if [ "$b" = 1 ]; then echo 1; else echo "$allow_dio_boot"; fi >/proc/scsi/sg/allow_dio
	as_user "$PROBE" -b </tmp/direction-batch-$b >/tmp/direction-out-$b 2>/tmp/direction-err-$b ||
		not_ok batch-$b "sgprobe -b exited with status $? on batch $b" "$(head -3 /tmp/direction-err-$b)"
done
echo "$allow_dio_boot" >/proc/scsi/sg/allow_dio
# each result line by its tag (a case without one fails as unsent)
declare -A result=()
while read -r tag line; do
	result[$tag]=$line
done < <(cat /tmp/direction-out-0 /tmp/direction-out-1)
for i in "${!case_ids[@]}"; do
	judge_case "$i" "${result[@$i]:-}"
done

if [ "$SGF_KERNEL" = stock ]; then
	echo "# stock $SGF_KVER: the device's data landed in the root-owned file in:${changed_ids:- no case}"
	n=$(wc -w <<<"$LISTED")
	m=$(wc -w <<<"$exposed")
	check stock-exposed "stock $SGF_KVER shows the hole in each of its $n listed cases (tried: $m)" \
		test "$n" -gt 0 -a "$n" = "$m"
fi
finish_suite
