"""Bad input on the wire, end to end over stdio: malformed JSON-RPC spoken byte by byte, unknown
methods and notifications, positions past the end of a line or of the file."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound
from pytest_lsp import LanguageClient
from server_session import A_TEX, B_TEX, SERVER, _find, _open, _until
from server_session import client, project  # noqa: F401 - fixtures, requested by name


class RawServer:
    """The server on stdio, spoken to byte by byte."""

    def __init__(self, proc: asyncio.subprocess.Process):
        self.proc = proc
        self.messages: list[dict] = []
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls) -> RawServer:
        proc = await asyncio.create_subprocess_exec(*SERVER, stdin=asyncio.subprocess.PIPE,
                                                    stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.DEVNULL)
        return cls(proc)

    async def _read(self) -> None:
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = await out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                key, _, value = line.decode("ascii").partition(":")
                headers[key.strip().lower()] = value.strip()
            body = await out.readexactly(int(headers["content-length"]))
            self.messages.append(json.loads(body))

    def send_bytes(self, body: bytes, header: bytes | None = None) -> None:
        header = header if header is not None else b"Content-Length: %d\r\n\r\n" % len(body)
        self.proc.stdin.write(header + body)

    def send(self, message: dict) -> None:
        self.send_bytes(json.dumps(message).encode("utf-8"))

    async def response(self, id_, timeout: float = 15.0) -> dict:
        return await _until(lambda: next((m for m in self.messages if m.get("id") == id_ and "method" not in m),
                                         None), f"the response to request {id_!r}", timeout)

    async def close(self) -> int | None:
        with contextlib.suppress(Exception):
            self.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
            await self.response("bye", 5)
            self.send({"jsonrpc": "2.0", "method": "exit"})
        try:
            return await asyncio.wait_for(self.proc.wait(), 5)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
            return None
        finally:
            self.reader.cancel()


async def test_malformed_json_rpc(project: Path):
    server = await RawServer.start()
    try:
        a_uri = (project / "sections/a.tex").as_uri()
        # broken JSON, before anything else
        server.send_bytes(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {')
        server.send_bytes(b"\xff\xfe not even utf-8 \x80")
        # valid JSON, not JSON-RPC
        for junk in ([1, 2, 3], "hello", 42, None, {"hello": "world"}, {"jsonrpc": "2.0"},
                     {"jsonrpc": "2.0", "id": 2}, {"jsonrpc": "2.0", "id": 3, "method": 42},
                     {"jsonrpc": "2.0", "id": 4, "result": "a response to nothing"},
                     {"jsonrpc": "2.0", "id": 5, "error": {"code": 1, "message": "an error for nothing"}}):
            server.send(junk)
        server.send({"jsonrpc": "2.0", "id": 10, "method": "initialize", "params": {
            "processId": None, "rootUri": project.as_uri(), "capabilities": {},
            "workspaceFolders": [{"uri": project.as_uri(), "name": "paper"}]}})
        answer = await server.response(10)
        assert "result" in answer and "capabilities" in answer["result"], answer
        assert answer["result"]["capabilities"].get("hoverProvider"), answer
        server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

        # more junk once initialized, then a real request
        server.send_bytes(b'{"jsonrpc": "2.0", "id": 11, "method": "textDocument/hover", "params": ')
        server.send({"jsonrpc": "2.0", "id": 12, "method": "textDocument/hover", "params": {"textDocument": 7}})
        pos = _find(A_TEX.lstrip("\n"), "lem:alpha", "utf-16", after="Beta holds by \\cref{").start
        server.send({"jsonrpc": "2.0", "id": 13, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": a_uri}, "position": {"line": pos.line, "character": pos.character + 2}}})
        hover = await server.response(13)
        assert "error" not in hover, hover
        assert hover["result"] and "lem:alpha" in json.dumps(hover["result"]), hover

        # what arrived for the junk: only well-formed JSON-RPC messages, never a crash
        await asyncio.sleep(0.5)
        for message in server.messages:
            assert message.get("jsonrpc") == "2.0", message
            if "error" in message:
                assert isinstance(message["error"].get("code"), int), message
        assert server.proc.returncode is None
        bad = [m for m in server.messages if m.get("id") == 12 and "method" not in m]
    finally:
        code = await server.close()
    assert code == 0, f"the server exited with {code} after shutdown/exit"
    # every request is answered: the one whose params do not fit with InvalidParams (it came
    # before the hover, so its answer, if any, has arrived)
    assert bad, "no response to a hover request whose params do not fit (id 12)"
    assert bad[0].get("error", {}).get("code") == types.ErrorCodes.InvalidParams, bad


async def test_unknown_methods_and_positions_out_of_range(client: LanguageClient):
    uri = _open(client, "sections/b.tex")
    for method in ("colosseum/doesNotExist", "$/colosseum.unknownRequest", "textDocument/notAThing"):
        with pytest.raises(JsonRpcMethodNotFound):
            await asyncio.wait_for(client.protocol.send_request_async(method, {"x": 1}), 10)
    # an unknown notification is ignored ($/ ones in particular), and the server goes on
    client.protocol.notify("$/colosseum.unknownNotification", {"x": 1})
    client.protocol.notify("colosseum/unknownNotification", None)

    # positions past the end of a line and of the file: nothing, not an error
    doc = types.TextDocumentIdentifier(uri=uri)
    for pos in (types.Position(line=0, character=10_000), types.Position(line=10_000, character=0),
                types.Position(line=2**31 - 1, character=2**31 - 1)):
        assert await client.text_document_hover_async(types.HoverParams(text_document=doc, position=pos)) is None
        assert not await client.text_document_definition_async(types.DefinitionParams(
            text_document=doc, position=pos))
        items = await client.text_document_completion_async(types.CompletionParams(
            text_document=doc, position=pos))
        assert items is None or isinstance(items, (list, types.CompletionList))
        assert not await client.text_document_prepare_rename_async(types.PrepareRenameParams(
            text_document=doc, position=pos))

    locations = await client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=_find(B_TEX.lstrip("\n"), "lem:gamma", client.encoding, after="By \\ref{").start))
    assert locations and locations[0].uri == uri
