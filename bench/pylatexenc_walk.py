"""Baseline: a bare pylatexenc walk of a LaTeX project (run as a whole process by bench/run.py).

Parses the root file with ``LatexWalker(text).get_latex_nodes()``, follows every
``\\input``/``\\include`` it finds in the node tree (relative to the root's folder, ``.tex``
added when missing), and parses each included file the same way, recursively. No label or
reference extraction: this is the floor cost of a pylatexenc-based indexer.

    python bench/pylatexenc_walk.py ROOT.tex   # prints "files=N lines=N nodes=N" to stderr
"""

from __future__ import annotations

import sys
from pathlib import Path

from pylatexenc.latexwalker import (
    LatexCharsNode,
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexMathNode,
    LatexWalker,
)


def _children(node):
    if isinstance(node, (LatexGroupNode, LatexMathNode)):
        yield from node.nodelist or ()
    if isinstance(node, LatexEnvironmentNode):
        yield from node.nodelist or ()
    if isinstance(node, (LatexMacroNode, LatexEnvironmentNode)) and node.nodeargd is not None:
        for arg in node.nodeargd.argnlist or ():
            if arg is not None:
                yield arg


def _arg_text(arg) -> str:
    if isinstance(arg, LatexGroupNode):
        return "".join(n.chars for n in arg.nodelist if isinstance(n, LatexCharsNode)).strip()
    if isinstance(arg, LatexCharsNode):
        return arg.chars.strip()
    return ""


def walk(root: Path) -> tuple[int, int, int]:
    base = root.parent
    seen: set[Path] = set()
    todo = [root.resolve()]
    n_files = n_lines = n_nodes = 0
    while todo:
        path = todo.pop(0)
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        text = path.read_text(encoding="utf-8", errors="replace")
        n_files += 1
        n_lines += text.count("\n")
        nodes, _, _ = LatexWalker(text).get_latex_nodes()
        stack = list(nodes)
        includes = []
        while stack:
            node = stack.pop()
            n_nodes += 1
            if isinstance(node, LatexMacroNode) and node.macroname in ("input", "include"):
                args = node.nodeargd.argnlist if node.nodeargd else []
                name = _arg_text(args[-1]) if args else ""
                if name:
                    includes.append(name)
            stack.extend(_children(node))
        for name in reversed(includes):
            target = (base / name).resolve()
            if target.suffix != ".tex" and not target.is_file():
                target = target.with_name(target.name + ".tex")
            todo.append(target)
    return n_files, n_lines, n_nodes


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    n_files, n_lines, n_nodes = walk(Path(argv[0]))
    print(f"files={n_files} lines={n_lines} nodes={n_nodes}", file=sys.stderr)
    return 0 if n_files else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
