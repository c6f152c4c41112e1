"""``colosseum draft accept|reject PATH --label L``: the author's decision about a model's draft
(a proof whose first line carries ``% colosseum: draft <run-id>``).

``accept`` removes the marker and records in the catalog that a person reviewed the proof
(``reviewed_by: person``, with git's ``user.name`` when there is one); ``reject`` removes the proof
environment and records a failed route with the run's surviving critiques. The command writes
the ``.tex`` file itself (the author asked for this change by name) and prints what changed.

Exit codes: 0 done; 2 bad arguments, no project, or no draft under that label."""

from __future__ import annotations

import sys

EXIT_USAGE = 2


def add_arguments(sub) -> None:
    draft = sub.add_parser("draft", help="accept or reject a model's draft proof")
    draft.add_argument("action", choices=("accept", "reject"))
    draft.add_argument("path", help="project directory or its root .tex file")
    draft.add_argument("--label", required=True, help="the claim whose proof is a draft")
    draft.set_defaults(run=run_draft)


def run_draft(args) -> int:
    from colosseum.app.drafts import DraftNotFound, decide
    from colosseum.cli.terminal import open_project

    index = open_project(args.path)
    if index is None:
        return EXIT_USAGE
    try:
        decision = decide(index, args.label, accept=args.action == "accept")
    except (DraftNotFound, OSError) as exc:
        print(f"colosseum: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(decision.change.summary)
    for line in decision.change.removed.strip().splitlines():
        print(f"- {line}")  # what was taken out, as a diff shows it
    kind = "the person's review" if args.action == "accept" else "the failed route"
    print(f"catalog: {kind} recorded as `{decision.entry}`")
    return 0
