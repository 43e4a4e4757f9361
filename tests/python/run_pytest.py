"""Runs pytest with this interpreter, or exits 77 (skipped) saying why it cannot."""
import sys

try:
    import pytest
except ImportError:
    print("pytest is not installed for %s (apt-get install python3-pytest for Debian's python3, then configure with -DPython3_EXECUTABLE=/usr/bin/python3)" % sys.executable)
    sys.exit(77)

sys.exit(pytest.main(sys.argv[1:]))
