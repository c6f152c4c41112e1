"""The one model-call step of every loop: render the role's prompt spec with the inputs, call the
provider, take the validated structured answer, record the usage, return an outcome.

The providers parse and validate the answer against the spec's schema themselves (each repairs a
malformed answer once, showing the model what was wrong: ``retry.py``); the step hands them the
schema. The budget is checked before each call and charged as it says (``budget.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from colosseum.models.budget import Budget
from colosseum.models.executor import CallOutcome
from colosseum.models.prompts import load_prompt
from colosseum.models.provider import Message, ModelRequest, ProviderError, Tool, Usage

DEFAULT_MAX_TOKENS = 8192


@dataclass
class ModelStep:
    """The calls of one run through one provider: ``base`` holds the inputs every call of the
    run shares (the obligation, the notation); ``usage`` and ``counts`` (token counts asked for)
    add up over the run."""

    provider: object
    budget: Budget = field(default_factory=lambda: Budget(None))
    max_tokens: int = DEFAULT_MAX_TOKENS
    model: str | None = None  # None: the provider's configured model
    base: dict = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    counts: int = 0

    def request(self, role: str, values: dict, tools: tuple[Tool, ...] = ()) -> ModelRequest:
        """The request of ``role``'s prompt spec filled with ``base`` and ``values``."""
        spec = load_prompt(role)
        system, user = spec.render({**self.base, **values})
        return ModelRequest(system, (Message("user", user),), schema=spec.schema, max_tokens=self.max_tokens,
                            model=self.model, role=role, tools=tools)

    async def call(self, role: str, values: dict) -> CallOutcome:
        """One call: BudgetReached (raised) when the budget is used up; a provider's failure
        comes back as a failed outcome."""
        return await self.send(self.request(role, values))

    async def send(self, request: ModelRequest) -> CallOutcome:
        if request.tools and not getattr(self.provider, "supports_tools", False):
            return CallOutcome.failed(request.role, ProviderError(
                getattr(self.provider, "name", "provider"), "this provider does not run tools"))
        self.budget.before_call()
        try:
            response = await self.provider.complete(request)
        except ProviderError as error:
            return CallOutcome.failed(request.role, error)
        self.budget.after_call(response)
        self.usage = self.usage + response.usage
        return CallOutcome.answered(request.role, response)

    async def ask(self, role: str, values: dict) -> dict:
        """The structured answer of one call ({} when it has none); a failed call raises its
        ProviderError, since the caller's run cannot go on without it."""
        return (await self.call(role, values)).answer()

    async def count(self, role: str, values: dict) -> int:
        """The input tokens the call of ``role`` with ``values`` would take, without making it."""
        return await self.count_request(self.request(role, values))

    async def count_request(self, request: ModelRequest) -> int:
        self.counts += 1
        return await self.provider.count_tokens(request)


async def ask(provider, role: str, values: dict, max_tokens: int = DEFAULT_MAX_TOKENS) -> dict:
    """One structured call outside any run's own budget (a research stage: the run's metered
    provider holds the budget)."""
    return await ModelStep(provider, max_tokens=max_tokens).ask(role, values)
