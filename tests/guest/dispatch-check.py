#!/usr/bin/env python3
"""Denied means the command never reached the device.

Reads the matrix's probe results (H:C:T:L, CDB, verdict) and the
scsi_dispatch_cmd_start trace of the same run on stdin. For every CDB the
matrix sent to a device, the midlayer must have dispatched it exactly as
often as it was reached: never for a denied probe. TEST UNIT READY and GET
EVENT STATUS NOTIFICATION may be dispatched more often, since the kernel
itself polls with them. A CDB dispatched to a device again with nothing
dispatched to that device in between is one probe's command sent twice,
a requeue or retry of the midlayer (seen on 7.2's scsi_debug processor):
it counts once, and the summary says how many there were. Two probes
never send the same CDB to a device one after the other (a probe group
sends each CDB once, and groups begin with TEST UNIT READY).

usage: dispatch-check.py RESULTS < /sys/kernel/tracing/trace
"""
import collections
import re
import sys

POLLED = {0x00, 0x4a}
reached, probed = collections.Counter(), set()
for line in open(sys.argv[1]):
    hctl, cdb, verdict = line.split()[:3]
    probed.add((hctl, cdb))
    if verdict == "reached":
        reached[(hctl, cdb)] += 1

dispatched = collections.Counter()
last = {}          # H:C:T:L -> the CDB last dispatched to it
resent = 0
pat = re.compile(r"host_no=(\d+) channel=(\d+) id=(\d+) lun=(\d+) .* raw=([0-9a-f ]+)\)")
lost = 0
for line in sys.stdin:
    if "LOST" in line:
        lost += 1
    m = pat.search(line)
    if m:
        key = (":".join(m.group(1, 2, 3, 4)), m.group(5).replace(" ", ""))
        again = last.get(key[0]) == key[1]
        last[key[0]] = key[1]
        if key in probed:
            if again and int(key[1][:2], 16) not in POLLED:
                resent += 1
                continue
            dispatched[key] += 1

bad = []
for key in sorted(probed):
    d, r = dispatched[key], reached[key]
    polled = int(key[1][:2], 16) in POLLED
    if d < r or (d > r and not polled):
        bad.append(f"{key[0]} {key[1]}: reached {r} times, dispatched {d} times")
n_denied = sum(1 for k in probed if reached[k] == 0)
print(f"{len(probed)} distinct CDBs, {sum(reached.values())} reached and "
      f"{sum(dispatched.values())} dispatched ({resent} sent again at once by the midlayer), "
      f"{n_denied} never allowed and never dispatched"
      if not bad else f"{len(bad)} CDBs dispatched other than reached")
for b in bad[:10]:
    print(f"# {b}")
if lost:
    print("# the trace buffer lost events")
sys.exit(1 if bad or lost or not dispatched else 0)
