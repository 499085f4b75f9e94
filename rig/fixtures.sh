# shellcheck shell=bash
# Fixtures for one boot: a scratch disk, a CD image, the ISO to burn, and the
# tgt DVD+R burners (two blank discs) served by a private tgtd on a free
# loopback port. tgt_stop shuts that tgtd down properly (it ignores SIGTERM).

SGF_TGT_IQN=iqn.2026-12.org.sgfilter:burners

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
	for i in 1 2; do
		tgt_adm --lld iscsi --op new --mode logicalunit --tid 1 --lun $i \
			--device-type cd -b "$run/burn$i.img"
	done
	tgt_adm --lld iscsi --op bind --mode target --tid 1 -I ALL
	say "fixtures: tgtd (pid $SGF_TGT_PID) serves two blank DVD+R on 127.0.0.1:$SGF_TGT_PORT"
}

tgt_stop() {
	local i
	[ -n "${SGF_TGT_PID:-}" ] || return 0
	tgt_adm --op update --mode sys --name State -v offline >/dev/null 2>&1 || true
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
