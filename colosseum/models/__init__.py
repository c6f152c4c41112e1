"""The model layer: a small provider interface, its implementations, and nothing else.

Prompt specifications live in ``prompts/`` (data), rendering and parsing beside the loops that
use them; a provider only turns one request into one response and says what it cost."""

from colosseum.models.provider import Message, ModelProvider, ModelRequest, ModelResponse, ProviderError, Usage

__all__ = ["Message", "ModelProvider", "ModelRequest", "ModelResponse", "ProviderError", "Usage"]
