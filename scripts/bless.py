#!/usr/bin/env python3
"""Re-bless generated FileCheck expectations in lit tests.

A lit test marks generated blocks with a directive line

    // BLESS PREFIX... [/REGEX/]

before a function (REGEX defaults to the file's `// BLESS-DEFAULT /REGEX/`).
The blocks are the `// PREFIX:` and `// PREFIX-LABEL:` lines of those
prefixes that follow the directive (comments without the prefixes may sit
between them and the function). Blessing runs, per prefix, the RUN line whose
FileCheck uses PREFIX (`CHECK` when it names none; `%s` is the test file,
tools come from `--bin-dir`), takes the output of the function that
follows the directive (from its `func.func @NAME(` to the next
`func.func`), and rewrites the block: a `PREFIX-LABEL: func.func @NAME(`
line, then one `PREFIX:` line per match of REGEX in that function's
output, in order (a match with groups is written as its groups joined by
`{{.*}}`; SSA names become `%{{.*}}`).

    python3 scripts/bless.py lit-tests/Schedule/plan.mlir   # rewrite in place
    python3 scripts/bless.py --check lit-tests              # exit 1 if stale

It is this project's own: upstream's `mlir/utils/generate-test-checks.py`
is not shipped by Debian's LLVM packages and writes a whole new test
rather than refreshing the chosen lines of an existing one.
"""

import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRECTIVE = re.compile(r"^// BLESS ((?:[A-Z0-9_-]+ ?)+)(?: /(.*)/)?\s*$")
DEFAULT = re.compile(r"^// BLESS-DEFAULT /(.*)/\s*$")
FUNC = re.compile(r"func\.func (?:private |public )?@([A-Za-z0-9_$.-]+)\(")


def run_lines(lines):
    """The RUN commands of a test (continued lines joined)."""
    cmds, cur = [], ""
    for line in lines:
        m = re.match(r"^// RUN: (.*)$", line)
        if not m:
            continue
        cur += m.group(1).rstrip()
        if cur.endswith("\\"):
            cur = cur[:-1]
            continue
        cmds.append(cur)
        cur = ""
    return cmds


def command_for(cmds, prefix):
    """The part before `| FileCheck` of the RUN line checking `prefix`."""
    for c in cmds:
        if "| FileCheck" not in c:
            continue
        tool, check = c.split("| FileCheck", 1)
        m = re.search(r"--check-prefix(?:es)?=(\S+)", check)
        prefixes = m.group(1).split(",") if m else ["CHECK"]
        if prefix in prefixes:
            return tool.strip()
    return None


def run(cmd, path, bin_dir):
    words = shlex.split(cmd.replace("%s", shlex.quote(path)))
    if words and not os.path.isabs(words[0]):
        words[0] = os.path.join(bin_dir, words[0])
    out = subprocess.run(words, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"bless: {path}: `{cmd}` failed:\n{out.stderr}")
    return out.stdout


def functions(text):
    """Function name -> its output text."""
    starts = [(m.start(), m.group(1)) for m in FUNC.finditer(text)]
    out = {}
    for i, (s, name) in enumerate(starts):
        e = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        out.setdefault(name, text[s:e])
    return out


def check_text(m):
    parts = [g for g in m.groups() if g is not None] or [m.group(0)]
    text = "{{.*}}".join(p.strip() for p in parts)
    return re.sub(r"%[A-Za-z0-9_#]+", "%{{.*}}", text)


def bless(path, bin_dir):
    """The test's text with its generated blocks rewritten."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    cmds = run_lines(lines)
    default = next((DEFAULT.match(l).group(1) for l in lines if DEFAULT.match(l)), None)
    outputs = {}
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        m = DIRECTIVE.match(line)
        if not m:
            continue
        prefixes = m.group(1).split()
        pattern = m.group(2) or default
        if pattern is None:
            raise SystemExit(f"bless: {path}: `{line}` has no /REGEX/ and the file no BLESS-DEFAULT")
        regex = re.compile(pattern)
        # Drop the old blocks.
        ours = re.compile(rf"^// ({'|'.join(map(re.escape, prefixes))})(-LABEL)?: ")
        while i < len(lines) and ours.match(lines[i]):
            i += 1
        name = next((FUNC.search(l).group(1) for l in lines[i:] if FUNC.search(l)), None)
        if name is None:
            raise SystemExit(f"bless: {path}: no function after `{line}`")
        for prefix in prefixes:
            if prefix not in outputs:
                cmd = command_for(cmds, prefix)
                if cmd is None:
                    raise SystemExit(f"bless: {path}: no RUN line checks the prefix {prefix}")
                outputs[prefix] = functions(run(cmd, path, bin_dir))
            body = outputs[prefix].get(name)
            if body is None:
                raise SystemExit(f"bless: {path}: the {prefix} output has no function @{name}")
            out.append(f"// {prefix}-LABEL: func.func @{name}(")
            out.extend(f"// {prefix}: {check_text(mm)}" for mm in regex.finditer(body))
    return "\n".join(out)


def main(argv):
    check = "--check" in argv
    bin_dir = os.path.join(ROOT, "target", "debug")
    args = [a for a in argv if a != "--check"]
    if "--bin-dir" in args:
        k = args.index("--bin-dir")
        bin_dir = os.path.abspath(args[k + 1])
        del args[k:k + 2]
    files = []
    for a in args or [os.path.join(ROOT, "lit-tests")]:
        if os.path.isdir(a):
            for d, _, names in os.walk(a):
                files += [os.path.join(d, n) for n in names if n.endswith(".mlir")]
        else:
            files.append(a)
    stale = 0
    blessed = 0
    for path in sorted(files):
        with open(path, encoding="utf-8") as f:
            old = f.read()
        if not any(DIRECTIVE.match(l) for l in old.split("\n")):
            continue
        blessed += 1
        new = bless(path, bin_dir)
        if new == old:
            continue
        if check:
            stale += 1
            print(f"bless: {os.path.relpath(path, ROOT)} is stale (run scripts/bless.py on it)")
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print(f"bless: rewrote {os.path.relpath(path, ROOT)}")
    if check and stale:
        return 1
    print(f"bless: {blessed} file(s) with generated checks, {stale} stale")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
