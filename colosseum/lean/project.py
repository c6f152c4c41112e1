"""The Lean project a paper is formalized in: a folder with ``lakefile.lean`` or ``lakefile.toml``
and ``lean-toolchain``; its source files, their module names and imports, and whether Lean itself
(``lake``) can be run here."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.core.paths import STATE_DIR_NAME
from colosseum.lean.lakefile import Lakefile, Library, read_lakefile
from colosseum.lean.outline import Outline, normalize_name, outline

LAKEFILES = ("lakefile.lean", "lakefile.toml")
SKIPPED_DIRS = frozenset((".lake", "lake-packages", ".git", "build", STATE_DIR_NAME))
SCRATCH_DIR = Path(".lake") / "colosseum"  # inside the Lean project, ignored by git in every Lake project
MAX_PARENTS = 32
MAX_SOURCE_FILES = 5000
INSTALL_HINT = ("Install Lean 4 with elan, its toolchain manager: "
                "`curl https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh -sSf | sh` "
                "(see https://lean-lang.org/install), open a new shell so that ~/.elan/bin is on PATH, "
                "and restart the editor; the Lean project's lean-toolchain then picks the Lean version.")


class LeanProjectError(Exception):
    """The configured Lean project is not one (its message says what is missing)."""


def is_lake_project(path: Path) -> bool:
    return path.is_dir() and any((path / name).is_file() for name in LAKEFILES) and (path / "lean-toolchain").is_file()


def find_lean_project(project_dir: Path, roots: list[Path], configured: str | None = None) -> Path | None:
    """``configured`` (relative to the project directory), else ``lean/`` beside a root file, else
    the nearest Lake project at or above the root file's folder. None when there is none."""
    if configured:
        path = (project_dir / configured).resolve()
        if not is_lake_project(path):
            missing = [n for n in ("lakefile.lean or lakefile.toml", "lean-toolchain")
                       if not any((path / f).is_file() for f in n.split(" or "))]
            raise LeanProjectError(f"[lean] project = {configured!r}: {path} is not a Lake project "
                                   f"(no {' and no '.join(missing)})" if path.is_dir() else
                                   f"[lean] project = {configured!r}: no folder {path}")
        return path
    folders = list(dict.fromkeys([Path(r).parent for r in roots] + [project_dir]))
    for folder in folders:
        if is_lake_project(folder / "lean"):
            return (folder / "lean").resolve()
    for folder in folders:
        probe = folder
        for _ in range(MAX_PARENTS):
            if is_lake_project(probe):
                return probe.resolve()
            if probe == probe.parent:
                break
            probe = probe.parent
    return None


@dataclass(slots=True)
class SourceFile:
    path: Path  # absolute
    module: str  # e.g. ExampleProject.Basic
    text: str
    outline: Outline
    importable: bool = True  # part of a lean_lib of the lakefile: other files can import it

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@dataclass(slots=True)
class LeanProject:
    root: Path
    toolchain: str
    sources: dict[str, SourceFile] = field(default_factory=dict)  # module -> file
    build_inputs: str = ""  # lakefile, manifest and toolchain: what every result depends on
    has_mathlib: bool = False
    libraries: list[Library] = field(default_factory=list)
    libraries_known: bool = True  # False: the lakefile names no library we could read

    @classmethod
    def load(cls, root: Path) -> "LeanProject":
        root = root.resolve()
        toolchain_text = _read(root / "lean-toolchain")
        toolchain = toolchain_text.strip()
        inputs = [f"toolchain:{hashlib.sha256(toolchain_text.encode()).hexdigest()}"]
        for name in LAKEFILES + ("lake-manifest.json",):
            text = _read(root / name)
            if text:
                inputs.append(f"{name}:{hashlib.sha256(text.encode()).hexdigest()}")
        lakefile = read_lakefile(root)
        for dependency in lakefile.path_dependencies:  # a local package's sources are read like ours
            inputs.append(f"path-dependency:{dependency}:{_sources_digest(dependency)}")
        manifest = _read(root / "lake-manifest.json")
        project = cls(root, toolchain, build_inputs="\n".join(inputs),
                      has_mathlib=bool(re.search(r'"name"\s*:\s*"mathlib"', manifest)),
                      libraries=lakefile.libraries, libraries_known=lakefile.readable)
        for path in _lean_files(root):
            module, importable = _module_of(root, path, lakefile)
            if module is None or module in project.sources:
                continue
            text = _read(path)
            project.sources[module] = SourceFile(path, module, text, outline(text), importable)
        return project

    @property
    def importable(self) -> list[str]:
        """The modules a file may import: those of the lakefile's libraries (Lake builds nothing
        else), sorted."""
        return sorted(m for m, s in self.sources.items() if s.importable)

    def relative(self, path: Path) -> str:
        try:
            return Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return Path(path).as_posix()

    def imports_closure(self, modules: list[str]) -> list[str]:
        """The project modules these modules import, transitively, themselves included (sorted).
        Modules of dependencies (Mathlib ...) are outside the project: the manifest covers them."""
        seen: set[str] = set()
        stack = [m for m in modules if m in self.sources]
        while stack and len(seen) <= len(self.sources):
            module = stack.pop()
            if module in seen:
                continue
            seen.add(module)
            stack.extend(m for m in self.sources[module].outline.imports if m in self.sources and m not in seen)
        return sorted(seen)

    def fingerprint(self, text: str, modules: list[str]) -> str:
        """What a check of ``text`` importing ``modules`` depends on: the text, the toolchain, the
        lakefile and manifest, and every project file it reads."""
        digest = hashlib.sha256()
        digest.update(self.build_inputs.encode())
        digest.update(b"\0" + text.encode("utf-8"))
        for module in self.imports_closure(modules):
            digest.update(f"\0{module}\0{self.sources[module].digest}".encode())
        return digest.hexdigest()

    def locate(self, name: str) -> tuple[SourceFile, int, int] | None:
        """The file and line span (0-based, inclusive) where a declaration is written, when the
        outline finds it; Lean itself stays the authority on whether it exists."""
        name = normalize_name(name)
        for source in self.sources.values():
            span = source.outline.declarations.get(name)
            if span is not None:
                return source, span[0], span[1]
        return None

    def locate_private(self, name: str) -> tuple[SourceFile, int, int] | None:
        """Where a ``private`` declaration of that name is written (Lean mangles its name: no other
        file can name it)."""
        name = normalize_name(name)
        for source in self.sources.values():
            span = source.outline.private.get(name)
            if span is not None:
                return source, span[0], span[1]
        return None


@dataclass(frozen=True, slots=True)
class LakeStatus:
    available: bool
    executable: str | None
    problem: str | None  # what is missing and how to install it


def lake_status() -> LakeStatus:
    found = shutil.which("lake")
    if found:
        return LakeStatus(True, found, None)
    elan = Path.home() / ".elan" / "bin" / "lake"
    if elan.is_file() and os.access(elan, os.X_OK):
        return LakeStatus(False, None, f"`lake` is installed at {elan} but that folder is not on PATH (an editor "
                                       "started outside your login shell may not see it): add ~/.elan/bin to "
                                       "PATH and restart the editor. Lean checks are skipped until then.")
    return LakeStatus(False, None, "`lake` is not on PATH, so Lean 4 cannot be run and the claims' Lean "
                                   f"declarations are left unchecked. {INSTALL_HINT}")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def lean_files_state(root: Path) -> tuple:
    """The dates and sizes of everything a Lean project's answers depend on (its sources, the
    lakefile, the manifest, the toolchain, local dependencies' sources): equal tuples mean
    nothing changed, without reading a file."""
    paths = [root / name for name in LAKEFILES + ("lake-manifest.json", "lean-toolchain")] + _lean_files(root)
    for dependency in read_lakefile(root).path_dependencies:
        paths += _lean_files(dependency)
    state = []
    for path in paths:
        try:
            stat = path.stat()
        except OSError:
            continue
        state.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(state)


def _lean_files(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".lean") and name != "lakefile.lean":
                found.append(Path(folder) / name)
                if len(found) >= MAX_SOURCE_FILES:
                    return found
    return found


def _module_of(root: Path, path: Path, lakefile: Lakefile) -> tuple[str | None, bool]:
    """The module a file is (named from its library's srcDir), and whether it can be imported:
    a library claims it (Lake's rule, see Library.is_local). A file no library claims keeps a
    name, so that its declarations are still found and said to be out of reach."""
    resolved = path.resolve()
    for library in sorted(lakefile.libraries, key=lambda lib: -len(lib.src_dir.parts)):
        parts = _parts_under(resolved, library.src_dir)
        if parts and library.is_local(tuple(parts)):
            return ".".join(parts), True
    for base in [lib.src_dir for lib in lakefile.libraries] + [lakefile.package_src_dir, root]:
        parts = _parts_under(resolved, base)
        if parts:
            return ".".join(parts), not lakefile.readable
    return None, False


def _parts_under(path: Path, base: Path) -> list[str] | None:
    try:
        relative = path.relative_to(base)
    except ValueError:
        return None
    parts = list(relative.with_suffix("").parts)
    return parts if parts and all(re.fullmatch(r"[^\s.]+", p) for p in parts) else None


def _sources_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in _lean_files(folder):
        digest.update(f"\0{path.relative_to(folder).as_posix()}\0".encode() + _read(path).encode("utf-8"))
    return digest.hexdigest()
