"""The model layer: what a model call is, who runs it, and the one step every loop calls it with.

- ``provider.py``: a request (system prefix, the transcript of messages, the answer's schema,
  tools), a response, usage, ProviderError, and the interactive provider interface; its
  implementations (``anthropic_provider``, ``openai_compatible``, ``scripted_provider``) and
  wrappers (``response_cache``, ``metered``), with one retry and repair policy (``retry``).
- ``executor.py``: interactive and batch executors, and a call's outcome (an answer, or a failure
  with its reason, as a value).
- ``prompts.py``: prompt specifications, one file per role in ``prompts/`` (data).
- ``step.py``: render a role's prompt, call, take the validated answer, record usage; every loop
  (inner loop, research, global and local review) makes its calls through it.
- ``budget.py``: the one call budget; ``errors.py``: how a run stops early."""

from colosseum.models.provider import Message, ModelProvider, ModelRequest, ModelResponse, ProviderError, Tool, Usage

__all__ = ["Message", "ModelProvider", "ModelRequest", "ModelResponse", "ProviderError", "Tool", "Usage"]
