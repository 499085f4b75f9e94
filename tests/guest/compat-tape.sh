#!/bin/bash
# Compatibility: tgt's SSC tape drive as a member of group "tape" (what udev
# gives a tape's st, nst and sg nodes), on both kernels. Through st: mt-st
# and tar, several archives with filemarks and positioning between them
# (st does not use the command filter; the baseline). Through the drive's
# /dev/sg*, read-write: mtx's tapeinfo and scsitape, sg3_utils, and every
# SSC positioning, attribute, reservation and encryption-status command an
# LTFS or mt user sends (sg_raw). The host compares the outcomes with stock
# 6.1's (tests/host/compat-compare).
. "$(dirname "$0")/lib.sh"
COMPAT_GROUP=tape
sg=$VTAPE_SG nst=$VTAPE_NST chg=$VCHANGER_SG

# The suite's own cartridge, SGF004L4, loaded by root if the drive is empty.
if mtx -f "$chg" status 2>/dev/null | grep -q '^Data Transfer Element 0:Empty'; then
	mtx -f "$chg" load 4 0 >/dev/null 2>&1 || true
fi
src=/tmp/tapesrc
for i in 1 2 3; do
	mkdir -p "$src/d$i"
	head -c $((20000 * i)) /dev/urandom >"$src/d$i/data$i.bin"
	echo "archive $i" >"$src/d$i/README"
done
chmod -R a+rX "$src"
# extract ID ARCHIVE: tar reads the archive at the tape's position into a
# fresh folder, which must equal $src/dARCHIVE. (tar stops at its end-of-
# archive blocks, short of the filemark: every read starts from a position
# the test sets.)
extract() {
	local dir=/tmp/home/x$1
	rm -rf "$dir"
	works "$1" "tar reads archive $2 back from $nst" sh -c "mkdir -p $dir && tar -xf $nst -C $dir"
	if diff -r "$src/d$2" "$dir" >/dev/null 2>&1; then
		ok "$1.same" "archive $2 read back byte for byte"
	else
		not_ok "$1.same" "archive $2 read back differs" "$(diff -r "$src/d$2" "$dir" 2>&1 | head -3)"
	fi
}

trace_reset
# ---- through st: mt-st and tar
works mt-status "mt status on $nst" mt -f "$nst" status
works mt-rewind "mt rewind" mt -f "$nst" rewind
works mt-setblk "mt setblk 0 (variable block size)" mt -f "$nst" setblk 0
for i in 1 2 3; do
	works "tar-write-$i" "tar writes archive $i to $nst (a filemark after each)" \
		tar -cf "$nst" -C "$src/d$i" .
done
works mt-rewind-2 "mt rewind after writing" mt -f "$nst" rewind
extract x-first 1
works mt-fsf "mt rewind, fsf 2: the start of archive 3" sh -c "mt -f $nst rewind && mt -f $nst fsf 2"
extract x-fsf 3
works mt-bsf "mt fsf 3 (to the end), bsf 3, fsf 1: the start of archive 2" \
	sh -c "mt -f $nst rewind && mt -f $nst fsf 3 && mt -f $nst bsf 3 && mt -f $nst fsf 1"
extract x-bsf 2
works mt-eod "mt eod" mt -f "$nst" eod
works mt-status-eod "mt status at the end of data" mt -f "$nst" status

# ---- through the drive's sg node, read-write. st's idea of the position
# goes stale when sg moves the tape, so what sg positioned is read through
# sg too: one 10240-byte record (tar's), which must be the first record of
# the archive expected there.
# sg_record ID ARCHIVE
sg_record() {
	local want=/tmp/home/rec-want-$2 got=/tmp/home/rec-$1
	# (not through a pipe: head would close it under tar, whose
	# "Broken pipe" then reads like a failure in the suite's stderr)
	tar -cf "$want.tar" -C "$src/d$2" . && head -c 10240 "$want.tar" >"$want"
	works "$1" "READ(6) through $sg reads the record there (archive $2's first)" \
		sg_raw -r 10240 -o "$got" "$sg" 08 00 00 28 00 00
	if cmp -s "$want" "$got"; then
		ok "$1.first" "the record read through $sg is the first of archive $2"
	else
		not_ok "$1.first" "the record read through $sg is not the first of archive $2" "$(cmp "$want" "$got" 2>&1)"
	fi
}
works tapeinfo "tapeinfo (mtx) reports the drive" tapeinfo -f "$sg"
works scsitape-rewind "scsitape rewind (REWIND)" scsitape -f "$sg" rewind
sg_record rec-rewind 1
works scsitape-fsf "scsitape rewind, fsf 2 (SPACE(6) over filemarks)" \
	sh -c "scsitape -f $sg rewind && scsitape -f $sg fsf 2"
sg_record rec-fsf 3
works scsitape-bsf "scsitape bsf 2, fsf 1 (SPACE(6) backwards and forwards)" \
	sh -c "scsitape -f $sg bsf 2 && scsitape -f $sg fsf 1"
sg_record rec-bsf 2
works scsitape-eod "scsitape eod (SPACE(6) to end of data)" scsitape -f "$sg" eod
works scsitape-setblk "scsitape setblk 0 (MODE SELECT)" scsitape -f "$sg" setblk 0
works sg-inq "sg_inq" sg_inq "$sg"
works sg-turs "sg_turs" sg_turs "$sg"
reaches sg-modes "sg_modes (MODE SENSE)" sg_modes "$sg"
reaches sg-logs "sg_logs (LOG SENSE)" sg_logs "$sg"
reaches sg-read-attr "sg_read_attr (READ ATTRIBUTE: cartridge memory)" sg_read_attr "$sg"
reaches sg-persist-in "sg_persist --in --read-keys (PERSISTENT RESERVE IN)" \
	sg_persist --in --read-keys "$sg"
reaches sg-persist-out "sg_persist --out --register (PERSISTENT RESERVE OUT, as LTFS registers its key)" \
	sg_persist --out --register --param-sark=0x5347460000000001 "$sg"
raw() { reaches "$1" "$2" sg_raw "${@:3}"; }
raw raw-rewind "REWIND" "$sg" 01 00 00 00 00 00
raw raw-space6 "SPACE(6) one filemark" "$sg" 11 01 00 00 01 00
raw raw-space16 "SPACE(16) one filemark" "$sg" 91 01 00 00 00 00 00 00 00 00 00 01 00 00 00 00
raw raw-locate10 "LOCATE(10) block 0" "$sg" 2b 00 00 00 00 00 00 00 00 00
raw raw-locate16 "LOCATE(16) block 0" "$sg" 92 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
raw raw-read-position "READ POSITION" -r 20 "$sg" 34 00 00 00 00 00 00 00 00 00
raw raw-block-limits "READ BLOCK LIMITS" -r 6 "$sg" 05 00 00 00 00 00
raw raw-density "REPORT DENSITY SUPPORT" -r 256 "$sg" 44 00 00 00 00 00 00 01 00 00
raw raw-read-attribute "READ ATTRIBUTE" -r 512 "$sg" 8c 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00
printf '\0\0\0\0' >/tmp/home/attr-empty
raw raw-write-attribute "WRITE ATTRIBUTE (empty list)" -s 4 -i /tmp/home/attr-empty \
	"$sg" 8d 01 00 00 00 00 00 00 00 00 00 00 00 04 00 00
raw raw-read16 "READ(16) of nothing" -r 512 "$sg" 88 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
raw raw-verify16 "VERIFY(16) of nothing" "$sg" 8f 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
raw raw-weof16 "WRITE FILEMARKS(16) of none (flush)" "$sg" 80 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
raw raw-weof6 "WRITE FILEMARKS(6) of none (flush)" "$sg" 10 00 00 00 00 00
raw raw-spin "SECURITY PROTOCOL IN, supported protocols" -r 256 "$sg" a2 00 00 00 00 00 00 00 01 00 00 00
raw raw-spin-tde "SECURITY PROTOCOL IN, tape data encryption status" -r 256 "$sg" a2 20 00 20 00 00 00 00 01 00 00 00
raw raw-rrao "RECEIVE RECOMMENDED ACCESS ORDER (MAINTENANCE IN 0x1d)" -r 1024 "$sg" a3 1d 00 00 00 00 00 00 04 00 00 00
raw raw-grao "GENERATE RECOMMENDED ACCESS ORDER (MAINTENANCE OUT 0x1d), empty list" "$sg" a4 1d 02 00 00 00 00 00 00 00 00 00
raw raw-allow-overwrite "ALLOW OVERWRITE (current position)" "$sg" 82 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
raw raw-load "LOAD UNLOAD (load)" "$sg" 1b 00 00 00 01 00
# stenc's status report (SECURITY PROTOCOL IN, protocol 0x20); tgt's drive
# has no encryption, so stenc ends the same way on both kernels.
compat_run stenc -f "$sg" --detail
compat_record stenc-detail "stenc -f $sg --detail"
refused raw-spout "SECURITY PROTOCOL OUT (tape data encryption keys, stenc)" "$sg" \
	"security protocol out" sg_raw "$sg" b5 20 00 10 00 00 00 00 00 00 00 00
commands_check VTAPE ssc
finish_suite
