"""Statistics (VLGPU_STATS, VLGPU_DEBUG=stats; docs/driver.md "Statistics"):
the draws a GL program makes are counted per frame and per draw, with the
simulator's counters.  vlg_scenes' "blendedit" makes exactly 3 draw calls in
one frame: two CLEAR draws (the program's reset and the scene's glClear)
and one 4-vertex GL_TRIANGLE_STRIP whose quad covers half the pbuffer's
width and height (160x120: 80x60 = 4800 fragments)."""

import csv
import json
import unittest

import driverlib
from driverlib import run_on


class StatsTest(unittest.TestCase):
    def run_blendedit(self, env):
        out = driverlib.tempdir("stats")
        r = run_on("vlgpu", [str(driverlib.scenes_program()), str(out), "blendedit"],
                   env={k: v.replace("{out}", str(out)) for k, v in env.items()})
        self.assertEqual(r.returncode, 0, r.stderr)
        return out, r

    def check_draw_rows(self, draws):
        self.assertEqual([d["kind"] for d in draws], ["CLEAR", "CLEAR", "TRIANGLE_STRIP"])
        quad = draws[2]
        self.assertEqual(int(quad["count"]), 4)
        self.assertEqual(int(quad["vertices_shaded"]), 4)
        self.assertEqual(int(quad["primitives"]), 2)
        self.assertEqual(int(quad["fragments"]), 80 * 60)
        self.assertEqual(int(quad["fragments_passed"]), 80 * 60)
        self.assertGreater(int(quad["fs_instructions"]), 0)

    def test_csv(self):
        out, _ = self.run_blendedit({"VLGPU_STATS": "{out}/stats.csv"})
        frames = list(csv.DictReader(open(out / "stats.csv")))
        draws = list(csv.DictReader(open(out / "stats.draws.csv")))
        self.assertEqual(len(frames), 1)
        self.assertEqual(int(frames[0]["draws"]), 3)
        self.assertEqual(int(frames[0]["clears"]), 2)
        self.check_draw_rows(draws)
        # Device-wide draw numbers, as VLGPU_DUMP_DRAWS counts them.
        self.assertEqual([int(d["draw"]) for d in draws], [0, 1, 2])

    def test_jsonl_and_cycles(self):
        out, _ = self.run_blendedit({"VLGPU_STATS": "{out}/stats.jsonl"})
        frames = [json.loads(line) for line in open(out / "stats.jsonl")]
        self.assertEqual(len(frames), 1)
        f = frames[0]
        self.assertEqual(f["draws"], 3)
        rows = []
        for d in f["draw_list"]:
            c = d["counters"]
            rows.append({"kind": d["kind"], "count": d.get("count", 0),
                         "vertices_shaded": c["vs"]["invocations"],
                         "primitives": c["ge"]["primitives"], "fragments": c["pe"]["fragments"],
                         "fragments_passed": c["omu"]["fragments_passed"],
                         "fs_instructions": c["fs"]["instructions"]})
        self.check_draw_rows(rows)
        if f["mode"] == "cycle":
            # Every draw takes time on the modelled GPU, and the modules
            # report how busy they were.
            self.assertTrue(all(d["cycles"] > 0 for d in f["draw_list"]))
            self.assertGreater(f["cycles"], 0)
            self.assertTrue(f["module_utilisation"])
            # Fractions of the frame's cycles: each in [0, 1], and together
            # at most 1 (the rest is idle).
            for name, m in f["module_utilisation"].items():
                parts = [m["busy"], m["stalled"], m["starved"]]
                self.assertTrue(all(0.0 <= p <= 1.0 for p in parts), (name, m))
                self.assertLessEqual(sum(parts), 1.0 + 1e-9, (name, m))
            # The bottleneck report (docs/simulator.md): every cycle of the
            # frame charged to one cause, and of each draw to one cause.
            self.assertEqual(sum(f["bottleneck"].values()), f["cycles"], f["bottleneck"])
            for d in f["draw_list"]:
                self.assertEqual(sum(d["modules"]["bottleneck"].values()), d["cycles"])

    def test_csv_bottleneck_columns(self):
        """Cycle mode: frames.csv's cause_* fractions add up to 1 and
        `bottleneck` names the largest; every draw row names its own."""
        out, _ = self.run_blendedit({"VLGPU_STATS": "{out}/stats.csv",
                                     "VLGPU_DEBUG": "cycle"})
        frames = list(csv.DictReader(open(out / "stats.csv")))
        draws = list(csv.DictReader(open(out / "stats.draws.csv")))
        causes = {k[len("cause_"):]: float(v) for k, v in frames[0].items()
                  if k.startswith("cause_")}
        self.assertIn("mc_bandwidth", causes)
        self.assertIn("idle", causes)
        self.assertAlmostEqual(sum(causes.values()), 1.0, delta=len(causes) * 1e-4)
        top = max(causes, key=causes.get)
        self.assertEqual(frames[0]["bottleneck"], top)
        self.assertAlmostEqual(float(frames[0]["bottleneck_share"]), causes[top], places=4)
        self.assertTrue(all(d["bottleneck"] in causes for d in draws), draws)

    def test_debug_stats_lines(self):
        _, r = self.run_blendedit({"VLGPU_DEBUG": "stats"})
        lines = [l for l in r.stderr.splitlines() if l.startswith("vlgpu: frame 0")]
        self.assertEqual(len(lines), 4, r.stderr)  # 3 draws + the frame line
        self.assertIn("TRIANGLE_STRIP 4 x1", lines[2])
        self.assertIn("4800 fragments (4800 passed)", lines[2])
        self.assertRegex(lines[3], r"frame 0: 3 draws \(2 clears\)")


if __name__ == "__main__":
    unittest.main()
