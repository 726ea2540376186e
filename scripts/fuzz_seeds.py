#!/usr/bin/python3
"""Seed corpora of the fuzz targets (tests/fuzz, docs/fuzzing.md), built from
the repository's own inputs; nothing here is committed.

    fuzz_seeds.py BUILD_DIR OUT_DIR

BUILD_DIR is the fuzz build (build/sanitize: vlgpu-asm and vlgpu-fuzz-cp-seeds);
OUT_DIR/<target>/ receives one file per seed (OUT_DIR is emptied first):

  asm      every .s file under tests/ and the text of every golden case
           (tests/isa/golden.txt)
  isa      the units of every golden and negative case (tests/isa/golden_pack.py)
           and of every .s file (assembled by vlgpu-asm)
  hw-text  every [section] of the corpus dumps' draw.txt and command.txt, as
           "STRUCT\\n" + its lines
  config   the corpus dumps' config.json and a few key=value override lists
  dump     every corpus dump directory packed into fuzz_dump.cpp's container,
           without the *-after files and stats.json (replay only compares with
           them) to keep the seeds small
  cp       vlgpu-fuzz-cp-seeds: the VRAM and queue each corpus dump replays
           with, and a SYNC + HALT queue
  capture  each cp seed as a frame capture in fuzz_capture.cpp's container: a
           manifest, an empty config.json, its nonzero VRAM pages as blob-N, and an
           event log recording those pages, the submit of its queue and a frame end
"""
import json
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
DUMPS = sorted(p for p in (TESTS / "sim/corpus/dumps").iterdir() if p.is_dir())
OVERRIDES = ["gpcs=2,spcs_per_gpc=8", "queues.cp.out_draw.capacity=8",
             "vram.size_bytes=16M, memory.latency_cycles=0x40",
             "queues.cp.out_draw->gts.in_draw.latency=3"]
DUMP_SKIP = re.compile(r"(-after\.|^stats\.json$)")


def put(out, target, data, name=None):
    """Write one seed (bytes) named by @name or its hash."""
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / (name or hashlib.sha1(data).hexdigest()[:16])).write_bytes(data)


def asm_sources():
    return sorted(TESTS.rglob("*.s"))


def golden_cases():
    """The assembly text of every golden case ("TEXT = fields")."""
    for line in (TESTS / "isa/golden.txt").read_text().splitlines():
        if line and not line.startswith("#") and " = " in line:
            yield line.split(" = ", 1)[0].strip()


def packed_units(tmp):
    """Units of every golden and negative case, from golden_pack.py's hex lines."""
    for extra, name in (([], "golden.txt"), (["--negative"], "negative.txt")):
        hexfile = tmp / (name + ".hex")
        subprocess.run([sys.executable, str(TESTS / "isa/golden_pack.py")] + extra +
                       [str(ROOT / "src/vlgpu/isa"), str(TESTS / "isa" / name), str(hexfile)],
                       check=True)
        for line in hexfile.read_text().splitlines():
            words = [w for w in line.split("|")[0].split() if re.fullmatch(r"[0-9A-Fa-f]{8}", w)]
            if words:
                yield b"".join(int(w, 16).to_bytes(4, "little") for w in words)


def hw_sections(path):
    """("struct", text) of every [section] of a draw.txt/command.txt; the
    struct is named in the header comment: "[vs]  # shader_state (77 dwords)"."""
    struct, lines = None, []
    for line in path.read_text().splitlines() + ["[end]"]:
        if line.startswith("["):
            if struct:
                yield struct, "\n".join(lines) + "\n"
            m = re.match(r"\[[^\]]*\]\s*#\s*(\w+)", line)
            struct, lines = (m.group(1) if m else None), []
        elif struct:
            lines.append(line)


def dump_container(d):
    parts = []
    for f in sorted(d.iterdir()):
        if f.is_file() and not DUMP_SKIP.search(f.name):
            parts.append(b"--- " + f.name.encode() + b"\n" + f.read_bytes())
    return b"\n".join(parts)


def capture_container(cp_seed):
    """A cp seed (fuzz_cp_input.h: queue address u32, dwords u32, VRAM image) as a
    capture container (fuzz_capture.cpp)."""
    address = int.from_bytes(cp_seed[0:4], "little")
    dwords = int.from_bytes(cp_seed[4:8], "little")
    vram, page = cp_seed[8:], 65536
    manifest = {"format": "vlgpu-capture", "version": 1, "page_bytes": page,
                "mode": "functional", "driver_params": {}}
    parts = [b"--- manifest.json\n" + json.dumps(manifest).encode(), b"--- config.json\n{}"]
    pages = []
    for i in range(0, len(vram), page):
        data = vram[i:i + page]
        if data.strip(b"\0"):
            parts.append(f"--- blob-{len(pages)}\n".encode() + data)
            pages.append([i, f"@{len(pages)}"])
    events = [{"ev": "pages", "pages": pages},
              {"ev": "submit", "submit": 0, "fence": 0, "draws": 0, "cmd_address": address,
               "cmd_dwords": dwords},
              {"ev": "end_frame", "frame": 0}]
    # last in the container, so its final newline (which the log needs) stays its own
    parts.append(b"--- events.jsonl\n" + "".join(json.dumps(e) + "\n" for e in events).encode())
    return b"\n".join(parts)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    build, out = Path(argv[1]), Path(argv[2])
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    asm = build / "src/vlgpu/tools/vlgpu-asm"
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for s in asm_sources():
            put(out, "asm", s.read_bytes(), s.stem)
            binf = tmp / (s.stem + ".bin")
            subprocess.run([str(asm), str(s), "-o", str(binf)], check=True,
                           stdout=subprocess.DEVNULL)
            put(out, "isa", binf.read_bytes(), s.stem)
        for text in golden_cases():
            put(out, "asm", text.encode() + b"\n")
        for units in packed_units(tmp):
            put(out, "isa", units)
    for d in DUMPS:
        for f in ("draw.txt", "command.txt"):
            if (d / f).exists():
                for struct, text in hw_sections(d / f):
                    put(out, "hw-text", (struct + "\n" + text).encode())
        if (d / "config.json").exists():
            put(out, "config", (d / "config.json").read_bytes())
        put(out, "dump", dump_container(d), d.name)
    for o in OVERRIDES:
        put(out, "config", o.encode())
    (out / "cp").mkdir()
    subprocess.run([str(build / "tests/fuzz/vlgpu-fuzz-cp-seeds"), str(out / "cp")] +
                   [str(d) for d in DUMPS], check=True)
    for seed in sorted((out / "cp").iterdir()):
        put(out, "capture", capture_container(seed.read_bytes()), seed.name)
    for t in sorted(out.iterdir()):
        n = sum(1 for _ in t.iterdir())
        size = sum(f.stat().st_size for f in t.iterdir())
        print(f"    seeds {t.name}: {n} files, {size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
