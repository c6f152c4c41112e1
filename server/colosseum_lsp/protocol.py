"""Protocol-level choices pygls leaves to the server.

- Positions are UTF-16 (what the engine computes, and what every client must support): a
  client that offers UTF-8 first (Neovim 0.11) is answered in UTF-16 instead of silently
  getting ranges that are off on every line with an accent.
- Every request gets an answer, as JSON-RPC 2.0 says: one whose params do not fit its method an
  InvalidParams error; one after `shutdown` InvalidRequest; a frame whose body is not JSON
  ParseError (id null); JSON that is no request, notification or response InvalidRequest (with
  the request's id when it has a usable one, else null). Notifications and responses are never
  answered.
- Open documents split lines where the protocol does (documents.py).
- An answer already in its JSON form (convert.JsonAnswer) is sent as it is.
"""

from __future__ import annotations

import logging

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from colosseum_lsp.convert import JsonAnswer
from colosseum_lsp.documents import LspLineWorkspace

log = logging.getLogger(__name__)

JSONRPC_VERSION = "2.0"


class _Answered:
    """What a message already answered with an error becomes: nothing is left to handle."""


ANSWERED = _Answered()


def _usable_id(value) -> bool:
    return value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def request_problem(data: dict) -> str | None:
    """Why a JSON-RPC object (one that names ``jsonrpc``) is no valid message, or None."""
    if data.get("jsonrpc") != JSONRPC_VERSION:
        return f"jsonrpc must be \"{JSONRPC_VERSION}\""
    if "method" in data:
        if not isinstance(data["method"], str):
            return "method must be a string"
        if "id" in data and not _usable_id(data["id"]):
            return "id must be a string, a number or null"
        return None
    if "id" in data and ("result" in data or "error" in data):
        return None  # a response: handled (or ignored) as one
    return "neither a request, a notification nor a response"


class ColosseumProtocol(LanguageServerProtocol):
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        general = params.capabilities.general
        if general is not None and general.position_encodings:
            general.position_encodings = [types.PositionEncodingKind.Utf16]
        result = yield from super().lsp_initialize(params)
        # pygls made its workspace above; no document is open before `initialized`, so the
        # workspace takes our document class from here on (same state, one method more)
        self.workspace.__class__ = LspLineWorkspace
        return result

    def structure_message(self, data):
        # called for every JSON object of a frame, innermost first: only those naming `jsonrpc`
        # are messages (params never do)
        if isinstance(data, dict) and "jsonrpc" in data:
            problem = request_problem(data)
            if problem is not None:
                self.answer_error(data.get("id") if _usable_id(data.get("id")) else None,
                                  JsonRpcInvalidRequest(f"Invalid Request: {problem}"))
                return ANSWERED
        try:
            return super().structure_message(data)
        except JsonRpcInvalidParams as exc:
            if isinstance(data, dict) and "id" in data and "method" in data:
                log.warning("invalid params for %s", data.get("method"))
                self.answer_error(data["id"], exc)
                return ANSWERED  # answered: nothing left to handle
            raise

    def handle_message(self, message):
        if message is ANSWERED:
            return
        if not hasattr(message, "jsonrpc"):  # JSON, but no object naming `jsonrpc`: [1, 2], "x", {}
            self.answer_error(None, JsonRpcInvalidRequest("Invalid Request: not a JSON-RPC 2.0 object"))
            return
        method = getattr(message, "method", None)
        if self._shutdown and method not in (None, types.EXIT) and hasattr(message, "id"):
            self.answer_error(message.id, JsonRpcInvalidRequest(f"Invalid Request: {method} after shutdown"))
            return
        super().handle_message(message)

    def _send_response(self, msg_id, result=None, error=None):
        if error is None and isinstance(result, JsonAnswer):  # already JSON: sent as it is
            self._result_types.pop(msg_id, None)
            self._send_data({"jsonrpc": JSONRPC_VERSION, "id": msg_id, "result": result})
            return
        super()._send_response(msg_id, result, error)

    def answer_error(self, msg_id, error) -> None:
        """An error response; ``msg_id`` None is sent as null, as JSON-RPC says for an unknown id."""
        self._send_data({"jsonrpc": JSONRPC_VERSION, "id": msg_id,
                         "error": {"code": error.code, "message": error.message}})


class ColosseumServer(LanguageServer):
    """pygls's server, with a frame whose body is not JSON answered by ParseError (id null)
    instead of an "Error in server" message: the I/O loop reports it here, before any protocol
    method sees it."""

    def report_server_error(self, error: Exception, source) -> None:
        if isinstance(error, ValueError):  # json.JSONDecodeError, UnicodeDecodeError: the body is unreadable
            log.warning("unreadable frame: %s", error)
            self.protocol.answer_error(None, JsonRpcParseError(f"Parse Error: {error}"))
            return
        super().report_server_error(error, source)
