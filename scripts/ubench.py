#!/usr/bin/python3
"""Microbenchmarks of the simulated GPU (`./vlgpu ubench`): each measures one
property in cycle mode and prints it next to the value the configuration
implies.

The GL ES 3.1 program bench/ubench/vlg_ubench.c (compiled with cc into
out/driver-tests/bin, as the driver tests' helpers) does the work, one test
per process, with VLGPU_STATS=DIR; this script reads the simulated cycles of
each measured dispatch, draw or clear (the submit-NNNNNN.json files of DIR:
"dispatches" and "draws", kinds from draws.csv), takes the SLOPE between two
sizes of the same work (cycles per load, per byte, per pixel, ...), so that
fixed costs (command fetch, launch, the last group's tail) cancel, and
compares it with the value derived from the run's config.json and the ISA's
latencies (src/vlgpu/isa/isa.py).  Every formula is in the table and in
docs/fidelity.md.

Benchmarks (--only NAME, repeatable; default all):

  latency    load-to-use latency of L1, L2 and VRAM: one-lane pointer chase
  bandwidth  VRAM bandwidth: stream read, write, copy of 1 and 2 MiB
  alu        instructions per cycle per SPC for each functional class, and
             ops per cycle with ADD/MUL pairs (dual issue)
  occupancy  latency hiding: issue rate of dependent SFU chains with 1..8
             resident thread groups per SPC (bounded through shared memory)
  fill       pixels per cycle: plain, additive blending, LESS depth test
  texture    bilinear-unit samples per cycle: nearest, bilinear, trilinear
  setup      triangles set up per cycle (small triangles, no pixel)
  vertex     vertices per cycle (culled triangles, no attributes)
  clear      clear bytes per cycle (glClear of RGBA8 targets)

Output in --out (default out/ubench/): ubench.md and ubench.csv (one row per
property: measured, implied, unit, tolerance, verdict, formula, check),
ubench.json (rows, raw measurements, configuration, options), ratio.png and
occupancy.png (python3-matplotlib), and per run the statistics directory
runs/NAME/ and its log runs/NAME.log.  --doc FILE rewrites the table in FILE
between '<!-- BEGIN ubench -->' and '<!-- END ubench -->' (docs/fidelity.md).

Exit code: 0 when every benchmark ran and its program checked its results
(rows outside their tolerance are findings, not failures); 1 if a run failed;
2 on bad usage or a missing build.
"""

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT / "tests/integration"),
                str(ROOT / "tests/integration/driver"), str(ROOT / "src/vlgpu/isa")]

import bench  # noqa: E402  (write_csv, md_table, print_table, machine_info, markers)
import driverlib  # noqa: E402  (build_helper: cc into out/driver-tests/bin)
import isa  # noqa: E402  (src/vlgpu/isa/isa.py: op latencies)

SOURCE = ROOT / "bench/ubench/vlg_ubench.c"
BENCHMARKS = ("latency", "bandwidth", "alu", "occupancy", "fill", "texture", "setup",
              "vertex", "clear")
DOC_MARKER = "ubench"


class RunError(Exception):
    """A benchmark program failed or its statistics are not what it announced."""


# ---------------------------------------------------------------------------
# running and reading the statistics
# ---------------------------------------------------------------------------

def flatten(d, prefix=""):
    """config.json's nested objects as {"l2.size_bytes": 262144, ...}."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def run_test(prog, name, test, args, out, overrides, timeout=1800):
    """Run `vlg_ubench TEST ARGS` on vlgpu in cycle mode with VLGPU_STATS=out/runs/NAME.
    Returns {"config": flat config, "measures": [{"kind", "what", params...,
    "cycles", "counters", "modules"}...]} in announcement order.
    Raises RunError with the log's tail when the program fails."""
    stats = out / "runs" / name
    if stats.exists():
        for f in stats.iterdir():
            f.unlink()
    stats.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.pop("GALLIUM_DRIVER", None)
    env.pop("VLGPU_DEBUG", None)  # cycle mode (VLGPU_DEBUG=functional has no cycles)
    env["VLGPU_STATS"] = str(stats)
    if overrides:
        env["VLGPU_SET"] = ",".join(overrides)
    else:
        env.pop("VLGPU_SET", None)
    cmd = [str(ROOT / "vlgpu"), "run", "--driver", "vlgpu", "--headless", "--",
           str(prog), test] + [f"{k}={v}" for k, v in args.items()]
    t0 = time.monotonic()
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=timeout)
    host_s = time.monotonic() - t0
    (out / "runs" / f"{name}.log").write_text(" ".join(cmd) + "\n" + r.stdout)
    if r.returncode != 0:
        tail = "\n".join(r.stdout.splitlines()[-8:])
        raise RunError(f"{name}: exit code {r.returncode}:\n{tail}")
    announced = []
    for line in r.stdout.splitlines():
        if line.startswith("measure "):
            f = line.split()
            m = {"kind": f[1], "what": f[2]}
            for kv in f[3:]:
                k, v = kv.split("=", 1)
                m[k] = int(v) if v.lstrip("-").isdigit() else v
            announced.append(m)
    try:
        config = flatten(json.loads((stats / "config.json").read_text()))
    except (OSError, ValueError) as e:
        raise RunError(f"{name}: no config.json in {stats}: {e}")
    kinds = {}
    with open(stats / "draws.csv") as f:
        for row in csv.DictReader(f):
            kinds[int(row["draw"])] = "clear" if row["kind"] == "CLEAR" else "draw"
    ops = {"dispatch": [], "draw": [], "clear": []}
    for path in sorted(stats.glob("submit-*.json")):
        j = json.loads(path.read_text())
        if j.get("faults"):
            raise RunError(f"{name}: GPU fault in {path.name}: {j['faults']}")
        for d in j.get("dispatches", []):
            ops["dispatch"].append(d)
        for d in j.get("draws", []):
            kind = kinds.get(d["draw"], "draw")
            ops.setdefault(kind, []).append(d)
    # the measured operations are the last ones of their kind (vlg_ubench.c)
    for kind in ops:
        mine = [m for m in announced if m["kind"] == kind]
        if len(mine) > len(ops[kind]):
            raise RunError(f"{name}: {len(mine)} {kind}s announced, {len(ops[kind])} in "
                           f"{stats}")
        for m, d in zip(mine, ops[kind][len(ops[kind]) - len(mine):]):
            if not d.get("cycles"):
                raise RunError(f"{name}: a measured {kind} took 0 cycles (functional mode?)")
            m["cycles"] = d["cycles"]
            m["counters"] = d.get("counters", {})
            m["modules"] = d.get("modules", {}).get("modules", {})
    return {"config": config, "measures": announced, "host_s": host_s}


def module_sum(m, prefix, counter):
    """Sum of a counter over the modules whose name starts with PREFIX (e.g. all SPCs)."""
    return sum(v.get("counters", {}).get(counter, 0) for k, v in m["modules"].items()
               if k.startswith(prefix))


def slope(a, b, key):
    """(work difference, cycle difference) of two measurements of the same work."""
    dw, dc = b[key] - a[key], b["cycles"] - a["cycles"]
    if dw <= 0 or dc <= 0:
        raise RunError(f"no slope: {key} {a[key]} -> {b[key]}, cycles {a['cycles']} -> "
                       f"{b['cycles']}")
    return dw, dc


def pairs(measures, **match):
    """The two measurements whose parameters match (small size first)."""
    ms = [m for m in measures if m["what"] not in ("warmup", "drain")
          and all(m.get(k) == v for k, v in match.items())]
    if len(ms) != 2:
        raise RunError(f"expected 2 measurements of {match}, got {len(ms)}")
    return ms


def row(bench_name, prop, measured, implied, unit, tol, formula, check="", how=""):
    """One table row; verdict from |measured / implied - 1| <= tol."""
    err = measured / implied - 1 if implied else math.inf
    within = abs(err) <= tol
    return {"benchmark": bench_name, "property": prop, "measured": measured, "implied": implied,
            "unit": unit, "tolerance": tol, "deviation": err, "within": within,
            "formula": formula, "check": check, "measurement": how, "reason": ""}


def lat(name):
    """ISA latency of an op (src/vlgpu/isa/isa.py), cycles."""
    return isa.OPS_BY_NAME[name].latency


# ---------------------------------------------------------------------------
# the benchmarks: each returns (rows, raw runs)
# ---------------------------------------------------------------------------

def b_latency(ctx):
    c = ctx.cfg
    run = ctx.run("latency", "chase", {"line": c["l2.line_bytes"], "l1": c["spc.l1_bytes"],
                                       "l2": c["l2.size_bytes"]})
    alu = lat("SHL") + lat("IADD")
    hop = c["queues.default.latency"]
    line_cycles = math.ceil(c["l2.line_bytes"] / c["memory.bandwidth_bytes_per_cycle"])
    levels = {
        "l1": ("L1 hit load-to-use latency",
               max(c["spc.l1_hit_latency_cycles"], lat("MEM")),
               f"max(spc.l1_hit_latency_cycles {c['spc.l1_hit_latency_cycles']}, ISA MEM "
               f"latency {lat('MEM')})", "l1_hits"),
        "l2": ("L2 hit load-to-use latency",
               max(lat("MEM"), c["l2.hit_latency_cycles"] + 2 * hop),
               f"max(ISA MEM {lat('MEM')}, l2.hit_latency_cycles {c['l2.hit_latency_cycles']}"
               f" + 2 x queues.default.latency {hop} (SPC->L2->SPC))", "read_hits"),
        "vram": ("VRAM load-to-use latency",
                 max(lat("MEM"), c["memory.latency_cycles"] + line_cycles + 4 * hop),
                 f"max(ISA MEM {lat('MEM')}, memory.latency_cycles {c['memory.latency_cycles']}"
                 f" + ceil(l2.line_bytes / memory.bandwidth_bytes_per_cycle) {line_cycles} + "
                 f"4 x queues.default.latency {hop} (SPC->L2->MC->L2->SPC))", "read_misses"),
    }
    rows = []
    for level, (prop, implied, formula, counter) in levels.items():
        a, b = pairs(run["measures"], level=level)
        dl, dc = slope(a, b, "loads")
        measured = dc / dl - alu
        if level == "l1":
            hits = module_sum(b, "gpc", "l1_hits") - module_sum(a, "gpc", "l1_hits")
            check = f"L1 hits {hits} of {dl} extra loads"
        else:
            n = module_sum(b, "l2", counter) - module_sum(a, "l2", counter)
            check = f"L2 {counter.replace('_', ' ')} {n} of {dl} extra loads"
        rows.append(row("latency", prop, measured, implied, "cycles", 0.10, formula, check,
                        f"1-lane chase over {a['lines']} random lines ({a['footprint_bytes']} "
                        f"B), {a['loads']} vs {b['loads']} loads; minus {alu} cycles of "
                        f"SHL+IADD between loads (ISA)"))
    return rows, {"latency": run}


def b_bandwidth(ctx):
    c = ctx.cfg
    run = ctx.run("bandwidth", "stream", {"bytes": 1 << 20})
    bw = c["memory.bandwidth_bytes_per_cycle"]
    line = c["l2.line_bytes"]
    vram_lat = c["memory.latency_cycles"] + math.ceil(line / bw) + 4 * c["queues.default.latency"]
    little = c["l2.mshrs"] * line / vram_lat
    rows = []
    for mode in ("read", "write", "copy"):
        a, b = pairs(run["measures"], mode=mode)
        db, dc = slope(a, b, "bytes")
        traffic = 2 if mode == "copy" else 1
        measured = traffic * db / dc
        lines = db // line
        if mode == "write":
            got = module_sum(a, "l2", "write_misses") + module_sum(a, "l2", "write_hits")
            bus = module_sum(b, "mc", "bus_cycles") / b["cycles"]
            check = (f"the L2 took {got} of the {a['bytes'] // line} line writes of the "
                     f"{a['bytes']} B dispatch before it completed; MC bus busy {bus:.2f} "
                     f"of the {b['bytes']} B dispatch")
        else:
            got = module_sum(b, "l2", "read_misses") - module_sum(a, "l2", "read_misses")
            check = f"L2 read misses {got} of {lines} extra lines"
        rows.append(row("bandwidth", f"VRAM bandwidth, stream {mode}", measured, bw,
                        "bytes/cycle", 0.10,
                        f"memory.bandwidth_bytes_per_cycle {bw}"
                        + (" (read + written bytes)" if mode == "copy" else "")
                        + f"; Little's law with l2.mshrs: {c['l2.mshrs']} x {line} B / "
                          f"{vram_lat} cycles = {little:.1f}",
                        check, f"{a['bytes']} vs {b['bytes']} B, uvec4 per invocation"))
    return rows, {"bandwidth": run}


def b_alu(ctx):
    c = ctx.cfg
    spcs = c["gpcs"] * c["spcs_per_gpc"]
    # enough 64-invocation workgroups to fill every slot of every SPC
    groups = max(1, spcs * c["thread_groups_per_spc"] * c["thread_group_width"] // 64)
    run = ctx.run("alu", "alu", {"groups": groups})
    rows = []
    for cls in ("add", "mul", "mad", "sfu", "frac", "conv", "logic", "int", "dual"):
        a, b = pairs(run["measures"], **{"class": cls})
        di = b["counters"]["instructions"] - a["counters"]["instructions"]
        dd = b["counters"]["dual_issued"] - a["counters"]["dual_issued"]
        dc = b["cycles"] - a["cycles"]
        tgs = b["counters"]["thread_groups"]
        per_iter = di / tgs / (b["iterations"] - a["iterations"])
        ops = (b["ops_per_invocation"] - a["ops_per_invocation"]) // 2 // (
            b["iterations"] - a["iterations"])
        check = (f"{per_iter:.1f} instructions per loop iteration per group for {ops * 2} "
                 f"source ops; dual-issue rate {dd / di:.2f}")
        if cls == "dual":
            rows.append(row("alu", "ALU ADD+MUL pairs: ops per SPC per cycle (dual issue)",
                            (di + dd) / dc / spcs, 2.0, "ops/cycle/SPC", 0.10,
                            "2: both phases of one VL-IW instruction per cycle, different "
                            "classes (seed 004)", check,
                            f"16 scalar chains, ADD and MUL alternating"))
        else:
            rows.append(row("alu", f"ALU issue, class {cls}", di / dc / spcs, 1.0,
                            "instr/cycle/SPC", 0.05,
                            "1: one instruction per cycle per SPC, any class (seed 001)",
                            check, "16 independent scalar chains x 2 per loop iteration"))
    return rows, {"alu": run}


def b_occupancy(ctx):
    c = ctx.cfg
    spcs = c["gpcs"] * c["spcs_per_gpc"]
    shared = c["spc.shared_memory_bytes"]
    rows, runs = [], {}
    for r in (1, 2, 3, 4, 6, 8):
        if r > c["thread_groups_per_spc"]:
            continue
        sbytes = shared // r // 16 * 16
        resident = min(c["thread_groups_per_spc"], shared // sbytes)
        run = ctx.run(f"occupancy-{r}", "latency",
                      {"groups": spcs * resident * 2, "shared": sbytes})
        runs[f"occupancy-{r}"] = run
        a, b = pairs(run["measures"], what="latency")
        di = b["counters"]["instructions"] - a["counters"]["instructions"]
        dg = b["workgroups"] - a["workgroups"]
        dc = b["cycles"] - a["cycles"]
        per_group = di / dg
        chain = a["chain_ops"] * lat("RSQ")
        implied = min(1.0, resident * per_group / chain)
        rows.append(row("occupancy", f"latency hiding, {resident} resident groups/SPC",
                        di / dc / spcs, implied, "instr/cycle/SPC", 0.10,
                        f"min(1, R x instructions per group / (chain x ISA RSQ latency)) = "
                        f"min(1, {resident} x {per_group:.0f} / ({a['chain_ops']} x "
                        f"{lat('RSQ')})); R = min(thread_groups_per_spc, "
                        f"spc.shared_memory_bytes {shared} / {sbytes} B per workgroup)",
                        f"{dg} extra workgroups of 1 group",
                        f"{a['workgroups']} vs {b['workgroups']} workgroups"))
        rows[-1]["resident"] = resident
    return rows, runs


def b_fill(ctx):
    c = ctx.cfg
    run = ctx.run("fill", "fill", {"size": 128})
    quads = min(c["pe.quads_per_cycle"], c["omu.quads_per_cycle"])
    implied = 4 * c["gpcs"] * quads
    rows = []
    for mode in ("plain", "blend", "depth"):
        a, b = pairs(run["measures"], mode=mode)
        dp, dc = slope(a, b, "pixels")
        late = module_sum(b, "gpc", "late_quads") - module_sum(a, "gpc", "late_quads")
        rows.append(row("fill", f"fill rate, {mode}", dp / dc, implied, "pixels/cycle", 0.10,
                        f"4 x gpcs {c['gpcs']} x min(pe.quads_per_cycle {c['pe.quads_per_cycle']}"
                        f", omu.quads_per_cycle {c['omu.quads_per_cycle']})",
                        f"OMU late quads {late} for {dp // 4} extra quads",
                        f"{a['layers']} vs {b['layers']} full-screen layers of 128x128"))
    return rows, {"fill": run}


def b_texture(ctx):
    c = ctx.cfg
    spcs = c["gpcs"] * c["spcs_per_gpc"]
    run = ctx.run("texture", "tex", {"size": 128})
    rows = []
    for mode, units in (("nearest", 1), ("bilinear", 1), ("trilinear", 2)):
        a, b = pairs(run["measures"], filter=mode)
        ds, dc = slope(a, b, "samples")
        fu = module_sum(b, "gpc", "tex_filter_units") - module_sum(a, "gpc", "tex_filter_units")
        rows.append(row("texture", f"texel rate, {mode}", ds / dc,
                        spcs * c["spc.tex_bilinear_per_cycle"] / units, "samples/cycle", 0.10,
                        f"SPCs {spcs} x spc.tex_bilinear_per_cycle "
                        f"{c['spc.tex_bilinear_per_cycle']} / {units} bilinear unit(s) per "
                        f"sample", f"filter units {fu} for {ds} extra samples",
                        f"{a['samples_per_pixel']} vs {b['samples_per_pixel']} samples per "
                        f"pixel, 128x128, 64x64 RGBA8 texture"))
    return rows, {"texture": run}


def b_setup(ctx):
    c = ctx.cfg
    run = ctx.run("setup", "setup", {"tris": 2048})
    a, b = pairs(run["measures"], what="setup")
    dt, dc = slope(a, b, "triangles")
    setups = module_sum(b, "gpc", "setups") - module_sum(a, "gpc", "setups")
    functional = b["counters"]["pe"]["triangles_setup"] - a["counters"]["pe"]["triangles_setup"]
    per = c["pe.prim_cycles"] + c["pe.setup_cycles"]
    return [row("setup", "triangle setup rate", dt / dc, 1 / per, "triangles/cycle", 0.10,
                f"1 / (pe.prim_cycles {c['pe.prim_cycles']} + pe.setup_cycles "
                f"{c['pe.setup_cycles']}); every PE sees every primitive",
                f"timed PE's setups counter {setups}, the draw's triangles_setup "
                f"{functional}, for {dt} extra triangles",
                f"{a['triangles']} vs {b['triangles']} indexed triangles, 3 vertices")], \
        {"setup": run}


def b_vertex(ctx):
    c = ctx.cfg
    spcs = c["gpcs"] * c["spcs_per_gpc"]
    w = c["thread_group_width"]
    run = ctx.run("vertex", "vertex", {"verts": 3072})
    a, b = pairs(run["measures"], what="vertex")
    dv, dc = slope(a, b, "vertices")
    dvi = b["counters"]["vs"]["instructions"] - a["counters"]["vs"]["instructions"]
    per_group = dvi / (dv / w)
    bounds = {"PE": 3 / c["pe.prim_cycles"], "LTS": c["gpcs"] * w,
              "SPC issue": spcs * w / per_group}
    limit = min(bounds, key=bounds.get)
    return [row("vertex", "vertex rate", dv / dc, bounds[limit], "vertices/cycle", 0.10,
                f"min(PE: 3 / pe.prim_cycles {c['pe.prim_cycles']} (culled triangles), "
                f"LTS: gpcs x thread_group_width {c['gpcs'] * w}, SPC issue: SPCs x "
                f"thread_group_width / VS instructions per group {per_group:.1f} = "
                f"{bounds['SPC issue']:.1f}) = {limit}",
                f"{dvi} extra VS instructions", f"{a['vertices']} vs {b['vertices']} vertices,"
                f" no attributes, all culled")], {"vertex": run}


def b_clear(ctx):
    c = ctx.cfg
    run = ctx.run("clear", "clear", {"width": 512})
    a, b = pairs(run["measures"], what="clear")
    db, dc = slope(a, b, "bytes")
    bounds = {"omu.clear_bytes_per_cycle": c["omu.clear_bytes_per_cycle"] * c["gpcs"],
              "one line per cycle into the L2": c["l2.line_bytes"],
              "memory.bandwidth_bytes_per_cycle": c["memory.bandwidth_bytes_per_cycle"]}
    limit = min(bounds, key=bounds.get)
    writes = module_sum(b, "mc", "write_bytes") - module_sum(a, "mc", "write_bytes")
    return [row("clear", "clear rate (RGBA8)", db / dc, bounds[limit], "bytes/cycle", 0.10,
                "min(gpcs x omu.clear_bytes_per_cycle {}, l2.line_bytes {} (one line per cycle"
                " into the L2), memory.bandwidth_bytes_per_cycle {}: the target is larger than "
                "the L2, so the written lines leave to VRAM) = {}".format(
                    bounds["omu.clear_bytes_per_cycle"], c["l2.line_bytes"],
                    c["memory.bandwidth_bytes_per_cycle"], limit),
                f"MC wrote {writes} more bytes for {db} extra bytes cleared",
                f"{a['width']}x{a['height']} vs {b['width']}x{b['height']}")], {"clear": run}


FUNCS = {"latency": b_latency, "bandwidth": b_bandwidth, "alu": b_alu,
         "occupancy": b_occupancy, "fill": b_fill, "texture": b_texture, "setup": b_setup,
         "vertex": b_vertex, "clear": b_clear}


# ---------------------------------------------------------------------------
# reasons for rows outside their tolerance
# ---------------------------------------------------------------------------

def explain(r, cfg):
    """A short reason for a row outside its tolerance, from what the run's counters show."""
    if r["within"]:
        return ""
    p = r["property"]
    if p.startswith("VRAM bandwidth, stream read"):
        return ("bound by the L2's outstanding misses (Little's law in the formula), not by "
                "the bus")
    if p.startswith("VRAM bandwidth, stream write"):
        return ("check whether the dispatch took all its line writes (check column) and "
                "whether the bus was busy")
    if p.startswith("latency hiding"):
        return ("issue conflicts: the formula assumes perfect overlap; with this many groups "
                "the SPC's one issue slot is busy most cycles, groups ready in the same cycle "
                "wait (oldest first), and each wait lengthens a dependent chain")
    if p.startswith("VRAM bandwidth, stream copy"):
        return "the reads are bound by the L2's outstanding misses as in stream read"
    if p.startswith("fill rate"):
        return "start from the draw's bottleneck report in VLGPU_STATS (docs/simulator.md)"
    if p.startswith("triangle setup"):
        return "compare the timed PE's setups counter with the draw's triangles (check column)"
    if p.startswith("clear rate"):
        return ("the MC writes more or fewer bytes than the cleared ones (check column): "
                "the L2 held other dirty lines at the start of one of the two clears")
    return "see the check column"


# ---------------------------------------------------------------------------
# output
# ---------------------------------------------------------------------------

def fmt_num(v):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.3g}" if abs(v) < 1 else f"{v:.2f}"


def table_rows(rows):
    return [[r["property"], fmt_num(r["measured"]), fmt_num(r["implied"]), r["unit"],
             f"±{r['tolerance'] * 100:.0f} %",
             ("within" if r["within"] else f"**not within** ({r['deviation'] * 100:+.0f} %): "
              + r["reason"]), r["formula"], r["check"]] for r in rows]


HEADERS = ["property", "measured", "configured/implied", "unit", "tolerance", "verdict",
           "implied value: formula", "check (counters)"]


def markdown(rows, meta):
    lines = [f"Measured by `{meta['command']}` on {meta['date']}, commit {meta['commit']}, "
             f"cycle mode, configuration: {meta['config_text']}; "
             f"{meta['within']} of {len(rows)} rows within their tolerance; "
             f"{meta['host_s']:.0f} s of host time.", ""]
    lines += bench.md_table(HEADERS, table_rows(rows))
    return lines


def plot(rows, out):
    """ratio.png (measured / implied per row, tolerance band) and occupancy.png."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("ubench: python3-matplotlib not installed: no plots", file=sys.stderr)
        return []
    paths = []
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(rows) + 1.5))
    ys = list(range(len(rows)))[::-1]
    ratios = [r["measured"] / r["implied"] for r in rows]
    colors = ["tab:green" if r["within"] else "tab:red" for r in rows]
    ax.barh(ys, ratios, color=colors)
    for y, r in zip(ys, rows):
        ax.plot([1 - r["tolerance"], 1 + r["tolerance"]], [y, y], color="black", lw=3,
                alpha=0.35)
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_yticks(ys)
    ax.set_yticklabels([r["property"] for r in rows], fontsize=8)
    ax.set_xlabel("measured / configured (grey: tolerance; red: outside it)")
    ax.set_title("vlgpu ubench: simulated GPU against its configuration")
    fig.tight_layout()
    paths.append(out / "ratio.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    occ = [r for r in rows if r["benchmark"] == "occupancy"]
    if occ:
        fig, ax = plt.subplots(figsize=(6, 4))
        xs = [r["resident"] for r in occ]
        ax.plot(xs, [r["implied"] for r in occ], "k--", marker="o", label="implied (ideal hiding)")
        ax.plot(xs, [r["measured"] for r in occ], "tab:blue", marker="s", label="measured")
        ax.set_xlabel("resident thread groups per SPC")
        ax.set_ylabel("instructions per cycle per SPC")
        ax.set_ylim(0, 1.1)
        ax.set_title("Latency hiding: dependent RSQ chains")
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        paths.append(out / "occupancy.png")
        fig.savefig(paths[-1], dpi=110)
        plt.close(fig)
    return paths


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------

class Context:
    def __init__(self, prog, out, overrides, cfg):
        self.prog, self.out, self.overrides, self.cfg = prog, out, overrides, cfg

    def run(self, name, test, args):
        print(f"  run {name}: vlg_ubench {test} "
              + " ".join(f"{k}={v}" for k, v in args.items()), flush=True)
        return run_test(self.prog, name, test, args, self.out, self.overrides)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--"]:
        argv = argv[1:]
    p = argparse.ArgumentParser(
        prog="vlgpu ubench", description=__doc__.split("\n\n")[0],
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", action="append", metavar="NAME", choices=BENCHMARKS,
                   help="run only this benchmark (repeatable): " + ", ".join(BENCHMARKS))
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="simulator configuration override (repeatable; VLGPU_SET, keys of "
                        "docs/simulator.md 'Configuration'), e.g. --config l2.mshrs=64")
    p.add_argument("--out", default=str(ROOT / "out/ubench"),
                   help="output directory (default out/ubench)")
    p.add_argument("--doc", metavar="FILE",
                   help="also write the table into FILE between its '<!-- BEGIN ubench -->' "
                        "and '<!-- END ubench -->' markers (docs/fidelity.md)")
    p.add_argument("--no-plots", action="store_true", help="do not draw the PNG plots")
    args = p.parse_args(argv)
    for kv in args.config:
        if "=" not in kv or not kv.split("=", 1)[0]:
            p.error(f"--config {kv}: expected KEY=VALUE")
    if not (ROOT / "build/mesa/src/gallium/targets/dri").is_dir():
        print("vlgpu ubench: Mesa is not built (run ./vlgpu setup)", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        prog = driverlib.build_helper(str(SOURCE), "vlg_ubench", ["-lEGL", "-lGLESv2", "-lm"])
    except RuntimeError as e:
        print(f"vlgpu ubench: {e}", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    try:
        info = run_test(prog, "config", "info", {}, out, args.config)
    except RunError as e:
        print(f"vlgpu ubench: the configuration run failed (bad --config?): {e}",
              file=sys.stderr)
        return 2
    ctx = Context(prog, out, args.config, info["config"])
    names = [b for b in BENCHMARKS if not args.only or b in args.only]
    rows, raw, errors = [], {}, []
    for i, name in enumerate(names):
        print(f"[ubench {i + 1}/{len(names)}] {name}", flush=True)
        t = time.monotonic()
        try:
            rs, runs = FUNCS[name](ctx)
        except (RunError, subprocess.TimeoutExpired) as e:
            print(f"    FAILED: {e}", flush=True)
            errors.append(f"{name}: {e}")
            continue
        for r in rs:
            r["reason"] = explain(r, ctx.cfg)
            print(f"    {r['property']}: {fmt_num(r['measured'])} {r['unit']} (implied "
                  f"{fmt_num(r['implied'])}) {'within' if r['within'] else 'NOT within'}",
                  flush=True)
        rows += rs
        raw.update(runs)
        print(f"    ({time.monotonic() - t:.1f} s)", flush=True)
    host_s = time.monotonic() - t0
    machine = bench.machine_info()
    meta = {"command": "./vlgpu ubench" + "".join(f" --only {o}" for o in args.only or [])
            + "".join(f" --config {c}" for c in args.config),
            "date": machine["date"].split()[0], "commit": machine["git_head"],
            "config_text": ", ".join(args.config) or "defaults",
            "within": sum(r["within"] for r in rows), "host_s": host_s}
    md = markdown(rows, meta)
    if errors:
        md += ["", "Failed runs: " + "; ".join(errors)]
    (out / "ubench.md").write_text("\n".join(md) + "\n")
    bench.write_csv(out / "ubench.csv", rows,
                    ["benchmark", "property", "measured", "implied", "unit", "tolerance",
                     "deviation", "within", "reason", "formula", "check", "measurement"])
    (out / "ubench.json").write_text(json.dumps(
        {"meta": meta, "machine": machine, "config": ctx.cfg, "rows": rows,
         "runs": {k: {"measures": [{x: y for x, y in m.items() if x != "modules"}
                                   for m in v["measures"]], "host_s": v["host_s"]}
                  for k, v in raw.items()}}, indent=1))
    plots = [] if args.no_plots else plot(rows, out)
    print()
    bench.print_table(["property", "measured", "implied", "unit", "tol", "verdict"],
                      [[r["property"], fmt_num(r["measured"]), fmt_num(r["implied"]), r["unit"],
                        f"{r['tolerance'] * 100:.0f}%",
                        "within" if r["within"] else f"NOT ({r['deviation'] * 100:+.0f}%)"]
                       for r in rows])
    if args.doc:
        err = bench.replace_between_markers(args.doc, DOC_MARKER, md)
        if err:
            print(f"vlgpu ubench: {err}", file=sys.stderr)
            return 2
        print(f"(updated {args.doc})")
    print(f"\n{meta['within']} of {len(rows)} within tolerance; {host_s:.0f} s; wrote "
          f"{out}/ubench.md, .csv, .json" + "".join(f", {p.name}" for p in plots))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
