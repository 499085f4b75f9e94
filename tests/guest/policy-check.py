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
# On a Debian system (./run debian) udev runs ata_id as root on an optical
# drive's events (60-persistent-storage.rules, "ATAPI devices (SPC-3 or
# later)"): its IDENTIFY PACKET DEVICE (0xa1) through ATA PASS-THROUGH is
# root's traffic, not the programs', and is counted apart. No program of
# the suites sends it.
UDEV = os.environ.get("SGF_UDEV") == "1"


def ata_id(cdb):
    return (len(cdb) >= 16 and cdb[0] == 0x85 and cdb[14] == 0xA1) or \
        (len(cdb) >= 12 and cdb[0] == 0xA1 and cdb[9] == 0xA1)


seen = {}
udev = 0
for line in sys.stdin:
    m = want.search(line)
    if m:
        cdb = [int(x, 16) for x in m.group(2).split()]
        if UDEV and ata_id(cdb):
            udev += 1
            udev_cdb = " ".join(f"{b:02x}" for b in cdb)
            continue
        cls = POL.decide(set_, cdb)
        key = (cdb[0], cls, POL.names(set_, cdb[0]) or m.group(1))
        seen[key] = seen.get(key, 0) + 1
bad = 0
for (op, cls, name), n in sorted(seen.items()):
    verdict = "permitted" if cls in ("read", "write") else "NOT PERMITTED"
    bad |= cls not in ("read", "write")
    print(f"0x{op:02x} {name[:36]:36} x{n:<5} {cls:5} {verdict}")
if udev:
    print(f"# {udev} IDENTIFY through ATA PASS-THROUGH from udev's ata_id (root), not counted ({udev_cdb})")
print(f"{len(seen)} distinct commands")
sys.exit(1 if bad or not seen else 0)
