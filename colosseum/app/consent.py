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
