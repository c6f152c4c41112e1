"""Child process of bench/engine_rows.py (bench/run.py): in-process engine measurements, one JSON object on stdout.

    python bench/_engine_child.py cold DIR
        import colosseum (not timed), then time ProjectIndex.open(DIR) and index.diagnostics().
    python bench/_engine_child.py edits DIR PARAMS_JSON N SEED
        regenerate the synthetic project described by PARAMS_JSON (it must already be written
        in DIR), open it, then time N edits of its big file: update_document + diagnostics.

Exit status 3 with {"unavailable": reason} when the engine cannot be imported.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

UNDEFINED_CODE = "undefined-reference"


def _touch_graph(index) -> int:
    """Make sure the dependency graph is up to date; returns its edge count (or -1)."""
    graph = index.graph
    for probe in (lambda g: len(g.edges), lambda g: g.number_of_edges(), lambda g: len(g)):
        try:
            return probe(graph)
        except Exception:
            continue
    return -1


def _undefined(diags) -> int:
    return sum(1 for d in diags if str(getattr(d, "code", "")).endswith(UNDEFINED_CODE))


def _import_engine():
    try:
        from colosseum.index import ProjectIndex  # noqa: F401
    except Exception as exc:  # engine not there yet, or broken
        print(json.dumps({"unavailable": f"cannot import colosseum.index.project_index: {type(exc).__name__}: {exc}"}))
        sys.exit(3)
    return ProjectIndex


def cold(directory: str) -> dict:
    ProjectIndex = _import_engine()
    t0 = time.perf_counter()
    index = ProjectIndex.open(directory)
    t1 = time.perf_counter()
    diags = index.diagnostics()
    edges = _touch_graph(index)
    t2 = time.perf_counter()
    return {
        "open_s": t1 - t0,
        "diagnostics_s": t2 - t1,
        "total_s": t2 - t0,
        "roots": len(index.roots),
        "claims": len(index.claims),
        "sections": len(index.sections),
        "labels": sum(len(v) for v in index.labels.values()),
        "label_names": len(index.labels),
        "references": len(index.references),
        "edges": edges,
        "diagnostics": len(diags),
        "undefined_reference_diagnostics": _undefined(diags),
    }


def edits(directory: str, params_json: str, n: int, seed: int) -> dict:
    ProjectIndex = _import_engine()
    import synthetic

    params = json.loads(params_json)
    project = synthetic.generate(**params)
    project.root = Path(directory)
    seq = synthetic.EditSequence(project, project.big_file, seed=seed)
    path = (project.root / project.big_file).resolve()
    index = ProjectIndex.open(directory)
    first = index.diagnostics()  # not timed: the cold index's own diagnostics
    _touch_graph(index)
    samples, kinds, checks, work = [], [], [], []
    mismatches = []
    for edit in seq.edits(n):
        t0 = time.perf_counter()
        index.update_document(path, edit.text)
        diags = index.diagnostics()
        _touch_graph(index)
        samples.append(time.perf_counter() - t0)
        kinds.append(edit.kind)
        # what the edit cost in work done, whatever the machine's speed (an engine that counts it)
        done = getattr(index, "last_work", None)
        if done is not None:
            work.append({k: getattr(done, k) for k in getattr(done, "__slots__", ()) if isinstance(getattr(done, k), int)})
        got, want = _undefined(diags), seq.expected_undefined_references()
        checks.append((got, want))
        if got != want:
            mismatches.append(f"after '{edit.description}': {got} undefined-reference diagnostics, expected {want}")
    return {
        "samples_s": samples,
        "kinds": kinds,
        "work": work,
        "file": project.big_file,
        "file_lines": edit.text.count("\n") if n else None,
        "initial_undefined": _undefined(first),
        "undefined_checks": checks,
        "mismatches": mismatches,
    }


def main(argv: list[str]) -> int:
    try:
        if argv[0] == "cold":
            out = cold(argv[1])
        elif argv[0] == "edits":
            out = edits(argv[1], argv[2], int(argv[3]), int(argv[4]))
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except SystemExit:
        raise
    except Exception as exc:
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}))
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
