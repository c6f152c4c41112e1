"""Lean's language server through leanclient: one ``lake serve`` per check, started when the first
file is not in the cache, asked file by file with a time limit, and stopped for real when the
check is cancelled (its processes are killed, so a blocked wait returns at once).

leanclient is synchronous: everything here runs in the caller's thread (a worker thread in the
language server). ``CancelToken.cancel`` may be called from any other thread."""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import threading
import time
import types
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.core.extras import MissingExtra, import_extra, missing_extra_message
from colosseum.lean.project import SCRATCH_DIR, LeanProject
from colosseum.lean.results import first_line

log = logging.getLogger(__name__)
MAX_RESTARTS = 2  # a server that keeps dying is not restarted forever
CLOSE_TIMEOUT = 2.0


class LeanCheckCancelled(Exception):
    """The check was cancelled; nothing after the cancellation was recorded."""


class LeanServerFailed(Exception):
    """``lake serve`` could not be started or kept running (the message says what to do)."""


class CancelToken:
    def __init__(self):
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._process = None

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        self._event.set()
        with self._lock:
            process = self._process
        if process is not None:
            kill_tree(process)

    def attach(self, process) -> None:
        with self._lock:
            self._process = process
        if self._event.is_set():
            kill_tree(process)

    @property
    def process(self):
        with self._lock:
            return self._process

    def detach(self) -> None:
        with self._lock:
            self._process = None


_OWN_GROUPS: set[int] = set()  # pids of the `lake serve` processes started in a process group of their own
_starting = threading.local()  # set while this thread constructs a client: its Popen gets its own group


class _SubprocessInOwnGroup(types.ModuleType):
    """What leanclient sees as ``subprocess``: the real module, except that the ``lake serve``
    our client starts is the leader of a new process group (leanclient passes no options to
    Popen). Killing that group reaches every process it started, even one started after we
    looked, or one whose parent already exited."""

    def __getattr__(self, name):
        return getattr(subprocess, name)

    @staticmethod
    def Popen(*args, **kwargs):  # noqa: N802 - the name leanclient calls
        own = getattr(_starting, "active", False)
        if own:
            kwargs.setdefault("start_new_session", True)
        process = subprocess.Popen(*args, **kwargs)
        if own and kwargs.get("start_new_session"):
            _OWN_GROUPS.add(process.pid)
        return process


def kill_tree(process) -> None:
    """``lake serve`` and every process it started (the ``lean --server`` workers, the builds):
    its whole process group, then whatever descendants are outside it."""
    if process.pid in _OWN_GROUPS:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # the group is gone
    try:
        import psutil

        children = psutil.Process(process.pid).children(recursive=True)
    except Exception:  # gone already, or psutil missing: the group kill did it
        children = []
    for child in children:
        try:
            child.kill()
        except Exception:
            pass
    try:
        process.kill()
    except Exception:
        pass


@dataclass(slots=True)
class FileOutcome:
    """What Lean said about one file: ``status`` is ``done``, ``timed-out`` or ``crashed``."""

    status: str
    diagnostics: list[dict] = field(default_factory=list)  # LSP diagnostics as Lean sent them
    seconds: float = 0.0
    message: str = ""
    fatal: bool = False  # Lean reported a fatal error for the file (e.g. its imports): never cached


def _error_text(message) -> str:
    """The message of an error response as leanclient words it (``LSP Error: {'code': ..,
    'message': '...'}``), or the text itself."""
    text = str(message).strip()
    found = re.search(r"'message':\s*'((?:[^'\\]|\\.)*)'", text)
    return found.group(1) if found else text


def request_bound(method: str, timeout: float | None, time_limit: float) -> float:
    """How long to wait for the answer to one request: leanclient's own bound (120 s by default)
    within the time limit, except ``initialize``, which gets the whole time limit."""
    if method == "initialize" or timeout is None:
        return time_limit
    return min(timeout, time_limit)


MIN_LEANCLIENT = (0, 13)  # get_diagnostics with max_timeout and timed_out


def _client_class():
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("leanclient")
    except PackageNotFoundError:
        raise LeanServerFailed(missing_extra_message("lean")) from None
    numbers = tuple(int(part) for part in re.findall(r"\d+", found)[:2])
    if numbers < MIN_LEANCLIENT:
        raise LeanServerFailed(f"leanclient {found} is too old for the Lean check: `pip install 'leanclient>=0.13'`")
    try:
        import_extra("leanclient", "lean")  # installed but not importable: say which extra brings it
    except MissingExtra as exc:
        raise LeanServerFailed(exc.message) from exc
    from leanclient import LeanLSPClient, base_client

    if not isinstance(base_client.subprocess, _SubprocessInOwnGroup):
        base_client.subprocess = _SubprocessInOwnGroup("subprocess")

    class CancellableClient(LeanLSPClient):
        """leanclient's client, with its process handed to the cancel token as soon as it exists
        (before ``initialize`` is answered) and its request waits bounded by the time limit.
        ``initialize`` gets the whole time limit: `lake serve` answers it only once elan has
        installed the toolchain and Lake has read (and possibly fetched) the dependencies."""

        def __init__(self, project_path: str, token: CancelToken, time_limit: float):
            self._colosseum_token = token
            self._colosseum_limit = time_limit
            _starting.active = True
            try:
                super().__init__(project_path, max_opened_files=4, prevent_cache_get=True)
            finally:
                _starting.active = False

        def _send_request_sync(self, method, params, timeout=120.0):
            self._colosseum_token.attach(self.process)
            if self._colosseum_token.cancelled:
                raise LeanCheckCancelled()
            return super()._send_request_sync(method, params,
                                              timeout=request_bound(method, timeout, self._colosseum_limit))

    return CancellableClient


class LeanSession:
    """A ``lake serve`` for one Lean project, started on first use."""

    def __init__(self, project: LeanProject, time_limit: float, token: CancelToken):
        self.project, self.time_limit, self.token = project, time_limit, token
        self.client = None
        self.restarts = 0
        self.scratch_dir = project.root / SCRATCH_DIR
        self._written: list[Path] = []

    # ---- life cycle ------------------------------------------------------------------------------
    def _start(self) -> None:
        if self.token.cancelled:
            raise LeanCheckCancelled()
        cls = _client_class()
        started = time.monotonic()
        try:
            self.client = cls(str(self.project.root), self.token, self.time_limit)
        except LeanCheckCancelled:
            raise
        except Exception as exc:
            if self.token.cancelled:
                raise LeanCheckCancelled() from None
            process = self.token.process
            self.token.detach()
            code = None
            if process is not None:
                kill_tree(process)
                _OWN_GROUPS.discard(process.pid)
                try:
                    code = process.wait(timeout=CLOSE_TIMEOUT)
                except Exception:
                    code = None
            waited = time.monotonic() - started
            what = (f"exited with code {code}" if code not in (None, -9) else
                    f"did not answer within {waited:.0f} s" if isinstance(exc, TimeoutError) else f"failed ({exc})")
            raise LeanServerFailed(
                f"`lake serve` {what} while starting in {self.project.root}, so the Lean project cannot be "
                f"checked. Run `lake build` there to see why (a broken lakefile, a missing toolchain, or "
                f"dependencies that are not downloaded yet).") from None

    def close(self) -> None:
        self.close_client_only()
        for path in self._written:
            try:
                path.unlink()
            except OSError:
                pass
        self._written.clear()
        try:
            self.scratch_dir.rmdir()
        except OSError:
            pass  # not empty (another check is running) or not there

    def __enter__(self) -> "LeanSession":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _alive(self) -> bool:
        return self.client is not None and self.client.process.poll() is None

    # ---- checking --------------------------------------------------------------------------------
    def write_scratch(self, name: str, text: str) -> Path:
        """A file of our own inside the Lean project (``.lake/colosseum/``), removed on close."""
        self.scratch_dir.mkdir(parents=True, exist_ok=True)
        path = self.scratch_dir / f"{name}_{os.getpid()}.lean"  # two checks at once never share a file
        path.write_text(text, encoding="utf-8")
        self._written.append(path)
        return path

    def check(self, path: Path, label: str | None = None) -> FileOutcome:
        """Open ``path`` (a file of the Lean project) and wait for Lean's diagnostics of it, at
        most the time limit. Raises LeanCheckCancelled, or LeanServerFailed when the server
        cannot be (re)started."""
        if self.client is None:
            self._start()
        relative = self.project.relative(path)
        label = label or relative
        started = time.monotonic()
        try:
            self.client.open_file(relative, dependency_build_mode="once", force_reopen=True)
            result = self.client.get_diagnostics(relative, inactivity_timeout=self.time_limit,
                                                 max_timeout=self.time_limit)
        except LeanCheckCancelled:
            raise
        except (OSError, EOFError, RuntimeError) as exc:  # the pipe broke: the server died
            if self.token.cancelled:
                raise LeanCheckCancelled() from None
            return self._crashed(label, started, str(exc))
        seconds = time.monotonic() - started
        if self.token.cancelled:
            raise LeanCheckCancelled()
        if not self._alive():
            return self._crashed(label, started, "")
        fatal = self._fatal(relative)
        if result.timed_out:
            self._close_file(relative)  # stops that file's worker
            return FileOutcome("timed-out", [], seconds,
                               f"Lean did not finish {label} within the time limit of {self.time_limit:g} s "
                               "([lean] time_limit in colosseum.toml)")
        self._close_file(relative)
        diagnostics = [d for d in result.diagnostics if isinstance(d, dict)]
        # leanclient hands over what is no diagnostic of the file (no range) when the request
        # failed (Lean's watchdog errors the pending requests of a worker that crashed) or when
        # Lean said "fatal" and nothing else: the worker of this file died, the server did not
        unplaced = [d for d in diagnostics if "range" not in d]
        placed = [d for d in diagnostics if "range" in d]
        if unplaced or (fatal and not any(d.get("severity", 1) == 1 for d in placed)):
            detail = "; ".join(_error_text(d.get("message")) for d in unplaced if d.get("message")) or \
                "Lean reported a fatal error without a message"
            return FileOutcome("crashed", [], seconds, f"Lean's worker for {label} crashed: {first_line(detail)}",
                               fatal=True)
        return FileOutcome("done", placed, seconds, fatal=fatal)

    def _fatal(self, relative: str) -> bool:
        """Whether Lean's last ``$/lean/fileProgress`` for the file said "fatal error"."""
        try:
            with self.client._opened_files_lock:
                state = self.client.opened_files.get(relative)
                return bool(state is not None and state.fatal_error)
        except Exception:  # another leanclient's bookkeeping: then only the diagnostics tell
            return False

    def _close_file(self, relative: str) -> None:
        try:
            self.client.close_files([relative], blocking=False)
        except Exception:
            pass

    def _crashed(self, label: str, started: float, detail: str) -> FileOutcome:
        code = None
        if self.client is not None:
            try:
                code = self.client.process.wait(timeout=CLOSE_TIMEOUT)
            except Exception:
                code = None
        try:
            self.close_client_only()
        finally:
            self.restarts += 1
        message = (f"`lake serve` stopped while checking {label}"
                   + (f" (exit code {code})" if code is not None else "") + (f": {detail}" if detail else ""))
        if self.restarts > MAX_RESTARTS:
            raise LeanServerFailed(message + f"; it stopped {self.restarts} times, so the remaining files "
                                             "are left unchecked")
        return FileOutcome("crashed", [], time.monotonic() - started, message)

    def close_client_only(self) -> None:
        client, self.client = self.client, None
        if client is not None and client.process.poll() is None and not self.token.cancelled:
            try:  # LSP's orderly end: what was sent before is handled, Lean stops its workers itself
                client._send_request_sync("shutdown", None, timeout=CLOSE_TIMEOUT)
                client._send_notification("exit", None)
            except Exception:
                log.debug("lake serve did not shut down in order", exc_info=True)
        self.token.detach()
        if client is not None:
            try:
                client.close(timeout=CLOSE_TIMEOUT)
            except Exception:
                log.debug("closing lake serve failed", exc_info=True)
            kill_tree(client.process)  # what leanclient's close leaves: processes started late, orphans
            _OWN_GROUPS.discard(client.process.pid)
