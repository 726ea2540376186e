#!/usr/bin/python3
"""Run Khronos' dEQP (GLES2/3/31 mustpass) on vlgpu and softpipe, compare them, check expectations.

    ./vlgpu deqp gles2                        # vlgpu (functional) then softpipe, whole mustpass
    ./vlgpu deqp gles3 --fraction 1/20 --driver vlgpu --check
    ./vlgpu deqp gles2 --mode cycle --fraction 1/100 --driver vlgpu --check
    ./vlgpu deqp gles31 --cases 'dEQP-GLES31.functional.texture.*' --driver both
    ./vlgpu deqp --build-only                 # build deqp-gles2/3/31 and stop

Sources: dEQP is Khronos' VK-GL-CTS at the pinned commit DEQP_COMMIT, from
$VLGPU_DEQP_SRC (a checkout of that commit or its GLES `git archive` .tar.xz),
else ../shared/vk-gl-cts/ beside the checkout (that archive), else fetched from
upstream with git (GitHub).  They are unpacked into third_party/vk-gl-cts-<commit>/,
tests/deqp/surfaceless-no-vulkan.patch is applied and tests/deqp/CMakeLists.txt
(a GLES-only top level: upstream's needs the Vulkan CTS, glslang and amber
sources) replaces the top-level CMakeLists.txt.  Built once into build/deqp
(cmake + ninja -j2, ccache; Release, DEQP_TARGET=surfaceless, as Mesa's CI).

Runs: the module's `main` mustpass list (every Nth case with --fraction 1/N, or
the cases matching --cases globs), on 2 processes (--jobs) headless
(EGL_PLATFORM=surfaceless, pbuffer 256x256, rgba8888d24s8ms0: the mustpass
configuration) through `./vlgpu run`.  A crash ends one dEQP process: the case
is recorded as Crash and a new process continues after it; a case that prints
nothing for --timeout seconds is killed and recorded as Timeout.

Results: out/deqp/<driver>/<module>/results.csv (case,status,seconds) and
run.json (commit and date at the start, wall seconds, case count), a
summary in out/deqp/<module>-summary.txt and, with both drivers, the cases that
pass on softpipe and not on vlgpu in out/deqp/<module>-softpipe-only.txt.
<driver> is vlgpu-functional, vlgpu-cycle or softpipe.

Expectations (tests/deqp/, Mesa's deqp-runner style, checked with --check):
  <module>-fails.txt        CASE,STATUS  vlgpu's known results other than Pass and
                                         NotSupported (Fail, Crash, QualityWarning...)
  <module>-unsupported.txt  REGEX        cases vlgpu may report NotSupported, and why
  <module>-flakes.txt       REGEX        cases whose result may change run to run
  <module>-skips.txt        REGEX        cases not run (timing tests, hangs)
Every line needs a reason: a trailing `# reason`, or a comment block right
above a group of lines.  --check fails (exit 1) on a result of vlgpu that is
not Pass and not explained (the listed status; NotSupported matching an
unsupported regex; a flake), and on a listed case that passes now (remove its
line).  So a case that passes on softpipe and not on vlgpu always has a line
saying why.  The same files serve both modes: the cases must give the same
results in functional and cycle mode.

Exit code: 0 ok; 1 an expectation failed; 2 bad arguments or expectation file;
3 dEQP could not be fetched, built or run.
"""

import argparse
import fnmatch
import hashlib
import json
import os
import queue
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "vlgpu"
DEQP_COMMIT = "c57d29f97dbd51e6ff57e9eb1a98808e66afa0d3"
DEQP_UPSTREAM = "https://github.com/KhronosGroup/VK-GL-CTS.git"
SHARED_ARCHIVE = ROOT.parent / "shared" / "vk-gl-cts" / f"vk-gl-cts-gles-{DEQP_COMMIT[:9]}.tar.xz"
DEQP_SRC = ROOT / "third_party" / f"vk-gl-cts-{DEQP_COMMIT[:9]}"
DEQP_BUILD = ROOT / "build" / "deqp"
RECIPE = ROOT / "tests" / "deqp"
EXPECTATIONS = RECIPE
DEFAULT_OUT = ROOT / "out" / "deqp"
# What a GLES-only build reads (the GLES archive holds exactly these).
SOURCE_PATHS = ["CMakeLists.txt", "LICENSE", "NOTICE", "framework", "modules/glshared",
                "modules/gles2", "modules/gles3", "modules/gles31", "data/gles2", "data/gles3",
                "data/gles31", "targets", "external/graphicsfuzz/data/gles3",
                "external/openglcts/data/gl_cts/data/mustpass/gles/aosp_mustpass/main"]
MUSTPASS = "external/openglcts/data/gl_cts/data/mustpass/gles/aosp_mustpass/main"
MODULES = {"gles2": "deqp-gles2", "gles3": "deqp-gles3", "gles31": "deqp-gles31"}
# The mustpass `main` configuration (mustpass.xml), headless.
DEQP_ARGS = ["--deqp-surface-type=pbuffer", "--deqp-gl-config-name=rgba8888d24s8ms0",
             "--deqp-screen-rotation=unspecified", "--deqp-surface-width=256",
             "--deqp-surface-height=256", "--deqp-watchdog=disable",
             "--deqp-log-images=disable", "--deqp-log-shader-sources=disable",
             "--deqp-log-filename=/dev/null"]
# Status words dEQP prints after a case (tcu::TestResult names, qpTestResult).
STATUSES = ["Pass", "Fail", "QualityWarning", "CompatibilityWarning", "Pending",
            "NotSupported", "ResourceError", "InternalError", "Crash", "Timeout", "Waiver",
            "DeviceLost", "CapabilityWarning"]
BATCH = 250  # cases per dEQP process (a crash restarts after the crashed case)


class UsageError(Exception):
    """Bad arguments or a malformed expectation file (exit code 2)."""


class DeqpError(Exception):
    """dEQP could not be fetched, built or run (exit code 3)."""


# ---------------------------------------------------------------------------
# Sources and build
# ---------------------------------------------------------------------------


def recipe_hash():
    """Hash of what the prepared sources depend on: the pinned commit and our
    top-level CMakeLists.txt and patch (a change re-prepares the sources)."""
    h = hashlib.sha256(DEQP_COMMIT.encode())
    for name in ("CMakeLists.txt", "surfaceless-no-vulkan.patch"):
        h.update((RECIPE / name).read_bytes())
    return h.hexdigest()[:16]


def unpack_archive(archive, dest):
    """Extract a GLES `git archive` .tar.xz (one top directory) into dest."""
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        top = members[0].name.split("/")[0] if members else ""
        keep = []
        for m in members:
            parts = m.name.rstrip("/").split("/", 1)
            if parts[0] != top or ".." in m.name.split("/") or m.name.startswith("/") or \
                    not (m.isfile() or m.isdir()):
                raise DeqpError(f"{archive}: unexpected member {m.name!r} (not a dEQP archive)")
            if len(parts) == 2:
                m.name = parts[1]
                keep.append(m)
        tar.extractall(dest, members=keep)


def copy_checkout(src, dest):
    """Copy the GLES parts of a VK-GL-CTS checkout (checked to be at DEQP_COMMIT
    when it is a git work tree)."""
    head = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True,
                          text=True)
    if head.returncode == 0 and head.stdout.strip() != DEQP_COMMIT:
        raise DeqpError(f"VLGPU_DEQP_SRC={src} is at {head.stdout.strip()[:12]}, not the pinned "
                        f"{DEQP_COMMIT[:12]} (git -C {src} checkout {DEQP_COMMIT})")
    for rel in SOURCE_PATHS:
        s = Path(src) / rel
        if not s.exists():
            raise DeqpError(f"VLGPU_DEQP_SRC={src}: {rel} missing (not a VK-GL-CTS checkout?)")
        d = dest / rel
        d.parent.mkdir(parents=True, exist_ok=True)
        if s.is_dir():
            shutil.copytree(s, d)
        else:
            shutil.copy2(s, d)


def fetch_upstream(dest):
    """Fetch DEQP_COMMIT from upstream into third_party/vk-gl-cts.git (depth 1, blobless,
    a sparse checkout of SOURCE_PATHS, so only the GLES files' contents are downloaded),
    then copy those paths to dest.  Raises DeqpError with git's message on failure."""
    repo = ROOT / "third_party" / "vk-gl-cts.git"
    print(f"[deqp] fetching {DEQP_UPSTREAM} at {DEQP_COMMIT[:12]} into {repo}", flush=True)
    if not (repo / ".git").exists():
        repo.mkdir(parents=True, exist_ok=True)
        steps = [["git", "init", "-q"], ["git", "remote", "add", "origin", DEQP_UPSTREAM]]
    else:
        steps = []
    steps += [["git", "fetch", "-q", "--depth", "1", "--filter=blob:none", "origin", DEQP_COMMIT],
              ["git", "sparse-checkout", "set", "--no-cone"] + ["/" + p for p in SOURCE_PATHS],
              ["git", "checkout", "-q", "--detach", "FETCH_HEAD"]]
    for cmd in steps:
        r = subprocess.run(cmd, cwd=repo, capture_output=True, text=True)
        if r.returncode != 0:
            raise DeqpError(f"{' '.join(cmd)} (in {repo}) failed: {r.stderr.strip()[-400:]}\n"
                            "no dEQP sources: set VLGPU_DEQP_SRC to a VK-GL-CTS checkout at "
                            f"{DEQP_COMMIT} or to its GLES archive")
    copy_checkout(repo, dest)


def prepare_sources():
    """third_party/vk-gl-cts-<commit>/ ready to configure: unpacked, patched, our
    top-level CMakeLists.txt in place; a no-op when the stamp matches."""
    stamp = DEQP_SRC / ".vlgpu-prepared"
    want = recipe_hash()
    if stamp.exists() and stamp.read_text().strip() == want:
        return
    tmp = DEQP_SRC.with_name(DEQP_SRC.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    src = os.environ.get("VLGPU_DEQP_SRC")
    if src:
        src = Path(src).expanduser().resolve()
        print(f"[deqp] sources from VLGPU_DEQP_SRC={src}", flush=True)
        if src.is_dir():
            copy_checkout(src, tmp)
        elif src.is_file():
            unpack_archive(src, tmp)
        else:
            raise DeqpError(f"VLGPU_DEQP_SRC={src}: no such file or directory")
    elif SHARED_ARCHIVE.exists():
        print(f"[deqp] sources from {SHARED_ARCHIVE}", flush=True)
        unpack_archive(SHARED_ARCHIVE, tmp)
    else:
        fetch_upstream(tmp)
    r = subprocess.run(["patch", "-p1", "--forward", "-s", "-i",
                        str(RECIPE / "surfaceless-no-vulkan.patch")], cwd=tmp,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise DeqpError(f"tests/deqp/surfaceless-no-vulkan.patch does not apply: "
                        f"{(r.stdout + r.stderr).strip()[-400:]}")
    shutil.copy2(RECIPE / "CMakeLists.txt", tmp / "CMakeLists.txt")
    (tmp / ".vlgpu-prepared").write_text(want + "\n")
    if DEQP_SRC.exists():
        shutil.rmtree(DEQP_SRC)
    tmp.rename(DEQP_SRC)


def build_env():
    env = dict(os.environ)
    env["PATH"] = "/usr/bin:" + env.get("PATH", "")
    # ccache shared between checkouts of the project (paths relative to the parent).
    env.setdefault("CCACHE_BASEDIR", str(ROOT.parent))
    env.setdefault("CCACHE_NOHASHDIR", "true")
    return env


def run_ninja(targets, progress):
    """ninja -j2 in build/deqp; one progress line at most every PROGRESS seconds."""
    cmd = ["ninja", "-C", str(DEQP_BUILD), "-j2"] + targets
    proc = subprocess.Popen(cmd, env=build_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    tail, last, t0 = [], 0.0, time.monotonic()
    for line in proc.stdout:
        tail = (tail + [line.rstrip()])[-30:]
        m = re.match(r"\[(\d+)/(\d+)\]", line)
        if m and progress > 0 and time.monotonic() - last >= progress:
            last = time.monotonic()
            print(f"[deqp] build {m.group(1)}/{m.group(2)} ({time.monotonic() - t0:.0f} s)",
                  flush=True)
    if proc.wait() != 0:
        raise DeqpError("building dEQP failed:\n  " + "\n  ".join(tail))
    print(f"[deqp] built {' '.join(targets)} in build/deqp ({time.monotonic() - t0:.0f} s)",
          flush=True)


def build(modules, progress=10.0):
    """Prepare the sources, configure build/deqp if needed and build the modules'
    executables.  Returns {module: executable path}."""
    prepare_sources()
    configured = DEQP_BUILD / "build.ninja"
    stamp = DEQP_BUILD / ".vlgpu-configured"
    if not configured.exists() or not stamp.exists() or \
            stamp.read_text().strip() != recipe_hash():
        DEQP_BUILD.mkdir(parents=True, exist_ok=True)
        cmd = ["cmake", "-G", "Ninja", "-S", str(DEQP_SRC), "-B", str(DEQP_BUILD),
               "-DDEQP_TARGET=surfaceless", "-DCMAKE_BUILD_TYPE=Release",
               "-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
        print("[deqp] configuring build/deqp (cmake)", flush=True)
        r = subprocess.run(cmd, env=build_env(), capture_output=True, text=True)
        if r.returncode != 0:
            raise DeqpError("cmake for dEQP failed:\n" + (r.stdout + r.stderr)[-2000:])
        stamp.write_text(recipe_hash() + "\n")
    run_ninja([MODULES[m] for m in modules], progress)
    return {m: DEQP_BUILD / "modules" / m / MODULES[m] for m in modules}


# ---------------------------------------------------------------------------
# Case lists
# ---------------------------------------------------------------------------


def parse_fraction(text):
    m = re.fullmatch(r"1/(\d+)", text or "1/1")
    if not m or int(m.group(1)) < 1:
        raise UsageError(f"--fraction {text!r}: expected 1/N with N >= 1 (every Nth case)")
    return int(m.group(1))


def mustpass(module):
    path = DEQP_SRC / MUSTPASS / f"{module}-main.txt"
    try:
        return [l.strip() for l in path.read_text().splitlines() if l.strip()]
    except OSError as e:
        raise DeqpError(f"{path}: {e.strerror} (sources not prepared?)")


def read_case_names(path):
    """Case names of a list file: the text of each line up to a comma (so a
    results.csv or a *-softpipe-only.txt serves as a list too)."""
    try:
        return {l.split(",", 1)[0].strip() for l in Path(path).read_text().splitlines()
                if l.strip() and not l.startswith("#")}
    except OSError as e:
        raise UsageError(f"--cases-from {path}: {e.strerror}")


def select_cases(module, fraction, globs, skips, listed=None):
    """The mustpass cases of MODULE: every FRACTION-th (starting with the first),
    then only those matching one of GLOBS (if any) and in LISTED (a set, if
    given), minus the SKIPS regexes."""
    cases = mustpass(module)[::fraction]
    if globs:
        cases = [c for c in cases if any(fnmatch.fnmatchcase(c, g) for g in globs)]
    if listed is not None:
        cases = [c for c in cases if c in listed]
    return [c for c in cases if not any(r.search(c) for r in skips)]


# ---------------------------------------------------------------------------
# Expectations (Mesa deqp-runner style)
# ---------------------------------------------------------------------------


def read_reasoned_lines(path):
    """[(lineno, text, reason)] of a fails/flakes/skips file: each non-comment line
    with its trailing '# reason' or the comment block right above it (a blank line
    ends a block).  Raises UsageError for a line without a reason."""
    out, block = [], []
    try:
        lines = Path(path).read_text().splitlines()
    except FileNotFoundError:
        return []
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror}")
    for lineno, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            block = []
            continue
        if text.startswith("#"):
            block.append(text.lstrip("#").strip())
            continue
        body, _, reason = text.partition("#")
        reason = reason.strip() or " ".join(block).strip()
        if not reason:
            raise UsageError(f"{path}:{lineno}: {body.strip()}: no reason (a trailing "
                             "'# why' or a comment block above)")
        out.append((lineno, body.strip(), reason))
    return out


class Expectations:
    """tests/deqp/<module>-{fails,unsupported,flakes,skips}.txt of one module."""

    KINDS = ("fails", "unsupported", "flakes", "skips")

    def __init__(self, module, directory=EXPECTATIONS):
        self.files = {k: Path(directory) / f"{module}-{k}.txt" for k in self.KINDS}
        self.fails = {}  # case -> (status, reason, lineno)
        for lineno, body, reason in read_reasoned_lines(self.files["fails"]):
            case, _, status = body.partition(",")
            case, status = case.strip(), status.strip()
            if status == "NotSupported":
                raise UsageError(f"{self.files['fails']}:{lineno}: NotSupported cases go in "
                                 f"{self.files['unsupported'].name} (a regex and the reason)")
            if status not in STATUSES or status == "Pass":
                raise UsageError(f"{self.files['fails']}:{lineno}: status {status!r}: one of "
                                 + ", ".join(s for s in STATUSES
                                             if s not in ("Pass", "NotSupported")))
            if case in self.fails:
                raise UsageError(f"{self.files['fails']}:{lineno}: {case} listed twice")
            self.fails[case] = (status, reason, lineno)
        self.unsupported = self._regexes("unsupported")
        self.flakes = self._regexes("flakes")
        self.skips = self._regexes("skips")

    def _regexes(self, kind):
        out = []
        for lineno, body, reason in read_reasoned_lines(self.files[kind]):
            try:
                out.append(re.compile(body))
            except re.error as e:
                raise UsageError(f"{self.files[kind]}:{lineno}: bad regex {body!r}: {e}")
        return out

    def is_flake(self, case):
        return any(r.search(case) for r in self.flakes)

    def check(self, vlgpu):
        """Problems of vlgpu's results {case: status}: [(case, got, wanted, why)];
        empty = every result is Pass or explained by a line of the files."""
        problems = []
        for case, got in sorted(vlgpu.items()):
            listed = self.fails.get(case)
            if self.is_flake(case) or (listed and got == listed[0]):
                continue
            if got == "NotSupported" and any(r.search(case) for r in self.unsupported):
                continue
            if listed and got == "Pass":
                problems.append((case, got, listed[0], f"listed in {self.files['fails'].name}:"
                                 f"{listed[2]} but passes now: remove the line"))
            elif got == "NotSupported":
                problems.append((case, got, listed[0] if listed else "Pass",
                                 f"no line of {self.files['unsupported'].name} says why"))
            elif got != "Pass":
                problems.append((case, got, listed[0] if listed else "Pass",
                                 "unexpected result"))
        return problems


# ---------------------------------------------------------------------------
# Running dEQP
# ---------------------------------------------------------------------------


def driver_env(driver, mode):
    """Environment of one run: VLGPU_DEBUG with `functional` added (vlgpu in
    functional mode) or removed (cycle mode; softpipe)."""
    env = dict(os.environ)
    flags = [f for f in re.split(r"[,\s]+", env.get("VLGPU_DEBUG", "")) if f and f != "functional"]
    if driver == "vlgpu" and mode == "functional":
        flags.append("functional")
    if flags:
        env["VLGPU_DEBUG"] = ",".join(flags)
    else:
        env.pop("VLGPU_DEBUG", None)
    env.pop("DISPLAY", None)
    return env


CASE_RE = re.compile(r"^Test case '([^']+)'\.\.")
STATUS_RE = re.compile(r"^\s+(" + "|".join(STATUSES) + r")\s*(\((.*)\))?\s*$")


def run_batch(exe, cases, driver, mode, timeout, workdir, log):
    """Run CASES in one dEQP process (and more after a crash or a timeout).
    Yields (case, status, seconds, detail) per case, in the order they ran."""
    pending = list(cases)
    while pending:
        listfile = workdir / f"caselist.{threading.get_ident()}.txt"
        listfile.write_text("\n".join(pending) + "\n")
        cmd = [str(LAUNCHER), "run", "--headless", "--driver", driver, "--", str(exe),
               f"--deqp-caselist-file={listfile}"] + DEQP_ARGS
        proc = subprocess.Popen(cmd, cwd=exe.parent, env=driver_env(driver, mode),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        current, started, buf, done, tail = None, time.monotonic(), b"", set(), []
        timed_out = False
        while True:
            ready = sel.select(timeout=1.0)
            if ready:
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                log.write(chunk.decode(errors="replace"))
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for raw in lines:
                    line = raw.decode(errors="replace")
                    tail = (tail + [line])[-5:]
                    m = CASE_RE.match(line)
                    if m:
                        current, started = m.group(1), time.monotonic()
                        continue
                    m = STATUS_RE.match(line)
                    if m and current:
                        yield current, m.group(1), time.monotonic() - started, m.group(3) or ""
                        done.add(current)
                        current = None
            if current and time.monotonic() - started > timeout:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                break
        sel.close()
        proc.stdout.close()
        rc = proc.wait()
        if current and current not in done:
            status = "Timeout" if timed_out else "Crash"
            detail = f"no result after {timeout:.0f} s" if timed_out else \
                f"the dEQP process ended (exit {rc}): " + " | ".join(t for t in tail if t.strip())[-300:]
            yield current, status, time.monotonic() - started, detail
            done.add(current)
        elif rc != 0 and not done:
            raise DeqpError(f"{exe.name} on {driver} ran no case (exit {rc}): "
                            + " | ".join(tail)[-500:])
        rest = [c for c in pending if c not in done]
        if rest and rest == pending:
            raise DeqpError(f"{exe.name} on {driver} did not run {rest[0]} (exit {rc})")
        pending = rest if (rc != 0 or timed_out) else []
        if not timed_out and rc == 0 and rest:
            # dEQP exited normally without running these (it did not know them).
            for c in rest:
                yield c, "NotFound", 0.0, "not in this dEQP build"


def run_module(module, exe, cases, driver, mode, jobs, timeout, out_dir, progress):
    """Run CASES of MODULE on JOBS processes; returns ({case: status}, {case: detail},
    wall seconds).  Writes out_dir/results.csv and out_dir/log.txt."""
    out_dir.mkdir(parents=True, exist_ok=True)
    batches = queue.Queue()
    for i in range(0, len(cases), BATCH):
        batches.put(cases[i:i + BATCH])
    results, details, seconds = {}, {}, {}
    lock = threading.Lock()
    errors = []
    t0 = time.monotonic()
    last = [0.0]
    label = driver_label(driver, mode)
    # which build runs it (taken now: the tree may move on while a long run goes)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench
    started = bench.machine_info()

    def worker(n):
        with open(out_dir / f"log.{n}.txt", "w") as log:
            while not errors:
                try:
                    batch = batches.get_nowait()
                except queue.Empty:
                    return
                try:
                    for case, status, secs, detail in run_batch(exe, batch, driver, mode,
                                                                timeout, out_dir, log):
                        with lock:
                            results[case], seconds[case] = status, secs
                            if detail and status != "Pass":
                                details[case] = detail
                            now = time.monotonic()
                            if progress > 0 and now - last[0] >= progress:
                                last[0] = now
                                c = counts(results)
                                print(f"  [{label} {module}] {len(results)}/{len(cases)}  pass "
                                      f"{c['Pass']}, fail {c['Fail']}, crash {c['Crash']}  "
                                      f"({now - t0:.0f} s)", flush=True)
                except DeqpError as e:
                    errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    wall = time.monotonic() - t0
    with open(out_dir / "results.csv", "w") as f:
        f.write("case,status,seconds\n")
        for case in cases:
            if case in results:
                f.write(f"{case},{results[case]},{seconds[case]:.3f}\n")
    with open(out_dir / "details.txt", "w") as f:
        for case in sorted(details):
            f.write(f"{case},{results[case]}: {details[case]}\n")
    # which build ran it, for a later --no-run report
    (out_dir / "run.json").write_text(json.dumps(
        {"commit": started["git_head"], "date": started["date"], "wall_seconds": round(wall, 1),
         "cases": len(cases), "jobs": jobs}) + "\n")
    return results, details, wall


def load_run_info(out_dir):
    """run.json of an earlier run (commit and date at its start, wall_seconds), or {}
    for results written before run.json existed."""
    try:
        return json.loads((out_dir / "run.json").read_text())
    except (OSError, ValueError):
        return {}


def driver_label(driver, mode):
    return f"vlgpu-{mode}" if driver == "vlgpu" else driver


def counts(results):
    c = {s: 0 for s in STATUSES + ["NotFound"]}
    for s in results.values():
        c[s] = c.get(s, 0) + 1
    c["total"] = len(results)
    return c


def load_results(path):
    """{case: status} of a results.csv (for --no-run)."""
    out = {}
    try:
        for line in Path(path).read_text().splitlines()[1:]:
            case, status, _ = line.rsplit(",", 2)
            out[case] = status
    except (OSError, ValueError) as e:
        raise DeqpError(f"{path}: cannot read results ({e})")
    return out


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

COLUMNS = ["Pass", "Fail", "NotSupported", "QualityWarning", "CompatibilityWarning",
           "Crash", "Timeout", "InternalError", "ResourceError"]


def summary_lines(module, runs):
    """Counts per driver (one row each), as text lines."""
    lines = [f"dEQP-{module.upper()}: " + ", ".join(f"{label} {r['wall']:.0f} s"
                                                    for label, r in runs.items() if r["wall"])]
    lines.append("%-18s" % "driver" + "".join("%13s" % c[:12] for c in COLUMNS) + "%9s" % "total")
    for label, r in runs.items():
        c = counts(r["results"])
        lines.append("%-18s" % label + "".join("%13d" % c.get(k, 0) for k in COLUMNS)
                     + "%9d" % c["total"])
    return lines


def softpipe_only(runs):
    """Cases that pass on softpipe and not on the vlgpu run: [(case, vlgpu status)]."""
    sp = runs.get("softpipe", {}).get("results")
    vl = next((r["results"] for label, r in runs.items() if label.startswith("vlgpu")), None)
    if not sp or vl is None:
        return []
    return sorted((c, vl[c]) for c, s in sp.items() if s == "Pass" and c in vl and vl[c] != "Pass")


def doc_sections(module, runs, only, exp, args, argv):
    """{'deqp MODULE': lines, 'deqp MODULE summary': [sentence]} for --doc."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench  # machine_info, md_table, provenance
    m = bench.machine_info()
    cmd = "./vlgpu deqp " + " ".join(argv)
    rows = []
    for label, r in runs.items():
        c = counts(r["results"])
        rows.append([label] + [str(c.get(k, 0)) for k in COLUMNS] + [str(c["total"]),
                     f"{r['wall']:.0f}" if r["wall"] else "-"])
    every = "" if args.fraction == "1/1" else f", every {args.fraction.split('/')[1]}th case"
    details = f"dEQP at {DEQP_COMMIT[:9]}, {module} mustpass `main`{every}, {args.jobs} processes"
    if args.no_run:
        # --no-run reports an earlier run: say when its results were written.
        written = []
        for label, r in runs.items():
            info = r.get("info") or {}
            if info:
                written.append(f"{label} started {info['date']} at commit {info['commit']}")
            else:
                when = (args.out / label / module / "results.csv").stat().st_mtime
                written.append(f"{label} at "
                               + time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(when)))
        details += (", from the results earlier runs wrote to " + str(args.out) + " ("
                    + "; ".join(written) + ")")
    lines = [bench.provenance(cmd, m, details), ""]
    lines += bench.md_table(["driver"] + COLUMNS + ["total", "seconds"], rows)
    if "softpipe" in runs and len(runs) > 1:
        groups = {}
        for case, st in only:
            groups.setdefault(st, []).append(case)
        lines += ["", f"Pass on softpipe, not on vlgpu: {len(only)}"
                  + ("" if not only else ": " + "; ".join(
                      f"{st} {len(cs)} (`" + "`, `".join(cs[:4]) + "`"
                      + (f", {len(cs) - 4} more" if len(cs) > 4 else "") + ")"
                      for st, cs in sorted(groups.items(), key=lambda kv: -len(kv[1]))))
                  + explained_note(module, only, exp) + "."]
    parts = [f"{label} {counts(r['results'])['Pass']} pass of {counts(r['results'])['total']} "
             f"({counts(r['results'])['Crash']} crash)" for label, r in runs.items()]
    sentence = [f"dEQP-{module.upper()}: " + "; ".join(parts) + f" (`{cmd}`, {m['date']}, "
                f"commit {m['git_head']})."]
    name = doc_marker(module, list(runs), args.fraction)
    return {name: lines, name + " summary": sentence}, bench


def explained_note(module, only, exp):
    """' (each explained in ...)' when every softpipe-only case has a line in the
    expectation files, else how many have none."""
    missing = exp.check(dict(only))
    if not only:
        return ""
    if not missing:
        return f" (each explained in tests/deqp/{module}-fails.txt or -unsupported.txt)"
    return f" ({len(missing)} of them without a line in tests/deqp/ saying why)"


def doc_marker(module, labels, fraction):
    """Marker name of a --doc section: 'deqp MODULE' for the default run (whole list,
    vlgpu-functional and softpipe), else with the drivers and the fraction, e.g.
    'deqp gles2 vlgpu-cycle' or 'deqp gles3 vlgpu-functional 1/20'."""
    name = f"deqp {module}"
    if labels != ["vlgpu-functional", "softpipe"]:
        name += " " + " ".join(labels)
    if fraction != "1/1":
        name += " " + fraction
    return name


def write_fails(module, exp, results, softpipe):
    """--update-expectations: rewrite tests/deqp/<module>-fails.txt from vlgpu's
    results other than Pass and NotSupported, keeping reasons (NotSupported cases
    are explained by hand in <module>-unsupported.txt)."""
    path = exp.files["fails"]
    header = ["# dEQP-" + module.upper() + " cases vlgpu does not pass (scripts/deqp.py --check;",
              "# docs/conformance.md).  CASE,STATUS; a reason per line or per comment block.", ""]
    lines = list(header)
    for case in sorted(results):
        st = results[case]
        if st in ("Pass", "NotSupported") or exp.is_flake(case):
            continue
        old = exp.fails.get(case)
        reason = old[1] if old and old[0] == st else \
            ("softpipe: " + softpipe[case] + "; " if softpipe and case in softpipe else "") + "untriaged"
        lines.append(f"{case},{st}  # {reason}")
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path} ({len(lines) - len(header)} cases)")


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="vlgpu deqp", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("modules", nargs="*", metavar="MODULE",
                   help="gles2, gles3 and/or gles31 (default: all three)")
    p.add_argument("--fraction", default="1/1", metavar="1/N",
                   help="run every Nth case of the mustpass list (default 1/1: all)")
    p.add_argument("--cases", action="append", default=[], metavar="GLOB",
                   help="only the mustpass cases matching this glob (repeatable), e.g. "
                        "'dEQP-GLES3.functional.fbo.blit.*'")
    p.add_argument("--cases-from", type=Path, metavar="FILE",
                   help="only the mustpass cases listed in FILE (one per line; a results.csv "
                        "or a *-softpipe-only.txt works too: the name is read up to a comma)")
    p.add_argument("--mode", choices=["functional", "cycle"], default="functional",
                   help="vlgpu GPU model: functional (default, VLGPU_DEBUG=functional) or cycle")
    p.add_argument("--driver", choices=["both", "vlgpu", "softpipe"], default="both",
                   help="which Gallium driver(s) (default both, vlgpu first)")
    p.add_argument("-j", "--jobs", type=int, default=2,
                   help="dEQP processes per driver (default 2)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="per case; a case silent that long is killed and counted Timeout "
                        "(default 120 s, 1200 s in cycle mode)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="results directory (default out/deqp)")
    p.add_argument("--check", action="store_true",
                   help="check vlgpu's results against tests/deqp/<module>-{fails,unsupported,"
                        "flakes,skips}.txt (exit 1 on an unexpected result)")
    p.add_argument("--expectations", type=Path, default=EXPECTATIONS, metavar="DIR",
                   help="directory of the expectation files (default tests/deqp)")
    p.add_argument("--update-expectations", action="store_true",
                   help="rewrite tests/deqp/<module>-fails.txt from this run (reasons kept; new "
                        "lines say 'untriaged')")
    p.add_argument("--doc", metavar="FILE", action="append",
                   help="rewrite FILE's parts between '<!-- BEGIN deqp MODULE -->' and its END "
                        "(counts, softpipe-only cases) and '<!-- BEGIN deqp MODULE summary -->'; "
                        "other runs than both drivers over the whole list name theirs, e.g. "
                        "'deqp gles2 vlgpu-cycle', 'deqp gles3 vlgpu-functional 1/20'")
    p.add_argument("--no-run", action="store_true",
                   help="report on the results already in OUT (no build, no run)")
    p.add_argument("--build-only", action="store_true", help="build dEQP and stop")
    p.add_argument("--progress", type=float, default=15.0, metavar="SECONDS",
                   help="progress line at most every SECONDS (default 15; 0 = quiet)")
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error("-j must be at least 1")
    args.step = parse_fraction(args.fraction)
    if args.timeout is None:
        args.timeout = 1200.0 if args.mode == "cycle" else 120.0
    unknown = [m for m in args.modules if m not in MODULES]
    if unknown:
        p.error(f"unknown module {unknown[0]!r} (one of {', '.join(MODULES)})")
    args.modules = args.modules or list(MODULES)
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    drivers = ["vlgpu", "softpipe"] if args.driver == "both" else [args.driver]
    if (args.check or args.update_expectations) and "vlgpu" not in drivers:
        raise UsageError("--check/--update-expectations judge vlgpu: use --driver vlgpu or both")
    exes = {} if args.no_run else build(args.modules, args.progress)
    if args.build_only:
        return 0
    rc = 0
    for module in args.modules:
        exp = Expectations(module, args.expectations)
        cases = select_cases(module, args.step, args.cases, exp.skips,
                             read_case_names(args.cases_from) if args.cases_from else None)
        if not cases:
            raise UsageError(f"{module}: no case selected (--fraction, --cases, --cases-from)")
        runs = {}
        for driver in drivers:
            label = driver_label(driver, args.mode)
            out_dir = args.out.resolve() / label / module
            info = {}
            if args.no_run:
                loaded = load_results(out_dir / "results.csv")
                info = load_run_info(out_dir)
                # the wall time only when that run had exactly these cases
                wall = info.get("wall_seconds") if info.get("cases") == len(cases) else None
                results = {c: loaded[c] for c in cases if c in loaded}
            else:
                print(f"[deqp] dEQP-{module.upper()} on {label}: {len(cases)} cases, "
                      f"{args.jobs} processes -> {out_dir}", flush=True)
                results, _, wall = run_module(module, exes[module], cases, driver, args.mode,
                                              args.jobs, args.timeout, out_dir, args.progress)
            runs[label] = {"results": results, "wall": wall, "info": info}
        lines = summary_lines(module, runs)
        print("\n" + "\n".join(lines))
        only = softpipe_only(runs)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"{module}-summary.txt").write_text("\n".join(lines) + "\n")
        if "softpipe" in runs and len(runs) > 1:
            (args.out / f"{module}-softpipe-only.txt").write_text(
                "".join(f"{c},{s}\n" for c, s in only))
            print(f"{len(only)} cases pass on softpipe and not on vlgpu "
                  f"({args.out / (module + '-softpipe-only.txt')})")
        vl = next((r["results"] for label, r in runs.items() if label.startswith("vlgpu")), None)
        sp = runs.get("softpipe", {}).get("results")
        if vl is not None:
            crashes = sorted(c for c, s in vl.items() if s == "Crash")
            for c in crashes[:20]:
                print(f"  CRASH {c}")
            if args.update_expectations:
                write_fails(module, exp, vl, sp)
                exp = Expectations(module, args.expectations)
            if args.check:
                problems = exp.check(vl)
                print(f"--check tests/deqp/{module}-*.txt: {len(vl)} results, "
                      f"{len(problems)} unexpected")
                for case, got, wanted, why in problems[:60]:
                    print(f"  {got} (expected {wanted}): {case}: {why}")
                if len(problems) > 60:
                    print(f"  ... {len(problems) - 60} more")
                if problems:
                    rc = 1
        if args.doc:
            sections, bench = doc_sections(module, runs, only, exp, args, argv)
            if bench.write_doc_sections(args.doc, sections, "vlgpu deqp"):
                rc = rc or 2
    return rc


if __name__ == "__main__":
    try:
        sys.exit(main())
    except UsageError as e:
        print(f"vlgpu deqp: {e}", file=sys.stderr)
        sys.exit(2)
    except DeqpError as e:
        print(f"vlgpu deqp: {e}", file=sys.stderr)
        sys.exit(3)
    except KeyboardInterrupt:
        sys.exit(130)
