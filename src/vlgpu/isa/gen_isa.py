#!/usr/bin/env python3
"""Generate the VL-IW ISA code and documentation tables from isa.py.

Usage:
  gen_isa.py --header OUT.h --source OUT.c      C op-info table, field macros,
                                                encoder, decoder, disassembler
  gen_isa.py --docs                             print the generated tables of docs/isa.md
  gen_isa.py --check-docs docs/isa.md           exit 1 (with a diff) if the tables in
                                                docs/isa.md differ from isa.py
  gen_isa.py --update-docs docs/isa.md          rewrite the tables in docs/isa.md

Run at build time by meson (src/vlgpu/isa/meson.build); the outputs are never
committed. Needs Python 3 with Mako (Debian python3-mako).
"""

import argparse
import difflib
import os
import re
import sys

from mako.template import Template

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import isa  # noqa: E402


def field_width(f):
    return f[1] - f[2] + 1


def class_mask(o):
    names = [c[0] for c in isa.CLASSES]
    m = 0
    for c in o.classes:
        m |= 1 << names.index(c)
    return m


def phase_mask(o):
    m = 0
    for p in o.phases:
        m |= 1 << p
    return m


def render(name, **kw):
    t = Template(filename=os.path.join(HERE, name))
    return t.render(isa=isa, field_width=field_width, class_mask=class_mask,
                    phase_mask=phase_mask, **kw)


# ---------------------------------------------------------------------------
# Documentation tables
# ---------------------------------------------------------------------------

def md_escape(s):
    return s.replace("|", "\\|")


def docs_tables():
    """Return {section name: markdown text} for docs/isa.md."""
    out = {}

    # Unit formats with every bit
    lines = []
    for fmt in isa.FORMATS.values():
        lines.append("#### `%s` (%s unit)" % (fmt["name"], fmt["unit"]))
        lines.append("")
        lines.append(md_escape(fmt["doc"]))
        lines.append("")
        lines.append("| bits | field | kind | meaning |")
        lines.append("|---|---|---|---|")
        lines.append("| 31 | E | flag | last unit of the instruction |")
        lines.append("| 30 | P | flag | phase of this unit |")
        for (name, hi, lo, kind, doc) in fmt["fields"]:
            bits = "%d" % hi if hi == lo else "%d:%d" % (hi, lo)
            lines.append("| %s | `%s` | %s | %s |" % (bits, name, kind, md_escape(doc)))
        lines.append("")
    out["formats"] = "\n".join(lines).rstrip() + "\n"

    # Enumerations
    lines = []
    for ename, vals in isa.ENUMS.items():
        lines.append("- `%s`: " % ename + "; ".join(
            "%d = `%s` (%s)" % (v, n, md_escape(d)) for (n, v, d) in vals))
    out["enums"] = "\n".join(lines) + "\n"

    # Classes
    lines = ["| class | what |", "|---|---|"]
    for (n, d) in isa.CLASSES:
        lines.append("| `%s` | %s |" % (n, md_escape(d)))
    out["classes"] = "\n".join(lines) + "\n"

    # Opcodes
    lines = ["| opcode | mnemonic | format | sources | classes | latency | phases | operands | seed 004 row | semantics |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for o in sorted(isa.OPS, key=lambda o: o.value):
        ph = "/".join(str(p) for p in o.phases)
        sem = o.sem + ((" " + o.corner) if o.corner else "")
        lines.append("| 0x%02X | `%s` | %s | %d | %s | %d | %s | %s | %s | %s |" % (
            o.value, o.name, o.format, o.nsrc, ", ".join(o.classes) or "-",
            o.latency, ph, o.otype, o.seed, md_escape(sem)))
    used = {o.value for o in isa.OPS}
    free = [v for v in range(64) if v not in used]
    lines.append("")
    lines.append("Reserved (undefined, rejected by the decoder): " +
                 ", ".join("0x%02X" % v for v in free) + ".")
    out["opcodes"] = "\n".join(lines) + "\n"

    # Combinations
    lines = ["| # | units (P bits) | shape |", "|---|---|---|"]
    for i, c in enumerate(isa.COMBINATIONS):
        shape = []
        for ph in (0, 1):
            k = c.count(ph)
            if k:
                shape.append("phase %d: Main%s" % (ph, " + Sub" if k == 2 else ""))
        lines.append("| %d | %s | %s |" % (i + 1, " ".join(str(p) for p in c), "; ".join(shape)))
    out["combinations"] = "\n".join(lines) + "\n"
    return out


BEGIN = "<!-- BEGIN GENERATED %s (src/vlgpu/isa/gen_isa.py --update-docs) -->"
END = "<!-- END GENERATED %s -->"


def splice_docs(text, tables):
    for name, body in tables.items():
        b, e = BEGIN % name, END % name
        pat = re.compile(re.escape(b) + r".*?" + re.escape(e), re.S)
        if not pat.search(text):
            raise SystemExit("docs: section markers for '%s' not found" % name)
        text = pat.sub(lambda m: b + "\n" + body + e, text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--header")
    ap.add_argument("--source")
    ap.add_argument("--docs", action="store_true")
    ap.add_argument("--check-docs", metavar="ISA_MD")
    ap.add_argument("--update-docs", metavar="ISA_MD")
    args = ap.parse_args()

    if args.header:
        with open(args.header, "w") as f:
            f.write(render("vlg_isa_gen.h.mako"))
    if args.source:
        with open(args.source, "w") as f:
            f.write(render("vlg_isa_gen.c.mako"))
    if args.docs:
        for name, body in docs_tables().items():
            print("<!-- %s -->\n%s" % (name, body))
    if args.check_docs:
        with open(args.check_docs) as f:
            text = f.read()
        new = splice_docs(text, docs_tables())
        if new != text:
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(True), new.splitlines(True),
                args.check_docs, "generated from isa.py"))
            print("\n%s is out of date: run src/vlgpu/isa/gen_isa.py --update-docs %s"
                  % (args.check_docs, args.check_docs))
            return 1
        print("%s: tables match isa.py" % args.check_docs)
    if args.update_docs:
        with open(args.update_docs) as f:
            text = f.read()
        with open(args.update_docs, "w") as f:
            f.write(splice_docs(text, docs_tables()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
