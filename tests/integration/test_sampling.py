"""scripts/sampling.py, the sampled run's estimator: its arithmetic on hand-made rows, its
bias and interval coverage over 2000 random plans of a synthetic run (the truth is the
test's own sum), its errors; then a real sampled run of glmark2's build scene
(VLGPU_SAMPLE) against the plain cycle-mode run of the same frames."""

import json
import math
import random
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from vlgpu_testlib import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import sampling  # noqa: E402


def row(frame, cycles, role, block):
    return {"frame": frame, "cycles": cycles, "sample": role, "sample_block": block}


def sampled_rows(cycles, period, warmup, rng, skip=False):
    """The rows a sampled run of frames with true CYCLES would give: frame 0 measured, one
    measured frame per block at a random position >= WARMUP (rng), the WARMUP before it
    timed, the others with no cycles (as frame_sampling.h plans)."""
    rows = [row(0, cycles[0], "measured", -1)]
    n = len(cycles)
    for b in range((n - 1 + period - 1) // period):
        first = 1 + b * period
        m = first + rng.randrange(warmup, period)
        for f in range(first, min(first + period, n)):
            if f == m:
                rows.append(row(f, cycles[f], "measured", b))
            elif m - warmup <= f < m:
                rows.append(row(f, cycles[f] + 500, "warmup", b))  # stale caches: not used
            else:
                rows.append(row(f, 0, "skipped" if skip else "functional", b))
    return rows


class Arithmetic(unittest.TestCase):
    def test_every_frame_measured_is_exact(self):
        rows = [row(0, 70, "measured", -1)] + [row(f, 10 * f, "measured", f - 1)
                                                for f in range(1, 6)]
        e = sampling.estimate(rows)
        self.assertEqual(e["estimate"], 70 + 10 * (1 + 2 + 3 + 4 + 5))
        self.assertEqual(e["variance"], 0.0)
        self.assertEqual((e["low"], e["high"]), (e["estimate"], e["estimate"]))

    def test_strata_scale_their_measured_frame_and_pairs_give_the_variance(self):
        # frame 0: 100; block 0 (frames 1-4) measures 10; block 1 (5-8) measures 30
        rows = ([row(0, 100, "measured", -1), row(1, 0, "functional", 0),
                 row(2, 11, "warmup", 0), row(3, 10, "measured", 0), row(4, 0, "functional", 0)]
                + [row(5, 33, "warmup", 1), row(6, 30, "measured", 1), row(7, 0, "skipped", 1),
                   row(8, 0, "skipped", 1)])
        e = sampling.estimate(rows)
        self.assertEqual(e["estimate"], 100 + 4 * 10 + 4 * 30)
        # one pair: 2/1 * sum (1 - 1/4) (4 y_h - 4 * 160 / 8)^2 = 2 * 0.75 * (40^2 + 40^2)
        self.assertAlmostEqual(e["variance"], 2 * 0.75 * (40 ** 2 + 40 ** 2))
        self.assertEqual(e["df"], 1)
        half = 12.706204736174698 * math.sqrt(e["variance"])  # t(0.975, 1)
        self.assertAlmostEqual(e["low"], 260 - half, places=3)
        self.assertAlmostEqual(e["high"], 260 + half, places=3)
        # frames 1..8 only (frame 0 outside the range)
        self.assertEqual(sampling.estimate(rows, first=1)["estimate"], 160)

    def test_a_block_cut_before_its_measured_frame_joins_the_one_before(self):
        rows = [row(0, 100, "measured", -1), row(1, 20, "measured", 0), row(2, 0, "functional", 0),
                row(3, 40, "measured", 1), row(4, 0, "functional", 1),
                row(5, 0, "functional", 2)]  # block 2 cut: frames 5.. never measured
        e = sampling.estimate(rows)
        self.assertEqual(e["estimate"], 100 + 2 * 20 + 3 * 40)
        self.assertEqual(e["frames"], 6)

    def test_a_frame_without_a_submit_is_a_known_zero(self):
        # frame 2 had no submit: no role, 0 cycles; block 0 is frames 1 and 3 then
        rows = [row(0, 100, "measured", -1), row(1, 20, "measured", 0),
                {"frame": 2, "cycles": 0, "sample": "", "sample_block": -1},
                row(3, 0, "functional", 0)]
        e = sampling.estimate(rows)
        self.assertEqual(e["estimate"], 100 + 2 * 20)
        self.assertEqual(e["frames"], 4)

    def test_rows_of_a_run_that_is_not_sampled_are_refused(self):
        with self.assertRaisesRegex(sampling.SamplingError, "not a sampled run"):
            sampling.estimate([row(0, 5, "", -1), row(1, 5, "", -1)])
        with self.assertRaisesRegex(sampling.SamplingError, "not a sampled run"):
            sampling.estimate([row(0, 0, "", -1), row(1, 0, "", -1)])
        with self.assertRaisesRegex(sampling.SamplingError, "2 measured frames"):
            sampling.estimate([row(0, 5, "measured", -1), row(1, 5, "measured", 0),
                               row(2, 5, "measured", 0)])


class Coverage(unittest.TestCase):
    def test_unbiased_and_the_95_percent_interval_covers_the_truth(self):
        """A synthetic run of 1 + 240 frames (a slow animation, a periodic spike every 17
        frames, noise): 2000 random plans of PERIOD 20, WARMUP 1.  The mean estimate is the
        truth within 4 standard errors of the mean, and the 95 % interval holds the truth in
        at least 93 % of the plans (the collapsed estimator is conservative)."""
        rng = random.Random(20261129)
        cycles = [400000] + [int(100000 + 30000 * math.sin(f / 25.0) + (40000 if f % 17 == 0
                                                                          else 0)
                                 + rng.gauss(0, 5000)) for f in range(1, 241)]
        truth = sum(cycles)
        ests, halves, inside = [], [], 0
        for _ in range(2000):
            e = sampling.estimate(sampled_rows(cycles, 20, 1, rng))
            ests.append(e["estimate"])
            halves.append((e["high"] - e["low"]) / 2)
            inside += e["low"] <= truth <= e["high"]
        mean = sum(ests) / len(ests)
        sd = math.sqrt(sum((x - mean) ** 2 for x in ests) / (len(ests) - 1))
        self.assertLess(abs(mean - truth), 4 * sd / math.sqrt(len(ests)),
                        f"mean estimate {mean:.0f}, truth {truth}, sd {sd:.0f}")
        self.assertGreaterEqual(inside / 2000, 0.93, f"coverage {inside / 2000:.3f}")
        # nor vacuous: the median half-width is within 0.8-2.5x the 1.96 standard
        # deviations the estimates really spread over (conservative, not arbitrary)
        ratio = sorted(halves)[len(halves) // 2] / (1.96 * sd)
        self.assertTrue(0.8 <= ratio <= 2.5, f"median half-width / 1.96 sd = {ratio:.2f}")

    def test_combined_runs_add_their_estimates_and_variances(self):
        rng = random.Random(7)
        runs = [sampling.estimate(sampled_rows([50] + [10 + (f % 5) for f in range(1, 61)],
                                               10, 1, rng)) for _ in range(3)]
        c = sampling.combine(runs)
        self.assertEqual(c["estimate"], sum(r["estimate"] for r in runs))
        self.assertAlmostEqual(c["variance"], sum(r["variance"] for r in runs))
        # Welch-Satterthwaite: equal variances of 3 df each give 3 x 3 = 9 df
        self.assertAlmostEqual(sampling.satterthwaite_df([(4.0, 3), (4.0, 3), (4.0, 3)]), 9.0)
        # one dominant variance keeps about its own df
        self.assertLess(sampling.satterthwaite_df([(100.0, 2), (0.01, 50)]), 2.01)
        self.assertIsNone(sampling.satterthwaite_df([(0.0, 3), (0.0, None)]))
        from scipy import stats
        half = stats.t.ppf(0.975, c["df"]) * math.sqrt(c["variance"])
        self.assertAlmostEqual(c["high"] - c["estimate"], half)
        # the mean of the three: a third of the sum, a ninth of its variance, the same df
        m = sampling.mean(runs)
        self.assertAlmostEqual(m["estimate"], c["estimate"] / 3)
        self.assertAlmostEqual(m["variance"], c["variance"] / 9)
        self.assertAlmostEqual(m["df"], c["df"])
        self.assertAlmostEqual(m["high"] - m["estimate"], half / 3)


class GlmarkSampled(unittest.TestCase):
    """`./vlgpu bench glmark2 --modes cycle,sampled` on the build scene, 20 frames at 200x150,
    plan 5:0,skip: 4 blocks of 5 frames, one measured frame each, the rest skipped."""

    def test_sampled_run_estimates_the_cycle_runs_frames(self):
        self.assertTrue(shutil.which("glmark2-es2"), "glmark2-es2 missing (./vlgpu setup)")
        with tempfile.TemporaryDirectory(dir=ROOT / "out") as d:
            r = subprocess.run([str(ROOT / "vlgpu"), "bench", "glmark2", "--scenes",
                                "build:use-vbo=false", "--modes", "cycle,sampled", "--frames",
                                "20", "--reps", "1", "--size", "200x150", "--sample",
                                "5:0,skip", "--out", d, "--no-plots"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=300)
            self.assertEqual(r.returncode, 0, r.stdout)
            doc = json.loads((Path(d) / "glmark2.json").read_text())
            md = (Path(d) / "glmark2.md").read_text()
        runs = {x["mode"]: x for x in doc["runs"]}
        cyc = [f["cycles"] for f in runs["cycle"]["frames"]]
        smp = runs["sampled"]["frames"]
        self.assertEqual([f["frame"] for f in smp], list(range(1, 21)))
        roles = [f["sample"] for f in smp]
        self.assertEqual(roles.count("measured"), 4, roles)
        self.assertEqual(roles.count("skipped"), 16, roles)
        for b in range(4):  # one measured frame per block of frames 1+5b .. 5+5b
            self.assertEqual([f["sample"] for f in smp[5 * b:5 * b + 5]].count("measured"), 1)
            self.assertTrue(all(f["sample_block"] == b for f in smp[5 * b:5 * b + 5]))
        for f in smp:
            if f["sample"] == "skipped":
                self.assertEqual(f["cycles"], 0, f)
            else:  # timed after skipped frames: within 2 % of the same frame timed in a row
                self.assertAlmostEqual(f["cycles"] / cyc[f["frame"] - 1], 1.0, delta=0.02)
        sc = doc["sampled"]["scenes"][0]
        self.assertEqual(sc["true_cycles"], sum(cyc))
        # the estimate is 5 x the four measured frames: between 20 x the cycle run's
        # smallest and largest frame (2 % for the warm-up the skipped frames cost)
        self.assertEqual(sc["estimate"], 5 * sum(f["cycles"] for f in smp
                                                 if f["sample"] == "measured"))
        self.assertTrue(20 * min(cyc) * 0.98 <= sc["estimate"] <= 20 * max(cyc) * 1.02, sc)
        self.assertIsNotNone(sc["low"])
        self.assertLess(sc["low"], sc["high"])
        self.assertIn("| build:use-vbo=false | ", md)


if __name__ == "__main__":
    unittest.main()
