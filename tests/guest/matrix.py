#!/usr/bin/env python3
"""Every opcode (and every service-action rule) through every entry point,
both open modes, on a scsi_debug device of each command set, sent by the
unprivileged user; each verdict compared with the policy document.

On the patched kernel the expected verdict comes from policy/default.policy
(through policy/model's reference model); on stock 6.1 from
policy/linux-6.1.list plus sg's known exemptions, which checks that
transcription against the real stock kernel.

sg's read-write opens, its write() and its scanners are filtered on stock
by nobody, and on the patched kernel only with the opt-in sg.filter_all:
by default (no argument) the patched kernel must answer those probes as
stock does, and their verdicts are also left in /tmp/matrix-sg-rw.txt
for the host to hold against stock's (tests/host/sg-rw-compare). With
--filter-all (matrix.sh sets sg.filter_all first) only the sg entry points
are probed, and the policy decides them too.

Run as the unprivileged user; prints one TAP line per device, entry point
and open mode ("ok - matrix.ROLE.KIND.ENTRY.MODE: ...", KIND the node's
kind: sg, bsg, st, ch or block; ".filter-all" after it with --filter-all).
"""
import os
import subprocess
import sys

TOP = os.environ["SGF_TOP"]
KERNEL = os.environ["SGF_KERNEL"]
PROBE = os.path.join(os.environ["SGF_BUILD"], "bin/sgprobe")
# io_uring commands on bsg nodes, where the kernel has them (matrix.sh)
URING = os.environ.get("URING_BSG") == "1"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sgfpolicy  # noqa: E402

policy, POL = sgfpolicy.load()

SIC_LEN = [6, 10, 10, 12, 16, 12, 10, 10]
RESULTS = "/tmp/matrix-results.txt"   # H:C:T:L cdb verdict, for dispatch-check.py
SG_RW = "/tmp/matrix-sg-rw.txt"     # the unfiltered sg probes and their verdicts
FILTER_ALL = "--filter-all" in sys.argv[1:]
RUN_ID = ".filter-all" if FILTER_ALL else ""   # the two runs' result ids differ


def devices():
    env = {}
    for line in open("/tmp/devices.env"):
        k, _, v = line.strip().partition("=")
        env[k] = v
    for role in ("DBGDISK", "DBGCD", "TAPE", "CHANGER", "DBGSCAN", "DBGPROC"):
        hctl = env[role + "_HCTL"]
        ptype = int(open(f"/sys/bus/scsi/devices/{hctl}/type").read())
        yield role, ptype, env[role + "_NODE"], env[role + "_SG"], env[role + "_BSG"]


def as_sent(entry, cdb):
    """The CDB as the kernel sees it through this entry point."""
    if entry == "sic":
        n = SIC_LEN[cdb[0] >> 5]
    elif entry == "packet":
        n = 12
    else:
        return cdb
    return (cdb + [0] * n)[:n]


def sg_unfiltered(entry, node_kind, ptype, mode):
    """sg's rule on stock, and on the patched kernel without sg.filter_all:
    only SG_IO on an open that is not read-write is filtered, scanners
    excepted."""
    if FILTER_ALL and KERNEL == "patched":
        return False
    return node_kind == "sg" and entry in ("sgio", "sgrw") and (ptype == 6 or mode == "rw")


def expected(entry, node_kind, ptype, mode, cdb):
    """'denied' or 'reached' for this probe on this kernel."""
    if node_kind == "st":
        return "denied"                    # st: raw commands need CAP_SYS_RAWIO
    if node_kind == "sg" and entry == "packet" and mode == "ro":
        return "denied"                    # sg refuses unknown ioctls read-only
    sent = as_sent(entry, cdb)
    if sg_unfiltered(entry, node_kind, ptype, mode):
        return "reached"
    if KERNEL == "stock":
        cls = POL.stock_class(sent[0])
    else:
        cls = POL.decide(POL.set_of_type(ptype), sent)
    if cls == "read" or (cls == "write" and mode == "rw"):
        return "reached"
    return "denied"


def plan():
    """(group, its result id, expected, probe line, hctl, unfiltered sg probe)
    for every probe."""
    for role, ptype, node, sg, bsg in devices():
        hctl = os.path.basename(bsg)
        set_ = POL.set_of_type(ptype)
        nodes = [(sg, "sg", ("sgio", "sgrw", "sic", "packet")),
                 (bsg, "bsg", ("bsg", "uring") if URING else ("bsg",))]
        if FILTER_ALL:
            nodes = [(sg, "sg", ("sgio", "sgrw"))]
        elif node:
            # the upper driver's node: st's tape, ch's changer, or sd's and
            # sr's block devices
            kind = "st" if "/st" in node else "ch" if "/sch" in node else "block"
            nodes.append((node, kind, ("sgio", "sic", "packet")))
        cdbs = [cdb for cdb, _ in policy.probe_cdbs(POL, set_)]
        for dev, kind, entries in nodes:
            for entry in entries:
                for mode in ("ro", "rw"):
                    if entry == "sgrw" and mode == "ro":
                        continue           # write() needs a writable open
                    group = f"{role} ({set_}) {dev} {entry} {mode}"
                    gid = f"{role}.{kind}.{entry}.{mode}{RUN_ID}"
                    if FILTER_ALL:
                        group += " sg.filter_all"
                    for cdb in cdbs:
                        sent = as_sent(entry, cdb)
                        line = f"-e {entry} -m {mode} -t 5000 {dev} " + " ".join(f"{b:02x}" for b in sent)
                        yield (group, gid, expected(entry, kind, ptype, mode, cdb), line, hctl,
                               sg_unfiltered(entry, kind, ptype, mode))


def main():
    probes = list(plan())
    out = subprocess.run([PROBE, "-b"], input="\n".join(p[3] for p in probes) + "\n",
                         capture_output=True, text=True).stdout.splitlines()
    if len(out) != len(probes):
        print(f"not ok - matrix.answers{RUN_ID}: {len(probes)} probes, {len(out)} answers")
        return 1
    groups = {}
    log = open(RESULTS, "a")
    sg_rw = None if FILTER_ALL else open(SG_RW, "w")
    for (group, gid, want, line, hctl, unfiltered), got in zip(probes, out):
        verdict = got.partition(" verdict=")[2].split(" ")[0]
        # (the entry point and open mode after, for a reader of the file)
        log.write(f"{hctl} {''.join(line.split()[7:])} {verdict} {line.split()[1]} {line.split()[3]}\n")
        if sg_rw and unfiltered:
            sg_rw.write(f"{group}\t{line}\t{verdict}\n")
        g = groups.setdefault(group, [0, [], gid])
        g[0] += 1
        if verdict != want:
            g[1].append(f"{line}: expected {want}, got {verdict} ({got})")
    failed = 0
    for group, (n, bad, gid) in groups.items():
        if bad:
            failed = 1
            print(f"not ok - matrix.{gid}: {group}: {len(bad)} of {n} verdicts differ from the policy")
            for b in bad[:6]:
                print(f"# {b}")
        else:
            print(f"ok - matrix.{gid}: {group}: {n} verdicts as the policy says")
    print(f"# matrix: {len(probes)} probes in {len(groups)} groups")
    return failed


sys.exit(main())
