#!/bin/bash
# The fuzzing campaign (tests/fuzz/sgfuzz): random CDBs, header fields,
# entry points and open modes as the unprivileged user on every fixture,
# each verdict checked against the policy document and, through the
# tracepoints, against what the SCSI midlayer dispatched; then random and
# adversarial writes to every device's policy files as root.
#   SGF_FUZZ_SECONDS   CDB fuzzing time (default 120), in chunks of
#   SGF_FUZZ_CHUNK     seconds (default 60), each with its own seed and trace
#   SGF_FUZZ_WRITES    policy-file writes (default 3000)
#   SGF_FUZZ_SEED      first seed (default: from the clock; printed)
# On the stock kernel the same run must find verdicts that break the policy and
# commands it denies reaching devices: the test fails there, as it must.
# Leaves the figures in $SGF_RUN/out/fuzz-summary.txt for the reports.
# timeout: 600 + 2 * SGF_FUZZ_SECONDS
. "$(dirname "$0")/lib.sh"
# This suite holds sg's read-write opens and write() to the filter, which
# the patched kernel does only with the opt-in sg.filter_all (finish_suite
# puts it back).
sg_filter_all Y
FUZZ=$SGF_BUILD/bin/sgfuzz
CHECK=$SGF_TOP/tests/fuzz/trace-check.py
TR=/sys/kernel/tracing
total=${SGF_FUZZ_SECONDS:-120}
chunk=${SGF_FUZZ_CHUNK:-60}
writes=${SGF_FUZZ_WRITES:-3000}
seed0=${SGF_FUZZ_SEED:-$(date +%s)}
summary=/tmp/out/fuzz-summary.txt
stock_flag=
[ "$SGF_KERNEL" = stock ] && stock_flag=--stock

# (SATA: rig/boot adds the disk to a boot that runs this suite; libata
# answers ATA PASS-THROUGH, the commands the disk rules test fields of)
hctls=()
for role in HD CD BURN1 BURN2 TAPE CHANGER DBGDISK DBGCD DBGSCAN DBGPROC SATA; do
	v=${role}_HCTL
	[ -n "${!v:-}" ] || { not_ok fixture "no $role device: the fuzzer's devices are incomplete"; finish_suite; }
	hctls+=("${!v}")
done

# Start from the default policy everywhere, filter on.
if [ "$SGF_KERNEL" = patched ]; then
	for h in "${hctls[@]}"; do
		echo 1 >"/sys/bus/scsi/devices/$h/cmd_filter/reset"
		q=$(echo "/sys/bus/scsi/devices/$h"/block/*/queue)
		[ -f "$q/unpriv_sgio" ] && echo 0 >"$q/unpriv_sgio"
	done
fi

echo 0 >$TR/tracing_on
echo 65536 >$TR/buffer_size_kb
# (each event with its process, the fuzzer's, whichever of its threads or
# io_uring workers ran it: trace-check.py matches on it)
echo 1 >$TR/options/record-tgid
echo 1 >$TR/events/scsi/scsi_dispatch_cmd_start/enable
[ -d $TR/events/scsi/scsi_cmd_filter_deny ] && echo 1 >$TR/events/scsi/scsi_cmd_filter_deny/enable

chunks=$(((total + chunk - 1) / chunk))
crashed=	# the chunk that could not start, hung or crashed, if one did
{
	echo "kernel=$SGF_KERNEL"
	echo "devices=${hctls[*]}"
	echo "chunks=$chunks"
	echo "chunk_seconds=$chunk"
} >$summary
for i in $(seq "$chunks"); do
	seed=$((seed0 + i))
	echo >$TR/trace
	echo 1 >$TR/tracing_on
	rc=0
	as_user "$FUZZ" cdb -s "$seed" -t "$chunk" -l /tmp/fuzz.log -c "/tmp/fuzz-cov-$i.txt" \
		-m 9 "${hctls[@]}" 9>$TR/trace_marker >"/tmp/fuzz-$i.out" 2>"/tmp/fuzz-$i.err" || rc=$?
	echo 0 >$TR/tracing_on
	# the SATA disk's ATA PASS-THROUGH calls (the log: seq hctl set entry
	# expected observed errno cdb): decided each way, and the ATA commands
	# (CDB byte 14 of 0x85, byte 9 of 0xa1) of those allowed
	awk -v h="$SATA_HCTL" '$2 == h && $8 ~ /^(85|a1)/ && $6 != "-" {
			n[$6]++
			if ($6 != "A") next
			# (ATA PASS-THROUGH(16): only the rows of patch 16 allow it)
			if (substr($8, 1, 2) == "85") n16++
			if ($7 == "0") answered++
			c = substr($8, 1, 2) == "85" ? substr($8, 29, 2) : substr($8, 19, 2)
			if (c != "") cmds[c] = 1
		}
		END {
			s = ""
			for (c in cmds) s = s " " c
			printf "sata_ata_allowed=%d\nsata_ata16_allowed=%d\nsata_ata_answered=%d\n",
				n["A"], n16, answered
			printf "sata_ata_denied=%d\nsata_ata_commands=%s\n", n["D"], s
		}' /tmp/fuzz.log >"/tmp/fuzz-sata-$i.out" 2>&1 || true
	overrun=$(cat $TR/per_cpu/cpu*/stats | awk '/^overrun/ {s += $2} END {print s + 0}')
	crc=0
	python3 "$CHECK" $stock_flag /tmp/fuzz.log <$TR/trace >"/tmp/fuzz-check-$i.out" || crc=$?
	{
		echo "chunk=$i seed=$seed fuzzer_exit=$rc check_exit=$crc overrun=$overrun"
		sed 's/^/  /' "/tmp/fuzz-$i.out" "/tmp/fuzz-check-$i.out" "/tmp/fuzz-sata-$i.out"
		head -20 "/tmp/fuzz-$i.err" | sed 's/^/  stderr: /'
	} >>$summary
	cp "/tmp/fuzz-cov-$i.txt" /tmp/out/ 2>/dev/null || true
	# a chunk that could not start, hung or crashed ends the run, its log
	# and the kernel's word on it kept for the report
	if [ $rc -gt 1 ]; then
		crashed="chunk=$i seed=$seed fuzzer_exit=$rc"
		cp /tmp/fuzz.log "/tmp/out/fuzz-$i-exit-$rc.log" 2>/dev/null || true
		cp "/tmp/fuzz-$i.err" "/tmp/out/fuzz-$i-exit-$rc.err" 2>/dev/null || true
		break
	fi
done
echo 0 >$TR/events/scsi/scsi_dispatch_cmd_start/enable
[ -d $TR/events/scsi/scsi_cmd_filter_deny ] && echo 0 >$TR/events/scsi/scsi_cmd_filter_deny/enable
echo 0 >$TR/options/record-tgid
echo >$TR/trace
echo 1408 >$TR/buffer_size_kb

# Sum the chunks: key=value lines of the fuzzer and of the trace check.
total_of() { awk -F= -v k="  $1" '$1 == k {s += $2} END {print s + 0}' $summary; }
calls=$(total_of calls) secs=$(total_of seconds)
rate=$(awk -v c="$calls" -v s="$secs" 'BEGIN {printf "%.0f", s ? c / s : 0}')
mismatches=$(total_of mismatches) violations=$(total_of violations)
anomalies=$(total_of anomalies) consulted=$(total_of consulted)
allowed=$(total_of allowed) denied=$(total_of denied)
tviol=$(total_of trace_violations)
dispatched=$(total_of trace_dispatched_in_windows)
lost=$(total_of trace_lost)
sata_allowed=$(total_of sata_ata_allowed) sata_denied=$(total_of sata_ata_denied)
sata_16=$(total_of sata_ata16_allowed) sata_answered=$(total_of sata_ata_answered)
sata_cmds=$(sed -n 's/^  sata_ata_commands= *//p' $summary | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
# coverage: the union of the chunks' opcode x entry point maps
cells=$(cat /tmp/fuzz-cov-*.txt 2>/dev/null | awk '
	{ for (i = 1; i <= 256; i++) if (substr($2, i, 1) != ".") seen[$1, i] = 1 }
	END { n = 0; for (k in seen) n++; print n }')
{
	echo "total_calls=$calls"
	echo "total_seconds=$secs"
	echo "total_rate=$rate"
	echo "total_consulted=$consulted"
	echo "total_cells=$cells"
	echo "total_sata_ata_allowed=$sata_allowed"
	echo "total_sata_ata16_allowed=$sata_16"
	echo "total_sata_ata_answered=$sata_answered"
	echo "total_sata_ata_denied=$sata_denied"
	echo "total_sata_ata_commands=$sata_cmds"
} >>$summary
echo "# fuzz: $calls calls in ${secs}s ($rate/s), seed $((seed0 + 1))..$((seed0 + chunks)), $cells of 1280 opcode x entry-point cells"

# (exit status 2: a setup error; 3: a call hung; 128 and above: killed by
# a signal. The line names the chunk, its seed and status, the fuzzer's own
# record of it (the last chunk's, $i: the loop ends there) and what the
# kernel logged: enough to look into it)
if [ -n "$crashed" ]; then
	not_ok cdb.crash "the fuzzer could not start, hung or crashed: $crashed $(grep -v 'policy says\|^sgfuzz: call [0-9]* (' "/tmp/fuzz-$i.err" | grep -m2 '^sgfuzz: ' | tr '\n' ' ')$(dmesg | grep -m1 -o 'sgfuzz\[[0-9]*\]: .*')" \
		"$(grep -h 'stderr' $summary | tail -5)"
fi
# io_uring on bsg nodes, where the kernel has it: the fuzzer drew it
# (a seventh of the calls) and the kernel took it in every chunk
uring_calls=$(total_of calls_uring)
uring_none=$(grep -c '^  uring_bsg=none' $summary || true)
if has_uring_bsg; then
	if [ "$uring_calls" -gt 0 ] && [ "$uring_none" = 0 ]; then
		ok cdb.uring "io_uring commands on bsg nodes among the calls: $uring_calls"
	else
		not_ok cdb.uring "the fuzzer sent no io_uring command the kernel took ($uring_calls calls, $uring_none chunks found none)"
	fi
else
	ok cdb.uring "SKIP $SGF_KVER has no io_uring command on bsg nodes ($uring_calls tries, each chunk then left it out)"
fi
if [ "$lost" != 0 ]; then
	not_ok trace.lost "the trace lost events ($lost): the device-side check is incomplete"
fi
if [ "$SGF_KERNEL" = stock ]; then
	if [ "$violations" -gt 0 ] && [ "$tviol" -gt 0 ]; then
		ok cdb.stock-fails "stock $SGF_KVER fails the campaign, as it must: $violations of $consulted verdicts allowed what the policy denies, and the midlayer dispatched $tviol commands the policy denies"
	else
		not_ok cdb.stock-fails "stock $SGF_KVER showed no verdict against the policy ($violations) or none dispatched ($tviol): the test could not fail"
	fi
else
	if [ "$mismatches" = 0 ] && [ "$consulted" -gt 0 ]; then
		ok cdb.verdicts "$calls random calls in ${secs}s on ${#hctls[@]} devices: all $consulted verdicts ($allowed allowed, $denied denied) equal the policy document's"
	else
		not_ok cdb.verdicts "$mismatches of $consulted verdicts differ from the policy document" \
			"$(grep -h 'stderr' $summary | head -8)"
	fi
	if [ "$anomalies" = 0 ]; then
		ok cdb.counters "each decision counted once, every denial answered EPERM and no allowed command did"
	else
		not_ok cdb.counters "$anomalies calls where the counters and the answer disagree" \
			"$(grep -h 'stderr' $summary | head -8)"
	fi
	if [ "$tviol" = 0 ] && [ "$dispatched" -gt 0 ] && ! grep -q 'check_exit=1' $summary; then
		ok cdb.dispatch "nothing the policy denies reached a device: $dispatched allowed commands dispatched, every denial traced once with its device, opcode and entry point"
	else
		not_ok cdb.dispatch "the device-side check failed ($tviol denied commands dispatched)" \
			"$(grep -h '# ' /tmp/fuzz-check-*.out | head -8)"
	fi
	# (the rows that test ATA PASS-THROUGH's fields decided on a disk
	# that answers it, both ways: the verdicts above include them; the
	# 16-byte form, which only the disk health rows allow, among those
	# allowed, and the disk answered some)
	if [ "$sata_16" -gt 0 ] && [ "$sata_answered" -gt 0 ] && [ "$sata_denied" -gt 0 ]; then
		ok cdb.sata "the SATA disk (libata) decided ATA PASS-THROUGH both ways: $sata_allowed allowed ($sata_16 of them 16-byte; ATA commands ${sata_cmds% }; $sata_answered answered without error), $sata_denied denied"
	else
		not_ok cdb.sata "the SATA disk did not decide ATA PASS-THROUGH both ways ($sata_allowed allowed, $sata_16 of them 16-byte, $sata_answered answered; $sata_denied denied)"
	fi
	if [ "$cells" -ge "${SGF_FUZZ_MIN_CELLS:-500}" ]; then
		ok cdb.coverage "coverage: the filter decided $cells of the 1280 opcode x entry-point pairs"
	else
		not_ok cdb.coverage "coverage: only $cells of 1280 opcode x entry-point pairs decided"
	fi

	# the policy files, as root
	out=$("$FUZZ" sysfs -s "$seed0" -n "$writes" "${hctls[@]}" 2>&1) && rc=0 || rc=$?
	{
		echo "sysfs:"
		# shellcheck disable=SC2001 # indents every line
		echo "$out" | sed 's/^/  /'
	} >>$summary
	acc=$(echo "$out" | sed -n 's/^accepted=//p')
	rej=$(echo "$out" | sed -n 's/^rejected=//p')
	part=$(echo "$out" | sed -n 's/^partly=//p')
	if [ "$rc" = 0 ] && [ "${acc:-0}" -gt 0 ] && [ "${rej:-0}" -gt 0 ]; then
		ok sysfs.writes "policy files: $writes random writes, $rej rejected leaving every file byte-identical, $acc accepted and ${part:-0} split in two with one half refused, reading back as the model applies them"
	else
		not_ok sysfs.writes "policy files: the sysfs fuzzer found a difference (exit $rc)" "$(echo "$out" | head -12)"
	fi
	custom=$(cat /sys/bus/scsi/devices/*/cmd_filter/custom | sort -u | tr '\n' ' ')
	check sysfs.default-restored "every device is back on its default policy (custom: $custom)" test "$custom" = "0 "
fi
finish_suite
