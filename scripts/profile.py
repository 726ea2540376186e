#!/usr/bin/python3
"""Per-instruction shader profile of a GL program on vlgpu in cycle mode
(`./vlgpu profile`; docs/simulator.md "Shader profile").

Runs a glmark2 scene (--glmark2 SCENE: `glmark2-es2 --off-screen -b SCENE`,
--frames frames, glmark2's clock stepped per frame as `./vlgpu glmark2` does),
a frame capture (--capture DIR: `./vlgpu replay DIR --mode cycle`, the
simulator alone, docs/capture.md) or any command (after --) with
VLGPU_PROFILE=OUT/profile.json, then prints the
annotated disassembly of the hottest shaders from that file and writes it to
OUT/profile.txt (OUT default out/profile).

A shader's cycles are its SPC issue cycles plus the SPC cycles charged to its
instructions while no thread group issued (sim/units/gpc/spc/
shader_profile.h: such a cycle goes to the next instruction of the oldest
waiting group, with its reason: operand = an ALU result not ready yet,
memory = a register a memory op fills or the instruction fetch, texture =
the texture unit still filtering, barrier = MEM.BAR). Per line: that
instruction's share of the shader's cycles, issues, lanes per issue,
dual-issued issues, stall cycles by reason, PC (unit address) and the
disassembly. Shaders are named by stage, the VRAM address of their code and
the driver's label of it ("FS 3 GLSL5": stage, CSO number and Mesa's name of
the GL program, whose GLSL source MESA_SHADER_CAPTURE_PATH=DIR writes to
DIR/5.shader_test; plus the program's glObjectLabel).

Exit code: 0 when the program ran and left a profile, 1 otherwise, 2 on bad
usage."""

import argparse
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REASONS = ["operand", "memory", "texture", "barrier"]


def load_module(name, path):
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(mod)
    return mod


def instr_cycles(i):
    return i["issues"] + sum(i["stalls"].values())


def report(profile, top=5):
    """The annotated disassembly of the @top hottest shaders of @profile (the
    JSON of VLGPU_PROFILE), as text."""
    shaders = profile["shaders"]
    total = sum(s["cycles"] for s in shaders) or 1
    out = [f"{len(shaders)} shaders, {total:,} SPC cycles charged to their instructions"
           f" (issues + stalls)"]
    for n, s in enumerate(shaders[:top]):
        cyc = s["cycles"] or 1
        out.append("")
        name = f" \"{s['name']}\"" if s.get("name") else ""
        out.append(f"shader {n + 1}: {s['stage']} at {s['code']}{name}: {s['cycles']:,} cycles "
                   f"({100.0 * s['cycles'] / total:.1f}% of all), {s['issues']:,} issues")
        out.append(f"  {'cycles':>7} {'issues':>9} {'lanes':>6} {'dual':>7} "
                   + " ".join(f"{r:>9}" for r in REASONS) + f" {'pc':>5}  instruction")
        hottest = max(s["instructions"], key=instr_cycles, default=None)
        for i in s["instructions"]:
            lanes = i["lanes"] / i["issues"] if i["issues"] else 0.0
            mark = "  <- hottest" if i is hottest and instr_cycles(i) else ""
            out.append(f"  {100.0 * instr_cycles(i) / cyc:6.1f}% {i['issues']:>9,} {lanes:>6.1f} "
                       f"{i['dual_issued']:>7,} "
                       + " ".join(f"{i['stalls'][r]:>9,}" for r in REASONS)
                       + f" {i['pc']:>5}  {i['text']}{mark}")
    if len(shaders) > top:
        out.append("")
        out.append(f"({len(shaders) - top} more shaders in the JSON)")
    return "\n".join(out)


def main(argv):
    p = argparse.ArgumentParser(
        prog="vlgpu profile", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--glmark2", metavar="SCENE",
                   help="profile this glmark2-es2 scene (a -b argument, e.g. texture or "
                        "shading:shading=phong)")
    p.add_argument("--capture", metavar="DIR", type=Path,
                   help="profile the replay of this frame capture (VLGPU_CAPTURE=DIR; "
                        "replayed in cycle mode into OUT/replay)")
    p.add_argument("--frames", type=int, default=3,
                   help="glmark2: frames to run (default 3)")
    p.add_argument("--size", default="400x300", help="glmark2: window size (default 400x300)")
    p.add_argument("--out", type=Path, default=ROOT / "out" / "profile",
                   help="directory for profile.json and profile.txt (default out/profile)")
    p.add_argument("--top", type=int, default=5,
                   help="shaders to print, hottest first (default 5)")
    p.add_argument("--doc", action="append", metavar="FILE",
                   help="also write the printed report, with the command, date and commit, "
                        "between '<!-- BEGIN profile SCENE -->' and its END in FILE "
                        "(glmark2 only; repeatable)")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help="-- PROGRAM ARGS: profile this command instead of a glmark2 scene")
    args = p.parse_args(argv)
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if sum(map(bool, (cmd, args.glmark2, args.capture))) != 1:
        p.error("give one of --glmark2 SCENE, --capture DIR or -- COMMAND")
    if args.capture and not (args.capture / "manifest.json").is_file():
        p.error(f"--capture {args.capture}: no manifest.json there (not a VLGPU_CAPTURE "
                "directory)")
    args.out.mkdir(parents=True, exist_ok=True)
    prof = args.out / "profile.json"
    if prof.exists():
        prof.unlink()
    launcher = load_module("vlgpu_launcher", ROOT / "vlgpu")
    os.environ["VLGPU_PROFILE"] = str(prof.resolve())
    os.environ.pop("VLGPU_DEBUG", None)  # cycle mode (the profile is the SPCs')
    if args.glmark2:
        g2 = load_module("vlgpu_glmark2", ROOT / "scripts" / "glmark2.py")
        with launcher.PrivateX() as x:
            res = g2.run_grabbed(launcher, x.display, "vlgpu",
                                 ["glmark2-es2", "--off-screen", "-s", args.size,
                                  "-b", args.glmark2],
                                 args.out / "run", frames=args.frames, mode="cycle")
        if res["exit_code"] != 0 or res["problems"]:
            print(f"vlgpu profile: glmark2 ended with {res['exit_code']}: "
                  f"{res['problems'] or 'see ' + str(args.out / 'run')}", file=sys.stderr)
            return 1
    elif args.capture:
        r = subprocess.run([str(ROOT / "vlgpu"), "replay", str(args.capture), "--mode", "cycle",
                            "-o", str(args.out / "replay")])
        if r.returncode != 0:
            print(f"vlgpu profile: the replay of {args.capture} exited {r.returncode}",
                  file=sys.stderr)
            return 1
    else:
        r = subprocess.run([str(ROOT / "vlgpu"), "run", "--driver", "vlgpu", "--"] + cmd)
        if r.returncode != 0:
            print(f"vlgpu profile: {cmd[0]} exited {r.returncode}", file=sys.stderr)
    if not prof.exists():
        print(f"vlgpu profile: no profile written to {prof} (the program presented no frame "
              f"and did not destroy its context?)", file=sys.stderr)
        return 1
    text = report(json.loads(prof.read_text()), args.top)
    (args.out / "profile.txt").write_text(text + "\n")
    print(text)
    print(f"\nwrote {prof} and {args.out / 'profile.txt'}")
    if args.doc and args.glmark2:
        sys.path.insert(0, str(ROOT / "scripts"))
        import bench
        m = bench.machine_info()
        shown, skip = [], False  # the command without --out DIR (a local path)
        for a in argv:
            if skip or a.startswith("--out="):
                skip = False
                continue
            skip = a == "--out"
            if not skip:
                shown.append(a)
        cmd = "./vlgpu profile " + " ".join(shown)
        head = bench.provenance(cmd, m, f"cycle mode, {args.size}, {args.frames} frames")
        if bench.write_doc_sections(args.doc, {f"profile {args.glmark2}":
                                               [head, "", "```"] + text.splitlines() + ["```"]},
                                    "vlgpu profile"):
            return 1
    elif args.doc:
        p.error("--doc needs --glmark2")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
