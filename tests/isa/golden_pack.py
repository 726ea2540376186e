#!/usr/bin/env python3
"""Turn the hand-written golden ISA cases into hex.

Each case in golden.txt is written twice by hand: as canonical assembly text and
as the unit fields it must encode to, e.g.

    ADD R1, R2, R3 = alu2 op=ADD dst=1 a=2 b=3 wmask=xyzw

This script only places those hand-chosen field values at the bit positions of
isa.py (no encoding decisions: which units exist, which Sub mode, which field
holds what is all in the case), sets P per phase ('|' separates phase 0 from
phase 1) and E on the last unit, and writes "HEX HEX ... | TEXT" lines for the
C++ test, which checks that the assembler produces exactly these units and the
disassembler prints exactly this text.

With --negative the input is negative.txt: "REASON = UNITS", units separated
by ';' with the framing bits written by hand as the words E and P (or a raw
word as raw=0x...); the output lines are "LINE HEX... | REASON".

Usage: golden_pack.py [--negative] ISA_DIR golden.txt OUT
"""
import sys


def parse_value(fmt, field, kind, text, isa):
    if kind == "op":
        if text in isa.OPS_BY_NAME:
            return isa.OPS_BY_NAME[text].value
    if kind.startswith("enum:"):
        for (n, v, d) in isa.ENUMS[kind[5:]]:
            if n == text:
                return v
    if kind == "mode":
        for (n, v, f) in isa.SUB_MODES:
            if n == text:
                return v
    if kind == "swz" and text.startswith("."):
        comps = "xyzw"
        letters = text[1:]
        assert 1 <= len(letters) <= 4, text
        letters = letters + letters[-1] * (4 - len(letters))
        v = 0
        for i, ch in enumerate(letters):
            v |= comps.index(ch) << (2 * i)
        return v
    if kind == "mask" and text and all(ch in "xyzw" for ch in text):
        return sum(1 << "xyzw".index(ch) for ch in text)
    v = int(text, 0)
    return v


def pack_unit(spec, isa):
    words = spec.split()
    # Negative cases set the framing bits by hand: flags 'E' and 'P' anywhere.
    flags = 0
    if "E" in words:
        flags |= 1 << isa.E_BIT
        words.remove("E")
    if "P" in words:
        flags |= 1 << isa.P_BIT
        words.remove("P")
    if words[0].startswith("raw="):
        return int(words[0][4:], 0) | flags
    return pack_fields(words, isa) | flags


def pack_fields(words, isa):
    fmt = words[0]
    fields = isa.format_fields(fmt)
    u = 0
    seen = set()
    for w in words[1:]:
        name, _, val = w.partition("=")
        if name not in fields:
            raise SystemExit("golden: format %s has no field %s" % (fmt, name))
        hi, lo, kind = fields[name]
        v = parse_value(fmt, name, kind, val, isa)
        width = hi - lo + 1
        if kind == "simm":
            if not -(1 << (width - 1)) <= v < (1 << (width - 1)):
                raise SystemExit("golden: %s.%s=%s does not fit" % (fmt, name, val))
            v &= (1 << width) - 1
        if not 0 <= v < (1 << width):
            raise SystemExit("golden: %s.%s=%s does not fit in %d bits" % (fmt, name, val, width))
        u |= v << lo
        seen.add(name)
    # Sub units carry their mode; default it from the format name.
    if "mode" in fields and "mode" not in seen:
        mode = {f: v for (n, v, f) in isa.SUB_MODES}[fmt]
        u |= mode << fields["mode"][1]
    return u


def pack_case(fieldspec, isa):
    phases = fieldspec.split("|")
    assert len(phases) in (1, 2)
    units = []
    for p, ph in enumerate(phases):
        ph = ph.strip()
        if not ph:
            continue
        for spec in ph.split(";"):
            units.append(pack_unit(spec.strip(), isa) | (p << isa.P_BIT))
    units[-1] |= 1 << isa.E_BIT
    return units


def pack_negative(fieldspec, isa):
    """Negative cases: units separated by ';', E and P given explicitly."""
    return [pack_unit(spec.strip(), isa) for spec in fieldspec.split(";")]


def main():
    negative = "--negative" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--negative"]
    isa_dir, src, out = args[:3]
    sys.path.insert(0, isa_dir)
    import isa
    lines = []
    for lineno, line in enumerate(open(src), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        text, sep, fieldspec = line.rpartition(" = ")
        if not sep:
            raise SystemExit("%s:%d: expected 'TEXT = FIELDS'" % (src, lineno))
        # Units of a phase are separated by ';' in the field spec, so the text
        # itself must not contain ' = '.
        units = pack_negative(fieldspec, isa) if negative else pack_case(fieldspec, isa)
        lines.append("%d %s | %s" % (lineno, " ".join("%08X" % u for u in units), text.strip()))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
