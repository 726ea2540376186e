"""The Perfetto/Chrome JSON trace of a live GL program (VLGPU_TRACE,
docs/simulator.md "Trace"): a complete JSON file however the program ends,
one span per draw on the render-stages track with the module counters at
its end, and a frame range (VLGPU_TRACE_FRAMES).

vlg_exit.c draws FRAMES frames of one glClear and DRAWS triangles, then
ends in one of five ways: exit() or return from main with the context
current and nothing destroyed, release the context and exit(), or also
eglTerminate / XCloseDisplay and exit() or return. st/mesa and EGL/GLX
destroy the screen (and the simulated GPU that owns the trace writer) only
on the last two, so the file must be complete before exit."""

import json
import unittest

import driverlib
from driverlib import driver_problems, run_on

EXIT_PATHS = ["exit", "return", "release-exit", "terminate-exit", "terminate-return"]
FRAMES, DRAWS = 2, 2


def fragments_of_triangle(size=64):
    """Pixel centres strictly inside vlg_exit's triangle, clip (-0.5,-0.5), (0.5,-0.5), (0, 0.5)
    in a SIZE x SIZE viewport, i.e. window (16,16), (48,16), (32,48) for 64: no centre lies on an
    edge, so no tie rule applies (GL ES 2.0 3.5.1)."""
    s = size / 4
    a, b, c = (s, s), (3 * s, s), (2 * s, 3 * s)

    def edge(p, q, x, y):
        return (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])
    n = 0
    for y in range(size):
        for x in range(size):
            px, py = x + 0.5, y + 0.5
            e = [edge(a, b, px, py), edge(b, c, px, py), edge(c, a, px, py)]
            assert all(v != 0 for v in e)
            n += all(v > 0 for v in e) or all(v < 0 for v in e)
    return n


def check_chrome_trace(test, t):
    """The Trace Event Format rules the viewers rely on: known phases, numeric
    pid/ts, X spans with dur >= 0, and on each (pid, tid) X spans that nest
    (a span that starts inside another ends inside it)."""
    threads = {}
    for e in t["traceEvents"]:
        test.assertIn(e["ph"], ("B", "E", "X", "C", "M", "i"), e)
        test.assertIsInstance(e["pid"], int, e)
        if e["ph"] != "M":
            test.assertIsInstance(e["ts"], int, e)
        if e["ph"] == "X":
            test.assertGreaterEqual(e["dur"], 0, e)
            threads.setdefault((e["pid"], e["tid"]), []).append((e["ts"], -e["dur"], e["name"]))
        if e["ph"] == "C":
            test.assertTrue(all(isinstance(v, int) for v in e["args"].values()), e)
    for key, spans in threads.items():
        stack = []
        for ts, neg_dur, name in sorted(spans):
            while stack and stack[-1] <= ts:
                stack.pop()
            test.assertTrue(not stack or ts - neg_dur <= stack[-1],
                            f"span {name} at {ts} on {key} overlaps another without nesting")
            stack.append(ts - neg_dur)


def draw_spans(t):
    """The render-stages spans (pid 3) of draws, in draw order: (number, name, event)."""
    spans = [e for e in t["traceEvents"] if e["ph"] == "X" and e["pid"] == 3
             and e["name"].startswith("draw ")]
    return sorted(((e["args"]["draw"], e["name"], e) for e in spans), key=lambda s: s[0])


def load_trace(path):
    """The trace as JSON; fails the test with the file's end if it is not valid."""
    text = path.read_text()
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise AssertionError(f"{path} is not valid JSON ({e}); it ends with {text[-80:]!r}")


class TraceExitTest(unittest.TestCase):
    def run_exit(self, glx, how, env):
        out = driverlib.tempdir("trace")
        trace = out / "t.json"
        r = run_on("vlgpu", [str(driverlib.exit_program(glx)), how, str(FRAMES), str(DRAWS)],
                   env={"VLGPU_TRACE": str(trace), **env}, headless=not glx)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(driver_problems(r.stderr), [], r.stderr)
        self.assertTrue(trace.exists(), r.stderr)
        return load_trace(trace)

    def check_exit_paths(self, glx):
        for how in EXIT_PATHS:
            with self.subTest(api="glx" if glx else "egl", exit=how):
                # The window of the report; the program's cycles are
                # fewer, so everything it did is inside.
                t = self.run_exit(glx, how, {"VLGPU_TRACE_CYCLES": "0-20000"})
                events = t["traceEvents"]
                # The modules worked: the CP has busy spans.
                cp_tid = [e["tid"] for e in events if e["ph"] == "M"
                          and e["name"] == "thread_name" and e["args"]["name"] == "cp"]
                self.assertEqual(len(cp_tid), 1)
                self.assertTrue(any(e["ph"] == "X" and e["tid"] == cp_tid[0]
                                    and e["name"] == "busy" for e in events))

    def test_one_span_per_draw_with_counters(self):
        """3 frames of a clear and 2 triangles: draws 0..8, CLEAR then
        TRIANGLES twice per frame, each triangle with its shaders and the
        fragments its pixel centres give; the module counters are written
        at every draw's end, the OMUs' cleared bytes adding up."""
        frames, draws = 3, 2
        out = driverlib.tempdir("trace")
        trace = out / "t.json"
        r = run_on("vlgpu", [str(driverlib.exit_program()), "terminate-return", str(frames),
                             str(draws)], env={"VLGPU_TRACE": str(trace)})
        self.assertEqual(r.returncode, 0, r.stderr)
        t = load_trace(trace)
        check_chrome_trace(self, t)
        spans = draw_spans(t)
        self.assertEqual([n for n, _, _ in spans], list(range(frames * (1 + draws))))
        frag = fragments_of_triangle()
        for n, name, e in spans:
            if n % (1 + draws) == 0:
                self.assertEqual(name, f"draw {n} CLEAR")
                continue
            a = e["args"]
            self.assertEqual(a["kind"], "TRIANGLES")
            self.assertEqual((a["count"], a["instances"]), (3, 1))
            self.assertRegex(a["vs"], r"^0x[0-9a-f]+$")
            self.assertRegex(a["fs"], r"^0x[0-9a-f]+$")
            self.assertEqual(name, f"draw {n} TRIANGLES vs {a['vs']} fs {a['fs']}")
            self.assertEqual(a["counters"]["pe"]["fragments"], frag)
            self.assertEqual(e["dur"], a["cycles"])
            self.assertGreater(e["dur"], 0)
        # Module counters (pid 4) at the end of every draw: at the end of
        # frame f's CLEAR the OMUs' clear engines have written f + 1 clears of
        # the 64x64 colour buffer, 4 bytes per pixel (8-bit RGB(A)).
        counters = {}
        for e in t["traceEvents"]:
            if e["ph"] == "C" and e["pid"] == 4 and e["name"].endswith(".omu"):
                counters.setdefault(e["ts"], {})[e["name"]] = e["args"]
        for n, _, e in spans:
            end = e["ts"] + e["dur"]
            self.assertIn(end, counters, n)
            if n % (1 + draws) == 0:
                cleared = sum(c["clear_bytes"] for c in counters[end].values())
                self.assertEqual(cleared, (n // (1 + draws) + 1) * 64 * 64 * 4, n)

    def test_frame_range(self):
        """VLGPU_TRACE_FRAMES=1-2 of 4 EGL frames of 3 draws: draws 3..8,
        and with GLX (frames end at glXSwapBuffers) VLGPU_TRACE_FRAMES=2 of 3
        frames of 2 draws: draws 4 and 5; a complete file although the
        program exits without eglTerminate. The simulation is deterministic,
        so the same run traced whole has the same draw spans, and every event
        of the range lies between the end of the draw before it and the start
        of the draw after it."""
        for glx, frames, draws, rng, first, last in ((False, 4, 2, "1-2", 3, 8),
                                                     (True, 3, 1, "2", 4, 5)):
            with self.subTest(api="glx" if glx else "egl", frames=rng):
                traces = {}
                for name, extra in (("whole", {}), ("range", {"VLGPU_TRACE_FRAMES": rng})):
                    out = driverlib.tempdir("trace")
                    r = run_on("vlgpu", [str(driverlib.exit_program(glx)), "exit", str(frames),
                                         str(draws)],
                               env={"VLGPU_TRACE": str(out / "t.json"), **extra},
                               headless=not glx)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    traces[name] = load_trace(out / "t.json")
                check_chrome_trace(self, traces["range"])
                whole = {n: e for n, _, e in draw_spans(traces["whole"])}
                self.assertEqual(sorted(whole), list(range(frames * (1 + draws))))
                got = draw_spans(traces["range"])
                self.assertEqual([n for n, _, _ in got], list(range(first, last + 1)))
                for n, name, e in got:
                    self.assertEqual((name, e["ts"], e["dur"]),
                                     (whole[n]["name"], whole[n]["ts"], whole[n]["dur"]))
                lo = whole[first - 1]["ts"] + whole[first - 1]["dur"]
                hi = whole[last + 1]["ts"] if last + 1 in whole else float("inf")
                for e in traces["range"]["traceEvents"]:
                    if e["ph"] != "M":
                        self.assertGreaterEqual(e["ts"], lo, e)
                        self.assertLessEqual(e["ts"] + e.get("dur", 0), hi, e)

    def test_bad_frame_range_is_a_clear_error(self):
        out = driverlib.tempdir("trace")
        r = run_on("vlgpu", [str(driverlib.exit_program()), "exit", "1", "1"],
                   env={"VLGPU_TRACE": str(out / "t.json"), "VLGPU_TRACE_FRAMES": "3-1"})
        self.assertIn("trace frames '3-1': expected FIRST-LAST", r.stderr)

    def test_egl_every_exit_path_leaves_a_complete_file(self):
        self.check_exit_paths(glx=False)

    def test_glx_every_exit_path_leaves_a_complete_file(self):
        self.check_exit_paths(glx=True)


if __name__ == "__main__":
    unittest.main()
