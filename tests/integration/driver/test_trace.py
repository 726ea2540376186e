"""The Perfetto/Chrome JSON trace of a live GL program (VLGPU_TRACE,
docs/simulator.md "Trace"): a complete JSON file however the program ends.

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

    def test_egl_every_exit_path_leaves_a_complete_file(self):
        self.check_exit_paths(glx=False)

    def test_glx_every_exit_path_leaves_a_complete_file(self):
        self.check_exit_paths(glx=True)


if __name__ == "__main__":
    unittest.main()
