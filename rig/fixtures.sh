# shellcheck shell=bash
# Fixtures for one boot: a scratch disk, a CD image, the ISO to burn, the
# tgt DVD+R burners (three blank discs) and tgt's virtual tape library (an
# SSC tape drive and an SMC changer with four barcoded cartridges), served
# by a private tgtd on a free loopback port. tgt_stop shuts that tgtd down
# properly (it ignores SIGTERM).

SGF_TGT_IQN=iqn.2026-12.org.sgfilter:burners
SGF_TGT_LIB_IQN=iqn.2026-12.org.sgfilter:library
# The library's cartridges, in storage slots 1-4 (element addresses 3-6).
SGF_TAPES="SGF001L4 SGF002L4 SGF003L4 SGF004L4"

fixtures_make() {
	local run=$1 src=$1/isosrc
	truncate -s 64M "$run/disk.img"
	mkdir -p "$src"
	echo "sgfilter workbench CD fixture" >"$src/README.TXT"
	head -c 1M /dev/urandom >"$src/DATA.BIN"
	genisoimage -quiet -V SGF_CD -J -r -o "$run/cd.iso" "$src"
	# The burn payload: random data so that a misplaced block shows.
	head -c 3M /dev/urandom >"$src/DATA.BIN"
	genisoimage -quiet -V SGF_BURN -J -r -o "$run/burn.iso" "$src"
	rm -rf "$src"
	: >"$run/burn1.img"
	: >"$run/burn2.img"
	: >"$run/burn3.img"
	# tgt's tape library: a file per cartridge (tgtimg), named by its
	# barcode in the changer's media_home, and the changer's own state.
	local b
	mkdir -p "$run/vtl"
	for b in $SGF_TAPES; do
		tgtimg --op new --device-type tape --barcode "$b" --size 8 \
			--type data --file "$run/vtl/$b" >/dev/null
	done
	head -c 1024 /dev/zero >"$run/vtl/smc"
}

tgt_free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		ss -Htln "sport = :$p" | grep -q . || { echo $p; return; }
	done
}

# tgtd's control channel is a unix socket, /var/run/tgtd/socket.N with N
# at most 32767: pick an unused N as well.
tgt_free_ctl() {
	local c
	while :; do
		c=$((1 + RANDOM % 32767))
		[ -e "/var/run/tgtd/socket.$c" ] || { echo $c; return; }
	done
}

tgt_adm() { tgtadm -C "$SGF_TGT_CTL" "$@"; }

tgt_start() {
	local run=$1 try i
	# shellcheck disable=SC2034 # try only counts the attempts
	for try in 1 2 3; do
		SGF_TGT_PORT=$(tgt_free_port)
		SGF_TGT_CTL=$(tgt_free_ctl)
		tgtd -f --iscsi "portal=127.0.0.1:$SGF_TGT_PORT" -C "$SGF_TGT_CTL" \
			>"$run/tgtd.log" 2>&1 &
		SGF_TGT_PID=$!
		for i in $(seq 50); do
			tgt_adm --op show --mode sys >/dev/null 2>&1 && break
			kill -0 $SGF_TGT_PID 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 $SGF_TGT_PID 2>/dev/null &&
		   ss -Htln "sport = :$SGF_TGT_PORT" | grep -q .; then
			break
		fi
		SGF_TGT_PID=
		wait 2>/dev/null || true
	done
	[ -n "$SGF_TGT_PID" ] || die "tgtd did not start (see $run/tgtd.log)"
	tgt_adm --lld iscsi --op new --mode target --tid 1 -T $SGF_TGT_IQN
	for i in 1 2 3; do
		tgt_adm --lld iscsi --op new --mode logicalunit --tid 1 --lun $i \
			--device-type cd -b "$run/burn$i.img"
	done
	tgt_adm --lld iscsi --op bind --mode target --tid 1 -I ALL
	tgt_library "$run"
	say "fixtures: tgtd (pid $SGF_TGT_PID) serves three blank DVD+R and a tape library on 127.0.0.1:$SGF_TGT_PORT"
}

# The virtual tape library of tgt's README.vtl, on target 2: LUN 1 a tape
# drive (empty: its cartridge is offline until the changer loads one), LUN 2
# the changer, with the drive at element address 1, the picker at 2 and the
# cartridges in storage slots 3-6.
tgt_library() {
	local run=$1 vtl=$1/vtl b addr=3
	tgt_adm --lld iscsi --op new --mode target --tid 2 -T $SGF_TGT_LIB_IQN
	tgt_adm --lld iscsi --op new --mode logicalunit --tid 2 --lun 1 \
		--device-type tape -b "$vtl/${SGF_TAPES%% *}"
	tgt_adm --lld iscsi --op update --mode logicalunit --tid 2 --lun 1 --params online=0
	tgt_adm --lld iscsi --op new --mode logicalunit --tid 2 --lun 2 \
		--device-type changer -b "$vtl/smc"
	lib() { tgt_adm --lld iscsi --op update --mode logicalunit --tid 2 --lun 2 --params "$1"; }
	lib "media_home=$vtl"
	lib element_type=4,start_address=1,quantity=1
	lib element_type=4,address=1,tid=2,lun=1
	lib element_type=1,start_address=2,quantity=1
	lib element_type=2,start_address=3,quantity=4
	for b in $SGF_TAPES; do
		lib "element_type=2,address=$addr,barcode=$b,sides=1"
		addr=$((addr + 1))
	done
	tgt_adm --lld iscsi --op bind --mode target --tid 2 -I ALL
}

tgt_stop() {
	local i
	[ -n "${SGF_TGT_PID:-}" ] || return 0
	tgt_adm --op update --mode sys --name State -v offline >/dev/null 2>&1 || true
	tgt_adm --lld iscsi --op delete --mode target --tid 2 --force >/dev/null 2>&1 || true
	tgt_adm --lld iscsi --op delete --mode target --tid 1 --force >/dev/null 2>&1 || true
	tgt_adm --op delete --mode system >/dev/null 2>&1 || true
	for i in $(seq 50); do
		kill -0 "$SGF_TGT_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$SGF_TGT_PID" 2>/dev/null || true
	wait "$SGF_TGT_PID" 2>/dev/null || true
	SGF_TGT_PID=
}
