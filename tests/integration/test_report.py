"""`./vlgpu report OUT_DIR` (scripts/report.py, docs/report.md) on a small real run,
opened in headless Chromium (Debian's `chromium`).

The run: `./vlgpu glmark2 -- -b build --frames 2 --mode cycle -s 160x120 --dump`
with VLGPU_PROFILE in its directory (about 3 s), so every section of the page
has data: frames vlgpu/softpipe/diff, per-draw cycles, module utilisation,
bottleneck breakdown, hottest shader lines, dump links.  The page must render
in Chromium without a console message (no script runs at all), its DOM must
hold every section heading, the frames as data URIs and no external URL, its
screenshot must not be blank, and its numbers must be the run's.  A missing
chromium fails the tests (it is in the launcher's APT_PACKAGES), never skips
them."""

import csv
import os
import json
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from vlgpu_testlib import ROOT

SECTIONS = ["Run", "Scenes", "build", "Frames: vlgpu, softpipe, difference", "Per-draw cycles",
            "Module utilisation", "Bottleneck breakdown", "Hottest shader lines", "Dumps"]
CONSOLE = re.compile(r":CONSOLE[:(]")  # Chromium's log line of a page console message


def chromium(args, user_dir, timeout=120):
    """Run headless Chromium with ARGS (profile in USER_DIR); CompletedProcess. Fails
    the calling test with how to install it when `chromium` is not on PATH."""
    exe = shutil.which("chromium")
    if not exe:
        raise AssertionError("chromium not found on PATH: install Debian's chromium "
                             "(apt-get install chromium; ./vlgpu setup installs it)")
    return subprocess.run([exe, "--headless=new", "--no-sandbox", "--disable-gpu",
                           f"--user-data-dir={user_dir}", "--enable-logging=stderr", "--v=0"]
                          + args, capture_output=True, text=True, timeout=timeout)


def console_lines(stderr):
    """The page console messages in Chromium's log (errors, warnings, logs)."""
    return [line for line in stderr.splitlines() if CONSOLE.search(line)]


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        (ROOT / "out").mkdir(exist_ok=True)
        cls.tmp = tempfile.TemporaryDirectory(prefix="report-", dir=ROOT / "out")
        cls.dir = Path(cls.tmp.name)
        run = cls.dir / "run"
        env = dict(os.environ, VLGPU_PROFILE=str(run / "profile.json"))
        r = subprocess.run([str(ROOT / "vlgpu"), "glmark2", "--", "-b", "build", "--frames", "2",
                            "--mode", "cycle", "-s", "160x120", "--dump", "-j", "1",
                            "--out", str(run)], capture_output=True, text=True, timeout=300,
                           env=env)
        cls.run_result = r
        cls.run_dir = run
        cls.page = cls.dir / "page.html"
        cls.report = subprocess.run([str(ROOT / "vlgpu"), "report", str(run), "-o",
                                     str(cls.page)], capture_output=True, text=True, timeout=120)
        cls.html = cls.page.read_text() if cls.page.exists() else ""

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.assertEqual(self.run_result.returncode, 0,
                         self.run_result.stdout + self.run_result.stderr)
        self.assertEqual(self.report.returncode, 0, self.report.stdout + self.report.stderr)
        self.assertIn("found glmark2;", self.report.stdout)

    def test_page_in_chromium_has_every_section_and_no_console_message(self):
        r = chromium(["--dump-dom", self.page.as_uri()], self.dir / "chromium-dom")
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        self.assertEqual(console_lines(r.stderr), [])
        headings = [re.sub(r"<[^>]+>", "", h).strip()
                    for h in re.findall(r"<h[1-3][^>]*>(.*?)</h[1-3]>", r.stdout, re.S)]
        for s in SECTIONS:
            self.assertIn(s, headings, f"section '{s}' missing from the rendered page")
        # self-contained: frames inline, charts inline, nothing fetched, no script
        self.assertEqual(len(re.findall(r'<img src="data:image/png;base64,', self.html)), 4)
        self.assertGreaterEqual(self.html.count("<svg"), 3)
        self.assertNotIn("<script", self.html.lower())
        self.assertEqual(re.findall(r'(?:src|href)="(?:https?:)?//[^"]*"', self.html), [])
        self.assertNotIn("url(http", self.html)

    def test_console_check_can_fail(self):
        """The console check above sees a page's console error (so its [] means none)."""
        bad = self.dir / "bad.html"
        bad.write_text("<html><body><script>console.error('x'); nosuch();</script></body></html>")
        r = chromium(["--dump-dom", bad.as_uri()], self.dir / "chromium-bad")
        self.assertTrue(any("Uncaught" in line for line in console_lines(r.stderr)), r.stderr)

    def test_screenshot_is_not_blank(self):
        import numpy as np
        from PIL import Image
        shot = self.dir / "page.png"
        r = chromium([f"--screenshot={shot}", "--window-size=1280,2000", self.page.as_uri()],
                     self.dir / "chromium-shot")
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        self.assertEqual(console_lines(r.stderr), [])
        img = np.asarray(Image.open(shot).convert("RGB"))
        self.assertEqual(img.shape[:2], (2000, 1280))
        colours = len(np.unique(img.reshape(-1, 3), axis=0))
        self.assertGreater(colours, 100, "screenshot has almost no colours: blank page?")
        dark = (img.max(axis=2) < 64).mean()  # frames' black backgrounds, text
        self.assertGreater(dark, 0.02, f"only {dark:.1%} dark pixels: frames not drawn?")
        self.assertLess((img == img[0, 0]).all(axis=2).mean(), 0.95, "one colour")

    def test_numbers_are_the_runs(self):
        res = json.loads((self.run_dir / "results.json").read_text())["scenes"][0]
        c = res["compare"]
        self.assertIn(f"Max channel error {c['max_error']}, {c['differing_pixels']} of "
                      f"{c['pixels']} pixels differ", self.html)
        with open(self.run_dir / "01-build/vlgpu/stats.draws.csv") as f:
            draws = [d for d in csv.DictReader(f) if int(d["cycles"]) > 0]
        self.assertIn(f"{len(draws)} of {len(draws)} draws with cycles", self.html)
        with open(self.run_dir / "01-build/vlgpu/stats.csv") as f:
            frames = list(csv.DictReader(f))
        self.assertIn("simulated cycles per frame: "
                      + ", ".join(f"{int(x['cycles']):,}" for x in frames), self.html)
        prof = json.loads((self.run_dir / "profile.json").read_text())
        hottest = max((i for s in prof["shaders"] for i in s["instructions"]),
                      key=lambda i: i["issues"] + sum(i["stalls"].values()))
        self.assertIn(f"<code>{hottest['text']}</code>", self.html)
        dumps = sorted((self.run_dir / "01-build/vlgpu/dump").glob("draw-*"))
        self.assertTrue(dumps)
        for d in dumps:
            self.assertIn(f'href="run/01-build/vlgpu/dump/{d.name}/draw.txt"', self.html)

    def test_directory_without_a_run_fails_with_its_name(self):
        empty = self.dir / "empty"
        empty.mkdir()
        for d in (empty, self.dir / "missing"):
            r = subprocess.run([str(ROOT / "vlgpu"), "report", str(d)], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn(str(d), r.stderr)
            self.assertFalse((d / "report.html").exists())


if __name__ == "__main__":
    unittest.main()
