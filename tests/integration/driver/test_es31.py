"""OpenGL ES 3.1 on vlgpu (vlg_es31.c through EGL surfaceless): the context is ES 3.1 with
GLSL ES 3.10 and the compute limits GL ES 3.1 asks for; a compute shader with an SSBO,
shared memory and barrier(), an atomic counter and imageStore, whose image a draw then
samples; images, an SSBO and atomic counters in the vertex and fragment shaders of a draw
(read back by mapping and by sampling the image); an indirect dispatch (gl_NumWorkGroups
from the buffer); texelFetch of every
sample of a 4-sample texture (ARB_texture_multisample) against coverage computed in the
program; the 2_10_10_10 vertex types (their size check, and their fetch read back with
transform feedback); glCopyImageSubDataOES between size-compatible and compressed formats;
transform feedback in separate mode with varyings of more than 4 components. Every expected
value is computed by vlg_es31.c on the host. Everything runs in
both simulator modes (cycle mode runs the functional dispatch: docs/simulator.md "Compute")."""

import unittest
from pathlib import Path

import driverlib
from driverlib import driver_problems, run_on


def es31_program():
    return driverlib.build_helper("vlg_es31.c", "vlg_es31", ["-lEGL", "-lGLESv2", "-lm"])


class Es31Test(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.program = es31_program()

    def run_tests(self, tests, functional):
        env = {"VLGPU_DEBUG": "functional"} if functional else None
        r = run_on("vlgpu", [str(self.program), *tests], env=env)
        self.assertEqual(r.returncode, 0, f"vlg_es31 {' '.join(tests)}:\n{r.stdout}\n{r.stderr}")
        self.assertEqual(driver_problems(r.stderr), [], r.stderr)
        for t in tests:
            self.assertIn(f"{t}: pass", r.stdout)
        return r

    def test_info_reports_es31_and_the_compute_limits(self):
        out = self.run_tests(["info"], functional=True).stdout
        fields = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
        self.assertRegex(fields["GL_VERSION"], r"^OpenGL ES 3\.1\b")
        self.assertIn("GLSL ES 3.10", fields["GL_SHADING_LANGUAGE_VERSION"])
        # GL ES 3.1 table 20.45 minimums
        self.assertGreaterEqual(int(fields["MAX_COMPUTE_WORK_GROUP_INVOCATIONS"]), 128)
        size = [int(v) for v in fields["MAX_COMPUTE_WORK_GROUP_SIZE"].split()]
        self.assertTrue(size[0] >= 128 and size[1] >= 128 and size[2] >= 64, size)
        count = [int(v) for v in fields["MAX_COMPUTE_WORK_GROUP_COUNT"].split()]
        self.assertTrue(all(c >= 65535 for c in count), count)
        self.assertGreaterEqual(int(fields["MAX_COMPUTE_SHARED_MEMORY_SIZE"]), 16384)
        self.assertGreaterEqual(int(fields["MAX_COMPUTE_SHADER_STORAGE_BLOCKS"]), 4)
        self.assertGreaterEqual(int(fields["MAX_COMPUTE_ATOMIC_COUNTER_BUFFERS"]), 1)
        self.assertGreaterEqual(int(fields["MAX_COMPUTE_IMAGE_UNIFORMS"]), 4)
        self.assertEqual(int(fields["MAX_COLOR_TEXTURE_SAMPLES"]), 4)

    def test_compute_functional(self):
        self.run_tests(["compute", "indirect"], functional=True)

    def test_compute_cycle(self):
        self.run_tests(["compute", "indirect"], functional=False)

    def test_msaa_texture_fetch_functional(self):
        self.run_tests(["msaa"], functional=True)

    def test_msaa_texture_fetch_cycle(self):
        self.run_tests(["msaa"], functional=False)

    def test_fragment_and_vertex_memory_functional(self):
        self.run_tests(["fragmem"], functional=True)

    def test_fragment_and_vertex_memory_cycle(self):
        self.run_tests(["fragmem"], functional=False)

    def test_copies_functional(self):
        self.run_tests(["copies"], functional=True)

    def test_copies_cycle_are_gpu_copy_commands(self):
        """In cycle mode the copies are COPY commands whose bytes the device's statistics
        record (VLGPU_STATS=DIR: submit-NNNNNN.json 'copies'): the 4 MiB - 100 byte buffer
        copy, the 10x12-pixel blit (12 rows of 40 bytes) and the two staged uploads (48 and
        96 bytes: 6 vec2 and 6 vec4 of fp32)."""
        import json
        d = driverlib.tempdir("vlgpu-copies")
        r = run_on("vlgpu", [str(self.program), "copies"], env={"VLGPU_STATS": str(d)})
        self.assertEqual(r.returncode, 0, f"{r.stdout}\n{r.stderr}")
        self.assertIn("copies: pass", r.stdout)
        copies = []
        for f in sorted(Path(d).glob("submit-*.json")):
            copies += json.loads(f.read_text()).get("copies", [])
        written = sorted(c["bytes"] for c in copies if not c.get("fault"))
        expected = sorted([4 * 1024 * 1024 - 100, 12 * 40, 48, 96])
        self.assertEqual(written, expected, json.dumps(copies, indent=1)[:3000])
        for c in copies:
            self.assertGreater(c["cycles"], 0, c)

    def test_vertex_2_10_10_10_functional(self):
        """The 2_10_10_10 vertex types: size 3 is INVALID_OPERATION (dEQP-GLES31
        vertex_attrib_format hit a Mesa assertion instead), and the four conversions
        read back with transform feedback match the spec's formulas."""
        self.run_tests(["vertex2101010"], functional=True)

    def test_vertex_2_10_10_10_cycle(self):
        self.run_tests(["vertex2101010"], functional=False)

    def test_copy_image_functional(self):
        """GL_OES_copy_image: byte copies between formats of one size class across mip
        levels, array layers, 3D slices and a cube face, and ETC2 blocks into RGBA32UI
        texels, read back and compared with the host's copy of the bytes."""
        self.run_tests(["copyimage"], functional=True)

    def test_copy_image_cycle(self):
        self.run_tests(["copyimage"], functional=False)

    def test_transform_feedback_separate_functional(self):
        """GL_SEPARATE_ATTRIBS with varyings of 16, 12, 6 and 4 components, one buffer
        each (one at an offset): MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS was 4, so a
        mat4 did not link (dEQP-GLES3 transform_feedback *separate* 'not supported')."""
        self.run_tests(["tfseparate"], functional=True)

    def test_transform_feedback_separate_cycle(self):
        self.run_tests(["tfseparate"], functional=False)

    def test_es2_flag_turns_es31_off(self):
        r = run_on("vlgpu", [str(self.program), "info"], env={"VLGPU_DEBUG": "es2"})
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cannot create an OpenGL ES 3.1", r.stderr)


if __name__ == "__main__":
    unittest.main()
