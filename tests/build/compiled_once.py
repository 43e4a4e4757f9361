#!/usr/bin/env python3
"""Fails when a build tree compiles a source file more than once.

Each source belongs to one library target, which the plugin module, the
tests, the benchmarks and the tools that need it link; a file compiled into
two targets costs its compile twice on every build.

    compiled_once.py <compile_commands.json> [<variant source>...]

A variant source is one built on purpose into several targets, each with
definitions of its own (the loader's test plugins of other SDK versions).
A unity build's batch file (CMake's Unity/unity_N_cxx.cxx) counts as the
sources it includes.
"""
import collections
import json
import os
import re
import sys

UNITY_INCLUDE = re.compile(r'^#include "(.+)"$')


def sources_of(path):
    """The sources a compile command compiles: a unity batch's includes, else the file itself."""
    if os.path.basename(os.path.dirname(path)) != "Unity" or not os.path.basename(path).startswith("unity_"):
        return [path]
    try:
        with open(path) as f:
            return [os.path.normpath(m.group(1)) for m in map(UNITY_INCLUDE.match, f) if m]
    except OSError as e:
        sys.exit(f"{path}: cannot read the unity batch ({e}); build the tree first")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: compiled_once.py <compile_commands.json> [<variant source>...]")
    path = sys.argv[1]
    variants = {os.path.normpath(v) for v in sys.argv[2:]}
    try:
        with open(path) as f:
            commands = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: cannot read the compile commands ({e}); configure with CMAKE_EXPORT_COMPILE_COMMANDS")
    counts = collections.Counter(
        source for c in commands
        for source in sources_of(os.path.normpath(os.path.join(c.get("directory", ""), c["file"]))))
    repeats = sorted((f, n) for f, n in counts.items() if n > 1 and f not in variants)
    for f, n in repeats:
        print(f"compiled {n} times: {f}")
    if repeats:
        print(f"FAIL: {len(repeats)} of {len(counts)} sources are compiled more than once; "
              "put each in one library and link it where it is needed")
        return 1
    print(f"PASS: each of {len(counts)} sources is compiled once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
