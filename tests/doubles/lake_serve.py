#!/usr/bin/env python3
"""A test double of ``lake`` (NOT Lean): ``lake serve`` speaks the part of the Lean 4 language
server protocol that leanclient uses, with what each declaration, module and line "elaborates to"
given by a script, so that the real leanclient drives it unchanged.

Protocol, as Lean 4 (v4.15) speaks it: Content-Length framed JSON-RPC on stdin/stdout;
``initialize`` (answered with Lean's capabilities, including the semantic-token legend leanclient
reads), ``initialized``, ``textDocument/didOpen`` (with ``dependencyBuildMode``), ``didChange``,
``didClose`` (answered by an empty ``publishDiagnostics``, as Lean's watchdog clears a closed
file), ``textDocument/waitForDiagnostics`` (answered ``{}`` once the version's diagnostics are
out), ``textDocument/publishDiagnostics`` (``range``, ``fullRange``, ``severity``, ``message``,
``source: "Lean 4"``, ``version``) and ``$/lean/fileProgress`` (``processing`` ranges, kind 1
while elaborating, kind 2 on a fatal error, ``[]`` when done). Unknown requests get
MethodNotFound.

What a document elaborates to, from the script (JSON):

- ``declarations``: name -> ``{"module": M, "axioms": [...]}``; ``#print axioms NAME`` answers
  ``'NAME' depends on axioms: [...]`` (or ``does not depend on any axioms``) when M is the
  document's module or imported by it (transitively, through the project's files on disk), and
  the error ``unknown constant 'NAME'`` otherwise. The axioms are listed as Lean lists them
  (sorted by ``Name.lt``: fewer components first, so ``[propext, Classical.choice, Quot.sound]``)
  and a message longer than Lean's width of 120 is wrapped as Lean's formatter wraps a list.
  ``"no_answer": true``: Lean says nothing about it (as when elaboration stops short).
- ``lean_libs``: ``[{"name", "srcDir", "roots", "globs"}]`` (TOML glob strings), else read from
  ``lakefile.toml``; an import of a module no library has (and no core or ``external`` one)
  fails as Lake fails it: ``unknown module prefix`` or a missing ``.olean``.
- ``modules``: M -> ``{"errors": [{line, character, endLine?, endCharacter?, message, severity?}]}``
  (M does not build: a document importing it gets Lake's failed-build error on its header, range
  (0,0)-(1,0), and a fatal fileProgress; opening M's own file shows these errors),
  ``{"crash": true}`` (the whole server exits with code 1 when a document touching M is opened),
  ``{"worker_crash": true}`` (only that document's worker dies, as Lean's watchdog reports it: a
  fatal fileProgress, the pending ``waitForDiagnostics`` answered with the error
  ``workerCrashed``, later requests about it never answered; the server goes on;
  ``"on_wait"``: it dies once the document is waited for),
  ``{"hang": true}`` (the document is never finished), ``{"external": true}`` (a dependency's
  module, e.g. Mathlib).
- ``sorry`` in a declaration gives Lean's warning ``declaration uses 'sorry'`` on the
  declaration's name (on ``example`` for an example).
- ``rules``: ``[{"contains": text, "severity": 1-4, "message": ...}]``, a diagnostic on every
  line containing the text (inline snippets: an unknown lemma, a failed tactic ...).
- ``startup``: ``"ok"`` (default), ``"fail"`` (exits with code 1 before answering),
  ``"invalid_config"`` (as real `lake serve` does with a lakefile it cannot read: a warning on
  stderr, then plain `lean --server`, where every document's header fails with Lake's
  "Failed to configure the Lake workspace") or ``"hang"`` (never answers). ``startup_delay``:
  seconds before ``initialize`` is answered. ``orphan_child``: at start, a process that outlives
  its parent in the double's process group (as a build Lake started may), its pid logged.
- ``delay``: seconds spent on each document. ``log``: a file receiving every message read (one
  JSON object per line) and ``{"event": ...}`` lines.

``lake --version`` says it is this double, so no test mistakes it for a real toolchain.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from urllib.parse import unquote, urlparse

TOKEN_TYPES = ["keyword", "variable", "property", "function", "namespace", "type", "class", "enum", "interface",
               "struct", "typeParameter", "parameter", "enumMember", "event", "method", "macro", "modifier",
               "comment", "string", "number", "regexp", "operator", "decorator", "leanSorryLike"]
TOKEN_MODIFIERS = ["declaration", "definition", "readonly", "static", "deprecated", "abstract", "async",
                   "modification", "documentation", "defaultLibrary"]
CORE_PREFIXES = ("Init", "Lean", "Std", "Lake")
_IMPORT = re.compile(r"^\s*import\s+(.+)$")
_PRINT_AXIOMS = re.compile(r"^#print\s+axioms\s+(.+?)\s*$")
_DECLARATION = re.compile(r"^\s*(?:@\[[^\]]*\]\s*)*(?:(?:private|protected|noncomputable)\s+)*"
                          r"(theorem|lemma|def|example|instance|abbrev)\b\s*((?:«[^»]*»|[^\s:({\[«])*)")
_SORRY = re.compile(r"(?<![\w'])sorry(?![\w'])")
LEAN_WIDTH = 120  # Lean's formatter wraps at this width
WORKER_CRASHED = -32902  # Lean's ErrorCode.workerCrashed


def install(directory: Path, script: dict) -> Path:
    """Write ``script`` and an executable ``lake`` running this double under ``directory``;
    returns the folder to put first on PATH."""
    directory.mkdir(parents=True, exist_ok=True)
    bin_dir = directory / "bin"
    bin_dir.mkdir(exist_ok=True)
    script_path = directory / "lake-double-script.json"
    script_path.write_text(json.dumps(script), encoding="utf-8")
    lake = bin_dir / "lake"
    lake.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(Path(__file__).resolve()))} "
                    f"--script {shlex.quote(str(script_path))} \"$@\"\n", encoding="utf-8")
    lake.chmod(0o755)
    return bin_dir


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie does not); one reaped between the two questions is gone."""
    import psutil

    try:
        return psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def read_log(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    # the double may be appending: a last line without its newline is still being written
    lines = path.read_text(encoding="utf-8").split("\n")[:-1]
    return [json.loads(line) for line in lines if line.strip()]


def _range(line: int, character: int, end_line: int, end_character: int) -> dict:
    return {"start": {"line": line, "character": character}, "end": {"line": end_line, "character": end_character}}


def _diagnostic(rng: dict, severity: int, message: str) -> dict:
    return {"range": rng, "fullRange": rng, "severity": severity, "message": message, "source": "Lean 4"}


class DoubleServer:
    def __init__(self, script: dict, cwd: Path):
        self.script, self.cwd = script, cwd
        self.docs: dict[str, dict] = {}  # uri -> {"text", "version", "finished"}
        self.waiting: list[tuple[object, str, int]] = []  # (request id, uri, version)
        self._libraries: list[dict] | None = None
        self.stdin, self.stdout = sys.stdin.buffer, sys.stdout.buffer

    # ---- framing -----------------------------------------------------------------------------------
    def read(self) -> dict | None:
        headers = {}
        while True:
            line = self.stdin.readline()
            if not line:
                return None
            line = line.decode("ascii", "replace").rstrip("\r\n")
            if not line:
                break
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        body = self.stdin.read(int(headers["content-length"]))
        return json.loads(body)

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False).encode("utf-8")
        self.stdout.write(f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body)
        self.stdout.flush()

    def log(self, entry: dict) -> None:
        path = self.script.get("log")
        if path:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry) + "\n")

    # ---- the loop ----------------------------------------------------------------------------------
    def serve(self) -> int:
        startup = self.script.get("startup", "ok")
        self.log({"event": "start", "pid": os.getpid(), "argv": sys.argv[1:], "cwd": str(self.cwd)})
        if startup == "fail":
            sys.stderr.write("error: lakefile.toml:3:0: unexpected token (the double's scripted failure)\n")
            return 1
        if startup == "invalid_config":
            sys.stderr.write("error: lakefile.toml:3:0: unexpected token (the double's scripted failure)\n"
                             "warning: package configuration has errors, falling back to plain `lean --server`\n")
        if self.script.get("orphan_child"):
            self.start_orphan()
        while True:
            message = self.read()
            if message is None:
                return 0
            self.log(message)
            if startup == "hang":
                continue
            method, params = message.get("method"), message.get("params") or {}
            if "id" in message and method is None:
                continue  # a response to something we never ask
            if method == "initialize":
                time.sleep(float(self.script.get("startup_delay", 0)))
                self.send({"id": message["id"], "result": self.capabilities()})
            elif method == "shutdown":
                self.send({"id": message["id"], "result": None})
            elif method == "exit":
                return 0
            elif method == "textDocument/didOpen":
                doc = params["textDocument"]
                self.docs[doc["uri"]] = {"text": doc["text"], "version": doc.get("version", 0), "finished": -1}
                self.elaborate(doc["uri"])
            elif method == "textDocument/didChange":
                doc = self.docs.get(params["textDocument"]["uri"])
                if doc is not None:
                    for change in params.get("contentChanges", []):
                        doc["text"] = apply_change(doc["text"], change)
                    doc["version"] = params["textDocument"].get("version", doc["version"] + 1)
                    self.elaborate(params["textDocument"]["uri"])
            elif method == "textDocument/didClose":
                uri = params["textDocument"]["uri"]
                self.docs.pop(uri, None)
                self.send({"method": "textDocument/publishDiagnostics", "params": {"uri": uri, "diagnostics": []}})
            elif method == "textDocument/waitForDiagnostics":
                self.waiting.append((message["id"], params["uri"], params.get("version", 0)))
                doc = self.docs.get(params["uri"])
                if doc is not None and doc.get("crash_on_wait"):  # the worker dies while it is waited for
                    doc["crash_on_wait"] = False
                    self.worker_crash(params["uri"], doc)
                self.answer_waits()
            elif "id" in message:
                self.send({"id": message["id"], "error": {"code": -32601, "message": f"unknown method '{method}'"}})

    def capabilities(self) -> dict:
        return {"capabilities": {
            "textDocumentSync": {"openClose": True, "change": 2, "save": {"includeText": True}},
            "hoverProvider": True, "definitionProvider": True, "referencesProvider": True,
            "documentSymbolProvider": True, "completionProvider": {"triggerCharacters": ["."]},
            "semanticTokensProvider": {"legend": {"tokenTypes": TOKEN_TYPES, "tokenModifiers": TOKEN_MODIFIERS},
                                       "full": True, "range": True}},
            "serverInfo": {"name": "Lean 4 Server (colosseum test double)", "version": "0.2.0"}}

    def answer_waits(self) -> None:
        still = []
        for request_id, uri, version in self.waiting:
            doc = self.docs.get(uri)
            if doc is not None and doc.get("crashed"):
                if doc["crashed"] == "now":  # pending when the worker died: errored; later ones wait forever
                    self.send({"id": request_id, "error": {"code": WORKER_CRASHED, "message": (
                        f"Server process for {uri} crashed, likely due to a stack overflow or a bug.")}})
                else:
                    still.append((request_id, uri, version))
            elif doc is not None and doc["finished"] >= version:
                self.send({"id": request_id, "result": {}})
            elif doc is None:
                self.send({"id": request_id, "error": {"code": -32801, "message": f"document {uri} was closed"}})
            else:
                still.append((request_id, uri, version))
        self.waiting = still

    # ---- "elaboration" -----------------------------------------------------------------------------
    def libraries(self) -> list[dict]:
        """The lakefile's libraries (read once: Lake reads the lakefile when it starts)."""
        if self._libraries is None:
            self._libraries = self.read_libraries()
        return self._libraries

    def read_libraries(self) -> list[dict]:
        """The script's ``lean_libs``, else lakefile.toml's; a project whose libraries the double
        cannot tell has one library holding every file."""
        if "lean_libs" in self.script:
            return self.script["lean_libs"]
        try:
            data = tomllib.loads((self.cwd / "lakefile.toml").read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError):
            return [{"name": "", "srcDir": ".", "roots": [""], "globs": []}]
        package_src = data.get("srcDir", ".")
        return [{"name": lib["name"], "srcDir": str(Path(package_src) / lib.get("srcDir", ".")),
                 "roots": lib.get("roots", [lib["name"]]), "globs": lib.get("globs", [])}
                for lib in data.get("lean_lib", [])]

    @staticmethod
    def in_library(library: dict, module: str) -> bool:
        parts = module.split(".")
        for root in library.get("roots", [library["name"]]):
            if root == "" or parts[:len(root.split("."))] == root.split("."):
                return True
        for glob in library.get("globs", []):
            if glob.endswith((".+", ".*")):
                base = glob[:-2].split(".")
                if parts[:len(base)] == base and (len(parts) > len(base) or glob.endswith(".*")):
                    return True
            elif parts == glob.split("."):
                return True
        return False

    def find_module(self, module: str) -> Path | None:
        """The file Lake would build for an import: in a library that has the module."""
        for library in self.libraries():
            path = self.cwd / library.get("srcDir", ".") / (module.replace(".", "/") + ".lean")
            if self.in_library(library, module) and path.is_file():
                return path
        return None

    def module_of(self, uri: str) -> str | None:
        path = Path(unquote(urlparse(uri).path)).resolve()
        try:
            relative = path.relative_to(self.cwd.resolve())
        except ValueError:
            return None
        if relative.parts and relative.parts[0].startswith("."):
            return None  # a scratch file (.lake/...) is no module of the project
        for library in self.libraries():
            try:
                module = ".".join(path.relative_to((self.cwd / library.get("srcDir", ".")).resolve())
                                  .with_suffix("").parts)
            except ValueError:
                continue
            if self.in_library(library, module):
                return module
        return ".".join(relative.with_suffix("").parts)  # a file of no library: its errors are still its own

    def imports_of_text(self, text: str) -> list[str]:
        found = []
        for line in text.split("\n"):
            m = _IMPORT.match(line)
            if m:
                found += m.group(1).split("--")[0].split()
            elif line.strip() and not line.strip().startswith("--"):
                break
        return found

    def closure(self, modules: list[str]) -> set[str]:
        seen: set[str] = set()
        stack = list(modules)
        while stack and len(seen) < 10000:
            module = stack.pop()
            if module in seen:
                continue
            seen.add(module)
            path = self.find_module(module)
            if path is not None:
                stack += self.imports_of_text(path.read_text(encoding="utf-8"))
        return seen

    def known(self, module: str) -> bool:
        return (module.startswith(CORE_PREFIXES) or module in self.script.get("modules", {})
                or self.find_module(module) is not None)

    def progress(self, uri: str, version: int, kind: int | None, lines: int) -> None:
        processing = [] if kind is None else [{"range": _range(0, 0, lines, 0), "kind": kind}]
        self.send({"method": "$/lean/fileProgress",
                   "params": {"textDocument": {"uri": uri, "version": version}, "processing": processing}})

    def publish(self, uri: str, version: int, diagnostics: list[dict]) -> None:
        self.send({"method": "textDocument/publishDiagnostics",
                   "params": {"uri": uri, "version": version, "diagnostics": diagnostics}})

    def elaborate(self, uri: str) -> None:
        doc = self.docs[uri]
        text, version = doc["text"], doc["version"]
        lines = text.split("\n")
        own = self.module_of(uri)
        imports = self.imports_of_text(text)
        reach = self.closure(imports) | ({own} if own else set())
        modules = self.script.get("modules", {})
        self.progress(uri, version, 1, len(lines))
        if self.script.get("startup") == "invalid_config":
            self.header_error(uri, version, lines, (
                f"`lake setup-file {unquote(urlparse(uri).path)} {' '.join(imports)}` failed:\n\nstderr:\n"
                "error: lakefile.toml:3:0: unexpected token (the double's scripted failure)\n"
                "Failed to configure the Lake workspace. Please restart the server after fixing the error above."))
            return
        for module in sorted(reach):
            behaviour = modules.get(module, {})
            if behaviour.get("worker_crash") == "on_wait":
                doc["crash_on_wait"] = True
                return
            if behaviour.get("worker_crash"):
                self.worker_crash(uri, doc)
                return
            if behaviour.get("crash"):
                self.log({"event": "crash", "uri": uri, "module": module})
                sys.stdout.flush()
                os._exit(1)
            if behaviour.get("hang"):
                self.log({"event": "hang", "uri": uri, "module": module})
                return  # never finished: no diagnostics, waitForDiagnostics never answered
        time.sleep(float(self.script.get("delay", 0)))
        broken = sorted(m for m in self.closure(imports) if modules.get(m, {}).get("errors"))
        unknown = [m for m in imports if not self.known(m)]
        if broken or unknown:
            self.import_failure(uri, version, lines, broken, unknown)
            return
        found: list[dict] = []
        for error in modules.get(own, {}).get("errors", []) if own else []:
            rng = _range(error["line"], error.get("character", 0), error.get("endLine", error["line"]),
                         error.get("endCharacter", error.get("character", 0) + 1))
            found.append(_diagnostic(rng, error.get("severity", 1), error["message"]))
        declarations = self.script.get("declarations", {})
        found += self.sorry_warnings(lines)
        for n, line in enumerate(lines):
            m = _PRINT_AXIOMS.match(line.strip())
            if m:
                if not declarations.get(m.group(1), {}).get("no_answer"):
                    found.append(self.print_axioms(n, m.group(1), declarations, reach))
                continue
            for rule in self.script.get("rules", []):
                at = line.find(rule["contains"])
                if at >= 0:
                    rng = _range(n, utf16(line[:at]), n, utf16(line[:at + len(rule["contains"])]))
                    found.append(_diagnostic(rng, rule.get("severity", 1), rule["message"]))
        self.publish(uri, version, found)
        self.progress(uri, version, None, len(lines))
        doc["finished"] = version
        self.answer_waits()

    def worker_crash(self, uri: str, doc: dict) -> None:
        """Lean's watchdog when a file's worker dies: the file's progress is fatal, the requests
        waiting on it fail with workerCrashed; the ones that come later wait until the file is
        changed (never, here)."""
        self.log({"event": "worker_crash", "uri": uri})
        self.progress(uri, doc["version"], 2, len(doc["text"].split("\n")))
        doc["crashed"] = "now"
        self.answer_waits()
        doc["crashed"] = "later"

    def print_axioms(self, line: int, name: str, declarations: dict, reach: set[str]) -> dict:
        rng = _range(line, 0, line, len("#print"))
        decl = declarations.get(name)
        if decl is None or decl.get("module") not in reach:
            return _diagnostic(_range(line, 0, line, len("#print axioms ") + len(name)), 1, f"unknown constant '{name}'")
        axioms = sorted(decl.get("axioms", []), key=lambda a: (len(a.split(".")), a.split(".")))  # Name.lt
        if not axioms:
            return _diagnostic(rng, 3, f"'{name}' does not depend on any axioms")
        message = f"'{name}' depends on axioms: [{', '.join(axioms)}]"
        if len(message) > LEAN_WIDTH:  # the list's group breaks at every comma, indented by its bracket
            message = f"'{name}' depends on axioms: [" + ",\n ".join(axioms) + "]"
        return _diagnostic(rng, 3, message)

    def sorry_warnings(self, lines: list[str]) -> list[dict]:
        """Lean's warning for a declaration whose proof uses sorry: on its name, once."""
        found, warned, current = [], set(), None
        for n, line in enumerate(lines):
            m = _DECLARATION.match(line)
            if m:
                start = m.start(2) if m.group(2) else m.start(1)
                end = m.end(2) if m.group(2) else m.end(1)
                current = (n, utf16(line[:start]), utf16(line[:end]))
            code = line.split("--")[0]
            if current is not None and current not in warned and _SORRY.search(code):
                warned.add(current)
                found.append(_diagnostic(_range(current[0], current[1], current[0], current[2]), 2,
                                         "declaration uses 'sorry'"))
        return found

    def import_failure(self, uri: str, version: int, lines: list[str], broken: list[str], unknown: list[str]) -> None:
        path = unquote(urlparse(uri).path)
        if unknown:
            prefix = unknown[0].split(".")[0]
            if any(self.in_library(lib, prefix) for lib in self.libraries()):  # Lake built the library, not it
                message = (f"object file {self.cwd}/.lake/build/lib/lean/{unknown[0].replace('.', '/')}.olean of "
                           f"module {unknown[0]} does not exist")
            else:
                message = (f"unknown module prefix '{prefix}'\n\nNo directory '{prefix}' or file '{prefix}.olean' "
                           f"in the search path entries:\n{self.cwd}/.lake/build/lib/lean")
        else:
            log = []
            for module in broken:
                log.append(f"✖ [2/3] Building {module}")
                source = module.replace(".", "/") + ".lean"
                for error in self.script["modules"][module]["errors"]:
                    log.append(f"error: ././{source}:{error['line'] + 1}:{error.get('character', 0)}: {error['message']}")
                log.append("error: Lean exited with code 1")
            log += ["Some required builds logged failures:"] + [f"- {m}" for m in broken] + ["error: build failed"]
            for line in log[:2]:  # Lean shows the build's progress on line 0 while it runs
                self.publish(uri, version, [_diagnostic(_range(0, 0, 0, 0), 3, line)])
            message = f"`lake setup-file {path} {' '.join(broken)}` failed:\n\nstderr:\n" + "\n".join(log)
        self.header_error(uri, version, lines, message)

    def header_error(self, uri: str, version: int, lines: list[str], message: str) -> None:
        """The header does not build: Lean's error on it, range (0,0)-(1,0), and a fatal fileProgress."""
        self.publish(uri, version, [_diagnostic(_range(0, 0, 1, 0), 1, message)])
        self.progress(uri, version, 2, len(lines))
        self.docs[uri]["finished"] = version
        self.answer_waits()

    def start_orphan(self) -> None:
        """A process in this process group whose parent has exited (reparented: no child of ours)."""
        code = ("import subprocess, sys; "
                "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'], "
                "stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
                "print(p.pid)")
        middle = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                                stdin=subprocess.DEVNULL)
        self.log({"event": "child", "pid": int(middle.stdout.strip())})


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def apply_change(text: str, change: dict) -> str:
    if "range" not in change:
        return change["text"]
    lines = text.split("\n")

    def offset(pos: dict) -> int:
        line = min(pos["line"], len(lines))
        base = sum(len(x) + 1 for x in lines[:line])
        if line >= len(lines):
            return len(text)
        units, i = 0, 0
        for i, ch in enumerate(lines[line]):
            if units >= pos["character"]:
                return base + i
            units += 2 if ord(ch) > 0xFFFF else 1
        return base + len(lines[line])

    start, end = offset(change["range"]["start"]), offset(change["range"]["end"])
    return text[:start] + change["text"] + text[end:]


def main(argv: list[str]) -> int:
    script: dict = {}
    if argv[:1] == ["--script"]:
        script = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
        argv = argv[2:]
    if argv[:1] == ["--version"]:
        print("lake_serve test double (tests/doubles/lake_serve.py), not Lean")
        return 0
    if argv[:1] == ["serve"]:
        return DoubleServer(script, Path.cwd()).serve()
    if argv[:1] in (["build"], ["env"]) or argv[:3] == ["exe", "cache", "get"]:
        return 0
    sys.stderr.write(f"lake (test double): unsupported command {' '.join(argv)}\n")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
