"""es2_info (Debian mesa-utils-bin) through ./vlgpu run: the vlgpu screen creates an
OpenGL ES context (ES 3.1, which ES 2.0 programs get), and softpipe still works in the
same build."""

import unittest

from vlgpu_testlib import field, find_program, launch

ES2_INFO = find_program("es2_info.x86_64-linux-gnu", "es2_info")


@unittest.skipUnless(ES2_INFO, "es2_info not installed (Debian mesa-utils-bin)")
class Es2InfoTest(unittest.TestCase):
    def run_es2_info(self, *launcher_args, env_update=None):
        r = launch(["run", *launcher_args, "--", ES2_INFO], env_update=env_update,
                   env_remove=["DISPLAY", "GALLIUM_DRIVER"])
        self.assertEqual(r.returncode, 0, f"es2_info failed:\n{r.stdout}\n{r.stderr}")
        return r

    def test_vlgpu_renderer_and_es2_version(self):
        r = self.run_es2_info("--driver", "vlgpu")
        renderer = field(r.stdout, "GL_RENDERER")
        version = field(r.stdout, "GL_VERSION")
        self.assertIsNotNone(renderer, r.stdout)
        self.assertIn("vlgpu", renderer)
        # ES 3.1 exactly (compute shaders, SSBOs, images, atomic counters and
        # multisample textures, docs/driver.md "OpenGL ES 3.1"), GLSL ES 3.10;
        # not 3.2 (no geometry/tessellation shaders).
        self.assertRegex(version or "", r"^OpenGL ES 3\.1\b")
        self.assertIn("GLSL ES 3.10", field(r.stdout, "GL_SHADING_LANGUAGE_VERSION") or "")

    def test_es2_flag_keeps_es2(self):
        # VLGPU_DEBUG=es2 turns compute, images, SSBOs and multisample textures off
        # with the rest of ES 3.x.
        r = self.run_es2_info("--driver", "vlgpu", env_update={"VLGPU_DEBUG": "es2"})
        self.assertRegex(field(r.stdout, "GL_VERSION") or "", r"^OpenGL ES 2\.0\b")

    def test_vlgpu_is_default_driver(self):
        r = self.run_es2_info()
        self.assertIn("vlgpu", field(r.stdout, "GL_RENDERER") or "")

    def test_softpipe_with_driver_option(self):
        r = self.run_es2_info("--driver", "softpipe")
        self.assertEqual(field(r.stdout, "GL_RENDERER"), "softpipe")

    def test_softpipe_from_environment(self):
        # Without --driver the launcher must respect GALLIUM_DRIVER.
        r = self.run_es2_info(env_update={"GALLIUM_DRIVER": "softpipe"})
        self.assertEqual(field(r.stdout, "GL_RENDERER"), "softpipe")


if __name__ == "__main__":
    unittest.main()
