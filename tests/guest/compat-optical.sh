#!/bin/bash
# Compatibility: CD/DVD software through the drives' /dev/sg* nodes, read-
# write, as well as their sr nodes, as a member of group "cdrom" (what udev
# gives an optical drive's sr and sg nodes), on both kernels: cdrskin burns
# the third tgt DVD+R through its sg node (read back byte for byte), wodim,
# dvd+rw-mediainfo, cdparanoia, cd-info and eject, and the vendor audio-read
# commands cdparanoia sends. Those vendor commands, and one command
# outside a device's command set, are listed refusals (the policy says
# why). The host compares the outcomes with stock's
# (tests/host/compat-compare).
. "$(dirname "$0")/lib.sh"
COMPAT_GROUP=cdrom

iso=$SGF_RUN/burn.iso
size=$(stat -c %s "$iso")

trace_reset
works wodim-checkdrive "wodim -checkdrive dev=$BURN3_SG" wodim -checkdrive dev="$BURN3_SG"
AS_USER_WRAP="prlimit --memlock=unlimited --" \
	works wodim-prcap "wodim -prcap dev=$BURN3_SG" wodim -prcap dev="$BURN3_SG"
works mediainfo-blank "dvd+rw-mediainfo on the blank disc ($BURN3_NODE)" dvd+rw-mediainfo "$BURN3_NODE"
works cdrskin-burn-sg "cdrskin -tao burns the ISO through $BURN3_SG" \
	cdrskin -v dev="$BURN3_SG" -tao "$iso"
works readback-sg "sg_dd reads the burned disc back through $BURN3_SG" \
	sh -c "sg_dd if=$BURN3_SG bs=2048 count=$((size / 2048)) of=/tmp/home/burn3.back 2>/dev/null"
if cmp -s -n "$size" "$iso" /tmp/home/burn3.back; then
	ok readback-sg.same "the disc burned through $BURN3_SG equals the ISO"
else
	not_ok readback-sg.same "the disc burned through $BURN3_SG differs from the ISO" "$(cmp -n "$size" "$iso" /tmp/home/burn3.back 2>&1)"
fi
works xorriso-toc-sg "xorriso -toc through $BURN3_SG" xorriso -outdev "$BURN3_SG" -toc

works cd-info "cd-info reads the CD's table of contents ($CD_NODE)" cd-info --no-cddb "$CD_NODE"
works mediainfo-burned "dvd+rw-mediainfo on the disc burned through sg ($BURN3_NODE)" \
	dvd+rw-mediainfo "$BURN3_NODE"
# The fixture is a data CD: cdparanoia probes the drive, finds no audio
# track and exits 1, on both kernels.
compat_run cdparanoia -v -Q -d "$CD_NODE"
compat_record cdparanoia-q "cdparanoia -v -Q -d $CD_NODE (a data CD: no audio tracks)"
if echo "$COMPAT_OUT" | grep -q 'Drive is MMC style' &&
   echo "$COMPAT_OUT" | grep -q 'Could not find any audio tracks'; then
	ok cdparanoia-q "cdparanoia -Q probes $CD_NODE (MMC drive) and reads its table of contents (no audio tracks)"
else
	not_ok cdparanoia-q "cdparanoia -Q did not get through its probe (exit $COMPAT_RC)" "$(echo "$COMPAT_OUT" | tail -4)"
fi
# Through the sg node cdparanoia uses sg's old sg_header write(): its
# INQUIRY fails there on stock 6.1 as well; compat-compare holds the outcome.
compat_run cdparanoia -v -Q -g "$CD_SG"
compat_record cdparanoia-g "cdparanoia -v -Q -g $CD_SG (sg's old interface)"
works eject-s "eject -s opens the tray by SCSI commands (SG_IO on $CD_NODE)" eject -s "$CD_NODE"
works eject-t "eject -t closes it again ($CD_NODE)" eject -t "$CD_NODE"

# cdparanoia's vendor READ CDDA commands (interface/scsi_interface.c:
# 0xd4 NEC, 0xd5 and 0xd8 Sony/Plextor, 0xe5 the IMS CDD 522's READ TOC),
# which it sends to a drive that is not MMC or fails READ CD, through the
# read-write sg open it uses. QEMU's drive answers ILLEGAL REQUEST, as a
# drive of another vendor would. Vendor opcodes stay privileged in the mmc
# policy, as on 6.1: unfiltered by default, listed refusals with
# sg.filter_all, given back for one drive by "sgfilter allow".
raw() { refused "$1" "$2" "$CD_SG" "$3" sg_raw "${@:4}"; }
raw raw-d4 "0xd4 READ CDDA (NEC, 10 bytes)" 0xd4 -r 2352 "$CD_SG" d4 00 00 00 00 00 00 00 01 00
raw raw-d4-12 "0xd4 READ CDDA (NEC, 12 bytes)" 0xd4 -r 2352 "$CD_SG" d4 00 00 00 00 00 00 00 00 01 00 00
raw raw-d5 "0xd5 READ CDDA (Sony, 10 bytes)" 0xd5 -r 2352 "$CD_SG" d5 00 00 00 00 00 00 00 01 00
raw raw-d8 "0xd8 READ CDDA (Sony/Plextor, 12 bytes)" 0xd8 -r 2352 "$CD_SG" d8 00 00 00 00 00 00 00 00 01 00 00
raw raw-e5 "0xe5 READ TOC (IMS CDD 522)" 0xe5 -r 256 "$CD_SG" e5 00 00 00 00 01 00 00 ff 00

# SBC's READ CAPACITY(16), which QEMU's drive answers (so must the policy).
works readcap16-cd "sg_readcap -l on the CD (READ CAPACITY(16))" sg_readcap -l "$CD_SG"
# A command no disk has: stock 6.1 passes MMC's GET CONFIGURATION to the
# disk, which rejects it (ILLEGAL REQUEST, exit 5); the filter refuses it
# first (EPERM, exit 51). Listed in the policy and the documentation.
# The user is in group disk as well: udev gives a disk's sg node to disk.
COMPAT_GROUP=cdrom,disk refused get-config-disk "sg_get_config on a disk (GET CONFIGURATION is MMC, not SBC)" \
	"$HD_SG" 0x46 sg_get_config "$HD_SG"
commands_check BURN3 mmc
commands_check CD mmc
finish_suite
