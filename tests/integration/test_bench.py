"""Smoke test of `./vlgpu bench` (scripts/bench.py): a tiny glmark2 run (the
two build scenes, 2 measured frames, 1 repetition, vlgpu functional mode)
must finish and write the CSV/JSON it documents; bad options fail with exit
code 2; the aggregation (medians, ratios, cycles per CPU second, weighted busy
fractions) is checked on hand-made runs with values worked out by hand."""

import csv
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from vlgpu_testlib import ROOT, find_program

sys.path.insert(0, str(ROOT / "scripts"))


def bench(*args, timeout=120):
    return subprocess.run([str(ROOT / "vlgpu"), "bench", *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=timeout)


@unittest.skipUnless(find_program("glmark2-es2"), "glmark2-es2 not installed")
class BenchGlmark2SmokeTest(unittest.TestCase):
    def test_build_scenes_functional(self):
        with tempfile.TemporaryDirectory(dir=ROOT / "out") as d:
            r = bench("glmark2", "--scenes", "build", "--frames", "2", "--reps", "1",
                      "--modes", "functional", "--out", d, "--no-plots")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(Path(d) / "glmark2.csv") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual([(x["scene"], x["mode"]) for x in rows],
                             [("build:use-vbo=false", "functional"),
                              ("build:use-vbo=true", "functional")])
            for x in rows:
                self.assertEqual(x["frames_measured"], "2")
                self.assertEqual(x["failed_runs"], "0")
                self.assertGreater(float(x["wall_ms_median"]), 0.0)
                self.assertLessEqual(float(x["wall_ms_min"]), float(x["wall_ms_median"]))
                self.assertLessEqual(float(x["wall_ms_median"]), float(x["wall_ms_max"]))
                self.assertGreater(float(x["cpu_ms_median"]), 0.0)
                # glmark2 with Mesa loaded needs more than 10 MiB resident
                self.assertGreater(float(x["peak_rss_mib"]), 10.0)
                self.assertEqual(x["cycles_per_frame"], "")  # functional mode: no timing
            with open(Path(d) / "glmark2-frames.csv") as f:
                frames = list(csv.DictReader(f))
            self.assertEqual(len(frames), 4)
            self.assertEqual(sorted({int(x["frame"]) for x in frames}), [1, 2])
            doc = json.loads((Path(d) / "glmark2.json").read_text())
            self.assertEqual(len(doc["runs"]), 2)
            self.assertEqual(doc["options"]["frames"], 2)
            self.assertIn("cpu_model", doc["machine"])
            self.assertTrue(all(len(run["frames"]) == 2 for run in doc["runs"]))
            self.assertIn("build:use-vbo=true", (Path(d) / "glmark2.txt").read_text())

    def test_bad_options(self):
        r = bench("glmark2", "--modes", "llvmpipe", "--out", "/tmp")
        self.assertEqual(r.returncode, 2)
        self.assertIn("llvmpipe", r.stderr)
        r = bench("glmark2", "--size", "800", "--out", "/tmp")
        self.assertEqual(r.returncode, 2)
        self.assertIn("WxH", r.stderr)


@unittest.skipUnless(find_program("glmark2-es2"), "glmark2-es2 not installed")
@unittest.skipUnless(find_program("glmark2-es2"), "glmark2-es2 not installed")
class BenchCaptureSmokeTest(unittest.TestCase):
    """`bench capture` on the build scene at 160x120, frames 0-2: a capture is made and
    replayed, and the replay's cycles equal the live cycle-mode run's (frames 1-2)."""

    def test_build(self):
        with tempfile.TemporaryDirectory(dir=ROOT / "out") as d:
            r = bench("capture", "--scenes", "build", "--frames", "2", "--size", "160x120",
                      "--out", d)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            res = json.loads((Path(d) / "capture.json").read_text())["results"]
            self.assertEqual(len(res), 1)
            b = res[0]
            self.assertIsNone(b["error"])
            self.assertEqual((b["frames"], b["complete"]), (3, True))
            self.assertGreater(b["capture_bytes"], b["blob_bytes"])
            self.assertEqual(len(b["live_cycles"]), 3)
            self.assertTrue(all(c > 0 for c in b["live_cycles"]), b["live_cycles"])
            self.assertEqual(b["live_cycles"][1:], b["replay_cycles"][1:])
            # every frame's off-screen image compared with the live run's
            self.assertEqual((b["images"], b["images_differing"]), (3, 0))
            self.assertGreater(b["live_cpu_ms"], 0)
            self.assertGreater(b["replay_cpu_ms"], 0)


class BenchCompilerCycleSmokeTest(unittest.TestCase):
    """`bench compiler --cycle` on the scene whose fragment shader's issue time is its frame
    (a uniform loop; docs/compiler.md "The optimisations in simulated cycles"): with
    dual-phase pairing off (VLGPU_DEBUG=nodual) the frame takes more simulated cycles."""

    def test_nodual_costs_cycles_where_the_spcs_are_the_limit(self):
        scene = "loop:fragment-steps=5:fragment-uniform=true:vertex-steps=5"
        with tempfile.TemporaryDirectory(dir=ROOT / "out") as d:
            r = bench("compiler", "--cycle", "--scenes", scene, "--switches", "nodual",
                      "--no-static", "--size", "320x240", "--out", d)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(Path(d) / "compiler-cycle.csv") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual([x["scene"] for x in rows], [scene])
            on, off = int(rows[0]["cycles_all_on"]), int(rows[0]["cycles_nodual"])
            self.assertGreater(off, on)
            self.assertAlmostEqual(float(rows[0]["pct_nodual"]), (on - off) / off * 100, places=6)
            self.assertIn("| `nodual` | 1 |", (Path(d) / "compiler-cycle.md").read_text())

    def test_unknown_switch(self):
        r = bench("compiler", "--cycle", "--switches", "no-dual", "--out", "/tmp")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown", r.stderr)


class BenchAggregationTest(unittest.TestCase):
    def test_summarize(self):
        import bench as b

        def run(scene, mode, walls, cpus, cycles=None, busy=None, ok=True, rss=100.0):
            frames = []
            for i, (w, c) in enumerate(zip(walls, cpus)):
                f = {"frame": i + 1, "wall_ms": w, "cpu_ms": c}
                if cycles:
                    f["cycles"] = cycles[i]
                    f["busy_spc"] = busy[i]
                frames.append(f)
            return {"scene": scene, "mode": mode, "frames": frames, "ok": ok,
                    "error": None if ok else "exit code 1", "peak_rss_mib": rss}

        runs = [run("s", "softpipe", [10.0, 30.0], [8.0, 12.0], rss=120.0),
                run("s", "cycle", [100.0, 300.0], [50.0, 150.0], cycles=[1000, 3000],
                    busy=[1.0, 0.5], rss=40.0),
                run("s", "softpipe", [20.0], [10.0], rss=130.0),
                run("s", "cycle", [200.0], [100.0], cycles=[2000], busy=[0.0], rss=45.0)]
        rows = b.summarize(runs, ["softpipe", "cycle"])
        sp, cy = rows
        self.assertEqual(sp["wall_ms_median"], 20.0)  # median of 10, 30, 20
        self.assertEqual(sp["peak_rss_mib"], 130.0)
        self.assertEqual(cy["wall_ms_median"], 200.0)
        self.assertAlmostEqual(cy["ratio_wall"], 10.0)  # 200 / 20
        self.assertAlmostEqual(cy["ratio_cpu"], 10.0)  # 100 / 10
        self.assertEqual(cy["cycles_per_frame"], 2000)
        # 6000 cycles in 0.3 CPU seconds
        self.assertAlmostEqual(cy["sim_cycles_per_cpu_s"], 20000.0)
        # (1.0*1000 + 0.5*3000 + 0.0*2000) / 6000
        self.assertAlmostEqual(cy["busy_spc"], 2500.0 / 6000.0)
        self.assertEqual(cy["frames_measured"], 3)

        # with functional mode: cycle's median CPU ms over functional's (100 / 25)
        runs.append(run("s", "functional", [30.0, 40.0], [20.0, 30.0], rss=50.0))
        o = b.overall(b.summarize(runs, ["softpipe", "functional", "cycle"]),
                      ["softpipe", "functional", "cycle"])
        self.assertAlmostEqual(o["cycle"]["median_ratio_to_functional_cpu"], 4.0)
        self.assertNotIn("median_ratio_to_functional_cpu", o["functional"])

    def test_sampled_summary(self):
        """Mode sampled against mode cycle: the estimate of frames 1..4 from the measured
        frames (blocks of 2: 2 x 30 + 2 x 50), the truth from the cycle run (10+30+40+50),
        the CPU speed-up (sum over sum) and each measured frame against the same frame
        timed in a row."""
        import bench as b

        def run(mode, cycles, cpus, roles=None):
            frames = [{"frame": i + 1, "wall_ms": c, "cpu_ms": c, "cycles": y}
                      for i, (y, c) in enumerate(zip(cycles, cpus))]
            for f, r in zip(frames, roles or []):
                f["sample"], f["sample_block"] = r, (f["frame"] - 1) // 2
            return {"scene": "s", "mode": mode, "frames": frames, "ok": True, "error": None}

        runs = [run("cycle", [10, 30, 40, 50], [40.0, 40.0, 40.0, 40.0]),
                run("sampled", [0, 33, 0, 50], [1.0, 41.0, 1.0, 37.0],
                    ["skipped", "measured", "skipped", "measured"])]
        sm = b.sampled_summary(runs, ["s"])
        r = sm["scenes"][0]
        self.assertEqual(r["true_cycles"], 130)
        self.assertEqual(r["estimate"], 2 * 33 + 2 * 50)
        self.assertAlmostEqual(r["error_pct"], 100 * (166 - 130) / 130)
        self.assertAlmostEqual(r["speedup"], 160.0 / 80.0)
        self.assertEqual(r["timed_frames"], 2)
        self.assertAlmostEqual(r["frame_deviation_pct"][0], 10.0)  # 33 vs 30
        self.assertAlmostEqual(r["frame_deviation_pct"][1], 0.0)
        t = sm["total"]
        self.assertEqual((t["estimate"], t["true_cycles"]), (166, 130))
        self.assertAlmostEqual(t["max_abs_frame_deviation_pct"], 10.0)
        # one pair of blocks: (2 x 33 - 2 x 83 / 2)^2 + (2 x 50 - 83)^2 = 2 x 17^2, x 2/1 x 1/2
        self.assertAlmostEqual((r["high"] - r["estimate"]) ** 2
                               / 12.706204736174698 ** 2, 2 * 17 ** 2, places=3)
        self.assertIn("| s | 0.000 | 0.000 | +27.69 % |", "\n".join(b.sampled_markdown(
            {"sampled": sm, "options": {"sample": "2:0,skip", "frames": 4}})))

    def test_doc_sections(self):
        """--doc rewrites exactly the marked parts of a file with the run's figures, keeps
        the rest, and refuses a file without markers."""
        import bench as b
        doc = {"command": "./vlgpu bench glmark2 --scenes s",
               "machine": {"date": "2026-01-01 00:00:00 UTC", "git_head": "abc1234",
                           "loadavg_at_start": [0.5, 0.25, 0.0], "nproc": 2,
                           "cpu_model": "CPU"},
               "options": {"scenes": ["s"], "modes": ["softpipe", "cycle"], "reps": 1,
                           "frames": 1, "size": "80x60"},
               "duration_s": 61.0,
               # as overall() makes it: cycle 10x softpipe, 2 M cycles per CPU second
               "summary": {"cycle": {"scenes": 1, "median_ratio_cpu": 10.0,
                                     "median_ratio_wall": 12.5, "geomean_ratio_cpu": 10.0,
                                     "scenes_at_least_as_fast_cpu": 0,
                                     "median_sim_cycles_per_cpu_s": 2e6,
                                     "min_sim_cycles_per_cpu_s": 2e6,
                                     "max_sim_cycles_per_cpu_s": 2e6}},
               "scenes": []}
        with tempfile.TemporaryDirectory() as d:
            f = Path(d) / "doc.md"
            f.write_text("keep 1\n<!-- BEGIN bench glmark2 summary -->\nold\n"
                         "<!-- END bench glmark2 summary -->\nkeep 2\n"
                         "<!-- BEGIN bench glmark2 -->\nold\n<!-- END bench glmark2 -->\n")
            self.assertEqual(b.write_doc_sections([f], b.glmark2_doc_sections(doc), "t"), 0)
            text = f.read_text()
            self.assertNotIn("old", text)
            self.assertIn("keep 1", text)
            self.assertIn("keep 2", text)
            self.assertIn("cycle mode 10.00x softpipe's CPU time per frame at 2.00 M simulated "
                          "cycles per CPU second", text)
            self.assertIn("commit abc1234, 1m01s, 1 scenes at 80x60", text)
            # no functional run: no ratio to it
            self.assertIn("| cycle | **10.00** | 12.50 | 10.00 | 0 of 1 | - | 2.00 M (2.00-2.00 M) |",
                          text)
            bare = Path(d) / "bare.md"
            bare.write_text("no markers\n")
            self.assertEqual(b.write_doc_sections([bare], b.glmark2_doc_sections(doc), "t"), 1)
            self.assertEqual(bare.read_text(), "no markers\n")

    def test_select_scenes(self):
        import bench as b
        self.assertEqual(b.select_scenes(["build"]), ["build:use-vbo=false", "build:use-vbo=true"])
        self.assertEqual(b.select_scenes(["terrain"]), ["terrain"])
        self.assertEqual(b.select_scenes(["build:use-vbo=true"]), ["build:use-vbo=true"])
        self.assertEqual(len(b.select_scenes(None)), 33)
        self.assertEqual(b.select_scenes(["ideas:speed=10"]), ["ideas:speed=10"])


if __name__ == "__main__":
    unittest.main()


class BenchMemoryParseTest(unittest.TestCase):
    def test_read_measurements(self):
        """bench memory reads record_measurement()'s gtest properties (units_test_util.h):
        key 'measure: WHAT @ CONFIG', value JSON; other properties are ignored."""
        import bench as b
        doc = {"testsuites": [{"name": "CopyTiming", "testsuite": [
            {"name": "BufferCopy", "status": "RUN", "other": "x",
             "measure: 32 MiB COPY @ memory.bandwidth_bytes_per_cycle=8":
                 json.dumps({"cycles": 110, "bound": 100.0, "bound_is": "bytes / bw"}),
             "measure: 32 MiB COPY @ a=1,b=2":
                 json.dumps({"cycles": 50, "bound": 40.0, "bound_is": "lines"})}]}]}
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "g.json"
            p.write_text(json.dumps(doc))
            rows = b.read_measurements(p)
        self.assertEqual([(r["what"], r["config"], r["cycles"]) for r in rows],
                         [("32 MiB COPY", "memory.bandwidth_bytes_per_cycle=8", 110),
                          ("32 MiB COPY", "a=1,b=2", 50)])
        self.assertAlmostEqual(rows[0]["ratio"], 1.1)
        self.assertAlmostEqual(rows[1]["ratio"], 1.25)
        self.assertEqual(rows[0]["test"], "CopyTiming.BufferCopy")


class BenchTwoThreadBoundTest(unittest.TestCase):
    def test_bound(self):
        """The two-thread bound: half the work per thread plus one barrier per cycle."""
        import bench as b
        self.assertAlmostEqual(b.two_thread_bound(400.0, 0.0), 2.0)     # free barrier
        self.assertAlmostEqual(b.two_thread_bound(400.0, 200.0), 1.0)   # barrier = half
        self.assertAlmostEqual(b.two_thread_bound(400.0, 50.0), 1.6)    # 400 / 250
        self.assertLess(b.two_thread_bound(300.0, 300.0), 1.0)          # a slow-down

    @unittest.skipUnless(Path(ROOT / "build/standalone/bench/sim/bench_core").exists(),
                         "bench_core not built (Google Benchmark missing)")
    def test_measure_barrier(self):
        """BM_TwoThreadCycleBarrier runs and reports a positive time per cycle."""
        import bench as b
        ns = b.measure_barrier()
        self.assertIsNotNone(ns)
        self.assertGreater(ns, 0.0)


class Glmark2FullBenchmarkParseTest(unittest.TestCase):
    def test_fake_glmark2_output(self):
        """--full-benchmark parses glmark2's per-scene FPS/FrameTime lines and score on
        both drivers; a vlgpu run that leaves no statistics (this fake glmark2 draws
        nothing) is not clean: exit code 1, said in the summary."""
        with tempfile.TemporaryDirectory() as d:
            fake = Path(d) / "glmark2-es2"
            fake.write_text("#!/bin/sh\n"
                            "echo '[build] use-vbo=false: FPS: 11 FrameTime: 90.909 ms'\n"
                            "echo '[jellyfish] <default>: FPS: 2 FrameTime: 500.000 ms'\n"
                            "echo '                                  glmark2 Score: 7'\n")
            fake.chmod(0o755)
            r = subprocess.run([str(ROOT / "vlgpu"), "glmark2", "--", "--full-benchmark",
                                "--glmark2", str(fake), "--out", d], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=120)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            runs = json.loads((Path(d) / "full-benchmark.json").read_text())
        for drv in ("vlgpu", "softpipe"):
            self.assertEqual(runs[drv]["score"], 7)
            self.assertEqual(runs[drv]["scenes"],
                             [{"scene": "build:use-vbo=false", "fps": 11, "frame_ms": 90.909},
                              {"scene": "jellyfish", "fps": 2, "frame_ms": 500.0}])
        self.assertEqual(runs["vlgpu"]["frames"], 0)
        self.assertIn("did not run cleanly (vlgpu: no frame in its statistics file)", r.stdout)
        self.assertIn("| `jellyfish` | 2 | 0.50 | 2 | 0.50 | 1.00 |", r.stdout)
