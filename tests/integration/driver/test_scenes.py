"""EGL surfaceless scenes (vlg_scenes.c: triangles, strips and fans, culling,
indexed draws with 8/16/32-bit indices, depth test and polygon offset,
blending, mipmapped and wrapped textures, L8/A8/LA/565 textures, clears with
scissor and colour mask, point sprites, wide lines, stencil, cube maps,
render-to-texture, dynamic buffers and uniforms; in GL ES 3.0: uniform blocks and
transform feedback, glClipControlEXT, scaled and flipped depth/stencil blits, sRGB R8/RG8
textures, half-float colour buffers) drawn by vlgpu (cycle mode) and by softpipe in the
same run and compared image by image (metric: driverlib)."""

import unittest

import driverlib
from driverlib import compare, distinct_colors, driver_problems, load_rgba, run_on

# Scenes whose pictures may differ from softpipe's by one step in pixels that
# are blended twice: softpipe keeps colour tiles as floats between blends,
# the OMU quantizes every write like hardware (docs/simulator-pipeline.md,
# "Where vlgpu differs from softpipe").  Every other scene must be identical.
BLENDED_TWICE = {"blend"}


class ScenesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.program = driverlib.scenes_program()
        cls.out = driverlib.tempdir("scenes")
        cls.runs = {}
        for driver in ("vlgpu", "softpipe"):
            d = cls.out / driver
            d.mkdir()
            cls.runs[driver] = run_on(driver, [str(cls.program), str(d)])
        names = run_on("softpipe", [str(cls.program), "--list"]).stdout.split()
        cls.scenes = [n for n in names if n]

    def test_programs_ran(self):
        for driver, r in self.runs.items():
            self.assertEqual(r.returncode, 0, f"vlg_scenes on {driver}:\n{r.stderr}")
            self.assertIn(f"GL_RENDERER {'softpipe' if driver == 'softpipe' else 'vlgpu'}",
                          r.stderr)
        self.assertEqual(driver_problems(self.runs["vlgpu"].stderr), [],
                         self.runs["vlgpu"].stderr)
        self.assertGreaterEqual(len(self.scenes), 15)

    def test_scenes_match_softpipe(self):
        report = []
        for scene in self.scenes:
            with self.subTest(scene=scene):
                v = load_rgba(self.out / "vlgpu" / f"{scene}.png")
                s = load_rgba(self.out / "softpipe" / f"{scene}.png")
                m = compare(v, s)
                report.append(f"{scene}: max error {m['max_error']}, "
                              f"{m['differing_pixels']} px differ, PSNR {m['psnr_db']:.1f} dB")
                # Not a blank picture on either side (the scene drew something).
                self.assertGreater(distinct_colors(s), 1, f"softpipe drew nothing in {scene}")
                if scene in BLENDED_TWICE:
                    self.assertLessEqual(m["max_error"], 1, report[-1])
                else:
                    self.assertEqual(m["max_error"], 0, report[-1])
        print("\n   " + "\n   ".join(report))


if __name__ == "__main__":
    unittest.main()
