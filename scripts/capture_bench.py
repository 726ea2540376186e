"""`./vlgpu bench capture` (scripts/bench.py's sub-benchmark; docs/capture.md "Measured"):
what a frame capture costs and what its replay saves, per glmark2 scene.

Per scene (`glmark2-es2 --off-screen -s SIZE -b SCENE` under the benchmarks' frame
grabber, tests/integration/driver/vlg_framegrab.c: 40 ms of glmark2 time per frame,
so every run draws the same frames), frames 0..N (frame 0: the scene's set-up):

  1. live, cycle mode, no capture: the reference (CPU ms per frame from the
     grabber's CLOCK_PROCESS_CPUTIME_ID at frame ends; cycles per frame from
     VLGPU_STATS);
  2. live, functional mode, with VLGPU_CAPTURE=DIR VLGPU_CAPTURE_FRAMES=0-N: the
     capture (its size: manifest.json's blob, page and log counts, bytes on disk);
  3. live, functional mode, no capture: the baseline of the capture's overhead;
  4. `vlgpu-sim replay DIR --mode cycle --no-png`: the replay (CPU ms per frame
     from its frames.jsonl `cpu_ms`; cycles per frame, which must equal run 1's;
     images compared by hash, not written: run 1 writes none either).

Columns: capture MB on disk, blobs, MB recorded (pages before deduplication and
compression), frame 0's CPU ms live (from the process's start: X connection, EGL,
shader compiles, uploads) and replayed (from opening the capture), live and
replay CPU ms per frame (medians over frames 1..N), their
ratio, the capture's overhead (median CPU ms per frame of run 2 / run 3 - 1, frames
1..N), and whether the replay's cycles equal the live run's for frames 1..N (the
driver's frame-0 row leaves out submits it keeps no draw records of, docs/capture.md)
and its pixels the live run's (the replay compares each frame's off-screen image,
vlg_drm_set_frame_image, with the hash the capture recorded).
"""

import json
import shutil
import statistics
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIM = ROOT / "build/standalone/src/vlgpu/tools/vlgpu-sim"
DEFAULT_SCENES = ["build", "texture", "shading", "jellyfish", "refract", "terrain"]


def cpu_ms_per_frame(times):
    """{frame: CPU ms} of a VLG_GRAB_TIMES list: frame 0 from the process's start
    (CLOCK_PROCESS_CPUTIME_ID counts from there: start-up, set-up, shader compiles),
    the others between consecutive frame ends."""
    per = {times[i][0]: (times[i][2] - times[i - 1][2]) / 1e6 for i in range(1, len(times))}
    if times:
        per[times[0][0]] = times[0][2] / 1e6
    return per


def live_run(glm, launcher, display, scene, size, frames, mode, workdir, capture=None):
    """One glmark2 run of frames 0..FRAMES (+1 past, so a capture closes); returns
    (per-frame CPU ms {frame: ms}, per-frame cycles [..], error or None)."""
    env = {"VLGPU_CAPTURE": str(capture), "VLGPU_CAPTURE_FRAMES": f"0-{frames}"} \
        if capture else {"VLGPU_CAPTURE": None, "VLGPU_CAPTURE_FRAMES": None}
    res = glm.run_grabbed(launcher, display, "vlgpu",
                          ["glmark2-es2", "--off-screen", "-s", size, "-b", scene],
                          workdir, frames=frames + 2, mode=mode, env_update=env)
    for f in workdir.glob("frame-*.rgba"):
        f.unlink()
    err = None if res["exit_code"] == 0 and not res["problems"] else \
        f"exit {res['exit_code']} {res['problems']}"
    rows = glm.read_stats(workdir / "stats.csv")
    return (cpu_ms_per_frame(glm.read_times(workdir / "frame-times.txt")),
            [int(r["cycles"]) for r in rows[:frames + 1]], err)


def measure(glm, launcher, scenes, size, frames, out, progress=print):
    """The four runs per scene; a list of result dicts (one per scene)."""
    results = []
    with launcher.PrivateX() as x:
        for scene in scenes:
            t0 = time.monotonic()
            d = out / "capture" / glm.slug(scene)
            if d.exists():
                shutil.rmtree(d)
            d.mkdir(parents=True)
            cap = d / "cap"
            r = {"scene": scene}
            live_cpu, live_cycles, e1 = live_run(glm, launcher, x.display, scene, size, frames,
                                                 "cycle", d / "live-cycle")
            cap_cpu, _, e2 = live_run(glm, launcher, x.display, scene, size, frames,
                                      "functional", d / "live-capture", capture=cap)
            base_cpu, _, e3 = live_run(glm, launcher, x.display, scene, size, frames,
                                       "functional", d / "live-functional")
            rep = subprocess.run([str(SIM), "replay", str(cap), "--mode", "cycle", "--no-png",
                                  "-o", str(d / "replay")], capture_output=True, text=True)
            r["error"] = e1 or e2 or e3 or (None if rep.returncode == 0 else
                                            f"replay exited {rep.returncode}: "
                                            f"{rep.stderr.strip()[:200]}")
            man = json.loads((cap / "manifest.json").read_text()) \
                if (cap / "manifest.json").exists() else {}
            r["capture_bytes"] = sum(f.stat().st_size for f in cap.rglob("*") if f.is_file()) \
                if cap.exists() else 0
            for k in ("frames", "submits", "blobs", "blob_bytes", "pages_recorded",
                      "page_bytes_recorded", "log_bytes", "complete"):
                r[k] = man.get(k)
            fj = d / "replay" / "frames.jsonl"
            rframes = [json.loads(line) for line in fj.read_text().splitlines()] \
                if fj.exists() else []
            measured = range(1, frames + 1)

            def med(per):
                v = [per[f] for f in measured if f in per]
                return statistics.median(v) if v else None
            replay_cpu = {f["frame"]: f["cpu_ms"] for f in rframes}
            r["live_cpu_ms"] = med(live_cpu)
            r["replay_cpu_ms"] = med(replay_cpu)
            r["live_frame0_cpu_ms"] = live_cpu.get(0)
            r["replay_frame0_cpu_ms"] = replay_cpu.get(0)
            cap_ms, base_ms = med(cap_cpu), med(base_cpu)
            r["capture_overhead"] = cap_ms / base_ms - 1 if cap_ms and base_ms else None
            r["live_cycles"] = live_cycles
            r["replay_cycles"] = [f["cycles"] for f in rframes]
            # frames 1..N: the driver's frame 0 row leaves out submits it keeps no draw
            # records of (a lone SYNC's 25 cycles; docs/capture.md "Exactness")
            r["cycles_equal"] = len(live_cycles) == frames + 1 and \
                live_cycles[1:] == r["replay_cycles"][1:]
            # the off-screen frame's image (vlg_drm_set_frame_image) compared by the replay
            r["images"] = sum(f["images"] for f in rframes)
            r["images_differing"] = sum(f["images_differing"] for f in rframes)
            r["pixels_equal"] = r["images"] >= len(rframes) > 0 and r["images_differing"] == 0
            r["seconds"] = time.monotonic() - t0
            results.append(r)
            progress(f"{scene}: capture {r['capture_bytes'] / 1e6:.2f} MB, live "
                     f"{r['live_cpu_ms'] or 0:.0f} ms/frame, replay "
                     f"{r['replay_cpu_ms'] or 0:.0f} ms/frame, cycles equal: "
                     f"{r['cycles_equal']}{', ERROR ' + r['error'] if r['error'] else ''} "
                     f"({r['seconds']:.0f} s)")
    return results


def table(results):
    """(headers, rows of strings) for the printed and the markdown table."""
    headers = ["scene", "frames", "submits", "capture MB", "blobs", "MB recorded",
               "frame 0 CPU ms live / replay", "live CPU ms/frame", "replay CPU ms/frame",
               "replay/live",
               "capture overhead", "replay cycles = live (frames 1-N)",
               "replay pixels = live"]
    rows = []
    for r in results:
        ratio = r["replay_cpu_ms"] / r["live_cpu_ms"] \
            if r["replay_cpu_ms"] and r["live_cpu_ms"] else None
        rows.append([r["scene"], str(r["frames"]), str(r["submits"]),
                     f"{r['capture_bytes'] / 1e6:.2f}", str(r["blobs"]),
                     f"{(r['page_bytes_recorded'] or 0) / 1e6:.1f}",
                     f"{r['live_frame0_cpu_ms'] or 0:.0f} / {r['replay_frame0_cpu_ms'] or 0:.0f}",
                     f"{r['live_cpu_ms']:.1f}" if r["live_cpu_ms"] else "-",
                     f"{r['replay_cpu_ms']:.1f}" if r["replay_cpu_ms"] else "-",
                     f"{ratio:.2f}" if ratio else "-",
                     f"{100 * r['capture_overhead']:+.0f}%"
                     if r["capture_overhead"] is not None else "-",
                     "yes" if r["cycles_equal"] else
                     f"NO: {r['live_cycles'][1:]} vs {r['replay_cycles'][1:]}",
                     "yes" if r["pixels_equal"] else
                     f"NO: {r['images_differing']} of {r['images']} images differ"])
    return headers, rows
