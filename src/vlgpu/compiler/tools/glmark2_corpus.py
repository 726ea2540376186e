#!/usr/bin/python3
# Copyright © 2026 vlgpu contributors
# SPDX-License-Identifier: MIT
"""Capture every shader program glmark2 builds, as piglit .shader_test files.

glmark2 instantiates its shader templates (/usr/share/glmark2/shaders) at run
time: scene options pick files, add constants (lights, kernels, refraction
index), generate loop bodies, convolution kernels and blur taps.  Instead of
re-implementing that logic, this script lets glmark2 build the programs itself:
it runs `glmark2-es2 -b BENCHMARK:nframes=1` once per benchmark under a private
Xvfb with Debian's Mesa (llvmpipe; never the vlgpu build) and
MESA_SHADER_CAPTURE_PATH set, so Mesa writes one .shader_test per linked
program (src/mesa/main/shaderapi.c, capture_shader_program).  Identical
programs (same text) are kept once.

The benchmark list (BENCHMARKS below) is glmark2 2023.01's default list
(src/default-benchmarks.h; what `glmark2-es2` runs without -b) plus a sweep of
every scene option that changes shader text, with the values glmark2 accepts
(`glmark2-es2 --list-scenes`):
  - every value of each enumerated option (bump-render, shading, texture-filter,
    texgen, pulsar light/texture, desktop effect/separable, terrain
    bloom/tilt-shift, the conditionals/function/loop switches);
  - numeric options that generate code: steps 0/1/5 of conditionals, function
    and loop per stage, shading num-lights 1/2/4, effect2d kernels 3x3 and 5x5
    (normalized or not), desktop blur-radius 1/5/10, refract index 1.2/1.5;
  - show-fps/title for the text renderer.
Options that change no shader text (model, texture, buffer update methods,
use-vbo, interleave, speed, precision strings) keep their defaults: the
precision options only change qualifiers, which vlgpu ignores (all 32-bit).

Usage: glmark2_corpus.py OUTDIR   (writes OUTDIR/<benchmark>/<n>.shader_test
and OUTDIR/manifest.json: benchmark -> programs, duplicates -> first copy).
Exit status 1 if glmark2 is missing or a benchmark fails to run.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# glmark2 2023.01 src/default-benchmarks.h (Debian 2023.01+dfsg-1), in order.
DEFAULT_BENCHMARKS = [
    "build:use-vbo=false",
    "build:use-vbo=true",
    "texture:texture-filter=nearest",
    "texture:texture-filter=linear",
    "texture:texture-filter=mipmap",
    "shading:shading=gouraud",
    "shading:shading=blinn-phong-inf",
    "shading:shading=phong",
    "shading:shading=cel",
    "bump:bump-render=high-poly",
    "bump:bump-render=normals",
    "bump:bump-render=height",
    "effect2d:kernel=0,1,0;1,-4,1;0,1,0;",
    "effect2d:kernel=1,1,1,1,1;1,1,1,1,1;1,1,1,1,1;",
    "pulsar:quads=5:texture=false:light=false",
    "desktop:windows=4:effect=blur:blur-radius=5:passes=1:separable=true",
    "desktop:windows=4:effect=shadow",
    "buffer:update-fraction=0.5:update-dispersion=0.9:columns=200:update-method=map:interleave=false",
    "buffer:update-fraction=0.5:update-dispersion=0.9:columns=200:update-method=subdata:interleave=false",
    "buffer:update-fraction=0.5:update-dispersion=0.9:columns=200:update-method=map:interleave=true",
    "ideas:speed=duration",
    "jellyfish",
    "terrain",
    "shadow",
    "refract",
    "conditionals:vertex-steps=0:fragment-steps=0",
    "conditionals:vertex-steps=0:fragment-steps=5",
    "conditionals:vertex-steps=5:fragment-steps=0",
    "function:fragment-steps=5:fragment-complexity=low",
    "function:fragment-steps=5:fragment-complexity=medium",
    "loop:vertex-steps=5:fragment-steps=5:fragment-loop=false",
    "loop:vertex-steps=5:fragment-steps=5:fragment-uniform=false",
    "loop:vertex-steps=5:fragment-steps=5:fragment-uniform=true",
]


def option_sweep():
    """Scene options that change shader text, every accepted value (see module doc)."""
    b = []
    b += [f"texture:texture-filter={f}:texgen={g}"
          for f in ("nearest", "linear", "linear-shader", "mipmap") for g in ("false", "true")]
    b += [f"shading:shading={s}" for s in ("gouraud", "blinn-phong-inf", "phong", "cel")]
    b += [f"shading:shading=phong:num-lights={n}" for n in (2, 4)]
    b += [f"bump:bump-render={r}" for r in ("off", "normals", "normals-tangent", "height",
                                            "high-poly")]
    for k in ("0,0,0;0,1,0;0,0,0", "0,1,0;1,-4,1;0,1,0;", "1,1,1,1,1;1,1,1,1,1;1,1,1,1,1;",
              "1,2,1;2,4,2;1,2,1"):
        for n in ("true", "false"):
            b.append(f"effect2d:kernel={k}:normalize={n}")
    b += [f"pulsar:light={l}:texture={t}" for l in ("false", "true") for t in ("false", "true")]
    b += [f"desktop:effect=blur:blur-radius={r}:separable={s}"
          for r in (1, 5, 10) for s in ("true", "false")]
    b += ["desktop:effect=shadow:shadow-size=20"]
    b += [f"terrain:bloom={x}:tilt-shift={y}" for x in ("false", "true")
          for y in ("false", "true")]
    b += ["refract:index=1.5"]
    for stage, other in (("vertex", "fragment"), ("fragment", "vertex")):
        for n in (0, 1, 5):
            for c in ("false", "true"):
                b.append(f"conditionals:{stage}-steps={n}:{stage}-conditionals={c}:{other}-steps=0")
            for cx in ("low", "medium"):
                for f in ("false", "true"):
                    b.append(f"function:{stage}-steps={n}:{stage}-complexity={cx}:"
                             f"{stage}-function={f}:{other}-steps=0")
            for u in ("false", "true"):
                for f in ("false", "true"):
                    b.append(f"loop:{stage}-steps={n}:{stage}-uniform={u}:{stage}-function={f}:"
                             f"{other}-steps=0")
    b += ["clear:show-fps=true:title=vlgpu"]
    return b


BENCHMARKS = DEFAULT_BENCHMARKS + [x for x in option_sweep() if x not in DEFAULT_BENCHMARKS]


def PrivateX():
    """A private Xvfb (display chosen by Xvfb through -displayfd): the launcher's
    PrivateX (./vlgpu at the top of the repository, loaded as a module)."""
    import importlib.machinery
    import importlib.util
    root = Path(__file__).resolve().parents[3]
    loader = importlib.machinery.SourceFileLoader("vlgpu_launcher", str(root / "vlgpu"))
    launcher = importlib.util.module_from_spec(
        importlib.util.spec_from_loader("vlgpu_launcher", loader))
    loader.exec_module(launcher)
    return launcher.PrivateX("320x240x24")


def system_mesa_env(display, capture_dir):
    """Debian's Mesa (llvmpipe), whatever the launcher set up for the vlgpu build."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "LIBGL_DRIVERS_PATH", "__EGL_VENDOR_LIBRARY_FILENAMES",
                        "__GLX_VENDOR_LIBRARY_NAME", "GALLIUM_DRIVER", "EGL_PLATFORM",
                        "MESA_LOADER_DRIVER_OVERRIDE")}
    env.update(DISPLAY=display, LIBGL_ALWAYS_SOFTWARE="true", GALLIUM_DRIVER="llvmpipe",
               MESA_SHADER_CAPTURE_PATH=str(capture_dir))
    return env


def label(bench):
    """Directory name of a benchmark: scene, then its options, '=' kept, other
    separators as '-'."""
    return re.sub(r"[^A-Za-z0-9=.,-]+", "-", bench.replace(";", "_")).strip("-")


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__.split("\n\n")[0] + "\nusage: glmark2_corpus.py OUTDIR", file=sys.stderr)
        return 2
    out = Path(argv[1])
    exe = shutil.which("glmark2-es2")
    if not exe or not shutil.which("Xvfb"):
        print("glmark2_corpus: glmark2-es2 and Xvfb are needed (Debian glmark2-es2-x11, xvfb)",
              file=sys.stderr)
        return 1
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    seen = {}       # sha256 of the program text -> corpus path
    manifest = {"generator": "glmark2_corpus.py", "glmark2": exe, "benchmarks": []}
    failed = []
    t0 = time.monotonic()
    with PrivateX() as x, tempfile.TemporaryDirectory() as tmp:
        for i, bench in enumerate(BENCHMARKS):
            cap = Path(tmp) / str(i)
            cap.mkdir()
            r = subprocess.run([exe, "-s", "64x64", "-b", bench + ":nframes=1"],
                               env=system_mesa_env(x.display, cap), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=300)
            ran = r.returncode == 0 and "FPS:" in r.stdout
            entry = {"benchmark": bench, "programs": [], "duplicates": {}}
            if not ran:
                failed.append(bench)
                entry["error"] = r.stdout[-2000:]
            # Mesa names captures by GL program name; order by creation
            files = sorted(cap.glob("*.shader_test"), key=lambda p: (p.stat().st_mtime_ns, p.name))
            for f in files:
                text = f.read_text()
                h = hashlib.sha256(text.encode()).hexdigest()
                if h in seen:
                    entry["duplicates"][f.name] = seen[h]
                    continue
                rel = Path(label(bench)) / f.name
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                (out / rel).write_text(text)
                seen[h] = str(rel)
                entry["programs"].append(str(rel))
            manifest["benchmarks"].append(entry)
            print(f"[{i + 1}/{len(BENCHMARKS)}] {bench}: {len(entry['programs'])} new, "
                  f"{len(entry['duplicates'])} already seen{'' if ran else ' (FAILED)'}",
                  file=sys.stderr)
    manifest["programs"] = len(seen)
    manifest["seconds"] = round(time.monotonic() - t0, 1)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"glmark2_corpus: {len(seen)} distinct programs from {len(BENCHMARKS)} benchmarks "
          f"in {manifest['seconds']} s -> {out}", file=sys.stderr)
    if failed:
        print("glmark2_corpus: benchmarks that did not run: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
