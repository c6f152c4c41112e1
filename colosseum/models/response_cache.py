"""A content-addressed on-disk cache of model answers (``core.paths.answer_cache_dir``, i.e.
``.colosseum/cache/``): re-running an unchanged step costs no call. The key is everything that
decides the answer: provider, model, system text, messages, schema, token limit and temperature.
Writes are atomic."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from colosseum.core.atomic_files import write_atomically
from colosseum.models.provider import ModelRequest, ModelResponse, Usage


def request_key(provider: str, model: str, request: ModelRequest) -> str:
    fields = {
        "provider": provider, "model": request.model or model, "system": request.system,
        "messages": [[m.role, m.content] for m in request.messages], "schema": request.schema,
        "max_tokens": request.max_tokens, "temperature": request.temperature,
    }
    if request.tools:  # only then: the keys of every request without tools stay what they were
        fields["tools"] = [[t.name, t.description, t.input_schema] for t in request.tools]
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
    def exact_token_counts(self) -> bool:
        return bool(getattr(self.inner, "exact_token_counts", False))

    async def count_tokens(self, request: ModelRequest) -> int:
        """Passed through: a count costs no tokens, and the counter may change with the model."""
        return await self.inner.count_tokens(request)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    async def complete(self, request: ModelRequest) -> ModelResponse:
        key = request_key(self.inner.name, getattr(self.inner, "model", ""), request)
        path = self._path(key)
        cached = _read(path)
        if cached is not None:
            self.hits += 1
            return ModelResponse(cached["text"], cached["data"], Usage(), cached["model"], cached.get("stop_reason"),
                                 attempts=0, cached=True)
        self.misses += 1
        response = await self.inner.complete(request)
        record = {"text": response.text, "data": response.data, "model": response.model,
                  "stop_reason": response.stop_reason, "usage": vars_of(response.usage)}
        write_atomically(path, json.dumps(record, ensure_ascii=False))
        return response


def vars_of(usage: Usage) -> dict:
    return {f: getattr(usage, f) for f in ("input_tokens", "output_tokens", "cache_read_tokens",
                                           "cache_write_tokens", "calls")}


def _read(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # absent, or torn by a crash in an older version: ask again
    return data if isinstance(data, dict) and "text" in data and "model" in data else None
