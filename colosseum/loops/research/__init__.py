"""The research pipeline: the outer loop of the method (``../shared/method.md``) for a theorem
with no proof yet. Explore strategies (exploration.py), pass the readiness gate (readiness.py),
cut a LaTeX skeleton whose DAG the index reads back (decomposition.py, draft.py), solve it
generation by generation with local review (dag_solver.py), then global review and conservative
revision or re-exploration (revision.py, pipeline.py); cross-model selection (selection.py).
Every stage is written to the run directory (run_log.py)."""
