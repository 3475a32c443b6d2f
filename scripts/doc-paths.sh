#!/usr/bin/env bash
# Every repository path the documentation names exists.
#
# Reads README.md, ARCHITECTURE.md and docs/**/*.md; prints each missing
# path as FILE:LINE: PATH and exits 1, else prints one summary line and
# exits 0. Standard library python3 only.
#
# What counts as a path (outside fenced code blocks unless said):
#   - a markdown link target `[text](target)`: resolved against the
#     linking file's directory, `#anchor` dropped; URLs (`scheme:`) and
#     bare `#anchors` skipped;
#   - each whitespace-separated word of an inline code span, and of the
#     commands in fenced `sh`/`bash` blocks (`#` comments dropped), that
#     consists only of letters, digits and `_ . / + -` (after trailing
#     `.,;:` are dropped) and either contains a `/` or, in a code span,
#     is a bare file name ending in .rs .py .sh .md .mlir .td .cpp .c .h
#     .toml (in fenced blocks bare names are the files commands write, and
#     are left alone).
#   So pass names, pipelines (`builtin.module(...)`), specs (`b|784`),
#   flags (`--bin-dir`), options (`x=y`), globs (`*`, `{a,b}`), `...` and
#   `$VARS` are never paths.
# How a path is resolved (code spans and commands):
#   - absolute paths, `~/`, and paths starting with `../` name things
#     outside the repository (`../shared/DESIGN.md`): skipped;
#   - paths git ignores are build outputs and local environments
#     (`target/release`, `build/`, `.onnx-venv/bin/python`): skipped;
#   - a path whose first component is a top-level entry of the repository
#     (`passes/src/pass.rs`, `.ci/run`, `docs/`) must exist from the root;
#   - any other path with a `/` is a partial path (`solver/marked.rs`,
#     `src/ffi/`): some tracked path must end with it;
#   - a bare file name: some tracked file must have that name;
#   - a missing path with a component written in capitals only (`PREFIX/lib`,
#     `OUT.mlir`, `FILE`) is a placeholder: skipped.
# "Exists" means tracked by git, or new and not ignored (a file about to
# be committed counts); a trailing `/` asks for a directory.
#   scripts/doc-paths.sh          # run by scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import os
import re
import subprocess
import sys

EXTS = (".rs", ".py", ".sh", ".md", ".mlir", ".td", ".cpp", ".c", ".h", ".toml")
WORD = re.compile(r"^[A-Za-z0-9_./+-]+$")
CAPS = re.compile(r"^[A-Z][A-Z0-9_]*$")


def git(*args):
    out = subprocess.run(["git", *args], check=True, stdout=subprocess.PIPE).stdout
    return [p for p in out.decode().split("\0") if p]


files = set(git("ls-files", "-z")) | set(git("ls-files", "-z", "--others", "--exclude-standard"))
files = {f for f in files if os.path.lexists(f)}
dirs = set()
for f in files:
    parts = f.split("/")
    for i in range(1, len(parts)):
        dirs.add("/".join(parts[:i]))
top = {p.split("/")[0] for p in files}
basenames = {f.rsplit("/", 1)[-1] for f in files}

docs = ["README.md", "ARCHITECTURE.md"] + sorted(
    f for f in files if f.startswith("docs/") and f.endswith(".md"))

ignored_cache = {}


def ignored(path):
    if path not in ignored_cache:
        r = subprocess.run(["git", "check-ignore", "-q", "--", path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ignored_cache[path] = r.returncode == 0
    return ignored_cache[path]


def exists(path, want_dir):
    path = path.rstrip("/")
    if path in ("", "."):
        return True
    return path in dirs or (not want_dir and path in files)


def placeholder(path):
    comps = [c for c in path.split("/") if c]
    return any(CAPS.match(c.split(".")[0] or "-") for c in comps)


def check_word(word, bare_ok):
    """None when fine or not a path; else the reason."""
    word = word.rstrip(".,;:")
    if not word or not WORD.match(word) or word.startswith("-"):
        return None
    if "/" not in word:
        if not bare_ok or not word.endswith(EXTS) or word.startswith("."):
            return None
        if word in basenames or CAPS.match(word.split(".")[0]):
            return None
        return "no tracked file has this name"
    if word.startswith(("/", "~", "../")) or "//" in word:
        return None
    want_dir = word.endswith("/")
    path = word[2:] if word.startswith("./") else word
    # `git check-ignore` matches a directory-only pattern (`/.device/`) to
    # a path that does not exist only when the path ends with `/`.
    if ignored(path.rstrip("/")) or (want_dir and ignored(path)):
        return None
    first = path.split("/")[0]
    if first in top:
        ok = exists(path, want_dir)
    else:
        p = path.rstrip("/")
        ok = any(d.endswith("/" + p) for d in dirs) or (
            not want_dir and any(f.endswith("/" + p) for f in files))
    if ok or placeholder(path):
        return None
    return "does not exist" if first in top else "no tracked path ends with it"


def check_link(doc, target):
    target = target.split("#", 1)[0].strip()
    if not target or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", target):
        return None
    path = os.path.normpath(os.path.join(os.path.dirname(doc), target))
    if path.startswith(".."):
        return None
    return None if exists(path, target.endswith("/")) else "link target does not exist"


missing = []
count = 0
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
SPAN = re.compile(r"(`+)(.+?)\1", re.S)


def check_text(doc, start, text):
    """Links and code spans of a run of prose lines (spans may wrap)."""
    global count
    starts = [0]
    for line in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def line_of(pos):
        lo = 0
        while lo + 1 < len(starts) and starts[lo + 1] <= pos:
            lo += 1
        return start + lo

    for m in LINK.finditer(text):
        count += 1
        why = check_link(doc, m.group(1))
        if why:
            missing.append(f"{doc}:{line_of(m.start())}: {m.group(1)} ({why})")
    for m in SPAN.finditer(text):
        for word in m.group(2).split():
            count += 1
            why = check_word(word, bare_ok=True)
            if why:
                missing.append(f"{doc}:{line_of(m.start())}: {word.rstrip('.,;:')} ({why})")


for doc in docs:
    fence = None
    prose, prose_start = [], 1
    with open(doc, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    for n, line in enumerate(lines, 1):
        stripped = line.strip()
        m = re.match(r"^(```+|~~~+)\s*([\w+-]*)", stripped)
        if m and (fence is None or stripped.startswith(fence[0])):
            check_text(doc, prose_start, "\n".join(prose))
            prose, prose_start = [], n + 1
            fence = (m.group(1), m.group(2).lower()) if fence is None else None
            continue
        if fence is not None:
            if fence[1] in ("sh", "bash", "shell", "console"):
                command = re.sub(r"(^|\s)#.*", "", line)
                for word in command.split():
                    count += 1
                    why = check_word(word, bare_ok=False)
                    if why:
                        missing.append(f"{doc}:{n}: {word.rstrip('.,;:')} ({why})")
            prose_start = n + 1
            continue
        if not stripped:
            check_text(doc, prose_start, "\n".join(prose))
            prose, prose_start = [], n + 1
            continue
        prose.append(line)
    check_text(doc, prose_start, "\n".join(prose))

for m in missing:
    print(m)
if missing:
    print(f"doc-paths: {len(missing)} missing path(s) in {len(docs)} documents")
    sys.exit(1)
print(f"doc-paths: every path named in {len(docs)} documents exists ({count} words and links read)")
PY
