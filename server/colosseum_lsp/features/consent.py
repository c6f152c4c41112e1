"""The editor's question before the first model-backed action in a project (solve, review, research,
review-on-save): what will be sent, about how many tokens, the estimated cost and the provider, with
"Send" and "Cancel" (colosseum/app/consent.py keeps the answer in the user-level config dir)."""

from __future__ import annotations

import logging
from pathlib import Path

from colosseum.app.consent import SendSummary, has_consent, remember_consent
from colosseum_lsp import convert

log = logging.getLogger(__name__)
SEND, CANCEL = "Send", "Cancel"


async def may_send(ctx, project_dir: Path, summary: SendSummary) -> bool:
    """True when this project's text may go to ``summary.provider``: remembered, or "Send" picked now.
    A dismissed question or a client that cannot ask is a "Cancel" (nothing is remembered: the next
    action asks again)."""
    if has_consent(project_dir, summary.provider):
        return True
    try:
        answer = await ctx.server.window_show_message_request_async(
            convert.message_request(summary.question(), (SEND, CANCEL)))
    except Exception as exc:  # noqa: BLE001 - a client that cannot answer has not consented
        log.warning("the consent question could not be asked: %s", exc)
        return False
    if convert.chosen_title(answer) != SEND:
        return False
    remember_consent(project_dir, summary.provider)
    return True


def not_sent(what: str) -> dict:
    """The answer of a command the author declined: nothing was sent and no model was called."""
    return {"status": "cancelled", "sent": False,
            "message": f"{what}: nothing was sent (the provider was not asked: you chose Cancel)"}


def cancelled_before_start(what: str) -> dict:
    """The answer of a run the author cancelled while its estimate was shown, before any call."""
    return {"status": "cancelled", "sent": False,
            "message": f"{what} was cancelled before its first call: nothing was sent or spent"}


def cost_note(upper_cost_usd: float | None) -> str:
    """The estimate in a run's progress title (the run can still be cancelled before its first call)."""
    return f" (at most ~${upper_cost_usd:.2f})" if upper_cost_usd is not None else ""
