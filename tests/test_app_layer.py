"""The application layer is the one place a model-backed command is assembled: the server calls
it and never the CLI, and it knows nothing of the CLI nor of the editor's protocol."""

from __future__ import annotations

import ast
from pathlib import Path

from colosseum.app.stops import RunRefused, StopReason, stop_reason
from colosseum.core import paths
from colosseum.models.errors import BudgetExceeded, BudgetReached, SolveCancelled
from colosseum.models.provider import ProviderError

REPO = Path(__file__).resolve().parents[1]


def imported_modules(folder: Path) -> dict[str, set[str]]:
    """Every module each file under ``folder`` imports (absolute names, at any depth of the file)."""
    found: dict[str, set[str]] = {}
    for file in sorted(folder.rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"), str(file))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
        found[str(file.relative_to(REPO))] = names
    return found


def offending(folder: Path, prefixes: tuple[str, ...]) -> dict[str, list[str]]:
    return {file: sorted(n for n in names if n.split(".")[0] in prefixes or n.startswith(prefixes))
            for file, names in imported_modules(folder).items()
            if any(n.split(".")[0] in prefixes or n.startswith(prefixes) for n in names)}


def test_no_server_module_imports_the_cli():
    assert offending(REPO / "server", ("colosseum.cli",)) == {}


def test_the_application_layer_imports_neither_the_cli_nor_the_protocol():
    assert offending(REPO / "colosseum" / "app", ("colosseum.cli", "pygls", "lsprotocol", "colosseum_lsp")) == {}


# a run is started only through the application layer: the CLI and the server never reach the
# research pipeline, the inner loop (its solve, its run folders) or the reviews' entry points
RUN_ENTRY_POINTS = ("colosseum.loops.research", "colosseum.loops.inner", "colosseum.loops.review.global_review",
                    "colosseum.loops.review.local_review", "colosseum.loops.review.review_document",
                    "colosseum.loops.review.review_claim", "colosseum.loops.review.retry_claim",
                    "colosseum.loops.review.write_report")


def test_the_adapters_start_no_run_of_the_loops_themselves():
    for folder in (REPO / "colosseum" / "cli", REPO / "server"):
        assert offending(folder, RUN_ENTRY_POINTS) == {}
    # what they still read from the loops is the review's presentation and the editor's review state:
    # the JSON of a report, the dismissal store, the reviewer kept per document, the anchoring text


def test_providers_and_run_records_are_made_in_the_application_layer_only():
    outside = {}
    for folder in (REPO / "colosseum" / "cli", REPO / "server"):
        for file in sorted(folder.rglob("*.py")):
            text = file.read_text(encoding="utf-8")
            calls = [name for name in ("configured_provider(", "RunRecorder(") if name in text]
            if calls:
                outside[str(file.relative_to(REPO))] = calls
    assert outside == {}


def test_every_early_stop_becomes_one_reason():
    group = ExceptionGroup("run", [ExceptionGroup("stage", [BudgetReached("budget")]), ValueError("other")])
    assert stop_reason(group) == StopReason("budget-reached", "budget")
    assert stop_reason(KeyboardInterrupt()).cancelled
    assert stop_reason(ExceptionGroup("run", [SolveCancelled("cancelled"), BudgetReached("budget")])).cancelled
    assert stop_reason(BudgetExceeded("too many")).kind == "budget-exceeded"
    assert stop_reason(ExceptionGroup("run", [ProviderError("anthropic", "down")])).kind == "model-unreachable"
    assert stop_reason(RunRefused("nothing to review")).kind == "refused"
    assert stop_reason(ValueError("a bug")) is None


def test_the_state_folder_is_named_once(tmp_path):
    assert paths.runs_dir(tmp_path) == tmp_path / ".colosseum" / "runs"
    assert paths.answer_cache_dir(tmp_path) == tmp_path / ".colosseum" / "cache"
    assert paths.local_reviews_dir(tmp_path) == tmp_path / ".colosseum" / "reviews" / "local"
    assert paths.lean_cache_dir(tmp_path) == tmp_path / ".colosseum" / "lean" / "cache"
    literal = '".colosseum"'
    holders = [str(f.relative_to(REPO)) for folder in ("colosseum/app", "colosseum/cli", "server")
               for f in sorted((REPO / folder).rglob("*.py")) if literal in f.read_text(encoding="utf-8")]
    assert holders == []
    # nowhere else in the engine or the server either, as a string in the code (a docstring may
    # name the folder in prose)
    in_code = {}
    for folder in ("colosseum", "server"):
        for file in sorted((REPO / folder).rglob("*.py")):
            if file == REPO / "colosseum" / "core" / "paths.py":
                continue
            found = state_folder_strings(file)
            if found:
                in_code[str(file.relative_to(REPO))] = found
    assert in_code == {}


def state_folder_strings(file: Path) -> list[str]:
    """The string constants of ``file``'s code (not its docstrings) that name the state folder or a path in it."""
    tree = ast.parse(file.read_text(encoding="utf-8"), str(file))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and (node.value == paths.STATE_DIR_NAME or node.value.startswith(paths.STATE_DIR_NAME + "/"))]


def test_a_run_takes_its_overrides_from_the_editor_options_or_the_command_line(tmp_path):
    from colosseum.app.run_settings import RunOverrides, inner_loop_config
    from colosseum.settings.project import load_config

    assert RunOverrides.from_editor_options({"model": "m", "budget": {"max_calls": 7}}) == RunOverrides("m", 7)
    assert RunOverrides.from_editor_options({"budget": 7}) == RunOverrides()
    (tmp_path / "colosseum.toml").write_text("[solve]\nleaves = 4\n[budget]\nmax_calls = 90\n")
    config, _models = inner_loop_config(load_config(tmp_path))
    assert config.leaves == 4 and config.widths == (4, 8, 5, 1) and config.max_calls == 90
    assert inner_loop_config(load_config(tmp_path), 12)[0].max_calls == 12
