#!/usr/bin/python3
"""Benchmarks (`./vlgpu bench SUB`): vlgpu against softpipe on one machine, in one invocation.

Sub-benchmarks (each prints a table and writes CSV + JSON under --out,
default out/bench/):

  glmark2   every default glmark2-es2 scene (glmark2 2023.01's list, as
            scripts/glmark2.py), `glmark2-es2 --off-screen -s SIZE -b SCENE`,
            one process per (scene, driver, repetition), on softpipe, on
            vlgpu functional mode (VLGPU_DEBUG=functional) and on vlgpu cycle
            mode (the default), INTERLEAVED: repetition r runs every scene on
            every driver in turn before repetition r+1 starts, so load changes
            on this shared machine hit all drivers alike.
            A FIXED number of frames: the LD_PRELOAD shim
            tests/integration/driver/vlg_framegrab.c makes glmark2's clock
            advance 40 ms per frame (animation depends on the frame number
            only), ends a frame at glFinish (glmark2 --off-screen does one
            per frame), logs the real CLOCK_MONOTONIC and
            CLOCK_PROCESS_CPUTIME_ID at each frame end (VLG_GRAB_TIMES) and
            exits after 1 + --frames frames.  Frame 0 (scene set-up,
            uploads, shader compiles) is not measured; frames 1..N are.
            Per (scene, driver), over the measured frames of all repetitions:
              wall ms/frame   median, min, max of real time between frame ends
              cpu ms/frame    median of process CPU time between frame ends
                              (all threads; less sensitive to other users)
              ratio           median wall (cpu) ms of vlgpu / of softpipe
              cycles/frame    median of VLGPU_STATS' per-frame "cycles"
                              (vlgpu cycle mode; functional mode has no timing)
              Mcyc/s          simulated cycles per host CPU second: sum of
                              cycles / sum of CPU seconds of the measured frames
              peak RSS MiB    max over repetitions of the glmark2 process's
                              ru_maxrss (os.wait4)
              busy_<MODULE>   cycle mode: busy fraction of each module over the
                              measured frames (VLGPU_STATS busy_* columns,
                              weighted by frame cycles)
            Mode sampled (--sample PLAN, default 10:0,skip): vlgpu cycle mode
            with VLGPU_SAMPLE=PLAN (docs/simulator.md "Sampled simulation"), seed
            1 + 1000 r + i for scene i of repetition r, left out of the default
            modes when --frames holds fewer than two blocks of PLAN; it is not in
            the per-frame tables (most of its frames are
            skipped) but in its own, against mode cycle of the same run:
              true Mcycles    sum of the cycle-mode frames 1..N (repetition 0)
              estimated       scripts/sampling.py's estimate of the same frames from
                              the measured ones (mean over repetitions)
              error           estimated / true - 1
              95 % interval   the estimate's (Student t; the benchmark total's
                              variances added, Welch-Satterthwaite degrees of freedom)
              CPU s           process CPU time of frames 1..N, all repetitions, cycle
                              and sampled; speed-up = their ratio (the total's: sum of
                              cycle CPU / sum of sampled CPU over the scenes)
            Files: glmark2.csv (one row per scene and driver), glmark2-frames.csv
            (one row per measured frame), glmark2.json (both, plus the command,
            machine, options), glmark2.txt (the table), and with
            python3-matplotlib the plots host-time.png, cycles.png,
            utilisation.png, sampled.png (the sampled error and interval per scene).
  sim       the simulator alone, no GL: build/standalone/src/vlgpu/tools/
            vlgpu-sim-bench sim --json on its synthetic frame and on the draws of
            a few glmark2 scenes (set-up frame + first frame, dumped by the
            driver with VLGPU_DUMP in functional mode, replayed with --dump):
            functional and cycle ms per draw (median CPU time inside
            Gpu::execute), simulated cycles per CPU second, both modes' pictures
            identical, peak RSS: sim.csv, sim.json (the tool's JSON inside).
  compiler  vlgpu-cc over the glmark2 shader corpus (out/compiler-corpus/glmark2,
            captured by vlgpu-cc --report if missing): per-shader compile time
            (--time N: median CPU time of N compiles of the NIR, GLSL front
            end excluded) and code size / static cycles; the same corpus with
            --no-lowbank and --no-dual gives our counterparts of the seeds'
            -4.7 % code size and -10.7 % cycles: compiler.csv, compiler.json.
            --cycle: instead, every glmark2 scene in cycle mode with every
            optimisation on and with each of --switches off (VLGPU_DEBUG=nodual,
            ...; docs/compiler.md "Switches"): simulated cycles of frame 2 per
            scene, per switch the mean and largest change over the scenes, next
            to vlgpu-cc's static estimate over the corpus and the seeds' figures:
            compiler-cycle.md, .csv, .json.
  memory    the bandwidth-bound timing tests of the cycle-mode model
            (test_sim_units, VLG_TEST_COPY_MIB=32, --gtest_output=json): a
            32 MiB buffer COPY and FILL, a 32 MiB streaming compute dispatch
            and colour clears at memory.bandwidth_bytes_per_cycle 8, 32 and
            128, 1 MiB streaming reads and writes at other bandwidths,
            latencies and MSHR counts (docs/hw.md "Balanced defaults"); per
            measurement the simulated cycles, the bound the configuration
            implies (the test's own arithmetic) and their ratio:
            memory.csv, memory.json.  The tests themselves check the ratios.
  capture   frame captures (docs/capture.md): per glmark2 scene, frames 0..N
            captured (functional mode) and replayed by vlgpu-sim in cycle mode:
            capture size, live vs replay CPU ms per frame, the capture's
            overhead, replay cycles = live cycles (scripts/capture_bench.py has
            the columns): capture.csv, capture.json.
  plot      redraw the glmark2 plots from a glmark2.json (--dir: where).

Exit code: 0 when every run finished (the glmark2 runs: exit 0 and all
frames measured); 1 if any failed (reported in the table and the JSON); 2 on
bad usage or a missing build.

Not implemented: llvmpipe (not built, -Dllvm=disabled); glmark2's own score
(it is time-based; this measures fixed frame counts instead; `./vlgpu glmark2
-- --full-benchmark` runs it).
"""

import argparse
import csv
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT / "tests/integration"),
                str(ROOT / "tests/integration/driver")]

import capture_bench  # noqa: E402  (bench capture)
import driverlib  # noqa: E402  (framegrab shim build)
import glmark2 as glm  # noqa: E402  (scripts/glmark2.py: default scene list, launcher loader)

MODES = ("softpipe", "functional", "cycle", "sampled")
# the modes whose every frame is one comparable unit of work (per-frame medians, ratios to
# softpipe); "sampled" times a few frames and skips or draws the others functionally, so it
# is summarised by its totals instead (sampled_summary)
PER_FRAME_MODES = ("softpipe", "functional", "cycle")
DEFAULT_SAMPLE = "10:0,skip"
SIM_BENCH = ROOT / "build/standalone/src/vlgpu/tools/vlgpu-sim-bench"
# Google Benchmark of the simulator core (bench/sim/bench_core.cpp); `bench sim`
# runs its BM_TwoThreadCycleBarrier for the two-thread bound.
CORE_BENCH = ROOT / "build/standalone/bench/sim/bench_core"
UNITS_TESTS = ROOT / "build/standalone/tests/sim/units/test_sim_units"
# The timing tests whose record_measurement() calls (tests/sim/units/
# units_test_util.h) `bench memory` collects.
MEMORY_TESTS = ["CopyTiming.BufferCopyRunsAtTheMemoryBandwidth",
                "CopyTiming.AboveOneLinePerCycleTheL2Binds",
                "CopyTiming.FillWritesAtTheMemoryBandwidth",
                "ComputeCycle.Streaming32MiBAtThreeBandwidths",
                "OmuClear.LargeClearIsBoundByTheMemory",
                "Response.DefaultsReachTheConfiguredBandwidthAtTheConfiguredLatency",
                "Response.TwiceTheBandwidthStreamingReadAtLeast1_7xFasterWhileBandwidthBound",
                "Response.StreamingWriteDispatchIncludesItsWrites"]
VLGPU_CC = ROOT / "build/mesa/src/vlgpu/compiler/tools/vlgpu-cc"
CORPUS = ROOT / "out/compiler-corpus/glmark2"


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def machine_info():
    """nproc, CPU model, memory, load average, OS: where the numbers came from."""
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    try:
        git = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=7", "HEAD"],
                             capture_output=True, text=True).stdout.strip() or "?"
        # '-dirty': tracked files other than the docs the --doc options rewrite
        # differ from the commit, so the figures are not exactly the commit's
        dirty = subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "HEAD", "--", ".",
                                ":(exclude)docs", ":(exclude)README.md"]).returncode == 1
        git += "-dirty" if dirty else ""
    except OSError:
        git = "?"
    return {"nproc": os.cpu_count(), "cpu_model": model, "memory": mem,
            "loadavg_at_start": list(os.getloadavg()), "kernel": platform.release(),
            "python": platform.python_version(), "git_head": git,
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def write_csv(path, rows, columns=None):
    """Rows (list of dicts) as CSV; columns default to the union of keys in order."""
    if columns is None:
        columns = []
        for r in rows:
            for k in r:
                if k not in columns:
                    columns.append(k)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in columns})


def fmt(v, spec=".1f", none="-"):
    return none if v is None else format(v, spec)


def print_table(headers, rows, out=None):
    """Aligned text table; also appended to the file OUT if given."""
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h))
              for i, h in enumerate(headers)]
    lines = ["  ".join(str(h).rjust(w) if i else str(h).ljust(w)
                       for i, (h, w) in enumerate(zip(headers, widths)))]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths))))
    text = "\n".join(lines)
    print(text, flush=True)
    if out:
        with open(out, "a") as f:
            f.write(text + "\n")
    return text


def md_table(headers, rows):
    """A markdown table (list of lines)."""
    out = ["| " + " | ".join(str(h) for h in headers) + " |",
           "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def replace_between_markers(doc, name, lines):
    """Replace the text of file DOC between its lines '<!-- BEGIN NAME -->' and
    '<!-- END NAME -->' by LINES (a list of strings, one per line); the
    markers stay.  Returns None, or the reason nothing was written (no such
    file, markers missing)."""
    doc_path = Path(doc)
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    try:
        text = doc_path.read_text()
    except OSError as e:
        return f"--doc {doc_path}: {e.strerror}"
    if begin not in text or end not in text:
        return f"--doc {doc_path}: no {begin} ... {end} markers"
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    doc_path.write_text(head + begin + "\n" + "\n".join(lines) + "\n" + end + tail)
    return None


def write_doc_sections(paths, sections, what):
    """Rewrite, in each file of PATHS (none: nothing), the text between
    '<!-- BEGIN NAME -->' and '<!-- END NAME -->' by SECTIONS[NAME] (a list of
    lines) for every NAME of SECTIONS the file has markers for; say what was
    updated.  A file without any of the markers, or unreadable, is an error.
    Returns the number of files not (fully) written; reasons on stderr,
    prefixed with WHAT."""
    errors = 0
    for path in paths or []:
        try:
            text = Path(path).read_text()
        except OSError as e:
            print(f"{what}: --doc {path}: {e.strerror}", file=sys.stderr)
            errors += 1
            continue
        found = [n for n in sections if f"<!-- BEGIN {n} -->" in text]
        if not found:
            print(f"{what}: --doc {path}: none of the markers "
                  + ", ".join(f"'<!-- BEGIN {n} -->'" for n in sections), file=sys.stderr)
            errors += 1
            continue
        bad = [err for err in (replace_between_markers(path, n, sections[n]) for n in found)
               if err]
        for err in bad:
            print(f"{what}: {err}", file=sys.stderr)
        errors += bool(bad)
        if not bad:
            print(f"(updated {path})")
    return errors


def provenance(command, machine, details):
    """The first line of every generated doc section (--doc): which command measured
    it, when, at which commit (-dirty: with uncommitted source changes), DETAILS (the
    simulator mode, sizes, ...), the cores and the load average at the start.
    MACHINE is machine_info()."""
    load = ", ".join(f"{x:.1f}" for x in machine["loadavg_at_start"])
    return (f"Measured by `{command}` on {machine['date']}, commit {machine['git_head']}, "
            f"{details}; {machine['nproc']} cores ({machine['cpu_model']}), load average {load} "
            f"at the start.")


def bench_command(args):
    """The ./vlgpu bench command line of this run."""
    return f"./vlgpu bench {args.sub} {' '.join(args.argv)}"


def fmt_duration(s):
    s = int(s)
    return f"{s // 3600}h{s // 60 % 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


# ---------------------------------------------------------------------------
# glmark2
# ---------------------------------------------------------------------------

def select_scenes(patterns):
    """Default scenes whose spec starts with one of PATTERNS (a scene name like
    'build' selects both build entries); a pattern that matches none is used
    as a glmark2 benchmark spec itself.  None: all default scenes."""
    if not patterns:
        return list(glm.DEFAULT_SCENES)
    out = []
    for p in patterns:
        hits = [s for s in glm.DEFAULT_SCENES if s == p or s.startswith(p + ":") or s == p]
        if not hits:
            hits = [s for s in glm.DEFAULT_SCENES if s.startswith(p)]
        for s in hits or [p]:
            if s not in out:
                out.append(s)
    return out


def run_glmark2_once(launcher, display, shim, scene, mode, frames, size, workdir, timeout,
                     debug=(), sample=None):
    """One glmark2-es2 process: SCENE on MODE (softpipe | functional | cycle | sampled) for
    1 + FRAMES frames; DEBUG: more VLGPU_DEBUG flags (e.g. the compiler's "nodual");
    SAMPLE: mode sampled's VLGPU_SAMPLE plan (cycle mode, frame_sampling.h).  Returns a
    dict: ok, error, exit_code, peak_rss_mib, process_wall_s, frames (list of
    per-measured-frame dicts: frame, wall_ms, cpu_ms, and for vlgpu the VLGPU_STATS row's
    cycles, busy_* fractions, and when sampled its sample role and sample_block)."""
    workdir.mkdir(parents=True, exist_ok=True)
    times, stats = workdir / "times.txt", workdir / "stats.csv"
    for p in (times, stats, workdir / "stats.draws.csv"):
        if p.exists():
            p.unlink()
    driver = "softpipe" if mode == "softpipe" else "vlgpu"
    env = launcher.gl_env(driver)
    env["DISPLAY"] = display
    for k in ("VLGPU_STATS", "VLGPU_DUMP", "VLGPU_DUMP_DRAWS", "VLG_GRAB_DIR", "VLGPU_SAMPLE"):
        env.pop(k, None)
    if mode == "sampled":
        env["VLGPU_SAMPLE"] = sample
    flags = [f for f in env.get("VLGPU_DEBUG", "").split(",") if f and f != "functional"]
    if mode == "functional":
        flags.append("functional")
    flags += [f for f in debug if f not in flags]
    if flags:
        env["VLGPU_DEBUG"] = ",".join(flags)
    else:
        env.pop("VLGPU_DEBUG", None)
    if driver == "vlgpu":
        env["VLGPU_STATS"] = str(stats)
    env["LD_PRELOAD"] = " ".join(env.get("LD_PRELOAD", "").split() + [str(shim)])
    env.update({"VLG_GRAB_AT_FINISH": "1",
                "VLG_GRAB_FRAMES": str(frames + 1), "VLG_GRAB_TIMES": str(times)})
    cmd = [shutil.which("glmark2-es2") or "glmark2-es2", "--off-screen", "-s", size,
           "-b", scene]
    log = open(workdir / "output.log", "w")
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    # os.wait4 gives this process's own rusage (ru_maxrss in KiB on Linux).
    deadline = t0 + timeout
    status, ru = None, None
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            _, status, ru = os.wait4(proc.pid, 0)
            status = None
            break
        time.sleep(0.05)
    proc.returncode = 0  # reaped by wait4; keep Popen from waiting again
    log.close()
    wall = time.monotonic() - t0
    res = {"scene": scene, "mode": mode, "process_wall_s": wall,
           "peak_rss_mib": ru.ru_maxrss / 1024 if ru else None, "frames": []}
    if status is None:
        res.update(ok=False, exit_code=None, error=f"timeout after {timeout:.0f} s")
    else:
        code = os.waitstatus_to_exitcode(status)
        res["exit_code"] = code
        res.update(ok=code == 0, error=None if code == 0 else f"exit code {code}")
    t = glm.read_times(times)
    rows = glm.read_stats(stats) if driver == "vlgpu" else []
    for i in range(1, len(t)):
        f = {"frame": t[i][0], "wall_ms": (t[i][1] - t[i - 1][1]) / 1e6,
             "cpu_ms": (t[i][2] - t[i - 1][2]) / 1e6}
        # stats row k is the frame that ended at the k-th glFinish, as times line k
        if i < len(rows):
            r = rows[i]
            f["cycles"] = int(r["cycles"]) if mode in ("cycle", "sampled") else None
            f["draws"] = int(r["draws"])
            f["faults"] = int(r.get("faults") or 0)
            if mode == "sampled":
                f["sample"], f["sample_block"] = r["sample"], int(r["sample_block"])
            for k, v in r.items():
                if k.startswith("busy_") and mode == "cycle":
                    f[k] = float(v)
        res["frames"].append(f)
    if res["ok"] and len(res["frames"]) != frames:
        res.update(ok=False, error=f"{len(res['frames'])} of {frames} frames measured")
    if driver == "vlgpu" and res["ok"] and len(rows) < frames + 1:
        res.update(ok=False, error=f"VLGPU_STATS has {len(rows)} frames, want {frames + 1}")
    if any(f.get("faults") for f in res["frames"]):
        res.update(ok=False, error="GPU faults (see VLGPU_STATS)")
    return res


def summarize(runs, modes):
    """Per (scene, mode) aggregate rows from the list of runs."""
    by = {}
    for r in runs:
        by.setdefault((r["scene"], r["mode"]), []).append(r)
    rows = []
    scenes = []
    for r in runs:
        if r["scene"] not in scenes:
            scenes.append(r["scene"])
    base = {}
    for scene in scenes:
        for mode in modes:
            rs = by.get((scene, mode), [])
            fr = [f for r in rs for f in r["frames"]]
            row = {"scene": scene, "mode": mode, "runs": len(rs),
                   "failed_runs": sum(not r["ok"] for r in rs),
                   "errors": "; ".join(sorted({r["error"] for r in rs if r["error"]})),
                   "frames_measured": len(fr)}
            if fr:
                w = [f["wall_ms"] for f in fr]
                c = [f["cpu_ms"] for f in fr]
                row.update(wall_ms_median=statistics.median(w), wall_ms_min=min(w),
                           wall_ms_max=max(w), cpu_ms_median=statistics.median(c),
                           cpu_ms_min=min(c), cpu_ms_max=max(c))
            rss = [r["peak_rss_mib"] for r in rs if r["peak_rss_mib"]]
            row["peak_rss_mib"] = max(rss) if rss else None
            cyc = [f["cycles"] for f in fr if f.get("cycles") is not None]
            if cyc and mode != "sampled":
                row["cycles_per_frame"] = statistics.median(cyc)
                cpu_s = sum(f["cpu_ms"] for f in fr if f.get("cycles") is not None) / 1e3
                wall_s = sum(f["wall_ms"] for f in fr if f.get("cycles") is not None) / 1e3
                row["sim_cycles_per_cpu_s"] = sum(cyc) / cpu_s if cpu_s > 0 else None
                row["sim_cycles_per_wall_s"] = sum(cyc) / wall_s if wall_s > 0 else None
                total = sum(cyc)
                for k in sorted({k for f in fr for k in f if k.startswith("busy_")}):
                    num = sum(f.get(k, 0.0) * (f.get("cycles") or 0) for f in fr)
                    row[k] = num / total if total else None
            if mode == "softpipe" and fr:
                base[scene] = row
            rows.append(row)
    for row in rows:
        b = base.get(row["scene"])
        if (b and row.get("wall_ms_median") is not None and row["mode"] != "softpipe"
                and row["mode"] in PER_FRAME_MODES):
            row["ratio_wall"] = row["wall_ms_median"] / b["wall_ms_median"]
            row["ratio_cpu"] = (row["cpu_ms_median"] / b["cpu_ms_median"]
                                if b["cpu_ms_median"] > 0 else None)
    return rows


GLMARK2_COLUMNS = ["scene", "mode", "runs", "failed_runs", "frames_measured", "wall_ms_median",
                   "wall_ms_min", "wall_ms_max", "cpu_ms_median", "cpu_ms_min", "cpu_ms_max",
                   "ratio_wall", "ratio_cpu", "cycles_per_frame", "sim_cycles_per_cpu_s",
                   "sim_cycles_per_wall_s", "peak_rss_mib", "errors"]


def glmark2_table(rows, out_txt):
    headers = ["scene", "mode", "wall ms med", "min", "max", "cpu ms", "x sp wall", "x sp cpu",
               "Mcyc/frame", "Mcyc/cpu-s", "RSS MiB", "status"]
    table = []
    for r in rows:
        table.append([
            r["scene"][:48], r["mode"], fmt(r.get("wall_ms_median")), fmt(r.get("wall_ms_min")),
            fmt(r.get("wall_ms_max")), fmt(r.get("cpu_ms_median")), fmt(r.get("ratio_wall"), ".2f"),
            fmt(r.get("ratio_cpu"), ".2f"),
            fmt(r["cycles_per_frame"] / 1e6 if r.get("cycles_per_frame") else None, ".3f"),
            fmt(r["sim_cycles_per_cpu_s"] / 1e6 if r.get("sim_cycles_per_cpu_s") else None, ".2f"),
            fmt(r.get("peak_rss_mib"), ".0f"),
            "ok" if not r["failed_runs"] and r["frames_measured"] else "FAIL " + r["errors"]])
    return print_table(headers, table, out_txt)


def geomean(xs):
    import math
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def overall(rows, modes):
    """Per mode: median and geometric mean of the per-scene ratios, median
    Mcycles/s; how many scenes vlgpu is at least as fast as softpipe."""
    out = {}
    for mode in modes:
        if mode not in PER_FRAME_MODES or mode == "softpipe":
            continue
        rs = [r for r in rows if r["mode"] == mode and r.get("ratio_cpu") is not None]
        if not rs:
            continue
        o = {"scenes": len(rs),
             "median_ratio_wall": statistics.median(r["ratio_wall"] for r in rs),
             "median_ratio_cpu": statistics.median(r["ratio_cpu"] for r in rs),
             "geomean_ratio_cpu": geomean([r["ratio_cpu"] for r in rs]),
             "scenes_at_least_as_fast_cpu": sum(r["ratio_cpu"] <= 1.0 for r in rs),
             "scenes_at_least_as_fast_wall": sum(r["ratio_wall"] <= 1.0 for r in rs)}
        if mode == "cycle":  # against functional mode (issue "Speed": the cost of the timing)
            fun = {r["scene"]: r["cpu_ms_median"] for r in rows
                   if r["mode"] == "functional" and r.get("cpu_ms_median")}
            to_fun = [r["cpu_ms_median"] / fun[r["scene"]] for r in rs if r["scene"] in fun]
            if to_fun:
                o["median_ratio_to_functional_cpu"] = statistics.median(to_fun)
        cps = [r["sim_cycles_per_cpu_s"] for r in rs if r.get("sim_cycles_per_cpu_s")]
        if cps:
            o["median_sim_cycles_per_cpu_s"] = statistics.median(cps)
            o["min_sim_cycles_per_cpu_s"] = min(cps)
            o["max_sim_cycles_per_cpu_s"] = max(cps)
        out[mode] = o
    return out


def sample_spec(spec, rep, scene_index):
    """The VLGPU_SAMPLE plan of repetition REP of the SCENE_INDEX-th scene: SPEC with
    seed=1 + 1000 REP + SCENE_INDEX unless SPEC names a seed, so that every scene and
    repetition draws its own frames (the scenes' estimates are then independent, as the
    benchmark total's variance assumes, and the repetitions' mean is more precise)."""
    return spec if "seed=" in spec else f"{spec},seed={1 + 1000 * rep + scene_index}"


def sampled_summary(runs, scenes):
    """Mode sampled against mode cycle, per scene and for the whole benchmark (dict with
    "scenes" and "total", or None without both modes): the cycles of frames 1..N the sampled
    runs estimate (scripts/sampling.py; the mean of the repetitions' estimates, each with its
    own random plan: sampling.mean) and their interval next to the cycle
    runs' true sum (repetition 0; every repetition's must be equal: the simulator is
    deterministic), and the host CPU time of frames 1..N in both modes (all repetitions)."""
    import sampling
    by = {}
    for r in runs:
        by.setdefault((r["scene"], r["mode"]), []).append(r)
    out, ests = [], []
    for scene in scenes:
        cyc, smp = by.get((scene, "cycle"), []), by.get((scene, "sampled"), [])
        if not cyc or not smp:
            continue
        row = {"scene": scene}
        truths = {sum(f["cycles"] or 0 for f in r["frames"]) for r in cyc if r["ok"]}
        cpu_c = sum(f["cpu_ms"] for r in cyc for f in r["frames"]) / 1e3
        cpu_s = sum(f["cpu_ms"] for r in smp for f in r["frames"]) / 1e3
        row.update(cycle_cpu_s=cpu_c, sampled_cpu_s=cpu_s,
                   speedup=cpu_c / cpu_s if cpu_s > 0 else None,
                   timed_frames=sum(f.get("sample") in ("measured", "warmup")
                                    for r in smp for f in r["frames"]),
                   frames=sum(len(r["frames"]) for r in smp))
        if len(truths) != 1 or not all(r["ok"] for r in smp):
            row["error"] = ("cycle runs failed or differ in cycles" if len(truths) != 1
                            else "; ".join(sorted({r["error"] for r in smp if r["error"]})))
            out.append(row)
            continue
        row["true_cycles"] = truth = truths.pop()
        # each measured frame against the same frame of the cycle run (timed in a row): what
        # the frames skipped before it cost its timing (WARMUP)
        same = {f["frame"]: f["cycles"] for f in cyc[0]["frames"]}
        row["frame_deviation_pct"] = [100 * (f["cycles"] / same[f["frame"]] - 1)
                                      for r in smp for f in r["frames"]
                                      if f.get("sample") == "measured" and same.get(f["frame"])]
        try:
            es = [sampling.estimate(r["frames"], first=1) for r in smp]
        except sampling.SamplingError as e:
            row["error"] = str(e)
            out.append(row)
            continue
        e = sampling.mean(es)  # the repetitions' estimates, each with its own plan
        ests.append(e)
        row.update(estimate=e["estimate"], low=e["low"], high=e["high"],
                   error_pct=100 * (e["estimate"] - truth) / truth if truth else None,
                   inside=e["low"] is not None and e["low"] <= truth <= e["high"])
        out.append(row)
    if not out:
        return None
    ok = [r for r in out if "estimate" in r]
    total = {"scenes": len(out), "scenes_estimated": len(ok),
             "cycle_cpu_s": sum(r["cycle_cpu_s"] for r in out),
             "sampled_cpu_s": sum(r["sampled_cpu_s"] for r in out)}
    total["speedup"] = (total["cycle_cpu_s"] / total["sampled_cpu_s"]
                        if total["sampled_cpu_s"] > 0 else None)
    if ok and len(ok) == len(out):
        c = sampling.combine(ests)
        truth = sum(r["true_cycles"] for r in ok)
        total.update(true_cycles=truth, estimate=c["estimate"], low=c["low"], high=c["high"],
                     error_pct=100 * (c["estimate"] - truth) / truth,
                     inside=c["low"] is not None and c["low"] <= truth <= c["high"])
        errs = sorted(abs(r["error_pct"]) for r in ok)
        dev = sorted(abs(d) for r in ok for d in r["frame_deviation_pct"])
        total.update(median_abs_scene_error_pct=statistics.median(errs),
                     max_abs_scene_error_pct=errs[-1],
                     scenes_inside=sum(bool(r["inside"]) for r in ok),
                     measured_frames=len(dev),
                     median_abs_frame_deviation_pct=statistics.median(dev) if dev else None,
                     max_abs_frame_deviation_pct=dev[-1] if dev else None)
    return {"scenes": out, "total": total}


def sampled_markdown(doc):
    """Mode sampled's tables (list of markdown lines): the benchmark's total, then per scene
    the estimate, its error and interval, and the host CPU time against cycle mode."""
    sm = doc.get("sampled")
    if not sm:
        return []
    t = sm["total"]
    o = doc["options"]
    mc = (lambda v: "-" if v is None else f"{v / 1e6:.3f}")
    lines = [f"Sampled simulation (`VLGPU_SAMPLE={o.get('sample')}`, a random plan per "
             f"repetition; scripts/sampling.py) against cycle mode, cycles and host CPU time "
             f"of frames 1..{o['frames']}:", ""]
    if "estimate" in t:
        lines += md_table(
            ["benchmark (all scenes)", "true Mcycles (cycle mode)", "estimated Mcycles",
             "error", "95 % interval, Mcycles", "truth inside", "cycle CPU s",
             "sampled CPU s", "host-time speed-up", "per-scene error, median / max |%|",
             "scenes with the truth inside their interval",
             "measured frames vs the same frames timed in a row, median / max |%|"],
            [[f"{t['scenes']} scenes", mc(t["true_cycles"]), mc(t["estimate"]),
              f"**{t['error_pct']:+.2f} %**",
              f"{mc(t['low'])} .. {mc(t['high'])}" if t["low"] is not None else "-",
              "yes" if t["inside"] else "**no**", f"{t['cycle_cpu_s']:.1f}",
              f"{t['sampled_cpu_s']:.1f}", f"**{t['speedup']:.1f}x**",
              f"{t['median_abs_scene_error_pct']:.2f} / {t['max_abs_scene_error_pct']:.2f}",
              f"{t['scenes_inside']} of {t['scenes_estimated']}",
              f"{fmt(t['median_abs_frame_deviation_pct'], '.3f')} / "
              f"{fmt(t['max_abs_frame_deviation_pct'], '.2f')} ({t['measured_frames']} frames)"]])
    else:
        lines.append(f"No benchmark total: {t['scenes'] - t['scenes_estimated']} scene(s) "
                     f"without an estimate (below).")
    lines += ["", "Per scene:", ""]
    rows = []
    for r in sm["scenes"]:
        if "estimate" not in r:
            rows.append([r["scene"].replace("|", "\\|"), mc(r.get("true_cycles")), "-",
                         "FAIL: " + r.get("error", ""), "-", "-", f"{r['cycle_cpu_s']:.2f}",
                         f"{r['sampled_cpu_s']:.2f}", "-", "-"])
            continue
        rows.append([r["scene"].replace("|", "\\|"), mc(r["true_cycles"]), mc(r["estimate"]),
                     f"{r['error_pct']:+.2f} %",
                     f"{mc(r['low'])} .. {mc(r['high'])}" if r["low"] is not None else "-",
                     "yes" if r["inside"] else "no", f"{r['cycle_cpu_s']:.2f}",
                     f"{r['sampled_cpu_s']:.2f}", fmt(r["speedup"], ".1f"),
                     f"{r['timed_frames']} of {r['frames']}"])
    lines += md_table(["scene", "true Mcycles", "estimated Mcycles", "error",
                       "95 % interval, Mcycles", "truth inside", "cycle CPU s",
                       "sampled CPU s", "speed-up", "frames timed (all reps)"], rows)
    return lines


def glmark2_markdown(doc):
    """The per-scene table of a glmark2 run as markdown: one row per scene, the
    per-frame modes (softpipe, functional, cycle) side by side (wall ms median,
    CPU ms median, ratios vs softpipe)."""
    rows = doc["scenes"]
    get = {(r["scene"], r["mode"]): r for r in rows}
    scenes = []
    for r in rows:
        if r["scene"] not in scenes:
            scenes.append(r["scene"])
    modes = [m for m in doc["options"]["modes"] if m in PER_FRAME_MODES]
    headers = ["scene"]
    for m in modes:
        headers += [f"{m} wall ms (min-max)", f"{m} CPU ms"]
        if m != "softpipe":
            headers += [f"{m}/softpipe CPU (wall)"]
    if "cycle" in modes:
        headers += ["cycle Mcycles/frame", "cycle Mcycles/CPU-s"]
    headers += ["peak RSS MiB " + "/".join(modes)]
    out = []
    for sc in scenes:
        line = [sc.replace("|", "\\|")]
        for m in modes:
            r = get.get((sc, m), {})
            if r.get("failed_runs"):
                line += ["FAIL: " + r.get("errors", ""), "-"]
            else:
                line += [f"{fmt(r.get('wall_ms_median'))} ({fmt(r.get('wall_ms_min'))}-"
                         f"{fmt(r.get('wall_ms_max'))})", fmt(r.get("cpu_ms_median"))]
            if m != "softpipe":
                line += [f"{fmt(r.get('ratio_cpu'), '.2f')} ({fmt(r.get('ratio_wall'), '.2f')})"]
        if "cycle" in modes:
            r = get.get((sc, "cycle"), {})
            line += [fmt(r["cycles_per_frame"] / 1e6 if r.get("cycles_per_frame") else None, ".3f"),
                     fmt(r["sim_cycles_per_cpu_s"] / 1e6 if r.get("sim_cycles_per_cpu_s")
                         else None, ".2f")]
        line += ["/".join(fmt(get.get((sc, m), {}).get("peak_rss_mib"), ".0f") for m in modes)]
        out.append(line)
    return "\n".join(md_table(headers, out)) + "\n"


def glmark2_provenance(doc):
    """One line saying where a glmark2 run's figures come from: command, date,
    commit (with '-dirty' when the tree had uncommitted changes), duration,
    load average at the start and the modes (functional and cycle are vlgpu's
    simulator modes, softpipe Mesa's reference renderer)."""
    o = doc["options"]
    return provenance(doc["command"], doc["machine"],
                      f"{fmt_duration(doc['duration_s'])}, {len(o['scenes'])} scenes at "
                      f"{o['size']}, {o['frames']} measured frames x {o['reps']} repetitions, "
                      f"modes {', '.join(o['modes'])}")


def glmark2_summary_table(doc):
    """The summary of a glmark2 run (list of markdown lines): per vlgpu mode the
    median and geometric mean over scenes of the vlgpu / softpipe ratio of the
    median ms per frame, the scenes at least as fast as softpipe, and in cycle
    mode the simulated cycles per CPU second."""
    rows = []
    for mode, o in doc["summary"].items():
        cps = "-"
        if "median_sim_cycles_per_cpu_s" in o:
            cps = (f"{o['median_sim_cycles_per_cpu_s'] / 1e6:.2f} M "
                   f"({o['min_sim_cycles_per_cpu_s'] / 1e6:.2f}-"
                   f"{o['max_sim_cycles_per_cpu_s'] / 1e6:.2f} M)")
        rows.append([mode, f"**{o['median_ratio_cpu']:.2f}**", f"{o['median_ratio_wall']:.2f}",
                     f"{o['geomean_ratio_cpu']:.2f}",
                     f"{o['scenes_at_least_as_fast_cpu']} of {o['scenes']}",
                     fmt(o.get("median_ratio_to_functional_cpu"), ".2f"), cps])
    return md_table(["vlgpu mode", "median ratio to softpipe, CPU time", "median ratio, wall",
                     "geometric mean, CPU", "scenes at least as fast as softpipe (CPU)",
                     "median ratio to functional mode, CPU",
                     "simulated cycles per CPU second, median (min-max)"], rows)


def glmark2_summary_sentence(doc):
    """The run's summary as one sentence (for the README)."""
    parts = []
    for mode, o in doc["summary"].items():
        p = f"{mode} mode {o['median_ratio_cpu']:.2f}x softpipe's CPU time per frame"
        if "median_ratio_to_functional_cpu" in o:
            p += f" ({o['median_ratio_to_functional_cpu']:.2f}x functional mode's)"
        if "median_sim_cycles_per_cpu_s" in o:
            p += (f" at {o['median_sim_cycles_per_cpu_s'] / 1e6:.2f} M simulated cycles per CPU "
                  f"second ({o['min_sim_cycles_per_cpu_s'] / 1e6:.2f}-"
                  f"{o['max_sim_cycles_per_cpu_s'] / 1e6:.2f} M)")
        parts.append(p)
    t = (doc.get("sampled") or {}).get("total", {})
    if "estimate" in t:
        parts.append(f"sampled mode (`VLGPU_SAMPLE={doc['options'].get('sample')}`) "
                     f"{t['speedup']:.1f}x less host CPU time than cycle mode over the "
                     f"benchmark, its total cycles {t['error_pct']:+.2f} % off the cycle-mode "
                     f"run's (truth {'inside' if t['inside'] else 'OUTSIDE'} the 95 % interval)")
    m = doc["machine"]
    return [f"Medians over {len(doc['options']['scenes'])} glmark2 scenes: " + "; ".join(parts)
            + f" (`{doc['command']}`, {m['date']}, commit {m['git_head']})."]


def glmark2_doc_sections(doc):
    """The generated parts of a glmark2 run for --doc: 'bench glmark2' (the
    provenance line, the summary and per-scene tables) and 'bench glmark2
    summary' (one sentence for the README)."""
    full = ([glmark2_provenance(doc), "", "Summary (vlgpu / softpipe, medians of the "
             "per-scene ratios of the median ms per frame):", ""]
            + glmark2_summary_table(doc)
            + ["", "Per scene (ms per frame: median over the measured frames of all "
               "repetitions, min-max in brackets; ratio = vlgpu / softpipe of the "
               "medians, CPU time first, wall in brackets):", ""]
            + glmark2_markdown(doc).rstrip("\n").split("\n"))
    if doc.get("sampled"):
        full += [""] + sampled_markdown(doc)
    return {"bench glmark2": full, "bench glmark2 summary": glmark2_summary_sentence(doc)}


def glmark2_launcher(what, size):
    """The launcher for glmark2 runs, or None after saying on stderr why not (Mesa not built,
    glmark2-es2 missing, SIZE not WxH); WHAT names the command in the message."""
    launcher = glm.load_launcher()
    if not launcher.mesa_built():
        print(f"{what}: Mesa is not built (./vlgpu setup)", file=sys.stderr)
        return None
    if not shutil.which("glmark2-es2"):
        print(f"{what}: glmark2-es2 not found (Debian glmark2-es2-x11)", file=sys.stderr)
        return None
    if not re.fullmatch(r"\d+x\d+", size):
        print(f"{what}: --size {size!r}: want WxH, e.g. 800x600", file=sys.stderr)
        return None
    return launcher


def cmd_glmark2(args):
    launcher = glmark2_launcher("bench glmark2", args.size)
    if launcher is None:
        return 2
    sample_period = re.match(r"\d+", args.sample)
    if args.modes is None:
        # sampled needs two blocks of frames for an estimate with an interval
        short = not sample_period or args.frames < 2 * int(sample_period.group())
        modes = [m for m in MODES if m != "sampled" or not short]
        if short:
            print(f"bench glmark2: note: mode sampled left out: --frames {args.frames} holds "
                  f"fewer than two blocks of --sample {args.sample} (e.g. --frames 60 "
                  "--sample 12:0,skip, or name it in --modes)", file=sys.stderr)
    else:
        modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        print(f"bench glmark2: --modes: unknown {bad}; choose from {','.join(MODES)}",
              file=sys.stderr)
        return 2
    if "sampled" in modes:
        # the device checks the whole plan (frame_sampling.cpp: a bad one fails every
        # sampled run with the reason in its output.log); the period is all this needs
        period = sample_period
        if not period:
            print(f"bench glmark2: --sample {args.sample!r}: want PERIOD[:WARMUP][,seed=N]"
                  "[,skip]", file=sys.stderr)
            return 2
        if "cycle" not in modes:
            print("bench glmark2: mode sampled is measured against mode cycle: add cycle to "
                  "--modes", file=sys.stderr)
            return 2
        if args.frames < 2 * int(period.group()):
            print(f"bench glmark2: note: --frames {args.frames} holds fewer than two blocks of "
                  f"{period.group()} frames: the sampled estimates get no interval",
                  file=sys.stderr)
    if args.frames < 1 or args.reps < 1:
        print("bench glmark2: --frames and --reps must be >= 1", file=sys.stderr)
        return 2
    scenes = select_scenes(args.scenes)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = out / "glmark2-runs"
    shim = driverlib.framegrab_shim()
    total = len(scenes) * len(modes) * args.reps
    print(f"bench glmark2: {len(scenes)} scene(s) x {len(modes)} mode(s) ({','.join(modes)}) x "
          f"{args.reps} repetition(s) = {total} glmark2 processes, {args.frames} measured frames "
          f"each (+1 set-up frame), {args.size}, interleaved.", flush=True)
    print("  expected duration: measured on the 2-core development machine (docs/performance.md): "
          "all 33 scenes x 4 modes with --frames 60 --reps 1 took 20 to 29 min at load 1 (the "
          "same host on different days), cycle mode half of it; time grows with (frames + 1) x reps. A rough estimate of the remaining time follows each run.", flush=True)
    machine = machine_info()
    runs = []
    t_start = time.monotonic()
    n = 0
    with launcher.PrivateX() as x:
        for rep in range(args.reps):
            for scene in scenes:
                for mode in modes:
                    n += 1
                    wd = work / f"{glm.slug(scene)}" / f"{mode}-rep{rep}"
                    r = run_glmark2_once(launcher, x.display, shim, scene, mode, args.frames,
                                         args.size, wd, args.timeout,
                                         sample=sample_spec(args.sample, rep,
                                                            scenes.index(scene)))
                    r["rep"] = rep
                    r["workdir"] = str(wd)
                    runs.append(r)
                    el = time.monotonic() - t_start
                    eta = el / n * (total - n)
                    med = (statistics.median(f["wall_ms"] for f in r["frames"])
                           if r["frames"] else None)
                    print(f"  [{n}/{total}] rep {rep + 1} {scene[:50]:50s} {mode:10s} "
                          f"{fmt(med)} ms/frame  {'ok' if r['ok'] else 'FAIL: ' + r['error']}"
                          f"  (elapsed {fmt_duration(el)}, ~{fmt_duration(eta)} left)",
                          flush=True)
    rows = summarize(runs, modes)
    summary = overall(rows, modes)
    sampled = sampled_summary(runs, scenes)
    txt = out / "glmark2.txt"
    txt.write_text(f"# ./vlgpu bench glmark2 {' '.join(args.argv)}\n# machine: {machine}\n")
    print()
    glmark2_table(rows, txt)
    lines = []
    for mode, o in summary.items():
        line = (f"{mode}: median vlgpu/softpipe ratio {o['median_ratio_cpu']:.2f} (CPU time), "
                f"{o['median_ratio_wall']:.2f} (wall); geometric mean {o['geomean_ratio_cpu']:.2f} "
                f"(CPU); at least as fast as softpipe on {o['scenes_at_least_as_fast_cpu']} of "
                f"{o['scenes']} scenes (CPU)")
        if "median_sim_cycles_per_cpu_s" in o:
            line += (f"; simulated cycles per CPU second: median "
                     f"{o['median_sim_cycles_per_cpu_s'] / 1e6:.2f} M (min "
                     f"{o['min_sim_cycles_per_cpu_s'] / 1e6:.2f} M, max "
                     f"{o['max_sim_cycles_per_cpu_s'] / 1e6:.2f} M)")
        lines.append(line)
    t = (sampled or {}).get("total", {})
    if "estimate" in t:
        lines.append(f"sampled ({args.sample}): {t['speedup']:.1f}x less host CPU time than "
                     f"cycle mode; total cycles {t['estimate'] / 1e6:.3f} M estimated, "
                     f"{t['true_cycles'] / 1e6:.3f} M true ({t['error_pct']:+.2f} %), 95 % "
                     f"interval {t['low'] / 1e6:.3f}-{t['high'] / 1e6:.3f} M (truth "
                     f"{'inside' if t['inside'] else 'OUTSIDE'}); per-scene |error| median "
                     f"{t['median_abs_scene_error_pct']:.2f} %, max "
                     f"{t['max_abs_scene_error_pct']:.2f} %")
    elif sampled:
        lines.append("sampled: no benchmark total (see the per-scene errors in glmark2.md)")
    print("\n".join(lines))
    with open(txt, "a") as f:
        f.write("\n".join(lines) + "\n")
    busy_cols = sorted({k for r in rows for k in r if k.startswith("busy_")})
    write_csv(out / "glmark2.csv", rows, GLMARK2_COLUMNS + busy_cols)
    frame_rows = [{"scene": r["scene"], "mode": r["mode"], "rep": r["rep"], **f}
                  for r in runs for f in r["frames"]]
    write_csv(out / "glmark2-frames.csv", frame_rows)
    doc = {"benchmark": "glmark2", "command": "./vlgpu bench glmark2 " + " ".join(args.argv),
           "machine": machine, "options": {"scenes": scenes, "modes": modes, "reps": args.reps,
                                           "frames": args.frames, "size": args.size,
                                           "sample": args.sample if "sampled" in modes
                                           else None},
           "duration_s": time.monotonic() - t_start, "summary": summary, "scenes": rows,
           "sampled": sampled,
           "runs": runs}
    (out / "glmark2.json").write_text(json.dumps(doc, indent=1))
    (out / "glmark2.md").write_text(glmark2_markdown(doc) + "\n".join(
        [""] + sampled_markdown(doc)) + "\n")
    doc_errors = write_doc_sections(args.doc, glmark2_doc_sections(doc), "bench glmark2")
    if not args.no_plots:
        plot_glmark2(doc, out)
    print(f"\nwrote {out}/glmark2.csv, glmark2-frames.csv, glmark2.json, glmark2.txt"
          f" (per-run logs in {work})")
    if doc_errors:
        return 2
    return 0 if all(r["ok"] for r in runs) else 1


# ---------------------------------------------------------------------------
# plots
# ---------------------------------------------------------------------------

def short_name(scene):
    s = scene.replace("update-dispersion=0.9:update-fraction=0.5:", "")
    s = s.replace("columns=200:", "").replace("kernel=1,1,1,1,1;1,1,1,1,1;1,1,1,1,1;", "5x3 blur")
    s = s.replace("kernel=0,1,0;1,-4,1;0,1,0;", "3x3 edge")
    s = s.replace("blur-radius=5:effect=blur:passes=1:separable=true:windows=4", "blur")
    s = s.replace("fragment-", "f-").replace("vertex-", "v-").replace("=false", "=0")
    s = s.replace("=true", "=1")
    return s[:44]


def plot_glmark2(doc, outdir):
    """host-time.png (ms per frame per scene and mode, log scale, min-max bars),
    cycles.png (simulated cycles per frame, cycle mode), utilisation.png (busy
    fraction per module per scene, cycle mode) into OUTDIR.  Returns the paths."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench: python3-matplotlib not installed: no plots", file=sys.stderr)
        return []
    rows = doc["scenes"]
    scenes = []
    for r in rows:
        if r["scene"] not in scenes:
            scenes.append(r["scene"])
    modes = [m for m in PER_FRAME_MODES if any(r["mode"] == m for r in rows)]
    get = {(r["scene"], r["mode"]): r for r in rows}
    names = [short_name(s) for s in scenes]
    paths = []
    colors = {"softpipe": "#777777", "functional": "#1f77b4", "cycle": "#d62728"}
    machine = doc.get("machine", {})
    foot = (f"{doc['command']}  |  {machine.get('cpu_model', '?')}, {machine.get('nproc', '?')} "
            f"cores, {machine.get('date', '')}")

    def save(fig, name, right=1.0, footer=True):
        """Write FIG as OUTDIR/NAME (with the run's footer line), close it, list it."""
        if footer:
            fig.text(0.01, 0.005, foot, fontsize=6, color="#555555")
            fig.tight_layout(rect=(0, 0.02, right, 1))
        else:
            fig.tight_layout()
        p = Path(outdir) / name
        fig.savefig(p)
        plt.close(fig)
        paths.append(p)

    # host time per frame
    fig, ax = plt.subplots(figsize=(10, 0.28 * len(scenes) * len(modes) / 2 + 2.2), dpi=80)
    h = 0.8 / len(modes)
    for j, m in enumerate(modes):
        ys, xs, lo, hi = [], [], [], []
        for i, s in enumerate(scenes):
            r = get.get((s, m))
            if r and r.get("wall_ms_median") is not None:
                ys.append(i + j * h)
                xs.append(r["wall_ms_median"])
                lo.append(r["wall_ms_median"] - r["wall_ms_min"])
                hi.append(r["wall_ms_max"] - r["wall_ms_median"])
        ax.barh(ys, xs, height=h, xerr=[lo, hi], color=colors[m], label=m,
                error_kw={"elinewidth": 0.6, "capsize": 1.5})
    ax.set_yticks([i + h * (len(modes) - 1) / 2 for i in range(len(scenes))])
    ax.set_yticklabels(names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("host wall-clock ms per frame (median, bars: min-max over frames and reps)")
    ax.set_title(f"glmark2-es2 {doc['options']['size']} off-screen: host time per frame", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(axis="x", which="both", alpha=0.3)
    save(fig, "host-time.png")

    cyc_scenes = [s for s in scenes if (get.get((s, "cycle")) or {}).get("cycles_per_frame")]
    if cyc_scenes:
        fig, ax1 = plt.subplots(figsize=(10, 0.25 * len(cyc_scenes) + 1.8), dpi=80)
        ys = range(len(cyc_scenes))
        cyc = [get[(s, "cycle")]["cycles_per_frame"] / 1e6 for s in cyc_scenes]
        ax1.barh(list(ys), cyc, color=colors["cycle"])
        for y, (c, s) in enumerate(zip(cyc, cyc_scenes)):
            cps = get[(s, "cycle")].get("sim_cycles_per_cpu_s")
            ax1.text(c, y, f" {c:.2f} M  ({cps / 1e6:.2f} M cyc/CPU-s)" if cps else f" {c:.2f} M",
                     va="center", fontsize=6)
        ax1.set_yticks(list(ys))
        ax1.set_yticklabels([short_name(s) for s in cyc_scenes], fontsize=7)
        ax1.invert_yaxis()
        ax1.set_xlabel("simulated GPU cycles per frame, millions (cycle mode, median); "
                       "label: simulation speed")
        ax1.set_title("vlgpu cycle mode: cycles per frame", fontsize=10)
        ax1.set_xlim(0, max(cyc) * 1.45)
        ax1.grid(axis="x", alpha=0.3)
        save(fig, "cycles.png")

        mods = sorted({k[5:] for s in cyc_scenes for k in get[(s, "cycle")]
                       if k.startswith("busy_")})
        if mods:
            import numpy as np
            data = np.array([[get[(s, "cycle")].get("busy_" + m) or 0.0 for m in mods]
                             for s in cyc_scenes])
            fig, ax2 = plt.subplots(figsize=(1.2 + 0.6 * len(mods), 0.25 * len(cyc_scenes) + 2),
                                    dpi=80)
            im = ax2.imshow(data, aspect="auto", cmap="viridis", vmin=0, vmax=1)
            ax2.set_xticks(range(len(mods)))
            ax2.set_xticklabels(mods, rotation=45, ha="right", fontsize=7)
            ax2.set_yticks(range(len(cyc_scenes)))
            ax2.set_yticklabels([short_name(s) for s in cyc_scenes], fontsize=7)
            for i in range(data.shape[0]):
                for j in range(data.shape[1]):
                    ax2.text(j, i, f"{data[i, j]:.2f}", ha="center", va="center", fontsize=5.5,
                             color="white" if data[i, j] < 0.6 else "black")
            fig.colorbar(im, ax=ax2, fraction=0.04, pad=0.02, label="busy fraction")
            ax2.set_title("vlgpu cycle mode: module busy fraction per scene", fontsize=10)
            save(fig, "utilisation.png", footer=False)
    sm = (doc.get("sampled") or {}).get("scenes", [])
    est = [r for r in sm if "estimate" in r]
    if est:
        fig, ax = plt.subplots(figsize=(9, 0.25 * len(est) + 2), dpi=80)
        ys = range(len(est))
        err = [r["error_pct"] for r in est]
        lo = [r["error_pct"] - 100 * (r["low"] - r["true_cycles"]) / r["true_cycles"]
              if r["low"] is not None else 0 for r in est]
        hi = [100 * (r["high"] - r["true_cycles"]) / r["true_cycles"] - r["error_pct"]
              if r["high"] is not None else 0 for r in est]
        ax.errorbar(err, list(ys), xerr=[lo, hi], fmt="o", color="#d62728", ecolor="#999999",
                    capsize=2, markersize=3)
        ax.axvline(0, color="black", linewidth=0.8)
        for y, r in zip(ys, est):
            ax.text(1.02, y, f"{r['speedup']:.1f}x", transform=ax.get_yaxis_transform(),
                    va="center", fontsize=6)
        ax.set_yticks(list(ys))
        ax.set_yticklabels([short_name(r["scene"]) for r in est], fontsize=7)
        ax.invert_yaxis()
        lim = max(2.0, max(min(max(abs(e) + max(a, b) for e, a, b in zip(err, lo, hi)), 25.0),
                           max(abs(e) for e in err)) * 1.1)
        ax.set_xlim(-lim, lim)
        ax.set_xlabel("sampled estimate - cycle-mode truth, % of the truth (bars: 95 % "
                      "interval, clipped); right: host-time speed-up")
        t = doc["sampled"]["total"]
        ax.set_title(f"sampled simulation (VLGPU_SAMPLE={doc['options'].get('sample')}): "
                     + (f"benchmark total {t['error_pct']:+.2f} %, {t['speedup']:.1f}x less "
                        f"host time" if "estimate" in t else "no benchmark total"), fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        save(fig, "sampled.png", right=0.95)
    print("plots: " + ", ".join(str(p) for p in paths))
    return paths


def cmd_plot(args):
    doc = json.loads(Path(args.json).read_text())
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    if args.markdown:
        (d / "glmark2.md").write_text(glmark2_markdown(doc))
    return 0 if plot_glmark2(doc, d) else 1


# ---------------------------------------------------------------------------
# sim
# ---------------------------------------------------------------------------

SIM_SCENES = ["build:use-vbo=true", "texture:texture-filter=mipmap", "shading:shading=phong",
              "desktop:effect=shadow:windows=4", "loop:fragment-steps=5:fragment-uniform=true:"
              "vertex-steps=5"]


def capture_dump(launcher, display, shim, scene, dumpdir, size):
    """Every draw of glmark2 SCENE's set-up frame and first frame, dumped by the
    driver (VLGPU_DUMP, functional mode) into DUMPDIR.  Returns the draw count."""
    if dumpdir.exists():
        shutil.rmtree(dumpdir)
    env = launcher.gl_env("vlgpu")
    env["DISPLAY"] = display
    for k in ("VLGPU_STATS", "VLGPU_DUMP_DRAWS", "VLG_GRAB_DIR", "VLG_GRAB_TIMES"):
        env.pop(k, None)
    env["LD_PRELOAD"] = " ".join(env.get("LD_PRELOAD", "").split() + [str(shim)])
    env.update({"VLGPU_DEBUG": "functional", "VLGPU_DUMP": str(dumpdir),
                "VLG_GRAB_AT_FINISH": "1", "VLG_GRAB_FRAMES": "2"})
    subprocess.run([shutil.which("glmark2-es2") or "glmark2-es2", "--off-screen", "-s", size,
                    "-b", scene], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL, timeout=600)
    return len(list(dumpdir.glob("draw-*"))) if dumpdir.exists() else 0


def run_sim_bench(extra, jpath):
    """vlgpu-sim-bench sim EXTRA --json JPATH; returns (cmd, CompletedProcess, json or None)."""
    if jpath.exists():
        jpath.unlink()
    cmd = [str(SIM_BENCH), "sim"] + extra + ["--json", str(jpath)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return cmd, r, json.loads(jpath.read_text()) if r.returncode == 0 and jpath.exists() else None


def cmd_sim(args):
    if not SIM_BENCH.exists():
        print(f"bench sim: not built yet: {SIM_BENCH.relative_to(ROOT)} "
              "(ninja -C build/standalone)", file=sys.stderr)
        return 2
    help_text = subprocess.run([str(SIM_BENCH), "sim", "--help"], capture_output=True,
                               text=True).stdout
    if "--json" not in help_text or "--dump" not in help_text:
        print("bench sim: this vlgpu-sim-bench has no --json/--dump (rebuild build/standalone)",
              file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    scenes = select_scenes(args.scenes) if args.scenes else SIM_SCENES
    print(f"bench sim: the synthetic frame, then {len(scenes)} glmark2 scene(s) dumped "
          "(set-up frame + first frame) and replayed; --repeat " + str(args.repeat) +
          " runs per package and mode (a few seconds to a minute per scene)", flush=True)
    workloads = [("synthetic", [])]
    launcher = glm.load_launcher()
    shim = driverlib.framegrab_shim()
    with launcher.PrivateX() as x:
        for scene in scenes:
            d = out / "sim-dumps" / glm.slug(scene)
            n = capture_dump(launcher, x.display, shim, scene, d, args.size)
            if not n:
                print(f"bench sim: no draws dumped for {scene}", file=sys.stderr)
                return 1
            workloads.append((scene, ["--dump", str(d)]))
    rows, tools, ok = [], {}, True
    for name, extra in workloads:
        cmd, r, j = run_sim_bench(extra + ["--repeat", str(args.repeat)],
                                  out / f"sim-tool-{glm.slug(name)}.json")
        print(f"  {name}: {'ok' if j else 'FAILED'} ({' '.join(cmd[1:])})", flush=True)
        if not j:
            print(r.stdout[-2000:] + r.stderr[-2000:], file=sys.stderr)
            ok = False
            continue
        tools[name] = j
        t = j["total"]
        rows.append({"workload": name, "draws": t["draws"], "cycles": t["cycles"],
                     "functional_ms": t["functional_ms"],
                     "functional_ms_per_draw": t["functional_ms_per_draw"],
                     "cycle_ms": t["cycle_ms"], "cycle_ms_per_draw": t["cycle_ms_per_draw"],
                     "cycle_over_functional": t["cycle_ms"] / t["functional_ms"]
                     if t["functional_ms"] else None,
                     "sim_cycles_per_cpu_s": t["cycles_per_second"],
                     "identical": t.get("identical"), "peak_rss_mib": j.get("peak_rss_mib")})
    barrier_ns = measure_barrier()
    rates = [r["sim_cycles_per_cpu_s"] for r in rows if r["sim_cycles_per_cpu_s"]]
    ns_per_cycle = 1e9 / statistics.median(rates) if rates else None
    threads = None
    if barrier_ns is not None and ns_per_cycle:
        threads = {"barrier_ns_per_cycle": barrier_ns, "sim_ns_per_cycle": ns_per_cycle,
                   "bound": two_thread_bound(ns_per_cycle, barrier_ns)}
    doc = {"benchmark": "sim", "machine": machine_info(), "repeat": args.repeat,
           "scenes": scenes, "timing": "median CPU time inside Gpu::execute (vlgpu-sim-bench)",
           "results": rows, "two_threads": threads, "tool": tools}
    (out / "sim.json").write_text(json.dumps(doc, indent=1))
    write_csv(out / "sim.csv", rows)
    print()
    headers = ["workload", "draws", "Mcycles", "functional ms/draw", "cycle ms/draw",
               "cycle / functional", "Mcycles per CPU s", "identical", "peak RSS MiB"]
    table = [[r["workload"], r["draws"], fmt(r["cycles"] / 1e6, ".3f"),
              fmt(r["functional_ms_per_draw"], ".2f"), fmt(r["cycle_ms_per_draw"], ".2f"),
              fmt(r["cycle_over_functional"], ".1f"),
              fmt(r["sim_cycles_per_cpu_s"] / 1e6, ".3f"), r["identical"],
              fmt(r["peak_rss_mib"], ".1f")] for r in rows]
    print_table(headers, [[c[:44] if i == 0 else c for i, c in enumerate(t)] for t in table])
    print(f"(median CPU time inside Gpu::execute; wrote {out}/sim.csv, sim.json)")
    cells = [[str(c).replace("|", "\\|") for c in t] for t in table]
    md = ([provenance(bench_command(args), doc["machine"], "functional and cycle mode"), ""]
          + md_table(headers, cells))
    if threads:
        line = (f"Two host threads (issue \"Speed\", item 2): two threads that only meet once "
                f"per cycle (bench_core BM_TwoThreadCycleBarrier, median of 5) take "
                f"**{threads['barrier_ns_per_cycle']:.0f} ns per cycle** here; the simulator "
                f"takes {threads['sim_ns_per_cycle']:.0f} ns per simulated cycle (the median "
                f"rate above), so ticking its modules on two threads, the work halved "
                f"perfectly, could run at most **{threads['bound']:.2f}x** the one-thread rate "
                f"(ns / (ns / 2 + barrier)).")
        print("\n" + line.replace("**", ""))
        md += ["", line]
    else:
        print("\n(two-thread bound not measured: build/standalone/bench/sim/bench_core missing "
              "or failed)")
    if write_doc_sections(args.doc, {"bench sim": md}, "bench sim"):
        return 2
    return 0 if ok and all(r["identical"] is not False for r in rows) else 1


def two_thread_bound(ns_per_cycle, barrier_ns):
    """Upper bound of the speed-up of ticking the modules on two host threads
    (issue "Speed", item 2) when one thread takes ns_per_cycle of host time per
    simulated cycle: the work split perfectly in two halves, plus the barrier
    both threads must pass at every cycle boundary (queues have latency 1, so
    no thread may start cycle t + 1 before the other ended t), nothing else:
    ns_per_cycle / (ns_per_cycle / 2 + barrier_ns)."""
    return ns_per_cycle / (ns_per_cycle / 2 + barrier_ns)


def measure_barrier():
    """ns per cycle of bench_core's BM_TwoThreadCycleBarrier (two threads that
    only meet once per cycle), median of 5 repetitions; None when bench_core
    is not built (Google Benchmark missing) or fails."""
    if not CORE_BENCH.exists():
        return None
    r = subprocess.run([str(CORE_BENCH), "--benchmark_filter=^BM_TwoThreadCycleBarrier(/|$)",
                        "--benchmark_repetitions=5", "--benchmark_format=json"],
                       capture_output=True, text=True)
    try:
        runs = [b["ns_per_cycle"] for b in json.loads(r.stdout)["benchmarks"]
                if b.get("run_type") == "iteration"]
    except (ValueError, KeyError):
        runs = []
    if r.returncode or not runs:
        print(f"bench sim: {CORE_BENCH.name} failed (exit {r.returncode}):\n"
              f"{(r.stdout + r.stderr)[-2000:]}", file=sys.stderr)
        return None
    return statistics.median(runs)


def read_measurements(gtest_json):
    """The record_measurement() properties of a --gtest_output=json file: a list
    of {test, what, config, cycles, bound, bound_is, ratio} in test order."""
    rows = []
    for suite in json.loads(Path(gtest_json).read_text()).get("testsuites", []):
        for test in suite.get("testsuite", []):
            for key, value in test.items():
                if not key.startswith("measure: "):
                    continue
                what, config = key[len("measure: "):].rsplit(" @ ", 1)
                v = json.loads(value)
                rows.append({"test": f"{suite['name']}.{test['name']}", "what": what,
                             "config": config, "cycles": v["cycles"], "bound": v["bound"],
                             "bound_is": v["bound_is"], "ratio": v["cycles"] / v["bound"]})
    return rows


def cmd_memory(args):
    if not UNITS_TESTS.exists():
        print(f"bench memory: not built yet: {UNITS_TESTS.relative_to(ROOT)} "
              "(ninja -C build/standalone)", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jpath = out / "memory-gtest.json"
    if jpath.exists():
        jpath.unlink()
    env = dict(os.environ, VLG_TEST_COPY_MIB="32")
    cmd = [str(UNITS_TESTS), "--gtest_filter=" + ":".join(MEMORY_TESTS),
           f"--gtest_output=json:{jpath}"]
    print(f"bench memory: {len(MEMORY_TESTS)} timing tests (about a minute)",
          flush=True)
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if not jpath.exists():
        print(r.stdout[-3000:] + r.stderr[-3000:], file=sys.stderr)
        print("bench memory: the tests wrote no JSON", file=sys.stderr)
        return 1
    rows = read_measurements(jpath)
    machine = machine_info()
    (out / "memory.json").write_text(json.dumps(
        {"benchmark": "memory", "machine": machine, "command": cmd, "results": rows},
        indent=1))
    write_csv(out / "memory.csv", rows)
    headers = ["work", "configuration", "cycles", "bound (cycles)", "cycles / bound", "bound"]
    table = [[x["what"], x["config"], f"{x['cycles']:,}", f"{x['bound']:,.0f}",
              f"{x['ratio']:.3f}", x["bound_is"]] for x in rows]
    print_table(headers, table)
    tests_ok = r.returncode == 0
    print(f"(tests {'passed' if tests_ok else 'FAILED'}; wrote {out}/memory.csv, memory.json)")
    md = ([provenance(bench_command(args), machine,
                      "cycle mode, default configuration but the keys named; the tests "
                      + ", ".join(f"`{n}`" for n in MEMORY_TESTS)
                      + " in build/standalone/tests/sim/units/test_sim_units with "
                        "VLG_TEST_COPY_MIB=32" + ("" if tests_ok else "; THE TESTS FAILED")),
           ""] + md_table(headers, [[str(c).replace("|", "\\|") for c in row] for row in table]))
    if write_doc_sections(args.doc, {"bench memory": md}, "bench memory"):
        return 2
    return 0 if tests_ok and rows else 1


# ---------------------------------------------------------------------------
# compiler
# ---------------------------------------------------------------------------

RESULT = re.compile(r"^(?P<file>\S+) - (?P<stage>\w+): (?P<rest>.*)$")
TOTALS = re.compile(r"^# (?P<n>\d+) shaders: (?P<ok>\d+) compiled, (?P<fail>\d+) failed.*?"
                    r"totals: (?P<rest>.*?)(; compile time.*)?$")


def parse_metrics(text):
    """'55 instrs, 83 ops, ..., 0.509 dual, 3960.4 us' -> {instrs: 55, ..., us: 3960.4}."""
    out = {}
    for part in text.split(","):
        m = re.match(r"\s*([\d.]+) (.+?)\s*$", part)
        if m:
            out[m.group(2).replace(" ", "_")] = float(m.group(1))
    return out


def run_corpus(extra, time_n=None):
    cmd = [str(VLGPU_CC), "--glmark2", "--corpus"] + extra
    if time_n:
        cmd += ["--time", str(time_n)]
    cmd.append(str(CORPUS))
    r = subprocess.run(cmd, capture_output=True, text=True)
    shaders, totals = [], None
    for line in r.stdout.splitlines():
        m = RESULT.match(line)
        if m:
            shaders.append({"shader": m["file"], "stage": m["stage"], **parse_metrics(m["rest"])})
        m = TOTALS.match(line)
        if m:
            totals = {"shaders": int(m["n"]), "compiled": int(m["ok"]), "failed": int(m["fail"]),
                      **parse_metrics(m["rest"])}
    return cmd, r, shaders, totals


# the seeds' two measured optimisations (seed 003 section IV, seed 000 section 4)
SEED_FIGURES = {"nodual": "dual-phase scheduling: -10.7 % cycles mean, -16.8 % max",
                "nolowbank": "low-bank registers: -4.7 % code size mean, -10.3 % max"}
CC_SWITCH = {"nodual": "--no-dual", "nolowbank": "--no-lowbank", "nosched": "--no-sched",
             "nopack": "--no-pack", "noreassoc": "--no-reassoc", "nocoalesce": "--no-coalesce",
             "novectorize": "--no-vectorize", "noniropt": "--no-nir-opt"}


def ensure_corpus(out):
    """Capture the glmark2 shader corpus (vlgpu-cc --report) unless it exists; False on failure."""
    if CORPUS.is_dir():
        return True
    print(f"bench compiler: capturing the glmark2 corpus into {CORPUS} (vlgpu-cc --report, a few "
          "minutes)", flush=True)
    launcher = glm.load_launcher()
    env = launcher.gl_env("vlgpu")
    env["VLGPU_ROOT"] = str(ROOT)
    subprocess.run([str(VLGPU_CC), "--report", str(out / "compiler-report.md")], env=env,
                   stdout=subprocess.DEVNULL)
    if not CORPUS.is_dir():
        print("bench compiler: corpus capture failed", file=sys.stderr)
        return False
    return True


def cmd_compiler_cycle(args):
    """./vlgpu bench compiler --cycle: every scene in cycle mode with all optimisations on and
    with each switch of --switches off (VLGPU_DEBUG=nodual, ...): simulated cycles of the
    measured frame; per switch the change "all on vs off" ((on - off) / off, negative = the
    optimisation saves cycles), mean and the largest saving over the scenes, next to the
    compiler's static estimate over the glmark2 corpus (vlgpu-cc --corpus, same switch) and
    the seeds' figures."""
    launcher = glmark2_launcher("bench compiler --cycle", args.size)
    if launcher is None:
        return 2
    switches = [w.strip() for w in args.switches.split(",") if w.strip()]
    bad = [w for w in switches if w not in CC_SWITCH]
    if bad or not switches:
        print(f"bench compiler --cycle: --switches: unknown {bad}; choose from "
              f"{','.join(CC_SWITCH)}", file=sys.stderr)
        return 2
    scenes = select_scenes(args.scenes)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = out / "compiler-cycle-runs"
    shim = driverlib.framegrab_shim()
    configs = ["all on"] + switches
    total = len(scenes) * len(configs)
    print(f"bench compiler --cycle: {len(scenes)} scene(s) x {len(configs)} compiler "
          f"configuration(s) ({', '.join(configs)}) = {total} glmark2 processes in cycle mode, "
          f"frame 2 of each measured, {args.size}.", flush=True)
    cycles = {}  # (scene, config) -> cycles of the measured frame
    spc_busy = {}  # scene -> mean busy fraction of the SPCs, all optimisations on
    errors = []
    t0 = time.monotonic()
    n = 0
    with launcher.PrivateX() as x:
        for scene in scenes:
            for cfg in configs:
                n += 1
                wd = work / glm.slug(scene) / cfg.replace(" ", "-")
                r = run_glmark2_once(launcher, x.display, shim, scene, "cycle", 1, args.size, wd,
                                     args.timeout, debug=() if cfg == "all on" else (cfg,))
                c = r["frames"][0].get("cycles") if r["ok"] and r["frames"] else None
                if c and cfg == "all on":
                    b = [v for k, v in r["frames"][0].items()
                         if k.startswith("busy_") and ".spc" in k]
                    spc_busy[scene] = statistics.mean(b) if b else None
                if c is None:
                    errors.append(f"{scene} {cfg}: {r['error']}")
                cycles[(scene, cfg)] = c
                el = time.monotonic() - t0
                print(f"  [{n}/{total}] {scene[:50]:50s} {cfg:10s} "
                      f"{fmt(c / 1e3 if c else None)} kcycles  "
                      f"{'ok' if c else 'FAIL: ' + str(r['error'])}  (elapsed "
                      f"{fmt_duration(el)}, ~{fmt_duration(el / n * (total - n))} left)",
                      flush=True)
    # the compiler's static estimate over the corpus, per switch
    static = {}
    if not args.no_static and VLGPU_CC.exists() and ensure_corpus(out):
        _, _, _, on = run_corpus([])
        for w in switches:
            _, _, _, off = run_corpus([CC_SWITCH[w]])
            if on and off and off.get("cycles"):
                static[w] = {"cycles_pct": (on["cycles"] - off["cycles"]) / off["cycles"] * 100,
                             "bytes_pct": (on["bytes"] - off["bytes"]) / off["bytes"] * 100
                             if off.get("bytes") else None}
    rows, summary = [], {}
    for scene in scenes:
        on = cycles.get((scene, "all on"))
        row = {"scene": scene, "cycles_all_on": on, "spc_busy_all_on": spc_busy.get(scene)}
        for w in switches:
            off = cycles.get((scene, w))
            row[f"cycles_{w}"] = off
            row[f"pct_{w}"] = (on - off) / off * 100 if on and off else None
        rows.append(row)
    for w in switches:
        v = [r[f"pct_{w}"] for r in rows if r[f"pct_{w}"] is not None]
        worst = max(v) if v else None
        summary[w] = {"scenes": len(v), "mean_pct": statistics.mean(v) if v else None,
                      "max_saving_pct": min(v) if v else None, "max_loss_pct": worst,
                      "scenes_faster_with_opt": sum(x < 0 for x in v),
                      "scenes_slower_with_opt": sum(x > 0 for x in v),
                      "static_cycles_pct": static.get(w, {}).get("cycles_pct"),
                      "static_bytes_pct": static.get(w, {}).get("bytes_pct"),
                      "seed": SEED_FIGURES.get(w, "")}
    doc = {"benchmark": "compiler-cycle", "machine": machine_info(), "size": args.size,
           "mode": "cycle", "configs": configs, "rows": rows, "summary": summary,
           "errors": errors}
    (out / "compiler-cycle.json").write_text(json.dumps(doc, indent=1))
    write_csv(out / "compiler-cycle.csv", rows)
    m = machine_info()
    md = [f"Generated by `./vlgpu bench compiler --cycle {' '.join(args.argv[1:])}`".rstrip()
          + f" on {m['date']}, commit {m['git_head']}, cycle mode, {args.size}, frame 2 of "
          f"each scene.", "",
          "Per switch: simulated cycles with every optimisation on vs with that one off, "
          "(on - off) / off (negative: the optimisation saves cycles), over the scenes; the "
          "compiler's static estimate is the same ratio of its summed per-shader cycle "
          "estimates over the glmark2 shader corpus.", "",
          "| switch off | scenes | mean | largest saving | largest loss | faster / slower "
          "with it | static estimate (cycles) | static (code bytes) | seeds |",
          "|---|---|---|---|---|---|---|---|---|"]
    for w in switches:
        sm = summary[w]
        md.append(f"| `{w}` | {sm['scenes']} | {fmt(sm['mean_pct'], '+.2f')} % | "
                  f"{fmt(sm['max_saving_pct'], '+.2f')} % | {fmt(sm['max_loss_pct'], '+.2f')} % | "
                  f"{sm['scenes_faster_with_opt']} / {sm['scenes_slower_with_opt']} | "
                  f"{fmt(sm['static_cycles_pct'], '+.2f')} % | "
                  f"{fmt(sm['static_bytes_pct'], '+.2f')} % | {sm['seed']} |")
    md += ["", "Per scene (SPC busy: the fraction of the frame's cycles the SPCs issued, mean over "
           "the SPCs, all optimisations on: a shader optimisation can only shorten a frame whose "
           "SPCs are the limit):", "",
           "| scene | cycles, all on | SPC busy | " + " | ".join(f"`{w}`: cycles (change)"
                                                       for w in switches) + " |",
           "|---|---|---|" + "---|" * len(switches)]
    for r in rows:
        md.append(f"| {r['scene']} | {r['cycles_all_on'] or '-'} | "
                  f"{fmt(r['spc_busy_all_on'], '.2f')} | " + " | ".join(
            f"{r[f'cycles_{w}'] or '-'} ({fmt(r[f'pct_{w}'], '+.2f')} %)" for w in switches)
            + " |")
    if errors:
        md += ["", "Failed runs: " + "; ".join(errors)]
    (out / "compiler-cycle.md").write_text("\n".join(md) + "\n")
    if args.doc:
        # the figures go into the document between the markers, written by this run
        err = replace_between_markers(args.doc, "bench compiler --cycle", md)
        if err:
            print(f"bench compiler --cycle: {err}", file=sys.stderr)
            return 2
        print(f"(updated {args.doc})")
    print()
    print("\n".join(md[:6 + len(switches)]))
    print(f"\n(wrote {out}/compiler-cycle.md, .csv, .json)")
    return 1 if errors else 0


def cmd_compiler(args):
    if args.cycle:
        return cmd_compiler_cycle(args)
    if not VLGPU_CC.exists():
        print(f"bench compiler: not built yet: {VLGPU_CC.relative_to(ROOT)}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not ensure_corpus(out):
        return 1
    runs = {}
    for name, extra, tn in [("default", [], args.time), ("no-lowbank", ["--no-lowbank"], None),
                            ("no-dual", ["--no-dual"], None)]:
        print(f"bench compiler: {name} ...", flush=True)
        cmd, r, shaders, totals = run_corpus(extra, tn)
        if totals is None:
            print(r.stdout[-2000:], r.stderr[-2000:], file=sys.stderr)
            print(f"bench compiler: no totals line from {' '.join(cmd)}", file=sys.stderr)
            return 1
        runs[name] = {"command": " ".join(cmd), "exit_code": r.returncode, "totals": totals,
                      "shaders": shaders}
    d = runs["default"]
    us = [s["us"] for s in d["shaders"] if "us" in s]
    per_stage = {}
    for s in d["shaders"]:
        per_stage.setdefault(s["stage"], []).append(s.get("us"))

    def delta(metric, name):
        a, b = d["totals"].get(metric), runs[name]["totals"].get(metric)
        return (a - b) / b * 100 if a is not None and b else None

    summary = {
        "shaders": d["totals"]["shaders"], "compiled": d["totals"]["compiled"],
        "failed": d["totals"]["failed"],
        "compile_us_median": statistics.median(us) if us else None,
        "compile_us_p90": sorted(us)[int(0.9 * (len(us) - 1))] if us else None,
        "compile_us_max": max(us) if us else None,
        "compile_us_total": sum(us) if us else None,
        "compile_us_median_per_stage": {k: statistics.median([v for v in vs if v is not None])
                                        for k, vs in per_stage.items()
                                        if any(v is not None for v in vs)},
        "totals": d["totals"],
        "lowbank_code_bytes_pct": delta("bytes", "no-lowbank"),
        "lowbank_units_pct": delta("units", "no-lowbank"),
        "dual_cycles_pct": delta("cycles", "no-dual"),
        "dual_tput_pct": delta("tput", "no-dual"),
        "dual_instrs_pct": delta("instrs", "no-dual"),
        "seed_anchors": {"lowbank_code_size_pct": -4.7, "dual_issue_cycles_pct": -10.7},
    }
    doc = {"benchmark": "compiler", "machine": machine_info(), "time_repeats": args.time,
           "summary": summary, "runs": runs}
    (out / "compiler.json").write_text(json.dumps(doc, indent=1))
    write_csv(out / "compiler.csv", d["shaders"])
    print()
    table = [
        ["shaders compiled", f"{summary['compiled']} of {summary['shaders']}", ""],
        ["compile time per shader, median", f"{fmt(summary['compile_us_median'])} us", ""],
        ["compile time per shader, p90 / max",
         f"{fmt(summary['compile_us_p90'])} / {fmt(summary['compile_us_max'])} us", ""],
        ["compile time, all shaders", f"{fmt(summary['compile_us_total'] / 1e3 if us else None)}"
         " ms", ""],
        ["code bytes, low-bank RA vs --no-lowbank", f"{fmt(summary['lowbank_code_bytes_pct'], '+.2f')} %",
         "-4.7 %"],
        ["static cycles, dual issue vs --no-dual", f"{fmt(summary['dual_cycles_pct'], '+.2f')} %",
         "-10.7 %"],
        ["throughput estimate, dual vs --no-dual", f"{fmt(summary['dual_tput_pct'], '+.2f')} %", ""],
        ["instructions, dual vs --no-dual", f"{fmt(summary['dual_instrs_pct'], '+.2f')} %", ""],
    ]
    headers = ["metric", "vlgpu (glmark2 corpus)", "seed"]
    print_table(headers, table)
    print(f"(compile time: median CPU time of {args.time} compiles of the NIR per shader, GLSL front "
          f"end excluded; wrote {out}/compiler.csv, compiler.json)")
    md = [provenance(bench_command(args), doc["machine"], "static (no simulation)")
          + f" Compile time: median "
          f"CPU time of {args.time} compiles of the NIR per shader, GLSL front end excluded.",
          ""] + md_table(headers, table)
    if write_doc_sections([args.doc] if args.doc else [], {"bench compiler": md},
                          "bench compiler"):
        return 2
    return 0 if all(r["exit_code"] == 0 for r in runs.values()) else 1


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------

def cmd_capture(args):
    cb = capture_bench
    launcher = glmark2_launcher("bench capture", args.size)
    if launcher is None:
        return 2
    if not cb.SIM.is_file():
        print("bench capture: build/standalone's vlgpu-sim not built (./vlgpu setup)",
              file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    m = machine_info()
    t0 = time.monotonic()
    results = cb.measure(glm, launcher, args.scenes or cb.DEFAULT_SCENES, args.size,
                         args.frames, out, progress=lambda s: print(s, flush=True))
    wall = time.monotonic() - t0
    headers, rows = cb.table(results)
    print_table(headers, rows)
    write_csv(out / "capture.csv", results)
    (out / "capture.json").write_text(json.dumps({"command": bench_command(args), "machine": m,
                                                  "results": results}, indent=1) + "\n")
    print(f"wrote {out / 'capture.csv'} and capture.json")
    failed = [r["scene"] for r in results if r["error"] or not r["cycles_equal"]
              or not r["pixels_equal"]]
    if args.doc:
        head = provenance(bench_command(args), m,
                          f"glmark2 at {args.size}, frames 0-{args.frames} captured, "
                          f"ms/frame medians of frames 1-{args.frames}, {fmt_duration(wall)}")
        if write_doc_sections(args.doc, {"bench capture": [head, ""] + md_table(headers, rows)},
                              "bench capture"):
            return 1
    return 1 if failed else 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--"]:
        argv = argv[1:]
    p = argparse.ArgumentParser(prog="vlgpu bench", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="See the module docstring of scripts/bench.py and "
                                       "docs/performance.md for every column.")
    sub = p.add_subparsers(dest="sub", metavar="SUB", required=True)
    g = sub.add_parser("glmark2", help="glmark2-es2 scenes on softpipe, vlgpu functional, "
                                       "vlgpu cycle and sampled mode (interleaved, repeated)")
    g.add_argument("--scenes", nargs="+", metavar="SCENE",
                   help="scene names or prefixes of the default list (e.g. build terrain "
                        "'shading:shading=phong'), or glmark2 -b specs; default: all 33")
    g.add_argument("--frames", type=int, default=5,
                   help="measured frames per run (after one set-up frame); default 5")
    g.add_argument("--reps", type=int, default=3, help="repetitions (default 3)")
    g.add_argument("--modes",
                   help="comma list of softpipe,functional,cycle,sampled (default: all four, "
                        "sampled only when --frames holds two blocks of --sample); sampled "
                        "needs cycle (its truth)")
    g.add_argument("--sample", default=DEFAULT_SAMPLE, metavar="PLAN",
                   help="mode sampled's VLGPU_SAMPLE plan, PERIOD[:WARMUP][,seed=N][,skip] "
                        f"(default {DEFAULT_SAMPLE}; without seed=, scene i of repetition r uses seed "
                        "1 + 1000 r + i); "
                        "needs --frames of at least two PERIODs for an interval")
    g.add_argument("--size", default="800x600", help="glmark2 -s WxH (default 800x600)")
    g.add_argument("--timeout", type=float, default=3600,
                   help="seconds per glmark2 process before it is killed (default 3600)")
    g.add_argument("--no-plots", action="store_true", help="do not draw the PNG plots")
    g.add_argument("--doc", metavar="FILE", action="append",
                   help="also rewrite FILE's generated parts (repeatable): the provenance, "
                        "summary and per-scene tables between '<!-- BEGIN bench glmark2 -->' and "
                        "'<!-- END bench glmark2 -->' (docs/performance.md), one summary "
                        "sentence between '<!-- BEGIN bench glmark2 summary -->' and its END "
                        "(README.md)")
    g.set_defaults(func=cmd_glmark2)
    s = sub.add_parser("sim", help="vlgpu-sim-bench sim: the simulator alone on replayed "
                                   "glmark2 draws and a synthetic frame (no GL), and the "
                                   "two-thread bound (bench_core's per-cycle barrier)")
    s.add_argument("--scenes", nargs="+", metavar="SCENE",
                   help="glmark2 scenes to dump and replay (as for glmark2); default: "
                        + ", ".join(SIM_SCENES))
    s.add_argument("--repeat", type=int, default=3, help="runs per package and mode (default 3)")
    s.add_argument("--size", default="800x600", help="glmark2 -s WxH for the dumps")
    s.add_argument("--doc", metavar="FILE", action="append",
                   help="also write the table into FILE between its '<!-- BEGIN bench sim -->' "
                        "and '<!-- END bench sim -->' markers (docs/performance.md; repeatable)")
    s.set_defaults(func=cmd_sim)
    c = sub.add_parser("compiler", help="vlgpu-cc over the glmark2 corpus: compile time, "
                                        "code size, cycles, low-bank and dual-issue ablation")
    c.add_argument("--time", type=int, default=10,
                   help="compiles per shader for the compile-time median (default 10)")
    c.add_argument("--cycle", action="store_true",
                   help="instead: every glmark2 scene in cycle mode with all optimisations on "
                        "and with each of --switches off (VLGPU_DEBUG): simulated cycles per "
                        "frame, mean and largest change per switch, next to the static "
                        "estimate and the seeds' figures (compiler-cycle.md/.csv/.json)")
    c.add_argument("--switches", default="nodual,nolowbank,nosched,nopack",
                   help="--cycle: comma list of VLGPU_DEBUG compiler switches (default "
                        "nodual,nolowbank,nosched,nopack)")
    c.add_argument("--scenes", nargs="+", metavar="SCENE",
                   help="--cycle: scenes as for glmark2; default: all 33")
    c.add_argument("--no-static", action="store_true",
                   help="--cycle: skip vlgpu-cc's static estimate (and the corpus capture)")
    c.add_argument("--doc", metavar="FILE",
                   help="also write the tables into FILE between its "
                        "'<!-- BEGIN/END bench compiler --cycle -->' markers (with --cycle; "
                        "docs/compiler.md) or '<!-- BEGIN/END bench compiler -->' markers "
                        "(without; docs/performance.md)")
    c.add_argument("--size", default="800x600", help="--cycle: glmark2 -s WxH (default 800x600)")
    c.add_argument("--timeout", type=float, default=3600,
                   help="--cycle: seconds per glmark2 process (default 3600)")
    c.set_defaults(func=cmd_compiler)
    mem = sub.add_parser("memory", help="the cycle-mode model's bandwidth-bound timing tests: "
                                        "cycles next to the bound the "
                                        "configuration implies")
    mem.add_argument("--doc", metavar="FILE", action="append",
                     help="also write the table into FILE between its '<!-- BEGIN bench memory "
                          "-->' and '<!-- END bench memory -->' markers (docs/fidelity.md; "
                          "repeatable)")
    mem.set_defaults(func=cmd_memory)
    cap = sub.add_parser("capture", help="frame captures: size, overhead, replay vs live host "
                                         "time per frame, replay cycles = live, per glmark2 scene")
    cap.add_argument("--scenes", nargs="+", metavar="SCENE",
                     help="glmark2 -b specs; default: " + " ".join(capture_bench.DEFAULT_SCENES))
    cap.add_argument("--frames", type=int, default=3,
                     help="frames captured after the set-up frame 0 (default 3)")
    cap.add_argument("--size", default="800x600", help="glmark2 -s WxH (default 800x600)")
    cap.add_argument("--doc", metavar="FILE", action="append",
                     help="also write the table into FILE between its '<!-- BEGIN bench "
                          "capture -->' and '<!-- END bench capture -->' markers "
                          "(docs/capture.md; repeatable)")
    cap.set_defaults(func=cmd_capture)
    pl = sub.add_parser("plot", help="redraw the glmark2 plots from a glmark2.json")
    pl.add_argument("--json", default=str(ROOT / "out/bench/glmark2.json"))
    pl.add_argument("--dir", default=str(ROOT / "out/bench"), help="where the PNGs go")
    pl.add_argument("--markdown", action="store_true",
                    help="also write glmark2.md (the per-scene table) into --dir")
    pl.set_defaults(func=cmd_plot)
    for sp in (g, s, c, mem, cap):
        sp.add_argument("--out", default=str(ROOT / "out/bench"),
                        help="output directory (default out/bench)")
    args = p.parse_args(argv)
    args.argv = argv[1:]
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
