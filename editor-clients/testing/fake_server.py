"""A stand-in for `colosseum serve` (stdlib only) to test the editor clients (Neovim:
neovim/tests/commands_spec.lua, VS Code: vscode/test/smoke.js) without the real
server: it speaks just enough LSP over stdio.

- publishes one `colosseum/depends-on-open-obligation` diagnostic on every `\\cref{..}`/`\\ref{..}`
  of an opened document, and sends `colosseum/status` {"state": "ready", "obligations": n};
- offers a "Dependency graph" code lens (colosseum.showDependencyGraph [uri]) on each theorem;
- answers textDocument/definition with the `\\label{..}` of the label under the cursor (files
  under the root);
- answers workspace/executeCommand: `colosseum.showDependencyGraph` writes an HTML file and
  returns {"path": ...}; the others return {"message": ...}. Every request is appended as a JSON
  line to $FAKE_COLOSSEUM_LOG when set.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlparse

COMMANDS = [
    "colosseum.solveObligation",
    "colosseum.globalReview",
    "colosseum.showDependencyGraph",
    "colosseum.reindex",
    "colosseum.reviewClaim",
    "colosseum.exploreStrategies",
    "colosseum.checkLean",
    "colosseum.retractEntry",
]
REF = re.compile(r"\\(?:c|C)?ref\{([^{}]*)\}")
LABEL = re.compile(r"\\label\{([^{}]+)\}")

root: Path | None = None
documents: dict[str, str] = {}


def uri_to_path(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path))


def send(message: dict) -> None:
    body = json.dumps(message).encode("utf-8")
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def read() -> dict | None:
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    if length is None:
        return None
    return json.loads(sys.stdin.buffer.read(length))


def log(entry: dict) -> None:
    path = os.environ.get("FAKE_COLOSSEUM_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


def publish(uri: str, text: str) -> None:
    diagnostics = []
    for lineno, line in enumerate(text.splitlines()):
        for m in REF.finditer(line):
            diagnostics.append(
                {
                    "range": {
                        "start": {"line": lineno, "character": m.start()},
                        "end": {"line": lineno, "character": m.end()},
                    },
                    "severity": 2,
                    "code": "colosseum/depends-on-open-obligation",
                    "source": "colosseum",
                    "message": f"depends on `{m.group(1)}`, whose obligation is open",
                }
            )
    send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
          "params": {"uri": uri, "diagnostics": diagnostics}})
    send({"jsonrpc": "2.0", "method": "colosseum/status",
          "params": {"state": "ready", "obligations": len(diagnostics)}})


def word_at(line: str, character: int) -> str | None:
    for m in re.finditer(r"\{([^{}]*)\}", line):
        if m.start(1) <= character <= m.end(1):
            offset = m.start(1)
            for item in m.group(1).split(","):
                if offset <= character <= offset + len(item):
                    return item.strip()
                offset += len(item) + 1
    return None


def definition(params: dict):
    uri = params["textDocument"]["uri"]
    text = documents.get(uri) or uri_to_path(uri).read_text(encoding="utf-8")
    pos = params["position"]
    lines = text.splitlines()
    if pos["line"] >= len(lines):
        return None
    label = word_at(lines[pos["line"]], pos["character"])
    if not label:
        return None
    base = root or uri_to_path(uri).parent
    for path in sorted(base.rglob("*.tex")):
        for lineno, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines()):
            for m in LABEL.finditer(line):
                if m.group(1).strip() == label:
                    return [{
                        "uri": path.resolve().as_uri(),
                        "range": {"start": {"line": lineno, "character": m.start()},
                                  "end": {"line": lineno, "character": m.end()}},
                    }]
    return None


def code_lenses(params: dict) -> list[dict]:
    """A "Dependency graph" lens on every line that opens a theorem."""
    uri = params["textDocument"]["uri"]
    text = documents.get(uri, "")
    lenses = []
    for lineno, line in enumerate(text.splitlines()):
        if "\\begin{theorem}" in line:
            lenses.append({
                "range": {"start": {"line": lineno, "character": 0}, "end": {"line": lineno, "character": len(line)}},
                "command": {"title": "Dependency graph", "command": "colosseum.showDependencyGraph",
                            "arguments": [uri]},
            })
    return lenses


def execute(params: dict):
    command = params.get("command")
    if command == "colosseum.showDependencyGraph":
        fd, path = tempfile.mkstemp(prefix="colosseum-graph-", suffix=".html")
        with os.fdopen(fd, "w") as f:
            f.write("<!doctype html><title>graph</title><p>fake graph</p>\n")
        return {"path": path}
    return {"message": f"{command} done"}


def main() -> int:
    global root
    if sys.argv[1:]:
        # Like `colosseum serve`: extra arguments (e.g. a client's `--stdio`) are an error.
        print(f"fake_server.py: unrecognized arguments: {' '.join(sys.argv[1:])}", file=sys.stderr)
        return 2
    while True:
        msg = read()
        if msg is None:
            return 0
        method = msg.get("method")
        params = msg.get("params") or {}
        if "id" in msg and method is not None:
            log({"method": method, "params": params})
        result = None
        if method == "initialize":
            root_uri = params.get("rootUri")
            root = uri_to_path(root_uri) if root_uri else None
            result = {
                "capabilities": {
                    "textDocumentSync": 1,
                    "definitionProvider": True,
                    "codeLensProvider": {"resolveProvider": False},
                    "executeCommandProvider": {"commands": COMMANDS},
                },
                # a version only when a test asks for one (the version handshake)
                "serverInfo": ({"name": "fake-colosseum", "version": os.environ["FAKE_COLOSSEUM_VERSION"]}
                               if os.environ.get("FAKE_COLOSSEUM_VERSION") else {"name": "fake-colosseum"}),
            }
        elif method == "initialized":
            log({"method": method, "params": params})
        elif method == "workspace/didChangeConfiguration":
            log({"method": method, "params": params})
        elif method == "textDocument/didOpen":
            doc = params["textDocument"]
            documents[doc["uri"]] = doc["text"]
            log({"method": method, "params": {"uri": doc["uri"], "languageId": doc["languageId"]}})
            publish(doc["uri"], doc["text"])
        elif method == "textDocument/didChange":
            uri = params["textDocument"]["uri"]
            documents[uri] = params["contentChanges"][-1]["text"]
            publish(uri, documents[uri])
        elif method == "textDocument/definition":
            result = definition(params)
        elif method == "textDocument/codeLens":
            result = code_lenses(params)
        elif method == "workspace/executeCommand":
            result = execute(params)
        elif method == "exit":
            return 0
        if "id" in msg and method is not None:
            send({"jsonrpc": "2.0", "id": msg["id"], "result": result})


if __name__ == "__main__":
    sys.exit(main())
