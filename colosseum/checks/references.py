"""Findings about labels and references, judged per root as LaTeX judges each build: a reference
to a label the build does not define (with near misses: "did you mean"), a label defined more
than once, a label with a comma in it.

A reference's finding is judged again when its unit is new, or the root's definitions of its
label (or of a label within one edit of it) changed; a label's when its definitions changed
(colosseum.link.state.LinkChange says which, per root).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain
from pathlib import Path

from colosseum.checks.family import Edit, Findings, code
from colosseum.checks.view import BuildView
from colosseum.core.lazy_regex import lazy_regex
from colosseum.core.structure import Diagnostic, Label, Reference, RelatedInfo
from colosseum.link.units import Unit, filed

_LABEL = lazy_regex(r"\\label\{([^{}]*)\}")  # compiled when a label is first looked for
MAX_PLACES = 5  # other places named in a duplicate-label message
DIRECT_COMPARISONS = 1_000_000  # undefined references x labels compared directly before a NearMisses index


class NearMisses:
    """Finds the labels within one edit of a name without comparing against every label:
    each label is filed under itself and under each of its one-deletion variants (lowercased),
    and two strings within one edit share such a variant.

    Almost every variant belongs to one label only, so a variant's bucket is that label itself
    (a str) and becomes a set only when a second label shares it: a set per variant was a sixth
    of the whole index's memory."""

    def __init__(self, labels: Iterable[str] = ()):
        self.index: dict[str, str | set[str]] = {}
        self.labels: set[str] = set()
        for label in labels:
            self.add(label)

    @staticmethod
    def _keys(label: str) -> set[str]:
        low = label.lower()
        return {low} | {low[:i] + low[i + 1:] for i in range(len(low))}

    def add(self, label: str) -> None:
        self.labels.add(label)
        index = self.index
        for key in self._keys(label):
            bucket = index.get(key)
            if bucket is None:
                index[key] = label
            elif bucket.__class__ is str:
                if bucket != label:
                    index[key] = {bucket, label}
            else:
                bucket.add(label)

    def remove(self, label: str) -> None:
        self.labels.discard(label)
        index = self.index
        for key in self._keys(label):
            bucket = index.get(key)
            if bucket is None:
                continue
            if bucket.__class__ is str:
                if bucket == label:
                    del index[key]
                continue
            bucket.discard(label)
            if len(bucket) == 1:
                index[key] = next(iter(bucket))
            elif not bucket:
                del index[key]

    def update_to(self, labels: Iterable[str]) -> "NearMisses":
        """Follow a new set of labels; an edit adds or removes a few, so this costs little."""
        current = labels.keys() if isinstance(labels, dict) else set(labels)
        for gone in self.labels - current:
            self.remove(gone)
        for new in current - self.labels:
            self.add(new)
        return self

    def lookup(self, name: str) -> list[str]:
        low = name.lower()
        found: set[str] = set()
        for key in {low} | {low[:i] + low[i + 1:] for i in range(len(low))}:
            bucket = self.index.get(key)
            if bucket is None:
                continue
            if bucket.__class__ is str:
                found.add(bucket)
            else:
                found.update(bucket)
        found.discard(name)
        return sorted(c for c in found if c.lower() == low or _one_edit(name, c))[:5]


def within_one_edit(a: str, b: str) -> bool:
    """Whether ``b`` could be a near miss for ``a`` (what similar_labels and NearMisses find)."""
    return a != b and abs(len(a) - len(b)) <= 1 and (a.lower() == b.lower() or _one_edit(a, b))


def similar_labels(name: str, candidates: Iterable[str]) -> list[str]:
    """Labels that differ from ``name`` only in case or by one edit (insert, delete, swap, change):
    a direct comparison, for a few names (many names: build a ``NearMisses`` once)."""
    low, size = name.lower(), len(name)
    return sorted(c for c in candidates if c != name and abs(len(c) - size) <= 1
                  and (c.lower() == low or _one_edit(name, c)))[:5]


def _one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1:]


# ---- the findings ------------------------------------------------------------------------------
def duplicate_findings(view: BuildView, name: str, labels: Sequence[Label]) -> list[Diagnostic]:
    """A label defined more than once in one build: reported at every place."""
    if len(labels) < 2:
        return []
    distinct = list({id(x): x for x in labels}.values())
    if len(distinct) == 1:  # one file read twice by this build
        label = distinct[0]
        return [Diagnostic(label.location.file, label.location.range, "error", code("duplicate-label"),
                           f"label `{name}` is defined {len(labels)} times: "
                           f"{view.relative(label.location.file)} is read {len(labels)} times by this build")]
    out = []
    for i, label in enumerate(distinct):
        # name a few of the other places: a label pasted a thousand times must not make a
        # million-entry message
        others = [x for j, x in enumerate(distinct[:MAX_PLACES + 1]) if j != i][:MAX_PLACES]
        where = ", ".join(f"{view.relative(o.location.file)}:{o.location.range.start.line + 1}" for o in others)
        more = len(distinct) - 1 - len(others)
        if more > 0:
            where += f" and {more} more"
        out.append(Diagnostic(label.location.file, label.location.range, "error", code("duplicate-label"),
                              f"label `{name}` is defined {len(distinct)} times (also at {where})",
                              tuple(RelatedInfo(o.location, f"`{name}` is also defined here") for o in others)))
    return out


def comma_finding(name: str, labels: Sequence[Label]) -> Diagnostic | None:
    if "," not in name or not labels:
        return None
    return Diagnostic(labels[0].location.file, labels[0].location.range, "warning", code("label-with-comma"),
                      f"label `{name}` contains a comma: \\cref and \\uses read it as "
                      + " and ".join(f"`{p.strip()}`" for p in name.split(",")))


def comma_parts(defined: Iterable[str]) -> dict[str, str]:
    """Each piece of a label with a comma in it, to that label: ``\\label{A, B}`` defines the one
    label `A, B`, so ``\\uses{A}`` (which splits at commas) finds nothing and its finding says why."""
    return {part.strip(): name for name in defined if "," in name for part in name.split(",")}


class UnreadLabels:
    """Where each label stands in the .tex files of the folder that no root reads (FLT's orphan
    chapter defines `mazur`, which an included chapter cites: "no \\label{mazur} in the project"
    sent the reader to search a folder that has one). Read as text (such a file is never parsed),
    each file again only when its text changed; ``follow`` says which names moved, so the findings
    that name them are judged again."""

    def __init__(self):
        self.files: dict[Path, tuple[object, tuple[str, ...]]] = {}  # path -> (its text, its labels)
        self.where: dict[str, Path] = {}

    def follow(self, view: BuildView) -> set[str]:
        files = {}
        for path in view.tex_files:
            if path in view.file_roots:
                continue
            text = view.text_of(path)
            if text is None or text.problem is not None:
                continue
            known = self.files.get(path)
            files[path] = known if known is not None and known[0] is text else (
                text, tuple(m.group(1).strip() for m in _LABEL.finditer(text.text)))
        if files.keys() == self.files.keys() and all(files[p][0] is self.files[p][0] for p in files):
            return set()
        where: dict[str, Path] = {}
        for path, (_, names) in files.items():
            for name in names:
                where.setdefault(name, path)
        moved = {n for n in where.keys() | self.where.keys() if where.get(n) != self.where.get(n)}
        self.files, self.where = files, where
        return moved


def undefined_finding(view: BuildView, ref: Reference, near: Callable[[str], list[str]],
                      parts: Mapping[str, str] | None = None,
                      unread: Callable[[str], Path | None] | None = None) -> Diagnostic:
    """A reference to a label this build does not define; ``near(name)``: the build's labels
    within one edit of a name; ``parts``: the pieces of the build's labels with a comma;
    ``unread(name)``: a .tex file of the folder that no root reads where the label stands."""
    all_labels = view.labels
    whole = parts.get(ref.label) if parts else None
    if whole is not None:
        where = all_labels[whole][0].location if whole in all_labels else None
        at = f" at {view.relative(where.file)}:{where.range.start.line + 1}" if where is not None else ""
        message = (f"undefined reference `{ref.label}`: it is part of the label `{whole}`{at}, which has a "
                   f"comma (one \\label defines one name: write a \\label for each)")
    elif ref.label in all_labels:
        elsewhere = all_labels[ref.label][0].location
        message = (f"undefined reference `{ref.label}` in this build: its \\label is in "
                   f"{view.relative(elsewhere.file)}, which this root does not include")
    elif unread is not None and (orphan := unread(ref.label)) is not None:
        message = (f"undefined reference `{ref.label}`: its \\label is in {view.relative(orphan)}, which no root "
                   f"includes (\\input it, or drop the reference)")
    else:
        message = f"undefined reference `{ref.label}`: no \\label{{{ref.label}}} in the project"
        found = near(ref.label)
        if found:
            message += "; did you mean " + " or ".join(f"`{n}`" for n in found) + "?"
    return Diagnostic(ref.location.file, ref.location.range, "error", code("undefined-reference"), message)


# ---- the family --------------------------------------------------------------------------------
class References:
    """Per root: the label names it defines, its undefined references, and (for many names) an
    index of near misses, kept from one build to the next."""

    name = "references"
    codes = ("undefined-reference", "duplicate-label", "label-with-comma")
    depends_on = ("root_results", "links", "labels", "relative", "external_documents", "tex_files", "file_roots",
                  "text_of")

    def __init__(self):
        self.defined: dict[Path, set[str]] = {}  # per root: the label names it defines
        self.undefined: dict[Path, set[Reference]] = {}  # per root: its undefined references
        self.near: dict[Path, NearMisses] = {}
        # per root: the near misses found for each undefined name. An edit above a reference
        # moves it and its finding is placed again, but what it suggests changes only when a
        # label within one edit of its name comes or goes: looking them up again for every moved
        # reference made each edit slower as undefined references accumulated (issue 17)
        self.suggested: dict[Path, dict[str, list[str]]] = {}
        self.unread = UnreadLabels()
        self.unread_moved: set[str] = set()  # this build: labels that came, went or moved in unread files

    def judge(self, view: BuildView, edit: Edit, findings: Findings) -> None:
        self.unread_moved = self.unread.follow(view)
        root_units = view.links.root_units
        units_of_root = {result.root: root_units.get(result.root, []) for result in view.root_results}
        labels_of_root = {result.root: result.labels for result in view.root_results}
        for result in view.root_results:
            external = _external_labels(view.external_documents.get(result.root, ()), labels_of_root)
            self._judge_root(view, edit, findings, result.root, result.labels, units_of_root[result.root], external)
        for root in [r for r in self.defined if r not in units_of_root]:  # a root that is gone
            for ref in self.undefined.pop(root, ()):
                findings.set(("undefined", root, ref), [])
            for name in self.defined.pop(root):
                findings.set(("duplicate", root, name), [])
                findings.set(("comma", root, name), [])
            self.near.pop(root, None)
            self.suggested.pop(root, None)

    def _judge_root(self, view: BuildView, edit: Edit, findings: Findings, root: Path,
                    defined: Mapping[str, list[Label]], units: list[Unit],
                    external: Callable[[str], bool] | None = None) -> None:
        change, full = edit.change, edit.full
        # a root that names other documents (xr): what they define changes apart from it, so its
        # references are all judged again
        full = full or external is not None
        known = self.defined.setdefault(root, set())
        undefined = self.undefined.setdefault(root, set())
        if not full and root in change.root_names:
            names, added, removed = change.root_names[root], change.root_added[root], change.root_removed[root]
        if full or root not in change.root_names or any(u.shared for u in chain(added, removed)):
            # from nothing (a reference object may sit in two units: a file read twice)
            for ref in undefined:
                findings.set(("undefined", root, ref), [])
            undefined.clear()
            self.suggested.pop(root, None)
            names, added, removed = set(defined) | known, units, []
        flipped = {name for name in names if (name in defined) != (name in known)}
        for name in flipped:
            if name in defined:
                known.add(name)
            else:
                known.discard(name)
        near = self.near.get(root)
        if near is not None:
            for name in flipped:
                (near.add if name in defined else near.remove)(name)
        self._forget_suggestions(root, flipped)
        for unit in removed:
            for ref in unit.refs:
                if ref in undefined:
                    undefined.discard(ref)
                    findings.set(("undefined", root, ref), [])
        check, placed = self._to_check(view, edit, root, defined, units, added, flipped)
        self._judge_references(view, findings, root, defined, check, external)
        for name in names | placed if placed else names:
            labels = defined.get(name, ())
            findings.set(("duplicate", root, name), [(d, root) for d in duplicate_findings(view, name, labels)])
            if "," in name:
                found = comma_finding(name, labels)
                findings.set(("comma", root, name), [(found, root)] if found is not None else [])

    def _forget_suggestions(self, root: Path, flipped: set[str]) -> None:
        """Forget what was suggested for names within one edit of a label that came or went, and
        for names no reference uses any more (the memo stays as large as the undefined names)."""
        memo = self.suggested.get(root)
        if not memo:
            return
        if flipped:
            for name in [n for n in memo if n in flipped or any(within_one_edit(n, f) for f in flipped)]:
                del memo[name]
        if len(memo) > 2 * len(self.undefined.get(root, ())) + 100:
            used = {ref.label for ref in self.undefined.get(root, ())}
            self.suggested[root] = {n: found for n, found in memo.items() if n in used}

    def _to_check(self, view: BuildView, edit: Edit, root: Path, defined: Mapping[str, list[Label]],
                  units: list[Unit], added: list[Unit], flipped: set[str]) -> tuple[list[Reference], set[str]]:
        """The references to judge again (of new units, and of names now (un)defined here), and
        the names of labels that only moved (what is found about them, placed again)."""
        undefined = self.undefined[root]
        check = []
        for unit in added:
            check.extend(unit.refs)
        in_root = set(units) if flipped or edit.moved else ()
        placed = set()
        for unit in edit.moved:
            if unit in in_root:
                if undefined:
                    check.extend(ref for ref in unit.refs if ref in undefined)
                placed.update(name for name in unit.labels_by_name
                              if len(defined.get(name, ())) > 1 or "," in name)
        if flipped:
            by_ref = view.links.by_ref
            for name in flipped:
                for unit in filed(by_ref, name):
                    if unit in in_root:
                        check.extend(filed(unit.refs_by_label, name))
        # the message names near labels, or where else the label is: found again when a
        # label within one edit of it came or went, or its own definitions changed
        if flipped and undefined:
            check.extend(ref for ref in undefined if any(within_one_edit(ref.label, n) for n in flipped))
        if not edit.full and edit.change.names:
            check.extend(ref for ref in undefined if ref.label in edit.change.names)
        if self.unread_moved and undefined:
            check.extend(ref for ref in undefined if ref.label in self.unread_moved)
        return list(dict.fromkeys(check)), placed

    def _judge_references(self, view: BuildView, findings: Findings, root: Path,
                          defined: Mapping[str, list[Label]], check: list[Reference],
                          external: Callable[[str], bool] | None = None) -> None:
        undefined = self.undefined[root]
        missing: list[Reference] = []
        for ref in check:
            if ref.label in defined or (external is not None and external(ref.label)):
                if ref in undefined:
                    undefined.discard(ref)
                    findings.set(("undefined", root, ref), [])
            else:
                missing.append(ref)
        # only the references to no label are looked up: the deletion index (a tenth of the
        # index's memory) is built when they are many against many labels, not for every cold build.
        # A direct comparison costs about 45 ns a label: a million of them (45 ms) is still less
        # than building the index over 50,000 labels
        near = self.near.get(root)
        if near is None and len(missing) * len(defined) >= DIRECT_COMPARISONS:
            near = self.near[root] = NearMisses(defined)  # kept from now on, following the labels
        find = near.lookup if near is not None else (lambda name: similar_labels(name, defined))
        memo = self.suggested.setdefault(root, {})
        parts = comma_parts(defined) if missing else None
        unread = self.unread.where.get

        def lookup(name: str) -> list[str]:
            found = memo.get(name)
            if found is None:
                found = memo[name] = find(name)
            return found
        for ref in missing:
            undefined.add(ref)
            findings.set(("undefined", root, ref), [(undefined_finding(view, ref, lookup, parts, unread), root)])


def _external_labels(documents: tuple[tuple[str, Path], ...],
                     labels_of_root: Mapping[Path, Mapping[str, list[Label]]]) -> Callable[[str], bool] | None:
    """Whether a label is one of the documents a root names with ``\\externaldocument[prefix]{doc}``
    (``prefix`` + a label of ``doc``'s build); None when it names none. Each document's labels
    stay its own: without the prefix, a label of another document is undefined here."""
    if not documents:
        return None

    def defined_elsewhere(name: str) -> bool:
        return any(name.startswith(prefix) and name[len(prefix):] in labels_of_root.get(doc, ())
                   for prefix, doc in documents)
    return defined_elsewhere
