"""What a Lean check found, as plain data, and how Lean's own messages are read: the
``#print axioms`` answers and the errors of a file that does not build."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

STANDARD_AXIOMS = ("propext", "Classical.choice", "Quot.sound")
SORRY_AXIOM = "sorryAx"
# what each declaration status means; only "ok" makes a claim formal
DECL_STATUSES = ("ok", "missing", "error", "sorry", "axioms", "unchecked")
LSP_SEVERITY = {1: "error", 2: "warning", 3: "information", 4: "hint"}

_DEPENDS = re.compile(r"^'(?P<name>.+)' depends on axioms:\s*\[(?P<axioms>[^\]]*)\]", re.S)
_NO_AXIOMS = re.compile(r"^'(?P<name>.+)' does not depend on any axioms", re.S)
_UNKNOWN = re.compile(r"unknown (?:constant|identifier|declaration)", re.I)


@dataclass(slots=True)
class LeanMessage:
    """One diagnostic of a Lean file, 0-based lines, UTF-16 columns (as Lean sends them)."""

    file: Path
    line: int
    character: int
    end_line: int
    end_character: int
    severity: str
    message: str

    @classmethod
    def from_lsp(cls, file: Path, diag: dict) -> "LeanMessage":
        rng = diag.get("fullRange") or diag.get("range") or {}
        start, end = rng.get("start", {}), rng.get("end", {})
        return cls(file, int(start.get("line", 0)), int(start.get("character", 0)), int(end.get("line", 0)),
                   int(end.get("character", 0)), LSP_SEVERITY.get(diag.get("severity", 1), "error"),
                   str(diag.get("message", "")))


@dataclass(slots=True)
class DeclResult:
    name: str
    status: str  # one of DECL_STATUSES
    axioms: list[str] = field(default_factory=list)
    message: str = ""
    source: Path | None = None  # the .lean file the declaration is written in, when known
    line: int | None = None  # its first line there (0-based)
    errors: list[LeanMessage] = field(default_factory=list)  # Lean's errors inside it

    @property
    def passed(self) -> bool:
        return self.status == "ok"


@dataclass(slots=True)
class UnitRecord:
    """One file Lean was asked about: ``status`` is checked, cached, timed-out, crashed,
    unchecked (Lean could not be run) or cancelled."""

    name: str
    kind: str  # declarations | source | inline
    status: str
    seconds: float = 0.0
    message: str = ""


@dataclass(slots=True)
class InlineResult:
    root: Path
    text: str  # the scratch file: results are matched to the paper's blocks by it
    status: str  # checked | cached | timed-out | crashed | unchecked | cancelled
    diagnostics: list[dict] = field(default_factory=list)
    message: str = ""


@dataclass(slots=True)
class LeanReport:
    lean_project: Path | None = None
    toolchain: str = ""
    problem: str | None = None  # said once: Lean missing, no Lean project, the server does not start
    decls: dict[str, DeclResult] = field(default_factory=dict)
    units: list[UnitRecord] = field(default_factory=list)
    inline: list[InlineResult] = field(default_factory=list)
    cancelled: bool = False
    seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for u in self.units if u.status == status)


def parse_axioms(message: str) -> tuple[str, list[str]] | None:
    """``'X' depends on axioms: [a, b]`` or ``'X' does not depend on any axioms`` -> (X, axioms)."""
    text = message.strip()
    m = _DEPENDS.match(text)
    if m:
        return m.group("name"), [a.strip() for a in m.group("axioms").replace("\n", " ").split(",") if a.strip()]
    m = _NO_AXIOMS.match(text)
    if m:
        return m.group("name"), []
    return None


def verdict(name: str, axioms: list[str]) -> DeclResult:
    """The result of a declaration Lean found, from the axioms its proof depends on."""
    if SORRY_AXIOM in axioms:
        return DeclResult(name, "sorry", axioms, f"`{name}` is not proved: its proof uses `sorry` (depends on sorryAx)")
    extra = [a for a in axioms if a not in STANDARD_AXIOMS]
    if extra:
        why = " (native_decide trusts the compiler)" if any("ofReduce" in a or "trustCompiler" in a for a in extra) else ""
        return DeclResult(name, "axioms", axioms, f"`{name}` depends on non-standard axiom(s) {', '.join(extra)}{why}; "
                                                  f"only {', '.join(STANDARD_AXIOMS)} are accepted")
    used = ", ".join(axioms) if axioms else "none"
    return DeclResult(name, "ok", axioms, f"`{name}` checked by Lean: no sorry, axioms: {used}")


def read_axiom_answers(diagnostics: list[dict], lines: dict[int, str], scratch: Path) -> dict[str, DeclResult]:
    """Lean's answers to the ``#print axioms`` lines of a scratch file (``lines``: line -> name)."""
    found: dict[str, DeclResult] = {}
    for diag in diagnostics:
        msg = LeanMessage.from_lsp(scratch, diag)
        name = lines.get(msg.line)
        if name is None or name in found and found[name].status == "missing":
            continue
        if msg.severity == "error":
            missing = bool(_UNKNOWN.search(msg.message))
            found[name] = DeclResult(name, "missing" if missing else "error", [],
                                     f"`{name}` does not exist in the Lean project ({first_line(msg.message)})"
                                     if missing else f"Lean could not check `{name}`: {first_line(msg.message)}")
            continue
        parsed = parse_axioms(msg.message)
        if parsed is not None:
            found[name] = verdict(name, parsed[1])
    return found


def header_failure(diagnostics: list[dict], header_lines: int) -> str | None:
    """The error Lean gives when a file's imports do not build (it sits on the header), if any."""
    for diag in diagnostics:
        if diag.get("severity", 1) != 1:
            continue
        line = ((diag.get("range") or {}).get("start") or {}).get("line", 0)
        if line < max(1, header_lines):
            return str(diag.get("message", "")).strip() or "the imports do not build"
    return None


def first_line(message: str, limit: int = 300) -> str:
    line = next((part.strip() for part in message.strip().splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[:limit - 1] + "…"


def build_errors(message: str, limit: int = 5) -> str:
    """The ``error:`` lines of a failed build (what Lake printed), or its first line."""
    errors = [line.strip() for line in message.splitlines() if line.strip().startswith("error")]
    errors = [e for e in errors if "build failed" not in e and "exited with code" not in e] or errors
    return "; ".join(errors[:limit]) if errors else first_line(message)
