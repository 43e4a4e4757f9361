#!/usr/bin/env python3
"""Validates result files against a JSON Schema (draft 7): one line per
violation, exit 1 when there is any, 77 when python3-jsonschema is absent."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed (apt-get install python3-jsonschema)")
    sys.exit(77)

with open(sys.argv[1]) as f:
    validator = jsonschema.Draft7Validator(json.load(f))
violations = 0
for path in sys.argv[2:]:
    with open(path) as f:
        document = json.load(f)
    for error in validator.iter_errors(document):
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        print(f"{path}: {where}: {error.message}")
        violations += 1
sys.exit(1 if violations else 0)
