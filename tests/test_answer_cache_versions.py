"""The answer cache's entries carry ``schema_version`` and the prompt they answer; ``colosseum cache
stats|prune`` and the dry runs say how many answers the current prompts can reuse and how many a
change of prompts or format has made useless, before any money is spent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from colosseum.app.cache import cache_stats, prune_cache
from colosseum.cli.main import main
from colosseum.core.paths import answer_cache_dir
from colosseum.core.schema_version import SCHEMA_VERSION
from colosseum.models.prompts import load_prompt
from colosseum.models.provider import Message, ModelRequest
from colosseum.models.response_cache import CachedProvider, cache_entries, prompt_fingerprint
from colosseum.models.scripted_provider import ScriptedProvider

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"


def _fill(root: Path, roles: list[str]) -> list[Path]:
    """One cached answer per role (in order), written by the real cache; their paths."""
    import asyncio

    cached = CachedProvider(ScriptedProvider(lambda request: "an answer"), answer_cache_dir(root))
    for n, role in enumerate(roles):
        asyncio.run(cached.complete(ModelRequest("system", (Message("user", f"question {n}"),), role=role)))
    assert cached.misses == len(roles)
    return [e.path for e in cache_entries(answer_cache_dir(root))]


def _rewrite(path: Path, **fields) -> None:
    data = json.loads(path.read_text())
    for key, value in fields.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path.write_text(json.dumps(data))


def _entry(root: Path, role: str) -> Path:
    return next(e.path for e in cache_entries(answer_cache_dir(root)) if e.role == role)


def test_an_entry_records_its_format_and_prompt(tmp_path):
    (path,) = _fill(tmp_path, ["generator"])
    data = json.loads(path.read_text())
    spec = load_prompt("generator")
    assert data["schema_version"] == SCHEMA_VERSION and data["role"] == "generator"
    assert data["prompt_version"] == spec.version and data["prompt_fingerprint"] == prompt_fingerprint(spec)
    stats = cache_stats(tmp_path)
    assert (stats.entries, stats.stale, stats.unversioned, stats.reusable) == (1, 0, 0, 1)
    assert stats.by_role == {"generator": {str(spec.version): 1}}


def _aged(root: Path) -> None:
    """Four answers: one current, one for an older refuter prompt, one of an older entry format,
    one written before entries were versioned."""
    _fill(root, ["generator", "refuter", "aggregator", "angle_planner"])
    _rewrite(_entry(root, "refuter"), prompt_fingerprint="0" * 16, prompt_version=0)
    _rewrite(_entry(root, "aggregator"), schema_version=SCHEMA_VERSION - 1 if SCHEMA_VERSION > 1 else 0)
    _rewrite(_entry(root, "angle_planner"), schema_version=None, role=None, prompt_version=None,
             prompt_fingerprint=None)


def test_stats_count_what_a_prompt_or_format_change_made_stale(tmp_path):
    _aged(tmp_path)
    stats = cache_stats(tmp_path)
    assert (stats.entries, stats.stale, stats.unversioned, stats.reusable) == (4, 2, 1, 2)
    assert stats.by_role["refuter"] == {"0": 1} and stats.by_role["(no role)"] == {"unversioned": 1}
    assert stats.size_bytes == sum(p.stat().st_size for p in answer_cache_dir(tmp_path).glob("*/*.json"))


def test_prune_removes_the_stale_answers_and_all_on_request(tmp_path, capsys):
    _aged(tmp_path)
    assert main(["cache", "prune", str(tmp_path), "--stale"]) == 0
    assert "removed 2 cached answers" in capsys.readouterr().out
    assert sorted(str(e.role) for e in cache_entries(answer_cache_dir(tmp_path))) == ["None", "generator"]
    assert prune_cache(tmp_path, everything=False).removed == 0
    assert main(["cache", "stats", str(tmp_path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema_version"] == SCHEMA_VERSION and data["entries"] == 2 and data["stale"] == 0
    assert main(["cache", "prune", str(tmp_path), "--all"]) == 0
    assert "removed 2 cached answers" in capsys.readouterr().out
    assert list(cache_entries(answer_cache_dir(tmp_path))) == []
    assert main(["cache", "stats", str(tmp_path / "nowhere")]) == 2


def test_stats_in_text(tmp_path, capsys):
    _aged(tmp_path)
    assert main(["cache", "stats", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("4 cached answers, ") and "2 stale" in out and "refuter: v0: 1" in out


def test_the_dry_runs_say_what_the_cache_reuses_before_spending(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)  # a dry run needs no key and makes no call
    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project)
    assert main(["solve", str(project), "--label", "lem:resampling", "--dry-run"]) == 0
    assert "cached answer" not in capsys.readouterr().out  # no cache yet: nothing to say
    _aged(project)
    assert main(["solve", str(project), "--label", "lem:resampling", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert ("2 cached answers can be reused by the current prompts; 2 were written for older prompts or formats "
            "and will not be") in out
    assert main(["review", str(project), "--dry-run"]) == 0
    assert "2 were written for older prompts" in capsys.readouterr().out
    assert main(["solve", str(project), "--label", "lem:resampling", "--dry-run", "--no-cache"]) == 0
    assert "The answer cache is off" in capsys.readouterr().out


def test_the_research_dry_run_says_it_too(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    (tmp_path / "main.tex").write_text("\\documentclass{article}\n\\newtheorem{theorem}{Theorem}\n"
                                       "\\begin{document}\n\\begin{theorem}\\label{thm:goal}Every $n$ is $n$."
                                       "\\end{theorem}\n\\end{document}\n")
    _aged(tmp_path)
    assert main(["research", str(tmp_path), "--label", "thm:goal", "--dry-run"]) == 0
    assert "2 cached answers can be reused by the current prompts; 2 were written" in capsys.readouterr().out


def test_a_real_run_says_how_many_answers_a_prompt_change_made_useless_before_its_first_call(tmp_path, capsys,
                                                                                             monkeypatch):
    """Not only the dry run: a run that will pay again for answers the cache held says so on stderr
    before anything is sent (here the API is unreachable, so the run stops at its first call)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens: no call succeeds
    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project)
    _aged(project)
    main(["solve", str(project), "--label", "lem:resampling"])
    err = capsys.readouterr().err
    assert ("2 cached answers were written for older prompts or formats: what they answered is asked (and paid "
            "for) again") in err
    main(["solve", str(project), "--label", "lem:resampling", "--quiet"])
    assert "written for older prompts" not in capsys.readouterr().err
