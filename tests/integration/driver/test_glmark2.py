"""glmark2-es2 --validate (Debian glmark2-es2-x11): glmark2 renders a frame of
each scene and compares pixels it reads back with its own reference values
(Validation: Success/Failure/Unknown).  A few fast scenes that together use
vertex buffers and client arrays, textures with nearest/linear/mipmap
filtering, per-pixel lighting, a 2D convolution reading a render-to-texture
target, blended desktop windows, and shader loops and branches; each must
report Success on vlgpu, as it does on softpipe (checked in the same run).
Functional mode (VLGPU_DEBUG=functional) keeps the test within CI time."""

import re
import unittest

from driverlib import driver_problems, run_on
from vlgpu_testlib import find_program

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


if __name__ == "__main__":
    unittest.main()
