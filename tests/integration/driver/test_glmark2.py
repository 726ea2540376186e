"""glmark2-es2 --validate (Debian glmark2-es2-x11): glmark2 renders a frame of
each scene and compares pixels it reads back with its own reference values
(Validation: Success/Failure/Unknown).  A few fast scenes that together use
vertex buffers and client arrays, textures with nearest/linear/mipmap
filtering, per-pixel lighting, a 2D convolution reading a render-to-texture
target, blended desktop windows, and shader loops and branches; each must
report Success on vlgpu, as it does on softpipe (checked in the same run).
Functional mode (VLGPU_DEBUG=functional) keeps the test within CI time."""

import json
import re
import unittest

import driverlib
from driverlib import compare, distinct_colors, driver_problems, load_rgba, run_on
from vlgpu_testlib import find_program, launch

GLMARK2 = find_program("glmark2-es2")
SCENES = [
    "build:use-vbo=true",
    "build:use-vbo=false",
    "texture:texture-filter=mipmap",
    "shading:shading=phong",
    "effect2d:kernel=0,1,0;1,-4,1;0,1,0;",
    "desktop:effect=shadow:windows=4",
    "loop:fragment-steps=5:fragment-uniform=true:vertex-steps=5",
]
LINE = re.compile(r"^\[(?P<scene>[^\]]+)\] (?P<opts>.*): Validation: (?P<result>\w+)\s*$", re.M)


@unittest.skipUnless(GLMARK2, "glmark2-es2 not installed (Debian glmark2-es2-x11)")
class Glmark2ValidateTest(unittest.TestCase):
    def validate(self, driver, env=None):
        args = [GLMARK2, "--validate", "--off-screen"]
        for s in SCENES:
            args += ["-b", s]
        r = run_on(driver, args, env=env, headless=False,
                   env_remove=("GALLIUM_DRIVER", "DISPLAY"), timeout=600)
        self.assertEqual(r.returncode, 0, f"glmark2 on {driver}:\n{r.stdout}\n{r.stderr}")
        return r, [(m["scene"], m["opts"], m["result"]) for m in LINE.finditer(r.stdout)]

    def test_scenes_validate_on_vlgpu_like_softpipe(self):
        rv, vlgpu = self.validate("vlgpu", {"VLGPU_DEBUG": "functional"})
        _, softpipe = self.validate("softpipe")
        self.assertEqual(len(vlgpu), len(SCENES), rv.stdout)
        self.assertEqual(driver_problems(rv.stderr), [], rv.stderr)
        print()
        for (scene, opts, res), (_, _, ref) in zip(vlgpu, softpipe):
            print(f"   [{scene}] {opts}: vlgpu {res}, softpipe {ref}")
            self.assertEqual(ref, "Success", f"softpipe: [{scene}] {opts}")
            self.assertEqual(res, "Success", f"vlgpu: [{scene}] {opts}")


# Default scenes glmark2 has no reference for (Validation: Unknown): their
# validated frames are compared with softpipe's instead (the fast ones of the
# six; ./vlgpu glmark2 -- --referenceless runs all six at 800x600).  [ideas]
# starts from a black screen, so its third frame 1.5 s apart is compared.
REFERENCELESS = ["shading:shading=cel", "jellyfish", "shadow"]
MIN_PSNR_DB = 40.0


@unittest.skipUnless(GLMARK2, "glmark2-es2 not installed (Debian glmark2-es2-x11)")
class Glmark2ReferencelessTest(unittest.TestCase):
    def grab(self, driver, outdir, env=None, validate=True, scenes=REFERENCELESS, frames=0):
        outdir.mkdir()
        shim = {"LD_PRELOAD": driverlib.framegrab_preload(), "VLG_GRAB_DIR": str(outdir),
                "VLG_GRAB_AT_FINISH": "1", "VLG_GRAB_FRAMES": str(frames),
                "VLG_GRAB_STEP_MS": "1500"}
        args = ["env"] + [f"{k}={v}" for k, v in shim.items()] + \
            [GLMARK2, "--off-screen", "-s", "400x300"] + (["--validate"] if validate else [])
        for s in scenes:
            args += ["-b", s]
        r = run_on(driver, args, env=env, headless=False,
                   env_remove=("GALLIUM_DRIVER", "DISPLAY"), timeout=600)
        self.assertEqual(r.returncode, 0, f"glmark2 on {driver}:\n{r.stdout}\n{r.stderr}")
        # --validate: one frame per scene, in scene order.
        self.assertEqual(len(list(outdir.glob("frame-*.rgba"))),
                         len(scenes) if validate else frames, r.stdout)
        return r

    def test_ideas_third_frame_matches_softpipe(self):
        out = driverlib.tempdir("glmark2-ideas")
        rv = self.grab("vlgpu", out / "vlgpu", {"VLGPU_DEBUG": "functional"}, validate=False,
                       scenes=["ideas:speed=duration"], frames=3)
        self.grab("softpipe", out / "softpipe", validate=False, scenes=["ideas:speed=duration"],
                  frames=3)
        self.assertEqual(driver_problems(rv.stderr), [], rv.stderr)
        v, s = load_rgba(out / "vlgpu/frame-002.rgba"), load_rgba(out / "softpipe/frame-002.rgba")
        m = compare(v, s)
        print(f"\n   ideas frame 2 (t = 3 s): PSNR {m['psnr_db']:.1f} dB, max error "
              f"{m['max_error']}, {m['differing_pixels']} of {m['pixels']} px differ", end="")
        self.assertGreater(distinct_colors(s), 100)
        self.assertGreaterEqual(m["psnr_db"], MIN_PSNR_DB)

    def test_frames_match_softpipe(self):
        out = driverlib.tempdir("glmark2-referenceless")
        rv = self.grab("vlgpu", out / "vlgpu", {"VLGPU_DEBUG": "functional"})
        self.grab("softpipe", out / "softpipe")
        self.assertEqual(driver_problems(rv.stderr), [], rv.stderr)
        print()
        for i, scene in enumerate(REFERENCELESS):
            name = f"frame-{i:03d}.rgba"
            v, s = load_rgba(out / "vlgpu" / name), load_rgba(out / "softpipe" / name)
            m = compare(v, s)
            print(f"   {scene}: PSNR {m['psnr_db']:.1f} dB, max error {m['max_error']}, "
                  f"{m['differing_pixels']} of {m['pixels']} px differ")
            self.assertGreater(distinct_colors(s), 2, scene)  # a picture, not a clear
            self.assertGreaterEqual(m["psnr_db"], MIN_PSNR_DB, scene)


@unittest.skipUnless(GLMARK2, "glmark2-es2 not installed (Debian glmark2-es2-x11)")
class Glmark2ScriptTest(unittest.TestCase):
    """./vlgpu glmark2 (scripts/glmark2.py): one scene, two frames, both drivers."""

    def test_one_scene(self):
        out = driverlib.tempdir("glmark2-script")
        r = launch(["glmark2", "--", "-b", "shading:shading=gouraud", "--frames", "2",
                    "-s", "200x150", "--min-psnr", "40", "--out", str(out)],
                   env_remove=("GALLIUM_DRIVER", "DISPLAY"), timeout=300)
        self.assertEqual(r.returncode, 0, f"{r.stdout}\n{r.stderr}")
        res = json.loads((out / "results.json").read_text())["scenes"]
        self.assertEqual(len(res), 1)
        for d in ("vlgpu", "softpipe"):
            self.assertEqual(res[0][d]["frames"], 2)
            self.assertGreater(res[0][d]["host_seconds_per_frame"], 0)
        self.assertGreaterEqual(res[0]["compare"]["psnr_db"], 40)
        scene_dir = out / "01-shading-shading=gouraud"
        for png in ("vlgpu.png", "softpipe.png", "diff.png"):
            self.assertTrue((scene_dir / png).exists(), png)
        self.assertRegex(r.stdout, r"shading:shading=gouraud +2 fr +2 fr")


if __name__ == "__main__":
    unittest.main()
