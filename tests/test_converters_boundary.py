"""The server's features build protocol objects only through the converters
(server/colosseum_lsp/convert.py): a feature computes engine values and calls a converter, so the
shape of every message the server sends is decided in one place. Read with ast, not imported."""

from __future__ import annotations

import ast
from pathlib import Path

FEATURES = Path(__file__).resolve().parents[1] / "server" / "colosseum_lsp" / "features"



def protocol_constructions(source: str) -> list[str]:
    """Each call of an lsprotocol class or function in ``source``, as ``line: name``: through a
    module alias (``types.CodeAction(...)``, ``lsprotocol.types.Range(...)``) or a name imported
    from it (``from lsprotocol.types import Range``; ``Range(...)``)."""
    tree = ast.parse(source)
    modules: set[str] = set()  # names bound to lsprotocol or one of its modules
    names: set[str] = set()  # names bound to something inside lsprotocol
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "lsprotocol":
                    modules.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "lsprotocol":
            for alias in node.names:
                bound = alias.asname or alias.name
                (modules if node.module == "lsprotocol" else names).add(bound)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func, chain = node.func, []
        while isinstance(func, ast.Attribute):
            chain.append(func.attr)
            func = func.value
        if isinstance(func, ast.Name) and (func.id in names or (chain and func.id in modules)):
            found.append(f"{node.lineno}: {'.'.join([func.id, *reversed(chain)])}")
    return found


def test_the_detector_sees_every_spelling():
    source = ("from lsprotocol import types\nimport lsprotocol.types\nfrom lsprotocol.types import Range as R\n"
              "import types as pytypes\n"
              "types.CodeAction(title='x')\nlsprotocol.types.Position(line=0, character=0)\nR()\n"
              "types.CodeActionKind('quickfix')\npytypes.SimpleNamespace()\nconvert.code_action('x', 'empty')\n"
              "k = types.CodeActionKind.QuickFix\n")
    assert protocol_constructions(source) == ["5: types.CodeAction", "6: lsprotocol.types.Position", "7: R",
                                              "8: types.CodeActionKind"]


def test_features_build_no_protocol_object_themselves():
    modules = sorted(FEATURES.glob("*.py"))
    assert {"code_actions.py", "review.py", "lean.py", "solve.py", "catalog_view.py", "research.py"} <= \
        {p.name for p in modules}
    built = {p.name: found for p in modules
             if (found := protocol_constructions(p.read_text(encoding="utf-8")))}
    assert built == {}, "build these through colosseum_lsp/convert.py"
