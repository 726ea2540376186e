"""The per-instruction shader profile (`./vlgpu profile`, VLGPU_PROFILE;
docs/simulator.md "Shader profile") of a real program: glmark2's texture
scene, whose fragment shader fetches one texel and then uses it. The
texel's latency must show as memory stalls on the first instruction that
reads the TEX's destination, the shader's hottest line, and every
instruction of a shader issues equally often (straight-line code)."""

import json
import os
import re
import subprocess
import unittest

import driverlib

ROOT = driverlib.ROOT


def reads(text, reg):
    """Whether the instruction @text reads register @reg ("R1") as a source:
    any operand after the first (the destination) of either phase."""
    for phase in text.split("|"):
        ops = [o.strip() for o in phase.strip().split(" ", 1)[-1].split(",")]
        if any(re.match(rf"{reg}(\.|$)", o) for o in ops[1:]):
            return True
    return False


class ProfileTest(unittest.TestCase):
    def test_texture_latency_on_first_reader(self):
        out = driverlib.tempdir("profile")
        capture = out / "shaders"
        capture.mkdir()
        # Mesa writes each linked GL program's GLSL to CAPTURE/N.shader_test,
        # N the program object's name: the N of the profile's "GLSLN"
        env = dict(os.environ, MESA_SHADER_CAPTURE_PATH=str(capture))
        r = subprocess.run([str(ROOT / "vlgpu"), "profile", "--glmark2", "texture",
                            "--frames", "2", "--out", str(out), "--top", "2"],
                           capture_output=True, text=True, timeout=600, env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("<- hottest", r.stdout)
        prof = json.loads((out / "profile.json").read_text())
        fs = [s for s in prof["shaders"] if s["stage"] == "fs"
              and any(i["text"].startswith("TEX ") for i in s["instructions"])]
        self.assertTrue(fs, prof)
        s = fs[0]
        ins = s["instructions"]
        tex = next(k for k, i in enumerate(ins) if i["text"].startswith("TEX "))
        dest = ins[tex]["text"].split()[1].rstrip(",").split(".")[0]
        reader = next(k for k in range(tex + 1, len(ins)) if reads(ins[k]["text"], dest))
        memory = [i["stalls"]["memory"] for i in ins]
        self.assertEqual(max(range(len(ins)), key=memory.__getitem__), reader,
                         f"memory stalls {memory}, TEX at {tex}, first reader of {dest} at "
                         f"{reader}")
        self.assertGreater(memory[reader], 10 * memory[tex])
        self.assertEqual(len({i["issues"] for i in ins}), 1, ins)
        self.assertEqual(s["issues"], sum(i["issues"] for i in ins))
        # named by the driver's label of its code: "FS <CSO> GLSL<program>", whose
        # GLSL source Mesa captured is the texture scene's fragment shader
        m = re.fullmatch(r"FS \d+ GLSL(\d+)", s.get("name", ""))
        self.assertTrue(m, s.get("name"))
        self.assertIn(f'"{s["name"]}"', r.stdout)
        source = (capture / f"{m.group(1)}.shader_test").read_text()
        fragment = source.split("[fragment shader]", 1)[1]
        self.assertIn("texture2D", fragment)


if __name__ == "__main__":
    unittest.main()
