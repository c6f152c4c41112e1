"""Two protocol-level choices pygls leaves to the server.

- Positions are UTF-16 (what the engine computes, and what every client must support): a
  client that offers UTF-8 first (Neovim 0.11) is answered in UTF-16 instead of silently
  getting ranges that are off on every line with an accent.
- A request whose params do not fit its method gets an InvalidParams error, not silence.
- Open documents split lines where the protocol does (documents.py).
"""

from __future__ import annotations

import logging

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol, lsp_method

from colosseum_lsp.documents import LspLineWorkspace

log = logging.getLogger(__name__)


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
        try:
            return super().structure_message(data)
        except JsonRpcInvalidParams as exc:
            if isinstance(data, dict) and "id" in data and "method" in data:
                log.warning("invalid params for %s", data.get("method"))
                self._send_response(data["id"], error=exc.to_response_error())
                return None  # answered: nothing left to handle
            raise
