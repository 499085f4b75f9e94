#!/usr/bin/env python3
"""Nothing outside the policy reaches a device: the device side of a fuzz run.

Reads the log of one `sgfuzz cdb` run (one line per call: seq, H:C:T:L,
command set, entry, the policy's verdict A/D, the kernel's verdict A/D/-,
errno, CDB as the filter saw it) and the ftrace buffer recorded meanwhile
(trace_marker lines "sgfz B n" / "sgfz E n" around each call,
scsi:scsi_dispatch_cmd_start, and on the patched kernel
scsi:scsi_cmd_filter_deny). Within each call's window, the
fuzzer's own process, by its thread group (the trace's record-tgid
column: its io_uring workers, which carry on an io_uring command that
could not be issued without blocking, such as the copy of an
unprivileged data-out buffer, are threads of it; a trace without the
column is matched on the pid alone):
  - must never have dispatched a command the policy denies (a violation);
  - dispatches only the call's own CDB to the call's device (anything else is
    the kernel's own command, counted as "kernel");
  - on the patched kernel, traces exactly one denial for each call the
    kernel denied, on that device, with that opcode and entry point, and no
    other.
Prints key=value lines; exits 1 on a violation or a mismatch, 2 if the
trace lost events.

usage: trace-check.py [--stock] LOG < /sys/kernel/tracing/trace
"""
import collections
import re
import sys

stock = "--stock" in sys.argv[1:]
log_path = [a for a in sys.argv[1:] if not a.startswith("--")][0]

calls = {}
pid = None
for line in open(log_path):
    if line.startswith("#"):
        m = re.search(r"pid=(\d+)", line)
        if m:
            pid = int(m.group(1))
        continue
    seq, hctl, set_, entry, expect, observed, err, cdb = line.split()
    calls[int(seq)] = (hctl, set_, entry, expect, observed, err, cdb.rstrip("-"))

# "comm-pid (tgid) [cpu]" with record-tgid, "comm-pid [cpu]" without
task = re.compile(r"^\s*(.*)-(\d+)\s+(?:\(\s*(\d+|-+)\)\s+)?\[\d+\]")
# "tracing_mark_write: sgfz B 12", or "0xffffffff810a275e: sgfz B 12" on a
# kernel without kallsyms
mark = re.compile(r": sgfz ([BE]) (\d+)$")
disp = re.compile(r"scsi_dispatch_cmd_start: host_no=(\d+) channel=(\d+) id=(\d+) "
                  r"lun=(\d+) .*raw=([0-9a-f ]+)\)")
# (an empty CDB is traced as opcode 0x100)
deny = re.compile(r"scsi_cmd_filter_deny: (\S+) opcode=0x([0-9a-f]+) .*via=(\S+)")

cur = None
c = collections.Counter()
samples = collections.defaultdict(list)
deny_seen = set()
kernel_ops = collections.Counter()
dispatched_seqs = set()


def sample(kind, text):
    if len(samples[kind]) < 5:
        samples[kind].append(text)


for line in sys.stdin:
    if "LOST" in line and "EVENTS" in line:
        c["lost"] += 1
        continue
    m = task.match(line)
    if not m:
        continue
    tgid = m.group(3)
    if (int(tgid) if tgid and tgid.isdigit() else int(m.group(2))) != pid:
        continue
    m = mark.search(line)
    if m:
        cur = int(m.group(2)) if m.group(1) == "B" else None
        c["windows"] += m.group(1) == "B"
        continue
    m = disp.search(line)
    if m:
        hctl = ":".join(m.group(1, 2, 3, 4))
        raw = m.group(5).replace(" ", "")
        if cur is None or cur not in calls:
            c["outside_windows"] += 1
            kernel_ops[raw[:2]] += 1
            continue
        call = calls[cur]
        if hctl == call[0] and raw == call[6]:
            if call[3] == "D":
                c["violations"] += 1
                sample("violation", f"call {cur} {call}: dispatched {raw}")
            else:
                c["dispatched"] += 1
                dispatched_seqs.add(cur)
        else:
            # not the call's CDB: a command of the kernel's own, issued in the
            # fuzzer's context (e.g. when a CD is opened)
            c["kernel"] += 1
            kernel_ops[raw[:2]] += 1
            if hctl == call[0] and raw[:2] == call[6][:2] and call[3] == "D":
                c["violations"] += 1
                sample("violation", f"call {cur} {call}: dispatched {raw}")
        continue
    m = deny.search(line)
    if m:
        c["deny_events"] += 1
        call = calls.get(cur) if cur is not None else None
        if not call:
            c["deny_outside"] += 1
            sample("deny_outside", line.strip())
        elif call[4] != "D" or call[0] != m.group(1) or call[2] != m.group(3) \
                or (call[6][:2] or "100") != m.group(2):
            c["deny_mismatch"] += 1
            sample("deny_mismatch", f"call {cur} {call}: {line.strip()}")
        else:
            if cur in deny_seen:
                c["deny_twice"] += 1
            deny_seen.add(cur)

denied = [s for s, v in calls.items() if v[4] == "D"]
missing = [s for s in denied if s not in deny_seen]
reached_allowed = sum(1 for v in calls.values() if v[4] == "A")
print(f"trace_calls={len(calls)}")
print(f"trace_windows={c['windows']}")
print(f"trace_dispatched_in_windows={c['dispatched']}")
print(f"trace_allowed_calls={reached_allowed}")
print(f"trace_allowed_calls_dispatched={len(dispatched_seqs)}")
print(f"trace_violations={c['violations']}")
print(f"trace_kernel_commands={c['kernel'] + c['outside_windows']}")
print("trace_kernel_opcodes=" + ",".join(f"{k}:{n}" for k, n in kernel_ops.most_common(8)))
if not stock:
    print(f"trace_denied_calls={len(denied)}")
    print(f"trace_deny_events={c['deny_events']}")
    print(f"trace_deny_missing={len(missing)}")
    print(f"trace_deny_mismatch={c['deny_mismatch'] + c['deny_outside'] + c['deny_twice']}")
print(f"trace_lost={c['lost']}")
for kind, lines in samples.items():
    for s in lines:
        print(f"# {kind}: {s}")
if not stock:
    for s in missing[:5]:
        print(f"# deny_missing: call {s} {calls[s]}")
if c["lost"]:
    sys.exit(2)
bad = c["violations"]
if not stock:
    bad += len(missing) + c["deny_mismatch"] + c["deny_outside"] + c["deny_twice"]
sys.exit(1 if bad else 0)
