#!/usr/bin/python3
"""glmark2-es2 scenes on vlgpu and softpipe in one invocation (`./vlgpu glmark2`).

Every scene runs in its own `glmark2-es2 --off-screen -b SCENE` process, once
on vlgpu and once on softpipe, under one private Xvfb (glmark2's X11 flavour
needs a display even off-screen).  The LD_PRELOAD shim
tests/integration/driver/vlg_framegrab.c makes the two runs comparable:

  - glmark2's clock (gettimeofday/clock_gettime) advances exactly
    --step-ms per frame, so frame N shows the same animation time on both
    drivers however slow the driver is;
  - every frame ends at glFinish (glmark2 --off-screen ends frames that way);
    the shim reads the frame back (glReadPixels, RGBA8) and saves it, and
    logs the real CLOCK_MONOTONIC time of the frame end (VLG_GRAB_TIMES);
  - without --validate the process exits after --frames frames; with
    --validate glmark2 draws one frame per scene and checks it itself
    (Validation: Success/Failure/Unknown), and the shim saves that frame.

Results, per scene, in OUT/NN-SCENE/ (OUT default out/glmark2; NN = its
position in the list):
  vlgpu.png, softpipe.png   the final frame of each driver
  diff.png                  |vlgpu - softpipe| per channel, x8, RGB
  vlgpu/, softpipe/         raw frames (frame-NNN.rgba), frame times,
                            glmark2's stdout/stderr; vlgpu/stats.csv and
                            stats.draws.csv (VLGPU_STATS; cycles in cycle mode)
and OUT/results.json, OUT/results.txt (the printed table).

Metric (as tests/integration/driver/driverlib.py): per-channel absolute
error of 8-bit R, G, B (alpha ignored); "max err" is its maximum over all
pixels; PSNR = 10 log10(255^2 / MSE) dB, MSE over all pixels and the three
channels (inf: identical).

Columns: bottleneck (cycle mode) names the two causes that took the most of
the last frame's cycles, from VLGPU_STATS' cause_* columns (docs/simulator.md
"Bottleneck report").  cycles/frame is the mean of VLGPU_STATS' per-frame "cycles" over
the frames after the first (the first also uploads textures and buffers;
with one frame, that frame); "-" in functional mode (no timing).  Host
s/frame is the mean real time between consecutive frame ends over the frames
after the first; with one frame (--validate) it is the time from process
start to the end of the frame, so it includes glmark2's start-up, shader
compilation and uploads (marked "*").

Exit code: 0 when every scene ran on both drivers and, with --validate,
vlgpu reported the same result as softpipe for every scene (and with
--min-psnr, every final frame reached it); 1 otherwise; 2 on bad usage.

--full-benchmark measures something else: glmark2's own default benchmark
(`glmark2-es2 --off-screen`, every default scene for its default duration of
real time, glmark2's clock untouched, no frame grabbing) once on vlgpu in
--mode, then once on softpipe; it reports glmark2's score and per-scene FPS
and FrameTime of both, and from vlgpu's VLGPU_STATS file (OUT/full-vlgpu/
stats.csv) the frames, GPU faults and simulated cycles (per frame: min and
max; total).  Exit code 0 when both runs end with a score and vlgpu reports
no GPU fault.

Not implemented: the driver choice is fixed to vlgpu vs softpipe (llvmpipe
is not built).
"""

import argparse
import importlib.machinery
import importlib.util
import json
import math
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests/integration"), str(ROOT / "tests/integration/driver")]

import driverlib  # noqa: E402  (tests/integration/driver: shim build, image metric)

DRIVERS = ("vlgpu", "softpipe")

# glmark2 2021.12's per-scene line and final score (src/main.cpp, scene.cpp
# Scene::average_fps / log): "[build] use-vbo=false: FPS: 11 FrameTime: 90.909 ms".
SCENE_FPS_LINE = re.compile(r"^\[(?P<scene>[^\]]+)\] (?P<opts>.*): FPS: (?P<fps>\d+) "
                            r"FrameTime: (?P<ms>[0-9.]+) ms", re.M)
SCORE_LINE = re.compile(r"glmark2 Score: (?P<score>\d+)")

sys.path.insert(0, str(ROOT / "src/vlgpu/compiler/tools"))
import glmark2_corpus  # noqa: E402  (the one copy of glmark2's default benchmark list)


def canonical_scene(spec):
    """"scene:opt=v:opt=v" with the options sorted, as `glmark2-es2 --validate`
    prints a benchmark ("[scene] opts") and as the tables name it."""
    name, *opts = spec.split(":")
    return ":".join([name] + sorted(opts))


# glmark2 2023.01's default benchmark list (Debian 12 glmark2-es2-x11;
# glmark2_corpus.DEFAULT_BENCHMARKS, src/default-benchmarks.h order), options
# sorted as `glmark2-es2 --validate` prints them.
DEFAULT_SCENES = [canonical_scene(b) for b in glmark2_corpus.DEFAULT_BENCHMARKS]

# The default scenes glmark2 --validate has no reference values for
# (it reports Validation: Unknown): compared with softpipe's frames only.
REFERENCELESS = ["shading:shading=cel", "ideas:speed=duration", "jellyfish", "terrain",
                 "shadow", "refract"]

X_FAILURE = "Could not initialize canvas"
RESULT_LINE = re.compile(r"^\[(?P<scene>[^\]]+)\] (?P<opts>.*): Validation: (?P<result>\w+)\s*$",
                         re.M)


def load_launcher():
    """The launcher (./vlgpu) as a module: gl_env, PrivateX, mesa_built."""
    loader = importlib.machinery.SourceFileLoader("vlgpu_launcher", str(ROOT / "vlgpu"))
    spec = importlib.util.spec_from_loader("vlgpu_launcher", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def slug(scene):
    """A directory name for a scene description ("shading:shading=cel" -> shading-shading=cel)."""
    s = re.sub(r"[^A-Za-z0-9=.,-]+", "-", scene).strip("-")
    return s[:120] or "default"


def machine_info():
    """scripts/bench.py's machine_info() (date, git_head, nproc, load average, ...):
    where a run's numbers came from; recorded in results.json and out/demo/summary.json
    (./vlgpu report shows the date and commit)."""
    if str(ROOT / "scripts") not in sys.path:
        sys.path.insert(0, str(ROOT / "scripts"))
    import bench  # scripts/bench.py imports this module: import it late
    return bench.machine_info()


def read_times(path):
    """[(frame, wall_ns, cpu_ns)] from a VLG_GRAB_TIMES file ("N WALL_NS CPU_NS" lines,
    tests/integration/driver/vlg_framegrab.c); [] when the file does not exist."""
    out = []
    if path.exists():
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) >= 3:
                out.append((int(parts[0]), int(parts[1]), int(parts[2])))
    return out


def read_frame_times(path):
    """[(frame, wall_seconds)] from a VLG_GRAB_TIMES file."""
    return [(f, wall * 1e-9) for f, wall, _ in read_times(path)]


def read_stats(path):
    """Per-frame rows of a VLGPU_STATS CSV file (list of dicts), [] if absent."""
    import csv
    if not path.exists():
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def frame_bottleneck(row, n=2):
    """The N largest causes of a VLGPU_STATS frame row (cycle mode: its
    `cause_*` columns, fractions of the frame's cycles that add up to 1;
    docs/simulator.md "Bottleneck report") as [(cause, fraction)], largest
    first; [] in functional mode."""
    causes = [(k[len("cause_"):], float(v)) for k, v in row.items()
              if k and k.startswith("cause_") and v not in (None, "")]
    causes.sort(key=lambda kv: -kv[1])
    return [kv for kv in causes[:n] if kv[1] > 0]


def bottleneck_text(causes):
    """'mc_bandwidth 67%, spc_issue 17%' (or '-')."""
    return ", ".join(f"{k} {v * 100:.0f}%" for k, v in causes) or "-"


def per_frame(values):
    """Mean over the values after the first (the first frame also uploads), or the
    only value; None for no values."""
    if not values:
        return None
    rest = values[1:] if len(values) > 1 else values
    return sum(rest) / len(rest)


def run_grabbed(launcher, display, driver, cmd, outdir, *, frames, at_finish=True,
                mode="functional", step_ms=40, timeout=900, dump=None, dump_draws=None,
                env_update=None):
    """Run CMD (a GL program) on DRIVER under the framegrab shim; frames and logs in
    OUTDIR.  frames: exit after that many frames (0: let the program end).
    at_finish: frames end at glFinish (off-screen programs), else at eglSwapBuffers.
    mode: vlgpu's simulation mode; dump: VLGPU_DUMP directory (dump_draws:
    VLGPU_DUMP_DRAWS); env_update: more environment variables for the program
    ({name: value}, None to unset; e.g. VLGPU_CAPTURE).  Returns a dict: exit_code, stdout, frames, final_frame,
    host_seconds_per_frame, cycles_per_frame, draws_per_frame, gpu_faults,
    problems (driver errors / GPU faults on stderr), wall_seconds."""
    outdir.mkdir(parents=True, exist_ok=True)
    times = outdir / "frame-times.txt"
    stats = outdir / "stats.csv"
    for p in [times, stats, outdir / "stats.draws.csv", *outdir.glob("frame-*.rgba")]:
        if p.exists():
            p.unlink()
    env = launcher.gl_env(driver)
    env.pop("VLGPU_STATS", None)
    env["DISPLAY"] = display
    for k, v in (env_update or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    if driver == "vlgpu":
        flags = [f for f in env.get("VLGPU_DEBUG", "").split(",") if f and f != "functional"]
        if mode == "functional":
            flags.append("functional")
        if flags:
            env["VLGPU_DEBUG"] = ",".join(flags)
        else:
            env.pop("VLGPU_DEBUG", None)
        env["VLGPU_STATS"] = str(stats)
        if dump:
            env["VLGPU_DUMP"] = str(dump)
            if dump_draws:
                env["VLGPU_DUMP_DRAWS"] = dump_draws
    # After gl_env's own preloads (the ASan runtime on a sanitized Mesa).
    env["LD_PRELOAD"] = " ".join(env.get("LD_PRELOAD", "").split() +
                                 [str(driverlib.framegrab_shim())])
    env.update({"VLG_GRAB_DIR": str(outdir),
                "VLG_GRAB_STEP_MS": str(step_ms), "VLG_GRAB_TIMES": str(times),
                "VLG_GRAB_FRAMES": str(frames)})
    if at_finish:
        env["VLG_GRAB_AT_FINISH"] = "1"
    retried = None
    for attempt in range(2):
        t0 = time.monotonic()
        try:
            r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True, timeout=timeout)
            code, stdout, stderr = launcher.returncode_to_exit(r.returncode), r.stdout, r.stderr
        except subprocess.TimeoutExpired as e:
            code = f"timeout {timeout:.0f}s"
            stdout, stderr = [(v.decode(errors="replace") if isinstance(v, bytes) else v or "")
                              for v in (e.stdout, e.stderr)]
        # glmark2 prints only this when its X11/EGL canvas cannot be created
        # (seen twice, both on softpipe, in about 260 runs against the private
        # Xvfb; suspected cause, fixed in vlg_framegrab.c: a faked clock in
        # Mesa's/Xlib's timeouts): one retry, recorded in the result, printed
        # under the table, the first attempt's output kept in first-attempt.log.
        if attempt == 0 and code != 0 and X_FAILURE in stdout + stderr \
                and not list(outdir.glob("frame-*.rgba")):
            retried = X_FAILURE
            (outdir / "first-attempt.log").write_text(stdout + stderr)
            continue
        break
    wall = time.monotonic() - t0
    (outdir / "stdout.log").write_text(stdout)
    (outdir / "stderr.log").write_text(stderr)
    res = {"driver": driver, "exit_code": code, "wall_seconds": wall, "stdout": stdout,
           "problems": driverlib.driver_problems(stderr)[:10], "retried_after": retried}
    grabbed = sorted(outdir.glob("frame-*.rgba"))
    res["frames"] = len(grabbed)
    res["final_frame"] = str(grabbed[-1]) if grabbed else None
    ft = [t for _, t in read_frame_times(times)]
    if len(ft) > 1:
        res["host_seconds_per_frame"] = (ft[-1] - ft[0]) / (len(ft) - 1)
        res["host_includes_startup"] = False
    elif ft:
        res["host_seconds_per_frame"] = ft[0] - t0
        res["host_includes_startup"] = True
    rows = read_stats(stats)
    res["stats_frames"] = len(rows)
    cyc = [int(r["cycles"]) for r in rows]
    res["cycles_per_frame"] = per_frame(cyc) if any(cyc) else None
    res["draws_per_frame"] = per_frame([int(r["draws"]) for r in rows])
    res["bottleneck"] = frame_bottleneck(rows[-1]) if rows else []
    res["gpu_faults"] = sum(int(r.get("faults") or 0) for r in rows)
    return res


def run_scene(launcher, display, driver, scene, outdir, args):
    """One glmark2-es2 process for SCENE on DRIVER (run_grabbed); adds
    "validation" (glmark2's Success/Failure/Unknown, None without --validate)."""
    cmd = [args.glmark2, "--off-screen", "-s", args.size, "-b", scene]
    if args.validate:
        cmd.append("--validate")
    res = run_grabbed(launcher, display, driver, cmd, outdir,
                      frames=0 if args.validate else args.frames, mode=args.mode,
                      step_ms=args.step_ms, timeout=args.timeout,
                      dump=(outdir / "dump") if args.dump and driver == "vlgpu" else None)
    m = RESULT_LINE.search(res.pop("stdout"))
    res["validation"] = m["result"] if m else None
    return res


def compare_final(scene_dir, res, prefix=""):
    """PREFIX{vlgpu,softpipe,diff}.png in SCENE_DIR from both final frames; returns
    the metric between them (None if a driver has no frame)."""
    import numpy as np
    from PIL import Image
    imgs = {}
    for d in DRIVERS:
        f = res[d].get("final_frame")
        if f:
            imgs[d] = driverlib.load_rgba(f)
            Image.fromarray(np.ascontiguousarray(imgs[d])).save(scene_dir / f"{prefix}{d}.png")
    if len(imgs) != 2:
        return None
    a, b = imgs["vlgpu"], imgs["softpipe"]
    if a.shape != b.shape:
        return {"error": f"sizes differ: {a.shape} vs {b.shape}"}
    m = driverlib.compare(a, b)
    diff = np.abs(a[..., :3].astype(np.int16) - b[..., :3].astype(np.int16))
    Image.fromarray(np.clip(diff * 8, 0, 255).astype(np.uint8), "RGB").save(scene_dir / f"{prefix}diff.png")
    m["distinct_colors_softpipe"] = driverlib.distinct_colors(b)
    return m


def run_all(scenes, args, progress=print):
    """Run every scene on both drivers; returns the list of per-scene results."""
    launcher = load_launcher()
    if not launcher.mesa_built():
        raise RuntimeError("Mesa is not built yet (run ./vlgpu setup)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    driverlib.framegrab_shim()  # built once, before the threads use it
    results = []
    t_start = time.monotonic()
    with launcher.PrivateX() as x, ThreadPoolExecutor(max_workers=args.jobs) as pool:
        # Every (scene, driver) run is queued at once, so a slow run of one
        # driver overlaps other scenes' runs; results are taken in scene order.
        dirs = [out / f"{i:02d}-{slug(scene)}" for i, scene in enumerate(scenes, 1)]
        futs = [{d: pool.submit(run_scene, launcher, x.display, d, scene, sdir / d, args)
                 for d in DRIVERS} for scene, sdir in zip(scenes, dirs)]
        for i, (scene, sdir, f) in enumerate(zip(scenes, dirs, futs), 1):
            res = {"scene": scene, "dir": str(sdir)}
            if not all(f[d].done() for d in DRIVERS):
                progress(f"[glmark2 {i}/{len(scenes)} {time.monotonic() - t_start:6.0f}s] "
                         f"{scene}: running…")
            res.update({d: f[d].result() for d in DRIVERS})
            res["compare"] = compare_final(sdir, res)
            results.append(res)
            progress(f"[glmark2 {i}/{len(scenes)} {time.monotonic() - t_start:6.0f}s] "
                     + row_text(res, plain=True))
    return results


def run_full_driver(launcher, display, driver, args, outdir):
    """glmark2's default benchmark (`glmark2-es2 --off-screen -s SIZE`, its own
    clock and scene durations) on DRIVER, vlgpu in args.mode with VLGPU_STATS
    in OUTDIR/stats.csv.  Returns a dict: exit_code, seconds (wall), score
    (None if glmark2 printed none), scenes ([{scene, fps, frame_ms}] in
    glmark2's order), and for vlgpu frames, gpu_faults, cycles (per-frame
    list from the statistics file)."""
    outdir.mkdir(parents=True, exist_ok=True)
    stats = outdir / "stats.csv"
    for f in (stats, outdir / "stats.draws.csv"):
        if f.exists():
            f.unlink()
    env = launcher.gl_env(driver)
    env["DISPLAY"] = display
    env.pop("VLGPU_STATS", None)
    if driver == "vlgpu":
        flags = [f for f in env.get("VLGPU_DEBUG", "").split(",") if f and f != "functional"]
        if args.mode == "functional":
            flags.append("functional")
        env["VLGPU_DEBUG"] = ",".join(flags)
        env["VLGPU_STATS"] = str(stats)
    cmd = [args.glmark2, "--off-screen", "-s", args.size]
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, timeout=args.timeout)
        code, out, err = launcher.returncode_to_exit(r.returncode), r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        code = f"timeout {args.timeout:.0f}s"
        out, err = [(v.decode(errors="replace") if isinstance(v, bytes) else v or "")
                    for v in (e.stdout, e.stderr)]
    (outdir / "stdout.log").write_text(out)
    (outdir / "stderr.log").write_text(err)
    score = SCORE_LINE.search(out)
    res = {"driver": driver, "exit_code": code, "seconds": time.monotonic() - t0,
           "score": int(score["score"]) if score else None,
           "scenes": [{"scene": f"{m['scene']}:{m['opts']}" if m["opts"] != "<default>"
                       else m["scene"], "fps": int(m["fps"]), "frame_ms": float(m["ms"])}
                      for m in SCENE_FPS_LINE.finditer(out)],
           "problems": driverlib.driver_problems(err)[:10]}
    if driver == "vlgpu":
        rows = read_stats(stats)
        res["frames"] = len(rows)
        res["gpu_faults"] = sum(int(r.get("faults") or 0) for r in rows)
        res["cycles"] = [int(r["cycles"]) for r in rows]
    return res


def run_full_benchmark(args, progress=print):
    """--full-benchmark: run_full_driver on vlgpu, then softpipe (one after the
    other, so neither slows the other), under one private Xvfb; returns
    {driver: result}."""
    launcher = load_launcher()
    if not launcher.mesa_built():
        raise RuntimeError("Mesa is not built yet (run ./vlgpu setup)")
    out = Path(args.out)
    runs = {}
    with launcher.PrivateX() as x:
        for d in DRIVERS:
            progress(f"[glmark2 full benchmark] {d}"
                     + (f" ({args.mode} mode)" if d == "vlgpu" else "") + ": running…")
            runs[d] = run_full_driver(launcher, x.display, d, args, out / f"full-{d}")
            r = runs[d]
            progress(f"[glmark2 full benchmark] {d}: exit {r['exit_code']}, score {r['score']}, "
                     f"{len(r['scenes'])} scenes, {r['seconds']:.0f} s")
    return runs


def full_benchmark_sections(runs, args, argv):
    """(ok, problems, {marker: markdown lines}) of a --full-benchmark run."""
    import bench  # scripts/bench.py imports this module: import it late
    m = bench.machine_info()
    cmd = "./vlgpu glmark2 " + " ".join(argv)
    v, s = runs["vlgpu"], runs["softpipe"]
    bad = [f"{d}: exit {r['exit_code']}" for d, r in runs.items() if r["exit_code"] != 0]
    bad += [f"{d}: no glmark2 score" for d, r in runs.items() if r["score"] is None]
    bad += [f"vlgpu: {v['gpu_faults']} GPU fault(s) in its statistics" ] if v["gpu_faults"] else []
    bad += [f"vlgpu reported: {p}" for p in v["problems"][:3]]
    bad += ["vlgpu: no frame in its statistics file"] if not v["frames"] else []
    cyc = [c for c in v["cycles"] if c]
    cycles = (f"; {min(cyc):,}-{max(cyc):,} simulated cycles per frame, {sum(cyc):,} in total"
              if cyc else "")
    sentence = (f"glmark2's full default benchmark (`glmark2-es2 --off-screen`, {args.size}) "
                + ("ran to its score" if not bad else "did not run cleanly ("
                   + "; ".join(bad) + ")")
                + f" on vlgpu in {args.mode} mode: score {v['score']} "
                f"(softpipe {s['score']} in the same invocation), {v['frames']} frames, "
                f"{v['gpu_faults']} GPU faults{cycles}; {v['seconds']:.0f} s "
                f"(softpipe {s['seconds']:.0f} s) (`{cmd}`, {m['date']}, commit "
                f"{m['git_head']}).")
    soft = {r["scene"]: r for r in s["scenes"]}
    rows = []
    for r in v["scenes"]:
        o = soft.get(r["scene"])
        rows.append([f"`{r['scene']}`".replace("|", "\\|"), str(r["fps"]),
                     f"{r['frame_ms'] / 1000:.2f}", str(o["fps"]) if o else "-",
                     f"{o['frame_ms'] / 1000:.2f}" if o else "-",
                     f"{r['frame_ms'] / o['frame_ms']:.2f}" if o and o["frame_ms"] else "-"])
    full = ([bench.provenance(cmd, m, f"glmark2's default benchmark with its own timing, "
                              f"vlgpu in {args.mode} mode, then softpipe, {args.size}"), "",
             sentence, ""]
            + bench.md_table(["scene", "vlgpu FPS", "vlgpu host s/frame (FrameTime)",
                              "softpipe FPS", "softpipe host s/frame", "vlgpu / softpipe"], rows)
            + ["", "FPS and FrameTime as glmark2 prints them (real time); cycles from vlgpu's "
                   "VLGPU_STATS file (`cycles` per frame)."])
    return not bad, bad, {doc_marker(args): full, doc_marker(args) + " summary": [sentence]}


def main_full_benchmark(args, argv):
    """--full-benchmark: run, print, write OUT/full-benchmark.json and the --doc
    sections; exit code as documented."""
    try:
        runs = run_full_benchmark(args, progress=lambda x: print(x, flush=True))
    except RuntimeError as e:
        print(f"vlgpu glmark2: {e}", file=sys.stderr)
        return 2
    ok, bad, sections = full_benchmark_sections(runs, args, argv)
    (Path(args.out) / "full-benchmark.json").write_text(json.dumps(runs, indent=1) + "\n")
    print("\n".join(sections[doc_marker(args)]))
    if bad:
        print("problems:\n" + "\n".join(f"  {b}" for b in bad))
    import bench  # scripts/bench.py imports this module: import it late
    if args.doc and bench.write_doc_sections(args.doc, sections, "vlgpu glmark2"):
        return 2
    return 0 if ok else 1


def fmt(v, spec, none="-"):
    return none if v is None else format(v, spec)


def row_text(res, plain=False):
    v, s, c = res["vlgpu"], res["softpipe"], res.get("compare") or {}

    def status(r):
        if r["exit_code"] != 0:
            return str(r["exit_code"]) if isinstance(r["exit_code"], str) \
                else f"exit {r['exit_code']}"
        return r["validation"] or f"{r['frames']} fr"

    def host(r):
        h = r.get("host_seconds_per_frame")
        return "-" if h is None else f"{h:.2f}{'*' if r.get('host_includes_startup') else ''}"

    psnr = c.get("psnr_db")
    cells = [status(v), status(s),
             "inf" if psnr == math.inf else fmt(psnr, ".1f"),
             fmt(c.get("max_error"), "d"),
             fmt(v.get("cycles_per_frame"), ",.0f"),
             host(v), host(s), bottleneck_text(v.get("bottleneck") or [])]
    if plain:
        return f"{res['scene']}: vlgpu {cells[0]}, softpipe {cells[1]}, PSNR {cells[2]} dB, " \
               f"max err {cells[3]}, cycles/frame {cells[4]}, host s/frame {cells[5]} / {cells[6]}" \
               + (f", bottleneck {cells[7]}" if cells[7] != "-" else "")
    return cells


HEADER = ["vlgpu", "softpipe", "PSNR dB", "max err", "cycles/frame", "host s/fr vlgpu",
          "host s/fr softpipe", "bottleneck (last frame)"]


def table(results, args):
    """The result table as lines of text."""
    w = max(len(r["scene"]) for r in results)
    lines = [f"{'scene':<{w}} " + " ".join(f"{h:>{max(9, len(h))}}" for h in HEADER)]
    for r in results:
        name = r["scene"]
        cells = row_text(r)
        lines.append(f"{name:<{w}} " + " ".join(f"{c:>{max(9, len(h))}}"
                                                for c, h in zip(cells, HEADER)))
    lines.append("")
    lines.append(f"mode: vlgpu in {args.mode} mode; {'--validate (one frame per scene)' if args.validate else f'{args.frames} frames per scene'}, "
                 f"clock step {args.step_ms} ms/frame, {args.size}; final frame compared.")
    lines.append("host s/frame: mean real time between frame ends after the first frame; "
                 "* = one frame, time from process start (includes start-up).")
    if args.mode == "cycle":
        lines.append("bottleneck: the two causes with the most of the last frame's cycles "
                     "(docs/simulator.md \"Bottleneck report\"; all causes: vlgpu/stats.csv "
                     "cause_* columns).")
    for r in results:
        for d in DRIVERS:
            if r[d].get("retried_after"):
                lines.append(f"note: {r['scene']} on {d} was run twice: the first run failed "
                             f"with '{r[d]['retried_after']}'")
    if args.validate:
        for d in DRIVERS:
            vals = [r[d]["validation"] for r in results]
            lines.append(f"{d}: " + ", ".join(f"{vals.count(k)} {k}" for k in
                                                ("Success", "Failure", "Unknown")) +
                         f" of {len(vals)} scenes")
    return lines


def verdict(results, args):
    """(ok, list of reasons it is not ok) from what was measured."""
    bad = []
    for r in results:
        for d in DRIVERS:
            if r[d]["exit_code"] != 0:
                bad.append(f"{r['scene']}: glmark2 on {d} exited {r[d]['exit_code']}")
            elif r[d]["frames"] == 0:
                bad.append(f"{r['scene']}: no frame grabbed on {d}")
        if r["vlgpu"]["problems"]:
            bad.append(f"{r['scene']}: vlgpu reported: {r['vlgpu']['problems'][0]}")
        if args.validate and r["vlgpu"]["validation"] != r["softpipe"]["validation"]:
            bad.append(f"{r['scene']}: validation vlgpu {r['vlgpu']['validation']} vs "
                       f"softpipe {r['softpipe']['validation']}")
        c = r.get("compare") or {}
        if args.min_psnr is not None and (c.get("psnr_db") is None or
                                          c["psnr_db"] < args.min_psnr):
            bad.append(f"{r['scene']}: PSNR {c.get('psnr_db')} < {args.min_psnr} dB")
    return not bad, bad


def parser():
    p = argparse.ArgumentParser(
        prog="vlgpu glmark2", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-b", "--benchmark", action="append", metavar="SCENE",
                   help="a glmark2 benchmark description (scene:opt=val:...), passed to "
                        "glmark2 -b; repeatable; default: the %d default scenes"
                        % len(DEFAULT_SCENES))
    p.add_argument("--referenceless", action="store_true",
                   help="the 6 default scenes glmark2 --validate has no reference for: "
                        + ", ".join(REFERENCELESS))
    p.add_argument("--full-benchmark", action="store_true",
                   help="glmark2's whole default benchmark with its own timing and score, one "
                        "process per driver (see below); ignores -b, --frames, --step-ms")
    p.add_argument("--validate", action="store_true",
                   help="glmark2 --validate: one frame per scene, checked by glmark2")
    p.add_argument("--frames", type=int, default=3,
                   help="frames per scene without --validate (default 3); the last is compared")
    p.add_argument("--mode", choices=["cycle", "functional"], default="functional",
                   help="vlgpu simulation mode (default functional: no timing, fast; cycle "
                        "gives cycles per frame)")
    p.add_argument("--step-ms", type=int, default=40,
                   help="glmark2's clock advance per frame in ms (default 40)")
    p.add_argument("-s", "--size", default="800x600", help="glmark2 -s WxH (default 800x600)")
    p.add_argument("-j", "--jobs", type=int, default=2, choices=[1, 2],
                   help="run vlgpu and softpipe of a scene concurrently (2, default) or not")
    p.add_argument("--timeout", type=float, default=900,
                   help="seconds per glmark2 process (default 900)")
    p.add_argument("--dump", action="store_true",
                   help="also write vlgpu's per-draw dump (VLGPU_DUMP) into SCENE/vlgpu/dump")
    p.add_argument("--min-psnr", type=float, metavar="DB",
                   help="fail (exit 1) if a final frame's PSNR vs softpipe is below DB")
    p.add_argument("--doc", metavar="FILE", action="append",
                   help="also rewrite FILE's generated parts (repeatable): the table between "
                        "'<!-- BEGIN glmark2 [--full-benchmark ][--validate ][--referenceless ]"
                        "MODE -->' and its END, one summary sentence between '<!-- BEGIN glmark2 "
                        "... MODE summary -->' and its END (the options and MODE as run)")
    p.add_argument("--out", default=str(ROOT / "out/glmark2"),
                   help="output directory (default out/glmark2)")
    p.add_argument("--glmark2", default=shutil.which("glmark2-es2"),
                   help="glmark2-es2 binary (default: from PATH)")
    return p


def doc_marker(args):
    """The name of the marked part of a --doc file this run writes:
    'glmark2 [--full-benchmark ][--validate ][--referenceless ]MODE' (MODE:
    functional or cycle, the options as run); its one-sentence summary goes
    under the same name + ' summary'."""
    opts = [o for o in ("full_benchmark", "validate", "referenceless") if getattr(args, o)]
    return "glmark2 " + "".join(f"--{o.replace('_', '-')} " for o in opts) + args.mode


def doc_sections(results, args, argv):
    """The generated parts of a --doc file: {marker name: list of markdown lines}."""
    import bench  # scripts/bench.py imports this module: import it late
    m = bench.machine_info()
    cmd = "./vlgpu glmark2 " + " ".join(argv)
    prov = bench.provenance(cmd, m, f"vlgpu in {args.mode} mode next to softpipe, {args.size}, "
                            + ("--validate (one frame per scene)" if args.validate
                               else f"{args.frames} frames per scene"))
    rows = [[f"`{r['scene']}`"] + [str(c).replace("|", "\\|") for c in row_text(r)]
            for r in results]
    counts = []
    if args.validate:
        for d in DRIVERS:
            vals = [r[d]["validation"] for r in results]
            counts.append(f"{d} " + ", ".join(f"{vals.count(k)} {k}" for k in
                                               ("Success", "Failure", "Unknown")))
    psnrs = [(r.get("compare") or {}).get("psnr_db") for r in results]
    psnrs = [x for x in psnrs if x is not None]
    worst = min(psnrs) if psnrs else None
    sentence = (f"{len(results)} glmark2 scenes, vlgpu in {args.mode} mode: "
                + ("; ".join(counts) + "; " if counts else "")
                + ("final frames match softpipe's at "
                   + ("inf" if worst == math.inf else f"{worst:.1f}") + " dB PSNR or better"
                   if worst is not None else "no frames compared")
                + f" (`{cmd}`, {m['date']}, commit {m['git_head']}).")
    full = ([prov, ""] + ([("; ".join(counts) + "."), ""] if counts else [])
            + bench.md_table(["scene"] + HEADER, rows)
            + ["", "host s/frame: mean real time between frame ends after the first frame; "
                   "* = one frame, time from process start (includes start-up)."])
    return {doc_marker(args): full, doc_marker(args) + " summary": [sentence]}


def write_docs(results, args, argv):
    """Rewrite the marked parts of every --doc file (bench.write_doc_sections);
    returns the number of files that could not be written (reason on stderr)."""
    import bench  # scripts/bench.py imports the glmark2 module: import it late
    return bench.write_doc_sections(args.doc, doc_sections(results, args, argv),
                                    "vlgpu glmark2")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parser().parse_args(argv)
    if not args.glmark2:
        print("vlgpu glmark2: glmark2-es2 not found (Debian package glmark2-es2-x11)",
              file=sys.stderr)
        return 2
    if args.frames < 1:
        print("vlgpu glmark2: --frames must be >= 1", file=sys.stderr)
        return 2
    if args.full_benchmark:
        return main_full_benchmark(args, argv)
    scenes = list(args.benchmark or [])
    if args.referenceless:
        scenes += REFERENCELESS
    scenes = scenes or DEFAULT_SCENES
    try:
        results = run_all(scenes, args, progress=lambda s: print(s, flush=True))
    except RuntimeError as e:
        print(f"vlgpu glmark2: {e}", file=sys.stderr)
        return 2
    lines = table(results, args)
    ok, bad = verdict(results, args)
    lines += [""] + (["all scenes ran on both drivers" +
                      (", validation results equal" if args.validate else "")] if ok
                     else ["problems:"] + [f"  {b}" for b in bad])
    out = Path(args.out)
    (out / "results.json").write_text(json.dumps(
        {"args": {k: v for k, v in vars(args).items()}, "machine": machine_info(),
         "scenes": results},
        indent=1, default=str) + "\n")
    (out / "results.txt").write_text("\n".join(lines) + "\n")
    print()
    print("\n".join(lines))
    print(f"\nframes (vlgpu.png, softpipe.png, diff.png per scene), logs, statistics: {out}/")
    if write_docs(results, args, argv):
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
