"""Runs pytest with this interpreter, or exits 77 (skipped) saying why it cannot."""
import sys

try:
    import pytest
except ImportError:
    print("pytest is not installed for %s (apt-get install python3-pytest)" % sys.executable)
    sys.exit(77)

sys.exit(pytest.main(sys.argv[1:]))
