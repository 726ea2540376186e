"""VLGPU_DEBUG: `help` makes Mesa print the flag table (debug_get_flags_option),
`nir` prints the NIR the driver receives, `es2` reports the ES 2.0
configuration: no OpenGL ES 3.0 context, which the default caps give, and the
compiler's switches (`nodual`, ...) turn one optimisation off."""

import re
import unittest

from vlgpu_testlib import find_program, launch

ES2_INFO = find_program("es2_info.x86_64-linux-gnu", "es2_info")
ES2GEARS = find_program("es2gears_x11", "es2gears_x11.x86_64-linux-gnu")
FLAGS = ["nir", "shaders", "stats", "functional", "dump", "es2", "ice_abort",
         # the compiler's switches (vlg_compile_switch_name without the hyphen)
         "nolowbank", "nopack", "nodual", "nosched", "nocoalesce", "noniropt", "novectorize",
         "noreassoc"]
WFLINFO = find_program("wflinfo")


@unittest.skipUnless(ES2_INFO, "es2_info not installed (Debian mesa-utils-bin)")
class DebugFlagsTest(unittest.TestCase):
    def test_help_lists_flags(self):
        r = launch(["run", "--driver", "vlgpu", "--", ES2_INFO],
                   env_update={"VLGPU_DEBUG": "help"}, env_remove=["DISPLAY"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("help for VLGPU_DEBUG", r.stderr)
        table = [line for line in r.stderr.splitlines() if line.startswith("|")]
        for flag in FLAGS:
            rows = [line for line in table if line.split()[1:2] == [flag]]
            self.assertEqual(len(rows), 1, f"flag {flag} not listed once:\n{r.stderr}")
            # Each flag is documented: something after the [0x…] value.
            self.assertRegex(rows[0], r"\[0x[0-9a-f]+\] \S")


@unittest.skipUnless(ES2GEARS, "es2gears_x11 not installed (Debian mesa-utils-bin)")
class DebugNirTest(unittest.TestCase):
    def test_nir_prints_received_shaders(self):
        # es2gears compiles its shaders at start-up; `timeout` ends it after 3 s.
        r = launch(["run", "--driver", "vlgpu", "--", "timeout", "3", ES2GEARS],
                   env_update={"VLGPU_DEBUG": "nir"}, env_remove=["DISPLAY"])
        self.assertEqual(r.returncode, 124, f"es2gears did not keep running:\n{r.stderr}")
        self.assertRegex(r.stderr, r"vlgpu: vertex shader \d+ \(NIR as received\)")
        self.assertRegex(r.stderr, r"vlgpu: fragment shader \d+ \(NIR as received\)")
        self.assertIn("decl_function main", r.stderr)


@unittest.skipUnless(ES2GEARS, "es2gears_x11 not installed (Debian mesa-utils-bin)")
class DebugCompilerSwitchTest(unittest.TestCase):
    STATS = re.compile(r"; VS \d+ \S+: (\d+) instrs, (\d+) ops, .* ([0-9.]+) dual")

    def vs_stats(self, debug):
        r = launch(["run", "--driver", "vlgpu", "--", "timeout", "3", ES2GEARS],
                   env_update={"VLGPU_DEBUG": debug}, env_remove=["DISPLAY"])
        self.assertEqual(r.returncode, 124, f"es2gears did not keep running:\n{r.stderr}")
        m = self.STATS.search(r.stderr)
        self.assertIsNotNone(m, f"no VS statistics line:\n{r.stderr}")
        return int(m.group(1)), int(m.group(2)), float(m.group(3))

    def test_nodual_puts_one_op_per_instruction(self):
        # es2gears' vertex shader pairs some ops (docs/compiler.md "Dual-phase pairing");
        # with nodual every instruction holds one op, so instructions == ops.
        instrs, ops, dual = self.vs_stats("shaders")
        self.assertGreater(dual, 0.0)
        self.assertLess(instrs, ops)
        instrs, ops, dual = self.vs_stats("shaders,nodual")
        self.assertEqual(dual, 0.0)
        self.assertEqual(instrs, ops)


@unittest.skipUnless(WFLINFO, "wflinfo not installed (Debian waffle-utils)")
class DebugEs2Test(unittest.TestCase):
    def gles3(self, debug):
        return launch(["run", "--driver", "vlgpu", "--headless", "--",
                       WFLINFO, "-p", "surfaceless_egl", "-a", "gles3", "--verbose"],
                      env_update={"VLGPU_DEBUG": debug}, env_remove=["DISPLAY"])

    def test_es2_flag_refuses_es3_context(self):
        # Default: ES 3.1 (compute, docs/driver.md "OpenGL ES 3.1").
        r = self.gles3("")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("OpenGL version string: OpenGL ES 3.1", r.stdout)
        self.assertIn("OpenGL shading language version string: "
                      "OpenGL ES GLSL ES 3.10", r.stdout)
        # es2: GLSL 1.20, no stream output: EGL refuses an ES 3 context.
        r = self.gles3("es2")
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertNotIn("OpenGL ES 3", r.stdout)


if __name__ == "__main__":
    unittest.main()
