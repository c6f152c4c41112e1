""":ColosseumInsertDraft in a headless Neovim against the real server (tests/neovim/insert_draft_spec.lua):
after a solve nothing is applied (no workspace/applyEdit, the buffer unchanged); the command lists
the draft offers (code actions on the claim), inserts the one the author picks with the draft
marker on the proof's first line, and the server drops the offer. The server's model is the
scripted Messages API of test_solve_cli. Runs under each Neovim test_neovim_client finds."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from doubles.messages_api import MessagesAPIDouble
from colosseum.app.consent import remember_consent
from test_neovim_client import MINIMAL_INIT, REPO, lsp_log, nvim, nvim_env, run_nvim  # noqa: F401 (fixture)
from test_solve_cli import answer_by_role

SPEC = REPO / "tests" / "neovim" / "insert_draft_spec.lua"
EXAMPLE = REPO / "example-project"


def test_insert_draft_lists_the_offers_and_inserts_the_pick_marked(nvim, tmp_path):
    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project)
    target = project / "sections" / "main-result.tex"
    out = tmp_path / "report.json"
    with MessagesAPIDouble([], responder=answer_by_role) as api:
        env = nvim_env(tmp_path, COLOSSEUM_NVIM_OUT=str(out), COLOSSEUM_NVIM_FILE=str(target),
                       COLOSSEUM_NVIM_CMD=json.dumps([sys.executable, "-m", "colosseum", "serve"]),
                       ANTHROPIC_API_KEY="sk-test", ANTHROPIC_BASE_URL=api.url)
        # this author said "Send" to the consent question before (tests/test_server_consent.py asks it)
        remember_consent(project, "anthropic", environ=env)
        code, stdout, stderr = run_nvim(nvim, ["--headless", "-u", str(MINIMAL_INIT.relative_to(REPO)),
                                               "-c", f"luafile {SPEC.relative_to(REPO)}"], env)
    report = json.loads(out.read_text()) if out.exists() else None
    context = f"exit {code}\nreport: {json.dumps(report, indent=2)}\nstderr:\n{stderr}\n{lsp_log(tmp_path)}"
    assert code == 0 and report and report["ok"], context
    solved = report["solve"]["result"]
    assert solved["offered"] is True and solved["verdict"] == "unrefuted", context
    run_id = Path(solved["report"]).parent.name
    # the solve applied nothing
    assert report["apply_edit_requests"] == 0 and report["changed_by_solve"] is False, context
    assert report["marked_after_solve"] == 0, context
    # the offer was listed, and the pick inserted with the marker naming its run
    (choice,) = report["choices"]
    assert choice.startswith(f"Insert draft proof of lem:resampling (run {run_id}: unrefuted, "), context
    (marked,) = report["marked"]
    assert marked["text"] == f"\\begin{{proof}} % colosseum: draft {run_id}", context
    assert report["offers_after_insert"] == 0 and report["apply_edit_requests"] == 0, context
