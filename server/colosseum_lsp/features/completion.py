"""Label completion inside \\ref{, \\cref{a,, \\eqref{, \\uses{ and the project's own wrappers."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.latex.macros import BLUEPRINT_LIST_COMMANDS, LIST_REF_COMMANDS, RANGE_REF_COMMANDS, SINGLE_REF_COMMANDS
from colosseum_lsp import convert
from colosseum_lsp.context import FeatureContext
from colosseum_lsp.features.statement_text import first_line

_BUILTIN = "|".join(sorted(SINGLE_REF_COMMANDS + LIST_REF_COMMANDS + RANGE_REF_COMMANDS + BLUEPRINT_LIST_COMMANDS,
                           key=len, reverse=True))
_KNOWN = frozenset(SINGLE_REF_COMMANDS + LIST_REF_COMMANDS + RANGE_REF_COMMANDS + BLUEPRINT_LIST_COMMANDS)
_CONTEXT = re.compile(r"\\([A-Za-z@]+)\*?(?:\[[^\]]*\])?\{([^{}]*)$")


LOOK_BACK_LINES = 20  # an argument begun further up than this is not looked for


def text_before_cursor(lines: list[str], line: int, character: int) -> str:
    """The document up to the cursor, from at most LOOK_BACK_LINES lines above it (a \\uses{a,
    list often runs over several lines)."""
    current = lines[line][:character] if line < len(lines) else ""
    above = lines[max(0, line - LOOK_BACK_LINES):min(line, len(lines))]
    return "".join(text if text.endswith("\n") else text + "\n" for text in above) + current


def completion_context(text_before: str, extra_commands: set[str]) -> str | None:
    """The partial label being typed, or None when the cursor is not in a reference argument
    (one still open: no closing brace, no paragraph break since it began)."""
    m = _CONTEXT.search(text_before)
    if not m or re.search(r"\n[ \t]*\n", m.group(2)):
        return None
    command = m.group(1)
    if not (re.fullmatch(_BUILTIN, command) or command in extra_commands):
        return None
    return m.group(2).split(",")[-1].strip()


_LABEL_RUN = re.compile(r"[^\s,{}%\\]*")  # what may continue a label after the cursor


def _utf16_length(text: str) -> int:
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


def label_edit_columns(text_before: str, line_after: str, character: int) -> tuple[int, int]:
    """(start, end) around the cursor at ``character`` (client columns, UTF-16): the label typed
    so far on the cursor's line starts at ``start`` (just after the `{` or the last `,`, spaces
    skipped), and with the rest of the label after the cursor it ends at ``end`` (as texlab
    replaces). A completion must say what it replaces: an editor's own idea of a word stops at
    ':' or '-' (Neovim's omnifunc took `ar` of `lem:degree-ar` and dropped every label)."""
    typed = re.split(r"[{,\n]", text_before)[-1].lstrip()
    rest = _LABEL_RUN.match(line_after).group(0)
    return character - _utf16_length(typed), character + _utf16_length(rest)


MAX_ITEMS = 100  # a ranked list this long is enough: the list is marked incomplete and asked again
RECENT_LABELS = 64  # how many labels the author referenced last are remembered for the ranking


@dataclass(frozen=True)
class CompletionRequest:
    """Where the cursor is: the text before it (a few lines), the rest of its line, its position
    (line, UTF-16 column), its offset in the editor's text, and what the client supports."""

    text_before: str
    line_after: str = ""
    position: tuple[int, int] | None = None
    offset: int = 0
    client: convert.CompletionClient = convert.CompletionClient()


@dataclass
class _Candidates:
    """One project's labels, ranked once by name: (lowered name, name, file) in the order a list
    shows them (claims first), per file too; rebuilt only when the set of label names changes,
    so an edit that leaves the labels alone costs nothing here."""

    names: set = field(default_factory=set)
    names_of: object = None  # the last snapshot whose label names were compared with them
    ordered: list = field(default_factory=list)
    by_file: dict = field(default_factory=dict)
    wrappers_of: object = None  # the snapshot the wrapper commands below were read from
    wrappers: set = field(default_factory=set)
    placed_of: object = None  # the snapshot the files' placements below were read from
    placed: dict = field(default_factory=dict)  # path -> _Placed


class LabelCandidates:
    """The completion feature's state: per project its candidates; the labels the author referenced
    last (bounded); each claim's first line, kept while the claim is the same object."""

    def __init__(self):
        self.by_project: dict[Path, _Candidates] = {}
        self.recent: OrderedDict[str, None] = OrderedDict()
        self.first_lines: dict[str, tuple[object, str]] = {}

    def used(self, names) -> None:
        for name in names:
            self.recent[name] = None
            self.recent.move_to_end(name)
        while len(self.recent) > RECENT_LABELS:
            self.recent.popitem(last=False)


def _candidates(fc: FeatureContext) -> _Candidates:
    snap = fc.snapshot
    state = fc.state(LabelCandidates)
    found = state.by_project.get(fc.project.root_dir)
    if found is None:
        found = state.by_project[fc.project.root_dir] = _Candidates()
    if found.names_of is not snap and snap.labels.keys() != found.names:
        ordered = []
        for name, labels in snap.labels.items():
            owner = labels[0].owner
            ordered.append((("0" if owner in snap.claims else "1") + name, name.lower(), name, labels[0].file))
        ordered.sort()
        found.names = set(snap.labels)
        found.ordered = [entry[1:] for entry in ordered]
        found.by_file = {}
        for entry in found.ordered:
            found.by_file.setdefault(entry[2], []).append(entry)
        if len(state.first_lines) > 4 * len(found.names) + 1000:  # labels gone for good
            state.first_lines.clear()
    found.names_of = snap
    if found.wrappers_of is not snap:
        found.wrappers = set(fc.project.index.config.index.label_reference_commands)
        found.wrappers |= {ref.command for ref in snap.references[:20000] if ref.command not in _KNOWN}
        found.wrappers_of = snap
    return found


@dataclass
class _Placed:
    """One file's labels and section commands by where they are in one snapshot (an edit moves
    them): made at the first completion in the file after an edit, then each request bisects."""

    label_offsets: list = field(default_factory=list)
    entries: list = field(default_factory=list)  # the candidates, in the order of label_offsets
    section_offsets: list = field(default_factory=list)


def _placed(fc: FeatureContext, cands: _Candidates) -> _Placed:
    snap = fc.snapshot
    if cands.placed_of is not snap:
        cands.placed, cands.placed_of = {}, snap
    found = cands.placed.get(fc.path)
    if found is None:
        by_offset = sorted((labels[0].offset, rank, entry) for rank, entry in enumerate(cands.by_file.get(fc.path, []))
                           if (labels := snap.labels.get(entry[1])))
        sections = sorted(section.anchor.offset + section.rel_span[0] for section in snap.sections.values()
                          if section.anchor is not None and section.file == fc.path)
        found = cands.placed[fc.path] = _Placed([o for o, _r, _e in by_offset], [(r, e) for _o, r, e in by_offset],
                                                sections)
    return found


def _groups(fc: FeatureContext, cands: _Candidates, offset: int) -> list:
    """The candidates by proximity, best first: of the cursor's section (between the section
    commands around it), of its file, referenced last by the author, the rest (the last one
    lazily: it is read only as far as needed)."""
    state, placed = fc.state(LabelCandidates), _placed(fc, cands)
    sections = placed.section_offsets
    i = bisect_right(sections, offset)
    start = sections[i - 1] if i else 0
    end = sections[i] if i < len(sections) else 1 << 62
    lo, hi = bisect_left(placed.label_offsets, start), bisect_left(placed.label_offsets, end)
    section = [entry for _rank, entry in sorted(placed.entries[lo:hi])]
    in_section = {entry[1] for entry in section}
    rest_of_file = [entry for entry in cands.by_file.get(fc.path, []) if entry[1] not in in_section]
    snap = fc.snapshot
    recent = [(name.lower(), name, labels[0].file) for name in reversed(state.recent)
              if (labels := snap.labels.get(name)) and labels[0].file != fc.path]
    recent_names = {entry[1] for entry in recent}
    return [section, rest_of_file, recent,
            lambda: (e for e in cands.ordered if e[2] != fc.path and e[1] not in recent_names)]


def ranked_labels(fc: FeatureContext, partial: str, offset: int, limit: int = MAX_ITEMS) -> tuple[list[str], bool]:
    """At most ``limit`` label names containing ``partial`` (ignoring case), best first: the exact
    name, then those that start with it before those that only contain it; within each, by
    proximity (``_groups``), then claims first, by name. True when more matched: the scan stops
    as soon as the list is one over full."""
    cands = _candidates(fc)
    groups = _groups(fc, cands, offset)
    wanted = partial.lower()
    out = [partial] if partial in cands.names else []
    taken = set(out)
    for prefix_pass in (True, False) if wanted else (True,):  # every name starts with ""
        for group in groups:
            for lowered, name, _file in group() if callable(group) else group:
                starts = lowered.startswith(wanted)
                if (starts if prefix_pass else (not starts and wanted in lowered)) and name not in taken:
                    out.append(name)
                    taken.add(name)
                    if len(out) > limit:
                        return out[:limit], True
    return out, False


_REFERENCED = re.compile(r"\\[A-Za-z@]+\*?(?:\[[^\]]*\])?\{([^{}]*)\}")


def _item(fc: FeatureContext, name: str) -> dict:
    """A label's completion item: what it is, its status, the first line of its statement and
    where it is defined (built for the items shown only)."""
    snap, first_lines = fc.snapshot, fc.state(LabelCandidates).first_lines
    label = snap.labels[name][0]
    owner = label.owner
    claim = snap.claims.get(owner) if owner else None
    section = snap.sections.get(owner) if owner else None
    if claim is not None:
        detail, kind = f"{claim.kind} · {snap.graph.status.get(owner)}", "claim"
        known = first_lines.get(name)
        if known is None or known[0] is not claim:
            known = first_lines[name] = (claim, first_line(claim.statement_text))
        first = known[1]
    elif section is not None:
        detail, first, kind = section.level, section.title, "section"
    else:
        detail, first, kind = "label", "", "label"
    loc = label.location
    where = f"{fc.project.index.relative(loc.file)}:{loc.range.start.line + 1}"
    return convert.completion_item(name, kind, detail, f"{first}\n\n{where}".strip())


def completions(fc: FeatureContext, request: CompletionRequest) -> dict | None:
    """Labels for the reference argument at the cursor, ranked (``ranked_labels``) and bounded;
    with a position, the list says which text they replace (convert.completion_list)."""
    wrappers = _candidates(fc).wrappers
    partial = completion_context(request.text_before, wrappers)
    if partial is None:
        return None
    # the labels the author just referenced nearby count as recently used
    fc.state(LabelCandidates).used(name.strip() for m in _REFERENCED.finditer(request.text_before)
                                   for name in m.group(1).split(",") if name.strip() in fc.snapshot.labels)
    names, more = ranked_labels(fc, partial, request.offset)
    return bounded_list([_item(fc, name) for name in names], more, request)


def bounded_list(items: list[dict], more: bool, request: CompletionRequest, edited: dict | None = None,
                 closing_brace: bool = False) -> dict:
    """The items (at most MAX_ITEMS, in the order given), each replacing the argument around the
    cursor (and the `}` after it with ``closing_brace``); marked incomplete when ``more`` matched,
    so the editor asks again as the author types. ``edited``: see convert.completion_list."""
    replaced = None
    if request.position is not None:
        line, character = request.position
        start, end = label_edit_columns(request.text_before, request.line_after, character)
        if closing_brace and request.line_after[_LABEL_RUN.match(request.line_after).end():].startswith("}"):
            end += 1
        replaced = (line, start, character, end)
    return convert.completion_list(items[:MAX_ITEMS], more or len(items) > MAX_ITEMS, replaced, request.client, edited)
