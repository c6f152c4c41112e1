"""Consent before a paper leaves the machine. In the editor, the first model-backed action in a
project (solve, review, research, review-on-save) says what will be sent, about how many tokens, the
estimated cost and the provider, and asks once; a "Send" is remembered per project and provider in
the user-level config dir (``$XDG_CONFIG_HOME/colosseum/consent.json``), never in the project, so
a project cannot consent for its reader. A command typed in the CLI is its own consent."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from colosseum.core.atomic_files import write_atomically
from colosseum.settings.user import user_config_path

CONSENT_FILE = "consent.json"


def consent_path(environ=None) -> Path:
    """Beside the user-level config.toml: only the person at the keyboard writes there."""
    return user_config_path(environ).parent / CONSENT_FILE


@dataclass(frozen=True)
class SendSummary:
    """What the question shows: what is sent, its size, its price and where it goes."""

    what: str  # "the statement of lem:x and what it may assume", "the whole document" ...
    input_tokens: int | None
    upper_cost_usd: float | None
    provider: str
    model: str

    def question(self) -> str:
        size = f" (about {self.input_tokens:,} tokens of input)" if self.input_tokens else ""
        cost = (f"at most about ${self.upper_cost_usd:.2f} at list price" if self.upper_cost_usd is not None
                else "cost unknown (no price for this model: set [models] prices)")
        return (f"Colosseum is about to send {self.what}{size} to {self.provider} ({self.model}); {cost}. "
                "Send this project's text to the provider? The answer is remembered for this project "
                "in your user config, never in the project.")


def provider_label(models: dict) -> str:
    """The provider as the question names it: its kind and, when set, where it is."""
    kind = models.get("provider", "anthropic")
    return f"{kind} at {models['base_url']}" if models.get("base_url") else kind


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def has_consent(project_dir: Path, provider: str, environ=None) -> bool:
    entry = _read(consent_path(environ)).get(str(Path(project_dir).resolve()))
    return isinstance(entry, dict) and provider in entry.get("providers", [])


def remember_consent(project_dir: Path, provider: str, environ=None) -> Path:
    """Records a "Send" for this project and provider; the file written."""
    path = consent_path(environ)
    data = _read(path)
    key = str(Path(project_dir).resolve())
    entry = data.get(key) if isinstance(data.get(key), dict) else {}
    providers = [p for p in entry.get("providers", []) if isinstance(p, str)]
    if provider not in providers:
        providers.append(provider)
    data[key] = {**entry, "providers": providers}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True))
    return path


# ---- what each action would send -----------------------------------------------------------------
async def global_review_summary(index, setup) -> SendSummary:
    """The whole document, sized from its characters (asking the API's counter would already send it)."""
    from colosseum.app.review import estimate_global_review

    model = setup.settings.model_name()
    estimate = await estimate_global_review(index, None, model, setup.config, setup.settings.prices)
    return SendSummary(f"the whole document ({setup.config.reviewers} reviewers read it)", estimate.tokens,
                       estimate.upper_cost_usd, provider_label(setup.settings.models), model)


def local_review_summary(index, setup, labels: list[str]) -> SendSummary:
    """The claims to review with their proofs; sized by the files that hold them (an upper bound)."""
    from colosseum.models.pricing import cost_usd
    from colosseum.models.provider import Usage

    files = {c.file for c in (index.claims.get(label) for label in labels) if c is not None}
    chars = sum(len(ft.text) for ft in (index.text_of(f) for f in files) if ft is not None)
    tokens = chars // 4 * max(1, len(labels))
    model = setup.settings.model_name()
    upper = cost_usd(Usage(input_tokens=tokens, output_tokens=len(labels) * setup.config.output_tokens), model,
                     setup.settings.prices)
    shown = ", ".join(labels[:5]) + (f" and {len(labels) - 5} more" if len(labels) > 5 else "")
    return SendSummary(f"the proofs of {shown} with what they use", tokens, upper,
                       provider_label(setup.settings.models), model)


def research_summary(index, setup, label: str) -> SendSummary:
    """The theorem and what it may use, asked by about ``typical`` calls of the dry run's typical run."""
    from colosseum.app.research import estimate_research

    estimate = estimate_research(index, setup, False)
    return SendSummary(f"the statement of {label} and the results it may use, in about {estimate.typical_calls} "
                       "model calls", estimate.typical_calls * RESEARCH_TOKENS_PER_CALL, estimate.upper_cost_usd,
                       provider_label(setup.settings.models), estimate.model)


RESEARCH_TOKENS_PER_CALL = 6000  # what estimate_research assumes each call reads
