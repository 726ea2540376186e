"""es2gears_x11 (Debian mesa-utils-bin) on vlgpu against softpipe in the same
run.  The LD_PRELOAD shim vlg_framegrab.so makes the animation depend on the
frame number only (gettimeofday advances 40 ms per frame) and saves each
frame with glReadPixels before eglSwapBuffers; frames 0-2 of the two drivers
are compared with the metric of driverlib (max channel error, PSNR).  A
second test looks at what was presented: the window contents on the X
server after the GPU's DUMP copied the frame into the winsys display target
(softpipe presents the same way, from its own memory)."""

import time
import unittest

import driverlib
from driverlib import compare, distinct_colors, driver_problems, load_rgba, run_on
from vlgpu_testlib import find_program

ES2GEARS = find_program("es2gears_x11", "es2gears_x11.x86_64-linux-gnu")
FRAMES = 3
# Identical pictures are what vlgpu promises (softpipe's arithmetic); a
# floor, not the expectation, so the report shows the real figure.
MIN_PSNR_DB = 60.0


@unittest.skipUnless(ES2GEARS, "es2gears_x11 not installed (Debian mesa-utils-bin)")
class Es2gearsTest(unittest.TestCase):
    def grab(self, driver, outdir, frames=FRAMES, step_ms=40):
        outdir.mkdir()
        env = {"LD_PRELOAD": driverlib.framegrab_preload(), "VLG_GRAB_DIR": str(outdir),
               "VLG_GRAB_FRAMES": str(frames), "VLG_GRAB_STEP_MS": str(step_ms)}
        # `env` applies the shim to es2gears only, not to the launcher or Xvfb.
        args = ["env"] + [f"{k}={v}" for k, v in env.items()] + [ES2GEARS]
        r = run_on(driver, args, headless=False, env_remove=("GALLIUM_DRIVER", "DISPLAY"))
        self.assertEqual(r.returncode, 0, f"es2gears on {driver}:\n{r.stderr}")
        return r

    def test_frames_match_softpipe(self):
        out = driverlib.tempdir("es2gears")
        rv = self.grab("vlgpu", out / "vlgpu")
        self.grab("softpipe", out / "softpipe")
        self.assertEqual(driver_problems(rv.stderr), [], rv.stderr)
        for i in range(FRAMES):
            name = f"frame-{i:03d}.rgba"
            v = load_rgba(out / "vlgpu" / name)
            s = load_rgba(out / "softpipe" / name)
            m = compare(v, s)
            print(f"\n   es2gears {name}: max error {m['max_error']}, "
                  f"{m['differing_pixels']} of {m['pixels']} px differ, "
                  f"PSNR {m['psnr_db']:.1f} dB", end="")
            self.assertGreater(distinct_colors(s), 50)  # gears, not a clear colour
            self.assertGreaterEqual(m["psnr_db"], MIN_PSNR_DB, name)

    def test_presented_window_matches_softpipe(self):
        from PIL import ImageGrab
        import numpy as np
        shots = {}
        with driverlib.PrivateX() as x:
            for driver in ("vlgpu", "softpipe"):
                # Time frozen (step 0): every frame is frame 0; many frames so
                # the program is still presenting when the screen is grabbed.
                out = driverlib.tempdir(f"es2gears-present-{driver}")
                env = {"LD_PRELOAD": driverlib.framegrab_preload(),
                       "VLG_GRAB_FRAMES": "1000000", "VLG_GRAB_STEP_MS": "0"}
                args = ["env"] + [f"{k}={v}" for k, v in env.items()] + [ES2GEARS]
                proc = driverlib.launch_async(driver, args, {"DISPLAY": x.display}, out)
                try:
                    deadline = time.monotonic() + 60
                    shot = None
                    while time.monotonic() < deadline and proc.poll() is None:
                        time.sleep(1.0)
                        img = np.asarray(ImageGrab.grab(xdisplay=x.display).convert("RGBA"))
                        if distinct_colors(img) > 50:
                            time.sleep(1.0)  # a few more frames: the same picture
                            shot = np.asarray(
                                ImageGrab.grab(xdisplay=x.display).convert("RGBA"))
                            break
                finally:
                    proc.terminate()
                    proc.wait(timeout=30)
                self.assertIsNotNone(shot, f"{driver}: no gears on the screen "
                                     f"(log: {out})")
                shots[driver] = shot
        m = compare(shots["vlgpu"], shots["softpipe"])
        print(f"\n   presented window: max error {m['max_error']}, PSNR {m['psnr_db']:.1f} dB",
              end="")
        self.assertGreaterEqual(m["psnr_db"], MIN_PSNR_DB)


if __name__ == "__main__":
    unittest.main()
