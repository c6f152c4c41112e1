"""The application layer: each model-backed command written once, for the CLI and the editor.

``project`` opens a project, ``run_settings`` types a run's settings (colosseum.toml with the
command's overrides) and makes its provider, ``stops`` turns every early stop into one
StopReason; the use cases (``solve`` and retry, ``review``, ``research``, ``lean``, ``knowledge``)
return plain outcomes that the adapters print or answer with. Nothing here imports the CLI or the
editor's protocol; progress is a callback and cancellation is raised from it (or a CancelToken)."""
