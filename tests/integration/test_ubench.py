"""Smoke test of `./vlgpu ubench` (scripts/ubench.py): the latency benchmark runs
in cycle mode and writes the files it documents, and its VRAM row (a one-lane
pointer chase over lines never loaded before) is within its tolerance of
memory.latency_cycles plus the line's bus time and four queue hops, computed
here from the run's configuration; bad options fail with exit code 2."""

import csv
import json
import math
import subprocess
import tempfile
import unittest
from pathlib import Path

from vlgpu_testlib import ROOT


def ubench(*args, timeout=300):
    return subprocess.run([str(ROOT / "vlgpu"), "ubench", "--", *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=timeout)


class UbenchSmokeTest(unittest.TestCase):
    def test_latency(self):
        with tempfile.TemporaryDirectory(dir=ROOT / "out") as d:
            # a longer memory latency than the default: the row must follow the configuration
            r = ubench("--only", "latency", "--config", "memory.latency_cycles=200", "--out", d,
                       "--no-plots")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            for name in ("ubench.md", "ubench.csv", "ubench.json", "runs/latency/config.json"):
                self.assertTrue((Path(d) / name).exists(), name)
            cfg = json.loads((Path(d) / "runs/latency/config.json").read_text())
            self.assertEqual(cfg["memory"]["latency_cycles"], 200)
            with open(Path(d) / "ubench.csv") as f:
                rows = {x["property"]: x for x in csv.DictReader(f)}
            vram = rows["VRAM load-to-use latency"]
            want = (200 + math.ceil(cfg["l2"]["line_bytes"] /
                                    cfg["memory"]["bandwidth_bytes_per_cycle"])
                    + 4 * cfg["queues"]["default"]["latency"])
            self.assertEqual(float(vram["implied"]), want)
            self.assertLessEqual(abs(float(vram["measured"]) / want - 1),
                                 float(vram["tolerance"]))
            self.assertEqual(vram["within"], "True")
            self.assertIn("VRAM load-to-use latency", (Path(d) / "ubench.md").read_text())

    def test_bad_options(self):
        r = ubench("--only", "nosuch")
        self.assertEqual(r.returncode, 2)
        self.assertIn("nosuch", r.stderr)
        r = ubench("--config", "gpcs", "--out", "/tmp")
        self.assertEqual(r.returncode, 2)
        self.assertIn("KEY=VALUE", r.stderr)
        r = ubench("--config", "no.such.key=1", "--only", "clear", "--out", "/tmp/vlgpu-ubench-bad")
        self.assertEqual(r.returncode, 2)
        self.assertIn("configuration run failed", r.stderr)


if __name__ == "__main__":
    unittest.main()
