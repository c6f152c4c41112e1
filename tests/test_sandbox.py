"""The probes' sandbox (colosseum.probe, issue 18): code a model wrote runs in bubblewrap under
limits, and hostile code is stopped by the limit it runs into while this process goes on.

Each hostile probe asserts which limit the record names; none asserts a wall-clock time (the wall
limit is a safety net here, far above what any of these takes)."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import replace

import pytest

from colosseum.probe import ProbeLimits, SandboxUnavailable, probe_limits, probe_trust, run_python, sandbox_problem
from colosseum.probe import runner, sandbox
from colosseum.settings import load_config

LIMITS = ProbeLimits(cpu_s=2, wall_s=300, memory_mb=512, output_bytes=100_000, processes=16)


def require_sandbox(what_cannot: str) -> None:
    """Fail under CI=true (.ci/run installs bubblewrap), else skip saying why, when bwrap cannot run."""
    problem = sandbox_problem()
    if problem is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"bubblewrap must run under CI=true (.ci/run installs it): {problem}")
        pytest.skip(f"bubblewrap cannot run here, so {what_cannot}: {problem}")


@pytest.fixture
def limits():
    require_sandbox("the sandbox cannot be tested")
    return LIMITS


def _still_works(limits):
    """The run goes on after a hostile probe: a fresh probe runs and answers."""
    result = run_python("print(6 * 7)", limits)
    assert (result.stdout, result.limit, result.exit_code) == ("42\n", "none", 0), result


# ---- what a probe is for --------------------------------------------------------------------------
def test_a_computation_returns_its_output(limits):
    if importlib.util.find_spec("numpy") and importlib.util.find_spec("sympy"):
        code = ("import numpy, sympy\nprint(int(numpy.arange(1, 31).sum()), sympy.factorint(360),\n"
                "      sympy.Rational(1, 3) + sympy.Rational(1, 6))")
        expected = "465 {2: 3, 3: 2, 5: 1} 1/2\n"
    else:  # numpy and sympy are the optional extra colosseum[probe]
        code = "from fractions import Fraction\nprint(sum(range(1, 31)), Fraction(1, 3) + Fraction(1, 6))"
        expected = "465 1/2\n"
    result = run_python(code, limits)
    assert (result.stdout, result.exit_code, result.limit, result.sandboxed) == (expected, 0, "none", True), result
    assert result.stderr_tail == "" and result.cpu_s >= 0


def test_a_handed_file_is_readable_and_nothing_else_of_the_project(limits, tmp_path):
    project = tmp_path / "paper"
    project.mkdir()
    (project / "cases.txt").write_text("3 5 7\n")
    (project / "cases.txt").chmod(0o600)  # readable by us alone: the probe reads a copy
    (project / "secret.tex").write_text("not for the probe\n")
    code = (f"import os\nprint(open('input/cases.txt').read().split())\n"
            f"print(os.path.exists({str(project / 'secret.tex')!r}), os.path.exists({str(project)!r}))\n"
            f"print(os.path.exists('/etc/hostname'), os.path.exists({os.path.expanduser('~')!r} + '/.bashrc'))\n"
            f"open('/etc/hostname').read()\n")
    result = run_python(code, limits, handed_files=[project / "cases.txt"])
    assert result.stdout == "['3', '5', '7']\nFalse False\nFalse False\n", result
    assert result.exit_code == 1 and "FileNotFoundError" in result.stderr_tail and result.limit == "none"


def test_only_the_temporary_folder_is_writable(limits, tmp_path):
    handed = tmp_path / "cases.txt"
    handed.write_text("1\n")
    code = ("import os\nopen('scratch.txt', 'w').write('ok')\nprint(open('scratch.txt').read())\n"
            "for path in ('/usr/x', '/x', 'input/cases.txt', '/probe/main.py'):\n"
            "    try:\n        open(path, 'a').write('x')\n        print('wrote', path)\n"
            "    except OSError as error:\n        print('refused', error.errno)\n")
    result = run_python(code, limits, handed_files=[handed])
    assert result.stdout.splitlines()[0] == "ok" and "wrote" not in result.stdout, result
    assert handed.read_text() == "1\n"


def test_the_environment_is_cleared(limits, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-not-for-probes")
    result = run_python("import os\nprint(sorted(k for k in os.environ if 'KEY' in k), os.getuid() != 0)", limits)
    assert result.stdout == "[] True\n", result
    # nor in any process of the sandbox: bwrap's own first process runs as the probe's user
    # (where a plain user runs bwrap), so the probe could read its environment
    code = ("import os\nfor pid in filter(str.isdigit, os.listdir('/proc')):\n    try:\n"
            "        print(b'sk-not-for-probes' in open(f'/proc/{pid}/environ', 'rb').read())\n"
            "    except OSError:\n        pass\n")
    assert "True" not in run_python(code, limits).stdout


# ---- hostile code ---------------------------------------------------------------------------------
def test_a_socket_cannot_reach_anything(limits):
    code = ("import socket\ntry:\n    socket.create_connection(('1.1.1.1', 80), timeout=5)\n    print('connected')\n"
            "except OSError as error:\n    print('refused', error.errno)\n")
    result = run_python(code, limits)
    assert result.stdout.startswith("refused") and result.limit == "none", result
    _still_works(limits)


def test_a_fork_bomb_is_stopped_by_the_process_limit(limits):
    result = run_python("import os\nwhile True:\n    os.fork()\n", limits)
    assert result.limit == "processes", result
    assert "process limit" in result.stderr_tail
    _still_works(limits)


def test_ten_gigabytes_are_refused_by_the_memory_limit(limits):
    result = run_python("block = bytearray(10 * 1024 ** 3)\nprint('allocated')\n", limits)
    assert (result.limit, result.stdout) == ("memory", ""), result
    if importlib.util.find_spec("numpy"):
        result = run_python("import numpy\nblock = numpy.ones(10 * 1024 ** 3 // 8)\nprint('allocated')\n", limits)
        assert (result.limit, result.stdout) == ("memory", ""), result
    _still_works(limits)


def test_an_endless_loop_is_stopped_by_the_cpu_limit(limits):
    result = run_python("print('started', flush=True)\nwhile True:\n    pass\n", limits)
    assert (result.limit, result.stdout) == ("cpu", "started\n"), result
    assert result.cpu_s >= limits.cpu_s * 0.9  # CPU seconds, not seconds on the clock
    _still_works(limits)


def test_a_flood_of_output_is_cut_at_the_output_limit(limits):
    result = run_python("import sys\nsys.stdout.write('x' * 100_000_000)\n", limits)
    assert result.limit == "output" and result.stdout_truncated and result.exit_code is None, result.limit
    assert result.stdout == "x" * limits.output_bytes
    _still_works(limits)


def test_the_wall_limit_kills_a_probe_that_sleeps(limits):
    # the probe blocks on a pipe nobody writes: no CPU, so only the wall limit can end it
    result = run_python("import os\nr, w = os.pipe()\nprint('waiting', flush=True)\nos.read(r, 1)\n",
                        replace(limits, wall_s=1))
    assert (result.limit, result.stdout, result.exit_code) == ("wall", "waiting\n", None), result
    _still_works(limits)


# ---- where bubblewrap cannot run ------------------------------------------------------------------
@pytest.fixture
def no_bwrap(monkeypatch):
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    sandbox.sandbox_problem.cache_clear()
    yield
    sandbox.sandbox_problem.cache_clear()


def test_without_bubblewrap_probes_are_off_and_say_why(no_bwrap):
    with pytest.raises(SandboxUnavailable, match="bubblewrap.*not installed.*allow_unsandboxed"):
        run_python("print(1)", LIMITS)


def test_running_unsandboxed_needs_the_setting_and_keeps_the_limits(no_bwrap):
    unsandboxed = replace(LIMITS, allow_unsandboxed=True)
    result = run_python("print(6 * 7)", unsandboxed)
    assert (result.stdout, result.sandboxed, result.limit) == ("42\n", False, "none"), result
    assert run_python("block = bytearray(10 * 1024 ** 3)\n", unsandboxed).limit == "memory"
    assert run_python("while True:\n    pass\n", unsandboxed).limit == "cpu"


def test_the_sandbox_is_checked_once(monkeypatch):
    sandbox.sandbox_problem.cache_clear()
    calls = []
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: calls.append(1))  # None: not installed
    assert sandbox.sandbox_problem() == sandbox.sandbox_problem() and len(calls) == 1
    sandbox.sandbox_problem.cache_clear()


# ---- settings and trust ---------------------------------------------------------------------------
def test_the_limits_come_from_the_probe_table(tmp_path):
    (tmp_path / "colosseum.toml").write_text("[probe]\ncpu_s = 3\nwall_s = 20\nmemory_mb = 768\n"
                                             "output_bytes = 5000\nmax_tool_calls = 4\nallow_unsandboxed = true\n")
    config = load_config(tmp_path)
    assert config.problems == []
    assert probe_limits(config) == ProbeLimits(cpu_s=3.0, wall_s=20.0, memory_mb=768, output_bytes=5000,
                                               allow_unsandboxed=True)
    assert probe_limits(load_config(tmp_path / "none")) == ProbeLimits()


def test_an_untrusted_folder_runs_no_probe(tmp_path):
    environ = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path)}
    refused = probe_trust(tmp_path, environ=environ)
    assert not refused and "no probe is run" in refused.reason and "--trust" in refused.reason
    assert probe_trust(tmp_path, flag=True, environ=environ)
    assert probe_trust(tmp_path, environ={**environ, "COLOSSEUM_TRUST": "1"})


def test_the_runner_reads_the_bootstraps_exit_codes():
    assert runner._limit_of(runner.MEMORY_EXIT, 0.1, LIMITS) == "memory"
    assert runner._limit_of(runner.PROCESSES_EXIT, 0.1, LIMITS) == "processes"
    assert runner._limit_of(-9, 0.1, LIMITS) == "none"  # killed by someone else, well under the CPU limit
    assert runner._limit_of(0, 5.0, LIMITS) == "none"


def test_an_unsandboxed_probe_leaves_no_process_holding_its_output(no_bwrap):
    # a child that outlives the probe and keeps stdout open: the run ends with the probe's main
    # process, not at the wall limit (inside the sandbox the pid namespace ends such a child)
    code = "import os, time\nif os.fork() == 0:\n    time.sleep(600)\nprint('parent done')\n"
    result = run_python(code, replace(LIMITS, allow_unsandboxed=True, wall_s=300))
    assert (result.stdout, result.limit, result.exit_code) == ("parent done\n", "none", 0), result


def test_a_sandboxed_probe_leaves_no_process_behind(limits):
    code = "import os, time\nif os.fork() == 0:\n    time.sleep(600)\nprint('parent done')\n"
    result = run_python(code, limits)
    assert (result.stdout, result.limit, result.exit_code) == ("parent done\n", "none", 0), result


def test_a_sandbox_that_cannot_start_the_probe_says_so(limits, monkeypatch):
    real = sandbox.sandbox_command

    def broken(code_file, handed, tmp_bytes):  # a bind of a path that does not exist
        args, uid = real(code_file, handed, tmp_bytes)
        return [*args, "--ro-bind", "/nonexistent-colosseum-path", "/x"], uid

    monkeypatch.setattr(runner, "sandbox_command", broken)
    result = run_python("print(1)", limits)
    assert (result.stdout, result.limit) == ("", "none") and result.exit_code not in (0, None), result
    assert "nonexistent-colosseum-path" in result.stderr_tail
