"""What a Lake package's lakefile says about its sources, read without Lake: the package's
``srcDir``, its ``lean_lib`` libraries (``srcDir``, ``roots``, ``globs``) and its local path
dependencies. Only modules of a library can be imported (Lake builds nothing else), so only they
go into a file that asks Lean about declarations.

``lakefile.toml`` is read with tomllib. ``lakefile.lean`` is Lean code: its common forms are read
(``lean_lib Name where ...`` or ``lean_lib Name { ... }``, ``srcDir := "..."``,
``roots := #[`A, `B]``, ``globs := #[.submodules `A, Glob.one `B]``); a library whose roots or
globs are written some other way keeps Lake's default, its own name as its root."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

MAX_LIBRARIES = 200


def name_parts(name: str) -> tuple[str, ...]:
    """``A.«b c».d`` -> ("A", "b c", "d"): dots inside «» do not split."""
    parts, current, quoted = [], [], False
    for ch in name.strip():
        if ch == "«":
            quoted = True
        elif ch == "»":
            quoted = False
        elif ch == "." and not quoted:
            parts.append("".join(current))
            current = []
            continue
        else:
            current.append(ch)
    parts.append("".join(current))
    return tuple(p for p in parts)


@dataclass(frozen=True, slots=True)
class Glob:
    """Lake's module globs: ``one`` (just the module), ``submodules`` (strictly below it),
    ``andSubmodules`` (it and everything below)."""

    kind: str
    name: tuple[str, ...]

    def matches(self, module: tuple[str, ...]) -> bool:
        if self.kind == "one":
            return module == self.name
        below = len(module) > len(self.name) and module[:len(self.name)] == self.name
        return below or (self.kind == "andSubmodules" and module == self.name)


@dataclass(slots=True)
class Library:
    name: str
    src_dir: Path  # absolute: the package's srcDir joined with the library's own
    roots: list[tuple[str, ...]] = field(default_factory=list)
    globs: list[Glob] = field(default_factory=list)

    def is_local(self, module: tuple[str, ...]) -> bool:
        """Lake's rule: a module is the library's when a root is a prefix of it, or a glob
        matches it."""
        return (any(module[:len(root)] == root for root in self.roots)
                or any(glob.matches(module) for glob in self.globs))


@dataclass(slots=True)
class Lakefile:
    package_src_dir: Path
    libraries: list[Library] = field(default_factory=list)
    path_dependencies: list[Path] = field(default_factory=list)  # absolute folders of local packages
    readable: bool = True  # False: no library could be read (then every file counts, as Lake is unknown)


def read_lakefile(root: Path) -> Lakefile:
    toml_text = _read(root / "lakefile.toml")
    lean_text = _read(root / "lakefile.lean")
    if toml_text:
        lakefile = _from_toml(root, toml_text)
    elif lean_text:
        lakefile = _from_lean(root, lean_text)
    else:
        lakefile = Lakefile(root, readable=False)
    lakefile.path_dependencies = _path_dependencies(root)
    lakefile.readable = lakefile.readable and bool(lakefile.libraries)
    return lakefile


def _from_toml(root: Path, text: str) -> Lakefile:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return Lakefile(root, readable=False)
    package_src = root / data["srcDir"] if isinstance(data.get("srcDir"), str) else root
    lakefile = Lakefile(package_src.resolve())
    for table in [t for t in data.get("lean_lib", []) if isinstance(t, dict)][:MAX_LIBRARIES]:
        name = table.get("name")
        if not isinstance(name, str) or not name.strip():
            continue
        src = table.get("srcDir") if isinstance(table.get("srcDir"), str) else "."
        roots = _string_list(table.get("roots")) or [name]
        globs = [g for g in (_toml_glob(s) for s in _string_list(table.get("globs"))) if g is not None]
        lakefile.libraries.append(_library(lakefile.package_src_dir, name, src, roots, globs))
    return lakefile


def _string_list(value) -> list[str]:
    if isinstance(value, str):
        return [value]  # Lake accepts a single value for an array
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _toml_glob(text: str) -> Glob | None:
    """Lake's TOML glob strings: ``A`` one, ``A.+`` submodules, ``A.*`` A and its submodules."""
    text = text.strip()
    if text.endswith(".+"):
        return Glob("submodules", name_parts(text[:-2]))
    if text.endswith(".*"):
        return Glob("andSubmodules", name_parts(text[:-2]))
    return Glob("one", name_parts(text)) if text else None


def _library(package_src: Path, name: str, src: str, roots: list[str], globs: list[Glob]) -> Library:
    roots_parts = [name_parts(r) for r in roots if r.strip()]
    # Lake's default globs are the roots themselves
    return Library(name, (package_src / src).resolve(), roots_parts, globs or [Glob("one", r) for r in roots_parts])


_LEAN_COMMENT = re.compile(r"--[^\n]*|/-.*?-/", re.S)
_TOP_LEVEL = re.compile(r"^(?:@\[[^\]]*\]\s*)?(lean_lib|package|lean_exe|require|target|extern_lib|input_file|"
                        r"input_dir|script|def|open|import|module_data|library_facet|package_facet|"
                        r"module_facet)\b[ \t]*((?:«[^»]*»|[^\s{«])*)", re.M)
_SRC_DIR = re.compile(r"\bsrcDir\s*:=\s*\"([^\"]*)\"")
_ROOTS = re.compile(r"\broots\s*:=\s*#\[([^\]]*)\]")
_GLOBS = re.compile(r"\bglobs\s*:=\s*#\[([^\]]*)\]")
_QUOTED_NAME = re.compile(r"`((?:«[^»]*»|[^\s,\]\)`«])+)")
_LEAN_GLOB = re.compile(r"(?:Glob)?\.(one|submodules|andSubmodules)\s+`((?:«[^»]*»|[^\s,\]\)`«])+)")


def _from_lean(root: Path, text: str) -> Lakefile:
    plain = _LEAN_COMMENT.sub(lambda m: " " * len(m.group(0)), text)
    blocks: list[tuple[str, str, str]] = []  # (kind, name, body)
    starts = list(_TOP_LEVEL.finditer(plain))
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(plain)
        blocks.append((m.group(1), m.group(2).strip(), plain[m.end():end]))
    package_src = root
    for kind, _name, body in blocks:
        if kind == "package":
            found = _SRC_DIR.search(body)
            if found:
                package_src = root / found.group(1)
    lakefile = Lakefile(package_src.resolve())
    for kind, name, body in blocks[:MAX_LIBRARIES]:
        if kind != "lean_lib" or not name:
            continue
        name = ".".join(name_parts(name))
        src = _SRC_DIR.search(body)
        roots_text = _ROOTS.search(body)
        roots = _QUOTED_NAME.findall(roots_text.group(1)) if roots_text else []
        globs_text = _GLOBS.search(body)
        globs = ([Glob(kind_, name_parts(n)) for kind_, n in _LEAN_GLOB.findall(globs_text.group(1))]
                 if globs_text else [])
        lakefile.libraries.append(_library(lakefile.package_src_dir, name, src.group(1) if src else ".",
                                           [".".join(name_parts(r)) for r in roots] or [name], globs))
    return lakefile


def _path_dependencies(root: Path) -> list[Path]:
    """Local packages the manifest names (``"type": "path"``): their sources are inputs too."""
    try:
        manifest = json.loads(_read(root / "lake-manifest.json") or "{}")
    except ValueError:
        return []
    found = []
    for package in manifest.get("packages", []) if isinstance(manifest, dict) else []:
        if isinstance(package, dict) and package.get("type") == "path" and isinstance(package.get("dir"), str):
            found.append((root / package["dir"]).resolve())
    return found[:MAX_LIBRARIES]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
