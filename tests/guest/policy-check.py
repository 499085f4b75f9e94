#!/usr/bin/env python3
"""Read scsi_dispatch_cmd_start trace lines on stdin; for the device
H:C:T:L given, list every distinct command and whether the policy permits
it to an unprivileged writable open of that device's command set.

usage: policy-check.py H:C:T:L SET   (exit 1 if any command is not permitted)
"""
import os
import re
import sys

TOP = os.environ["SGF_TOP"]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sgfpolicy  # noqa: E402

policy, POL = sgfpolicy.load()

h, c, t, l = sys.argv[1].split(":")
set_ = sys.argv[2]
want = re.compile(rf"host_no={h} channel={c} id={t} lun={l} .*cmnd=\((\S+).* raw=([0-9a-f ]+)\)")
seen = {}
for line in sys.stdin:
    m = want.search(line)
    if m:
        cdb = [int(x, 16) for x in m.group(2).split()]
        cls = POL.decide(set_, cdb)
        key = (cdb[0], cls, POL.names(set_, cdb[0]) or m.group(1))
        seen[key] = seen.get(key, 0) + 1
bad = 0
for (op, cls, name), n in sorted(seen.items()):
    verdict = "permitted" if cls in ("read", "write") else "NOT PERMITTED"
    bad |= cls not in ("read", "write")
    print(f"0x{op:02x} {name[:36]:36} x{n:<5} {cls:5} {verdict}")
print(f"{len(seen)} distinct commands")
sys.exit(1 if bad or not seen else 0)
