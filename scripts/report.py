#!/usr/bin/python3
"""One self-contained HTML report page of a run (`./vlgpu report OUT_DIR [-o FILE]`).

Reads what a run left in OUT_DIR and writes one HTML file (default
OUT_DIR/report.html): images embedded as base64 data URIs, charts drawn with
matplotlib as inline SVG, no external URL, no JavaScript.  The kinds of run it
knows, by the file that marks them (several may be found in one directory):

  glmark2   results.json of `./vlgpu glmark2 -- --out OUT_DIR` (NN-SCENE/ dirs)
  demo      summary.json of `./vlgpu demo` (out/demo: es2gears/, glmark2/)
  bench     glmark2.json of `./vlgpu bench glmark2 --out OUT_DIR`
  ubench    ubench.json of `./vlgpu ubench --out OUT_DIR`
  profile   profile.json of `./vlgpu profile --out OUT_DIR` (when alone: next to
            another run's files it is that run's VLGPU_PROFILE output)

Sweep runs do not exist yet; the report does not know them.

Sections, each only when its data exists: run header (kind, date, commit,
mode, command, from the files), per-scene table; per scene: vlgpu's final
frame next to softpipe's with the diff (|vlgpu - softpipe| per channel x8,
the run's diff.png, or computed here) and the metric (max channel error,
differing pixels, PSNR); per-draw simulated cycles (VLGPU_STATS draws file);
module utilisation (busy/stalled/starved per module, weighted by frame
cycles); the bottleneck breakdown (cause_* columns, docs/simulator.md
"Bottleneck report"); the hottest shader lines of every profile.json
(VLGPU_PROFILE) found under OUT_DIR; relative links to the per-draw dump
directories (VLGPU_DUMP) found under OUT_DIR.

Exit code: 0 when the report was written; 1 when OUT_DIR holds no run this
command knows (the message names the directory and what was looked for);
2 on bad usage.
"""

import argparse
import base64
import csv
import html
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

DRIVERS = ("vlgpu", "softpipe")
MAX_DRAW_BARS = 120      # per-draw chart: the last draws up to this many
MAX_HOT_LINES = 15       # hottest shader lines per profile
MAX_DUMP_DRAWS = 40      # dump links per dump directory
FRAME_VIEWS = [("vlgpu", "vlgpu"), ("softpipe", "softpipe"), ("diff", "|vlgpu - softpipe| x8"),
               ("mask", "differing pixels in red")]
MARKERS = {"glmark2": "results.json", "demo": "summary.json", "bench": "glmark2.json",
           "ubench": "ubench.json", "profile": "profile.json"}


class ReportError(Exception):
    """The report cannot be made; the message names the path and why."""


# ---------------------------------------------------------------------------
# Reading the run's files
# ---------------------------------------------------------------------------


def load_json(path):
    """The JSON document at PATH; ReportError naming PATH if it is not JSON."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ReportError(f"{path}: cannot read it as JSON: {e}")


def read_csv(path):
    """Rows of a CSV file as a list of dicts (strings); [] when PATH does not exist."""
    if not path or not path.is_file():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(v, default=0.0):
    """float(V), DEFAULT for '' / None / unparsable."""
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def detect(out_dir):
    """The kinds of run OUT_DIR holds: {kind: document} for each marker file found
    (MARKERS) whose content is that kind's."""
    found = {}
    for kind, name in MARKERS.items():
        p = out_dir / name
        if not p.is_file():
            continue
        doc = load_json(p)
        ok = {"glmark2": lambda d: "scenes" in d and "args" in d,
              "demo": lambda d: "es2gears" in d or "glmark2" in d,
              "bench": lambda d: d.get("benchmark") == "glmark2",
              "ubench": lambda d: "rows" in d and "meta" in d,
              "profile": lambda d: "shaders" in d}[kind]
        if isinstance(doc, dict) and ok(doc):
            found[kind] = doc
    # A profile.json next to another run's files is that run's VLGPU_PROFILE output
    # (hottest shader lines), not a `./vlgpu profile` run of its own.
    if len(found) > 1:
        found.pop("profile", None)
    return found


def local(out_dir, recorded):
    """A path the run recorded (absolute, maybe of another location of OUT_DIR)
    found again under OUT_DIR: as recorded if it exists, else by its last two
    components, else None."""
    if not recorded:
        return None
    p = Path(recorded)
    if p.exists():
        return p
    for k in (2, 1):
        q = out_dir.joinpath(*p.parts[-k:])
        if q.exists():
            return q
    return None


def stats_files(d):
    """(frames csv, draws csv) of a VLGPU_STATS output in directory D: X.csv +
    X.draws.csv, or a VLGPU_STATS directory's frames.csv + draws.csv; (None, None)."""
    for frames, draws in (("stats.csv", "stats.draws.csv"), ("frames.csv", "draws.csv")):
        if (d / frames).is_file():
            return d / frames, (d / draws) if (d / draws).is_file() else None
    return None, None


def scene_item(name, sdir, res):
    """One scene of a glmark2-style result (scripts/glmark2.py run_all): a dict with
    name, dir, images {vlgpu, softpipe, diff: Path or None}, compare (metric dict or
    None), status per driver, stats (frames csv), draws (draws csv), dumps."""
    item = {"name": name, "dir": sdir, "compare": (res or {}).get("compare"),
            "status": {}, "cycles_per_frame": None}
    for d in DRIVERS:
        r = (res or {}).get(d) or {}
        if r:
            st = r.get("validation") or f"{r.get('frames', 0)} frames"
            item["status"][d] = st if r.get("exit_code") == 0 else f"exit {r.get('exit_code')}"
    if res and res.get("vlgpu"):
        item["cycles_per_frame"] = res["vlgpu"].get("cycles_per_frame")
    item["images"] = {k: (sdir / f"{k}.png") if (sdir / f"{k}.png").is_file() else None
                      for k in ("vlgpu", "softpipe", "diff")}
    item["stats"], item["draws"] = stats_files(sdir / "vlgpu")
    item["dumps"] = [p for p in [sdir / "vlgpu" / "dump", sdir / "dump"] if p.is_dir()]
    return item


def items_glmark2(out_dir, doc):
    """Scene items of a `./vlgpu glmark2` results.json."""
    out = []
    for r in doc["scenes"]:
        sdir = local(out_dir, r.get("dir"))
        if sdir:
            out.append(scene_item(r["scene"], sdir, r))
    return out


def items_demo(out_dir, doc):
    """Items of a `./vlgpu demo` summary.json: es2gears, then the glmark2 scenes."""
    out = []
    if "es2gears" in doc and "error" not in doc["es2gears"]:
        it = scene_item("es2gears_x11", out_dir / "es2gears", doc["es2gears"])
        out.append(it)
    for r in doc.get("glmark2") or []:
        sdir = local(out_dir, r.get("dir"))
        if sdir:
            out.append(scene_item("glmark2 " + r["scene"], sdir, r))
    return out


def items_bench(out_dir, doc):
    """Per-run items of a `./vlgpu bench glmark2` glmark2.json: one per cycle-mode
    run with statistics (no frames: bench does not keep them)."""
    out = []
    for r in doc.get("runs", []):
        w = local(out_dir, r.get("workdir"))
        if r.get("mode") != "cycle" or not w:
            continue
        frames, draws = stats_files(w)
        if frames:
            out.append({"name": f"{r['scene']} (cycle, rep {r.get('rep', 0)})", "dir": w,
                        "compare": None, "status": {}, "images": {}, "stats": frames,
                        "draws": draws, "dumps": [], "cycles_per_frame": None})
    return out


def items_ubench(out_dir, doc):
    """One item per ubench run with a VLGPU_STATS directory (runs/NAME/)."""
    out = []
    for d in sorted((out_dir / "runs").glob("*/")):
        frames, draws = stats_files(d)
        if frames:
            out.append({"name": f"ubench run {d.name}", "dir": d, "compare": None,
                        "status": {}, "images": {}, "stats": frames, "draws": draws,
                        "dumps": [], "cycles_per_frame": None})
    return out


def items_profile(out_dir, doc):
    """The item of a `./vlgpu profile` directory: its run/ statistics."""
    frames, draws = stats_files(out_dir / "run")
    if not frames:
        return []
    return [{"name": "profiled run", "dir": out_dir / "run", "compare": None, "status": {},
             "images": {}, "stats": frames, "draws": draws, "dumps": [],
             "cycles_per_frame": None}]


def git_head():
    """The short commit of this checkout now (the report's own), or None."""
    r = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def header(out_dir, kinds):
    """Rows (label, value) of the run header, from the files."""
    rows = [("directory", str(out_dir)), ("kinds found", ", ".join(
        f"{k} ({MARKERS[k]})" for k in kinds))]
    for kind, doc in kinds.items():
        p = out_dir / MARKERS[kind]
        date = commit = mode = command = None
        if kind in ("glmark2", "demo"):  # machine: recorded since ./vlgpu report exists
            m = doc.get("machine") or {}
            date, commit = m.get("date"), m.get("git_head")
        if kind == "glmark2":
            a = doc["args"]
            mode = a.get("mode")
            command = ("./vlgpu glmark2 -- " + " ".join(f"-b {b}" for b in a.get("benchmark") or [])
                       + (" --validate" if a.get("validate") else f" --frames {a.get('frames')}")
                       + f" --mode {mode} -s {a.get('size')}"
                       + (" --dump" if a.get("dump") else ""))
        elif kind == "demo":
            mode = "es2gears: cycle" + ("; glmark2: functional" if "glmark2" in doc else "")
            command = "./vlgpu demo"
        elif kind == "bench":
            m = doc.get("machine", {})
            date, commit, command = m.get("date"), m.get("git_head"), doc.get("command")
            mode = ", ".join(doc.get("options", {}).get("modes", []))
        elif kind == "ubench":
            m = doc.get("meta", {})
            date, commit, command, mode = m.get("date"), m.get("commit"), m.get("command"), "cycle"
        elif kind == "profile":
            mode, command = "cycle", "./vlgpu profile"
        if not date:
            date = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(p.stat().st_mtime)) \
                + f" ({p.name} written)"
        rows += [(f"{kind}: date", date),
                 (f"{kind}: commit", commit or "not recorded in the run's files"),
                 (f"{kind}: mode", mode or "-"), (f"{kind}: command", command or "-")]
    rows.append(("report made at commit", git_head() or "unknown"))
    return rows


# ---------------------------------------------------------------------------
# Images and charts
# ---------------------------------------------------------------------------


def data_uri(png_bytes):
    return "data:image/png;base64," + base64.b64encode(png_bytes).decode()


def load_rgb(path):
    """An image file as an (H, W, 3) uint8 array."""
    import numpy as np
    from PIL import Image
    return np.asarray(Image.open(path).convert("RGB"))


def png_bytes(arr):
    from PIL import Image
    b = io.BytesIO()
    Image.fromarray(arr).save(b, "PNG", optimize=True)
    return b.getvalue()


def frames_section(item):
    """The side-by-side frames of ITEM: dict with uris {vlgpu, softpipe, diff} and the
    metric computed from the PNGs (max_error: max |vlgpu - softpipe| over 8-bit
    R, G, B; differing: pixels with any channel differing; pixels; psnr_db) or
    None when a frame is missing."""
    import numpy as np
    im = item["images"]
    if not (im.get("vlgpu") and im.get("softpipe")):
        return None
    a, b = load_rgb(im["vlgpu"]), load_rgb(im["softpipe"])
    out = {"uris": {"vlgpu": data_uri(im["vlgpu"].read_bytes()),
                    "softpipe": data_uri(im["softpipe"].read_bytes())}}
    if a.shape != b.shape:
        out["error"] = f"sizes differ: vlgpu {a.shape[1]}x{a.shape[0]}, " \
                       f"softpipe {b.shape[1]}x{b.shape[0]}"
        return out
    d = np.abs(a.astype(np.int16) - b.astype(np.int16))
    mse = float((d.astype(np.float64) ** 2).mean())
    out.update(max_error=int(d.max()), differing=int((d.max(axis=2) > 0).sum()),
               pixels=int(d.shape[0] * d.shape[1]),
               psnr_db=float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse))
    diff = np.clip(d * 8, 0, 255).astype(np.uint8)
    out["uris"]["diff"] = data_uri(im["diff"].read_bytes() if im.get("diff")
                                   else png_bytes(diff))
    # Where they differ: red on softpipe's frame dimmed to a quarter, each
    # differing pixel grown to 3x3 so that single pixels show.
    mask = (b // 4).astype(np.uint8)
    hit = d.max(axis=2) > 0
    grown = hit.copy()
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            grown |= np.roll(np.roll(hit, dy, axis=0), dx, axis=1)
    mask[grown] = (255, 0, 0)
    out["uris"]["mask"] = data_uri(png_bytes(mask))
    return out


def svg(fig):
    """A matplotlib figure as inline SVG text (no XML header), closed afterwards."""
    import matplotlib.pyplot as plt
    b = io.StringIO()
    fig.savefig(b, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = b.getvalue()
    return text[text.find("<svg"):]


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: smaller
    import matplotlib.pyplot as plt
    return plt


def draw_chart(draw_rows):
    """Bars of simulated cycles per draw (the draws file's `cycles`), the last
    MAX_DRAW_BARS draws; colour by kind. Returns (svg, shown, total) or None
    when no draw has cycles (functional mode)."""
    rows = [r for r in draw_rows if num(r.get("cycles")) > 0]
    if not rows:
        return None
    shown = rows[-MAX_DRAW_BARS:]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 2.8))
    kinds = sorted({r.get("kind", "?") for r in shown})
    colours = {k: plt.cm.tab10(i % 10) for i, k in enumerate(kinds)}
    x = range(len(shown))
    ax.bar(x, [num(r["cycles"]) for r in shown],
           color=[colours[r.get("kind", "?")] for r in shown])
    for k in kinds:
        ax.bar([0], [0], color=colours[k], label=k)
    ax.set_xlabel("draw (frame.draw)")
    ax.set_ylabel("simulated cycles")
    step = max(1, len(shown) // 20)
    ax.set_xticks(list(x)[::step])
    ax.set_xticklabels([f"{r['frame']}.{r['draw']}" for r in shown][::step], rotation=60,
                       fontsize=7)
    ax.legend(fontsize=7)
    ax.grid(axis="y", alpha=.3)
    return svg(fig), len(shown), len(rows)


def modules(frame_rows):
    """Per module the busy, stalled, starved fractions over all frames, weighted by
    each frame's cycles: [(module, busy, stalled, starved)], in column order; []
    without cycles (functional mode)."""
    total = sum(num(r.get("cycles")) for r in frame_rows)
    if not frame_rows or total <= 0:
        return []
    out = []
    for k in frame_rows[0]:
        if k and k.startswith("busy_"):
            m = k[len("busy_"):]
            out.append((m,) + tuple(sum(num(r.get(f"{s}_{m}")) * num(r.get("cycles"))
                                        for r in frame_rows) / total
                                    for s in ("busy", "stalled", "starved")))
    return out


def module_chart(mods):
    """Stacked horizontal bars: busy / stalled / starved fraction per module."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 0.3 * len(mods) + 1.0))
    names = [m[0] for m in mods]
    left = [0.0] * len(mods)
    for i, (label, colour) in enumerate((("busy", "#2a7"), ("stalled", "#d63"),
                                         ("starved", "#bbb"))):
        vals = [m[i + 1] * 100 for m in mods]
        ax.barh(names, vals, left=left, color=colour, label=label)
        left = [a + b for a, b in zip(left, vals)]
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of the frames' cycles (rest: idle)")
    ax.legend(fontsize=7, ncol=3, loc="lower right")
    ax.grid(axis="x", alpha=.3)
    return svg(fig)


def causes(frame_rows):
    """The bottleneck breakdown: [(cause, fraction of all frames' cycles)], largest
    first, from the cause_* columns (fractions of each frame, weighted by its
    cycles); [] without them."""
    total = sum(num(r.get("cycles")) for r in frame_rows)
    if not frame_rows or total <= 0:
        return []
    keys = [k for k in frame_rows[0] if k and k.startswith("cause_")]
    out = [(k[len("cause_"):], sum(num(r.get(k)) * num(r.get("cycles")) for r in frame_rows)
            / total) for k in keys]
    return sorted([c for c in out if c[1] > 0], key=lambda c: -c[1])


def cause_chart(frame_rows, cause_list):
    """Stacked bars of the causes per frame (fractions of the frame's cycles)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(min(9, 3 + 0.4 * len(frame_rows)), 2.8))
    x = [int(num(r.get("frame"), i)) for i, r in enumerate(frame_rows)]
    bottom = [0.0] * len(frame_rows)
    for i, (c, _) in enumerate(cause_list):
        vals = [num(r.get("cause_" + c)) * 100 for r in frame_rows]
        ax.bar(x, vals, bottom=bottom, label=c, color=plt.cm.tab20(i % 20))
        bottom = [a + b for a, b in zip(bottom, vals)]
    ax.set_xticks(x)
    ax.set_xlabel("frame")
    ax.set_ylabel("% of the frame's cycles")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=7, ncol=1, bbox_to_anchor=(1.01, 1), loc="upper left")
    return svg(fig)


def stats_section(item):
    """Per-draw bars, module utilisation and bottleneck breakdown of ITEM's
    statistics: a dict (keys only for what exists)."""
    frames, draws = read_csv(item.get("stats")), read_csv(item.get("draws"))
    out = {}
    if frames:
        out["frames"] = len(frames)
        out["cycles"] = [int(num(r.get("cycles"))) for r in frames]
    d = draw_chart(draws) if draws else None
    if d:
        out["draw_svg"], out["draws_shown"], out["draws_total"] = d
        out["draw_bottlenecks"] = {}
        for r in draws:
            b = r.get("bottleneck")
            if b and num(r.get("cycles")) > 0:
                out["draw_bottlenecks"][b] = out["draw_bottlenecks"].get(b, 0) + 1
    mods = modules(frames)
    if mods:
        out["modules"], out["module_svg"] = mods, module_chart(mods)
    cs = causes(frames)
    if cs:
        out["causes"], out["cause_svg"] = cs, cause_chart(frames, cs)
    return out


def hot_lines(profile):
    """The MAX_HOT_LINES hottest instructions over every shader of a VLGPU_PROFILE
    document: dicts with shader (stage@code), pc, text, cycles (issues + stall
    cycles), share of all profiled cycles (0..1), issues, lanes per issue,
    stalls {reason: cycles}."""
    rows = []
    for s in profile.get("shaders", []):
        for i in s.get("instructions", []):
            cyc = i["issues"] + sum(i["stalls"].values())
            rows.append({"shader": f"{s['stage']} @ {s['code']}", "pc": i["pc"],
                         "text": i["text"], "cycles": cyc, "issues": i["issues"],
                         "lanes": i["lanes"] / i["issues"] if i["issues"] else 0.0,
                         "stalls": i["stalls"]})
    total = sum(r["cycles"] for r in rows) or 1
    for r in rows:
        r["share"] = r["cycles"] / total
    rows.sort(key=lambda r: -r["cycles"])
    return rows[:MAX_HOT_LINES], len(profile.get("shaders", [])), total


def find_profiles(out_dir):
    """Every profile*.json under OUT_DIR holding a VLGPU_PROFILE document."""
    out = []
    for p in sorted(out_dir.rglob("profile*.json")):
        try:
            d = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(d, dict) and "shaders" in d:
            out.append((p, d))
    return out


def find_dumps(out_dir):
    """Every dump directory (holding draw-NNNNNN/ dirs) under OUT_DIR:
    [(dir, [draw dirs])], sorted."""
    parents = {}
    for d in out_dir.rglob("draw-*"):
        if d.is_dir() and ((d / "draw.txt").is_file() or (d / "command.txt").is_file()):
            parents.setdefault(d.parent, []).append(d)
    return [(p, sorted(v)) for p, v in sorted(parents.items())]


# ---------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------

TEMPLATE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>vlgpu report: ${title}</title>
<style>
body { font-family: sans-serif; margin: 1.5em; color: #222; max-width: 1250px; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0; font-size: .9em; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.frames { display: flex; gap: 12px; flex-wrap: wrap; }
.frames figure { margin: 0; } .frames img { width: 280px; border: 1px solid #999;
  image-rendering: pixelated; }
figcaption { font-size: .85em; text-align: center; }
code, pre { font-size: .85em; } .note { color: #555; font-size: .9em; }
svg { max-width: 100%; height: auto; }
</style></head>
<body>
<%def name="numeric_table(header, rows)">
<table><tr>
% for h in header:
<th>${h}</th>
% endfor
</tr>
% for row in rows:
<tr>
% for c in row:
<td${"" if loop.first else ' class="n"' | n}>${c}</td>
% endfor
</tr>
% endfor
</table>
</%def>
<h1>vlgpu report: ${title}</h1>
<h2 id="run">Run</h2>
<table>
% for k, v in head:
<tr><th>${k}</th><td>${v}</td></tr>
% endfor
</table>

% if scene_rows:
<h2 id="scenes">Scenes</h2>
${numeric_table(scene_header, scene_rows) | n}
% endif

% if bench_rows:
<h2 id="bench">Benchmark (bench glmark2)</h2>
${numeric_table(bench_header, bench_rows) | n}
% endif

% if ubench_rows:
<h2 id="ubench">Microbenchmarks (ubench)</h2>
<table><tr><th>benchmark</th><th>property</th><th>measured</th><th>implied</th><th>unit</th>
<th>tolerance</th><th>verdict</th><th>formula</th></tr>
% for r in ubench_rows:
<tr><td>${r["benchmark"]}</td><td>${r["property"]}</td><td class="n">${fmt(r.get("measured"), ".3g")}</td>
<td class="n">${fmt(r.get("implied"), ".3g")}</td><td>${r.get("unit", "")}</td>
<td class="n">${fmt(r.get("tolerance"), ".0%")}</td><td>${"within" if r.get("within") else "outside"}</td>
<td><code>${r.get("formula", "")}</code></td></tr>
% endfor
</table>
% for name, uri in ubench_plots:
<figure><img src="${uri}" alt="${name}" style="max-width: 800px"><figcaption>${name}</figcaption></figure>
% endfor
% endif

% for it in items:
<h2 id="item-${loop.index}">${it["name"]}</h2>
<p class="note">directory: <a href="${rel(it["dir"])}">${rel(it["dir"])}</a></p>
% if it.get("frames"):
<h3>Frames: vlgpu, softpipe, difference</h3>
<% f = it["frames"] %>
% if f.get("error"):
<p>Frames not compared: ${f["error"]}</p>
% endif
<div class="frames">
% for k, cap in frame_views:
% if k in f["uris"]:
<figure><img src="${f["uris"][k]}" alt="${k}"><figcaption>${cap}</figcaption></figure>
% endif
% endfor
</div>
% if "max_error" in f:
<p>Max channel error ${f["max_error"]}, ${f["differing"]} of ${f["pixels"]} pixels differ, PSNR ${"inf" if f["psnr_db"] == float("inf") else "%.1f" % f["psnr_db"]} dB (8-bit R, G, B of the final frames).</p>
% endif
% endif
<% s = it.get("stats") or {} %>
% if s.get("cycles") and any(s["cycles"]):
<p>${s["frames"]} frames in the statistics; simulated cycles per frame: ${", ".join(format(c, ",") for c in s["cycles"][:12])}${" ..." if len(s["cycles"]) > 12 else ""}</p>
% elif s.get("frames"):
<p>${s["frames"]} frames in the statistics, without cycles (functional mode: no timing, so no per-draw cycles, utilisation or bottlenecks).</p>
% endif
% if s.get("draw_svg"):
<h3>Per-draw cycles</h3>
<p class="note">${s["draws_shown"]} of ${s["draws_total"]} draws with cycles${" (the last ones)" if s["draws_shown"] < s["draws_total"] else ""}; draws overlap, so a draw's cycles include what it waited for. Draws' own bottleneck: ${", ".join("%s %d" % kv for kv in sorted(s["draw_bottlenecks"].items(), key=lambda kv: -kv[1]))}.</p>
${s["draw_svg"] | n}
% endif
% if s.get("modules"):
<h3>Module utilisation</h3>
${s["module_svg"] | n}
<details><summary>as a table</summary>
<table><tr><th>module</th><th>busy</th><th>stalled</th><th>starved</th></tr>
% for m, b, st, sv in s["modules"]:
<tr><td>${m}</td><td class="n">${"%.1f%%" % (b * 100)}</td><td class="n">${"%.1f%%" % (st * 100)}</td><td class="n">${"%.1f%%" % (sv * 100)}</td></tr>
% endfor
</table></details>
% endif
% if s.get("causes"):
<h3>Bottleneck breakdown</h3>
<p class="note">Every cycle charged to one cause (docs/simulator.md "Bottleneck report"); over all frames: ${", ".join("%s %.0f%%" % (c, v * 100) for c, v in s["causes"][:4])}.</p>
${s["cause_svg"] | n}
% endif
% endfor

% if profiles:
<h2 id="profile">Hottest shader lines</h2>
% for path, (rows, nshaders, total) in profiles:
<p class="note"><a href="${rel(path)}">${rel(path)}</a>: ${nshaders} shaders, ${format(total, ",")} SPC cycles (issues + stalls); the ${len(rows)} hottest instructions:</p>
<table><tr><th>shader</th><th>pc</th><th>instruction</th><th>cycles</th><th>% of all</th><th>issues</th><th>lanes</th><th>stalls operand / memory / texture / barrier</th></tr>
% for r in rows:
<tr><td>${r["shader"]}</td><td class="n">${r["pc"]}</td><td><code>${r["text"]}</code></td><td class="n">${format(r["cycles"], ",")}</td><td class="n">${"%.1f" % (r["share"] * 100)}</td><td class="n">${format(r["issues"], ",")}</td><td class="n">${"%.1f" % r["lanes"]}</td><td class="n">${" / ".join(format(r["stalls"].get(k, 0), ",") for k in ("operand", "memory", "texture", "barrier"))}</td></tr>
% endfor
</table>
% endfor
% endif

% if dumps:
<h2 id="dumps">Dumps</h2>
<p class="note">Per-draw dumps (docs/dump.md); replay one with <code>./vlgpu replay -- DIR/draw-NNNNNN</code>.</p>
<ul>
% for d, draws in dumps:
<li><a href="${rel(d)}">${rel(d)}</a>: ${len(draws)} draws:
% for x in draws[:max_dump]:
<a href="${rel(x / "draw.txt")}">${x.name}</a>
% endfor
${"..." if len(draws) > max_dump else ""}</li>
% endfor
</ul>
% endif
<p class="note">Written by <code>./vlgpu report</code> (scripts/report.py) ${made}.</p>
</body></html>
"""


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def scene_table(items, kinds):
    """(header, rows) of the per-scene table of glmark2/demo items."""
    head = ["scene", "vlgpu", "softpipe", "PSNR dB", "max err", "differing pixels",
            "cycles/frame"]
    rows = []
    for it in items:
        if not it["status"]:
            continue
        c = it.get("compare") or {}
        p = c.get("psnr_db")
        rows.append([it["name"], it["status"].get("vlgpu", "-"), it["status"].get("softpipe", "-"),
                     "inf" if p == float("inf") else fmt(p, ".1f"), fmt(c.get("max_error"), "d"),
                     fmt(c.get("differing_pixels"), ",d"), fmt(it.get("cycles_per_frame"), ",.0f")])
    return head, rows


def bench_table(doc):
    """(header, rows) of a bench glmark2.json's per-scene rows."""
    head = ["scene", "mode", "frames", "wall ms median", "cpu ms median", "x softpipe (cpu)",
            "cycles/frame", "Mcycles per CPU s"]
    rows = [[r["scene"], r["mode"], r.get("frames_measured", 0),
             fmt(r.get("wall_ms_median"), ".1f"),
             fmt(r.get("cpu_ms_median"), ".1f"), fmt(r.get("ratio_cpu"), ".2f"),
             fmt(r.get("cycles_per_frame"), ",.0f"),
             fmt(r["sim_cycles_per_cpu_s"] / 1e6 if r.get("sim_cycles_per_cpu_s") else None, ".2f")]
            for r in doc.get("scenes", [])]
    return head, rows


def build(out_dir, output):
    """Read OUT_DIR, write the HTML to OUTPUT; returns the kinds found."""
    from mako.template import Template
    if not out_dir.is_dir():
        raise ReportError(f"{out_dir}: no such directory")
    kinds = detect(out_dir)
    if not kinds:
        raise ReportError(
            f"{out_dir}: holds no run this command knows; looked for "
            + ", ".join(f"{n} ({k})" for k, n in MARKERS.items())
            + " (sweep runs do not exist yet)")
    items = []
    for kind, fn in (("glmark2", items_glmark2), ("demo", items_demo), ("bench", items_bench),
                     ("ubench", items_ubench), ("profile", items_profile)):
        if kind in kinds:
            items += fn(out_dir, kinds[kind])
    for it in items:
        it["frames"] = frames_section(it) if it["images"] else None
        it["stats"] = stats_section(it)
    scene_header, scene_rows = scene_table(items, kinds)
    bench_header, bench_rows = bench_table(kinds["bench"]) if "bench" in kinds else ([], [])
    ubench_rows, ubench_plots = [], []
    if "ubench" in kinds:
        ubench_rows = kinds["ubench"]["rows"]
        ubench_plots = [(n, data_uri((out_dir / n).read_bytes()))
                        for n in ("ratio.png", "occupancy.png") if (out_dir / n).is_file()]
    base = output.resolve().parent

    def rel(p):
        return html.escape(os.path.relpath(Path(p).resolve(), base))
    tpl = Template(TEMPLATE, default_filters=["h"])
    page = tpl.render(
        title=f"{', '.join(kinds)} run in {out_dir.name or out_dir}",
        head=header(out_dir, kinds), items=items, scene_header=scene_header,
        scene_rows=scene_rows, bench_header=bench_header, bench_rows=bench_rows,
        ubench_rows=ubench_rows, ubench_plots=ubench_plots,
        profiles=[(p, hot_lines(d)) for p, d in find_profiles(out_dir)],
        dumps=find_dumps(out_dir), frame_views=FRAME_VIEWS, max_dump=MAX_DUMP_DRAWS, rel=rel,
        fmt=fmt,
        made=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
    output.write_text(page)
    return kinds


def main(argv=None):
    p = argparse.ArgumentParser(prog="vlgpu report", description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out_dir", metavar="OUT_DIR", type=Path,
                   help="the run's output directory (out/demo, out/glmark2, out/bench, ...)")
    p.add_argument("-o", "--output", type=Path,
                   help="the HTML file to write (default OUT_DIR/report.html)")
    args = p.parse_args(argv)
    output = args.output or args.out_dir / "report.html"
    try:
        kinds = build(args.out_dir, output)
    except ReportError as e:
        print(f"vlgpu report: {e}", file=sys.stderr)
        return 1
    print(f"vlgpu report: {args.out_dir}: found {', '.join(kinds)}; wrote {output} "
          f"({output.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
