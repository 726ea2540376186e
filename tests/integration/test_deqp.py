"""`./vlgpu deqp` (scripts/deqp.py): the runner and the expectation files.

The runner is tested against a stand-in for a dEQP module (a small script that
prints dEQP's per-case lines, tcuTestSessionExecutor.cpp's format, for the cases
of --deqp-caselist-file and crashes, hangs or fails on cases named so), run
through `./vlgpu run` like the real one: every case must get its result, a crash
must cost only its own case (the runner restarts after it), a silent case must
be killed and counted as Timeout.  The expectation checks are tested on results
built here, so each check is seen failing.  The real dEQP runs in ./vlgpu test's
dEQP step (a slice of GLES2 and GLES3, both modes).
"""

import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

from vlgpu_testlib import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import deqp  # noqa: E402

FAKE_DEQP = textwrap.dedent("""\
    #!/usr/bin/python3
    import os, sys, time
    listfile = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--deqp-caselist-file="))
    for case in open(listfile).read().split():
        print(f"\\nTest case '{case}'..", flush=True)
        if "crash" in case:
            os.abort()
        if "hang" in case:
            time.sleep(600)
        status = "Fail" if "fail" in case else "NotSupported" if "unsup" in case else "Pass"
        print(f"  {status} ({'why' if status != 'Pass' else 'Pass'})", flush=True)
    """)


class RunnerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="vlgpu-deqp-")
        self.dir = Path(self.tmp.name)
        self.exe = self.dir / "deqp-fake"
        self.exe.write_text(FAKE_DEQP)
        self.exe.chmod(0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def run_cases(self, cases, jobs=2, timeout=5.0):
        results, details, _ = deqp.run_module("gles2", self.exe, cases, "softpipe", "functional",
                                              jobs, timeout, self.dir / "out", 0)
        return results, details

    def test_every_case_gets_its_result(self):
        cases = [f"dEQP-GLES2.a.case{i}" for i in range(7)] + ["dEQP-GLES2.a.fail1",
                                                               "dEQP-GLES2.a.unsup1"]
        results, _ = self.run_cases(cases)
        want = {c: "Pass" for c in cases[:7]}
        want.update({"dEQP-GLES2.a.fail1": "Fail", "dEQP-GLES2.a.unsup1": "NotSupported"})
        self.assertEqual(results, want)
        csv = (self.dir / "out" / "results.csv").read_text().splitlines()
        self.assertEqual(csv[0], "case,status,seconds")
        self.assertEqual(len(csv), 1 + len(cases))

    def test_crash_costs_one_case_and_the_run_goes_on(self):
        cases = ["dEQP-GLES2.a.p1", "dEQP-GLES2.a.crash1", "dEQP-GLES2.a.p2",
                 "dEQP-GLES2.a.crash2", "dEQP-GLES2.a.p3"]
        results, details = self.run_cases(cases, jobs=1)
        self.assertEqual(results, {"dEQP-GLES2.a.p1": "Pass", "dEQP-GLES2.a.crash1": "Crash",
                                   "dEQP-GLES2.a.p2": "Pass", "dEQP-GLES2.a.crash2": "Crash",
                                   "dEQP-GLES2.a.p3": "Pass"})
        self.assertIn("the dEQP process ended", details["dEQP-GLES2.a.crash1"])

    def test_silent_case_is_killed_as_timeout(self):
        cases = ["dEQP-GLES2.a.p1", "dEQP-GLES2.a.hang1", "dEQP-GLES2.a.p2"]
        results, details = self.run_cases(cases, jobs=1, timeout=3.0)
        self.assertEqual(results, {"dEQP-GLES2.a.p1": "Pass", "dEQP-GLES2.a.hang1": "Timeout",
                                   "dEQP-GLES2.a.p2": "Pass"})
        self.assertIn("no result after 3 s", details["dEQP-GLES2.a.hang1"])


class FetchUpstreamTest(unittest.TestCase):
    """The upstream route (no VLGPU_DEQP_SRC, no ../shared archive) against a local
    git repository standing in for GitHub: the pinned commit is fetched (depth 1,
    blobless, sparse) and only the GLES paths end up in the sources."""

    def test_fetches_the_pinned_commit_and_only_the_gles_paths(self):
        import subprocess
        with tempfile.TemporaryDirectory(prefix="vlgpu-deqp-git-") as tmp:
            tmp = Path(tmp)
            up = tmp / "upstream"
            for rel in deqp.SOURCE_PATHS:
                f = up / rel if "." in Path(rel).name else up / rel / "file.txt"
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_text(rel + "\n")
            (up / "external/vulkancts").mkdir(parents=True)
            (up / "external/vulkancts/big.bin").write_text("not for GLES\n")
            git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
            for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "x"],
                        ["config", "uploadpack.allowFilter", "true"],
                        ["config", "uploadpack.allowAnySHA1InWant", "true"]):
                subprocess.run(git + cmd, cwd=up, check=True)
            head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=up, check=True,
                                  capture_output=True, text=True).stdout.strip()
            saved = deqp.ROOT, deqp.DEQP_UPSTREAM, deqp.DEQP_COMMIT
            deqp.ROOT, deqp.DEQP_UPSTREAM, deqp.DEQP_COMMIT = tmp / "checkout", up.as_uri(), head
            try:
                dest = tmp / "dest"
                dest.mkdir()
                deqp.fetch_upstream(dest)
            finally:
                deqp.ROOT, deqp.DEQP_UPSTREAM, deqp.DEQP_COMMIT = saved
            self.assertEqual((dest / "framework/file.txt").read_text(), "framework\n")
            self.assertEqual((dest / "CMakeLists.txt").read_text(), "CMakeLists.txt\n")
            self.assertFalse((dest / "external/vulkancts").exists())


class ExpectationsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="vlgpu-deqp-exp-")
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, kind, text):
        (self.dir / f"gles2-{kind}.txt").write_text(textwrap.dedent(text))

    def test_reason_required(self):
        self.write("fails", "dEQP-GLES2.a.x,Fail\n")
        with self.assertRaisesRegex(deqp.UsageError, r"gles2-fails.txt:1: .*no reason"):
            deqp.Expectations("gles2", self.dir)

    def test_comment_block_gives_the_reason_and_bad_status_is_an_error(self):
        self.write("fails", """\
            # both fail on softpipe too: precision
            dEQP-GLES2.a.x,Fail
            dEQP-GLES2.a.y,Crash
            """)
        exp = deqp.Expectations("gles2", self.dir)
        self.assertEqual(exp.fails["dEQP-GLES2.a.y"][:2], ("Crash", "both fail on softpipe too: precision"))
        self.write("fails", "dEQP-GLES2.a.x,Failed  # typo\n")
        with self.assertRaisesRegex(deqp.UsageError, r"gles2-fails.txt:1: status 'Failed'"):
            deqp.Expectations("gles2", self.dir)

    def test_check_finds_each_kind_of_problem(self):
        self.write("fails", """\
            dEQP-GLES2.a.listed_fail,Fail  # known
            dEQP-GLES2.a.now_passes,Fail  # was broken
            """)
        self.write("unsupported", "dEQP-GLES2\\.a\\.unsup_explained  # extension not exposed\n")
        self.write("flakes", "dEQP-GLES2\\.a\\.flaky.*  # races\n")
        exp = deqp.Expectations("gles2", self.dir)
        vlgpu = {"dEQP-GLES2.a.ok": "Pass", "dEQP-GLES2.a.listed_fail": "Fail",
                 "dEQP-GLES2.a.now_passes": "Pass", "dEQP-GLES2.a.new_fail": "Fail",
                 "dEQP-GLES2.a.crash": "Crash", "dEQP-GLES2.a.flaky1": "Fail",
                 "dEQP-GLES2.a.unsup": "NotSupported",
                 "dEQP-GLES2.a.unsup_explained": "NotSupported"}
        problems = {p[0]: p for p in exp.check(vlgpu)}
        self.assertEqual(sorted(problems), ["dEQP-GLES2.a.crash", "dEQP-GLES2.a.new_fail",
                                            "dEQP-GLES2.a.now_passes", "dEQP-GLES2.a.unsup"])
        self.assertIn("remove the line", problems["dEQP-GLES2.a.now_passes"][3])
        self.assertIn("gles2-unsupported.txt says why", problems["dEQP-GLES2.a.unsup"][3])

    def test_not_supported_belongs_in_the_unsupported_file(self):
        self.write("fails", "dEQP-GLES2.a.x,NotSupported  # no extension\n")
        with self.assertRaisesRegex(deqp.UsageError, r"gles2-fails.txt:1: NotSupported cases go "
                                                     r"in gles2-unsupported.txt"):
            deqp.Expectations("gles2", self.dir)

    def test_fraction_syntax(self):
        self.assertEqual(deqp.parse_fraction("1/20"), 20)
        with self.assertRaises(deqp.UsageError):
            deqp.parse_fraction("2/3")


if __name__ == "__main__":
    unittest.main()
