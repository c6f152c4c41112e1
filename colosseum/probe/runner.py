"""Run a probe's Python: in the sandbox (colosseum.probe.sandbox), under its limits, with its output
read up to a cap, and say which limit stopped it."""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from colosseum.probe.bootstrap import MEMORY_EXIT, PROCESSES_EXIT
from colosseum.probe.limits import ProbeLimits
from colosseum.probe.sandbox import INSIDE_CODE, BASE_ENV, SandboxUnavailable, sandbox_command, sandbox_problem

BOOTSTRAP = (Path(__file__).resolve().parent / "bootstrap.py").read_text(encoding="utf-8")
STDERR_TAIL_BYTES = 4000
CHUNK = 65536


@dataclass(frozen=True, slots=True)
class ExecutionResult:
    """What one run of a probe gave. ``limit`` is the limit that stopped it (cpu, wall, memory,
    output, processes) or "none"; ``exit_code`` is negative for a signal, None when we killed it."""

    stdout: str
    stderr_tail: str
    exit_code: int | None
    cpu_s: float
    wall_s: float
    limit: str
    sandboxed: bool
    stdout_truncated: bool = False


@dataclass(slots=True)
class _Output:
    """stdout up to the cap, the last bytes of stderr, and whether the cap was passed."""

    cap: int
    stdout: bytearray
    stderr: bytearray
    total: int = 0
    over: bool = False

    def add(self, is_stdout: bool, data: bytes) -> None:
        self.total += len(data)
        if is_stdout:
            self.stdout += data[:max(0, self.cap - len(self.stdout))]
        else:
            self.stderr += data
            del self.stderr[:-STDERR_TAIL_BYTES]
        self.over = self.over or self.total > self.cap


def run_python(code: str, limits: ProbeLimits, handed_files=()) -> ExecutionResult:
    """Run ``code`` with its handed files readable as ``input/NAME`` (relative to its working
    folder). Raises SandboxUnavailable when bubblewrap cannot run and the limits do not allow
    running without it."""
    problem = sandbox_problem()
    if problem is not None and not limits.allow_unsandboxed:
        raise SandboxUnavailable(problem)
    with tempfile.TemporaryDirectory(prefix="colosseum-probe-") as folder:
        code_file = Path(folder) / "main.py"
        code_file.write_text(code, encoding="utf-8")
        handed = _copy_handed(handed_files, Path(folder) / "work" / "input")
        memory = limits.memory_mb * 1024 * 1024
        if problem is None:
            prefix, uid = sandbox_command(code_file, handed, memory)
            # bwrap itself gets no environment of ours either: its first process stays in the
            # sandbox as the probe's user, whose /proc/1/environ the probe could otherwise read
            command, cwd, env = [*prefix, sys.executable, "-I", "-c", BOOTSTRAP], "/", {"PATH": BASE_ENV["PATH"]}
            args, path = [limits.processes, uid], INSIDE_CODE
        else:  # [probe] allow_unsandboxed: the rlimits alone (no process limit: it would count all of ours)
            work = str(Path(folder) / "work")
            command, cwd, env = [sys.executable, "-I", "-c", BOOTSTRAP], work, dict(BASE_ENV, HOME=work)
            args, path = [0, -1], str(code_file)
        command += [str(max(1, round(limits.cpu_s))), str(memory), *map(str, args)]
        return _run(command, path, cwd, env, limits, sandboxed=problem is None)


def _copy_handed(handed_files, folder: Path) -> dict[str, Path]:
    """Copies of the handed files, readable by the sandbox's user whatever the originals' modes,
    and fixed: the project's file may change while the probe runs, its copy does not."""
    folder.mkdir(parents=True)
    copies = {}
    for source in map(Path, handed_files):
        copy = folder / source.name
        shutil.copyfile(source, copy)
        copy.chmod(0o444)
        copies[source.name] = copy
    return copies


def _run(command: list[str], code_path: str, cwd: str, env, limits: ProbeLimits, *,
         sandboxed: bool) -> ExecutionResult:
    """Start the bootstrap with the report pipe's number and the code's path as its last arguments."""
    started = time.monotonic()
    report_read, report_write = os.pipe()
    try:
        process = subprocess.Popen([*command, str(report_write), code_path], cwd=cwd, env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   start_new_session=True, pass_fds=(report_write,))
    except BaseException:
        os.close(report_read)
        raise
    finally:
        os.close(report_write)
    output = _Output(limits.output_bytes, bytearray(), bytearray())
    with os.fdopen(report_read, "rb") as report_pipe:
        killed, report = _collect(process, output, report_pipe, started + limits.wall_s)
    _kill_group(process.pid)  # whatever is left: a killed sandbox, or an unsandboxed probe's children
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    process.stdout.close()
    process.stderr.close()
    exit_code, cpu = _reported(report, process.returncode, usage.ru_utime + usage.ru_stime)
    limit = killed or _limit_of(exit_code, cpu, limits)
    return ExecutionResult(stdout=output.stdout.decode("utf-8", "replace"),
                           stderr_tail=output.stderr.decode("utf-8", "replace"),
                           exit_code=None if killed else exit_code, cpu_s=cpu,
                           wall_s=round(time.monotonic() - started, 3), limit=limit, sandboxed=sandboxed,
                           stdout_truncated=output.over)


def _reported(report: bytes, outer_exit: int, outer_cpu: float) -> tuple[int, float]:
    """The probe's exit code and CPU seconds from the bootstrap's report; without one (bwrap
    could not start it, or its supervisor was killed) bwrap's own."""
    try:
        status, cpu = report.decode("ascii").split()
        return os.waitstatus_to_exitcode(int(status)), round(float(cpu), 3)
    except (UnicodeDecodeError, ValueError):
        return outer_exit, round(outer_cpu, 3)


def _collect(process: subprocess.Popen, output: _Output, report_pipe, deadline: float) -> tuple[str | None, bytes]:
    """Read the pipes until they close: "output" or "wall" when the reading stopped for a limit,
    and the bootstrap's report (a line, read up to a bound)."""
    report = bytearray()
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, "stdout")
        selector.register(process.stderr, selectors.EVENT_READ, "stderr")
        selector.register(report_pipe, selectors.EVENT_READ, "report")
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return "wall", bytes(report)
            for key, _ in selector.select(timeout=left):
                data = os.read(key.fd, CHUNK)
                if not data:
                    selector.unregister(key.fileobj)
                    if key.data == "report":  # the probe's main process has ended: so do the ones it left,
                        _kill_group(process.pid)  # which would otherwise hold the pipes open until the wall limit
                elif key.data == "report":
                    report += data[:max(0, 200 - len(report))]
                else:
                    output.add(key.data == "stdout", data)
                    if output.over:
                        return "output", bytes(report)
    return None, bytes(report)


def _kill_group(pid: int) -> None:
    """Kill bwrap's process group (the sandbox's pid namespace ends with it; unsandboxed, the
    probe's processes that kept the group)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _limit_of(exit_code: int | None, cpu: float, limits: ProbeLimits) -> str:
    """Which limit an exit shows: SIGXCPU at the soft CPU limit or SIGKILL at the hard one; the
    bootstrap's own codes for memory and processes."""
    if exit_code is None:
        return "none"
    if exit_code == -signal.SIGXCPU or (exit_code == -signal.SIGKILL and cpu >= limits.cpu_s):
        return "cpu"
    if exit_code == MEMORY_EXIT:
        return "memory"
    if exit_code == PROCESSES_EXIT:
        return "processes"
    return "none"
