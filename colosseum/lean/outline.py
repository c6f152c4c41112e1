"""A Lean 4 source file's outline, read without Lean: its imports, and where each named
declaration is written (full name with the namespaces around it, and its lines).

It only decides which module to ask Lean about and which lines an error belongs to; whether a
declaration exists, and what it depends on, is always Lean's answer (``#print axioms``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from colosseum.core.source_text import LineIndex

_MODIFIERS = r"(?:(?:private|protected|noncomputable|partial|unsafe|nonrec|scoped|local)\s+)*"
_ATTRIBUTES = r"(?:@\[[^\]]*\]\s*)*"
_NAME = r"(?:«[^»\n]*»|[^\s:({\[⦃«])+"  # «...» may hold spaces and dots
_DECLARATION = re.compile(
    r"^[ \t]*" + _ATTRIBUTES + _MODIFIERS + r"(?:(?:noncomputable|private|protected)\s+)?"
    r"(theorem|lemma|def|abbrev|instance|structure|class(?:\s+inductive)?|inductive|opaque|axiom|example)"
    r"(?:(?:[ \t]+|[ \t]*\n[ \t]+)(" + _NAME + r"))?", re.M)  # a name on the next line is indented
_ATTRIBUTE_TEXT = re.compile(r"@\[[^\]]*\]")
_PLAIN_COMPONENT = re.compile(r"[^\W\d][\w'!?₀-ₜᵢ-ᵪ]*")
# keywords keep their guillemets even where a plain identifier would do (`Foo.«end»`)
_KEYWORDS = frozenset("""abbrev axiom by calc class def deriving do else end example extends fun have if import in
inductive instance let match mutual namespace nomatch nofun open partial private protected return section show
structure then theorem universe unsafe variable where with Prop Sort Type""".split())
_SCOPE = re.compile(r"^[ \t]*(namespace|section|end|mutual|noncomputable\s+section)\b[ \t]*([^\s]*)", re.M)
_COMMAND_START = re.compile(r"^(?:[#@]|[A-Za-z_])", re.M)
_IMPORT = re.compile(r"^\s*(?:public\s+)?(?:meta\s+)?import\s+(.+)$")
MAX_SCOPE_DEPTH = 64


@dataclass(slots=True)
class Outline:
    imports: list[str] = field(default_factory=list)
    header_lines: int = 0  # lines taken by the module header (module, imports, comments)
    declarations: dict[str, tuple[int, int]] = field(default_factory=dict)  # full name -> (first, last) line
    private: dict[str, tuple[int, int]] = field(default_factory=dict)  # private ones: Lean mangles their names


def normalize_name(name: str) -> str:
    """A Lean name as Lean prints it: ``«foo».«b c»`` -> ``foo.«b c»`` (guillemets only where
    a component is not a plain identifier)."""
    from colosseum.lean.lakefile import name_parts

    parts = name_parts(name)
    return ".".join(p if _PLAIN_COMPONENT.fullmatch(p) and p not in _KEYWORDS else f"«{p}»" for p in parts)


def blank_comments_and_strings(text: str) -> str:
    """``text`` with comments and string literals replaced by spaces (newlines kept), so that
    offsets and lines stay those of the original."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "-" and text.startswith("--", i):
            end = text.find("\n", i)
            end = n if end == -1 else end
            out[i:end] = " " * (end - i)
            i = end
        elif c == "/" and text.startswith("/-", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/-", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("-/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out[i:j] = [ch if ch == "\n" else " " for ch in text[i:j]]
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out[i:j] = [ch if ch == "\n" else " " for ch in text[i:j]]
            i = j
        else:
            i += 1
    return "".join(out)


def outline(text: str) -> Outline:
    plain = blank_comments_and_strings(text)
    lines = plain.split("\n")
    result = Outline()
    header_end = 0
    for number, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        m = _IMPORT.match(line)
        if m:
            result.imports += [w for w in m.group(1).split() if re.fullmatch(r"[\w.'«»]+", w)]
            header_end = number + 1
        elif stripped in ("module", "prelude"):
            header_end = number + 1
        else:
            break
    result.header_lines = header_end
    line_of = LineIndex(plain).line_of
    # events in file order: scope changes and declarations
    events: list[tuple[int, str, str]] = []
    for m in _SCOPE.finditer(plain):
        events.append((m.start(), m.group(1).split()[-1], m.group(2)))
    for m in _DECLARATION.finditer(plain):
        kind = m.group(1)
        name = m.group(2) or ""
        modifiers = _ATTRIBUTE_TEXT.sub(" ", plain[m.start():m.start(1)]).split()
        # private names are mangled: not reachable from another module
        events.append((m.start(), ("private:" if "private" in modifiers else "decl:") + kind, name))
    events.sort()
    command_lines = sorted({line_of(m.start()) for m in _COMMAND_START.finditer(plain)} | {line_of(e[0]) for e in events})
    scopes: list[tuple[str, list[str]]] = []
    for offset, kind, name in events:
        if kind == "namespace" and name:
            if len(scopes) < MAX_SCOPE_DEPTH:
                scopes.append(("namespace", name.split(".")))
        elif kind in ("section", "mutual"):
            if len(scopes) < MAX_SCOPE_DEPTH:
                scopes.append((kind, name.split(".") if name and kind == "section" else []))
        elif kind == "end":
            if scopes:
                scopes.pop()
        elif kind.startswith(("decl:", "private:")) and name and not kind.endswith(":example"):
            if name.startswith("_root_."):
                full = name[len("_root_."):]
            else:
                prefix = [part for scope, parts in scopes if scope == "namespace" for part in parts]
                full = ".".join(prefix + [name])
            first = line_of(offset)
            later = [line for line in command_lines if line > first]
            last = (later[0] - 1) if later else len(lines) - 1
            while last > first and not lines[last].strip():
                last -= 1
            found = result.private if kind.startswith("private:") else result.declarations
            found.setdefault(normalize_name(full.strip()), (first, last))
    return result
