#!/usr/bin/env python3
"""Runs the commands a documentation page shows, against a build tree.

Every fenced block in `sh`, `bash` or `python` carries a marker, an HTML
comment on the line before its fence (invisible when the page is rendered):

  <!-- docs: run -->                the block runs; it must exit 0
  <!-- docs: run, needs MODULE -->  the same, skipped (saying so) where
                                     python3 cannot import MODULE
  <!-- docs: skip: WHY -->          not run; WHY says why (a long build,
                                     MPI, a GPU or NPU, node modules, the
                                     network, a placeholder path)
  <!-- docs: quote PATH -->         a block of any language quoted from the
                                     file PATH (relative to the source
                                     tree): its lines appear there, in order

A block without a marker fails the page, so a new command is run or says
why not. The blocks of a page run one after another in one scratch folder,
as a reader types them from the repository root after the first build:
`build` there is the build tree, every other top-level entry of the source
tree is linked in beside it, `build/bin` leads PATH, HOME is the folder (so
the default bank is its own) and no AOE_, ASCEND_ or TUNE_ variable of the
caller's reaches them. A shell block runs as `bash -euo pipefail`; a Python
block with the build's package on PYTHONPATH.

  run_commands.py --source SRC --build BUILD --work DIR [--python-env K=V;...]
                  [--python-skip WHY] PAGE.md
"""
import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import time

RUNNABLE = {"sh", "bash", "python"}
MARKER = re.compile(r"^<!--\s*docs:\s*(.*?)\s*-->\s*$")
BLOCK_TIMEOUT_S = 300  # a command here takes under a minute; sanitizers slow it
# What a tuning run writes where it runs (as .gitignore lists it): a user who
# ran the README's first command in the checkout has them there, and linked
# into every page's work directory they would be shared between pages run at
# once (a page's `aoe_workspace/conv_block_*` then matching another's runs).
RUN_OUTPUTS = ("aoe_workspace", "aoe_result_*.json", "aoe_run_*.json")


def blocks(path):
    """(line, language, marker or None, text) of every fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        fence = re.match(r"^\s*(```+)\s*([\w+-]*)", lines[i])
        if not fence:
            i += 1
            continue
        start, language = i, fence.group(2).lower()
        marker = MARKER.match(lines[i - 1].strip()) if i > 0 else None
        end = i + 1
        while end < len(lines) and not lines[end].lstrip().startswith(fence.group(1)):
            end += 1
        yield start + 1, language, marker.group(1) if marker else None, "\n".join(lines[i + 1:end])
        i = end + 1


def commands_in(text):
    """Commands in a shell block: lines that are not comments or continuations."""
    count, continued = 0, False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and not continued:
            count += 1
        continued = stripped.endswith("\\")
    return count


def quoted(text, source):
    """None when every line of text appears in source, in order; else the first that does not."""
    have = [line.strip() for line in open(source, encoding="utf-8").read().split("\n")]
    at = 0
    for line in (l.strip() for l in text.split("\n")):
        if not line:
            continue
        while at < len(have) and have[at] != line:
            at += 1
        if at == len(have):
            return line
        at += 1
    return None


def scratch(source, build, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.symlink(os.path.abspath(build), os.path.join(work, "build"))
    for entry in os.listdir(source):
        if entry.startswith((".", "build")) or entry in ("out",):
            continue
        if any(fnmatch.fnmatch(entry, pattern) for pattern in RUN_OUTPUTS):
            continue
        os.symlink(os.path.join(source, entry), os.path.join(work, entry))


def environment(build, work, python_env):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AOE_", "ASCEND_", "TUNE_"))}
    env["HOME"] = work
    env["PATH"] = os.path.join(os.path.abspath(build), "bin") + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.path.join(os.path.abspath(build), "python")
    python = dict(env)
    for pair in filter(None, python_env.split(";")):
        key, _, value = pair.partition("=")
        python[key] = value
    return env, python


def has_module(name):
    return subprocess.run([sys.executable, "-c", "import " + name], capture_output=True).returncode == 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--python-env", default="")
    parser.add_argument("--python-skip", default="")
    parser.add_argument("page")
    args = parser.parse_args()
    source = os.path.abspath(args.source)
    page = os.path.relpath(os.path.abspath(args.page), source)
    work = os.path.abspath(args.work)
    scratch(source, args.build, work)
    env, python_env = environment(args.build, work, args.python_env)

    ran = commands = skipped = quotes = 0
    failures = []
    lines = open(args.page, encoding="utf-8").read().split("\n")
    for number, line in enumerate(lines, 1):
        if MARKER.match(line.strip()) and not (number < len(lines) and lines[number].lstrip().startswith("```")):
            failures.append(f"{page}:{number}: a marker not on the line before a fence")
    for line, language, marker, text in blocks(args.page):
        where = f"{page}:{line}"
        if marker is None:
            if language in RUNNABLE:
                failures.append(f"{where}: a {language} block without a marker (<!-- docs: run --> or <!-- docs: skip: WHY -->)")
            continue
        if marker.startswith("quote "):
            missing = quoted(text, os.path.join(source, marker[len("quote "):].strip()))
            if missing is not None:
                failures.append(f"{where}: not in {marker[6:].strip()}: {missing}")
            quotes += 1
            continue
        if marker.startswith("skip:") and marker[5:].strip():
            print(f"{where}: not run: {marker[5:].strip()}")
            skipped += 1
            continue
        run = re.fullmatch(r"run(?:,\s*needs\s+(\w+))?", marker)
        if not run or language not in RUNNABLE:
            failures.append(f"{where}: the marker 'docs: {marker}' on a {language or 'plain'} block is not one this test knows")
            continue
        if language == "python" and args.python_skip:
            print(f"{where}: not run: {args.python_skip}")
            skipped += 1
            continue
        if run.group(1) and not has_module(run.group(1)):
            print(f"{where}: not run: python3 has no module {run.group(1)} here")
            skipped += 1
            continue
        script = os.path.join(work, f".block_{line}" + (".py" if language == "python" else ".sh"))
        with open(script, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        argv = [sys.executable, script] if language == "python" else ["bash", "-euo", "pipefail", script]
        started = time.monotonic()
        try:
            done = subprocess.run(argv, cwd=work, env=python_env if language == "python" else env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  timeout=BLOCK_TIMEOUT_S)
            status = done.returncode
            output = done.stdout
        except subprocess.TimeoutExpired as e:
            status, output = "timed out", (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        seconds = time.monotonic() - started
        count = commands_in(text) if language != "python" else 1
        if status != 0:
            tail = "\n".join(output.rstrip().split("\n")[-30:])
            failures.append(f"{where}: exit {status} after {seconds:.1f} s:\n{text}\n--- its last output:\n{tail}")
            continue
        print(f"{where}: ran {count} command{'s' if count != 1 else ''} in {seconds:.1f} s")
        ran += 1
        commands += count

    for failure in failures:
        print("FAIL: " + failure)
    print(f"{page}: {ran} blocks run ({commands} commands), {skipped} not run, {quotes} quotes checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
