"""Integration tests of the vlgpu Gallium driver (docs/driver.md "Tests").

A package so that tests/integration/run.py's discovery finds the test_*.py
modules here; they import ../vlgpu_testlib.py and ./driverlib.py.
"""

import sys
from pathlib import Path

# The modules import driverlib (and ../vlgpu_testlib) by plain name.
sys.path.insert(0, str(Path(__file__).resolve().parent))
