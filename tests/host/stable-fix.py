#!/usr/bin/env python3
"""The series' stable fix (patches 1 and 2: scsi_cmd_allowed() with the
device and the CDB length, and scsi_cmd_safe_on_device() in
scsi_ioctl.c) compiled on the host beside the stock kernel's
scsi_cmd_allowed(), and both asked about every (device type, opcode, CDB
byte 1, ATA command byte, open mode):

  - the fix only narrows the stock lists (nothing stock refuses is allowed);
  - every command the fix refuses that stock allowed, the policy that
    replaces it refuses too, with patch 4's document (the holes only) and
    with the whole one: no later patch reopens what the fix closed;
  - the holes are closed (UNMAP, SANITIZE, MAINTENANCE OUT, REMOVE ELEMENT
    AND TRUNCATE from a read-only open of a disk; ATA PASS-THROUGH(12)
    SECURITY ERASE UNIT, SANITIZE and the opcodes the list names wrongly,
    0xea and 0x0d, from a writable one) and a CD drive keeps its commands
    (READ SUB-CHANNEL read-only, BLANK writable).

  stable-fix.py PATCH_DIR STOCK_TREE [POLICY]   (exit 0 if all hold; prints
  why not; POLICY is policy/default.policy unless given)
"""
import glob
import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IOCTL = "drivers/scsi/scsi_ioctl.c"
# CDB byte 9 of ATA PASS-THROUGH(12), the ATA command: none, IDENTIFY DEVICE,
# IDENTIFY PACKET DEVICE, SMART, CHECK POWER MODE, SECURITY ERASE UNIT
ATA_CMDS = (0x00, 0xec, 0xa1, 0xb0, 0xe5, 0xf4)


def load_model():
    loader = importlib.machinery.SourceFileLoader("model", f"{TOP}/policy/model")
    spec = importlib.util.spec_from_loader("model", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def deciding_rule(pol, set_, cdb):
    """The row that decides a CDB (the model's decide(), keeping the row)."""
    for r in pol.table[set_].get(cdb[0]) or []:
        hit = r.applies(cdb)
        if hit is None:
            return None
        if hit:
            return r
    return None


def header_defs(stock):
    defs = {}
    for f in ("include/scsi/scsi_proto.h", "include/uapi/linux/cdrom.h"):
        for m in re.finditer(r"(?m)^#define\s+(\w+)\s+(0x[0-9a-fA-F]+|\d+)\b",
                             open(f"{stock}/{f}").read()):
            defs.setdefault(m.group(1), m.group(2))
    # <linux/ata.h>'s command codes are enumerators
    for m in re.finditer(r"(?m)^\s+(ATA_CMD_\w+)\s*=\s*(0x[0-9a-fA-F]+|\d+),",
                         open(f"{stock}/include/linux/ata.h").read()):
        defs.setdefault(m.group(1), m.group(2))
    return defs


def decision_code(source):
    """The text from after scsi_send_start_stop() to the end of
    scsi_cmd_allowed(): the decision and whatever helper the fix adds."""
    a = source.index("static int scsi_send_start_stop(")
    a = source.index("\n}\n", a) + 3
    b = source.index("EXPORT_SYMBOL(scsi_cmd_allowed);", a)
    return source[a:b]


def fixed_source(patch_dir, stock, tmp):
    """scsi_ioctl.c with the series' first two patches applied."""
    work = f"{tmp}/fix"
    os.makedirs(f"{work}/drivers/scsi")
    with open(f"{stock}/{IOCTL}") as src, open(f"{work}/{IOCTL}", "w") as dst:
        dst.write(src.read())
    for n in ("0001", "0002"):
        p = glob.glob(f"{patch_dir}/{n}-*.patch")
        if len(p) != 1:
            raise SystemExit(f"no patch {n} in {patch_dir}")
        subprocess.run(["git", "apply", f"--include={IOCTL}", os.path.abspath(p[0])],
                       cwd=work, check=True)
    return open(f"{work}/{IOCTL}").read()


def harness(stock_code, fix_code, defs):
    fmode = "fmode_t" in stock_code
    wr = "(w ? FMODE_READ | FMODE_WRITE : FMODE_READ)" if fmode else "w"
    lines = ["#include <stdbool.h>", "#include <stdio.h>", "#include <string.h>",
             "typedef unsigned char u8;", "typedef unsigned int fmode_t;",
             "#define FMODE_READ 1u", "#define FMODE_WRITE 2u",
             "#define CAP_SYS_RAWIO 17", "#define fallthrough __attribute__((__fallthrough__))",
             "struct scsi_device { unsigned char type; };",
             "static bool capable(int cap) { (void)cap; return false; }"]
    lines += [f"#define {k} {v}" for k, v in sorted(defs.items())]
    lines += ["#define scsi_cmd_allowed stock_cmd_allowed", stock_code,
              "#undef scsi_cmd_allowed", fix_code]
    lines.append(f"""
int main(void)
{{
	struct scsi_device sdev;
	unsigned char cdb[16];
	unsigned int type, op, b1, i, w, len;
	static const unsigned char ata[] = {{ {", ".join(hex(c) for c in ATA_CMDS)} }};
	static const unsigned int lens[] = {{ 16, 12, 6, 1 }};

	for (type = 0; type < 32; type++)
	for (op = 0; op < 256; op++)
	for (b1 = 0; b1 < 32; b1++)
	for (i = 0; i < sizeof(ata); i++)
	for (len = 0; len < 4; len++)
	for (w = 0; w < 2; w++) {{
		bool s, f;

		if ((b1 || i) && lens[len] < 10)
			continue;
		memset(cdb, 0, sizeof(cdb));
		cdb[0] = op;
		cdb[1] = lens[len] > 1 ? b1 : 0;
		cdb[9] = lens[len] > 9 ? ata[i] : 0;
		sdev.type = type;
		s = stock_cmd_allowed(cdb, {wr});
		f = scsi_cmd_allowed(&sdev, cdb, lens[len], {wr});
		if (s != f)
			printf("%u %u %u %u %u %u %d %d\\n", type, op, cdb[1], cdb[9],
			       lens[len], w, f, s);
	}}
	return 0;
}}""")
    return "\n".join(lines)


def main():
    patch_dir, stock = sys.argv[1:3]
    policy = sys.argv[3] if len(sys.argv) > 3 else f"{TOP}/policy/default.policy"
    model = load_model()
    defs = header_defs(stock)
    with tempfile.TemporaryDirectory() as tmp:
        stock_code = decision_code(open(f"{stock}/{IOCTL}").read())
        fix_code = decision_code(fixed_source(patch_dir, stock, tmp))
        if "scsi_device *sdev" not in fix_code:
            raise SystemExit("patch 2's scsi_cmd_allowed() is not told the device")
        with open(f"{tmp}/h.c", "w") as f:
            f.write(harness(stock_code, fix_code, defs))
        subprocess.run(["gcc", "-O1", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter",
                        "-o", f"{tmp}/h", f"{tmp}/h.c"], check=True)
        out = subprocess.run([f"{tmp}/h"], check=True, capture_output=True, text=True).stdout
        # patch 4's document: no health section, the stock class on "changed:" rows
        relax, holes = f"{tmp}/relax.policy", f"{tmp}/holes.policy"
        subprocess.run([f"{TOP}/policy/model", "--policy", policy, "--without-health", relax],
                       check=True)
        subprocess.run([f"{TOP}/policy/model", "--policy", relax, "--holes-only", holes],
                       check=True)
        stock_list = f"{TOP}/policy/linux-6.1.list"
        policies = {"patch 4 (holes only)": model.Policy(holes, stock_list),
                    "the whole policy": model.Policy(policy, stock_list)}
    bad, refused, relaxed = [], set(), set()
    for line in out.splitlines():
        ptype, op, b1, b9, length, w, fix, st = map(int, line.split())
        if fix and not st:
            bad.append(f"the fix allows {op:#04x} (byte 1 {b1:#04x}, byte 9 {b9:#04x}, "
                       f"{length} bytes) on type {ptype:#04x} with a "
                       f"{'writable' if w else 'read-only'} open, which stock refuses")
            continue
        refused.add((ptype, op, b1, b9, length, w))
        if length != 16:
            continue
        cdb = bytes([op, b1]) + bytes(7) + bytes([b9]) + bytes(6)
        for name, pol in policies.items():
            cls = pol.decide(pol.set_of_type(ptype), cdb)
            if not (cls == "read" or (w and cls == "write")):
                continue
            rule = deciding_rule(pol, pol.set_of_type(ptype), cdb)
            if rule is not None and rule.kind == "changed":
                # a row that relaxes the stock class, with its reason
                # (the disk health rows): a new permission, not a hole
                relaxed.add((ptype, op, b1, b9, w, rule.lineno))
            else:
                bad.append(f"{name} allows {op:#04x} (byte 1 {b1:#04x}, byte 9 {b9:#04x}) "
                           f"on type {ptype:#04x} with a {'writable' if w else 'read-only'} "
                           f"open, which the fix refuses")
    # (what, (type, opcode, CDB byte 1, CDB byte 9, writable), refused by the fix?)
    cases = (
        ("UNMAP from a read-only open of a disk", (0, 0x42, 0, 0, 0), True),
        ("SANITIZE from a read-only open of a disk", (0, 0x48, 0, 0, 0), True),
        ("MAINTENANCE OUT (SET TARGET PORT GROUPS) from a read-only open of a disk",
         (0, 0xa4, 0x0a, 0, 0), True),
        ("REMOVE ELEMENT AND TRUNCATE from a read-only open of a disk", (0, 0x9e, 0x18, 0, 0), True),
        ("ZONE ACTIVATE from a read-only open of a zoned disk", (0x14, 0x95, 0x08, 0, 0), True),
        ("ATA PASS-THROUGH(12) SECURITY ERASE UNIT from a writable open of a disk",
         (0, 0xa1, 0x08, 0xf4, 1), True),
        ("SANITIZE from a writable open of a disk", (0, 0x48, 0, 0, 1), True),
        ("REMOVE ELEMENT AND TRUNCATE from a writable open of a disk", (0, 0x9e, 0x18, 0, 1), True),
        ("0xea (vendor specific, listed as WRITE_LONG_2) from a writable open of a disk",
         (0, 0xea, 0, 0, 1), True),
        ("0x0d (not an opcode, listed as WRITE_SAME_32) from a writable open of a disk",
         (0, 0x0d, 0, 0, 1), True),
        ("READ SUB-CHANNEL from a read-only open of a CD drive", (5, 0x42, 0, 0, 0), False),
        ("PLAY AUDIO TRACK INDEX from a read-only open of a CD drive", (5, 0x48, 0, 0, 0), False),
        ("BLANK from a writable open of a CD drive", (5, 0xa1, 0x01, 0, 1), False),
        ("ATA PASS-THROUGH(12) IDENTIFY DEVICE from a writable open of a disk",
         (0, 0xa1, 0x08, 0xec, 1), False),
        ("READ CAPACITY(16) from a read-only open of a disk", (0, 0x9e, 0x10, 0, 0), False),
        ("ZONE ACTIVATE from a writable open of a zoned disk", (0x14, 0x95, 0x08, 0, 1), False),
        ("UNMAP from a writable open of a disk", (0, 0x42, 0, 0, 1), False),
    )
    for what, (ptype, op, b1, b9, w), want in cases:
        if ((ptype, op, b1, b9, 16, w) in refused) != want:
            bad.append(f"the fix {'allows' if want else 'refuses'} {what}")
    for b in bad[:20]:
        print(b)
    if bad:
        print(f"{len(bad)} disagreements")
        return 1
    print(f"{len(refused)} (type, opcode, CDB bytes 1 and 9, length, open mode) cases stock "
          "allows and the fix refuses, each refused by both policies"
          + (f" but {len(relaxed)} a row of the whole policy allows as a change with its reason "
             f"(lines {', '.join(str(n) for n in sorted({r[-1] for r in relaxed}))})"
             if relaxed else "") + "; none the other way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
