"""What the command line writes where: the progress line only on a terminal's stderr, ``check``
with --severity, --quiet, --color and SARIF 2.1.0."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from colosseum.cli.check_output import SARIF_VERSION, registered_codes, use_colour
from colosseum.cli.terminal import Progress, progress_for
from test_cli import clean, doc, run  # noqa: F401 - clean is a fixture: the same projects and runner as test_cli

REPO = Path(__file__).resolve().parent.parent
CLEAR_LINE = "\r\x1b[K"


@pytest.fixture
def broken(make_project, tmp_path):
    """An error (line 5), a warning (line 7) and a hint (line 8)."""
    return make_project(tmp_path, {"main.tex": doc(
        "See \\cref{lem:missing}.\n"
        "\\begin{lemma}\\label{lem:ob}\\obligation Hard.\\end{lemma}\n"
        "\\begin{lemma}\\label{lem:use}Easy.\\end{lemma}\n"
        "\\begin{proof}By \\cref{lem:ob}.\\end{proof}\n"
        "\\begin{lemma}\\label{lem:lonely}Alone.\\end{lemma}\n")})


def severities(out: str) -> list[str]:
    return [line.split(": ", 1)[1].split(" ", 1)[0] for line in out.splitlines()]


# ---- the progress line -----------------------------------------------------------------------------


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_writes_nothing_to_a_stream_that_is_not_a_terminal():
    captured = io.StringIO()
    progress = Progress(captured)
    progress("solving", 1, 3)
    progress.show("round 1 · exploring")
    progress.finish()
    assert captured.getvalue() == ""


def test_progress_shows_elapsed_and_eta_and_clears_its_line():
    ticks = iter([100.0, 110.0, 130.0])
    terminal = FakeTerminal()
    progress = Progress(terminal, clock=lambda: next(ticks))
    progress("solving", 0, 3)
    progress("solving", 1, 3)  # 10 s for one of three: 20 s to go
    assert terminal.getvalue().endswith("1/3 00:10 elapsed, ETA 00:20")
    progress("solving", 3, 3)
    assert terminal.getvalue().endswith("3/3 00:30 elapsed")  # done: no ETA
    assert "\n" not in terminal.getvalue()  # redrawn in place
    progress.finish()
    assert terminal.getvalue().endswith("elapsed" + CLEAR_LINE)


def test_finish_without_a_drawn_line_writes_nothing():
    terminal = FakeTerminal()
    Progress(terminal).finish()
    assert terminal.getvalue() == ""


def test_quiet_runs_draw_no_progress_even_on_a_terminal(monkeypatch):
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    quiet, loud = progress_for(type("Args", (), {"quiet": True})()), progress_for(type("Args", (), {"quiet": False})())
    quiet("reviewing", 1, 2)
    assert terminal.getvalue() == ""
    loud("reviewing", 1, 2)
    assert "reviewing" in terminal.getvalue()


PTY_CHILD = """
import sys
from colosseum.cli.terminal import Progress
progress = Progress()
progress("solving", 1, 2)
progress("solving", 2, 2)
progress.finish()
sys.stdout.write("report\\n")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_progress_appears_on_a_real_terminal_and_ends_with_a_cleared_line():
    import pty

    leader, follower = pty.openpty()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    child = subprocess.Popen([sys.executable, "-c", PTY_CHILD], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=follower, env=env)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal's other end closed: the child is done writing
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    out, _ = child.communicate()
    assert child.returncode == 0
    text = seen.decode()
    assert "solving" in text and "2/2" in text and "elapsed" in text
    assert text.endswith(CLEAR_LINE)
    assert out == b"report\n"  # the report on stdout, nothing of the bar in it


def test_a_captured_run_has_no_progress_text(capsys):
    progress = Progress()  # stderr is captured: no terminal
    progress("reviewing", 1, 3)
    progress.finish()
    assert capsys.readouterr().err == ""


# ---- check: --severity, --quiet, --color ----------------------------------------------------------


def test_severity_shows_the_minimum_and_above(broken, capsys):
    code, out, _ = run(capsys, "check", str(broken))
    assert code == 1 and {"error", "warning", "hint"} <= set(severities(out))
    code, out, _ = run(capsys, "check", str(broken), "--severity", "warning")
    assert code == 1 and set(severities(out)) == {"error", "warning"}
    code, out, _ = run(capsys, "check", str(broken), "--severity", "error")
    assert code == 1 and set(severities(out)) == {"error"}


def test_the_exit_code_is_zero_without_an_error_whatever_is_shown(clean, capsys):
    code, out, _ = run(capsys, "check", str(clean), "--severity", "error")
    assert code == 0 and out == ""


def test_quiet_prints_the_findings_and_no_summary(broken, capsys):
    _, out, err = run(capsys, "check", str(broken))
    assert "claims" in err
    code, quiet_out, quiet_err = run(capsys, "check", str(broken), "--quiet")
    assert code == 1 and quiet_out == out and quiet_err == ""


def test_colour_only_when_asked_or_on_a_terminal(broken, capsys, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    _, plain, _ = run(capsys, "check", str(broken))  # auto, stdout captured: no colour
    assert "\x1b[" not in plain
    _, coloured, _ = run(capsys, "check", str(broken), "--color", "always")
    assert "\x1b[1;31merror\x1b[0m colosseum/undefined-reference" in coloured
    assert "\x1b[33mwarning\x1b[0m" in coloured
    _, never, _ = run(capsys, "check", str(broken), "--color", "never")
    assert never == plain


def test_auto_colour_honours_no_color():
    assert use_colour("auto", FakeTerminal(), environ={}) is True
    assert use_colour("auto", FakeTerminal(), environ={"NO_COLOR": "1"}) is False
    assert use_colour("auto", FakeTerminal(), environ={"NO_COLOR": ""}) is True  # set but empty: not set
    assert use_colour("auto", io.StringIO(), environ={}) is False
    assert use_colour("always", io.StringIO(), environ={"NO_COLOR": "1"}) is True  # the flag wins
    assert use_colour("never", FakeTerminal(), environ={}) is False


# ---- check --format sarif --------------------------------------------------------------------------

# the part of the SARIF 2.1.0 schema (https://json.schemastore.org/sarif-2.1.0.json) a code-scanning
# upload reads, embedded: nothing is downloaded
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "$schema": {"type": "string", "format": "uri"},
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["tool"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"}, "version": {"type": "string"},
                                   "rules": {"type": "array", "items": {
                                       "type": "object", "required": ["id"],
                                       "properties": {"id": {"type": "string"}, "shortDescription": {
                                           "type": "object", "required": ["text"],
                                           "properties": {"text": {"type": "string"}}}}}}}}}},
                "results": {"type": "array", "items": {
                    "type": "object", "required": ["message"],
                    "properties": {
                        "ruleId": {"type": "string"},
                        "ruleIndex": {"type": "integer", "minimum": 0},
                        "level": {"enum": ["none", "note", "warning", "error"]},
                        "message": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}},
                        "locations": {"type": "array", "items": {"type": "object", "properties": {
                            "physicalLocation": {"type": "object", "required": ["artifactLocation", "region"],
                                                 "properties": {
                                "artifactLocation": {"type": "object", "required": ["uri"],
                                                     "properties": {"uri": {"type": "string"}}},
                                "region": {"type": "object", "required": ["startLine"], "properties": {
                                    k: {"type": "integer", "minimum": 1}
                                    for k in ("startLine", "startColumn", "endLine", "endColumn")}}}}}}}}}},
            }}},
    },
}


def sarif(capsys, project, *extra) -> tuple[int, dict]:
    code, out, err = run(capsys, "check", str(project), "--format", "sarif", *extra)
    assert err == ""  # no summary line around machine output
    return code, json.loads(out)


def test_sarif_is_a_2_1_0_log_with_the_registered_rules(broken, capsys):
    code, log = sarif(capsys, broken)
    assert code == 1
    assert log["version"] == SARIF_VERSION == "2.1.0" and "sarif-2.1.0" in log["$schema"]
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "colosseum" and driver["version"] and "informationUri" not in driver
    assert log["runs"][0]["columnKind"] == "utf16CodeUnits"
    ids = [rule["id"] for rule in driver["rules"]]
    assert ids[:len(registered_codes())] == registered_codes() and len(set(ids)) == len(ids)
    assert "colosseum/undefined-reference" in ids and "colosseum/unused-label" in ids
    assert all(rule["shortDescription"]["text"] for rule in driver["rules"])
    for result in log["runs"][0]["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_sarif_results_carry_level_message_and_a_one_based_region(broken, capsys):
    _, log = sarif(capsys, broken)
    results = log["runs"][0]["results"]
    by_rule = {r["ruleId"]: r for r in results}
    missing = by_rule["colosseum/undefined-reference"]
    assert missing["level"] == "error" and "lem:missing" in missing["message"]["text"]
    location = missing["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "main.tex"  # relative to the project
    line = (broken / "main.tex").read_text().splitlines()[location["region"]["startLine"] - 1]
    start, end = location["region"]["startColumn"], location["region"]["endColumn"]
    assert location["region"]["endLine"] == location["region"]["startLine"] == 4
    assert "lem:missing" in line[start - 1:end - 1]  # 1-based, the end column just past the span
    assert by_rule["colosseum/depends-on-open-obligation"]["level"] == "warning"
    assert by_rule["colosseum/unused-label"]["level"] == "note"  # a hint is a note


def test_sarif_follows_severity_and_validates_against_the_schema_subset(broken, capsys):
    _, log = sarif(capsys, broken, "--severity", "warning")
    assert {r["level"] for r in log["runs"][0]["results"]} == {"error", "warning"}
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed: the structure is checked above")
    jsonschema.validate(log, SARIF_SUBSET)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(dict(log, version="2.0.0"), SARIF_SUBSET)


def test_sarif_of_a_clean_project_has_rules_and_no_error(clean, capsys):
    code, log = sarif(capsys, clean, "--severity", "error")
    assert code == 0 and log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"]


# ---- a real run: `colosseum review` against the Messages-API double --------------------------------

EXAMPLE = REPO / "example-project"


def review_answers(body: dict):
    from doubles.messages_api import tool_answer

    if "withdrawn" in body["tools"][0]["input_schema"]["properties"]:
        return tool_answer({"verdict": "accepted", "reasons": [], "critiques": [], "withdrawn": []})
    return tool_answer({"verdict": "accepted", "reasons": ["fine"], "critiques": []})


def review(project: Path, url: str, *extra: str, stderr=subprocess.PIPE) -> subprocess.Popen:
    env = {**os.environ, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-test"}
    env.pop("NO_COLOR", None)
    return subprocess.Popen([sys.executable, "-m", "colosseum", "review", str(project), "--format", "json", *extra],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, env=env)


@pytest.fixture
def paper(tmp_path) -> Path:
    import shutil

    shutil.copytree(EXAMPLE, tmp_path / "paper")
    return tmp_path / "paper"


def read_terminal(leader: int) -> str:
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    return seen.decode()


def test_review_quiet_writes_the_result_and_nothing_on_stderr(paper):
    from doubles.messages_api import MessagesAPIDouble

    with MessagesAPIDouble([], responder=review_answers) as server:
        loud = review(paper, server.url)
        out, err = loud.communicate(timeout=120)
        assert loud.returncode == 0 and b"model calls" in err and b"reviewing" not in err  # captured: no bar
        quiet = review(paper, server.url, "--quiet")
        quiet_out, quiet_err = quiet.communicate(timeout=120)
    assert quiet.returncode == 0 and quiet_err == b""
    assert json.loads(quiet_out)["verdict"] == json.loads(out)["verdict"]


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_review_on_a_terminal_draws_its_bar_and_clears_it(paper):
    import pty

    from doubles.messages_api import MessagesAPIDouble

    with MessagesAPIDouble([], responder=review_answers) as server:
        leader, follower = pty.openpty()
        child = review(paper, server.url, stderr=follower)
        os.close(follower)
        terminal = read_terminal(leader)
        out, _ = child.communicate(timeout=120)
    assert child.returncode == 0
    assert "elapsed" in terminal and "[" in terminal
    # the bar's line cleared, and the cost line written from its beginning
    assert re.search(r"elapsed\r\x1b\[K\d+ model calls", terminal), terminal
    assert b"elapsed" not in out and json.loads(out)["verdict"] == "accepted"


def test_the_lean_bar_names_the_file_on_a_terminal(monkeypatch):
    from colosseum.cli.lean import _Bar

    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    event = type("Event", (), {"done": 1, "total": 2, "status": "checked", "name": "Ex/Basic.lean"})()
    bar = _Bar()
    bar(event)
    assert "Lean [############............] 1/2 checked Ex/Basic.lean" in terminal.getvalue()
    bar.finish()
    assert terminal.getvalue().endswith(CLEAR_LINE)
    quiet = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    _Bar(quiet=True)(event)
    assert quiet.getvalue() == ""


def test_a_long_line_is_cut_to_the_terminal_width_keeping_the_times():
    terminal = FakeTerminal()  # no size known: 80 columns
    progress = Progress(terminal, clock=lambda: 0.0)
    progress.show("x" * 200)
    drawn = terminal.getvalue().removeprefix(CLEAR_LINE)
    assert len(drawn) < 80 and drawn.endswith("00:00 elapsed")
