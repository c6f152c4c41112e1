"""A local server speaking the part of Anthropic's Messages API our provider uses: a test
double, reached through the real ``anthropic`` SDK via its base URL. It answers from a script
and records every request it received.

``POST /v1/messages`` answers from the script; ``POST /v1/messages/count_tokens`` answers
``{"input_tokens": N}`` as the API does, refusing (400 invalid_request_error) a body without
``model`` or ``messages`` or with a field the counter does not take (``max_tokens`` ...). N is
``token_counter(body)``: by default one token per four characters of the system, the messages and
the tools, unless ``count_script`` holds a scripted reply (an error, say) for the next count. Count
requests are recorded apart, in ``count_requests``.

A request with ``"stream": true`` (the SDK's ``messages.stream``) gets its scripted message as
server-sent events, as the API sends them: ``message_start``, a ``ping``, per content block
``content_block_start``, ``content_block_delta`` (``text_delta`` or ``input_json_delta`` in two
pieces) and ``content_block_stop``, then ``message_delta`` and ``message_stop``. An error status
is answered before any event, as JSON (the API does the same); ``stream_error`` answers 200 and
then an ``error`` event mid-stream; ``stall`` sends the stream's first events and then nothing
until its ``threading.Event`` is set (the double sets every one when it closes).

The Message Batches endpoints, with the API's shapes (``anthropic.types.messages``): ``POST
/v1/messages/batches`` (create: ``{"requests": [{"custom_id", "params"}]}``), ``GET
/v1/messages/batches`` (list), ``GET .../{id}`` (retrieve: ``processing_status`` ``in_progress``,
``canceling`` or ``ended``, ``request_counts``, ``results_url`` once ended), ``POST .../{id}/cancel``
and ``GET .../{id}/results`` (JSONL: one ``{"custom_id", "result"}`` per request, in reverse order
since the API promises none). A batch stays ``in_progress`` for ``batch_polls`` retrievals, then
ends; each item's fate is ``item_fate(custom_id, params)``: ``"succeeded"`` (the default; the
message is what the script or responder answers for ``params``, and an error status there makes
the item ``errored``), ``"errored"``, ``"canceled"`` or ``"expired"``. A cancelled batch reads
``canceling`` once and then ends with every item ``canceled``; ``batch_poll_failures`` retrievals
are answered 529 first; an unknown batch id is a 404 ``not_found_error``. Creates are recorded in
``batch_creates``; their items are not in ``requests`` (no interactive call was made)."""

from __future__ import annotations

import json
import re
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def tool_answer(data: dict, *, input_tokens: int = 100, output_tokens: int = 20, cache_read: int = 0,
                cache_write: int = 0) -> tuple[int, dict, dict]:
    return 200, {
        "id": "msg_double", "type": "message", "role": "assistant", "model": "claude-double",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "answer", "input": data}],
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens,
                  "cache_read_input_tokens": cache_read, "cache_creation_input_tokens": cache_write},
    }, {}


def text_answer(text: str) -> tuple[int, dict, dict]:
    return 200, {
        "id": "msg_double", "type": "message", "role": "assistant", "model": "claude-double",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }, {}


def stream_error(kind: str = "overloaded_error", message: str = "Overloaded") -> tuple:
    """A 200 stream that breaks off with an ``error`` event after ``message_start``."""
    return ("stream_error", kind, message)


def stall(item: tuple, released: threading.Event) -> tuple:
    """``item``'s stream up to its first content block, then silence until ``released`` is set."""
    return ("stall", item, released)


def sse(event: str, data) -> bytes:
    text = data.decode() if isinstance(data, bytes) else json.dumps({"type": event, **data})
    return f"event: {event}\ndata: {text}\n\n".encode()


def stream_events(message: dict) -> tuple[list[bytes], list[bytes]]:
    """(the events up to and with the first content block's start, the rest): the API's order."""
    usage = dict(message.get("usage") or {})
    output_tokens = usage.pop("output_tokens", 0)
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None,
             "usage": {**usage, "output_tokens": 1}}
    head = [sse("message_start", {"message": start}), sse("ping", {})]
    tail: list[bytes] = []
    for index, block in enumerate(message.get("content", [])):
        if block.get("type") == "tool_use":
            empty, text = {**block, "input": {}}, json.dumps(block.get("input", {}))
            half = len(text) // 2
            deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in (text[:half], text[half:])]
        else:
            empty, deltas = {**block, "text": ""}, [{"type": "text_delta", "text": block.get("text", "")}]
        (head if index == 0 else tail).append(sse("content_block_start", {"index": index, "content_block": empty}))
        tail.extend(sse("content_block_delta", {"index": index, "delta": delta}) for delta in deltas)
        tail.append(sse("content_block_stop", {"index": index}))
    tail.append(sse("message_delta", {"delta": {"stop_reason": message.get("stop_reason"),
                                                "stop_sequence": message.get("stop_sequence")},
                                      "usage": {"output_tokens": output_tokens}}))
    tail.append(sse("message_stop", {}))
    return head, tail


COUNT_FIELDS = frozenset(("model", "messages", "system", "tools", "tool_choice", "thinking", "mcp_servers",
                          "context_management", "output_config", "output_format", "cache_control", "speed"))


def characters_over_four(body: dict) -> int:
    """The double's tokenizer: one token per four characters (not the API's: a double's rule)."""
    system = body.get("system", "")
    if isinstance(system, list):
        system = "".join(block.get("text", "") for block in system if isinstance(block, dict))
    chars = len(system)
    if body.get("tools"):
        chars += len(json.dumps(body["tools"]))
    for message in body.get("messages", []):
        content = message.get("content", "")
        chars += len(content if isinstance(content, str) else json.dumps(content))
    return chars // 4 + 1


def count_reply(body: dict, counter) -> tuple[int, dict, dict]:
    missing = [f for f in ("model", "messages") if f not in body]
    if missing:
        return error(400, "invalid_request_error", f"{missing[0]}: Field required")
    extra = sorted(set(body) - COUNT_FIELDS)
    if extra:
        return error(400, "invalid_request_error", f"{extra[0]}: Extra inputs are not permitted")
    return 200, {"input_tokens": int(counter(body))}, {}


def error(status: int, kind: str, message: str, retry_after: float | None = None) -> tuple[int, dict, dict]:
    headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
    return status, {"type": "error", "error": {"type": kind, "message": message}}, headers


class MessagesAPIDouble:
    """``script`` items are (status, body, headers), or ("sleep", seconds, item) to answer late;
    a body given as bytes is sent verbatim (in a stream: as the data of ``message_start``);
    ``stream_error(...)`` and ``stall(item, event)`` for streamed requests."""

    def __init__(self, script: list, responder=None, token_counter=characters_over_four):
        self.script = list(script)
        self.responder = responder  # body -> (status, payload, headers), when the script is empty
        self.token_counter = token_counter  # body -> input tokens, for /v1/messages/count_tokens
        self.count_script: list = []  # replies for the next count requests, before the counter
        self.count_requests: list[dict] = []
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.batch_polls = 0  # retrievals a new batch answers in_progress before it ends
        self.item_fate = lambda custom_id, params: "succeeded"
        self.batch_creates: list[dict] = []
        self.batch_poll_failures = 0  # retrievals answered 529 overloaded before the next one is served
        self.batches: dict[str, dict] = {}
        self._lock = threading.Lock()
        self._stalls: list[threading.Event] = []
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if "/messages/batches" in self.path:
                    self._answer(double.batch_post(self.path.split("?")[0], body))
                    return
                with double._lock:
                    if self.path.split("?")[0].rstrip("/").endswith("/messages/count_tokens"):
                        double.count_requests.append(body)
                        item = (double.count_script.pop(0) if double.count_script
                                else count_reply(body, double.token_counter))
                    else:
                        double.requests.append(body)
                        double.headers.append(dict(self.headers))
                        if double.script:
                            item = double.script.pop(0)
                        elif double.responder is not None:
                            item = double.responder(body)
                        else:
                            item = error(500, "api_error", "script exhausted")
                    double.in_flight += 1
                    double.max_in_flight = max(double.max_in_flight, double.in_flight)
                try:
                    if item[0] == "sleep":
                        time.sleep(item[1])
                        item = item[2]
                    if body.get("stream") and item[0] in (200, "stall", "stream_error"):
                        self._stream(item)
                    else:
                        self._answer(item)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)
                finally:
                    with double._lock:
                        double.in_flight -= 1

            def do_GET(self):
                item = double.batch_get(self.path.split("?")[0])
                if isinstance(item[1], bytes) and item[0] == 200:  # the results file: JSON lines
                    self._head(200, "application/binary", {})
                    self.send_header("content-length", str(len(item[1])))
                    self.end_headers()
                    self.wfile.write(item[1])
                    return
                self._answer(item)

            def _answer(self, item):
                status, payload, extra = item
                # bytes are sent as they are: a body cut off mid-JSON (a fault test)
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self._head(status, "application/json", extra)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _head(self, status: int, content_type: str, extra: dict):
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("request-id", f"req_{len(double.requests)}")
                for key, value in extra.items():
                    self.send_header(key, value)

            def _stream(self, item):
                """Server-sent events; the body ends when the connection closes (HTTP/1.0)."""
                self._head(200, "text/event-stream", {"cache-control": "no-cache"})
                self.end_headers()
                if item[0] == "stream_error":
                    start = {"id": "msg_double", "type": "message", "role": "assistant", "model": "claude-double",
                             "content": [], "stop_reason": None, "stop_sequence": None,
                             "usage": {"input_tokens": 10, "output_tokens": 1}}
                    self.wfile.write(sse("message_start", {"message": start}) + sse("error", {
                        "error": {"type": item[1], "message": item[2]}}))
                    return
                released = None
                if item[0] == "stall":
                    item, released = item[1], item[2]
                payload = item[1]
                if isinstance(payload, bytes):  # cut off: the first event's JSON breaks off
                    self.wfile.write(sse("message_start", payload))
                    return
                head, tail = stream_events(payload)
                if released is None:  # the whole stream in one write: no gap a tiny idle limit could see
                    self.wfile.write(b"".join(head + tail))
                    return
                self.wfile.write(b"".join(head))
                self.wfile.flush()
                with double._lock:
                    double._stalls.append(released)
                released.wait()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    # ---- the Message Batches API -----------------------------------------------------------------
    def batch_post(self, path: str, body: dict) -> tuple[int, dict, dict]:
        with self._lock:
            if path.rstrip("/").endswith("/messages/batches"):
                return self._create_batch(body)
            found = re.search(r"/messages/batches/([^/]+)/cancel$", path)
            batch = self.batches.get(found.group(1)) if found else None
            if batch is None:
                return error(404, "not_found_error", f"no batch at {path}")
            if batch["status"] == "in_progress":
                batch["status"], batch["cancel_initiated_at"] = "canceling", _now()
            return 200, self._batch_json(batch), {}

    def batch_get(self, path: str) -> tuple[int, object, dict]:
        with self._lock:
            if path.rstrip("/").endswith("/messages/batches"):
                data = [self._batch_json(b) for b in reversed(self.batches.values())]
                return 200, {"data": data, "has_more": False, "first_id": data[0]["id"] if data else None,
                             "last_id": data[-1]["id"] if data else None}, {}
            found = re.search(r"/messages/batches/([^/]+)(/results)?$", path)
            batch = self.batches.get(found.group(1)) if found else None
            if batch is None:
                return error(404, "not_found_error", f"no batch at {path}")
            if found.group(2):
                if batch["status"] != "ended":
                    return error(400, "invalid_request_error", "the batch has not ended")
                lines = [json.dumps({"custom_id": cid, "result": result})
                         for cid, result in reversed(list(batch["results"].items()))]
                return 200, ("\n".join(lines) + "\n").encode(), {}
            if self.batch_poll_failures > 0:
                self.batch_poll_failures -= 1
                return error(529, "overloaded_error", "Overloaded")
            self._advance(batch)
            return 200, self._batch_json(batch), {}

    def _create_batch(self, body: dict) -> tuple[int, dict, dict]:
        items = body.get("requests")
        if not isinstance(items, list) or not items:
            return error(400, "invalid_request_error", "requests: Field required")
        ids = [item.get("custom_id") for item in items]
        if len(set(ids)) != len(ids) or not all(isinstance(i, str) and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", i)
                                                for i in ids):
            return error(400, "invalid_request_error", "custom_id must be unique and match ^[a-zA-Z0-9_-]{1,64}$")
        self.batch_creates.append(body)
        batch_id = f"msgbatch_double{len(self.batch_creates):04d}"
        self.batches[batch_id] = {"id": batch_id, "items": items, "status": "in_progress",
                                  "polls_left": self.batch_polls, "created_at": _now(), "ended_at": None,
                                  "cancel_initiated_at": None, "results": {}}
        return 200, self._batch_json(self.batches[batch_id]), {}

    def _advance(self, batch: dict) -> None:
        """One retrieval: a batch in progress comes closer to its end; a cancelled one ends."""
        if batch["status"] == "ended":
            return
        if batch["status"] == "in_progress" and batch["polls_left"] > 0:
            batch["polls_left"] -= 1
            return
        cancelled = batch["status"] == "canceling"
        for item in batch["items"]:
            fate = "canceled" if cancelled else self.item_fate(item["custom_id"], item["params"])
            batch["results"][item["custom_id"]] = self._item_result(fate, item["params"])
        batch["status"], batch["ended_at"] = "ended", _now()

    def _item_result(self, fate: str, params: dict) -> dict:
        if fate == "succeeded":
            item = self.script.pop(0) if self.script else self.responder(params) if self.responder else \
                error(500, "api_error", "script exhausted")
            if item[0] == 200:
                return {"type": "succeeded", "message": item[1]}
            return {"type": "errored", "error": item[1]}
        if fate == "errored":
            return {"type": "errored", "error": {"type": "error", "error": {"type": "invalid_request_error",
                                                                            "message": "scripted item error"}}}
        return {"type": fate}

    def _batch_json(self, batch: dict) -> dict:
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if batch["status"] == "ended":
            for result in batch["results"].values():
                counts[result["type"]] += 1
        else:
            counts["processing"] = len(batch["items"])
        ended = batch["status"] == "ended"
        return {"id": batch["id"], "type": "message_batch", "processing_status": batch["status"],
                "request_counts": counts, "created_at": batch["created_at"], "expires_at": batch["created_at"],
                "ended_at": batch["ended_at"], "cancel_initiated_at": batch["cancel_initiated_at"],
                "archived_at": None,
                "results_url": f"{self.url}/v1/messages/batches/{batch['id']}/results" if ended else None}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        for released in self._stalls:
            released.set()
        self.server.shutdown()
        self.server.server_close()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class ChatCompletionsDouble(MessagesAPIDouble):
    """The same server for the OpenAI chat-completions API: script items are built with
    ``chat_answer``/``error``."""


def chat_answer(content: str, *, prompt_tokens: int = 50, completion_tokens: int = 10, cached: int = 0):
    return 200, {
        "id": "chatcmpl-double", "object": "chat.completion", "model": "local-double",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "prompt_tokens_details": {"cached_tokens": cached}},
    }, {}
