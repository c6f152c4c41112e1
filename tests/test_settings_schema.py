"""One typed schema for colosseum.toml (colosseum/settings/schema.py): the loader, the loops, the
shipped JSON Schema and the README all follow it; an unknown table or key is a warning on its line
with the closest valid name."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import fields
from pathlib import Path

import jsonschema
import pytest
from server_session import client  # noqa: F401 - a fixture, requested by name

from colosseum.loops.inner.settings import inner_loop_config
from colosseum.settings import SCHEMA_FILE, json_schema, load_config, table, table_classes
from colosseum.settings.load import key_lines
from colosseum.settings.rules import default_of, keys_of
from colosseum.settings.schema import TopLevel

REPO = Path(__file__).resolve().parent.parent
PREAMBLE = "\\documentclass{article}\n\\begin{document}\nText.\n\\end{document}\n"


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _value_of(f):
    default = default_of(f)
    return f.metadata["example"] if f.metadata["example"] is not None else default


def every_key_toml() -> str:
    """A colosseum.toml that sets every key of the schema (its example, or else its default)."""
    lines = [f"{f.name} = {_toml_value(_value_of(f))}" for f in keys_of(TopLevel)]
    for name, cls in table_classes().items():
        lines.append(f"[{name}]")
        lines += [f"{f.name} = {_toml_value(_value_of(f))}" for f in keys_of(cls)]
    return "\n".join(lines) + "\n"


def readme_table() -> str:
    """The README's list of settings, generated from the schema."""
    rows = ["| key | default | value | meaning |", "|---|---|---|---|"]
    for name, cls in [(None, TopLevel), *table_classes().items()]:
        for f in keys_of(cls):
            key = f"`{f.name}`" if name is None else f"`[{name}] {f.name}`"
            shown = f.metadata["shown"] or f"`{_toml_value(default_of(f))}`"
            rows.append(f"| {key} | {shown} | {f.metadata['rule'].what} | {f.metadata['doc']} |")
    return "\n".join(rows)


# ---- the shipped JSON Schema ---------------------------------------------------------------------
def test_the_shipped_json_schema_is_the_generated_one():
    shipped = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert shipped == json_schema(), "run: python -c 'import colosseum.settings as s; s.write_json_schema()'"
    jsonschema.Draft7Validator.check_schema(shipped)


def test_the_example_project_and_a_file_with_every_key_validate(tmp_path):
    validator = jsonschema.Draft7Validator(json_schema())
    example = REPO / "example-project" / "colosseum.toml"
    assert not list(validator.iter_errors(tomllib.loads(example.read_text(encoding="utf-8"))))
    assert not load_config(example.parent).problems
    text = every_key_toml()
    assert not list(validator.iter_errors(tomllib.loads(text)))
    (tmp_path / "colosseum.toml").write_text(text)
    config = load_config(tmp_path)
    assert config.problems == []
    assert table(config, "models").prices == {"input": 3, "output": 15}
    assert table(config, "lean").project == "formal" and config.index.roots == ["main.tex", "web.tex", "print.tex"]
    assert table(config, "solve").widths == (16, 8, 5, 1)


@pytest.mark.parametrize("toml", ['[reveiw]\nreviewers = 2\n', 'rooot = "main.tex"\n', '[solve]\nk = 0\n',
                                  '[lean]\ninline_imports = [""]\n', '[models]\nbase_url = "ftp://x"\n',
                                  '[research]\nexploration_widths = [4]\n', 'index = 3\n'])
def test_what_the_loader_refuses_the_json_schema_refuses(tmp_path, toml):
    (tmp_path / "colosseum.toml").write_text(toml)
    assert load_config(tmp_path).problems
    assert list(jsonschema.Draft7Validator(json_schema()).iter_errors(tomllib.loads(toml)))


# ---- unknown tables and keys ---------------------------------------------------------------------
@pytest.mark.parametrize("toml,key,guess,line", [
    ("[solve]\nleaves = 4\n\n[reveiw]\nreviewers = 2\n", "reveiw", "review", 3),
    ("# the paper\nrooot = \"main.tex\"\n", "rooot", "root", 1),
    ("[review]\nreviewer = 3\n", "review.reviewer", "reviewers", 1),
    ("[lean]\nchek_on_save = false\n", "lean.chek_on_save", "check_on_save", 1),
    ("[research]\nwidths = [\n  8,\n  1,\n]\nselect_treshold = 4\n", "research.select_treshold", "select_threshold", 5),
    ("[models.pricse]\ninput = 1\n", "models.pricse", "prices", 0),
])
def test_an_unknown_name_is_a_warning_on_its_line_with_the_closest_name(tmp_path, toml, key, guess, line):
    (tmp_path / "colosseum.toml").write_text(toml)
    problems = [p for p in load_config(tmp_path).problems if p.key == key]
    assert len(problems) == 1, load_config(tmp_path).problems
    (problem,) = problems
    assert (problem.code, problem.severity, problem.line) == ("config-unknown-key", "warning", line)
    assert f"`{key}`" in problem.message and f"did you mean `{guess}`?" in problem.message


def test_an_unknown_name_with_nothing_close_lists_the_known_ones(tmp_path):
    (tmp_path / "colosseum.toml").write_text('[index]\n\nlabel_refs = []\n[solve]\ncolour = "red"\n')
    problems = {p.key: p for p in load_config(tmp_path).problems}
    assert problems["index.label_refs"].line == 2 and "known: exclude, include_commands, label_definition_commands" in (
        problems["index.label_refs"].message)
    assert problems["solve.colour"].line == 4 and problems["solve.colour"].severity == "warning"


def test_the_index_and_check_report_unknown_names_as_warnings(make_project, tmp_path, capsys):
    from colosseum.cli.main import main
    from colosseum.index import ProjectIndex

    root = make_project(tmp_path, {"colosseum.toml": 'root = "main.tex"\n[reveiw]\nreviewers = 2\n[review]\n'
                                                     'reviewers = 5\nreviewer = 1\n',
                                   "main.tex": PREAMBLE})
    index = ProjectIndex.open(root)
    found = sorted((d.range.start.line, d.severity, d.message) for d in index.diagnostics()
                   if d.code == "colosseum/config-unknown-key")
    assert [(line, severity) for line, severity, _ in found] == [(1, "warning"), (5, "warning")]
    assert "did you mean `review`?" in found[0][2] and "did you mean `reviewers`?" in found[1][2]
    assert table(index.config, "review").reviewers == 5  # the valid key beside a bad one takes effect
    assert main(["check", str(root)]) == 0  # warnings only
    assert "did you mean `review`?" in capsys.readouterr().out


@pytest.fixture
def project(tmp_path):  # server_session's paper, with a misspelled table in its colosseum.toml
    from server_session import FILES, _write

    return _write(tmp_path / "ws" / "paper",
                  dict(FILES, **{"colosseum.toml": 'root = "main.tex"\n\n[reveiw]\nreviewers = 2\n'}))


@pytest.mark.parametrize("client", ["visual-studio-code"], indirect=True)
async def test_the_server_shows_an_unknown_table_on_its_line(client, project):
    from server_session import _open, _publication, _uri

    _open(client, "main.tex")
    params = await _publication(client, _uri(client, "colosseum.toml"), 0,
                                lambda p: any(d.code == "colosseum/config-unknown-key" for d in p.diagnostics),
                                "the unknown table on colosseum.toml", timeout=30)
    (diag,) = params.diagnostics
    assert diag.range.start.line == 2 and diag.severity == 2 and "did you mean `review`?" in diag.message


def test_an_unknown_index_key_is_a_warning_not_a_config_error(make_project, tmp_path):
    # was a `colosseum/config-error` case of tests/test_diagnostics.py before unknown names had their code
    from colosseum.index import ProjectIndex

    root = make_project(tmp_path, {"colosseum.toml": "[index]\n\nlabel_refs = []\n", "main.tex": PREAMBLE})
    (diag,) = [d for d in ProjectIndex.open(root).diagnostics() if d.file == root / "colosseum.toml"]
    assert (diag.code, diag.severity, diag.range.start.line) == ("colosseum/config-unknown-key", "warning", 2)
    assert "`index.label_refs`" in diag.message


def test_key_lines_skip_strings_comments_and_values_that_span_lines():
    text = ('# [not] = 1\nroot = "a # b = [c"  # note\nnote = """\nfake = 1\n[fake]\n"""\n'
            '[solve]\nwidths = [ # open\n  16, 8,\n  1 ]\nk = 5\n"quoted.key" = 1\nmodels.model = "m"\n'
            '[[runs]]\nname = \'x]\'\n[ lean . extra ]\n')
    lines = key_lines(text)
    assert lines[("root",)] == 1 and lines[("note",)] == 2 and ("fake",) not in lines
    assert lines[("solve",)] == 6 and lines[("solve", "widths")] == 7 and lines[("solve", "k")] == 10
    assert lines[("solve", "quoted.key")] == 11 and lines[("solve", "models", "model")] == 12
    assert lines[("runs", "name")] == 14 and lines[("lean", "extra")] == 15


def test_a_config_of_the_index_alone_does_not_import_the_run_tables(tmp_path):
    import subprocess
    import sys

    (tmp_path / "colosseum.toml").write_text('root = "main.tex"\n[index]\nexclude = ["old/**"]\n')
    code = ("import sys, pathlib; from colosseum.settings.project import load_config; "
            "c = load_config(pathlib.Path(sys.argv[1])); assert not c.problems, c.problems; "
            "print('colosseum.settings.tables' in sys.modules, 'difflib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "False"], out.stderr


# ---- the typed tables agree with the loops -------------------------------------------------------
def test_schema_defaults_are_the_loops_defaults(tmp_path):
    from colosseum.lean.settings import LeanSettings, lean_settings
    from colosseum.loops.inner.records import InnerLoopConfig
    from colosseum.loops.research.records import ResearchConfig
    from colosseum.loops.research.settings import FIELDS, SelectionSettings, research_settings
    from colosseum.loops.review import ReviewConfig, review_config

    empty = load_config(tmp_path)  # no colosseum.toml: every default
    research, selection, _ = research_settings(empty)
    assert research == ResearchConfig() and selection == SelectionSettings()
    schema_research = table(empty, "research")
    assert all(getattr(schema_research, key) == getattr(ResearchConfig(), name) for key, name in FIELDS.items())
    assert review_config(empty)[0] == ReviewConfig()
    assert lean_settings(empty) == LeanSettings()
    loop, models = inner_loop_config(empty)
    assert loop == InnerLoopConfig() and models == {}


def test_inner_loop_reads_solve_budget_and_models(tmp_path):
    (tmp_path / "colosseum.toml").write_text('[solve]\nleaves = 8\nrefuters = 2\nk = 3\ncover_strategies = true\n'
                                             '[budget]\nmax_calls = 90\n[models]\nmodel = "m"\nprovider = "x"\n')
    loop, models = inner_loop_config(load_config(tmp_path))
    assert (loop.leaves, loop.widths, loop.refuters_per_candidate, loop.k) == (8, (8, 8, 5, 1), 2, 3)
    assert loop.cover_strategies and loop.max_calls == 90 and models == {"model": "m"}
    assert inner_loop_config(load_config(tmp_path), max_calls=7)[0].max_calls == 7
    (tmp_path / "colosseum.toml").write_text('[solve]\nleaves = 0\nwidths = [8, 4, 1]\n')
    assert inner_loop_config(load_config(tmp_path))[0].widths == (16, 8, 5, 1)  # a bad leaves: the default shape


def test_every_key_has_a_type_a_default_and_a_sentence():
    for cls in [TopLevel, *table_classes().values()]:
        for f in keys_of(cls):
            assert f.metadata["doc"].endswith(".") and f.metadata["rule"].what, (cls.__name__, f.name)
            assert default_of(f) is not None or f.metadata["example"] is not None, (cls.__name__, f.name)
        assert {f.name for f in fields(cls)} - {f.name for f in keys_of(cls)} <= {"roots"}


# ---- the README ----------------------------------------------------------------------------------
def test_the_readme_lists_every_key_as_the_schema_says():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Settings.*?(?=^## )", readme, re.S | re.M)
    assert section, "the README has a `## Settings` section"
    assert readme_table() in section.group(0), "regenerate the table with tests/test_settings_schema.readme_table()"
    assert "#:schema" in section.group(0) and "colosseum-toml.schema.json" in section.group(0)
