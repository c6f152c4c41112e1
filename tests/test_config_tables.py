"""The tables of colosseum.toml that belong to the research pipeline, the review and the Lean
bridge are checked by colosseum.settings.project like the others: one finding per bad key, on its line,
with the key named; the valid keys still take effect."""

from __future__ import annotations

import pytest

from colosseum.settings.project import load_config


@pytest.mark.parametrize("toml,key,line", [
    ("[research]\nrounds = 0\n", "research.rounds", 1),
    ("[research]\n\nexploration_widths = [4, 8, 1]\n", "research.exploration_widths", 2),
    ("[review]\nreviewer = 3\n", "review.reviewer", 1),
    ("[lean]\ntime_limit = -1\n", "lean.time_limit", 1),
    ("[solve]\nleaves = 4\n[lean]\ncheck_on_save = \"yes\"\n", "lean.check_on_save", 3),
])
def test_each_bad_key_is_one_finding_on_its_line(tmp_path, toml, key, line):
    (tmp_path / "colosseum.toml").write_text(toml)
    config = load_config(tmp_path)
    (problem,) = config.problems
    assert problem.key == key and f"`{key}`" in problem.message and problem.line == line


def test_valid_keys_take_effect_beside_bad_ones(tmp_path):
    from colosseum.lean import lean_settings
    from colosseum.loops.research.settings import research_settings
    from colosseum.loops.review import review_config

    (tmp_path / "colosseum.toml").write_text(
        "[research]\nrounds = 2\njudges = -1\n[review]\nreviewers = 5\n[lean]\ntime_limit = 30\ncolour = 1\n")
    config = load_config(tmp_path)
    assert sorted(p.key for p in config.problems) == ["lean.colour", "research.judges"]
    research, selection, problems = research_settings(config)
    assert research.rounds == 2 and selection.judges == 8 and problems == []
    assert review_config(config)[0].reviewers == 5
    lean = lean_settings(config)
    assert lean.time_limit == 30.0 and [p.key for p in lean.problems] == ["lean.colour"]


def test_a_config_without_those_tables_does_not_import_their_code(tmp_path):
    import subprocess
    import sys

    (tmp_path / "colosseum.toml").write_text("[solve]\nleaves = 4\n")
    code = ("import sys, pathlib; from colosseum.settings.project import load_config; load_config(pathlib.Path(sys.argv[1])); "
            "print(any(m.startswith(('colosseum.loops.research', 'colosseum.loops.review', 'colosseum.lean')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr
