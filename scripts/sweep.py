#!/usr/bin/python3
"""./vlgpu sweep: design-space sweeps over captured frames, on this machine or on Slurm.

  ./vlgpu sweep GRID [-o OUT] [-j N] [--slurm [--throttle K] [--partition P]
                     [--time T] [--mem M] [--sbatch-arg ARG ...] [--wait]] [--dry-run]
  ./vlgpu sweep status OUT
  ./vlgpu sweep collect OUT [--no-plots]

GRID (TOML, or YAML when its name ends in .yaml/.yml; docs/sweeps.md has the
format and a worked example) names workloads (existing frame captures,
glmark2 scenes or commands) and configurations (a base plus keys with value
lists, crossed or zipped).  A sweep runs in two phases:

1. Captures, on this machine (they need GL, Mesa and X): every glmark2 or
   command workload runs once under VLGPU_CAPTURE (functional mode, the
   frame range of the workload) into OUT/captures/KEY.  The key hashes the
   driver build (swrast_dri.so), the workload and the device parameters the
   captured driver read (manifest "driver_params", e.g. VRAM size and compute
   limits): a configuration whose parameters the driver reads differently
   gets a capture of its own, any other (SPC count, bandwidth, caches, ...)
   replays the same capture.
2. Points, one per (workload, configuration): `vlgpu-sim replay` of the
   capture with the configuration, into OUT/points/KEY.  The key hashes the
   vlgpu-sim binary, the mode, the configuration and the capture's contents:
   a rerun skips points already done (OUT/points/KEY/result.json), a changed
   build or configuration runs them again.  Executors: local (at most -j
   replays at once, default: the cores) or --slurm: one job array
   (`sbatch --array=0-N%K`) of the points not done and a collect job that
   depends on it (afterany); OUT and this tree must be on a filesystem the
   nodes share, and the nodes need only vlgpu-sim (no GL, no X).

Outputs (collect, also run at the end of a local sweep and by the Slurm
collect job): OUT/results.csv and OUT/results.json, one row per (workload,
configuration, frame): the swept keys' values, cycles, submits, draws,
faults, per-module busy fractions (busy cycles / the frame's cycles, summed
over its submits), the bottleneck (the bottleneck report's largest cause over
the frame, docs/simulator.md), host_ms and cpu_ms (the replay's wall and CPU
time for the frame); OUT/plots/cycles-vs-KEY.png (cycles per frame, mean over
the workload's frames, against each swept key, one line per workload and per
combination of the other keys).

Exit status: 0 when every point is done without error; 1 when a point or a
capture failed (its log named), or the grid is malformed (the file and the
problem named); 2 for bad arguments.
"""

import argparse
import concurrent.futures
import csv
import hashlib
import importlib.machinery
import importlib.util
import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIM = ROOT / "build" / "standalone" / "src" / "vlgpu" / "tools" / "vlgpu-sim"
DRIVER = ROOT / "build" / "mesa" / "src" / "gallium" / "targets" / "dri" / "swrast_dri.so"
MODES = ("cycle", "functional")
CAPTURE_MODE = "functional"  # captures run fast; the replays give the cycles


class GridError(Exception):
    """A malformed grid file: the message names the file and the problem."""


def load_module(name, path):
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def file_hash(path, h=None):
    """sha256 of a file's bytes (hex), or update H with them."""
    own = h is None
    h = h or hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest() if own else h


def key_of(obj):
    """16 hex digits of the sha256 of OBJ as canonical JSON."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def set_string(values):
    """{key: value} as VLGPU_SET / --set text: 'a=1,b.c=2' (keys sorted)."""
    def text(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)
    return ",".join(f"{k}={text(v)}" for k, v in sorted(values.items()))


# ---------------------------------------------------------------------------
# The grid
# ---------------------------------------------------------------------------


def read_grid(path):
    """The grid file as a dict (TOML, or YAML for .yaml/.yml); GridError if unreadable."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise GridError(f"{path}: {e.strerror}")
    if path.suffix in (".yaml", ".yml"):
        try:
            import yaml  # Debian python3-yaml
        except ImportError:
            raise GridError(f"{path}: YAML grids need PyYAML (Debian python3-yaml); "
                            "or write the grid in TOML")
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise GridError(f"{path}: {e}")
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise GridError(f"{path}: {e}")
    if not isinstance(data, dict):
        raise GridError(f"{path}: not a table of [sweep], [configurations], [[workloads]]")
    return data


def check_keys(where, table, allowed):
    if not isinstance(table, dict):
        raise GridError(f"{where}: expected a table")
    bad = sorted(set(table) - set(allowed))
    if bad:
        raise GridError(f"{where}: unknown key{'s' if len(bad) > 1 else ''} {', '.join(bad)} "
                        f"(known: {', '.join(allowed)})")


SCALAR = (int, float, str, bool)


def expand_configurations(where, conf):
    """The configurations of [configurations]: a list of {swept key: value},
    crossed (every combination, the first key outermost) or zipped (the i-th
    value of every key); [{}] without keys."""
    check_keys(where, conf, ("base", "set", "combine", "keys"))
    keys = conf.get("keys", {})
    if not isinstance(keys, dict):
        raise GridError(f"{where}.keys: expected a table of KEY = [values]")
    for k, vs in keys.items():
        if not isinstance(vs, list) or not vs or not all(isinstance(v, SCALAR) for v in vs):
            raise GridError(f"{where}.keys.{k}: expected a non-empty list of numbers, "
                            "strings or booleans")
        if len(set(map(str, vs))) != len(vs):
            raise GridError(f"{where}.keys.{k}: a value is listed twice")
    combine = conf.get("combine", "cross")
    names = list(keys)
    if combine == "cross":
        return [dict(zip(names, vals)) for vals in itertools.product(*keys.values())]
    if combine == "zip":
        lengths = {len(v) for v in keys.values()}
        if len(lengths) > 1:
            raise GridError(f"{where}: combine = \"zip\" needs lists of one length, got "
                            + ", ".join(f"{k}: {len(v)}" for k, v in keys.items()))
        return [dict(zip(names, vals)) for vals in zip(*keys.values())] or [{}]
    raise GridError(f"{where}.combine: \"cross\" or \"zip\", not {combine!r}")


def parse_workloads(where, items, defaults, grid_dir):
    """[[workloads]] as a list of dicts: name, kind (glmark2 | command | capture)
    and the kind's fields (scene/argv, frames, size, frame_end; path)."""
    if not isinstance(items, list) or not items:
        raise GridError(f"{where}: expected at least one [[workloads]] table")
    out, names = [], set()
    for i, w in enumerate(items):
        here = f"{where}[{i}]"
        check_keys(here, w, ("name", "glmark2", "command", "capture", "frames", "size",
                             "frame_end"))
        kinds = [k for k in ("glmark2", "command", "capture") if k in w]
        if len(kinds) != 1:
            raise GridError(f"{here}: give one of glmark2 = SCENE, command = [ARGV] or "
                            "capture = DIR")
        kind = kinds[0]
        d = {"kind": kind}
        if kind == "glmark2":
            if not isinstance(w["glmark2"], str) or not w["glmark2"]:
                raise GridError(f"{here}.glmark2: a scene, as glmark2-es2 -b takes it")
            d["scene"] = w["glmark2"]
            d["size"] = str(w.get("size", defaults["size"]))
            if not re.fullmatch(r"\d+x\d+", d["size"]):
                raise GridError(f"{here}.size: WIDTHxHEIGHT, not {d['size']!r}")
            name = re.sub(r"[^A-Za-z0-9=.,-]+", "-", d["scene"]).strip("-")
        elif kind == "command":
            argv = w["command"]
            argv = shlex.split(argv) if isinstance(argv, str) else argv
            if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
                raise GridError(f"{here}.command: a command line (string or list of strings)")
            d["argv"] = argv
            d["frame_end"] = w.get("frame_end", "swap")
            if d["frame_end"] not in ("swap", "finish"):
                raise GridError(f"{here}.frame_end: \"swap\" (a frame ends at each present) "
                                "or \"finish\" (at each glFinish, off-screen programs)")
            name = Path(argv[0]).name
        else:
            p = Path(w["capture"])
            p = p if p.is_absolute() else grid_dir / p
            if not (p / "manifest.json").is_file():
                raise GridError(f"{here}.capture: {p}: no manifest.json (not a VLGPU_CAPTURE "
                                "directory)")
            d["path"] = str(p.resolve())
            name = p.name
        if kind != "capture":
            frames = str(w.get("frames", defaults["frames"]))
            m = re.fullmatch(r"(\d+)-(\d+)", frames) or re.fullmatch(r"(\d+)", frames)
            if not m:
                raise GridError(f"{here}.frames: FIRST-LAST or N (frames from 0), not {frames!r}")
            first, last = int(m.group(1)), int(m.group(m.lastindex))
            if last < first:
                raise GridError(f"{here}.frames: {frames!r} ends before it starts")
            d["frames"] = f"{first}-{last}"
            d["last_frame"] = last
        d["name"] = str(w.get("name", name))
        if d["name"] in names:
            raise GridError(f"{here}.name: {d['name']!r} is used twice (give a name = ...)")
        names.add(d["name"])
        out.append(d)
    return out


def load_grid(path):
    """Read and check GRID: a dict with name, mode, base (path or None), set
    ({key: value}), keys (swept key names), configurations, workloads."""
    path = Path(path)
    data = read_grid(path)
    check_keys(str(path), data, ("sweep", "configurations", "workloads"))
    sweep = data.get("sweep", {})
    check_keys(f"{path}: [sweep]", sweep, ("name", "mode", "size", "frames"))
    mode = sweep.get("mode", "cycle")
    if mode not in MODES:
        raise GridError(f"{path}: [sweep] mode: one of {', '.join(MODES)}, not {mode!r}")
    conf = data.get("configurations", {})
    configs = expand_configurations(f"{path}: [configurations]", conf)
    fixed = conf.get("set", {})
    if not isinstance(fixed, dict) or not all(isinstance(v, SCALAR) for v in fixed.values()):
        raise GridError(f"{path}: [configurations] set: a table of KEY = value")
    both = sorted(set(fixed) & set(conf.get("keys", {})))
    if both:
        raise GridError(f"{path}: [configurations]: {', '.join(both)} both set and swept")
    base = conf.get("base")
    if base is not None:
        base = Path(base) if Path(base).is_absolute() else path.parent / base
        if not base.is_file():
            raise GridError(f"{path}: [configurations] base: {base}: no such file")
        base = str(base.resolve())
    defaults = {"size": sweep.get("size", "400x300"), "frames": sweep.get("frames", "0-2")}
    workloads = parse_workloads(f"{path}: [[workloads]]", data.get("workloads"), defaults,
                                path.parent)
    return {"name": str(sweep.get("name", path.stem)), "mode": mode, "base": base,
            "set": fixed, "keys": list(conf.get("keys", {})), "configurations": configs,
            "workloads": workloads, "grid": str(path.resolve())}


# ---------------------------------------------------------------------------
# Planning: captures and points, with their keys
# ---------------------------------------------------------------------------


def sim_params(settings, base, cache):
    """The device parameters (vlgpu-sim params) of the configuration BASE + SETTINGS
    in cycle mode; GridError naming the settings when the simulator rejects them."""
    s = set_string(settings)
    if s not in cache:
        cmd = [str(SIM), "params", "--set", s] + (["--config", base] if base else [])
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise GridError(f"configuration {s or '(default)'}: {r.stderr.strip()}")
        cache[s] = json.loads(r.stdout)
    return cache[s]


def capture_contents_key(cap):
    """A capture's identity: its manifest and event log (which names every blob by
    its content hash)."""
    h = hashlib.sha256()
    for name in ("manifest.json", "events.jsonl.zst"):
        file_hash(Path(cap) / name, h)
    return h.hexdigest()[:16]


def workload_identity(w):
    return {k: v for k, v in w.items() if k not in ("name", "last_frame")}


class Sweep:
    """A sweep's directory OUT: its plan (plan.json), captures, points, results."""

    def __init__(self, out):
        self.out = Path(out).resolve()
        self.plan_path = self.out / "plan.json"

    def load(self):
        try:
            self.plan = json.loads(self.plan_path.read_text())
        except OSError:
            raise GridError(f"{self.out}: no plan.json (not a sweep directory; run "
                            "./vlgpu sweep GRID -o OUT first)")
        return self

    def save(self):
        self.out.mkdir(parents=True, exist_ok=True)
        tmp = self.plan_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.plan, indent=1) + "\n")
        tmp.replace(self.plan_path)

    def point_dir(self, p):
        return self.out / "points" / p["key"]

    def result(self, p):
        """A point's result.json (dict) or None when it has not run."""
        try:
            return json.loads((self.point_dir(p) / "result.json").read_text())
        except (OSError, ValueError):
            return None


def capture_key(w, driver_hash, grid, params):
    return key_of({"driver": driver_hash, "workload": workload_identity(w), "base": grid["base"],
                   "mode": CAPTURE_MODE, "params": params})


def capture_settings(grid, settings):
    return dict(grid["set"], **settings)


def plan_sweep(grid, out, progress):
    """Make the captures the points need (phase 1) and write OUT/plan.json:
    captures {key: dir, workload, settings} and points [{key, workload,
    settings, capture, dir}].  Returns the Sweep."""
    if not SIM.is_file():
        raise GridError(f"{SIM.relative_to(ROOT)}: not built yet (./vlgpu setup)")
    sim_hash = file_hash(SIM)[:16]
    out = Path(out).resolve()  # the plan's paths must hold from any directory (Slurm tasks)
    cache = {}
    for c in grid["configurations"]:  # every configuration checked before any run
        sim_params(capture_settings(grid, c), grid["base"], cache)
    sw = Sweep(out)
    captures, points = {}, []
    driver_hash = None
    for w in grid["workloads"]:
        if w["kind"] == "capture":
            cap_key = "given-" + capture_contents_key(w["path"])
            captures[cap_key] = {"dir": w["path"], "workload": w["name"], "given": True}
            read = json.loads((Path(w["path"]) / "manifest.json").read_text()) \
                .get("driver_params", {})
            for c in grid["configurations"]:
                now = sim_params(capture_settings(grid, c), grid["base"], cache)
                differ = sorted(k for k in read if now.get(k) != read[k])
                points.append({"workload": w["name"], "settings": c, "capture": cap_key,
                               "params_differ": differ})
            continue
        if driver_hash is None:
            if not DRIVER.is_file():
                raise GridError(f"{DRIVER.relative_to(ROOT)}: not built yet (./vlgpu setup): "
                                "glmark2 and command workloads are captured with it")
            driver_hash = file_hash(DRIVER)[:16]
        # The capture with the grid's fixed settings tells which parameters the
        # driver reads; configurations answering those differently get their own.
        base_params = sim_params(grid["set"], grid["base"], cache)
        first = make_capture(w, grid, out, driver_hash, grid["set"], None, progress)
        read = sorted(json.loads((Path(first["dir"]) / "manifest.json").read_text())
                      .get("driver_params", {}))
        captures[first["key"]] = first
        for c in grid["configurations"]:
            now = sim_params(capture_settings(grid, c), grid["base"], cache)
            if all(now.get(k) == base_params.get(k) for k in read):
                cap = first
            else:
                cap = make_capture(w, grid, out, driver_hash, capture_settings(grid, c),
                                   {k: now.get(k) for k in read}, progress)
                captures[cap["key"]] = cap
            points.append({"workload": w["name"], "settings": c, "capture": cap["key"],
                           "params_differ": []})
    contents = {k: capture_contents_key(c["dir"]) for k, c in captures.items()}  # once each
    for p in points:
        p["capture_dir"] = captures[p["capture"]]["dir"]
        p["key"] = key_of({"sim": sim_hash, "mode": grid["mode"], "base": grid["base"],
                           "set": capture_settings(grid, p["settings"]),
                           "capture": contents[p["capture"]]})
    sw.plan = {"name": grid["name"], "grid": grid["grid"], "mode": grid["mode"],
               "base": grid["base"], "set": grid["set"], "keys": grid["keys"],
               "sim": str(SIM), "sim_hash": sim_hash, "python": sys.executable,
               "captures": captures, "points": points}
    sw.save()
    return sw


def make_capture(w, grid, out, driver_hash, settings, params, progress):
    """Capture workload W's frames with SETTINGS into OUT/captures/KEY (once: a
    complete capture there is reused).  Returns {key, dir, workload, settings}.
    Raises GridError when the program fails or captures no complete range."""
    key = capture_key(w, driver_hash, grid, params)
    d = Path(out) / "captures" / key
    info = {"key": key, "dir": str(d), "workload": w["name"], "settings": settings}
    man = d / "manifest.json"
    if man.is_file() and json.loads(man.read_text()).get("complete"):
        progress(f"capture of {w['name']}: done before ({d})")
        return info
    if d.exists():
        shutil.rmtree(d)
    launcher = load_module("vlgpu_launcher", ROOT / "vlgpu")
    g2 = load_module("vlgpu_glmark2", ROOT / "scripts" / "glmark2.py")
    if w["kind"] == "glmark2":
        if not shutil.which("glmark2-es2"):
            raise GridError("glmark2-es2 not found (Debian glmark2-es2-x11)")
        argv = ["glmark2-es2", "--off-screen", "-s", w["size"], "-b", w["scene"]]
        at_finish = True
    else:
        argv, at_finish = w["argv"], w["frame_end"] == "finish"
    env = {"VLGPU_CAPTURE": str(d), "VLGPU_CAPTURE_FRAMES": w["frames"],
           "VLGPU_SET": set_string(settings), "VLGPU_CONFIG": grid["base"]}
    t0 = time.monotonic()
    progress(f"capture of {w['name']}: {' '.join(argv)}, frames {w['frames']} ...")
    with launcher.PrivateX() as x:
        # one frame past the range, so the capture is closed at its last frame's end
        res = g2.run_grabbed(launcher, x.display, "vlgpu", argv, d.parent / (key + ".run"),
                             frames=w["last_frame"] + 2, at_finish=at_finish,
                             mode=CAPTURE_MODE, env_update=env)
    for f in (d.parent / (key + ".run")).glob("frame-*.rgba"):
        f.unlink()
    m = json.loads(man.read_text()) if man.is_file() else {}
    if not m.get("complete"):
        raise GridError(f"capture of {w['name']} failed: exit {res['exit_code']}, "
                        f"{m.get('frames', 0)} frames captured; see "
                        f"{d.parent / (key + '.run')}/stderr.log")
    progress(f"capture of {w['name']}: {m['frames']} frames, {m['submits']} submits, "
             f"{dir_bytes(d) / 1e6:.2f} MB in {time.monotonic() - t0:.1f} s")
    return info


def dir_bytes(d):
    return sum(f.stat().st_size for f in Path(d).rglob("*") if f.is_file())


# ---------------------------------------------------------------------------
# Running one point
# ---------------------------------------------------------------------------


def frame_rows(replay_dir, frames):
    """Per frame of a replay (frames.jsonl lines FRAMES) the results row: cycles,
    busy fractions per module, bottleneck, from the submits' statistics files
    (replay_dir/stats/submit-NNNNNN.json, in order, FRAMES[i]['submits'] each)."""
    files = sorted((Path(replay_dir) / "stats").glob("submit-*.json"))
    rows, at = [], 0
    for f in frames:
        subs = files[at:at + f["submits"]]
        at += f["submits"]
        busy, total, causes = {}, {}, {}
        for path in subs:
            st = json.loads(path.read_text()).get("stats") or {}
            for mod, m in (st.get("modules") or {}).items():
                busy[mod] = busy.get(mod, 0) + m.get("busy", 0)
                total[mod] = total.get(mod, 0) + sum(m.get(k, 0) for k in
                                                      ("busy", "stalled", "starved", "idle"))
            for cause, n in (st.get("bottleneck") or {}).items():
                causes[cause] = causes.get(cause, 0) + n
        row = {"frame": f["frame"], "cycles": f["cycles"], "submits": f["submits"],
               "draws": f["draws"], "faults": f["faults"], "images": f["images"],
               "images_differing": f["images_differing"], "host_ms": f.get("host_ms"),
               "cpu_ms": f.get("cpu_ms")}
        ranked = sorted(((n, c) for c, n in causes.items() if c != "idle" and n > 0),
                        reverse=True)
        all_causes = sum(causes.values())
        row["bottleneck"] = f"{ranked[0][1]} {100 * ranked[0][0] / all_causes:.0f}%" \
            if ranked else ""
        for mod in busy:
            row[f"busy_{mod}"] = round(busy[mod] / total[mod], 4) if total[mod] else 0.0
        rows.append(row)
    return rows


def run_point(sw, p):
    """Replay point P (vlgpu-sim replay of its capture with its configuration) into
    OUT/points/KEY; result.json last (written atomically): ok, error, exit code,
    seconds, rows.  Returns that dict."""
    d = sw.point_dir(p)
    replay = d / "replay"
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    plan = sw.plan
    cmd = [plan["sim"], "replay", p["capture_dir"], "-o", str(replay), "--no-png",
           "--mode", plan["mode"],
           "--set", set_string(dict(plan["set"], **p["settings"]))]
    if plan["base"]:
        cmd += ["--config", plan["base"]]
    t0 = time.monotonic()
    with open(d / "log.txt", "w") as log:
        log.write(" ".join(shlex.quote(a) for a in cmd) + "\n")
        log.flush()
        r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT)
    res = {"key": p["key"], "workload": p["workload"], "settings": p["settings"],
           "exit_code": r.returncode, "seconds": round(time.monotonic() - t0, 3),
           "host": os.uname().nodename, "params_differ": p["params_differ"]}
    try:
        frames = [json.loads(line) for line in (replay / "frames.jsonl").read_text().splitlines()]
        res["rows"] = frame_rows(replay, frames)
    except (OSError, ValueError, KeyError) as e:
        frames, res["rows"] = [], []
        res["read_error"] = str(e)
    # exit 3: a display image differs from the live run's, which another
    # configuration may show legitimately only if it changes the pixels (it must not)
    res["ok"] = r.returncode == 0 and bool(frames)
    res["error"] = None if res["ok"] else \
        f"vlgpu-sim replay exited {r.returncode}; see {d / 'log.txt'}"
    tmp = d / "result.json.tmp"
    tmp.write_text(json.dumps(res, indent=1) + "\n")
    tmp.replace(d / "result.json")
    return res


def point_label(p):
    return f"{p['workload']} {set_string(p['settings']) or '(base)'}"


def run_local(sw, todo, jobs, progress):
    """Run the points TODO, at most JOBS at once; returns the number that failed."""
    failed, done, lock = 0, 0, threading.Lock()
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futures = {ex.submit(run_point, sw, p): p for p in todo}
        for fut in concurrent.futures.as_completed(futures):
            p = futures[fut]
            res = fut.result()
            with lock:
                done += 1
                failed += not res["ok"]
                cyc = sum(r["cycles"] for r in res["rows"])
                status = f"{cyc:,} cycles" if res["ok"] else f"FAILED: {res['error']}"
                progress(f"[{done}/{len(todo)}] {point_label(p)}: {status} "
                         f"({res['seconds']:.1f} s; {time.monotonic() - t0:.0f} s so far)")
    return failed


# ---------------------------------------------------------------------------
# Slurm
# ---------------------------------------------------------------------------


def slurm_submit(sw, todo, args, progress):
    """Submit the points TODO as one job array plus a collect job (afterany);
    record them in OUT/slurm/submissions.json.  Returns (array id, collect id)."""
    if not shutil.which("sbatch"):
        raise GridError("--slurm: sbatch not found (Debian slurm-client; SLURM_CONF must "
                        "name the cluster's slurm.conf)")
    sdir = sw.out / "slurm"
    sdir.mkdir(parents=True, exist_ok=True)
    n = len(list(sdir.glob("array-*.json")))
    listing = sdir / f"array-{n}.json"
    listing.write_text(json.dumps([sw.plan["points"].index(p) for p in todo]) + "\n")
    py, me = sw.plan["python"], str(Path(__file__).resolve())
    script = sdir / f"array-{n}.sh"
    script.write_text("#!/bin/sh\n# one point of the sweep per array task (scripts/sweep.py)\n"
                      f"exec {shlex.quote(py)} {shlex.quote(me)} run-point "
                      f"{shlex.quote(str(sw.out.resolve()))} {shlex.quote(str(listing))} "
                      "\"$SLURM_ARRAY_TASK_ID\"\n")
    script.chmod(0o755)
    common = []
    for opt, val in (("--partition", args.partition), ("--time", args.time),
                     ("--mem", args.mem)):
        if val:
            common += [f"{opt}={val}"]
    common += args.sbatch_arg or []
    name = f"vlgpu-sweep-{sw.plan['name']}"
    throttle = f"%{args.throttle}" if args.throttle else ""
    cmd = ["sbatch", "--parsable", f"--job-name={name}", f"--array=0-{len(todo) - 1}{throttle}",
           f"--output={sdir}/point-%A_%a.out", "--ntasks=1", "--cpus-per-task=1"] + common \
        + [str(script)]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=sw.out)
    if r.returncode != 0:
        raise GridError(f"sbatch (array) failed: {r.stderr.strip() or r.stdout.strip()}")
    array_id = r.stdout.strip().split(";")[0]
    collect_cmd = (f"exec {shlex.quote(py)} {shlex.quote(me)} collect "
                   f"{shlex.quote(str(sw.out.resolve()))}")
    cmd = ["sbatch", "--parsable", f"--job-name={name}-collect",
           f"--dependency=afterany:{array_id}", f"--output={sdir}/collect-%j.out",
           "--ntasks=1"] + common + ["--wrap", collect_cmd]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=sw.out)
    if r.returncode != 0:
        raise GridError(f"sbatch (collect, after array job {array_id}) failed: "
                        f"{r.stderr.strip() or r.stdout.strip()}")
    collect_id = r.stdout.strip().split(";")[0]
    subs_path = sdir / "submissions.json"
    subs = json.loads(subs_path.read_text()) if subs_path.exists() else []
    subs.append({"array": array_id, "collect": collect_id, "points": len(todo),
                 "list": str(listing), "submitted": time.strftime("%Y-%m-%d %H:%M:%S %Z")})
    subs_path.write_text(json.dumps(subs, indent=1) + "\n")
    progress(f"submitted job array {array_id} ({len(todo)} points"
             f"{', at most ' + str(args.throttle) + ' at once' if args.throttle else ''}) and "
             f"collect job {collect_id} (after it); progress: ./vlgpu sweep status {sw.out}")
    return array_id, collect_id


def slurm_states(job_id):
    """{state: count} of a job (all tasks of an array) from `scontrol show job`
    (sacct needs slurmdbd); {} when Slurm no longer knows the job."""
    r = subprocess.run(["scontrol", "-o", "show", "job", str(job_id)], capture_output=True,
                       text=True)
    states = {}
    for line in r.stdout.splitlines():
        m = re.search(r"\bJobState=(\S+)", line)
        if m:
            states[m.group(1)] = states.get(m.group(1), 0) + 1
    return states


def slurm_wait(collect_id, progress, poll=2.0, timeout=None):
    """Wait until the collect job has ended; returns its final state."""
    t0 = time.monotonic()
    last = None
    while True:
        st = slurm_states(collect_id)
        state = next(iter(st), "GONE")
        if state != last:
            progress(f"collect job {collect_id}: {state}")
            last = state
        if state not in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING"):
            return state
        if timeout and time.monotonic() - t0 > timeout:
            return "TIMEOUT(wait)"
        time.sleep(poll)


# ---------------------------------------------------------------------------
# status and collect
# ---------------------------------------------------------------------------


def status(sw, out=print):
    """Print how many points are done, failed, not run; and the Slurm jobs' states."""
    pts = sw.plan["points"]
    res = [sw.result(p) for p in pts]
    done = sum(1 for r in res if r and r["ok"])
    failed = [(p, r) for p, r in zip(pts, res) if r and not r["ok"]]
    out(f"sweep {sw.plan['name']} ({sw.out}): {len(pts)} points, {done} done, "
        f"{len(failed)} failed, {len(pts) - done - len(failed)} not run")
    for p, r in failed:
        out(f"  FAILED {point_label(p)}: {r['error']}")
    subs_path = sw.out / "slurm" / "submissions.json"
    if subs_path.exists() and shutil.which("scontrol"):
        for s in json.loads(subs_path.read_text()):
            arr, col = slurm_states(s["array"]), slurm_states(s["collect"])
            fmt = lambda st: ", ".join(f"{n} {k}" for k, n in st.items()) or "no longer known"
            out(f"  Slurm array {s['array']} ({s['points']} points, {s['submitted']}): "
                f"{fmt(arr)}; collect {s['collect']}: {fmt(col)}")
    return 0 if not failed else 1


def collect(sw, plots=True, out=print):
    """Write OUT/results.csv, results.json and the plots from the points' results."""
    plan = sw.plan
    rows, missing = [], 0
    for p in plan["points"]:
        r = sw.result(p)
        if not r or not r["ok"]:
            missing += 1
            continue
        for fr in r["rows"]:
            row = {"workload": p["workload"], **{k: p["settings"].get(k) for k in plan["keys"]},
                   "point": p["key"]}
            row.update(fr)
            row["replay_s"] = r["seconds"]
            row["host"] = r["host"]
            row["params_differ"] = " ".join(r.get("params_differ") or [])
            rows.append(row)
    columns = []
    for r in rows:
        for k in r:
            if k not in columns:
                columns.append(k)
    busy = sorted(c for c in columns if c.startswith("busy_"))
    columns = [c for c in columns if not c.startswith("busy_")] + busy
    with open(sw.out / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)
    doc = {"name": plan["name"], "grid": plan["grid"], "mode": plan["mode"],
           "keys": plan["keys"], "points": len(plan["points"]), "points_missing": missing,
           "collected": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "rows": rows}
    (sw.out / "results.json").write_text(json.dumps(doc, indent=1) + "\n")
    headers, table = summary(plan, rows)
    widths = [max(len(h), *(len(t[i]) for t in table)) if table else len(h)
              for i, h in enumerate(headers)]
    for line in [headers] + table:
        out("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip())
    out(f"wrote {sw.out / 'results.csv'} and results.json: {len(rows)} rows "
        f"({len(plan['points']) - missing} of {len(plan['points'])} points)")
    if plots and rows and plan["keys"] and plan["mode"] == "cycle":
        for path in plot(sw, rows):
            out(f"wrote {path}")
    return 0 if not missing else 1


def summary(plan, rows):
    """One line per point (workload, configuration): mean simulated cycles per
    frame over its frames, the last frame's bottleneck, the replay's mean host
    CPU ms per frame.  Returns (headers, table rows)."""
    per = {}
    for r in rows:
        per.setdefault(r["point"], []).append(r)
    headers = ["workload"] + plan["keys"] + ["frames", "cycles/frame", "bottleneck (last frame)",
                                             "replay CPU ms/frame"]
    table = []
    for prs in per.values():
        r0 = prs[0]
        cpu = [r["cpu_ms"] for r in prs if r.get("cpu_ms") is not None]
        table.append([r0["workload"]] + [str(r0[k]) for k in plan["keys"]]
                     + [str(len(prs)), f"{sum(r['cycles'] for r in prs) / len(prs):,.0f}",
                        prs[-1]["bottleneck"] or "-",
                        f"{sum(cpu) / len(cpu):.1f}" if cpu else "-"])
    return headers, table


def plot(sw, rows):
    """OUT/plots/cycles-vs-KEY.png per swept key: one panel per workload, the
    mean cycles per frame of each point against KEY's value, a line per
    combination of the other keys."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    keys = sw.plan["keys"]
    by_point = {}
    for r in rows:
        by_point.setdefault(r["point"], []).append(r)
    pts = []
    for prs in by_point.values():
        r0 = prs[0]
        pts.append((r0["workload"], {k: r0[k] for k in keys},
                    sum(r["cycles"] for r in prs) / len(prs)))
    workloads = list(dict.fromkeys(wl for wl, _, _ in pts))
    (sw.out / "plots").mkdir(exist_ok=True)
    cols = min(3, len(workloads))
    nrows = (len(workloads) + cols - 1) // cols
    paths = []
    for key in keys:
        others = [k for k in keys if k != key]
        fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.2 * nrows), squeeze=False)
        for ax, wl in zip(axes.flat, workloads):
            lines = {}
            for w, vals, cyc in pts:
                if w == wl:
                    label = ", ".join(f"{k}={vals[k]}" for k in others) or wl
                    lines.setdefault(label, []).append((vals[key], cyc))
            for label, xy in sorted(lines.items()):
                xy.sort(key=lambda t: (isinstance(t[0], str), t[0]))
                ax.plot([str(x) for x, _ in xy], [y / 1e3 for _, y in xy], marker="o",
                        label=label)
            ax.set_title(wl, fontsize=10)
            ax.set_xlabel(key, fontsize=8)
            ax.set_ylabel("k cycles / frame", fontsize=8)
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            ax.tick_params(labelsize=8)
            if others:
                ax.legend(fontsize=7)
        for ax in list(axes.flat)[len(workloads):]:
            ax.set_visible(False)
        fig.suptitle(f"sweep {sw.plan['name']}: simulated cycles per frame (mean over the "
                     f"frames) vs {key}", fontsize=10)
        fig.tight_layout()
        path = sw.out / "plots" / f"cycles-vs-{key}.png"
        fig.savefig(path, dpi=90)
        plt.close(fig)
        paths.append(path)
    return paths


# columns that depend on the host, not on the simulation (and the point's key, which
# hashes the capture's bytes: two captures of a scene can differ in bytes the GPU
# does not use, such as the X byte of an RGBX texture upload)
HOST_COLUMNS = ("host_ms", "cpu_ms", "replay_s", "host", "point")


def compare_results(a_dir, b_dir):
    """Compare the simulated columns (all but HOST_COLUMNS) of two sweeps'
    results.json, row by row (keyed by workload, swept keys' values and frame).
    Returns (rows compared, [differences as text]); GridError when a results.json
    is missing."""
    def load(d):
        path = Path(d) / "results.json"
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise GridError(f"--compare: {path}: {e} (collect that sweep first)")
        return {(r["workload"], *(str(r.get(k)) for k in doc["keys"]), r["frame"]):
                {k: v for k, v in r.items() if k not in HOST_COLUMNS} for r in doc["rows"]}
    a, b = load(a_dir), load(b_dir)
    diffs = [f"only in {a_dir}: {k}" for k in a if k not in b] + \
            [f"only in {b_dir}: {k}" for k in b if k not in a]
    for k in a:
        if k in b and a[k] != b[k]:
            cols = sorted(c for c in set(a[k]) | set(b[k]) if a[k].get(c) != b[k].get(c))
            diffs.append(f"{k}: " + ", ".join(f"{c} {a[k].get(c)} vs {b[k].get(c)}"
                                              for c in cols))
    return len(a), diffs


def write_doc(sw, docs, executor, wall, argv, compared=None):
    """--doc: the section '<!-- BEGIN sweep NAME EXECUTOR -->' of each file of DOCS:
    where the figures come from (command, date, commit, mode, wall time), the
    summary table, and the plots (copied to sweeps-img/ beside the file)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import bench  # scripts/bench.py: machine_info, provenance, write_doc_sections
    res = json.loads((sw.out / "results.json").read_text())
    plan = sw.plan
    headers, table = summary(plan, res["rows"])
    shown = []
    skip = False
    for a in argv:  # the command without -o OUT and --doc FILE (local paths)
        if skip:
            skip = False
            continue
        if a in ("-o", "--out", "--doc", "--compare"):
            skip = True
            continue
        if not a.startswith(("--out=", "--doc=", "--compare=")):
            shown.append(a)
    cmd = "./vlgpu sweep " + " ".join(shown)
    points = len(plan["points"])
    head = bench.provenance(cmd, bench.machine_info(),
                            f"{plan['mode']} mode, {executor}, {points} points, wall time "
                            f"{wall:.0f} s (captures included)")
    if compared:
        other, n, diffs = compared
        head += (f" Every simulated column equals the sweep in {other}'s ({n} rows; host "
                 "columns and point keys left out)." if not diffs else
                 f" {len(diffs)} of {n} rows DIFFER from the sweep in {other}'s.")
    lines = [head, "", "| " + " | ".join(headers) + " |",
             "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(t) + " |" for t in table]
    errors = 0
    for doc in docs:
        img = Path(doc).parent / "sweeps-img"
        img.mkdir(exist_ok=True)
        pics = []
        for png in sorted((sw.out / "plots").glob("cycles-vs-*.png")):
            dest = img / f"{plan['name']}-{png.name}"
            shutil.copyfile(png, dest)
            pics.append(f"![{png.stem}](sweeps-img/{dest.name})")
        errors += bench.write_doc_sections([doc], {f"sweep {plan['name']} {executor}":
                                                   lines + ([""] + pics if pics else [])},
                                           "vlgpu sweep")
    return errors


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------


def compare_step(sw, args, progress):
    """--compare: (other dir, rows, differences) after printing the outcome; None
    without --compare."""
    if not args.compare:
        return None
    n, diffs = compare_results(sw.out, args.compare)
    for d in diffs[:20]:
        progress(f"  differs: {d}")
    progress(f"compared with {args.compare}: {n} rows, "
             + ("every simulated column equal" if not diffs else f"{len(diffs)} differ"))
    return (str(args.compare), n, diffs)


def run_parser():
    """The options of `./vlgpu sweep GRID`."""
    p = argparse.ArgumentParser(prog="vlgpu sweep", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("grid", metavar="GRID", help="the grid file (TOML or YAML; docs/sweeps.md)")
    p.add_argument("-o", "--out", type=Path,
                   help="the sweep's directory (default out/sweeps/NAME, NAME from [sweep] "
                        "name or the grid file's name)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count(),
                   help="local executor: replays at once (default: the cores, %(default)s)")
    p.add_argument("--slurm", action="store_true",
                   help="submit the points not done as one Slurm job array and a collect job "
                        "(sbatch; SLURM_CONF as for any Slurm command)")
    p.add_argument("--throttle", type=int, metavar="K",
                   help="--slurm: at most K array tasks at once (--array=0-N%%K)")
    p.add_argument("--partition", help="--slurm: sbatch --partition")
    p.add_argument("--time", help="--slurm: sbatch --time, per point (e.g. 0:30:00)")
    p.add_argument("--mem", help="--slurm: sbatch --mem, per point (e.g. 2G)")
    p.add_argument("--sbatch-arg", action="append", metavar="ARG",
                   help="--slurm: another sbatch option, as it is (repeatable), e.g. "
                        "--sbatch-arg=--account=arch")
    p.add_argument("--wait", action="store_true",
                   help="--slurm: wait for the collect job, then print the status")
    p.add_argument("--doc", action="append", metavar="FILE",
                   help="also write the summary table, with the command, date, commit and "
                        "wall time, and the plots between '<!-- BEGIN sweep NAME EXECUTOR -->' "
                        "and its END in FILE (EXECUTOR: local or slurm; plots copied to "
                        "sweeps-img/ beside FILE; --slurm needs --wait); repeatable")
    p.add_argument("--compare", metavar="OTHER_OUT", type=Path,
                   help="after the sweep, compare every simulated column of its results with "
                        "another sweep directory's (e.g. the same grid run locally, against a "
                        "cluster run): the differences listed, exit 1 if any; with --doc, "
                        "the outcome goes into the section")
    p.add_argument("--dry-run", action="store_true",
                   help="check the grid and list the points (no capture, no replay)")
    return p


def run_main(argv):
    p = run_parser()
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error("-j must be at least 1")
    if args.doc and args.slurm and not args.wait:
        p.error("--doc with --slurm needs --wait (the figures come after the collect job)")
    progress = lambda s: print(s, flush=True)
    grid = load_grid(args.grid)
    out = args.out or ROOT / "out" / "sweeps" / grid["name"]
    n = len(grid["workloads"]) * len(grid["configurations"])
    progress(f"sweep {grid['name']}: {len(grid['workloads'])} workloads x "
             f"{len(grid['configurations'])} configurations = {n} points, {grid['mode']} mode; "
             f"output in {out}")
    if args.dry_run:
        for w in grid["workloads"]:
            for c in grid["configurations"]:
                progress(f"  {w['name']} {set_string(dict(grid['set'], **c)) or '(base)'}")
        return 0
    t0 = time.monotonic()
    sw = plan_sweep(grid, out, progress)
    todo = [pt for pt in sw.plan["points"] if not (sw.result(pt) or {}).get("ok")]
    progress(f"{len(sw.plan['points']) - len(todo)} of {len(sw.plan['points'])} points done "
             f"before; {len(todo)} to run")
    if args.slurm:
        if not todo:
            return collect(sw)
        _, collect_id = slurm_submit(sw, todo, args, progress)
        if not args.wait:
            return 0
        slurm_wait(collect_id, progress)
        rc = status(sw)
        wall = time.monotonic() - t0
        progress(f"wall time {wall:.1f} s (captures, submission, points, collect)")
        compared = compare_step(sw, args, progress) if rc == 0 else None
        rc |= bool(compared and compared[2])
        if args.doc and rc == 0:  # figures only from a sweep with every point done
            rc |= bool(write_doc(sw, args.doc, "slurm", wall, argv, compared))
        return rc
    failed = run_local(sw, todo, args.jobs, progress) if todo else 0
    rc = collect(sw)
    wall = time.monotonic() - t0
    progress(f"wall time {wall:.1f} s (captures, points, collect)")
    compared = compare_step(sw, args, progress) if not failed and rc == 0 else None
    rc |= bool(compared and compared[2])
    if args.doc and not failed and rc == 0:  # figures only from a complete sweep
        rc |= bool(write_doc(sw, args.doc, "local", wall, argv, compared))
    return 1 if failed else rc


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv[:1] == ["status"] or argv[:1] == ["collect"]:
            p = argparse.ArgumentParser(prog=f"vlgpu sweep {argv[0]}",
                                        description="status: how many points are done, "
                                        "failed, not run, and the Slurm jobs' states.  "
                                        "collect: results.csv, results.json and the plots "
                                        "from the points done (docs/sweeps.md).")
            p.add_argument("out", metavar="OUT", type=Path, help="the sweep's directory")
            if argv[0] == "collect":
                p.add_argument("--no-plots", action="store_true", help="no PNG plots")
            a = p.parse_args(argv[1:])
            sw = Sweep(a.out).load()
            return status(sw) if argv[0] == "status" else collect(sw, plots=not a.no_plots)
        if argv[:1] == ["run-point"]:
            # one array task: run-point OUT LIST TASK (written by slurm_submit)
            if len(argv) != 4:
                print("usage: sweep.py run-point OUT LIST TASK_ID", file=sys.stderr)
                return 2
            sw = Sweep(argv[1]).load()
            index = json.loads(Path(argv[2]).read_text())[int(argv[3])]
            res = run_point(sw, sw.plan["points"][index])
            print(json.dumps({k: res[k] for k in ("key", "workload", "settings", "ok", "error",
                                                  "seconds", "host")}))
            return 0 if res["ok"] else 1
        return run_main(argv)
    except GridError as e:
        print(f"vlgpu sweep: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
