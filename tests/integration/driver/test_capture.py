"""Frame capture (VLGPU_CAPTURE, docs/capture.md) of a real program and its
replay by the simulator alone (`./vlgpu replay CAPTURE`): glmark2's build
scene at 160x120 in a window, frames 0 and 1 captured in cycle mode. The
replay must show the pixels the live run presented (the capture records a
hash of each presented display image; the replay compares its own) and
write statistics files equal byte for byte to the ones the live device
wrote (VLGPU_STATS=DIR: cycles, every counter), submit by submit."""

import csv
import json
import time
import unittest

import driverlib
from driverlib import distinct_colors, driver_problems, load_rgba, run_on
from vlgpu_testlib import find_program, launch

GLMARK2 = find_program("glmark2-es2")
FRAMES = 2


@unittest.skipUnless(GLMARK2, "glmark2-es2 not installed (Debian glmark2-es2-x11)")
class CaptureTest(unittest.TestCase):
    def test_replay_of_two_glmark2_frames_equals_the_live_run(self):
        out = driverlib.tempdir("capture")
        cap, live_stats, replay = out / "cap", out / "live-stats", out / "replay"
        # in a window (frames end at presents, which DUMP to a display); glmark2
        # runs for one second of real time, more frames than captured
        args = [GLMARK2, "-s", "160x120", "-b", "build:duration=1.0"]
        env = {"VLGPU_CAPTURE": str(cap), "VLGPU_CAPTURE_FRAMES": f"0-{FRAMES - 1}",
               "VLGPU_STATS": str(live_stats), "VLGPU_DEBUG": ""}
        t0 = time.monotonic()
        r = run_on("vlgpu", args, env=env, headless=False,
                   env_remove=("GALLIUM_DRIVER", "DISPLAY"), timeout=600)
        live_s = time.monotonic() - t0
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(driver_problems(r.stderr), [], r.stderr)
        manifest = json.loads((cap / "manifest.json").read_text())
        self.assertEqual(manifest["frames"], FRAMES, manifest)
        self.assertEqual(manifest["mode"], "cycle", manifest)
        self.assertTrue(manifest["complete"], manifest)
        size = sum(p.stat().st_size for p in cap.rglob("*") if p.is_file())

        t0 = time.monotonic()
        rr = launch(["replay", str(cap), "-o", str(replay)], timeout=600)
        replay_s = time.monotonic() - t0
        self.assertEqual(rr.returncode, 0, rr.stdout + rr.stderr)
        frames = [json.loads(line) for line in (replay / "frames.jsonl").read_text().splitlines()]
        self.assertEqual([f["frame"] for f in frames], list(range(FRAMES)), frames)
        print(f"\n   capture of {FRAMES} frames: {size} bytes ({manifest['blobs']} blobs, "
              f"{manifest['pages_recorded']} pages recorded); live run {live_s:.1f} s "
              f"(X, glmark2's 1 s scene), replay {replay_s:.2f} s; cycles per frame "
              f"{[f['cycles'] for f in frames]}", end="")

        # the statistics of every replayed submit, byte for byte
        files = sorted((replay / "stats").glob("submit-*.json"))
        self.assertEqual(len(files), sum(f["submits"] for f in frames))
        for f in files:
            self.assertEqual(f.read_text(), (live_stats / f.name).read_text(), f.name)
        # the driver's frame rows: the same cycles where the driver counted
        # every submit of the frame (it leaves out submits without draw
        # records, e.g. a flush of a SYNC alone: docs/capture.md)
        with (live_stats / "frames.csv").open() as f:
            rows = list(csv.DictReader(f))
        for f in frames:
            row = rows[f["frame"]]
            if int(row["submits"]) == f["submits"]:
                self.assertEqual(int(row["cycles"]), f["cycles"], (row, f))
            self.assertLessEqual(int(row["cycles"]), f["cycles"], (row, f))
        self.assertGreater(sum(f["cycles"] for f in frames), 0)

        # the pixels: the replay's check against the live run's display images
        for f in frames:
            self.assertGreaterEqual(f["images"], 1, f)
            self.assertEqual(f["images_differing"], 0, f)
            pngs = sorted(replay.glob(f"frame-{f['frame']:06d}-display-*.png"))
            self.assertEqual(len(pngs), 1, list(replay.iterdir()))
            self.assertGreater(distinct_colors(load_rgba(pngs[0])), 20)

        # another mode: the same pixels
        rf = launch(["replay", str(cap), "-o", str(out / "replay-functional"), "--mode",
                     "functional"], timeout=600)
        self.assertEqual(rf.returncode, 0, rf.stdout + rf.stderr)
        self.assertEqual(rf.stdout.count("pixels identical to the live run (1 image)"), FRAMES,
                         rf.stdout)

        # the shader profile of the capture (issue 21): the replay's shaders,
        # named by the labels the capture recorded (the driver's "FS N GLSLk")
        rp = launch(["profile", "--capture", str(cap), "--out", str(out / "profile"),
                     "--top", "1"], timeout=600)
        self.assertEqual(rp.returncode, 0, rp.stdout + rp.stderr)
        prof = json.loads((out / "profile" / "profile.json").read_text())
        names = {s["stage"]: s.get("name", "") for s in prof["shaders"]}
        self.assertRegex(names.get("fs", ""), r"^FS \d+ GLSL\d+$", prof["shaders"])
        self.assertIn("<- hottest", rp.stdout)


if __name__ == "__main__":
    unittest.main()
