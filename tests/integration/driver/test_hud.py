"""Driver queries (docs/driver.md "Driver queries"): the simulated GPU's
counters as Gallium driver queries, listed by GALLIUM_HUD=help, graphed by
the HUD and written by GALLIUM_HUD_DUMP_DIR.

vlg_exit.c (GLX) draws FRAMES frames of one glClear and DRAWS triangles and
swaps after each. The HUD ends its queries at every swap before it draws
(hud_run in Mesa's hud_context.c: stop the queries, draw, start them again)
and writes one value per frame with GALLIUM_HUD_PERIOD=0, from the second
frame on (its first call only creates the queries). The driver presents
after the HUD's stop, so the HUD's frame k holds the present of frame k-1
and the draws of frame k: the tests rebuild each such window from the
simulator's own report of every submit (VLGPU_STATS=DIR's
submit-NNNNNN.json, the full JSON) and check every dumped value against
it; the driver's per-frame sums (frames.csv) are a second, independent
reading for what presents do not change."""

import csv
import json
import time
import unittest

import driverlib
from driverlib import driver_problems, run_on

FRAMES, DRAWS = 5, 3
# Queries dumped by the tests: counts (exact) and percentages (FLOAT queries).
COUNTS = ["vlgpu-cycles", "vlgpu-submits", "vlgpu-draws", "vlgpu-clears", "vlgpu-fragments",
          "vlgpu-fragments-passed", "vlgpu-vs-instructions", "vlgpu-fs-instructions",
          "vlgpu-mc-bytes"]
RATES = ["vlgpu-busy-spc", "vlgpu-busy-gpc0.spc1", "vlgpu-stalled-l2", "vlgpu-starved-omu",
         "vlgpu-dual-issue-rate", "vlgpu-l2-hit-rate", "vlgpu-l1-hit-rate"]
# The HUD keeps three decimals of a FLOAT query (hud_driver_query.c: value *
# 1000 as an integer), the driver gives it a float (24-bit mantissa).
RATE_TOLERANCE = 0.0011


def hud_dump(directory, names):
    """{query name: [value per frame]} of GALLIUM_HUD_DUMP_DIR (a file per
    graph, '-' written as '_', one value per line)."""
    out = {}
    for n in names:
        path = directory / n.replace("-", "_")
        out[n] = [float(line) for line in path.read_text().split()]
    return out


def submit_reports(stats_dir):
    """The simulator's report of every submit, in order."""
    return [json.loads(p.read_text()) for p in sorted(stats_dir.glob("submit-*.json"))]


def is_present(s):
    """A present (vlg_screen.c: a DUMP and a SYNC): the CP ran one DUMP."""
    return s["stats"]["modules"]["cp"]["counters"]["dumps"] == 1


def windows(submits):
    """The HUD's frames 1..: each from a present (inclusive) to the next
    (exclusive), see the module docstring."""
    presents = [i for i, s in enumerate(submits) if is_present(s)]
    return [submits[a:b] for a, b in zip(presents, presents[1:])]


def expected(window):
    """Every dumped query over the submits of @window, from their reports."""
    draws = [d for s in window for d in s["draws"]]
    mods = [(name, m) for s in window for name, m in s["stats"]["modules"].items()]

    def pct(names, part):
        sel = [m for n, m in mods if names(n)]
        period = sum(m["busy"] + m["stalled"] + m["starved"] + m["idle"] for m in sel)
        return 100.0 * sum(m[part] for m in sel) / period

    def counter(module, key):
        return sum(m["counters"][key] for n, m in mods if module(n))

    spc = lambda n: ".spc" in n  # noqa: E731
    l2 = counter(lambda n: n == "l2", "read_hits"), counter(lambda n: n == "l2", "read_misses"), \
        counter(lambda n: n == "l2", "read_merged")
    l1 = counter(spc, "l1_hits"), counter(spc, "l1_misses")
    c = lambda d, g, k: d["counters"][g][k]  # noqa: E731
    instr = sum(c(d, "vs", "instructions") + c(d, "fs", "instructions") for d in draws)
    dual = sum(c(d, "vs", "dual_issued") + c(d, "fs", "dual_issued") for d in draws)
    return {
        "vlgpu-cycles": sum(s["cycles"] for s in window),
        "vlgpu-submits": len(window),
        "vlgpu-draws": len(draws),
        "vlgpu-clears": sum(1 for d in draws if d["counters"]["clear"]),
        "vlgpu-fragments": sum(c(d, "pe", "fragments") for d in draws),
        "vlgpu-fragments-passed": sum(c(d, "omu", "fragments_passed") for d in draws),
        "vlgpu-vs-instructions": sum(c(d, "vs", "instructions") for d in draws),
        "vlgpu-fs-instructions": sum(c(d, "fs", "instructions") for d in draws),
        "vlgpu-mc-bytes": counter(lambda n: n == "mc", "read_bytes")
        + counter(lambda n: n == "mc", "write_bytes"),
        "vlgpu-busy-spc": pct(spc, "busy"),
        "vlgpu-busy-gpc0.spc1": pct(lambda n: n == "gpc0.spc1", "busy"),
        "vlgpu-stalled-l2": pct(lambda n: n == "l2", "stalled"),
        "vlgpu-starved-omu": pct(lambda n: n.endswith(".omu"), "starved"),
        "vlgpu-dual-issue-rate": 100.0 * dual / instr if instr else 0.0,
        "vlgpu-l2-hit-rate": 100.0 * l2[0] / sum(l2) if sum(l2) else 0.0,
        "vlgpu-l1-hit-rate": 100.0 * l1[0] / sum(l1) if sum(l1) else 0.0,
    }


class HudTest(unittest.TestCase):
    def run_glx(self, env, frames=FRAMES):
        return run_on("vlgpu", [str(driverlib.exit_program(glx=True)), "return", str(frames),
                                str(DRAWS)], env=env, headless=False)

    def test_help_lists_the_queries(self):
        """Cycle mode: the frame counters, and busy/stalled/starved per
        module class and per SPC of the default GPU (1 GPC of 4 SPCs);
        functional mode has no modules, so only the frame counters."""
        r = self.run_glx({"GALLIUM_HUD": "help"}, frames=1)
        self.assertEqual(r.returncode, 0, r.stderr)
        names = {line.strip() for line in r.stdout.splitlines()}
        for n in COUNTS + RATES + ["vlgpu-faults", "vlgpu-busy-mc", "vlgpu-starved-gpc0.spc3"]:
            self.assertIn(n, names)
        r = self.run_glx({"GALLIUM_HUD": "help", "VLGPU_DEBUG": "functional"}, frames=1)
        names = {line.strip() for line in r.stdout.splitlines()}
        self.assertIn("vlgpu-fragments", names)
        self.assertFalse([n for n in names if n.startswith("vlgpu-busy")], names)

    def test_dump_equals_the_submit_reports(self):
        out = driverlib.tempdir("hud")
        (out / "hud").mkdir()
        names = COUNTS + RATES
        r = self.run_glx({"GALLIUM_HUD": ",".join(names), "GALLIUM_HUD_PERIOD": "0",
                          "GALLIUM_HUD_VISIBLE": "false", "GALLIUM_HUD_DUMP_DIR": str(out / "hud"),
                          "VLGPU_STATS": str(out / "stats")})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(driver_problems(r.stderr), [])
        hud = hud_dump(out / "hud", names)
        wins = windows(submit_reports(out / "stats"))
        self.assertEqual(len(wins), FRAMES - 1)
        for n in names:
            self.assertEqual(len(hud[n]), FRAMES - 1, n)
        frames = list(csv.DictReader(open(out / "stats" / "frames.csv")))
        self.assertEqual(len(frames), FRAMES)
        for k, w in enumerate(wins):
            want = expected(w)
            # The program's own arithmetic: a clear and DRAWS triangles.
            self.assertEqual(want["vlgpu-draws"], 1 + DRAWS)
            self.assertEqual(want["vlgpu-clears"], 1)
            self.assertGreater(want["vlgpu-cycles"], 0)
            self.assertGreater(want["vlgpu-busy-spc"], 0.0)
            for n in COUNTS:
                self.assertEqual(hud[n][k], want[n], f"frame {k + 1}: {n}")
            for n in RATES:
                self.assertAlmostEqual(hud[n][k], want[n], delta=RATE_TOLERANCE,
                                       msg=f"frame {k + 1}: {n}")
            # frames.csv's row of the same frame: the draws' counters do not
            # depend on where the present falls.
            row = frames[k + 1]
            self.assertEqual(hud["vlgpu-draws"][k], int(row["draws"]))
            self.assertEqual(hud["vlgpu-fragments"][k], int(row["fragments"]))
            self.assertEqual(hud["vlgpu-fs-instructions"][k], int(row["fs_instructions"]))

    def test_functional_mode_counts(self):
        """Functional mode: no cycles, and the per-frame counters equal
        frames.csv's (a present has no draws)."""
        out = driverlib.tempdir("hud")
        (out / "hud").mkdir()
        names = ["vlgpu-cycles", "vlgpu-draws", "vlgpu-fragments", "vlgpu-vs-instructions"]
        r = self.run_glx({"GALLIUM_HUD": ",".join(names), "GALLIUM_HUD_PERIOD": "0",
                          "GALLIUM_HUD_VISIBLE": "false", "GALLIUM_HUD_DUMP_DIR": str(out / "hud"),
                          "VLGPU_STATS": str(out / "stats.csv"), "VLGPU_DEBUG": "functional"})
        self.assertEqual(r.returncode, 0, r.stderr)
        hud = hud_dump(out / "hud", names)
        frames = list(csv.DictReader(open(out / "stats.csv")))
        self.assertEqual(hud["vlgpu-cycles"], [0] * (FRAMES - 1))
        self.assertEqual(hud["vlgpu-draws"], [1 + DRAWS] * (FRAMES - 1))
        self.assertEqual(hud["vlgpu-fragments"], [int(f["fragments"]) for f in frames[1:]])
        self.assertEqual(hud["vlgpu-vs-instructions"],
                         [int(f["vs_instructions"]) for f in frames[1:]])

    def test_amd_performance_monitor(self):
        """The same queries through GL_AMD_performance_monitor (st/mesa
        offers it when a driver lists query groups): Piglit's API and
        measurement tests pass in both modes (functional mode has only the
        frame group)."""
        import shutil
        piglit = shutil.which("piglit")
        self.assertIsNotNone(piglit, "Piglit not installed (./vlgpu setup installs it)")
        bindir = "/usr/lib/x86_64-linux-gnu/piglit/bin"
        for mode in ("cycle", "functional"):
            for test in ("amd_performance_monitor_api", "amd_performance_monitor_measure"):
                with self.subTest(mode=mode, test=test):
                    r = run_on("vlgpu", [f"{bindir}/{test}", "-auto", "-fbo"],
                               env={"VLGPU_DEBUG": mode}, headless=False)
                    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                    self.assertIn('PIGLIT: {"result": "pass" }', r.stdout)

    def test_screenshot_shows_the_graph(self):
        """es2gears under Xvfb with two vlgpu panes, after 30 frames: inside
        each pane's graph area (hud_context.c: a pane at (10, 10), the next
        below it, each with its legend under the graph) the screen
        (python3-xlib) has the HUD's first graph colour, pure green, on at
        least 10 columns (a curve, not the legend's square), where es2gears
        alone has none; the pictures are kept in out/driver-tests/hud-*/."""
        from Xlib import X, display
        from PIL import Image
        out = driverlib.tempdir("hud")

        def shot(env):
            with driverlib.PrivateX("640x480x24") as x:
                disp = x.display
                (out / "hud").mkdir(exist_ok=True)
                proc = driverlib.launch_async(
                    "vlgpu", ["es2gears_x11"],
                    dict(env, DISPLAY=disp, GALLIUM_HUD_DUMP_DIR=str(out / "hud")), out)
                try:
                    # Wait for frames (the HUD's dump grows one line per frame).
                    deadline = time.monotonic() + 120
                    dump = out / "hud" / "vlgpu_cycles"
                    while time.monotonic() < deadline and proc.poll() is None:
                        if "GALLIUM_HUD" not in env or (
                                dump.exists() and len(dump.read_text().split()) >= 30):
                            break
                        time.sleep(0.5)
                    if "GALLIUM_HUD" not in env:
                        time.sleep(10)
                    self.assertIsNone(proc.poll(), (out / "run.log").read_text())
                    d = display.Display(disp)
                    root = d.screen().root
                    raw = root.get_image(0, 0, 640, 480, X.ZPixmap, 0xffffffff).data
                    d.close()
                finally:
                    proc.terminate()
                    proc.wait()
            return Image.frombytes("RGB", (640, 480), raw, "raw", "BGRX")

        with_hud = shot({"GALLIUM_HUD": ".w200.h80vlgpu-cycles,.w200.h80vlgpu-busy-spc",
                         "GALLIUM_HUD_PERIOD": "0"})
        with_hud.save(out / "screenshot.png")
        alone = shot({})
        alone.save(out / "screenshot-without-hud.png")

        def green_columns(im, box):
            g = im.crop(box)
            return len({x for x in range(g.width) for y in range(g.height)
                        if g.getpixel((x, y)) == (0, 255, 0)})
        # the two graph areas (es2gears' window is 300 x 300 whatever its
        # -geometry, so the panes leave room for the HUD's axis labels):
        # 200 x 80 at (10, 10), and below the first pane's legend line
        for box in ((11, 11, 210, 90), (11, 133, 210, 212)):
            self.assertGreaterEqual(green_columns(with_hud, box), 10, (box, out))
            self.assertEqual(green_columns(alone, box), 0, (box, out))


if __name__ == "__main__":
    unittest.main()
