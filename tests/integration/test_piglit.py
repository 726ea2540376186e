"""Piglit subset on vlgpu through ./vlgpu piglit (scripts/piglit.py).

Runs the checked-in subset tests/piglit/subset.txt (GL ES 2.0 tests of the
`-t gles -t glsl-es` run plus desktop GL 2.x shader/rendering tests; ~15 s on
2 cores in functional mode) and requires every test listed as pass to pass.
A second check feeds the same results an expectation that does not hold and
requires --check to fail with that test named, so the check itself can fail.
"""

import shutil
import tempfile
import unittest
from pathlib import Path

from vlgpu_testlib import ROOT, launch

SUBSET = ROOT / "tests" / "piglit" / "subset.txt"
PIGLIT_TIMEOUT = 600  # seconds for the whole subset (measured ~15 s)


@unittest.skipUnless(shutil.which("piglit"), "piglit not installed (Debian package piglit)")
class PiglitSubsetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="vlgpu-piglit-")
        cls.out = Path(cls.tmp.name)
        cls.result = launch(["piglit", "--", "--driver", "vlgpu", "--tests-from", str(SUBSET),
                          "--check", str(SUBSET), "--out", str(cls.out), "--progress", "0"],
                         env_remove=["DISPLAY", "GALLIUM_DRIVER"], timeout=PIGLIT_TIMEOUT)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_expected_passes_pass(self):
        r = self.result
        self.assertEqual(r.returncode, 0, f"piglit subset failed:\n{r.stdout}\n{r.stderr}")
        self.assertRegex(r.stdout, r"--check .*: [1-9]\d* expected passes selected, 0 did not pass")

    def test_check_can_fail(self):
        # draw-vertices-half-float_gles2 crashes (piglit's surfaceless abort, subset.txt):
        # listing it as pass must fail.
        wrong = self.out / "wrong.txt"
        wrong.write_text("pass spec@oes_vertex_half_float@draw-vertices-half-float_gles2\n"
                         "pass spec@glsl-es-1.00@execution@sanity\n")
        r = launch(["piglit", "--", "--driver", "vlgpu", "--no-run", "--check", str(wrong),
                    "--tests-from", str(SUBSET), "--out", str(self.out)])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("EXPECTED PASS, GOT CRASH: "
                      "spec@oes_vertex_half_float@draw-vertices-half-float_gles2", r.stdout)
        self.assertNotIn("GOT PASS", r.stdout)

    def test_reason_required(self):
        bad = self.out / "bad.txt"
        bad.write_text("fail spec@glsl-es-1.00@execution@sanity\n")
        r = launch(["piglit", "--", "--driver", "vlgpu", "--no-run", "--check", str(bad),
                    "--out", str(self.out)])
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("bad.txt:1:", r.stderr)


if __name__ == "__main__":
    unittest.main()
