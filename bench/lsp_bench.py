"""Language-server benchmark: the real ``colosseum serve`` over stdio, timed from the client side.

    python bench/run.py --only lsp          # the four lsp-* rows in the suite's table
    python bench/lsp_bench.py [run.py options]   # the same (delegates to run.py --only lsp)

The harness (this process) is the LSP client. It speaks JSON-RPC with Content-Length framing by
hand over the pipes of an asyncio subprocess, so nothing but the server's own work and the pipe
sits between a message being written and the answer being read. Wall-clock times are taken with
``time.perf_counter()`` just before a message is written to the server's stdin and as soon as the
whole body of the answer has been read from its stdout (before the client parses the JSON).

Session, on a synthetic project of 50,000 lines in 200 files with 5,000 labels whose
``chapters/ch100.tex`` has 10,000 lines (``synthetic.write_project(..., big_file_lines=10_000)``):

1. Cold start: the server process is started, ``initialize`` with that project directory as the
   only workspace folder, ``initialized``, ``textDocument/didOpen`` of the 10,000-line file, until
   its first ``publishDiagnostics``: timed from starting the process (interpreter, imports, the
   index: what the author waits for when opening the paper) and from ``initialize``. lsp_rows.py
   compares it with a cold ``colosseum check`` of the same project in the same run.
2. Memory: VmRSS (and VmHWM, the peak) of the server process from ``/proc/PID/status``.
3. Edits, queued (bench/lsp_typing.py): N edits from ``synthetic.EditSequence(project,
   "chapters/ch100.tex", seed=7)``, each one incremental ``didChange`` sent as soon as the
   findings of the one before arrived (never waiting for the server's ``ready``), timed to the
   ``publishDiagnostics`` of that version; every 50th and the last checked against the
   generator's model (the file's undefined references exactly, the project's count).
4. Bursts (lsp_typing.py): 40 keystrokes 30 ms apart, timed from the last to the findings of the
   last version; a completion request goes out as ``\\cref{`` is typed, while the server indexes.
5. Completion inside ``\\cref{`` (nothing typed: the whole list, bounded; four characters typed)
   and ``textDocument/definition`` on N different references, one request at a time. Checked:
   items are project labels, at most 100, the list marked incomplete when nothing was typed, the
   first item starts with what was typed; the definition points at the line with that ``\\label``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

import synthetic
import synthetic_edits

UNDEFINED_CODE = "colosseum/undefined-reference"


class LspError(RuntimeError):
    pass


def proc_memory_mib(pid: int) -> dict:
    """VmRSS (now) and VmHWM (peak) of a process, in MiB, from /proc/PID/status."""
    out = {}
    with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024  # kB
    return out


def proc_cpu_s(pid: int) -> float:
    """User + system CPU time of a process (all its threads) so far, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------------------------
# a minimal JSON-RPC / LSP client over the pipes of a subprocess


class Client:
    def __init__(self, proc: asyncio.subprocess.Process):
        self.proc = proc
        self.next_id = 0
        self.pending: dict[int, asyncio.Future] = {}
        self.diag_waiters: dict[tuple[str, int], asyncio.Future] = {}
        self.first_diag_waiters: dict[str, asyncio.Future] = {}
        self.since_waiters: list[tuple[str, int, asyncio.Future]] = []  # (uri, least version, future)
        self.publications: dict[str, int] = {}  # uri -> publishDiagnostics received
        self.status_waiters: list[asyncio.Future] = []
        self.diagnostics: dict[str, tuple[int | None, list, float]] = {}  # uri -> (version, diags, t)
        self.last_message = time.perf_counter()
        self.server_requests: list[str] = []
        self.closed: LspError | None = None
        self.reader = asyncio.get_running_loop().create_task(self._read_loop())

    def _future(self) -> asyncio.Future:
        if self.closed is not None:
            raise self.closed
        return asyncio.get_running_loop().create_future()

    def _write(self, msg: dict) -> float:
        body = json.dumps(msg, separators=(",", ":")).encode("utf-8")
        data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        t = time.perf_counter()
        self.proc.stdin.write(data)
        return t

    async def notify(self, method: str, params) -> float:
        t = self._write({"jsonrpc": "2.0", "method": method, "params": params})
        await self.proc.stdin.drain()
        return t

    async def request(self, method: str, params, timeout: float = 60.0):
        """(result, seconds from write to the answer's last byte)."""
        self.next_id += 1
        rid = self.next_id
        fut = self._future()
        self.pending[rid] = fut
        t0 = self._write({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        await self.proc.stdin.drain()
        msg, t1 = await asyncio.wait_for(fut, timeout)
        if "error" in msg:
            raise LspError(f"{method}: {msg['error']}")
        return msg.get("result"), t1 - t0

    def wait_diagnostics(self, uri: str, version: int) -> asyncio.Future:
        fut = self._future()
        self.diag_waiters[(uri, version)] = fut
        return fut

    def wait_diagnostics_since(self, uri: str, version: int) -> asyncio.Future:
        """The first publication for ``uri`` of ``version`` or a newer one (a server may skip the
        findings of a text already superseded)."""
        fut = self._future()
        self.since_waiters.append((uri, version, fut))
        return fut

    def wait_first_diagnostics(self, uri: str) -> asyncio.Future:
        fut = self._future()
        self.first_diag_waiters[uri] = fut
        return fut

    def wait_status(self) -> asyncio.Future:
        fut = self._future()
        self.status_waiters.append(fut)
        return fut

    async def quiet(self, seconds: float, limit: float = 60.0) -> None:
        """Wait until the server has sent nothing for `seconds`."""
        end = time.perf_counter() + limit
        while time.perf_counter() < end:
            idle = time.perf_counter() - self.last_message
            if idle >= seconds:
                return
            await asyncio.sleep(seconds - idle)
        raise LspError(f"the server never went quiet for {seconds} s")

    async def _read_loop(self) -> None:
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = await out.readline()
                    if not line:
                        raise EOFError
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                if length is None:
                    raise LspError("message without Content-Length")
                body = await out.readexactly(length)
                t = time.perf_counter()
                self.last_message = t
                self._dispatch(json.loads(body), t)
        except (EOFError, asyncio.IncompleteReadError):
            try:
                await asyncio.wait_for(self.proc.wait(), 5)
            except TimeoutError:
                pass
            err = self.closed = LspError(f"the server closed its output (exit status {self.proc.returncode})")
            for fut in list(self.pending.values()) + list(self.diag_waiters.values()) + \
                    list(self.first_diag_waiters.values()) + self.status_waiters + \
                    [fut for (_, _, fut) in self.since_waiters]:
                if not fut.done():
                    fut.set_exception(err)

    def _dispatch(self, msg: dict, t: float) -> None:
        method = msg.get("method")
        if method is not None and "id" in msg:  # a request from the server: accept it
            self.server_requests.append(method)
            self._write({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            return
        if method is None:  # an answer
            fut = self.pending.pop(msg.get("id"), None)
            if fut is not None and not fut.done():
                fut.set_result((msg, t))
            return
        params = msg.get("params") or {}
        if method == "textDocument/publishDiagnostics":
            uri, version = params["uri"], params.get("version")
            self.diagnostics[uri] = (version, params["diagnostics"], t)
            self.publications[uri] = self.publications.get(uri, 0) + 1
            if version is not None:
                remaining = []
                for waiter in self.since_waiters:
                    if waiter[0] == uri and waiter[1] <= version:
                        if not waiter[2].done():
                            waiter[2].set_result((params, t))
                    else:
                        remaining.append(waiter)
                self.since_waiters = remaining
            fut = self.diag_waiters.pop((uri, version), None)
            if fut is not None and not fut.done():
                fut.set_result((params, t))
            fut = self.first_diag_waiters.pop(uri, None)
            if fut is not None and not fut.done():
                fut.set_result((params, t))
        elif method == "colosseum/status" and params.get("state") == "ready":
            waiters, self.status_waiters = self.status_waiters, []
            for fut in waiters:
                if not fut.done():
                    fut.set_result((params, t))


# ---------------------------------------------------------------------------------------------
# what a correct server answers, from the generator's own model of the text


def _lines(text: str) -> list[str]:
    return text.split("\n")


def expected_undefined_here(rel: str, text: str, other: synthetic.Model) -> list[tuple[int, str]]:
    here = synthetic.analyze({rel: text})
    defined = set(other.labels) | set(here.labels)
    return sorted((line, name) for (_, line, _, name) in here.references if name not in defined)


def undefined_in(diags: list, lines: list[str]) -> list[tuple[int, str]]:
    out = []
    for d in diags:
        if d.get("code") != UNDEFINED_CODE:
            continue
        r = d["range"]
        line = r["start"]["line"]
        text = lines[line] if line < len(lines) else ""
        out.append((line, text[r["start"]["character"]: r["end"]["character"]]))
    return sorted(out)


def spread(items: list, n: int) -> list:
    """n items evenly spaced over the list (repeating when it is shorter)."""
    if not items:
        return []
    if len(items) >= n:
        return [items[(k * len(items)) // n] for k in range(n)]
    return [items[k % len(items)] for k in range(n)]


def completion_positions(lines: list[str], n: int) -> list[tuple[int, int]]:
    code = synthetic_edits.code_lines(lines)
    spots = []
    for i, line in enumerate(lines):
        if not code[i]:
            continue
        cut = re.search(r"(?<!\\)%", line)
        for m in re.finditer(r"\\cref\{", line[: cut.start()] if cut else line):
            spots.append((i, m.end()))
    return spread(spots, n)


def definition_targets(rel: str, text: str, labels: set[str], n: int) -> list[tuple[int, int, str]]:
    """(line, character in the middle of the label name, label) of references to defined labels."""
    lines = _lines(text)
    spots = []
    for (_, line, _, name) in synthetic.analyze({rel: text}).references:
        if name not in labels:
            continue
        m = re.search(r"[{,]\s*(" + re.escape(name) + r")\s*[},]", lines[line])
        if m:
            spots.append((line, (m.start(1) + m.end(1)) // 2, name))
    return spread(spots, n)


# ---------------------------------------------------------------------------------------------
# the session


# what the client offers, as VS Code does for the parts that matter here
CLIENT_CAPABILITIES = {
    "textDocument": {
        "synchronization": {"dynamicRegistration": False, "didSave": True},
        "publishDiagnostics": {"versionSupport": True, "relatedInformation": True,
                               "codeDescriptionSupport": True},
        "completion": {"completionItem": {"snippetSupport": True, "insertReplaceSupport": True,
                                          "documentationFormat": ["markdown", "plaintext"]},
                       "completionList": {"itemDefaults": ["commitCharacters", "editRange", "insertTextFormat",
                                                           "insertTextMode", "data"]}},
        "definition": {"linkSupport": False},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
    },
    # as VS Code does: the server registers its file watchers with the client (and gets
    # none here, as nothing changes on disk) instead of starting its own watchdog observer
    "workspace": {"workspaceFolders": True, "configuration": False,
                  "didChangeWatchedFiles": {"dynamicRegistration": True}},
    "general": {"positionEncodings": ["utf-16"]},
}


@dataclass
class Session:
    """One running server session: the client, the server process, the edited file, the results so far."""

    project: synthetic.SyntheticProject
    root: Path
    rel: str  # the edited file, relative to root
    uri: str
    client: Client
    proc: asyncio.subprocess.Process
    res: dict
    version: int = 0  # of the edited document, as last sent
    spawned_at: float = 0.0  # perf_counter() before the server process was started


async def _session(project: synthetic.SyntheticProject, root: Path, n_edits: int, n_requests: int,
                   cmd: list[str], env: dict, stderr_path: Path, seed: int, n_bursts: int) -> dict:
    import lsp_typing

    root = root.resolve()
    rel = project.big_file
    uri = (root / rel).as_uri()
    res: dict = {"command": cmd, "project": str(root), "file": rel,
                 "edit_seed": seed, "transport": "stdio, JSON-RPC framed by hand (asyncio subprocess pipes)"}
    spawned_at = time.perf_counter()
    with open(stderr_path, "wb") as err:
        proc = await asyncio.create_subprocess_exec(*cmd, cwd=str(root), env=env, stdin=asyncio.subprocess.PIPE,
                                                    stdout=asyncio.subprocess.PIPE, stderr=err, limit=1 << 24)
    res["pid"] = proc.pid
    client = Client(proc)
    session = Session(project, root, rel, uri, client, proc, res, spawned_at=spawned_at)
    try:
        await _open_big_file(session)  # 1.
        res["memory_after_open_mib"] = proc_memory_mib(proc.pid)  # 2. memory after opening the project
        seq, other = await lsp_typing.time_queued_edits(session, n_edits, seed)  # 3.
        await client.quiet(0.3)
        text = seq.text()
        labels = sorted(set(other.labels) | set(synthetic.analyze({rel: text}).labels))
        text = await lsp_typing.time_bursts(session, text, labels, other, n_bursts)  # 4.
        # 5. completion inside \cref{ and definition on references
        all_labels = set(other.labels) | set(synthetic.analyze({rel: text}).labels)
        await lsp_typing.time_completions(session, _lines(text), all_labels, n_requests)
        await _time_definitions(session, {**seq.texts, rel: text}, text, all_labels, n_requests)
        res["memory_at_end_mib"] = proc_memory_mib(proc.pid)
        res["server_requests"] = sorted(set(client.server_requests))
        await _shut_down(session)
        return res
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        client.reader.cancel()


async def _open_big_file(s: Session) -> None:
    """Step 1: initialize, open the big file; the time from starting the process (and from
    initialize) to its first diagnostics; then wait for quiet."""
    client, root = s.client, s.root
    t_init = time.perf_counter()
    await client.request("initialize", {
        "processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": CLIENT_CAPABILITIES,
        "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
        "clientInfo": {"name": "colosseum-bench"}}, timeout=120)
    await client.notify("initialized", {})
    first = client.wait_first_diagnostics(s.uri)
    await client.notify("textDocument/didOpen", {"textDocument": {
        "uri": s.uri, "languageId": "latex", "version": 0, "text": s.project.texts[s.rel]}})
    _, t_first = await asyncio.wait_for(first, 120)
    s.res["open_to_first_diagnostics_s"] = t_first - t_init
    s.res["cold_start_s"] = t_first - s.spawned_at  # the whole process: interpreter, imports, index
    await client.quiet(1.0)  # the didOpen re-index and its publication are over


def _label_lines(root: Path, texts: dict[str, str]) -> dict[str, set[tuple[Path, int]]]:
    """label -> every (file, line) with its \\label."""
    label_lines: dict[str, set[tuple[Path, int]]] = {}
    for r, t in texts.items():
        for i, ln in enumerate(_lines(t)):
            for m in re.finditer(r"\\label\{([^}]*)\}", ln):
                label_lines.setdefault(m.group(1), set()).add(((root / r).resolve(), i))
    return label_lines


async def _time_definitions(s: Session, texts: dict[str, str], text: str, all_labels: set[str],
                            n_requests: int) -> None:
    """Step 4b: definition on references, one request at a time; each must point at the line of its \\label."""
    label_lines = _label_lines(s.root, dict(texts))
    defs, def_bad = [], []
    for (line, ch, name) in definition_targets(s.rel, text, all_labels, n_requests):
        result, dt = await s.client.request("textDocument/definition", {
            "textDocument": {"uri": s.uri}, "position": {"line": line, "character": ch}})
        defs.append(dt)
        locs = result if isinstance(result, list) else ([result] if result else [])
        found = set()
        for loc in locs:
            target = loc.get("uri") or loc.get("targetUri")
            rng = loc.get("range") or loc.get("targetSelectionRange")
            if target and target.startswith("file://"):
                found.add((Path(target[7:]).resolve(), rng["start"]["line"]))
        if not found or not found <= label_lines.get(name, set()):
            def_bad.append({"line": line, "character": ch, "label": name,
                            "got": sorted((str(p), n) for p, n in found)})
    s.res["definition_s"] = defs
    s.res["definition_mismatches"] = def_bad


async def _shut_down(s: Session) -> None:
    """Shut the server down politely; a server that does not answer is killed by the caller."""
    try:
        await s.client.request("shutdown", None, timeout=10)
        await s.client.notify("exit", None)
        await asyncio.wait_for(s.proc.wait(), 10)
    except (TimeoutError, LspError, ConnectionError):
        pass


def measure(project: synthetic.SyntheticProject, root: Path, *, n_edits: int = 1000, n_requests: int = 100,
            n_bursts: int = 20, python: str = sys.executable, env: dict | None = None,
            stderr_path: Path | None = None, seed: int = 7) -> dict:
    """Run one server session on the project written at `root` (its texts must be project.texts)."""
    cmd = [python, "-m", "colosseum", "serve"]
    stderr_path = stderr_path or Path(root).parent / "lsp-server.stderr"
    try:
        return asyncio.run(_session(project, Path(root), n_edits, n_requests, cmd, env or dict(os.environ),
                                    stderr_path, seed, n_bursts))
    except Exception as exc:
        tail = ""
        try:
            tail = stderr_path.read_text(encoding="utf-8", errors="replace")[-3000:]
        except OSError:
            pass
        raise LspError(f"{type(exc).__name__}: {exc}" + (f"\nserver stderr:\n{tail}" if tail.strip() else "")) from exc


if __name__ == "__main__":
    import run

    sys.exit(run.main(["--only", "lsp"] + sys.argv[1:]))
