#!/usr/bin/env python3
"""The device library defines exactly the C functions of vlgpu_drm.h.

usage: check_exports.py NM LIBRARY HEADER
Lists the library's defined, unmangled text symbols (nm) and the function
names declared in the header; fails with the difference.
"""
import re
import subprocess
import sys


def main():
    nm, lib, header = sys.argv[1:4]
    out = subprocess.run([nm, "-g", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    defined = {line.split()[-1] for line in out.splitlines()
               if re.match(r"^[0-9a-f]+ T ", line) and not line.split()[-1].startswith("_Z")}
    text = open(header, encoding="utf-8").read()
    declared = set(re.findall(r"\b(vlg_drm_\w+)\s*\(", text))
    missing, extra = declared - defined, defined - declared
    if missing or extra:
        print(f"not defined by {lib}: {sorted(missing)}")
        print(f"C symbols not declared in {header}: {sorted(extra)}")
        return 1
    print(f"{len(defined)} functions, all declared in vlgpu_drm.h: {' '.join(sorted(defined))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
