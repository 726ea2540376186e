"""The readable per-draw dump through the driver (docs/dump.md): VLGPU_DUMP
writes every draw of a GL program; `./vlgpu replay` of the unedited draw is
identical to the live run; editing one blend factor in draw.txt changes the
replayed picture exactly as GL ES 2.0 §4.1.7 (blending) says.

The draw is vlg_scenes' "blendedit": clear to (0.2, 0.4, 0.6, 1), then one
quad of colour (0.8, 0.2, 0.4) alpha 0.5 over the middle of the pbuffer with
glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA)."""

import re
import unittest

import driverlib
from driverlib import load_rgba, run_on
from vlgpu_testlib import find_program, launch

CLEAR = (0.2, 0.4, 0.6)
SRC = (0.8, 0.2, 0.4)
ALPHA = 0.5


def unorm8(x):
    return round(min(max(x, 0.0), 1.0) * 255)


def expected(dst_factor):
    """GL ES 2.0 §4.1.7: RGB = src * As + dst * dst_factor."""
    f = {"INV_SRC_ALPHA": 1.0 - ALPHA, "ZERO": 0.0, "ONE": 1.0}[dst_factor]
    return tuple(unorm8(s * ALPHA + d * f) for s, d in zip(SRC, CLEAR))


class DumpTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = driverlib.tempdir("dump")
        cls.dump = cls.out / "dump"
        r = run_on("vlgpu", [str(driverlib.scenes_program()), str(cls.out), "blendedit"],
                   env={"VLGPU_DUMP": str(cls.dump), "VLGPU_DEBUG": "functional"})
        assert r.returncode == 0, r.stderr
        draws = sorted(cls.dump.glob("draw-*"))
        cls.draw = [d for d in draws
                    if re.search(r"^kind\s*=\s*PRIMITIVES", (d / "draw.txt").read_text(), re.M)]

    def replay(self, name, text=None):
        """Replay the draw (draw.txt replaced by TEXT if given) into OUT/NAME."""
        src = self.draw[0]
        if text is not None:
            edited = self.out / f"{name}-dump"
            edited.mkdir()
            for f in src.iterdir():
                if f.is_file():
                    (edited / f.name).write_bytes(f.read_bytes())
            (edited / "draw.txt").write_text(text)
            src = edited
        out = self.out / name
        r = launch(["replay", str(src), "--mode", "functional", "-o", str(out)])
        self.assertEqual(r.returncode, 0, f"replay failed:\n{r.stdout}\n{r.stderr}")
        return r, load_rgba(out / "rt0.png")

    def pixel(self, img, x, y):
        return tuple(int(c) for c in img[y, x, :3])

    def test_one_primitive_draw_among_the_clears(self):
        # 2 clears (the program's reset and the scene's) and the quad.
        self.assertEqual(len(list(self.dump.glob("draw-*"))), 3)
        self.assertEqual(len(self.draw), 1)
        self.assertTrue((self.draw[0] / "fs.s").exists())

    def test_live_picture(self):
        after = load_rgba(self.draw[0] / "rt0-after.png")
        h, w = after.shape[:2]
        for got, want in ((self.pixel(after, w // 2, h // 2), expected("INV_SRC_ALPHA")),
                          (self.pixel(after, 2, 2), tuple(unorm8(c) for c in CLEAR))):
            for g, e in zip(got, want):
                self.assertLessEqual(abs(g - e), 1, f"{got} vs GL {want}")

    def test_unedited_replay_is_identical(self):
        r, img = self.replay("unedited")
        self.assertIn("rt0 identical to the dump", r.stdout)
        live = load_rgba(self.draw[0] / "rt0-after.png")
        self.assertEqual(driverlib.compare(img, live)["max_error"], 0)

    def test_edited_blend_factor_changes_the_picture_as_gl_says(self):
        text = (self.draw[0] / "draw.txt").read_text()
        pattern = r"^(rt\[0\]\.rgb_dst_factor\s*=\s*)INV_SRC_ALPHA"
        self.assertRegex(text, re.compile(pattern, re.M))
        for factor in ("ZERO", "ONE"):
            with self.subTest(factor=factor):
                edited = re.sub(pattern, r"\g<1>" + factor, text, flags=re.M)
                r, img = self.replay(f"edited-{factor}", edited)
                self.assertRegex(r.stdout, r"rt0: \d+ of \d+ pixels differ from the dump")
                h, w = img.shape[:2]
                got = self.pixel(img, w // 2, h // 2)
                for g, e in zip(got, expected(factor)):
                    self.assertLessEqual(abs(g - e), 1, f"{factor}: {got} vs GL {expected(factor)}")
                # Outside the quad: the clear colour, untouched.
                self.assertEqual(self.pixel(img, 2, 2), tuple(unorm8(c) for c in CLEAR))


GLMARK2 = find_program("glmark2-es2")


@unittest.skipUnless(GLMARK2, "glmark2-es2 not installed (Debian glmark2-es2-x11)")
class Glmark2DumpEditTest(unittest.TestCase):
    """One draw of a real program, edited by hand: glmark2's [build] scene (the
    horse, depth test LEQUAL, no blending) dumped on vlgpu; its colour write
    mask and its depth function are edited in draw.txt.  GL ES 2.0 §4.2.2
    (glColorMask): masked channels keep what the framebuffer held before the
    draw, the others get what the unedited draw wrote; §4.1.5: depth function
    NEVER passes no fragment, so the picture is the one before the draw."""

    @classmethod
    def setUpClass(cls):
        cls.out = driverlib.tempdir("dump-glmark2")
        dump = cls.out / "dump"
        r = run_on("vlgpu", [GLMARK2, "--off-screen", "--validate", "-s", "160x120",
                             "-b", "build:use-vbo=true"],
                   env={"VLGPU_DUMP": str(dump), "VLGPU_DEBUG": "functional"},
                   headless=False, env_remove=("GALLIUM_DRIVER", "DISPLAY"))
        assert r.returncode == 0, r.stderr
        cls.draws = [d for d in sorted(dump.glob("draw-*"))
                     if re.search(r"^kind\s*=\s*PRIMITIVES", (d / "draw.txt").read_text(), re.M)]

    def replay_edited(self, name, pattern, replacement):
        src = self.draws[0]
        text = (src / "draw.txt").read_text()
        self.assertRegex(text, re.compile(pattern, re.M))
        edited = self.out / f"{name}-dump"
        edited.mkdir()
        for f in src.iterdir():
            if f.is_file():
                (edited / f.name).write_bytes(f.read_bytes())
        (edited / "draw.txt").write_text(re.sub(pattern, replacement, text, flags=re.M))
        out = self.out / name
        r = launch(["replay", str(edited), "--mode", "functional", "-o", str(out)])
        self.assertEqual(r.returncode, 0, f"replay failed:\n{r.stdout}\n{r.stderr}")
        return load_rgba(out / "rt0.png")

    def test_one_horse_draw(self):
        self.assertEqual(len(self.draws), 1)

    def test_colormask_red_only(self):
        before = load_rgba(self.draws[0] / "rt0-before.png")
        after = load_rgba(self.draws[0] / "rt0-after.png")
        # The draw changes all three colour channels somewhere (else the
        # check below could not fail).
        for c in range(3):
            self.assertGreater(int((before[..., c] != after[..., c]).sum()), 100)
        img = self.replay_edited("colormask-r", r"^(rt\[0\]\.colormask\s*=\s*)0xf\b",
                                 r"\g<1>0x1")
        self.assertTrue((img[..., 0] == after[..., 0]).all(), "R: as the unedited draw")
        self.assertTrue((img[..., 1:] == before[..., 1:]).all(), "G, B, A: as before the draw")

    def test_depth_func_never(self):
        before = load_rgba(self.draws[0] / "rt0-before.png")
        img = self.replay_edited("depth-never", r"^(depth_func\s*=\s*)LEQUAL\b", r"\g<1>NEVER")
        self.assertTrue((img == before).all())


if __name__ == "__main__":
    unittest.main()
