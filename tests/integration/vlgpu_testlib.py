"""Helpers for the integration tests: run programs through the launcher.

Every test runs real programs (Debian's es2_info, glxinfo, wflinfo, …) with
`./vlgpu run`, so it exercises the launcher, the built Mesa and the driver
together.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "vlgpu"
TIMEOUT = 120  # seconds per program; these programs take < 2 s


def find_program(*names):
    """First of `names` on PATH, or None."""
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


def launch(args, env_update=None, env_remove=(), timeout=TIMEOUT):
    """Run `./vlgpu ARGS`; return CompletedProcess with text stdout/stderr.

    env_update: variables to set; env_remove: variables to unset (e.g. DISPLAY,
    so the launcher must start its own Xvfb).
    """
    env = dict(os.environ)
    for name in env_remove:
        env.pop(name, None)
    env.update(env_update or {})
    return subprocess.run([str(LAUNCHER)] + list(args), env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=timeout)


def field(text, name):
    """Value of a 'NAME: value' or 'NAME = value' line in program output, or None."""
    m = re.search(r"^\s*%s\s*[:=]\s*(.*?)\s*$" % re.escape(name), text, re.M)
    return m.group(1) if m else None
