"""Helpers of the driver's integration tests: build the small C helpers,
run programs on vlgpu and softpipe in one test run, compare images.

Image metric (used by every comparison here): per channel absolute error of
8-bit R, G, B (alpha ignored), reported as the maximum over all pixels, the
number of pixels where any channel differs, and PSNR = 10 log10(255^2 / MSE)
in dB with MSE the mean squared error over all pixels and the three
channels (inf for identical images).
"""

import hashlib
import math
import os
import subprocess
import tempfile
import threading
from pathlib import Path

from vlgpu_testlib import ROOT, launch

HERE = Path(__file__).resolve().parent
BUILD_DIR = ROOT / "out" / "driver-tests" / "bin"


def build_helper(source, output, extra_args=()):
    """Compile tests/integration/driver/SOURCE (or a path) with cc into
    out/driver-tests/bin/OUTPUT, with -I on this folder (its headers, e.g. vlg_gles31.h),
    unless an up-to-date build (same hash of the source, this folder's headers and the
    arguments) exists. Returns the path."""
    src = HERE / source
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    headers = b"".join(h.read_bytes() for h in sorted(HERE.glob("*.h")))
    key = hashlib.sha256(src.read_bytes() + headers +
                         " ".join(extra_args).encode()).hexdigest()[:16]
    out = BUILD_DIR / f"{output}-{key}"
    if not out.exists():
        # A private temporary name: other processes (and threads) may build
        # the same helper at the same time; rename() is atomic.
        tmp = out.with_name(f"{out.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        cmd = ["cc", "-O1", "-Wall", "-I", str(HERE), str(src), "-o", str(tmp), *extra_args]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"cannot build {source}: {' '.join(cmd)}\n{r.stdout}")
        tmp.rename(out)
    return out


def scenes_program():
    """The EGL surfaceless scene renderer (vlg_scenes.c)."""
    return build_helper("vlg_scenes.c", "vlg_scenes", ["-lEGL", "-lGLESv2", "-lpng", "-lm"])


def framegrab_preload():
    """LD_PRELOAD value for a program that runs on the launcher's Mesa under the frame
    grabber: the ASan runtime first when that Mesa is sanitized ($VLGPU_MESA_BUILD,
    ./vlgpu test --sanitize; the launcher's sanitizer_preload()), then the shim."""
    return " ".join(_launcher().sanitizer_preload() + [str(framegrab_shim())])


def exit_program(glx=False):
    """The program that ends in a chosen way (vlg_exit.c): EGL surfaceless, or GLX."""
    if glx:
        return build_helper("vlg_exit.c", "vlg_exit_glx", ["-DVLG_GLX", "-lGL", "-lX11"])
    return build_helper("vlg_exit.c", "vlg_exit", ["-lEGL", "-lGLESv2"])


def framegrab_shim():
    """The LD_PRELOAD frame grabber (vlg_framegrab.c)."""
    return build_helper("vlg_framegrab.c", "vlg_framegrab.so",
                        ["-shared", "-fPIC", "-fno-omit-frame-pointer", "-ldl"])


def load_rgba(path):
    """An image as a numpy array (H, W, 4) of uint8, top row first: a PNG, or
    the raw frames vlg_framegrab.so writes (header 'VLGRGBA\\0', w, h; rows bottom-up)."""
    import numpy as np
    path = Path(path)
    if path.suffix == ".rgba":
        data = path.read_bytes()
        if data[:8] != b"VLGRGBA\0":
            raise ValueError(f"{path}: not a vlg_framegrab frame")
        w, h = np.frombuffer(data[8:16], "<u4")
        return np.frombuffer(data[16:], np.uint8).reshape(int(h), int(w), 4)[::-1]
    from PIL import Image
    return np.asarray(Image.open(path).convert("RGBA"))


def compare(a, b):
    """Metric of the module docstring between two RGBA arrays of one size."""
    import numpy as np
    if a.shape != b.shape:
        raise AssertionError(f"image sizes differ: {a.shape} vs {b.shape}")
    d = np.abs(a[..., :3].astype(np.int32) - b[..., :3].astype(np.int32))
    mse = float((d.astype(np.float64) ** 2).mean())
    return {
        "max_error": int(d.max()),
        "differing_pixels": int((d.max(axis=2) > 0).sum()),
        "pixels": int(d.shape[0] * d.shape[1]),
        "psnr_db": math.inf if mse == 0 else 10 * math.log10(255.0 ** 2 / mse),
    }


def distinct_colors(a):
    """Number of distinct RGB colours of an RGBA array."""
    import numpy as np
    rgb = a[..., :3].reshape(-1, 3)
    return len(np.unique(rgb[:, 0].astype(np.uint32) << 16 | rgb[:, 1].astype(np.uint32) << 8
                         | rgb[:, 2]))


def driver_problems(stderr):
    """Lines in which the vlgpu driver reports an error or a GPU fault."""
    return [line for line in stderr.splitlines()
            if line.startswith("vlgpu: error") or "GPU fault" in line]


def run_on(driver, args, env=None, headless=True, timeout=300, env_remove=("GALLIUM_DRIVER",)):
    """./vlgpu run --driver DRIVER [--headless] -- ARGS; returns CompletedProcess."""
    launcher = ["run", "--driver", driver] + (["--headless"] if headless else []) + ["--"]
    return launch(launcher + list(args), env_update=env, env_remove=list(env_remove),
                  timeout=timeout)


_LAUNCHER = None


def _launcher():
    """The launcher (./vlgpu), loaded as a module once."""
    global _LAUNCHER
    if _LAUNCHER is None:
        import importlib.machinery
        import importlib.util
        loader = importlib.machinery.SourceFileLoader("vlgpu_launcher", str(ROOT / "vlgpu"))
        _LAUNCHER = importlib.util.module_from_spec(
            importlib.util.spec_from_loader("vlgpu_launcher", loader))
        loader.exec_module(_LAUNCHER)
    return _LAUNCHER


def PrivateX(size="640x480x24"):
    """A private Xvfb for a `with` block (display chosen by Xvfb through
    -displayfd), so a test can look at the windows its programs present: the
    launcher's PrivateX (./vlgpu)."""
    return _launcher().PrivateX(size)


def tempdir(prefix):
    """A fresh directory under out/driver-tests/ (kept after the test, for looking at)."""
    base = ROOT / "out" / "driver-tests"
    base.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=prefix + "-", dir=base))


def launch_async(driver, args, env, logdir):
    """Start ./vlgpu run --driver DRIVER -- ARGS in the background (stdout and
    stderr into LOGDIR/run.log); returns the Popen (stop it with terminate())."""
    full_env = dict(os.environ)
    full_env.pop("GALLIUM_DRIVER", None)
    full_env.update(env)
    log = open(Path(logdir) / "run.log", "w")
    return subprocess.Popen([str(ROOT / "vlgpu"), "run", "--driver", driver, "--"] + list(args),
                            env=full_env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
