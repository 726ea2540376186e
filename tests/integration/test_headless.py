"""Headless EGL (surfaceless) through ./vlgpu run --headless: wflinfo (Debian
waffle-utils) creates GLES contexts without any X server.  vlgpu offers
OpenGL ES 3.0 (transform feedback, docs/driver.md "OpenGL ES 3.0"), so a GLES2
request gets an ES 3.0 context; VLGPU_DEBUG=es2 reports the ES 2.0
configuration."""

import unittest

from vlgpu_testlib import field, find_program, launch

WFLINFO = find_program("wflinfo")


def wflinfo(api, debug=None):
    return launch(["run", "--headless", "--driver", "vlgpu", "--", WFLINFO,
                   "--platform", "surfaceless_egl", "--api", api],
                  env_update={"VLGPU_DEBUG": debug} if debug else None,
                  env_remove=["DISPLAY", "GALLIUM_DRIVER"] + ([] if debug else ["VLGPU_DEBUG"]))


@unittest.skipUnless(WFLINFO, "wflinfo not installed (Debian waffle-utils)")
class HeadlessTest(unittest.TestCase):
    def test_surfaceless_gles2_on_vlgpu(self):
        r = wflinfo("gles2")
        self.assertEqual(r.returncode, 0, f"wflinfo failed:\n{r.stdout}\n{r.stderr}")
        self.assertIn("vlgpu", field(r.stdout, "OpenGL renderer string") or "", r.stdout)
        self.assertRegex(field(r.stdout, "OpenGL version string") or "", r"^OpenGL ES 3\.1\b")

    def test_surfaceless_gles3_on_vlgpu(self):
        r = wflinfo("gles3")
        self.assertEqual(r.returncode, 0, f"wflinfo failed:\n{r.stdout}\n{r.stderr}")
        self.assertRegex(field(r.stdout, "OpenGL version string") or "", r"^OpenGL ES 3\.1\b")

    def test_es2_flag_gives_es2(self):
        r = wflinfo("gles2", debug="es2")
        self.assertEqual(r.returncode, 0, f"wflinfo failed:\n{r.stdout}\n{r.stderr}")
        self.assertRegex(field(r.stdout, "OpenGL version string") or "", r"^OpenGL ES 2\.0\b")


if __name__ == "__main__":
    unittest.main()
