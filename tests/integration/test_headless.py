"""Headless EGL (surfaceless) through ./vlgpu run --headless: wflinfo (Debian
waffle-utils) creates a GLES2 context without any X server."""

import unittest

from vlgpu_testlib import field, find_program, launch

WFLINFO = find_program("wflinfo")


@unittest.skipUnless(WFLINFO, "wflinfo not installed (Debian waffle-utils)")
class HeadlessTest(unittest.TestCase):
    def test_surfaceless_gles2_on_vlgpu(self):
        r = launch(["run", "--headless", "--driver", "vlgpu", "--", WFLINFO,
                    "--platform", "surfaceless_egl", "--api", "gles2"],
                   env_remove=["DISPLAY", "GALLIUM_DRIVER"])
        self.assertEqual(r.returncode, 0, f"wflinfo failed:\n{r.stdout}\n{r.stderr}")
        self.assertIn("vlgpu", field(r.stdout, "OpenGL renderer string") or "", r.stdout)
        self.assertRegex(field(r.stdout, "OpenGL version string") or "", r"^OpenGL ES 2\.0\b")


if __name__ == "__main__":
    unittest.main()
