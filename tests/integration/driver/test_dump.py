"""The readable per-draw dump through the driver (docs/dump.md): VLGPU_DUMP
writes every draw of a GL program; `./vlgpu replay` of the unedited draw is
identical to the live run; editing one blend factor in draw.txt changes the
replayed picture exactly as GL ES 2.0 §4.1.7 (blending) says.

The draw is vlg_scenes' "blendedit": clear to (0.2, 0.4, 0.6, 1), then one
quad of colour (0.8, 0.2, 0.4) alpha 0.5 over the middle of the pbuffer with
glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA)."""

import re
import struct
import unittest
from pathlib import Path

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


def hex_bytes(path):
    """The bytes of a dump hex file (docs/dump.md "index.hex, vb<i>.hex") as
    {VRAM address: byte}."""
    out = {}
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        addr, data = line.split(":", 1)
        for i, b in enumerate(data.split()):
            out[int(addr, 16) + i] = int(b, 16)
    return out


def floats_at(mem, addr, n):
    return list(struct.unpack(f"<{n}f", bytes(mem[addr + i] for i in range(4 * n))))


class UniformBlockAndStreamOutputDumpTest(unittest.TestCase):
    """A GL ES 3.0 draw with a uniform block read by both shaders and transform
    feedback (vlg_scenes "uboxfb": the block Params = {offset (0.125, -0.25, 0,
    0), color (0.25, 0.5, 0.75, 1)}, tf_pos = a_pos * 2 + offset captured for
    two triangles of the quad [-0.5, 0.5]^2, a primitives-written query). The
    dump must carry the uniform-buffer bytes (vs-buffer1.hex, fs-buffer1.hex),
    the stream_output block, its buffer and the query counters; the unedited
    replay reproduces picture, captured vertices and counters (the occlusion
    counter too: the draw is inside a GL_ANY_SAMPLES_PASSED query); an edited
    colour in the uniform block changes the picture to that colour (GL ES 3.0
    §2.11.7: the FS outputs the block member)."""

    COLOR = (0.25, 0.5, 0.75, 1.0)
    OFFSET = (0.125, -0.25, 0.0, 0.0)
    QUAD = [(-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (-0.5, 0.5), (0.5, -0.5), (0.5, 0.5)]

    @classmethod
    def setUpClass(cls):
        cls.out = driverlib.tempdir("dump-uboxfb")
        dump = cls.out / "dump"
        r = run_on("vlgpu", [str(driverlib.scenes_program()), str(cls.out), "uboxfb"],
                   env={"VLGPU_DUMP": str(dump), "VLGPU_DEBUG": "functional"})
        assert r.returncode == 0, r.stderr
        cls.draws = [d for d in sorted(dump.glob("draw-*"))
                     if re.search(r"^kind\s*=\s*PRIMITIVES", (d / "draw.txt").read_text(), re.M)]

    def replay(self, src, name, mode="functional"):
        out = self.out / name
        r = launch(["replay", str(src), "--mode", mode, "-o", str(out)])
        return r, out

    def test_dump_has_the_blocks_and_data(self):
        self.assertEqual(len(self.draws), 1)
        d = self.draws[0]
        text = (d / "draw.txt").read_text()
        for sec in ("vs_buffers[1]", "fs_buffers[1]", "stream_output"):
            self.assertIn(f"[{sec}]", text)
        for f in ("vs-buffer1.hex", "fs-buffer1.hex", "so0.hex", "so0-after.hex",
                  "so-counters.hex", "so-counters-after.hex"):
            self.assertTrue((d / f).exists(), f)
        ubo = hex_bytes(d / "fs-buffer1.hex")
        base = min(ubo)
        self.assertEqual(floats_at(ubo, base, 8), list(self.OFFSET + self.COLOR))

    def test_unedited_replay_is_identical_in_both_modes(self):
        d = self.draws[0]
        after = hex_bytes(d / "so0-after.hex")
        base = int(re.search(r"^buffers\[0\]\.address\s*=\s*(0x[0-9a-f]+)",
                             (d / "draw.txt").read_text(), re.M).group(1), 16)
        want = [c * 2 + o for x, y in self.QUAD for c, o in zip((x, y, 0.0, 1.0), self.OFFSET)]
        # The live run captured what GL ES 3.0 §2.15.2 says (vlg_scenes checks it
        # too); so the comparison below can fail if the replay lost any input.
        self.assertEqual(floats_at(after, base, 24), want)
        for mode in ("functional", "cycle"):
            with self.subTest(mode=mode):
                r, out = self.replay(d, f"unedited-{mode}", mode)
                self.assertEqual(r.returncode, 0, f"replay failed:\n{r.stdout}\n{r.stderr}")
                for what in ("rt0", "so0", "so_counters", "occlusion"):
                    self.assertIn(f"{what} identical to the dump", r.stdout)
                got = hex_bytes(out / "so0.hex")
                self.assertEqual(floats_at(got, base, 24), want)

    def test_counters(self):
        """Primitives written = 2 (GL ES 3.0 §2.15.2) and the occlusion counter grew by
        the quad's pixels: 0.5 x 160 by 0.5 x 120 (the offset keeps it inside)."""
        d = self.draws[0]

        def u64(path):
            m = hex_bytes(path)
            a = min(m)
            return [int.from_bytes(bytes(m[a + 8 * i + j] for j in range(8)), "little")
                    for i in range(len(m) // 8)]

        before, after = u64(d / "so-counters.hex"), u64(d / "so-counters-after.hex")
        self.assertEqual([a - b for a, b in zip(after, before)], [2, 2])
        occ = u64(d / "occlusion-after.hex")[0] - u64(d / "occlusion.hex")[0]
        self.assertEqual(occ, 80 * 60)

    def test_edited_uniform_block_colour_changes_the_picture(self):
        src = self.draws[0]
        edited = self.out / "edited-color-dump"
        edited.mkdir()
        for f in src.iterdir():
            if f.is_file():
                (edited / f.name).write_bytes(f.read_bytes())
        # color.g (dword 5 of the block) 0.5 -> 1.0: bytes 00 00 00 3f -> 00 00 80 3f
        # in the line of block offset 16; edit only the FS's file first.
        pat = re.compile(r"^(0x[0-9a-f]+: 00 00 80 3e )00 00 00 3f", re.M)
        fs_text = (edited / "fs-buffer1.hex").read_text()
        self.assertRegex(fs_text, pat)
        (edited / "fs-buffer1.hex").write_text(pat.sub(r"\g<1>00 00 80 3f", fs_text))
        r, _ = self.replay(edited, "edited-fs-only")
        self.assertNotEqual(r.returncode, 0, "conflicting copies of one buffer must be an error")
        self.assertIn("edit them alike", r.stderr + r.stdout)
        vs_text = (edited / "vs-buffer1.hex").read_text()
        (edited / "vs-buffer1.hex").write_text(pat.sub(r"\g<1>00 00 80 3f", vs_text))
        r, out = self.replay(edited, "edited-both")
        self.assertEqual(r.returncode, 0, f"replay failed:\n{r.stdout}\n{r.stderr}")
        self.assertRegex(r.stdout, r"rt0: \d+ of \d+ pixels differ from the dump")
        img = load_rgba(out / "rt0.png")
        live = load_rgba(src / "rt0-after.png")
        h, w = img.shape[:2]
        # The quad [-0.5, 0.5]^2 moved by the offset covers the window centre.
        x, y = w // 2, h // 2
        # GL ES 3.0 §2.1.6.2: c * 255 rounded (either way for .5: tolerance 1).
        edited_color = (self.COLOR[0], 1.0, self.COLOR[2], self.COLOR[3])
        for got, want in ((live[y, x], self.COLOR), (img[y, x], edited_color)):
            for g, e in zip(got, want):
                self.assertLessEqual(abs(int(g) - unorm8(e)), 1, f"{tuple(got)} vs GL {want}")
        self.assertTrue((img[2, 2] == live[2, 2]).all(), "outside the quad: unchanged")


class MsaaDumpTest(unittest.TestCase):
    """GL ES 3.0 multisampling through the driver and the dump (vlg_scenes "msaa":
    one white triangle into a 4-sample RGBA8 + Z24S8 framebuffer, resolved into
    the window by glBlitFramebuffer, which is y-flipped and BGRA: a RESOLVE draw
    into a temporary, then a u_blitter draw). The picture: edge pixels hold
    quarter steps of 255 (4 samples, GL ES 3.0 §3.3.1) and the summed coverage is
    the triangle's area; every dumped draw, the 4-sample ones (images 4 x wide)
    and the RESOLVE included, replays identically in both modes."""

    TRI = [(-0.8, -0.7), (0.9, -0.3), (-0.2, 0.85)]  # NDC, vlg_scenes.c scene_msaa
    W, H = 160, 120

    @classmethod
    def setUpClass(cls):
        cls.out = driverlib.tempdir("dump-msaa")
        cls.dump = cls.out / "dump"
        r = run_on("vlgpu", [str(driverlib.scenes_program()), str(cls.out), "msaa"],
                   env={"VLGPU_DUMP": str(cls.dump), "VLGPU_DEBUG": "functional"})
        assert r.returncode == 0, r.stderr
        cls.stderr = r.stderr
        cls.draws = sorted(cls.dump.glob("draw-*"))

    def kinds(self):
        return [re.search(r"^kind\s*=\s*(\w+)", (d / "draw.txt").read_text(), re.M).group(1)
                for d in self.draws]

    def test_picture_is_antialiased(self):
        self.assertNotIn("warning", self.stderr)
        r = load_rgba(self.out / "msaa.png")[..., 0].astype(int)
        edge = r[(r != 0) & (r != 255)]
        self.assertGreater(edge.size, 100, "no partially covered pixel: not multisampled")
        for v in sorted(set(edge.tolist())):
            self.assertTrue(any(abs(v - q) <= 1 for q in (64, 128, 191)), f"value {v}")
        (x0, y0), (x1, y1), (x2, y2) = [((x + 1) / 2 * self.W, (y + 1) / 2 * self.H)
                                        for x, y in self.TRI]
        area = abs((x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)) / 2
        self.assertAlmostEqual(r.sum() / 255 / area, 1.0, delta=0.01)

    def test_draw_kinds(self):
        # two 4-sample clears, the triangle, the RESOLVE, the blit's quad
        self.assertEqual(self.kinds()[:4], ["CLEAR", "CLEAR", "PRIMITIVES", "RESOLVE"])
        resolve = self.draws[3]
        self.assertIn("[resolve_dst]", (resolve / "draw.txt").read_text())
        self.assertTrue((resolve / "resolve-after.png").exists())
        # 4-sample colour buffer: the image holds 4 samples per pixel side by side
        self.assertEqual(load_rgba(self.draws[2] / "rt0-after.png").shape[1], 4 * self.W)

    def test_every_draw_replays_identically(self):
        for d in self.draws:
            for mode in ("functional", "cycle"):
                with self.subTest(draw=d.name, mode=mode):
                    r = launch(["replay", str(d), "--mode", mode, "-o",
                                str(self.out / f"{d.name}-{mode}")])
                    self.assertEqual(r.returncode, 0, f"{r.stdout}\n{r.stderr}")
                    self.assertNotRegex(r.stdout, r"differ from the dump|no dump")
                    self.assertRegex(r.stdout, r"rt0 identical to the dump")


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
