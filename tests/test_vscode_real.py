"""The VS Code extension in a real VS Code build, end to end (the smoke tests use a stub of the
`vscode` API): code-server installed from the npm registry by
editor-clients/vscode/e2e/install-code-server.sh (cached under ~/.cache/colosseum-tests), the
packaged .vsix installed in it, a copy of example-project opened in headless Chromium by
editor-clients/vscode/e2e/run-e2e.js (playwright-core driving the system `chromium`), against the
real server (`python -m colosseum serve`). It checks what an author sees: the Problems panel lists
the server's warning, the "Solve obligation" lens, and the hover of a `\\cref`. Screenshots and
code-server's logs are kept in .ci/artifacts/vscode-e2e/.

Skipped, saying why, where code-server, Chromium or the extension's npm packages cannot be
installed here; under CI=true that is a failure instead (contracts: tests within the machine).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXTENSION = REPO / "editor-clients" / "vscode"
INSTALL_SCRIPT = EXTENSION / "e2e" / "install-code-server.sh"
DRIVER = EXTENSION / "e2e" / "run-e2e.js"
ARTIFACTS = REPO / ".ci" / "artifacts" / "vscode-e2e"
CHROMIUM = "/usr/bin/chromium"
INSTALL_LIMIT_S = 1800  # a guard only: a cold install builds five native modules
RUN_LIMIT_S = 1200  # a guard only: the driver waits on the page, never on the clock


def cannot_install(reason: str):
    """Skip with the reason, or fail under CI=true, where an install failure is a failure."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and the real-editor test cannot be set up: {reason}")
    pytest.skip(reason)


def _run(args: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def code_server() -> str:
    """The path of the cached code-server program (installed on first use) and what the driver needs."""
    for tool in ("node", "npm", "bash"):
        if shutil.which(tool) is None:
            cannot_install(f"needs {tool} on PATH (Node 20 with npm) to install code-server")
    if not os.access(CHROMIUM, os.X_OK):
        cannot_install(f"needs Chromium at {CHROMIUM} (Debian: apt-get install chromium)")
    try:
        install = _run(["bash", str(INSTALL_SCRIPT)], REPO, INSTALL_LIMIT_S)
    except subprocess.TimeoutExpired:
        cannot_install(f"installing code-server took longer than {INSTALL_LIMIT_S} s")
    if install.returncode != 0:
        last = (install.stderr.strip().splitlines() or ["no message"])[-1]
        cannot_install(f"code-server could not be installed here: {last}\n{install.stderr[-3000:]}")
    program = install.stdout.strip().splitlines()[-1]
    if not (EXTENSION / "node_modules" / "playwright-core").is_dir():
        # the extension's npm packages (tests/run_all.sh installs them): vsce, esbuild, playwright-core
        deps = _run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], EXTENSION, INSTALL_LIMIT_S)
        if deps.returncode != 0:
            cannot_install("the extension's npm packages could not be installed (npm ci):\n" + deps.stderr[-3000:])
    return program


def run_driver(code_server: str, workdir: Path) -> subprocess.CompletedProcess:
    """Runs run-e2e.js; on the guard's timeout kills it with code-server (its own process group)."""
    env = dict(os.environ)
    # the server runs from this checkout whether or not the package is installed
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(REPO / "server"), *filter(None, [env.get("PYTHONPATH")])])
    args = ["node", str(DRIVER), "--code-server", code_server, "--python", sys.executable,
            "--workdir", str(workdir), "--artifacts", str(ARTIFACTS), "--chromium", CHROMIUM]
    proc = subprocess.Popen(args, cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=RUN_LIMIT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        pytest.fail(f"run-e2e.js still running after {RUN_LIMIT_S} s; screenshots in {ARTIFACTS}\n{stderr[-4000:]}")
    return subprocess.CompletedProcess(args, proc.returncode, stdout, stderr)


def test_problems_lens_and_hover_in_code_server(code_server, tmp_path):
    run = run_driver(code_server, tmp_path)
    assert run.returncode == 0, f"screenshots and logs in {ARTIFACTS}\n{run.stderr[-6000:]}"
    report = json.loads(run.stdout)
    seen = report["seen"]
    # the texts as the workbench shows them: the server's diagnostic with its code, our lens, our hover
    assert "`thm:main` is conditional" in seen["problem"] and "colosseum/depends-on-open-obligation" in seen["problem"]
    assert "Solve obligation" in seen["lens"]
    assert "Expected number of resamplings" in seen["hover"] and "status: obligation" in seen["hover"]
    for name in ("1-problems.png", "2-lens.png", "3-hover.png"):
        assert (ARTIFACTS / name).stat().st_size > 0
    print("real-editor test steps:", ", ".join(f"{t['step']} {t['seconds']:.1f} s" for t in report["timings"]))


def test_the_driver_refuses_an_unknown_option():
    if shutil.which("node") is None:
        cannot_install("needs node on PATH to run the real-editor test's driver")
    run = _run(["node", str(DRIVER), "--code-server", "x", "--no-such-option", "1"], REPO, 60)
    assert run.returncode == 2 and "unknown option or missing value: --no-such-option" in run.stderr
