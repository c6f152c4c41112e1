"""Typed settings of a model-backed run: colosseum.toml's tables with the overrides of one
command (the CLI's flags or the editor's options), and the one place a provider is made."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from colosseum.core.paths import answer_cache_dir
from colosseum.loops.inner.records import InnerLoopConfig
from colosseum.loops.inner.settings import inner_loop_config
from colosseum.settings.project import valid_table


@dataclass(frozen=True)
class RunOverrides:
    """What one command changes of colosseum.toml for its run; None keeps the file's value."""

    model: str | None = None
    max_calls: int | None = None
    use_cache: bool = True
    trust: bool = False  # the CLI's --trust: probes may run (trust comes only from outside the project)
    editor_trusted: bool | None = None  # the editor's word on the folder (None: it said nothing)
    batch: bool = False  # --batch: each stage's calls go out as one batch, at the batch price

    @classmethod
    def from_editor_options(cls, options: dict) -> "RunOverrides":
        """The editor's ``model``, ``budget.max_calls`` and ``trusted`` options (a budget that is not a
        table is ignored; only ``trusted`` true lets the refuters run code)."""
        budget = options.get("budget")
        trusted = options.get("trusted")
        return cls(model=options.get("model"), max_calls=budget.get("max_calls") if isinstance(budget, dict) else None,
                   editor_trusted=trusted if isinstance(trusted, bool) else None)


@dataclass(frozen=True)
class RunSettings:
    """One run's model settings: the ``[models]`` table, the project, and the command's overrides."""

    root_dir: Path
    models: dict
    overrides: RunOverrides

    @classmethod
    def of(cls, index, overrides: RunOverrides) -> "RunSettings":
        return cls(index.root_dir, valid_table(index.config, "models"), overrides)

    @property
    def prices(self) -> dict | None:
        """``[models] prices``; with ``--batch`` marked as paid at the batch price."""
        if self.overrides.batch:
            from colosseum.models.pricing import batch_prices

            return batch_prices(self.models.get("prices"))
        return self.models.get("prices")

    def batch_refusal(self) -> str | None:
        """Why ``--batch`` cannot run with the configured provider (None without --batch, or when it can)."""
        from colosseum.models.configured import batch_refusal

        return batch_refusal(self.models) if self.overrides.batch else None

    def batch_line(self) -> str:
        """What a dry run with ``--batch`` adds (empty without it): how the calls go, and that probes are off."""
        if not self.overrides.batch:
            return ""
        return ("--batch: each stage's calls go out as one batch (Anthropic's Message Batches API) at half the list "
                "price, polled until it ends; probes are off in batch mode.")

    @property
    def cache_dir(self) -> Path | None:
        return answer_cache_dir(self.root_dir) if self.overrides.use_cache else None

    def cache_reuse(self) -> str:
        """What the dry runs say of the answer cache: how many answers the current prompts can reuse
        and how many a change of prompts or format has made useless (empty with no cache)."""
        from colosseum.app.cache import reuse_line

        return reuse_line(self.root_dir, self.overrides.use_cache)

    def model_name(self, model: str | None = None) -> str:
        """The model a run would use, without making a provider (dry runs need no key)."""
        from colosseum.models.anthropic_provider import DEFAULT_MODEL

        return model or self.overrides.model or self.models.get("model") or DEFAULT_MODEL

    def provider(self, model: str | None = None, run_dir: Path | None = None):
        """(provider, model name) for the run, wrapped in the response cache unless it is off;
        ``model`` names another model than the run's (cross-model selection); ``run_dir`` keeps a
        batch run's batch ids (``--batch``). Raises ProviderError."""
        from colosseum.models.configured import configured_provider  # the SDK loads only for a real run

        return configured_provider(self.models, self.cache_dir, model or self.overrides.model,
                                   batch=self.overrides.batch, run_dir=run_dir)

    def shared_provider(self, run_dirs: list[Path], model: str | None = None):
        """(provider, model name) for several runs in one process (``solve --labels``): no answer
        cache around it (each run wraps its own, to count its hits), one limit on the calls in
        flight for them all, and with ``--batch`` one batch per stage across the runs, stored in
        each of ``run_dirs``; ``model``: another model than the runs' (``research --labels
        --select-with``: model B's runs share one too). Raises ProviderError."""
        from colosseum.models.configured import configured_provider

        return configured_provider(self.models, None, model or self.overrides.model, batch=self.overrides.batch,
                                   run_dir=list(run_dirs))

    def cached(self, provider):
        """``provider`` behind the answer cache of this project (as it is when the cache is off)."""
        from colosseum.models.response_cache import CachedProvider

        return CachedProvider(provider, self.cache_dir) if self.cache_dir is not None else provider

    def batch_executor(self, model: str | None = None):
        """(batch executor, model name) for a run that sends its own batches (``batching.run_batched``,
        bench's stages); raises ProviderError when the provider has no batch interface."""
        from colosseum.models.configured import configured_batch_executor

        return configured_batch_executor(self.models, model or self.overrides.model)

    def probes(self, index, batch: bool = False):
        """Whether this run's refuters get run_python (colosseum.probe.tool.ProbeDecision): only in a
        trusted folder, where bubblewrap runs, and never in batch mode."""
        from colosseum.probe import probe_trust
        from colosseum.probe.tool import probe_tools_for

        trust = probe_trust(self.root_dir, flag=self.overrides.trust, editor_trusted=self.overrides.editor_trusted)
        return probe_tools_for(index.config, bool(trust), batch=batch or self.overrides.batch,
                               untrusted_reason=trust.reason)

    def inner_loop(self, index) -> InnerLoopConfig:
        return inner_loop_config(index.config, self.overrides.max_calls)[0]
