#!/usr/bin/env python3
"""Checks the relative links of Markdown pages: each names a file or folder
of the source tree, and an anchor (`page.md#a-heading`, `#a-heading`) names
a heading of that page, as GitHub spells its anchors. Links with a scheme
(https:, mailto:) are not followed. With --index README.md, every page
under docs/ must also be linked from that page.

  check_links.py --source SRC [--index PAGE] PATH...   (pages, or folders of them)
"""
import argparse
import os
import re
import sys

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
SKIPPED_DIRS = {".git", "out", "node_modules"}


def pages(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("build"))
                yield from (os.path.join(root, f) for f in sorted(files) if f.endswith(".md"))
        else:
            yield path


def prose(text):
    """The text with fenced code and inline code spans blanked, lines kept in place."""
    kept, fence = [], None
    for line in text.split("\n"):
        opening = re.match(r"^\s*(```+|~~~+)", line)
        if fence:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            kept.append("")
            continue
        if opening:
            fence = opening.group(1)
            kept.append("")
            continue
        kept.append(line)
    # A code span may wrap a line but not cross a paragraph.
    return re.sub(r"(`+)(?:(?!\1)[^\n]|\n(?!\s*\n))+?\1", "", "\n".join(kept))


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen = set(), {}
        fence = None
        for line in open(path, encoding="utf-8").read().split("\n"):
            opening = re.match(r"^\s*(```+|~~~+)", line)
            if fence or opening:
                if fence and opening and opening.group(1)[0] == fence[0]:
                    fence = None
                elif not fence:
                    fence = opening.group(1)
                continue
            heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if heading:
                base = slug(heading.group(1))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def check(page, source):
    """Problems with page's links, and the pages it links to."""
    problems, targets, links = [], set(), 0
    here = os.path.dirname(page)
    name = os.path.relpath(page, source)
    text = prose(open(page, encoding="utf-8").read())
    for link in LINK.finditer(text):
        target, number = link.group(1), text.count("\n", 0, link.start(1)) + 1
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            continue
        links += 1
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(here, path)) if path else page
        where = f"{name}:{number}: {target}"
        if os.path.relpath(resolved, source).startswith(".."):
            problems.append(f"{where}: outside the source tree")
            continue
        if not os.path.exists(resolved):
            problems.append(f"{where}: no such file or folder")
            continue
        targets.add(resolved)
        if anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
            problems.append(f"{where}: no heading '{anchor}' in {os.path.relpath(resolved, source)}")
    return problems, targets, links


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--index")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    source = os.path.abspath(args.source)
    checked, problems, linked_from, links = 0, [], {}, 0
    for page in pages(os.path.abspath(os.path.join(source, p)) for p in args.paths):
        found, targets, count = check(page, source)
        problems += found
        links += count
        linked_from[page] = targets
        checked += 1
    if args.index:
        index = os.path.abspath(os.path.join(source, args.index))
        docs = os.path.join(source, "docs")
        for page in pages([docs]):
            if page not in linked_from.get(index, set()):
                problems.append(f"{os.path.relpath(page, source)}: not linked from {args.index}")
    for problem in problems:
        print("FAIL: " + problem)
    print(f"{checked} pages, {links} relative links, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
