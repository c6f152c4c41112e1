"""A local server speaking the part of Anthropic's Messages API our provider uses: a test
double, reached through the real ``anthropic`` SDK via its base URL. It answers from a script
and records every request it received."""

from __future__ import annotations

import json
import threading
import time
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


def error(status: int, kind: str, message: str, retry_after: float | None = None) -> tuple[int, dict, dict]:
    headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
    return status, {"type": "error", "error": {"type": kind, "message": message}}, headers


class MessagesAPIDouble:
    """``script`` items are (status, body, headers), or ("sleep", seconds, item) to answer late."""

    def __init__(self, script: list, responder=None):
        self.script = list(script)
        self.responder = responder  # body -> (status, payload, headers), when the script is empty
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with double._lock:
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
                    status, payload, extra = item
                    data = json.dumps(payload).encode()
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("request-id", f"req_{len(double.requests)}")
                    for key, value in extra.items():
                        self.send_header(key, value)
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)
                finally:
                    with double._lock:
                        double.in_flight -= 1

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


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
