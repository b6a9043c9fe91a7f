#!/usr/bin/env python3
"""Fails when the source files of a crate import each other in a circle (ARCHITECTURE.md, "Invariants").

For every `crates/*/src` it reads each file's `use crate::...` items and inline `crate::...` paths, follows each
path to the file that defines the named item (through `pub use` re-exports), and looks for a cycle in the graph
of file -> file imports. `mod` declarations are not imports, and test modules included with `#[path]` are
skipped. Reading is textual, so an unusual import form may be missed: the check can pass wrongly, never fail
wrongly on code without a circle.

    python3 scripts/import-cycles.py            # every crate; exit 1 and the circle on a failure
    python3 scripts/import-cycles.py -v DIR     # one src folder, with its file -> file imports
"""
import os
import re
import sys

DEFINITION = re.compile(r"^\s*pub(?:\([\w:]+\))?\s+(?:unsafe\s+)?(?:struct|enum|trait|fn|const|static|type|mod)\s+(\w+)", re.M)
USE = re.compile(r"\buse\s+crate::([^;]+);")
INLINE = re.compile(r"(?<![\w:])crate::((?:\w+::)*\w+)")


def module_path(rel):
    parts = rel[:-3].split("/")
    return tuple(parts[:-1] if parts[-1] in ("mod", "lib", "main") else parts)


def flatten(prefix, body):
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e]."""
    brace = body.find("{")
    if brace < 0:
        return [prefix + [p for p in body.split("::") if p and p != "self"]] if body else []
    head = [p for p in body[:brace].split("::") if p]
    inner, depth, item, items = body[brace + 1 : body.rindex("}")], 0, "", []
    for ch in inner:
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            items.append(item)
            item = ""
        else:
            item += ch
    items.append(item)
    return [path for it in items if it for path in flatten(prefix + head, it)]


def graph(src):
    files = {}
    for folder, _, names in os.walk(src):
        for name in names:
            if name.endswith(".rs"):
                rel = os.path.relpath(os.path.join(folder, name), src)
                files[rel] = re.sub(r"//.*", "", open(os.path.join(folder, name), encoding="utf-8").read())
    included = {m for text in files.values() for m in re.findall(r'#\[path\s*=\s*"([^"]+)"\]', text)}
    files = {rel: text for rel, text in files.items() if os.path.basename(rel) not in included}
    by_module = {module_path(rel): rel for rel in files}
    defined = {rel: set(DEFINITION.findall(text)) for rel, text in files.items()}

    def resolve(path, seen=()):
        for k in range(len(path), 0, -1):
            owner = by_module.get(tuple(path[:k]))
            if owner is None:
                continue
            if k == len(path) or path[k] in defined[owner]:
                return owner
            item = path[k]
            again = re.search(r"pub use (?:crate::)?([\w:]+?)::\{?[^;]*\b" + item + r"\b", files[owner])
            if again and (owner, item) not in seen:
                target = again.group(1).split("::")
                base = target if again.group(0).startswith("pub use crate::") else list(path[:k]) + target
                return resolve(base + [item], seen + ((owner, item),)) or owner
            return by_module.get(tuple(path[: k + 1]), owner)
        return None

    edges = {rel: set() for rel in files}
    for rel, text in files.items():
        paths = [p for m in USE.finditer(text) for p in flatten([], re.sub(r"\s", "", m.group(1)))]
        paths += [m.group(1).split("::") for m in INLINE.finditer(re.sub(r"\buse\s+crate::[^;]+;", "", text))]
        for path in paths:
            target = resolve(path)
            if target and target != rel:
                edges[rel].add(target)
    return edges


def first_cycle(edges):
    state, stack = {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def main(argv):
    verbose = "-v" in argv
    folders = [a for a in argv if a != "-v"]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    if not folders:
        crates = os.path.join(root, "crates")
        folders = sorted(os.path.join(crates, c, "src") for c in os.listdir(crates) if os.path.isdir(os.path.join(crates, c, "src")))
    failed = False
    for src in folders:
        edges = graph(src)
        if verbose:
            for rel in sorted(edges):
                print(f"{rel} -> {', '.join(sorted(edges[rel])) or '-'}")
        cycle = first_cycle(edges)
        name = os.path.relpath(src, root)
        if cycle:
            failed = True
            print(f"{name}: import circle: {' -> '.join(cycle)}")
        else:
            print(f"{name}: {len(edges)} files, no import circle")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
