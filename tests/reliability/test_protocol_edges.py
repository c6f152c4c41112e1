"""JSON-RPC's edges over stdio against the real server, byte by byte: a request after `shutdown`
is answered with InvalidRequest; a frame whose body is not JSON with ParseError (id null); JSON that
is no request object with InvalidRequest. The server goes on serving after each."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from server_session import _until
from server_session import project  # noqa: F401 - a fixture, requested by name
from test_server_wire import RawServer

PARSE_ERROR, INVALID_REQUEST = types.ErrorCodes.ParseError, types.ErrorCodes.InvalidRequest


def initialize(server: RawServer, project: Path, id_=1) -> None:
    server.send({"jsonrpc": "2.0", "id": id_, "method": "initialize", "params": {
        "processId": None, "rootUri": project.as_uri(), "capabilities": {},
        "workspaceFolders": [{"uri": project.as_uri(), "name": "paper"}]}})


def errors(server: RawServer, code: int) -> list[dict]:
    return [m for m in server.messages if "method" not in m and m.get("error", {}).get("code") == code]


async def test_a_request_after_shutdown_is_answered_with_invalid_request(project: Path):
    server = await RawServer.start()
    try:
        initialize(server, project)
        assert "result" in await server.response(1)
        server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        server.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        assert (await server.response(2)).get("result", "missing") is None
        a_uri = (project / "sections/a.tex").as_uri()
        server.send({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": a_uri}, "position": {"line": 0, "character": 0}}})
        late = await server.response(3)
        server.send({"jsonrpc": "2.0", "method": "exit"})
        code = await server.close()
    finally:
        server.reader.cancel()
    assert late.get("error", {}).get("code") == INVALID_REQUEST, late
    assert code == 0


async def test_malformed_frames_get_parse_error_and_junk_gets_invalid_request(project: Path):
    server = await RawServer.start()
    try:
        server.send_bytes(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {')
        server.send_bytes(b"\xff\xfe not even utf-8 \x80")
        await _until(lambda: len(errors(server, PARSE_ERROR)) == 2 or None, "two ParseError replies")
        junk = [[1, 2, 3], "hello", 42, None, {"hello": "world"}, {"jsonrpc": "2.0"}, {"jsonrpc": "1.0", "method": "x"}]
        for message in junk:
            server.send(message)
        await _until(lambda: len(errors(server, INVALID_REQUEST)) == len(junk) or None, "InvalidRequest per junk")
        server.send({"jsonrpc": "2.0", "id": 7, "method": 42})
        bad_method = await server.response(7)
        # a response to nothing is no request: it gets no reply (JSON-RPC answers requests only)
        server.send({"jsonrpc": "2.0", "id": 8, "result": "a response to nothing"})
        initialize(server, project, 9)
        answer = await server.response(9)
    finally:
        code = await server.close()
    for reply in errors(server, PARSE_ERROR) + errors(server, INVALID_REQUEST)[:len(junk)]:
        assert reply["jsonrpc"] == "2.0" and "id" in reply and reply["id"] is None, reply
    assert bad_method["error"]["code"] == INVALID_REQUEST
    assert not [m for m in server.messages if m.get("id") == 8]
    assert "capabilities" in answer["result"]
    assert not [m for m in server.messages if m.get("method") == "window/showMessage"
                and "Error in server" in m["params"]["message"]]
    assert code == 0
