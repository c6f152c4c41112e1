"""The provider a project configures (``[models]`` in colosseum.toml), wrapped in the response
cache. Anthropic's API by default; an OpenAI-compatible server (a local model, another vendor)
with ``provider = "openai-compatible"`` and ``base_url``. Either way each call is limited to
``request_timeout_s`` seconds per attempt and ``max_attempts`` attempts, with at most
``max_concurrency`` requests in flight; Anthropic's streamed
answers end an attempt after ``idle_timeout_s`` seconds without an event.

With ``batch`` (``--batch``) the Anthropic provider is replaced by one that sends each stage's
calls as one batch (``batching.BatchingProvider``; its batches are stored in ``run_dir``); the
OpenAI-compatible provider has no batch interface and refuses."""

from __future__ import annotations

from pathlib import Path

from colosseum.models.batching import POLL_INTERVAL_S
from colosseum.models.provider import ProviderError
from colosseum.models.retry import DEFAULT_MAX_ATTEMPTS, DEFAULT_TIMEOUT_S, IDLE_TIMEOUT_S

DEFAULT_MAX_CONCURRENCY = 8


BATCH_REFUSED = ("--batch needs Anthropic's Message Batches API; the OpenAI-compatible provider has no batch "
                 "interface (run without --batch)")


def batch_refusal(models: dict) -> str | None:
    """Why ``--batch`` cannot run with this ``[models]`` table, or None when it can."""
    return BATCH_REFUSED if models.get("provider", "anthropic") == "openai-compatible" else None


def configured_provider(models: dict, cache_dir: Path | None, model_override: str | None = None, *,
                        batch: bool = False, run_dir: Path | None = None):
    """(provider, model name); raises ProviderError with a clear message when it cannot be made."""
    from colosseum.models.anthropic_provider import DEFAULT_MODEL, AnthropicProvider
    from colosseum.models.response_cache import CachedProvider

    kind = models.get("provider", "anthropic")
    limits = {"timeout": float(models.get("request_timeout_s", DEFAULT_TIMEOUT_S)),
              "max_attempts": int(models.get("max_attempts", DEFAULT_MAX_ATTEMPTS)),
              "max_concurrency": int(models.get("max_concurrency", DEFAULT_MAX_CONCURRENCY))}
    if batch and batch_refusal(models):
        raise ProviderError("openai-compatible", BATCH_REFUSED)
    if kind == "openai-compatible":
        from colosseum.models.openai_compatible import OpenAICompatibleProvider

        model = model_override or models.get("model")
        if not model or not models.get("base_url"):
            raise ProviderError("openai-compatible", "set [models] model and base_url for an OpenAI-compatible server")
        provider = OpenAICompatibleProvider(model, models["base_url"], api_key_env=models.get("api_key_env", "OPENAI_API_KEY"),
                                            **limits)
    else:
        model = model_override or models.get("model") or DEFAULT_MODEL
        provider = AnthropicProvider(model, base_url=models.get("base_url"), **limits,
                                     idle_timeout=float(models.get("idle_timeout_s", IDLE_TIMEOUT_S)))
        if batch:
            provider = batching_provider(provider, model, models.get("base_url"), run_dir,
                                         float(models.get("batch_poll_s", POLL_INTERVAL_S)))
    return (CachedProvider(provider, cache_dir) if cache_dir is not None else provider), model


def batching_provider(interactive, model: str, base_url: str | None, run_dir, poll_s: float):
    """The batch form of Anthropic's provider: its token counter stays the interactive one's."""
    from colosseum.models.anthropic_batch import AnthropicBatchExecutor
    from colosseum.models.batching import BatchingProvider, BatchStore, SharedBatchStore, polling_every

    executor = AnthropicBatchExecutor(model, base_url=base_url)
    # several run folders: runs that share this provider (solve --labels), each keeping every batch
    store = SharedBatchStore(run_dir) if isinstance(run_dir, (list, tuple)) else BatchStore(run_dir)
    return BatchingProvider(executor, model, store=store, polling=polling_every(poll_s),
                            counter=interactive.count_tokens)


def configured_batch_executor(models: dict, model_override: str | None = None):
    """(batch executor, model name) for a caller that sends its own batches through
    ``batching.run_batched`` (bench); raises ProviderError for a provider with no batch interface."""
    from colosseum.models.anthropic_batch import AnthropicBatchExecutor
    from colosseum.models.anthropic_provider import DEFAULT_MODEL

    if batch_refusal(models):
        raise ProviderError("openai-compatible", BATCH_REFUSED)
    model = model_override or models.get("model") or DEFAULT_MODEL
    return AnthropicBatchExecutor(model, base_url=models.get("base_url")), model
