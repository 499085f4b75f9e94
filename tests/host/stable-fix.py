#!/usr/bin/env python3
"""The series' stable fix (patch 2: scsi_ro_rules in scsi_ioctl.c) against
the policy that replaces it (patch 4's document, and the whole one of the
patches after it): every read-only command the fix refuses on a device
type, the policy refuses as well (it is not read-class there), so no later
patch reopens what the fix closed; and the fix only narrows 6.1's
read-safe list.

  stable-fix.py PATCH STOCK_TREE [POLICY]   (exit 0 if they agree; prints
  why not; POLICY is policy/default.policy unless given)
"""
import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_model():
    loader = importlib.machinery.SourceFileLoader("model", f"{TOP}/policy/model")
    spec = importlib.util.spec_from_loader("model", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def header_defs(stock):
    defs = {}
    for f in ("include/scsi/scsi_proto.h", "include/uapi/linux/cdrom.h"):
        for m in re.finditer(r"#define\s+(\w+)\s+(0x[0-9a-fA-F]+|\d+)\b",
                             open(f"{stock}/{f}").read()):
            defs.setdefault(m.group(1), int(m.group(2), 0))
    return defs


def value(expr, defs):
    """A C constant expression of the table: names, BIT(), GENMASK(), |."""
    e = re.sub(r"GENMASK\((\d+),\s*(\d+)\)",
               lambda m: str(((1 << (int(m.group(1)) + 1)) - 1) & ~((1 << int(m.group(2))) - 1)), expr)
    e = re.sub(r"BIT\((\w+)\)", r"(1 << \1)", e)
    e = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: str(defs[m.group(0)]), e)
    if not re.fullmatch(r"[0-9xa-fA-F()<|\s]+", e):
        raise ValueError(f"cannot evaluate {expr!r}")
    return eval(e)  # digits, shifts and ors only (checked above)


def stable_rules(patch, defs):
    added = "\n".join(l[1:] for l in open(patch).read().splitlines()
                      if l.startswith("+") and not l.startswith("+++"))
    for m in re.finditer(r"#define\s+(SCSI_\w+_TYPES)\s+(.+)", added):
        defs[m.group(1)] = value(m.group(2).strip(), defs)
    body = added[added.index("scsi_ro_rules[] = {"):]
    body = body[:body.index("\n};")]
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    rules = []
    for init in re.findall(r"\{([^{}]*)\}", body[body.index("{") + 1:]):
        f = dict(re.findall(r"\.(\w+)\s*=\s*([^,]+?)\s*(?:,|$)", init.strip()))
        rules.append((value(f["opcode"], defs), f.get("match_sa") == "true",
                      value(f["sa"], defs) if "sa" in f else 0, value(f["types"], defs)))
    if not rules:
        raise ValueError("no rows in scsi_ro_rules")
    return rules


def stable_read_safe(rules, stock_read, ptype, cdb):
    """scsi_cmd_read_safe() and the read-safe list, for a read-only open."""
    if cdb[0] not in stock_read:
        return False
    mine = [r for r in rules if r[0] == cdb[0]]
    if not mine:
        return True
    for op, match_sa, sa, types in mine:
        if match_sa and (cdb[1] & 0x1f) != sa:
            continue
        if ptype < 32 and types & (1 << ptype):
            return True
    return False


def main():
    patch, stock = sys.argv[1:3]
    policy = sys.argv[3] if len(sys.argv) > 3 else f"{TOP}/policy/default.policy"
    model = load_model()
    defs = header_defs(stock)
    rules = stable_rules(patch, defs)
    stock_list = f"{TOP}/policy/linux-6.1.list"
    with tempfile.TemporaryDirectory() as tmp:
        # patch 4's document: no health section, 6.1's class on "changed:" rows
        relax, holes = f"{tmp}/relax.policy", f"{tmp}/holes.policy"
        subprocess.run([f"{TOP}/policy/model", "--policy", policy, "--without-health", relax],
                       check=True)
        subprocess.run([f"{TOP}/policy/model", "--policy", relax, "--holes-only", holes],
                       check=True)
        policies = {"patch 4 (holes only)": model.Policy(holes, stock_list),
                    "the whole policy": model.Policy(policy, stock_list)}
    any_pol = next(iter(policies.values()))
    stock_read = {op for op, (cls, _) in any_pol.stock.items() if cls == "read"}
    bad = []
    for op, *_ in rules:
        if op not in stock_read:
            bad.append(f"the fix names {op:#04x}, which 6.1's list does not allow read-only")
    checked = 0
    for op in sorted({r[0] for r in rules}):
        for sa in range(32):
            cdb = bytes([op, sa]) + bytes(14)
            for ptype in range(32):
                if stable_read_safe(rules, stock_read, ptype, cdb):
                    continue
                checked += 1
                for name, pol in policies.items():
                    cls = pol.decide(pol.set_of_type(ptype), cdb)
                    if cls == "read":
                        bad.append(f"{name} allows {op:#04x}/sa={sa:#04x} read-only on type "
                                   f"{ptype:#04x}, which the fix refuses")
    for b in bad[:20]:
        print(b)
    print(f"{len(rules)} rows; {checked} (opcode, service action, type) cases the fix refuses "
          f"to a read-only open, each refused by both policies" if not bad else
          f"{len(bad)} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
