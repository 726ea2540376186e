"""`./vlgpu sweep` (scripts/sweep.py, docs/sweeps.md) for real: a grid of two
glmark2 scenes x (2 SPC counts x 2 memory bandwidths) at 160x120, frames 0-1,
run by the local executor, rerun (every point skipped), then through
`--slurm` on a one-node Slurm cluster started here (slurm_cluster.py:
munged, slurmctld -D, slurmd -D); the Slurm results must equal the local
ones in every simulated figure.  Slurm that cannot start fails the test with
the reason and the daemons' logs, never skips it (the packages are in the
launcher's APT_PACKAGES)."""

import csv
import json
import shutil
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from slurm_cluster import OneNodeCluster
from vlgpu_testlib import ROOT

GRID = """
[sweep]
name = "test-2x2"
size = "160x120"
frames = "0-1"

[configurations]
combine = "cross"
[configurations.keys]
spcs_per_gpc = [2, 4]
"memory.bandwidth_bytes_per_cycle" = [16, 64]

[[workloads]]
glmark2 = "build"

[[workloads]]
glmark2 = "texture"
"""
# host-dependent columns: not compared between the executors; nor the point's key,
# which hashes the capture's bytes: two captures of a scene can differ in bytes the
# GPU does not use (seen: 1 in 4 captures of texture, the X byte of every texel of an
# RGBX texture upload differed, 0x00 against 0x13)
HOST_COLUMNS = {"host_ms", "cpu_ms", "replay_s", "host", "point"}


def sweep(args, env=None, timeout=600):
    return subprocess.run([str(ROOT / "vlgpu"), "sweep"] + args, capture_output=True, text=True,
                          env=env, timeout=timeout)


def rows(out):
    with open(Path(out) / "results.csv", newline="") as f:
        return list(csv.DictReader(f))


def simulated(rs):
    """The rows without the host-dependent columns, keyed by workload, configuration, frame."""
    return {(r["workload"], r["spcs_per_gpc"], r["memory.bandwidth_bytes_per_cycle"],
             r["frame"]): {k: v for k, v in r.items() if k not in HOST_COLUMNS} for r in rs}


class Sweep(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="vlgpu-sweep-test-"))
        cls.grid = cls.tmp / "grid.toml"
        cls.grid.write_text(GRID)
        cls.local = cls.tmp / "local"
        t0 = time.monotonic()
        cls.first = sweep([str(cls.grid), "-o", str(cls.local)])
        cls.local_seconds = time.monotonic() - t0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_local_executor(self):
        r = self.first
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("0 of 8 points done before; 8 to run", r.stdout)
        rs = rows(self.local)
        self.assertEqual(len(rs), 16, "2 workloads x 4 configurations x 2 frames")
        by = simulated(rs)
        for wl in ("build", "texture"):
            for spcs in ("2", "4"):
                for bw in ("16", "64"):
                    for frame in ("0", "1"):
                        row = by[(wl, spcs, bw, frame)]
                        self.assertGreater(int(row["cycles"]), 0, row)
                        self.assertEqual(row["faults"], "0", row)
                        # the off-screen frame image, compared with the live run's
                        self.assertEqual(row["images"], "1", row)
                        self.assertEqual(row["images_differing"], "0", row)
                        self.assertTrue(row["bottleneck"], row)
                        for k, v in row.items():
                            if k.startswith("busy_") and v:
                                self.assertTrue(0.0 <= float(v) <= 1.0, (k, v))
            # only the SPCs a configuration has are reported
            self.assertEqual(by[(wl, "2", "16", "0")].get("busy_gpc0.spc3") or "", "")
            self.assertNotEqual(by[(wl, "4", "16", "0")].get("busy_gpc0.spc3") or "", "")
            # a quarter of the bandwidth cannot make a frame faster
            for spcs in ("2", "4"):
                self.assertGreaterEqual(int(by[(wl, spcs, "16", "1")]["cycles"]),
                                        int(by[(wl, spcs, "64", "1")]["cycles"]))
        # the texture scene is bandwidth-bound at 16 bytes/cycle (the bottleneck
        # report's largest cause), so 64 bytes/cycle must make it faster
        self.assertTrue(by[("texture", "4", "16", "1")]["bottleneck"].startswith("mc_bandwidth"),
                        by[("texture", "4", "16", "1")])
        self.assertGreater(int(by[("texture", "4", "16", "1")]["cycles"]),
                           int(by[("texture", "4", "64", "1")]["cycles"]))
        # one capture per workload: no swept key is a parameter the driver reads
        plan = json.loads((self.local / "plan.json").read_text())
        self.assertEqual(len(plan["captures"]), 2)
        res = json.loads((self.local / "results.json").read_text())
        self.assertEqual(res["points_missing"], 0)
        for key in ("spcs_per_gpc", "memory.bandwidth_bytes_per_cycle"):
            png = self.local / "plots" / f"cycles-vs-{key}.png"
            self.assertGreater(png.stat().st_size, 5000, png)

    def test_rerun_skips_finished_points(self):
        self.assertEqual(self.first.returncode, 0, self.first.stderr)
        r = sweep([str(self.grid), "-o", str(self.local)])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("capture of build: done before", r.stdout)
        self.assertIn("8 of 8 points done before; 0 to run", r.stdout)
        st = sweep(["status", str(self.local)])
        self.assertIn("8 points, 8 done, 0 failed, 0 not run", st.stdout)

    def test_bad_grid_is_a_readable_error(self):
        bad = self.tmp / "bad.toml"
        bad.write_text(GRID.replace("spcs_per_gpc =", "spcs_per_gpx ="))
        r = sweep([str(bad), "-o", str(self.tmp / "bad")])
        self.assertEqual(r.returncode, 1)
        self.assertIn("unknown key 'spcs_per_gpx'", r.stderr)
        bad.write_text(GRID.replace('combine = "cross"', 'combine = "zip"').replace(
            "[16, 64]", "[16, 32, 64]"))
        r = sweep([str(bad), "-o", str(self.tmp / "bad")])
        self.assertEqual(r.returncode, 1)
        self.assertIn("needs lists of one length", r.stderr)

    def test_slurm_executor_equals_local(self):
        self.assertEqual(self.first.returncode, 0, self.first.stdout + self.first.stderr)
        out = self.tmp / "slurm"
        with OneNodeCluster(self.tmp / "cluster") as cluster:
            t0 = time.monotonic()
            r = sweep([str(self.grid), "-o", str(out), "--slurm", "--throttle", "2", "--wait"],
                      env=cluster.env())
            seconds = time.monotonic() - t0
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr + cluster.logs())
            self.assertIn("8 points, 8 done, 0 failed", r.stdout)
            subs = json.loads((out / "slurm" / "submissions.json").read_text())
            self.assertEqual(len(subs), 1)
            # every point ran as a task of the array (its log says so)
            logs = sorted((out / "slurm").glob(f"point-{subs[0]['array']}_*.out"))
            self.assertEqual(len(logs), 8, [p.name for p in logs])
        self.assertEqual(simulated(rows(out)), simulated(rows(self.local)))
        # --compare says so too, and finds a difference planted in a copy
        r = sweep([str(self.grid), "-o", str(out), "--compare", str(self.local)])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("16 rows, every simulated column equal", r.stdout)
        planted = self.tmp / "planted"
        planted.mkdir()
        doc = json.loads((self.local / "results.json").read_text())
        doc["rows"][5]["cycles"] += 1
        (planted / "results.json").write_text(json.dumps(doc))
        r = sweep([str(self.grid), "-o", str(out), "--compare", str(planted)])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("16 rows, 1 differ", r.stdout)
        self.assertIn("cycles", r.stdout)
        print(f"\n  sweep 2 scenes x 2x2: local {self.local_seconds:.1f} s, one-node Slurm "
              f"{seconds:.1f} s (captures included in both)")


if __name__ == "__main__":
    unittest.main()
