"""Piglit subset on vlgpu through ./vlgpu piglit (scripts/piglit.py).

Runs the checked-in subset tests/piglit/subset.txt (GL ES 2.0 tests of the
`-t gles -t glsl-es` run plus desktop GL 2.x shader/rendering tests; ~15 s on
2 cores in functional mode) and requires every test listed as pass to pass.
A second check feeds the same results an expectation that does not hold and
requires --check to fail with that test named, so the check itself can fail.
The subset's transform-feedback tests also run on the cycle-mode modules (stream
output is written by GPC 0's PE there, docs/simulator-modules.md).
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


# Subset tests left out of the cycle-mode runs, with the reason. (Empty since the
# watchdog counts instructions in both modes: "order arrays triangles", whose vertex
# shader loops ~115 000 instructions per vertex, outlived the old cycle-mode watchdog of
# 10^6 resident cycles and faulted there only; it passes in cycle mode now, 23 s.)
CYCLE_MODE_SKIP = set()


def check_subset_in_cycle_mode(test, needle, minimum, what):
    """Run the subset.txt tests whose name contains `needle` and that are
    expected to pass, on the cycle-mode modules, and require them all to pass
    (the subset's own run is in functional mode); CYCLE_MODE_SKIP says which not."""
    lines = [line for line in SUBSET.read_text().splitlines()
             if needle in line and line.startswith("pass ")
             and line[len("pass "):].split("  #")[0].strip() not in CYCLE_MODE_SKIP]
    test.assertGreaterEqual(len(lines), minimum, f"subset.txt lost its {what} tests")
    with tempfile.TemporaryDirectory(prefix="vlgpu-piglit-cycle-") as tmp:
        f = Path(tmp) / "selected.txt"
        f.write_text("\n".join(lines) + "\n")
        r = launch(["piglit", "--", "--driver", "vlgpu", "--mode", "cycle",
                    "--tests-from", str(f), "--check", str(f), "--out", str(Path(tmp) / "o"),
                    "--progress", "0"],
                   env_remove=["DISPLAY", "GALLIUM_DRIVER"], timeout=PIGLIT_TIMEOUT)
    test.assertEqual(r.returncode, 0, f"{what} in cycle mode:\n{r.stdout}\n{r.stderr}")
    test.assertRegex(r.stdout, rf"--check .*: {len(lines)} expected passes selected, 0 did not pass")


@unittest.skipUnless(shutil.which("piglit"), "piglit not installed (Debian package piglit)")
class PiglitTransformFeedbackCycleTest(unittest.TestCase):
    def test_transform_feedback_passes_in_cycle_mode(self):
        check_subset_in_cycle_mode(self, "transform_feedback", 4, "transform-feedback")


@unittest.skipUnless(shutil.which("piglit"), "piglit not installed (Debian package piglit)")
class PiglitGeometryShaderCycleTest(unittest.TestCase):
    """The subset's GLSL 1.50 geometry-shader tests (docs/hw.md "Geometry shaders") on the
    cycle-mode modules too, texel buffers alongside."""

    def test_geometry_shaders_pass_in_cycle_mode(self):
        check_subset_in_cycle_mode(self, "glsl-1.50@execution@geometry", 10, "geometry-shader")

    def test_texel_buffers_pass_in_cycle_mode(self):
        check_subset_in_cycle_mode(self, "arb_texture_buffer_object", 5, "texel-buffer")


@unittest.skipUnless(shutil.which("piglit"), "piglit not installed (Debian package piglit)")
class PiglitCopyCycleTest(unittest.TestCase):
    """The subset's buffer copies, buffer clears and texture clears (COPY commands of the
    CP's DMA engine, docs/hw.md "Copies") on the cycle-mode modules too."""

    def test_copies_and_clears_pass_in_cycle_mode(self):
        check_subset_in_cycle_mode(self, "arb_clear_", 11, "buffer and texture clear")
        check_subset_in_cycle_mode(self, "arb_copy_buffer", 3, "buffer copy")


@unittest.skipUnless(shutil.which("piglit"), "piglit not installed (Debian package piglit)")
class PiglitTexelOffsetCycleTest(unittest.TestCase):
    """The subset's texel-offset and rectangle-texture tests (the texture unit's TOFF Sub unit,
    docs/isa.md "toff"; docs/simulator-texture.md) on the cycle-mode modules too."""

    def test_texel_offsets_pass_in_cycle_mode(self):
        check_subset_in_cycle_mode(self, "tex-miplevel-selection", 12, "texel-offset")

    def test_rectangle_textures_pass_in_cycle_mode(self):
        check_subset_in_cycle_mode(self, "2drect", 6, "rectangle-texture")
        check_subset_in_cycle_mode(self, "texwrap rect", 3, "rectangle-texture wrap")


@unittest.skipUnless(shutil.which("piglit"), "piglit not installed (Debian package piglit)")
class PiglitDualSourceCycleTest(unittest.TestCase):
    """The subset's dual-source blending tests (EXT_blend_func_extended) on the
    cycle-mode OMU too (docs/hw.md "Dual-source blending")."""

    def test_dual_source_passes_in_cycle_mode(self):
        check_subset_in_cycle_mode(self, "blend_func_extended", 3, "dual-source blending")


@unittest.skipUnless(shutil.which("piglit"), "piglit not installed (Debian package piglit)")
class PiglitClipControlAndStencilBlitCycleTest(unittest.TestCase):
    """The subset's glClipControl tests (rasterizer.clip_halfz in the PE) and stencil blits
    (util_blitter_stencil_fallback: a CLEAR and one draw per stencil bit) on the cycle-mode
    modules too."""

    def test_clip_control_passes_in_cycle_mode(self):
        check_subset_in_cycle_mode(self, "arb_clip_control", 3, "clip-control")

    def test_stencil_blits_pass_in_cycle_mode(self):
        check_subset_in_cycle_mode(self, "stencil8-blit", 2, "stencil-only blit")
        check_subset_in_cycle_mode(self, "depth-stencil-blit stencil", 2, "stencil-only blit")
        check_subset_in_cycle_mode(self, "framebuffer-blit-levels", 2, "stencil blit of a level")


@unittest.skipUnless(shutil.which("piglit") and shutil.which("Xvfb"),
                     "piglit or Xvfb not installed (Debian packages piglit, xvfb)")
class PiglitPointSpriteTest(unittest.TestCase):
    """GL_COORD_REPLACE point sprites (rasterizer.sprite_coord_enable, docs/driver.md): the two
    checkerboard tests draw to the window, so they run on x11_egl (a private Xvfb; on
    surfaceless_egl piglit aborts, docs/piglit.md)."""

    def test_checkerboards_pass(self):
        tests = ["spec@arb_point_sprite@arb_point_sprite-checkerboard",
                 "spec@oes_point_sprite@arb_point_sprite-checkerboard_gles1"]
        with tempfile.TemporaryDirectory(prefix="vlgpu-piglit-sprite-") as tmp:
            f = Path(tmp) / "sprite.txt"
            f.write_text("".join(f"pass {t}\n" for t in tests))
            r = launch(["piglit", "--", "--driver", "vlgpu", "--platform", "x11_egl",
                        "--tests-from", str(f), "--check", str(f), "--out", str(Path(tmp) / "o"),
                        "--progress", "0"],
                       env_remove=["DISPLAY", "GALLIUM_DRIVER"], timeout=PIGLIT_TIMEOUT)
        self.assertEqual(r.returncode, 0, f"point sprites:\n{r.stdout}\n{r.stderr}")
        self.assertRegex(r.stdout, r"--check .*: 2 expected passes selected, 0 did not pass")


if __name__ == "__main__":
    unittest.main()


@unittest.skipUnless(shutil.which("piglit"), "piglit not installed (Debian package piglit)")
class PiglitMultisampleArrayAndViewCycleTest(unittest.TestCase):
    """The subset's 4-sample 2D array and texture-view tests on the cycle-mode modules too
    (docs/hw.md "Multisampling"; docs/driver.md "Texture views")."""

    def test_multisample_arrays_pass_in_cycle_mode(self):
        check_subset_in_cycle_mode(self, "arb_texture_multisample", 5, "multisample texture")

    def test_texture_views_pass_in_cycle_mode(self):
        check_subset_in_cycle_mode(self, "texture_view@", 2, "texture view")


class PiglitDisplayLostTest(unittest.TestCase):
    """scripts/piglit.py runs again, one at a time, the tests that could not open the X
    display (x11_egl on a loaded machine: 7 false 'pass -> fail' in a 538-test run), and
    puts their new results, subtests included, in place of the first ones (no piglit
    needed: piglit's results as load_results gives them)."""

    def test_lost_tests_are_found_and_replaced(self):
        import sys
        sys.path.insert(0, str(ROOT / "scripts"))
        import piglit
        lost_out = "piglit: error: waffle_display_connect failed due to WAFFLE_ERROR_UNKNOWN: " \
                   "XOpenDisplay failed\n"
        raw = {"tests": {
            "spec@a@plain": {"result": "fail", "out": lost_out, "err": ""},
            "spec@a@subs": {"result": "fail", "out": "", "err": lost_out,
                            "subtests": {"x": "fail", "y": "fail"}},
            "spec@a@real-fail": {"result": "fail", "out": "Probe color at (0,0)\n", "err": ""},
        }}
        tests = {"spec@a@plain": "fail", "spec@a@subs :: x": "fail", "spec@a@subs :: y": "fail",
                 "spec@a@real-fail": "fail"}
        self.assertEqual(piglit.display_lost(raw), ["spec@a@plain", "spec@a@subs"])
        new_raw = {"tests": {
            "spec@a@plain": {"result": "pass", "out": "", "err": ""},
            "spec@a@subs": {"result": "pass", "out": "", "err": "", "subtests": {"x": "pass"}},
        }}
        new_tests = {"spec@a@plain": "pass", "spec@a@subs :: x": "pass"}
        piglit.replace_results(tests, raw, piglit.display_lost(raw), new_tests, new_raw)
        self.assertEqual(tests, {"spec@a@plain": "pass", "spec@a@subs :: x": "pass",
                                 "spec@a@real-fail": "fail"})
        self.assertEqual(piglit.display_lost(raw), [])
        self.assertEqual(raw["tests"]["spec@a@real-fail"]["result"], "fail")
