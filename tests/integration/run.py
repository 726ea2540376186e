#!/usr/bin/python3
"""Integration test runner: real GL programs through the ./vlgpu launcher.

Discovers tests/integration/test_*.py (Python unittest modules) and runs them.
Needs a finished `./vlgpu setup` (./vlgpu test runs it first).  Exit code 0
only if every test passed and none skipped except those tests/allowed_skips.txt
lists with a reason (tests/skips.py).

    /usr/bin/python3 tests/integration/run.py [-k PATTERN] [-v]
"""

import argparse
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import skips  # noqa: E402  (tests/skips.py: the allowed-skips rule)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", dest="patterns", action="append", default=None,
                        help="only run tests whose name contains PATTERN (repeatable)")
    parser.add_argument("-q", "--quiet", action="store_true", help="less output")
    args = parser.parse_args()

    loader = unittest.TestLoader()
    if args.patterns:
        loader.testNamePatterns = [f"*{p}*" for p in args.patterns]
    suite = loader.discover(str(HERE), pattern="test_*.py", top_level_dir=str(HERE))
    result = unittest.TextTestRunner(verbosity=1 if args.quiet else 2).run(suite)
    # A skipped test checked nothing: it fails the run unless tests/allowed_skips.txt
    # lists it with a reason (tests/skips.py).
    bad = skips.report([(t.id(), reason) for t, reason in result.skipped], "integration tests")
    return 0 if result.wasSuccessful() and result.testsRun > 0 and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
