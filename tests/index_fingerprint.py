"""Everything an index says about a project, as plain comparable data with relative paths.

Used to check that an index kept up to date edit by edit says exactly what a cold index of the
same texts says: claims, sections, labels, references, the graph, statuses and diagnostics.
"""

from __future__ import annotations

from pathlib import Path


def _rel(index, path) -> str:
    return index.relative(Path(path))


def _loc(index, loc) -> tuple:
    return (_rel(index, loc.file), tuple(loc.range.start), tuple(loc.range.end))


def _ref(index, ref) -> tuple:
    return (ref.label, ref.command, ref.owner, ref.part, _loc(index, ref.location))


def _label(index, label) -> tuple:
    return (label.name, label.owner, label.command, _loc(index, label.location))


def _proof(index, proof) -> tuple | None:
    if proof is None:
        return None
    return (_rel(index, proof.file), proof.named_target, proof.leanok, proof.has_content, proof.obligation,
            proof.spans, _loc(index, proof.location), _loc(index, proof.end))


def _diag(index, diag) -> tuple:
    return (_rel(index, diag.file), tuple(diag.range.start), tuple(diag.range.end), diag.severity, diag.code,
            diag.message, tuple((_loc(index, r.location), r.message) for r in diag.related))


def fingerprint(index) -> dict:
    claims = {}
    for cid, c in index.claims.items():
        claims[cid] = (c.kind, c.title, c.label, _rel(index, c.file), c.statement_text, c.obligation,
                       _proof(index, c.proof), tuple(c.lean_decls), c.leanok, c.mathlibok, c.notready,
                       c.needs_proof, c.role, c.cited, c.section, tuple(_ref(index, r) for r in c.references),
                       tuple(c.inner_labels), c.spans, _loc(index, c.location), _loc(index, c.end))
    sections = {}
    for sid, s in index.sections.items():
        sections[sid] = (s.level, s.title, s.label, _loc(index, s.location), _rel(index, s.file), s.obligation,
                         s.parent, s.has_content, tuple(_ref(index, r) for r in s.references))
    # reading order: the nodes sorted by their order numbers
    nodes = [(c.order, cid) for cid, c in index.claims.items()] + [(s.order, sid) for sid, s in index.sections.items()]
    graph = index.graph
    roots = []
    for result in index.root_results:
        roots.append((_rel(index, result.root), [_label(index, x) for x in result.label_list],
                      [_ref(index, r) for r in result.references], [_rel(index, f) for f in result.files],
                      sorted((_rel(index, p.file), p.start, p.end, p.code, p.message) for p in result.problems),
                      {name: [_label(index, x) for x in labels] for name, labels in result.labels.items()}))
    return {
        "roots": [_rel(index, r) for r in index.roots],
        "claim_ids": list(index.claims),
        "claims": claims,
        "section_ids": list(index.sections),
        "sections": sections,
        "reading_order": [node for _order, node in sorted(nodes)],
        "labels": {name: [_label(index, x) for x in labels] for name, labels in index.labels.items()},
        "label_owner": dict(index.label_owner),
        "references": [_ref(index, r) for r in index.references],
        "root_results": roots,
        "file_roots": {_rel(index, f): [_rel(index, r) for r in roots_] for f, roots_ in index.file_roots.items()},
        "node_kind": dict(graph.node_kind),
        "edges": sorted(graph.edges),
        # what each section holds, counted: kept edit by edit, it decides when a section is open
        # (a count that drifts shows in no status until it crosses zero, so it is compared itself)
        "section_holds": {node: count for node, count in graph._contained.items() if count},
        "status": dict(graph.status),
        "conditional_on": dict(graph.conditional_on),
        "cycles": graph.cycles(),
        "generations": graph.generations(),
        "diagnostics": [_diag(index, d) for d in index.diagnostics()],
    }


def differences(incremental: dict, cold: dict, limit: int = 6) -> list[str]:
    """What differs, readably (the first few entries of each part)."""
    out = []
    for key in cold:
        a, b = incremental.get(key), cold[key]
        if a == b:
            continue
        if isinstance(b, dict) and isinstance(a, dict):
            keys = [k for k in sorted(set(a) | set(b), key=str) if a.get(k) != b.get(k)][:limit]
            out.append(f"{key}: " + "; ".join(f"{k!r}: incremental {a.get(k)!r} != cold {b.get(k)!r}" for k in keys))
        elif isinstance(b, list) and isinstance(a, list):
            diff = [i for i in range(max(len(a), len(b))) if i >= len(a) or i >= len(b) or a[i] != b[i]][:limit]
            out.append(f"{key} (lengths {len(a)} / {len(b)}): " + "; ".join(
                f"[{i}] incremental {a[i] if i < len(a) else None!r} != cold {b[i] if i < len(b) else None!r}"
                for i in diff))
        else:
            out.append(f"{key}: incremental {a!r} != cold {b!r}")
    return out
