"""What every model provider takes and returns."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Message:
    """One turn of the transcript: text, or Messages API content blocks (dicts: ``tool_use`` in
    the model's turn, ``tool_result`` in ours) once a tool-use loop has run a tool."""

    role: str  # "user" | "assistant"
    content: str | tuple[dict, ...]


def content_chars(content: str | tuple[dict, ...]) -> int:
    """The characters of a turn: its text, or its blocks as JSON."""
    import json

    return len(content) if isinstance(content, str) else len(json.dumps(list(content)))


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The model's call of a tool other than the answer: the ``tool_use`` block's id, the tool's
    name and its input."""

    id: str
    name: str
    input: dict


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool the model may call during a request (the probes' tool-use loop): its name, what it
    does, and the JSON schema of its input. A provider that can offer them says so with
``supports_tools`` (colosseum.models.tool_loop runs the loop)."""

    name: str
    description: str
    input_schema: dict


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One call. ``system`` is the long shared prefix (paper context, catalog): providers that
    can cache it do, since every leaf of a tree sends the same one. ``messages`` is the
    transcript so far: a tool-use loop continues it with ``continued``."""

    system: str
    messages: tuple[Message, ...]
    schema: dict | None = None  # JSON schema of the structured answer, or None for text
    max_tokens: int = 4096
    temperature: float = 1.0
    model: str | None = None  # None: the provider's configured model
    role: str = ""  # the prompt role (generator, refuter, ...), for logs and scripted doubles
    tools: tuple[Tool, ...] = ()  # tools the model may call besides giving its answer
    must_answer: bool = False  # with tools: this request must give the answer (the loop's last one)
    # extended thinking: tokens the model may think before it answers (0: none); billed as output
    thinking_tokens: int = 0

    def continued(self, *more: Message) -> "ModelRequest":
        """The same request with ``more`` appended to its transcript (the model's turn, a tool's
        result, the next question)."""
        return replace(self, messages=self.messages + tuple(more))


@dataclass(slots=True)
class Usage:
    """Tokens as billed: ``input_tokens`` are the uncached ones; cache reads and writes apart."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    calls: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens,
                     self.cache_read_tokens + other.cache_read_tokens,
                     self.cache_write_tokens + other.cache_write_tokens, self.calls + other.calls)


@dataclass(slots=True)
class ModelResponse:
    text: str
    data: dict | None  # the parsed, validated structured answer when a schema was given
    usage: Usage
    model: str
    stop_reason: str | None = None
    attempts: int = 1  # calls made for this response (retries and repairs included)
    cached: bool = False  # served from the on-disk response cache: no call made
    # a request with tools: the tools the model called instead of answering, and its whole turn as
    # content blocks (the transcript's next assistant message)
    tool_calls: tuple[ToolCall, ...] = ()
    blocks: tuple[dict, ...] = ()
    # a cached answer bills nothing (``usage`` is empty): what it was billed when it was first asked,
    # for the reports that price work at list price whether it was asked now or before (bench)
    first_usage: Usage | None = None
    # an answer from the response cache: what each of its tool calls returned when it first ran
    # (tool_use id -> the tool_result's text), so the loop replays them without running anything
    tool_results: dict = field(default_factory=dict)


@dataclass
class ProviderError(Exception):
    """A call that did not succeed, with what is known about why."""

    provider: str
    message: str
    status: int | None = None
    request_id: str | None = None
    retry_after: float | None = None
    retryable: bool = False
    attempts: int = 1
    details: dict = field(default_factory=dict)

    def __str__(self) -> str:
        status = f" (HTTP {self.status})" if self.status else ""
        request = f" [request {self.request_id}]" if self.request_id else ""
        return f"{self.provider}: {self.message}{status}{request} after {self.attempts} attempt(s)"


class ModelProvider(Protocol):
    """An interactive executor: one request in, one response out, now (``executor.py`` has the
    batch kind). A provider that can run ``ModelRequest.tools`` says so with ``supports_tools``."""

    name: str
    # whether count_tokens asks the API's own counter (False: an estimate, and reports say so)
    exact_token_counts: bool

    async def complete(self, request: ModelRequest) -> ModelResponse: ...

    async def count_tokens(self, request: ModelRequest) -> int:
        """The input tokens ``request`` would take (system, messages and the answer's schema),
        without running it."""
        ...


CHARS_PER_TOKEN_ESTIMATE = 4


def estimate_tokens(request: ModelRequest) -> int:
    """An ESTIMATE of a request's input tokens (one token per four characters of the system,
    the messages and the schema), for providers with no counter API: it is labelled as an
    estimate wherever it is reported."""
    import json

    chars = len(request.system) + sum(content_chars(m.content) for m in request.messages)
    if request.schema is not None:
        chars += len(json.dumps(request.schema))
    return chars // CHARS_PER_TOKEN_ESTIMATE + 1
