"""What a run costs, from the token accounting. List prices per million tokens, at the time of
writing, for the model families we default to; ``[models] prices`` in colosseum.toml overrides
them (``{input, output, cache_read, cache_write}`` in USD per million tokens). An unknown model
has no price, and the report says so rather than guessing.

A run with ``--batch`` pays the batch price: ``BATCH_DISCOUNT`` (half) of every list price, caching
included. Its price overrides carry ``"batch": true`` (``batch_prices``), so every report that
prices a run's usage prices it at what the run pays."""

from __future__ import annotations

from colosseum.models.provider import Usage

LIST_PRICES = {  # USD per million tokens: input, output, cache read, cache write
    "claude-opus-4-5": (5.0, 25.0, 0.5, 6.25),
    "claude-sonnet-4-5": (3.0, 15.0, 0.3, 3.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.1, 1.25),
}
BATCH_DISCOUNT = 0.5  # the Message Batches API bills half the list price of every token kind


def batch_prices(overrides: dict | None) -> dict:
    """``[models] prices`` (or none) marked as paid through the batch API."""
    return {**(overrides or {}), "batch": True}


def price_of(model: str, overrides: dict | None = None) -> tuple[float, float, float, float] | None:
    """The prices per million tokens (input, output, cache read, cache write), at the batch price
    when ``overrides`` say ``batch``; None for a model with no known price."""
    price = _list_price(model, overrides)
    if price is None or not (overrides or {}).get("batch"):
        return price
    return tuple(p * BATCH_DISCOUNT for p in price)


def _list_price(model: str, overrides: dict | None) -> tuple[float, float, float, float] | None:
    overrides = {k: v for k, v in (overrides or {}).items() if k != "batch"}
    if overrides:
        try:
            return (float(overrides["input"]), float(overrides["output"]),
                    float(overrides.get("cache_read", overrides["input"])),
                    float(overrides.get("cache_write", overrides["input"])))
        except (KeyError, TypeError, ValueError):
            return None
    for prefix, price in LIST_PRICES.items():
        if model.startswith(prefix):
            return price
    return None


def cost_usd(usage: Usage, model: str, overrides: dict | None = None) -> float | None:
    price = price_of(model, overrides)
    if price is None:
        return None
    inp, out, read, write = price
    return (usage.input_tokens * inp + usage.output_tokens * out + usage.cache_read_tokens * read
            + usage.cache_write_tokens * write) / 1_000_000
