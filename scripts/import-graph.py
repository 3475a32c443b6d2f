#!/usr/bin/env python3
"""The import graph of every crate's modules has no circle.

For each crate of the workspace (a directory with `Cargo.toml` and
`src/`), every `.rs` file under `src/` is a module (`a/b.rs` and
`a/b/mod.rs` are `a::b`; `lib.rs`/`main.rs` the crate root). A module
*uses* another when its code names a path into it: `use crate::x::y`,
`use super::{x, y::z}`, `crate::x::f(...)`, `super::x::T` (comments and
string literals skipped; `use` trees with braces expanded; a path goes to
the deepest module it names, so `crate::x::T` for a type `T` of `x` is an
edge to `x`). Edges between a module and its own ancestors or descendants
are not counted: a parent that declares the data its children share, and
re-exports what they define, is the usual shape of a Rust module tree.
Every other edge counts, and the graph they form must be acyclic: a
circle (for instance `body` uses `fusion`, which uses `nests`, which uses
`body`) is reported with the files and the line of each edge, and the
script exits 1.

    python3 scripts/import-graph.py            # every crate
    python3 scripts/import-graph.py passes     # one crate
    python3 scripts/import-graph.py --dot passes > passes.dot

A second rule, for the `passes` crate: no pass uses another pass's
modules (ARCHITECTURE.md, "no pass imports another pass"). The passes are
the modules named in `passes/src/registry.rs`'s table (`crate::x::PASS`);
what two passes share lives in a module of its own (`projection_attrs`,
`schedule`, ...). An edge from one pass's module tree into another's is
reported, and the script exits 1.

Test modules (`tests.rs`, `tests/` under `src/`, and files whose module is
only compiled under `#[cfg(test)]` in a `tests` module) are left out: a
test reaches into what it tests.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip(text):
    """`text` with comments, string and char literals blanked (newlines
    kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 260] or ""):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            # A char literal ('a', '\n', '\u{..}'), not a lifetime ('a).
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:i + 12])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def modules(src):
    """Module path (tuple) -> file, for the non-test files under `src`."""
    mods = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, src)[:-3].split(os.sep)
            if rel[-1] == "mod":
                rel = rel[:-1]
            if rel in (["lib"], ["main"]):
                rel = []
            if "tests" in rel or (rel and rel[-1].endswith("_tests")):
                continue
            if rel and rel[0] == "bin":
                continue
            mods[tuple(rel)] = path
    return mods


def use_paths(tree, prefix=()):
    """The paths a `use` tree names (`a::{b, c::d}` -> a::b, a::c::d)."""
    tree = tree.strip()
    if not tree:
        return []
    # Split the top level on commas (outside braces).
    parts, depth, cur = [], 0, ""
    for ch in tree:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    paths = []
    for part in parts:
        part = part.strip()
        if not part:
            continue
        brace = part.find("{")
        if brace >= 0:
            head = [p for p in part[:brace].split("::") if p.strip()]
            inner = part[brace + 1:part.rfind("}")]
            paths += use_paths(inner, prefix + tuple(h.strip() for h in head))
        else:
            name = part.split(" as ")[0].strip()
            segs = tuple(s.strip() for s in name.split("::") if s.strip())
            paths.append(prefix + segs)
    return paths


def resolve(module, path, mods):
    """The module `path` (written in `module`) names, or None when it
    leaves the crate."""
    if not path:
        return None
    if path[0] == "crate":
        base, rest = (), path[1:]
    elif path[0] in ("super", "self"):
        base, rest = module, path
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                if not base:
                    return None
                base = base[:-1]
            rest = rest[1:]
    else:
        return None
    full = base + tuple(rest)
    for k in range(len(full), -1, -1):
        if full[:k] in mods:
            return full[:k]
    return None


def edges_of(module, path, mods):
    """(target module, line) for each path into the crate in the file."""
    text = strip(open(path, encoding="utf-8").read())
    found = []
    # `use` items (a tree may span lines).
    for m in re.finditer(r"\buse\s+([^;]*);", text):
        line = text.count("\n", 0, m.start()) + 1
        tree = re.sub(r"\s+", " ", m.group(1))
        if tree.startswith("::"):
            continue
        for p in use_paths(tree):
            found.append((p, line))
    # Inline paths: crate::a::b, super::a, self::a (outside `use` items).
    uses = [(m.start(), m.end()) for m in re.finditer(r"\buse\s+[^;]*;", text)]
    for m in re.finditer(r"\b(crate|super|self)((?:\s*::\s*(?:" + IDENT + r"))+)", text):
        if any(a <= m.start() < b for a, b in uses):
            continue
        segs = (m.group(1),) + tuple(s.strip() for s in m.group(2).split("::") if s.strip())
        found.append((segs, text.count("\n", 0, m.start()) + 1))
    out = []
    for p, line in found:
        t = resolve(module, p, mods)
        if t is not None and t != module:
            out.append((t, line))
    return out


def related(a, b):
    """One module is the other's ancestor (or the same)."""
    return a[:len(b)] == b or b[:len(a)] == a


def name(m):
    return "::".join(m) if m else "crate"


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def crate_graph(crate_dir):
    src = os.path.join(crate_dir, "src")
    mods = modules(src)
    graph = {}
    for m, path in mods.items():
        for t, line in edges_of(m, path, mods):
            if related(m, t):
                continue
            graph.setdefault(m, {}).setdefault(t, (os.path.relpath(path, ROOT), line))
        graph.setdefault(m, {})
    return mods, graph


def pass_roots(crate_dir):
    """The top-level modules of the crate's registered passes."""
    reg = os.path.join(crate_dir, "src", "registry.rs")
    if not os.path.isfile(reg):
        return []
    with open(reg, encoding="utf-8") as f:
        return [(m,) for m in re.findall(r"crate::(" + IDENT + r")::PASS\b", f.read())]


def cross_pass_edges(crate_dir, graph):
    """Edges from one pass's module tree into another's."""
    roots = pass_roots(crate_dir)
    owner = lambda m: next((r for r in roots if tuple(m[:len(r)]) == r), None)
    out = []
    for a, ts in graph.items():
        for b, (f, line) in ts.items():
            oa, ob = owner(a), owner(b)
            if oa and ob and oa != ob:
                out.append((f, line, a, b))
    return sorted(out)


def main(argv):
    dot = "--dot" in argv
    names = [a for a in argv if not a.startswith("--")]
    crates = sorted(
        d for d in os.listdir(ROOT)
        if os.path.isfile(os.path.join(ROOT, d, "Cargo.toml"))
        and os.path.isdir(os.path.join(ROOT, d, "src")))
    if names:
        unknown = [n for n in names if n not in crates]
        if unknown:
            print(f"import-graph: no crate named {', '.join(unknown)} (crates: {', '.join(crates)})",
                  file=sys.stderr)
            return 1
        crates = names
    bad = 0
    total_mods = total_edges = 0
    for c in crates:
        mods, graph = crate_graph(os.path.join(ROOT, c))
        if dot:
            print(f'digraph "{c}" {{')
            for a, ts in sorted(graph.items()):
                for b in sorted(ts):
                    print(f'  "{name(a)}" -> "{name(b)}";')
            print("}")
            continue
        total_mods += len(mods)
        total_edges += sum(len(t) for t in graph.values())
        for f, line, a, b in cross_pass_edges(os.path.join(ROOT, c), graph):
            bad += 1
            print(f"import-graph: {c}: {f}:{line}: the pass module {name(a)} uses {name(b)}, "
                  "another pass's: move what both need into a module of its own")
        for comp in cycles(graph):
            bad += 1
            members = set(comp)
            print(f"import-graph: {c}: a circle between {', '.join(name(m) for m in comp)}:")
            for a in comp:
                for b, (f, line) in sorted(graph[a].items()):
                    if b in members:
                        print(f"  {f}:{line}: {name(a)} uses {name(b)}")
    if dot:
        return 0
    if bad:
        print(f"import-graph: {bad} circle(s) or cross-pass use(s); move what both sides need "
              "into a module they both use (data in leaf modules, emitters depending on data only)")
        return 1
    print(f"import-graph: no circle in {len(crates)} crates ({total_mods} modules, "
          f"{total_edges} edges between unrelated modules); no pass uses another's modules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
