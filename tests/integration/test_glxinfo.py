"""glxinfo -B (Debian mesa-utils) through ./vlgpu run: GLX on a private Xvfb loads
the built Mesa and the vlgpu screen."""

import unittest

from vlgpu_testlib import field, find_program, launch

GLXINFO = find_program("glxinfo", "glxinfo.x86_64-linux-gnu")


@unittest.skipUnless(GLXINFO, "glxinfo not installed (Debian mesa-utils)")
class GlxinfoTest(unittest.TestCase):
    def test_vlgpu_renderer(self):
        r = launch(["run", "--driver", "vlgpu", "--", GLXINFO, "-B"],
                   env_remove=["DISPLAY", "GALLIUM_DRIVER"])
        self.assertEqual(r.returncode, 0, f"glxinfo failed:\n{r.stdout}\n{r.stderr}")
        self.assertIn("vlgpu", field(r.stdout, "OpenGL renderer string") or "", r.stdout)
        # ES 3.1 (compute shaders, multisample textures: docs/driver.md "OpenGL ES
        # 3.1"), not 3.2
        self.assertIn("OpenGL ES profile version string: OpenGL ES 3.1 ", r.stdout)
        # desktop profiles: OpenGL 3.2, GLSL 1.50 (texel buffers, geometry shaders:
        # docs/driver.md "Desktop OpenGL 3.2")
        self.assertIn("OpenGL version string: 3.2 (Compatibility Profile)", r.stdout)
        self.assertIn("OpenGL core profile version string: 3.2 (Core Profile)", r.stdout)
        self.assertIn("OpenGL core profile shading language version string: 1.50", r.stdout)

    def test_softpipe_renderer(self):
        r = launch(["run", "--driver", "softpipe", "--", GLXINFO, "-B"],
                   env_remove=["DISPLAY", "GALLIUM_DRIVER"])
        self.assertEqual(r.returncode, 0, f"glxinfo failed:\n{r.stdout}\n{r.stderr}")
        self.assertEqual(field(r.stdout, "OpenGL renderer string"), "softpipe")


if __name__ == "__main__":
    unittest.main()
