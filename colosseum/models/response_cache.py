"""A content-addressed on-disk cache of model answers (``core.paths.answer_cache_dir``, i.e.
``.colosseum/cache/``): re-running an unchanged step costs no call. The key is everything that
decides the answer: provider, model, system text, messages, schema, token limit and temperature
(and, for a request with tools, the tools and whether it must answer). Writes are atomic.

A tool-using role's turn is cached like any answer, with its tool calls and content blocks; the
results its tools gave are added to the same entry once they ran (``remember_tool_results``), so a
rerun replays them: the transcript, tool results included, is then the same, every later request of
the loop hits the cache too, and no tool runs again.

Each entry also records ``schema_version`` (its own format) and the prompt it answers: the role, the
prompt file's ``version`` and a fingerprint of its text. The key does not use them (a test pins the
key), but they tell which entries the current prompts can never ask for again (``stale``), which is
what ``colosseum cache stats|prune`` and the dry runs count."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from colosseum.core.atomic_files import write_atomically
from colosseum.core.schema_version import SCHEMA_VERSION
from colosseum.models.provider import ModelRequest, ModelResponse, ToolCall, Usage


def request_key(provider: str, model: str, request: ModelRequest) -> str:
    fields = {
        "provider": provider, "model": request.model or model, "system": request.system,
        "messages": [[m.role, m.content] for m in request.messages], "schema": request.schema,
        "max_tokens": request.max_tokens, "temperature": request.temperature,
    }
    if request.tools:  # only then: the keys of every request without tools stay what they were
        fields["tools"] = [[t.name, t.description, t.input_schema] for t in request.tools]
        fields["must_answer"] = request.must_answer
    if request.thinking_tokens:  # likewise
        fields["thinking_tokens"] = request.thinking_tokens
    material = json.dumps(fields, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class CachedProvider:
    """Wraps a provider; answers it has given before come from disk with zero calls."""

    def __init__(self, inner, directory: Path):
        self.inner = inner
        self.name = f"{inner.name} (cached)"
        self.directory = Path(directory)
        self.hits = 0
        self.misses = 0

    @property
    def supports_tools(self) -> bool:
        return bool(getattr(self.inner, "supports_tools", False))

    @property
    def exact_token_counts(self) -> bool:
        return bool(getattr(self.inner, "exact_token_counts", False))

    async def count_tokens(self, request: ModelRequest) -> int:
        """Passed through: a count costs no tokens, and the counter may change with the model."""
        return await self.inner.count_tokens(request)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def _key(self, request: ModelRequest) -> str:
        return request_key(self.inner.name, getattr(self.inner, "model", ""), request)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        path = self._path(self._key(request))
        cached = _read(path)
        if cached is not None and not _replayable(cached):
            cached = None  # a tool call whose results were never recorded: ask again, so its tools run
        if cached is not None:
            self.hits += 1
            return ModelResponse(cached["text"], cached["data"], Usage(), cached["model"], cached.get("stop_reason"),
                                 attempts=0, cached=True, first_usage=_usage_of(cached.get("usage")),
                                 tool_calls=_calls(cached), blocks=_blocks(cached),
                                 tool_results=dict(cached.get("tool_results") or {}))
        self.misses += 1
        response = await self.inner.complete(request)
        record = {"schema_version": SCHEMA_VERSION, **prompt_of(request.role),
                  "text": response.text, "data": response.data, "model": response.model,
                  "stop_reason": response.stop_reason, "usage": vars_of(response.usage)}
        if response.tool_calls:
            record["tool_calls"] = [{"id": c.id, "name": c.name, "input": c.input} for c in response.tool_calls]
        if response.blocks:
            record["blocks"] = list(response.blocks)
        write_atomically(path, json.dumps(record, ensure_ascii=False))
        return response

    def remember_tool_results(self, request: ModelRequest, results: dict[str, str]) -> None:
        """What the tools of ``request``'s answer gave (tool_use id -> text), added to its entry so a
        rerun replays them instead of running the tools again."""
        path = self._path(self._key(request))
        cached = _read(path)
        if cached is None:
            return
        cached["tool_results"] = {**(cached.get("tool_results") or {}), **results}
        write_atomically(path, json.dumps(cached, ensure_ascii=False))


def _calls(cached: dict) -> tuple[ToolCall, ...]:
    return tuple(ToolCall(str(c["id"]), str(c["name"]), dict(c.get("input") or {}))
                 for c in cached.get("tool_calls") or [])


def _blocks(cached: dict) -> tuple[dict, ...]:
    return tuple(cached.get("blocks") or ())


def _replayable(cached: dict) -> bool:
    """An entry can answer again unless it calls tools whose results it does not hold."""
    results = cached.get("tool_results") or {}
    return all(str(c.get("id")) in results for c in cached.get("tool_calls") or [])


def vars_of(usage: Usage) -> dict:
    return {f: getattr(usage, f) for f in ("input_tokens", "output_tokens", "cache_read_tokens",
                                           "cache_write_tokens", "calls")}


def _usage_of(recorded) -> Usage | None:
    """The usage an entry recorded (None for an entry without one, or a torn one)."""
    if not isinstance(recorded, dict):
        return None
    try:
        return Usage(**{name: int(recorded.get(name, 0)) for name in vars_of(Usage())})
    except (TypeError, ValueError):
        return None


def _read(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # absent, or torn by a crash in an older version: ask again
    return data if isinstance(data, dict) and "text" in data and "model" in data else None


# ---- what an entry was written for ---------------------------------------------------------------
def prompt_fingerprint(spec) -> str:
    """A short hash of everything of a prompt file that shapes a request: its version, output
    schema and templates. A changed prompt has another fingerprint, and its old answers are stale."""
    material = json.dumps([spec.version, spec.schema, spec.system_template, spec.user_template], sort_keys=True)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()[:16]


def prompt_of(role: str) -> dict:
    """The role, prompt version and fingerprint an entry records (role only when it has no prompt file)."""
    from colosseum.models.prompts import PromptError, load_prompt

    try:
        spec = load_prompt(role) if role else None
    except (PromptError, OSError, ValueError):
        spec = None
    if spec is None:
        return {"role": role or None, "prompt_version": None, "prompt_fingerprint": None}
    return {"role": role, "prompt_version": spec.version, "prompt_fingerprint": prompt_fingerprint(spec)}


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """One answer on disk, as ``cache stats`` sees it."""

    path: Path
    size: int
    schema_version: int | None  # None: written before entries were versioned
    role: str | None
    prompt_version: int | None
    prompt_fingerprint: str | None

    @property
    def versioned(self) -> bool:
        return self.schema_version is not None

    def stale(self, current: dict[str, dict]) -> bool:
        """Known never to be asked for again: another entry format, or a prompt that has changed
        or gone (``current``: role -> what ``prompt_of`` says now). An unversioned entry is not
        known to be stale: its key may still match."""
        if not self.versioned:
            return False
        if self.schema_version != SCHEMA_VERSION:
            return True
        if self.role is None or self.prompt_fingerprint is None:
            return False
        now = current.get(self.role)
        if now is None:
            now = current[self.role] = prompt_of(self.role)
        return now["prompt_fingerprint"] != self.prompt_fingerprint


def cache_entries(directory: Path) -> Iterator[CacheEntry]:
    """Every readable entry under ``directory`` (a torn or foreign file is skipped)."""
    directory = Path(directory)
    if not directory.is_dir():
        return
    for path in sorted(directory.glob("??/*.json")):
        data = _read(path)
        if data is None:
            continue
        version = data.get("schema_version")
        yield CacheEntry(path, path.stat().st_size, version if isinstance(version, int) else None,
                         data.get("role"), data.get("prompt_version"), data.get("prompt_fingerprint"))
