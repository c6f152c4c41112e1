"""How ``colosseum check`` shows its findings: the minimum severity, colour on a terminal, and
SARIF 2.1.0 for CI annotations (GitHub code scanning and other SARIF readers)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import quote

from colosseum import __version__
from colosseum.cli.terminal import is_terminal, print_json

# most serious first: --severity MIN shows MIN and everything above it
SEVERITIES: tuple[str, ...] = ("error", "warning", "information", "hint")
SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# SARIF has three levels of a result; information and hint are both notes
SARIF_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}
_COLOURS = {"error": "\x1b[1;31m", "warning": "\x1b[33m", "information": "\x1b[34m", "hint": "\x1b[36m"}
_RESET = "\x1b[0m"


def add_check_output_arguments(check) -> None:
    check.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                       help="sarif: SARIF 2.1.0 for CI annotations (e.g. GitHub code scanning)")
    check.add_argument("--severity", choices=SEVERITIES, default="hint", metavar="MIN",
                       help="show only findings at least this serious: error, warning, information or hint (the "
                            "default: all); the exit code is 1 whenever there is an error, shown or not")
    check.add_argument("--quiet", "-q", action="store_true", help="only the findings: no summary line")
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                       help="colour the severities in the text output (auto: when stdout is a terminal and NO_COLOR "
                            "is not set)")


def at_least(diagnostics: list, minimum: str) -> list:
    """The findings as serious as ``minimum`` or more (an unknown severity is shown)."""
    limit = SEVERITIES.index(minimum)
    return [d for d in diagnostics if d.severity not in SEVERITIES or SEVERITIES.index(d.severity) <= limit]


def use_colour(choice: str, stream, environ=os.environ) -> bool:
    """``always`` and ``never`` say it; ``auto`` colours a terminal unless NO_COLOR is set (and not
    empty), as no-color.org asks: a flag given on the command line wins over the variable."""
    if choice != "auto":
        return choice == "always"
    return not environ.get("NO_COLOR") and is_terminal(stream)


def diagnostics_text(index, diagnostics: list, colour: bool) -> str:
    """``file:line:column: severity code: message``, one a line; with colour the severity word is
    coloured (the rest is left plain, so the line still reads as a location to an editor)."""
    lines = []
    for d in diagnostics:
        start = d.range.start
        word = f"{_COLOURS[d.severity]}{d.severity}{_RESET}" if colour and d.severity in _COLOURS else d.severity
        lines.append(f"{index.relative(d.file)}:{start.line + 1}:{start.character + 1}: {word} {d.code}: {d.message}")
    return "\n".join(lines)


def registered_codes() -> list[str]:
    """The codes of every family of findings the index keeps, as ``colosseum/<name>``."""
    # here, not at the top: the parser of every command is built from this module's arguments
    from colosseum.checks.family import code
    from colosseum.checks.registry import FAMILIES

    return [code(name) for family in FAMILIES for name in family.codes]


def _rule(code: str) -> dict:
    name = code.rsplit("/", 1)[-1]
    return {"id": code, "name": name, "shortDescription": {"text": name.replace("-", " ").capitalize()}}


def _uri(index, path: Path) -> str:
    """Relative to the project (what a code-scanning upload resolves against its checkout); a
    file outside it (the user's own config) as a file: URI."""
    relative = index.relative(path)
    if Path(relative).is_absolute():
        return Path(relative).as_uri()
    return quote(relative, safe="/")


def _result(index, d, rule_index: dict[str, int]) -> dict:
    start, end = d.range.start, d.range.end
    region = {"startLine": start.line + 1, "startColumn": start.character + 1,
              "endLine": end.line + 1, "endColumn": end.character + 1}
    return {"ruleId": d.code, "ruleIndex": rule_index[d.code], "level": SARIF_LEVEL.get(d.severity, "note"),
            "message": {"text": d.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(index, d.file)}, "region": region}}]}


def sarif_log(index, diagnostics: list) -> dict:
    """One SARIF 2.1.0 log with one run: the rules are the registered codes (and any other code a
    finding carries, e.g. the catalog's), the results the findings."""
    codes = registered_codes()
    codes += sorted({d.code for d in diagnostics} - set(codes))
    rule_index = {c: i for i, c in enumerate(codes)}
    driver = {"name": "colosseum", "version": __version__, "rules": [_rule(c) for c in codes]}
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION,
            # columns count UTF-16 code units, as LSP's and the JSON output's do
            "runs": [{"tool": {"driver": driver}, "columnKind": "utf16CodeUnits", "results": [_result(index, d, rule_index) for d in diagnostics]}]}


def report(index, diagnostics: list, args) -> int:
    """Prints the findings ``--severity`` lets through in ``--format``, the summary line on stderr
    (not under ``--quiet``); the exit code is 1 when there is an error, shown or not."""
    shown = at_least(diagnostics, args.severity)
    if args.format == "json":
        from colosseum.graph.export import diagnostic_record

        print_json({"diagnostics": [diagnostic_record(index, d) for d in shown]})
    elif args.format == "sarif":
        import json  # only for SARIF: a text report starts without it

        print(json.dumps(sarif_log(index, shown), indent=2, ensure_ascii=False))
    else:
        text = diagnostics_text(index, shown, use_colour(args.color, sys.stdout))
        if text:
            print(text)
    if not args.quiet and args.format == "text":
        _say_when_a_part_is_checked_alone(index)
        counts = {s: sum(1 for d in diagnostics if d.severity == s) for s in SEVERITIES}
        # what `dag` draws and counts: a section holding a claim is no dependency
        uses = sum(1 for edge in index.graph.edges if edge.kind != "contains")
        print(f"{_count(len(index.claims), 'claim')}, {_count(len(index.sections), 'section')}, "
              f"{_count(uses, 'dependency edge')} in {_count(len(index.roots), 'root')}: "
              f"{_count(counts['error'], 'error')}, {_count(counts['warning'], 'warning')}, "
              f"{_count(counts['hint'] + counts['information'], 'note')}", file=sys.stderr)
    return 1 if any(d.severity == "error" for d in diagnostics) else 0


def _count(n: int, noun: str) -> str:
    """"1 claim", "2 claims" (the summary said "1 claims ... in 1 root(s) ... 1 notes")."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _say_when_a_part_is_checked_alone(index) -> None:
    """A chapter given as the file to check (no \\documentclass) is read as a document of its own:
    every reference to another chapter is then undefined (FLT's ch04overview.tex alone: 11 errors,
    each label in the project). Say why, once, before the count."""
    from colosseum.project.files import document_class

    root = index.explicit_root
    text = index.text_of(root) if root is not None else None
    if text is None or text.problem is not None or document_class(text.text) is not None:
        return
    print(f"colosseum: {root.name} has no \\documentclass, so it is checked alone: its references to labels "
          "in other files are undefined here; give the project's folder or its root file to check it "
          "as part of the document", file=sys.stderr)
