#!/usr/bin/python3
"""Run Piglit's OpenGL ES tests on vlgpu and on softpipe, compare them, check expectations.

    ./vlgpu piglit                         # vlgpu (functional mode) + softpipe, -t gles -t glsl-es
    ./vlgpu piglit --check tests/piglit/expectations.txt
    ./vlgpu piglit --driver vlgpu --mode cycle -t glsl-es-1.00
    ./vlgpu piglit --tests-from tests/piglit/subset.txt --check tests/piglit/subset.txt

Piglit (Debian package `piglit`) runs headless on EGL surfaceless
(PIGLIT_PLATFORM=surfaceless_egl, waffle) with the Mesa of build/mesa, through
`./vlgpu run --headless --driver DRIVER -- piglit run ...`; `--platform x11_egl`
runs it under a private Xvfb instead (tests that draw to the window then run
rather than abort in piglit's surfaceless framework).  The profiles are
quick_gl and quick_shader; without -t/-x the filters are `-t gles -t glsl-es`
(the brief's oracle: softpipe 203 pass / 13 fail / 10 crash / 86 skip of 321).
Note that piglit's -t is a regular expression searched in the test name, so
`gles` also selects every test whose name contains "triangles".

vlgpu runs in functional mode by default (VLGPU_DEBUG=functional: the
functional GPU model, same images, much faster); `--mode cycle` runs the
cycle-mode GPU modules.

Results: out/piglit/<driver>/ (piglit's results.json.bz2; `piglit summary
html` works on it), out/piglit/compare.txt (every test whose status differs
between the drivers), out/piglit/run.json (what was run, counts, seconds).
Counts are piglit's: a test with subtests counts once per subtest, `notrun`
subtests are part of the total (as in `piglit summary console`).

Expectations file (tests/piglit/*.txt), one test per line:

    STATUS NAME[ :: SUBTEST][  # REASON]

STATUS is pass, fail, crash, skip, warn, timeout, incomplete or notrun; NAME is
piglit's test name (spec@glsl-es-1.00@...); `#` starts the reason, which is
required for every status other than pass.  --check: every test listed as pass
that the run selected must pass on vlgpu (exit 1 with the list otherwise); a
selected test missing from the results also fails.  --update-expectations
rewrites the file from the vlgpu run, keeping the reasons of tests whose status
did not change (a changed or new non-pass test gets "untriaged" as reason: go
and find out why, then write the reason).

Exit code: 0 ok; 1 an expectation failed (or vlgpu crashed with --fail-on-crash);
2 bad arguments or expectations file; 3 piglit could not run.
"""

import argparse
import bz2
import gzip
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "vlgpu"
DEFAULT_OUT = ROOT / "out" / "piglit"
DEFAULT_PROFILES = ["quick_gl", "quick_shader"]
DEFAULT_INCLUDE = ["gles", "glsl-es"]
DRIVERS = ["vlgpu", "softpipe"]
STATUSES = ["pass", "fail", "crash", "skip", "warn", "timeout", "incomplete",
            "dmesg-warn", "dmesg-fail", "notrun"]
SUBTEST_SEP = " :: "


class UsageError(Exception):
    """Bad arguments or a malformed expectations file (exit code 2)."""


class PiglitError(Exception):
    """piglit could not run or left no results (exit code 3)."""


# ---------------------------------------------------------------------------
# Running piglit
# ---------------------------------------------------------------------------


def driver_env(driver, mode, platform="surfaceless_egl"):
    """Environment for one driver: PIGLIT_PLATFORM, no DISPLAY (x11_egl: the
    launcher starts a private Xvfb), and for vlgpu VLGPU_DEBUG with
    `functional` added (mode functional) or removed (mode cycle)."""
    env = dict(os.environ)
    env["PIGLIT_PLATFORM"] = platform
    env.pop("DISPLAY", None)
    flags = [f for f in re.split(r"[,\s]+", env.get("VLGPU_DEBUG", "")) if f]
    flags = [f for f in flags if f != "functional"]
    if driver == "vlgpu" and mode == "functional":
        flags.append("functional")
    if flags:
        env["VLGPU_DEBUG"] = ",".join(flags)
    else:
        env.pop("VLGPU_DEBUG", None)
    return env


def piglit_command(driver, args, include, exclude, results_dir):
    headless = ["--headless"] if args.platform == "surfaceless_egl" else []
    cmd = [str(LAUNCHER), "run"] + headless + ["--driver", driver, "--",
           "piglit", "run", "-p", args.platform, "-o", "-l", "quiet",
           "-j", str(args.jobs)]
    for regex in include:
        cmd += ["-t", regex]
    for regex in exclude:
        cmd += ["-x", regex]
    if args.timeout:
        cmd += ["--timeout", str(args.timeout)]
    return cmd + list(args.profiles) + [str(results_dir)]


PROGRESS_RE = re.compile(r"\[(\d+)/(\d+)\]\s*(.*?)\s*[-|/\\ ]*$")


def run_piglit(driver, args, include, exclude, results_dir, log):
    """Run piglit for one driver into results_dir; print progress lines (at
    most one per --progress seconds) and return the wall-clock seconds."""
    cmd = piglit_command(driver, args, include, exclude, results_dir)
    results_dir.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    last_print = 0.0
    last = None
    tail = []
    with open(log, "w") as logf:
        logf.write(" ".join(cmd) + "\n")
        proc = subprocess.Popen(cmd, env=driver_env(driver, args.mode, args.platform), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, bufsize=0)
        buf = b""
        while True:
            chunk = proc.stdout.read(4096)
            if not chunk:
                break
            logf.write(chunk.decode(errors="replace"))
            buf += chunk
            parts = re.split(rb"[\r\n]", buf)
            buf = parts.pop()
            for raw in parts:
                line = raw.decode(errors="replace").strip()
                if not line:
                    continue
                tail = (tail + [line])[-20:]
                m = PROGRESS_RE.match(line)
                if m:
                    last = m
                    now = time.monotonic()
                    if args.progress > 0 and now - last_print >= args.progress:
                        last_print = now
                        print(f"  [{driver}] {m.group(1)}/{m.group(2)} {m.group(3)}  "
                              f"({now - start:.0f} s)", flush=True)
        rc = proc.wait()
    seconds = time.monotonic() - start
    if last and args.progress > 0:
        print(f"  [{driver}] {last.group(1)}/{last.group(2)} {last.group(3)}  "
              f"({seconds:.0f} s)", flush=True)
    if rc != 0 or not results_file(results_dir):
        raise PiglitError(f"piglit on {driver} failed (exit {rc}); log {log}; last lines:\n  "
                          + "\n  ".join(tail[-8:]))
    return seconds


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


def results_file(results_dir):
    for name in ("results.json.bz2", "results.json.xz", "results.json.gz", "results.json"):
        path = Path(results_dir) / name
        if path.exists():
            return path
    return None


def load_results(results_dir):
    """Load a piglit results directory.

    Returns (tests, raw): tests maps "name" or "name :: subtest" to its status
    (one entry per subtest for tests with subtests, as piglit counts them);
    raw is piglit's JSON (raw["tests"][name] has out, err, returncode...).
    Raises PiglitError if there is no results file.
    """
    path = results_file(results_dir)
    if not path:
        raise PiglitError(f"no piglit results in {results_dir}")
    opener = {".bz2": bz2.open, ".xz": lzma.open, ".gz": gzip.open}.get(path.suffix, open)
    with opener(path, "rt") as f:
        raw = json.load(f)
    tests = {}
    for name, t in raw["tests"].items():
        subtests = {k: v for k, v in (t.get("subtests") or {}).items() if k != "__type__"}
        if subtests:
            for sub, status in subtests.items():
                tests[name + SUBTEST_SEP + sub] = status
        else:
            tests[name] = t["result"]
    return tests, raw


# What a test prints when the X server refused its connection (x11_egl on a
# loaded machine: waffle's "waffle_display_connect failed due to
# WAFFLE_ERROR_UNKNOWN: XOpenDisplay failed"): it never ran, so its status says
# nothing about the driver.
DISPLAY_LOST = "XOpenDisplay failed"


def display_lost(raw):
    """Names of the tests of piglit results RAW that could not open the X
    display (DISPLAY_LOST in their output), sorted."""
    return sorted(name for name, t in raw["tests"].items()
                  if DISPLAY_LOST in (t.get("out") or "") + (t.get("err") or ""))


def replace_results(tests, raw, names, new_tests, new_raw):
    """Put the results of NAMES from a rerun (NEW_TESTS, NEW_RAW as
    load_results gives them) in place of the first run's, subtests included;
    a name the rerun did not report keeps its first result."""
    for name in names:
        if name not in new_raw["tests"]:
            continue
        for key in [k for k in tests if parent(k) == name]:
            del tests[key]
        tests.update({k: v for k, v in new_tests.items() if parent(k) == name})
        raw["tests"][name] = new_raw["tests"][name]


def rerun_display_lost(driver, args, exclude, out, tests, raw):
    """Run once more, one at a time, the tests of this run that could not open
    the X display, into OUT/<driver>-display-rerun, and take their new results
    (TESTS and RAW as load_results gave them, updated in place). Returns the
    names that still could not open it."""
    lost = display_lost(raw)
    if not lost:
        return []
    print(f"  [{driver}] {len(lost)} tests could not open the X display "
          f"({DISPLAY_LOST!r}); running them again one at a time", flush=True)
    rerun_dir = out / f"{driver}-display-rerun"
    shutil.rmtree(rerun_dir, ignore_errors=True)
    run_piglit(driver, argparse.Namespace(**{**vars(args), "jobs": 1, "progress": 0}),
               ["^%s$" % re.escape(n) for n in lost], exclude, rerun_dir,
               out / f"{driver}-display-rerun.log")
    replace_results(tests, raw, lost, *load_results(rerun_dir))
    still = display_lost({"tests": {n: raw["tests"][n] for n in lost}})
    if still:
        print(f"  [{driver}] {len(still)} still could not open the X display: "
              + ", ".join(still[:5]), flush=True)
    return still


def counts(tests):
    c = {s: 0 for s in STATUSES}
    for status in tests.values():
        c[status] = c.get(status, 0) + 1
    c["total"] = len(tests)
    return c


def parent(name):
    return name.split(SUBTEST_SEP, 1)[0]


def crash_detail(raw, name):
    """One line about a crashed test: exit status/signal and its last stderr line."""
    t = raw["tests"].get(parent(name), {})
    rc = t.get("returncode")
    how = f"signal {-rc}" if isinstance(rc, int) and rc < 0 else f"exit {rc}"
    err = [l for l in (t.get("err") or "").splitlines() if l.strip()]
    out = [l for l in (t.get("out") or "").splitlines() if l.strip()]
    if rc == -6 and not err and not out:
        # Seen with piglit 1.0+ on surfaceless_egl: a test that does not
        # render into an FBO reaches the winsys framework, whose surfaceless
        # event loop returns at once, and piglit calls abort().
        return (f"{how}, no output (piglit's surfaceless winsys framework aborts when a "
                f"test does not run in an FBO; docs/piglit.md)")
    last = (err or out or ["(no output)"])[-1].strip()
    return f"{how}: {last[:160]}"


# ---------------------------------------------------------------------------
# Expectations
# ---------------------------------------------------------------------------


class Expectation:
    def __init__(self, status, name, reason, lineno):
        self.status, self.name, self.reason, self.lineno = status, name, reason, lineno


def parse_expectations(path):
    """Parse an expectations file; raise UsageError naming file:line on bad input."""
    entries = {}
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror}")
    for lineno, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        body, _, reason = text.partition(" #")
        status, _, name = body.strip().partition(" ")
        name, reason = name.strip(), reason.strip()
        if status not in STATUSES:
            raise UsageError(f"{path}:{lineno}: unknown status {status!r} "
                             f"(one of {', '.join(STATUSES)})")
        if not name:
            raise UsageError(f"{path}:{lineno}: no test name after {status!r}")
        if status != "pass" and not reason:
            raise UsageError(f"{path}:{lineno}: {name}: a test expected to {status} needs a "
                             f"reason ('  # why')")
        if name in entries:
            raise UsageError(f"{path}:{lineno}: {name} listed twice (first at line "
                             f"{entries[name].lineno})")
        entries[name] = Expectation(status, name, reason, lineno)
    return entries


def selected(name, include, exclude):
    """Whether piglit's -t/-x filters select test `name` (re.search, as piglit)."""
    name = parent(name)
    if include and not any(re.search(r, name) for r in include):
        return False
    return not any(re.search(r, name) for r in exclude)


def check_expectations(entries, tests, include, exclude):
    """Return (failures, checked, changed).  failures: (name, wanted, got) for each
    expected pass, selected by the filters, that did not pass; changed: (name,
    wanted, got, reason) for the other entries whose status differs (reported,
    not failures: update the expectations when a test starts to pass)."""
    failures, unexpected, checked = [], [], 0
    for e in entries.values():
        if not selected(e.name, include, exclude):
            continue
        got = tests.get(e.name, "missing")
        if e.status == "pass":
            checked += 1
            if got != "pass":
                failures.append((e.name, e.status, got))
        elif got != e.status:
            unexpected.append((e.name, e.status, got, e.reason))
    return failures, checked, unexpected


def write_expectations(path, entries, tests, other):
    """Rewrite `path` from `tests` (the vlgpu run), keeping reasons of unchanged
    entries; other: the softpipe statuses (or {}), mentioned for new non-passes."""
    header = []
    if Path(path).exists():
        for line in Path(path).read_text().splitlines():
            if line.startswith("#") or not line.strip():
                header.append(line)
            else:
                break
    if not header:
        header = ["# Piglit expectations for vlgpu (scripts/piglit.py --check; docs/piglit.md).",
                  "# STATUS NAME[ :: SUBTEST][  # REASON]; a reason is required unless pass.",
                  ""]
    lines = list(header)
    for name in sorted(tests):
        status = tests[name]
        old = entries.get(name)
        if status == "pass":
            lines.append(f"pass {name}")
            continue
        if old and old.status == status and old.reason:
            reason = old.reason
        else:
            ref = f"softpipe: {other[name]}; " if name in other else ""
            reason = f"{ref}untriaged"
        lines.append(f"{status} {name}  # {reason}")
    Path(path).write_text("\n".join(lines) + "\n")


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def print_counts(runs):
    cols = ["pass", "fail", "crash", "skip", "timeout", "warn", "incomplete", "notrun", "total"]
    print("\n%-10s" % "driver" + "".join("%11s" % c for c in cols) + "%10s" % "seconds")
    for driver, run in runs.items():
        c = counts(run["tests"])
        print("%-10s" % run["label"] + "".join("%11d" % c.get(k, 0) for k in cols)
              + "%10s" % (f"{run['seconds']:.0f}" if run["seconds"] is not None else "-"))


def compare(runs, out_dir, max_list):
    if len(runs) < 2:
        return
    # The reference (softpipe) first: "softpipe pass -> vlgpu skip".
    (a, ra), (b, rb) = sorted(runs.items(), key=lambda kv: kv[0] != "softpipe")[:2]
    names = sorted(set(ra["tests"]) | set(rb["tests"]))
    diffs = [(n, ra["tests"].get(n, "missing"), rb["tests"].get(n, "missing")) for n in names]
    diffs = [d for d in diffs if d[1] != d[2]]
    groups = {}
    for n, x, y in diffs:
        groups.setdefault((x, y), []).append(n)
    lines = [f"# tests whose status differs: {a} -> {b}"]
    for (x, y), ns in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"\n## {a} {x} -> {b} {y}: {len(ns)}")
        lines += ns
    (out_dir / "compare.txt").write_text("\n".join(lines) + "\n")
    print(f"\n{len(diffs)} tests differ ({a} -> {b}); all of them in {out_dir / 'compare.txt'}")
    for (x, y), ns in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"  {a} {x} -> {b} {y}: {len(ns)}")
        for n in ns[:max_list]:
            print(f"      {n}")
        if len(ns) > max_list:
            print(f"      ... {len(ns) - max_list} more")


def print_crashes(runs):
    for driver, run in runs.items():
        crashed = sorted(n for n, s in run["tests"].items() if s == "crash")
        if not crashed:
            print(f"\n{run['label']}: no crashes")
            continue
        print(f"\n{run['label']}: {len(crashed)} crashes")
        others = {d: r for d, r in runs.items() if d != driver}
        for n in crashed:
            also = [d for d, r in others.items() if r["tests"].get(n) == "crash"]
            note = f"  [also crashes on {', '.join(also)}]" if also else ""
            print(f"  {n}\n      {crash_detail(run['raw'], n)}{note}")


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="vlgpu piglit", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--driver", choices=["both"] + DRIVERS, default="both",
                   help="which Gallium driver(s) to run (default: both, vlgpu first)")
    p.add_argument("--mode", choices=["functional", "cycle"], default="functional",
                   help="vlgpu GPU model: functional (default, fast: VLGPU_DEBUG=functional) "
                        "or cycle (the cycle-mode modules; much slower)")
    p.add_argument("--platform", choices=["surfaceless_egl", "x11_egl"], default="surfaceless_egl",
                   help="piglit/waffle platform: surfaceless_egl (default, the brief's oracle, no X "
                        "server) or x11_egl (a private Xvfb: tests that draw to the window run "
                        "instead of aborting in piglit's surfaceless framework)")
    p.add_argument("-t", "--include-tests", dest="include", action="append", metavar="REGEX",
                   help="piglit -t: run only tests whose name matches (repeatable; default: "
                        "-t gles -t glsl-es, unless --tests-from is given)")
    p.add_argument("-x", "--exclude-tests", dest="exclude", action="append", default=[],
                   metavar="REGEX", help="piglit -x: exclude matching tests (repeatable)")
    p.add_argument("--tests-from", metavar="FILE",
                   help="run exactly the tests listed in this expectations file (an anchored "
                        "-t per listed test)")
    p.add_argument("-j", "--jobs", type=int, default=2,
                   help="tests run concurrently per driver (default 2; the drivers run one "
                        "after the other)")
    p.add_argument("--profiles", nargs="+", default=DEFAULT_PROFILES, metavar="PROFILE",
                   help="piglit profiles (default: quick_gl quick_shader)")
    p.add_argument("--timeout", type=int, default=0, metavar="SECONDS",
                   help="piglit --timeout per test (default: piglit's, none)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="results directory; each driver in OUT/<driver>/ (default out/piglit)")
    p.add_argument("--no-run", action="store_true",
                   help="do not run piglit: report on the results already in OUT")
    p.add_argument("--check", metavar="FILE",
                   help="expectations file: every selected test listed as pass must pass "
                        "on vlgpu, else exit 1 with the list")
    p.add_argument("--update-expectations", metavar="FILE",
                   help="rewrite FILE from this run's vlgpu results (reasons kept for "
                        "unchanged entries)")
    p.add_argument("--doc", metavar="FILE", action="append",
                   help="also rewrite FILE's generated parts (repeatable): the counts and "
                        "differences between '<!-- BEGIN piglit MODE -->' and its END (with -t "
                        "filters other than the default: 'piglit MODE -t REGEX ...'), one "
                        "sentence between '<!-- BEGIN piglit MODE summary -->' and its END")
    p.add_argument("--fail-on-crash", action="store_true",
                   help="exit 1 if any test crashed on vlgpu")
    p.add_argument("--max-list", type=int, default=40,
                   help="tests printed per group of differences (default 40; the whole "
                        "list is in OUT/compare.txt)")
    p.add_argument("--progress", type=float, default=10.0, metavar="SECONDS",
                   help="print progress at most every SECONDS (default 10; 0 = quiet)")
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error("-j must be at least 1")
    return args


def doc_marker(args, include):
    """Name of the marked part of a --doc file a run writes: 'piglit MODE' for the
    default filter, else 'piglit MODE -t REGEX ...' (the -t filters as given)."""
    name = f"piglit {args.mode}"
    if include != DEFAULT_INCLUDE:
        name += "".join(f" -t {r}" for r in include)
    return name


def doc_sections(runs, args, include, argv):
    """{marker name: markdown lines} of a run: provenance, the counts per driver, the
    tests whose status differs between the drivers (grouped), and a one-sentence
    summary under the same name + ' summary'."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench  # machine_info, md_table
    m = bench.machine_info()
    cmd = "./vlgpu piglit " + " ".join(argv)
    cols = ["pass", "fail", "crash", "skip", "incomplete", "notrun", "total"]
    rows = []
    for run in runs.values():
        c = counts(run["tests"])
        rows.append([run["label"]] + [str(c.get(k, 0)) for k in cols]
                    + [f"{run['seconds']:.0f}" if run["seconds"] is not None else "-"])
    lines = [bench.provenance(cmd, m, f"vlgpu in {args.mode} mode, filters "
                              f"{' '.join('-t ' + r for r in include)}, {args.platform}"), ""]
    lines += bench.md_table(["driver"] + cols + ["seconds"], rows)
    if len(runs) >= 2:
        (a, ra), (b, rb) = sorted(runs.items(), key=lambda kv: kv[0] != "softpipe")[:2]
        names = sorted(set(ra["tests"]) | set(rb["tests"]))
        groups = {}
        for n in names:
            x, y = ra["tests"].get(n, "missing"), rb["tests"].get(n, "missing")
            if x != y:
                groups.setdefault((x, y), []).append(n)
        lines += ["", f"Tests whose status differs ({a} -> {b}): "
                  + (", ".join(f"{x} -> {y}: {len(ns)} (`" + "`, `".join(ns[:5]) + "`"
                               + (f", {len(ns) - 5} more" if len(ns) > 5 else "") + ")"
                               for (x, y), ns in sorted(groups.items(),
                                                        key=lambda kv: -len(kv[1])))
                     if groups else "none") + "."]
    parts = []
    for run in runs.values():
        c = counts(run["tests"])
        parts.append(f"{run['label']} passes {c.get('pass', 0)} of {c.get('total', 0)}"
                     f" ({c.get('crash', 0)} crash)")
    sentence = [f"Piglit {' '.join('-t ' + r for r in include)}: " + "; ".join(parts)
                + f" (`{cmd}`, {m['date']}, commit {m['git_head']})."]
    name = doc_marker(args, include)
    return {name: lines, name + " summary": sentence}


def write_docs(runs, args, include, argv):
    """Rewrite the marked parts of every --doc file (bench.write_doc_sections);
    returns the number of files that could not be written (reason on stderr)."""
    import bench  # on sys.path since doc_sections()
    return bench.write_doc_sections(args.doc, doc_sections(runs, args, include, argv),
                                    "vlgpu piglit")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    drivers = DRIVERS if args.driver == "both" else [args.driver]
    if (args.check or args.update_expectations) and "vlgpu" not in drivers:
        raise UsageError("--check/--update-expectations compare vlgpu results: "
                         "use --driver vlgpu or both")

    include = list(args.include or [])
    exclude = list(args.exclude)
    if args.tests_from:
        listed = parse_expectations(args.tests_from)
        if not listed:
            raise UsageError(f"{args.tests_from}: no tests listed")
        include += ["^%s$" % re.escape(n) for n in sorted({parent(n) for n in listed})]
    elif not include:
        include = list(DEFAULT_INCLUDE)
    expectations = parse_expectations(args.check) if args.check else {}

    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    runs = {}
    for driver in drivers:
        results_dir = out / driver
        label = f"vlgpu/{args.mode}" if driver == "vlgpu" else driver
        seconds = None
        if not args.no_run:
            print(f"piglit on {label}: {' '.join(args.profiles)} "
                  f"{' '.join('-t ' + r for r in include[:6])}"
                  f"{' ...' if len(include) > 6 else ''} -> {results_dir}", flush=True)
            seconds = run_piglit(driver, args, include, exclude, results_dir,
                                 out / f"{driver}.log")
        tests, raw = load_results(results_dir)
        if not args.no_run:
            rerun_display_lost(driver, args, exclude, out, tests, raw)
        runs[driver] = {"label": label, "tests": tests, "raw": raw, "seconds": seconds}

    print_counts(runs)
    compare(runs, out, args.max_list)
    print_crashes(runs)

    summary = {"platform": args.platform, "profiles": args.profiles, "include": include, "exclude": exclude,
               "mode": args.mode, "jobs": args.jobs,
               "drivers": {d: {"label": r["label"], "seconds": r["seconds"],
                               "counts": counts(r["tests"])} for d, r in runs.items()}}
    (out / "run.json").write_text(json.dumps(summary, indent=1) + "\n")

    rc = 0
    if "vlgpu" in runs:
        vl = runs["vlgpu"]["tests"]
        if args.update_expectations:
            old = parse_expectations(args.update_expectations) \
                if Path(args.update_expectations).exists() else {}
            write_expectations(args.update_expectations, old, vl,
                               runs.get("softpipe", {}).get("tests", {}))
            print(f"\nwrote {args.update_expectations} ({len(vl)} tests)")
        if args.check:
            failures, checked, unexpected = check_expectations(expectations, vl, include, exclude)
            untriaged = [e.name for e in expectations.values() if "untriaged" in e.reason]
            print(f"\n--check {args.check}: {checked} expected passes selected, "
                  f"{len(failures)} did not pass")
            for name, wanted, got in failures:
                print(f"  EXPECTED PASS, GOT {got.upper()}: {name}")
            for name, wanted, got, reason in unexpected:
                print(f"  note: {got} where {wanted} was expected ({reason}): {name}")
            if untriaged:
                print(f"  warning: {len(untriaged)} entries still say 'untriaged'")
            if failures:
                rc = 1
        crashes = [n for n, s in vl.items() if s == "crash"]
        if args.fail_on_crash and crashes:
            print(f"\n{len(crashes)} tests crashed on vlgpu (--fail-on-crash)")
            rc = 1
    if args.doc and write_docs(runs, args, include, argv):
        rc = rc or 2
    return rc


if __name__ == "__main__":
    try:
        sys.exit(main())
    except UsageError as e:
        print(f"vlgpu piglit: {e}", file=sys.stderr)
        sys.exit(2)
    except PiglitError as e:
        print(f"vlgpu piglit: {e}", file=sys.stderr)
        sys.exit(3)
    except KeyboardInterrupt:
        sys.exit(130)
