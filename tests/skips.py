"""Skipped tests are failures in `./vlgpu test` unless allowed (issue "Reliability").

A test that skips has checked nothing, so `./vlgpu test` counts every skipped gtest
case (from meson's JUnit log, build/*/meson-logs/testlog.junit.xml) and every
skipped integration test (tests/integration/run.py) as a failure, unless its id is
in tests/allowed_skips.txt with a reason.  That file is the short, reviewed list of
skips that depend on the machine rather than on the project.

Ids: a gtest case is `Suite.Name` (the JUnit classname and name, e.g.
`HwParse.LocaleIndependent`; parameterised: `Inst/Suite.Name/0`); an integration
test is its unittest id (`driver.test_glmark2.Glmark2Scenes.test_x`).  An entry may
end in `*` to allow every id with that prefix.

Used by the `./vlgpu` launcher (cmd_test) and tests/integration/run.py; Python 3.11
standard library only.
"""

import xml.etree.ElementTree as ET
from pathlib import Path

ALLOWED_FILE = Path(__file__).resolve().parent / "allowed_skips.txt"


class AllowListError(Exception):
    """tests/allowed_skips.txt is malformed (message names file and line)."""


def load_allowed(path=ALLOWED_FILE):
    """{id or prefix*: reason} from PATH: one `ID  # REASON` per line, blank lines and
    lines starting with '#' ignored.  Raises AllowListError for an entry without a
    reason or a duplicate id."""
    allowed = {}
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        test, _, reason = s.partition("#")
        test, reason = test.strip(), reason.strip()
        if not test or not reason:
            raise AllowListError(f"{path}:{n}: expected 'TEST_ID  # REASON', got {s!r}")
        if test in allowed:
            raise AllowListError(f"{path}:{n}: {test} listed twice")
        allowed[test] = reason
    return allowed


def is_allowed(test_id, allowed):
    """True if TEST_ID is in ALLOWED, exactly or by a `prefix*` entry."""
    return test_id in allowed or any(k.endswith("*") and test_id.startswith(k[:-1])
                                     for k in allowed)


def junit_skips(path):
    """[(test id, message)] of the skipped test cases in a JUnit XML file (meson's
    testlog.junit.xml; gtest cases as `classname.name`).  A missing file: []."""
    p = Path(path)
    if not p.exists():
        return []
    skips = []
    for case in ET.parse(p).getroot().iter("testcase"):
        s = case.find("skipped")
        if s is not None:
            skips.append((f"{case.get('classname')}.{case.get('name')}",
                          (s.get("message") or s.text or "").strip()))
    return skips


def not_allowed(skips, allowed=None):
    """The (id, message) pairs of SKIPS that ALLOWED (default: the file) does not
    allow."""
    allowed = load_allowed() if allowed is None else allowed
    return [(t, m) for t, m in skips if not is_allowed(t, allowed)]


def report(skips, what):
    """Print the skips of WHAT that are not allowed; returns their number."""
    bad = not_allowed(skips)
    if bad:
        print(f"\n{what}: {len(bad)} skipped test(s) not in tests/allowed_skips.txt "
              "(a skip checks nothing: make the test run, or list it with a reason):")
        for t, m in bad:
            print(f"    SKIPPED  {t}: {m}")
    return len(bad)
