#!/usr/bin/env python3
"""The largest source files and functions of the workspace, against limits.

Every non-test `.rs` file under a crate's `src/` (test modules: `tests.rs`,
`*_tests.rs`, files under a `tests/` folder) and `passes/cpp/*.cpp`: its
lines; every Rust `fn` with a body: the lines from its `fn` to its closing
brace (comments and strings skipped when matching braces; nested `fn`s
count in their own right and in the function around them).

    python3 scripts/sizes.py                   # the 10 largest of each
    python3 scripts/sizes.py --top 30
    python3 scripts/sizes.py --check           # exit 1 past the limits
    python3 scripts/sizes.py --file-limit 600 --fn-limit 100 --check

Limits (the project's: files small enough to hold in one's head, a
function a screen or two): 600 lines per file, 100 per function.
"""

import argparse
import importlib.util
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location(
    "import_graph", os.path.join(ROOT, "scripts", "import-graph.py"))
_graph = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_graph)


def source_files():
    for crate in sorted(os.listdir(ROOT)):
        src = os.path.join(ROOT, crate, "src")
        if not (os.path.isfile(os.path.join(ROOT, crate, "Cargo.toml")) and os.path.isdir(src)):
            continue
        for dirpath, _, files in os.walk(src):
            rel_dir = os.path.relpath(dirpath, src).split(os.sep)
            if "tests" in rel_dir:
                continue
            for f in sorted(files):
                if f.endswith(".rs") and f != "tests.rs" and not f.endswith("_tests.rs"):
                    yield os.path.join(dirpath, f)
    cpp = os.path.join(ROOT, "passes", "cpp")
    if os.path.isdir(cpp):
        for f in sorted(os.listdir(cpp)):
            if f.endswith((".cpp", ".h")):
                yield os.path.join(cpp, f)


def functions(path):
    """(name, first line, lines) of each Rust fn with a body, outside
    `#[cfg(test)]` modules."""
    text = _graph.strip(open(path, encoding="utf-8").read())
    # Blank out `#[cfg(test)] mod name { ... }` bodies.
    for m in list(re.finditer(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", text)):
        start = m.end() - 1
        depth, j = 0, start
        while j < len(text):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        text = text[:start] + re.sub(r"[^\n]", " ", text[start:j + 1]) + text[j + 1:]
    out = []
    for m in re.finditer(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)", text):
        # The body: the first `{` after the signature at bracket depth 0,
        # unless a `;` (a declaration) comes first.
        j, depth = m.end(), 0
        while j < len(text):
            c = text[j]
            if c in "([<":
                depth += 1
            elif c in ")]>":
                # `->` is not a closing bracket.
                if not (c == ">" and text[j - 1] == "-"):
                    depth -= 1
            elif c == ";" and depth <= 0:
                j = -1
                break
            elif c == "{" and depth <= 0:
                break
            j += 1
        if j < 0 or j >= len(text):
            continue
        depth, k = 0, j
        while k < len(text):
            if text[k] == "{":
                depth += 1
            elif text[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        first = text.count("\n", 0, m.start()) + 1
        last = text.count("\n", 0, k) + 1
        out.append((m.group(1), first, last - first + 1))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--file-limit", type=int, default=600)
    ap.add_argument("--fn-limit", type=int, default=100)
    ap.add_argument("--check", action="store_true", help="exit 1 when a file or function is past its limit")
    args = ap.parse_args()
    files, fns = [], []
    for path in source_files():
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as fh:
            files.append((sum(1 for _ in fh), rel))
        if path.endswith(".rs"):
            fns += [(n, f"{rel}:{line}", name) for name, line, n in functions(path)]
    files.sort(reverse=True)
    fns.sort(reverse=True)
    print(f"largest files (limit {args.file_limit} lines):")
    for n, rel in files[:args.top]:
        print(f"  {n:6} {rel}")
    print(f"largest functions (limit {args.fn_limit} lines):")
    for n, where, name in fns[:args.top]:
        print(f"  {n:6} {name} ({where})")
    over_files = [f for f in files if f[0] > args.file_limit]
    over_fns = [f for f in fns if f[0] > args.fn_limit]
    print(f"sizes: {len(files)} files, {len(fns)} functions; past the limits: "
          f"{len(over_files)} files, {len(over_fns)} functions")
    if args.check and (over_files or over_fns):
        for n, rel in over_files:
            print(f"  file {rel}: {n} lines")
        for n, where, name in over_fns:
            print(f"  fn {name} ({where}): {n} lines")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
