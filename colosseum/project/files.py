"""Finding a project's root files, reading its files, and resolving ``\\input``-like commands."""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.latex.scanner import scan
from colosseum.latex.macros import MacroTable
from colosseum.project.preamble_roots import (begins_document, never_compiled, preamble_inputs, preamble_roots,
                                             reads_by_other_includes)
from colosseum.core.paths import STATE_DIR_NAME
from colosseum.core.source_text import MAX_LINE_CHARS, LineIndex, longest_line_over
from colosseum.settings.boundary import PATH_OUTSIDE_PROJECT, Boundary, is_under, resolved
from colosseum.core.lazy_regex import lazy_regex

MAX_FILE_BYTES = 64 * 1024 * 1024  # larger files are reported, not read
MAX_PROJECT_FILES = 20_000
SKIPPED_DIRS = frozenset((".git", ".hg", ".svn", "node_modules", STATE_DIR_NAME, "__pycache__", ".lake",
                          "_minted", "build", "out", ".venv", "venv"))
_DOCUMENTCLASS = lazy_regex(r"^[^%\n]*?\\documentclass\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}", re.MULTILINE)
_MAGIC_ROOT = lazy_regex(r"^\s*%\s*!\s*TEX\s+root\s*=\s*(\S[^\n]*?)\s*$", re.IGNORECASE | re.MULTILINE)
NOT_ROOT_CLASSES = frozenset(("subfiles", "standalone"))
_CLASS_OPTIONS = lazy_regex(r"\\documentclass\s*\[([^\]]*)\]")


@dataclass(slots=True)
class FileText:
    """A file's text as the index sees it (the editor's copy when one is open)."""

    path: Path
    text: str
    version: int
    lines: LineIndex
    problem: tuple[str, str, str] | None = None  # (severity, code, message) about reading it


@dataclass(frozen=True, slots=True)
class PathProblem:
    """A finding about a path of the project itself (not about a place in a file): a symbolic link
    that leads outside the project, shown at the start of the link."""

    path: Path
    message: str
    code: str = PATH_OUTSIDE_PROJECT
    severity: str = "warning"
    line: int = 0  # where in the file (0-based), when a line of it says the path (a `% !TEX root`)

    def __str__(self) -> str:
        return self.message


@dataclass(slots=True)
class ProjectListing:
    """The .tex files of a project, and the symbolic links the walk did not follow out of it."""

    tex_files: list[Path] = field(default_factory=list)
    problems: list[PathProblem] = field(default_factory=list)


@dataclass(slots=True)
class Discovery:
    """The candidate roots and the .tex files found by walking the project folder, and the paths refused."""

    roots: list[Path] = field(default_factory=list)
    tex_files: list[Path] = field(default_factory=list)
    problems: list[str | PathProblem] = field(default_factory=list)


def read_file(path: Path, version: int) -> FileText | None:
    """Read a file tolerantly: None when it does not exist; an empty text with an
    ``unreadable-file`` problem when it exists but cannot be read (permission denied, ...)."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a named pipe or a device would block the read forever
            return FileText(path, "", version, LineIndex(""),
                            ("error", "unreadable-file", f"{path.name} is not a regular file (a pipe, socket or "
                             "device); it is not read"))
        size = info.st_size
        if size > MAX_FILE_BYTES:
            return FileText(path, "", version, LineIndex(""),
                            ("error", "file-too-large", f"{path.name} is {size // (1024 * 1024)} MiB; files over "
                             f"{MAX_FILE_BYTES // (1024 * 1024)} MiB are not indexed"))
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, RuntimeError) as exc:
        if why_unreadable(exc) is None:
            return None
        return FileText(path, "", version, LineIndex(""),
                        ("error", "unreadable-file", f"{path.name} cannot be read: {why_unreadable(exc)}"))
    return decode_file(path, data, version)


def why_unreadable(exc: BaseException) -> str | None:
    """What an error opening a file says, in words; None when the file simply is not there."""
    number = getattr(exc, "errno", None)
    if number in (errno.ENOENT, errno.ENOTDIR):
        return None
    if number == errno.ELOOP or isinstance(exc, RuntimeError):
        return "a symbolic link cycle"
    if number == errno.EISDIR:
        return "it is a directory"
    if number in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return getattr(exc, "strerror", None) or str(exc)


@dataclass(frozen=True, slots=True)
class IncludeTargetProblem:
    """An include's first candidate that exists but is no file to read."""

    path: Path
    reason: str  # "loop", "directory" or "unreadable"
    detail: str = ""


def probe_include_target(candidate: Path) -> Path | IncludeTargetProblem | None:
    """The candidate resolved when it is a regular file, what is wrong with it when it exists
    but is not one (a symbolic link cycle, a directory, a file that cannot be examined), or None
    when it does not exist. ``Path.is_file`` says False for all of these alike."""
    try:
        st = os.stat(candidate)
    except (OSError, ValueError) as exc:
        number = getattr(exc, "errno", None)
        if number == errno.ELOOP:
            return IncludeTargetProblem(candidate, "loop")
        reason = why_unreadable(exc) if isinstance(exc, OSError) else None
        return None if reason is None else IncludeTargetProblem(candidate, "unreadable", reason)
    if stat.S_ISDIR(st.st_mode):
        return IncludeTargetProblem(candidate, "directory")
    if not stat.S_ISREG(st.st_mode):
        return IncludeTargetProblem(candidate, "unreadable", "it is not a regular file")
    try:
        return candidate.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        return IncludeTargetProblem(candidate, "loop" if isinstance(exc, RuntimeError)
                                    or getattr(exc, "errno", None) == errno.ELOOP else "unreadable",
                                    why_unreadable(exc) or "")


def text_from_editor(path: Path, text: str, version: int) -> FileText:
    """The editor's copy of a file: already text, so only what reading a file would also do."""
    if "\x00" in text[:65536]:
        return FileText(path, "", version, LineIndex(""),
                        ("error", "binary-file", f"{path.name} looks binary (it contains NUL bytes); it is not indexed"))
    if text.startswith("\ufeff"):
        text = text[1:]
    return _file_text(path, unix_newlines(text), version, None)


def decode_file(path: Path, data: bytes, version: int) -> FileText:
    problem = None
    if b"\x00" in data[:65536]:
        text = ""
        problem = ("error", "binary-file", f"{path.name} looks binary (it contains NUL bytes); it is not indexed")
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            text = data.decode("utf-8", errors="replace")
            problem = ("warning", "encoding",
                       f"{path.name} is not valid UTF-8 (first bad byte at offset {exc.start}); "
                       "it was read with replacement characters")
    if text.startswith("\ufeff"):
        text = text[1:]
    return _file_text(path, unix_newlines(text), version, problem)


def _file_text(path: Path, text: str, version: int, problem: tuple[str, str, str] | None) -> FileText:
    too_long = longest_line_over(text)
    if too_long is not None:  # no paper has such a line; indexing it costs hundreds of MiB
        return FileText(path, "", version, LineIndex(""),
                        ("error", "file-too-large", f"{path.name} has a line of {too_long:,} characters; files with "
                         f"a line over {MAX_LINE_CHARS:,} characters are not indexed"))
    return FileText(path, text, version, LineIndex(text), problem)


def unix_newlines(text: str) -> str:
    """CRLF and a lone CR (old Mac files) end a line, for TeX as for LSP: both become LF."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def is_within(path: Path, directory: Path) -> bool:
    try:
        path.relative_to(directory)
        return True
    except ValueError:
        return False


def no_root_reason(path: Path, tex_files: list[Path], root_problems) -> str:
    """Why a path gave no root file, as the command line says it. A folder of PDFs (what a reader of
    papers has first) was told "no .tex file with \\documentclass", as though its .tex files lacked one."""
    if path.is_dir() and not tex_files:
        pdfs = sorted(p.name for p in path.glob("*.pdf"))
        return (f"{path}: no .tex file in this folder" + (f" (only {', '.join(pdfs[:3])}"
                f"{' ...' if len(pdfs) > 3 else ''}: colosseum reads the LaTeX sources, not a PDF)" if pdfs else ""))
    return (f"{path}: no root file (no .tex file with \\documentclass)"
            + (": " + "; ".join(map(str, root_problems)) if root_problems else ""))


def list_tex_files(root_dir: Path, exclude: list[str] | None = None) -> list[Path]:
    return list_project_files(root_dir, exclude).tex_files


def list_project_files(root_dir: Path, exclude: list[str] | None = None, read_only_paths=()) -> ProjectListing:
    """The project's .tex files, in a stable order (each folder's files by name, then its folders
    by name, depth first). Symbolic links are followed only while they stay inside the project
    (resolved) or lead to a read-only path of the user's config; a link out is reported once and
    not followed. ``os.scandir`` says which entries are links without a system call per file."""
    root_dir = Path(root_dir)
    listing = ProjectListing()
    boundary = Boundary.of(root_dir, read_only_paths)
    seen_dirs: set[tuple[int, int]] = set()
    stack = [root_dir]
    while stack:
        folder = stack.pop()
        try:
            st = os.stat(folder)
            with os.scandir(folder) as found:
                entries = sorted(found, key=lambda entry: entry.name)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in seen_dirs:  # a symlink cycle
            continue
        seen_dirs.add((st.st_dev, st.st_ino))
        if folder != root_dir and any(e.name == "colosseum.toml" and not _is_dir(e) for e in entries):
            continue  # a folder with its own colosseum.toml is a project of its own
        folders = []
        for entry in entries:
            if _is_dir(entry):
                if entry.name not in SKIPPED_DIRS and not entry.name.startswith(".") \
                        and _stays_inside(entry, boundary, listing):
                    folders.append(Path(entry.path))
            elif entry.name.endswith(".tex") and not _excluded(entry, root_dir, exclude) \
                    and _stays_inside(entry, boundary, listing):
                listing.tex_files.append(Path(entry.path))
                if len(listing.tex_files) >= MAX_PROJECT_FILES:
                    return listing
        stack.extend(reversed(folders))
    return listing


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()  # follows a symbolic link, as reading through it would
    except OSError:
        return False


def _excluded(entry: os.DirEntry, root_dir: Path, exclude: list[str] | None) -> bool:
    if not exclude:
        return False
    rel = Path(entry.path).relative_to(root_dir)
    return any(rel.match(pattern) for pattern in exclude)


def _stays_inside(entry: os.DirEntry, boundary: Boundary, listing: ProjectListing) -> bool:
    """Whether the walk may read ``entry``: anything but a symbolic link is inside (the walk starts
    inside and follows only links that stay so); a link out is reported in ``listing``."""
    if not entry.is_symlink() or boundary.may_read(Path(entry.path)):
        return True
    listing.problems.append(PathProblem(Path(entry.path), f"{entry.name} is a symbolic link to "
                                        f"{os.readlink(entry.path)}, outside the project folder; not read"))
    return False


def root_signature(text: str) -> tuple:
    """What of a file's text decides whether it is a root (see discover_roots): an edit that
    leaves this alone needs no new discovery."""
    magic = _MAGIC_ROOT.search(text[:20000])
    document = document_class(text)
    # what it reads, where that decides: a chapter rooted through a shared preamble (what it reads
    # before its \begin{document}), and a file with a class whose document begins in a file it
    # reads (without that, a template: colosseum.project.preamble_roots.never_compiled)
    begins = begins_document(text) is not None
    reads = (document is None and begins) or (document is not None and not begins)
    preamble = (preamble_inputs(text), reads_by_other_includes(text)) if reads else ()
    return (magic.group(1).strip() if magic else None, document, begins, preamble)


def _documentclass(text: str):
    # the pattern tries every line start: first ask whether the word is there at all (in C)
    return _DOCUMENTCLASS.search(text) if "\\documentclass" in text else None


def document_class(text: str) -> str | None:
    """The class of the file's \\documentclass, one the scanner reads as a command (not one shown
    in a verbatim or lstlisting environment, or under \\iffalse); None without one."""
    command = _documentclass_command(text)
    return command.value.strip() if command is not None else None


def _documentclass_command(text: str):
    m = _documentclass(text)
    if m is None:
        return None
    # a real root's class comes first: scanning up to the candidate is enough, and only a
    # candidate inside a skipped region costs a scan of the whole file
    for end in (m.end(), len(text)):
        for ev in scan(text[:end], MacroTable()).events:
            if ev.kind == "package" and ev.name == "documentclass":
                return ev
    return None


def named_root(path: Path) -> Path | None:
    """The root file that ``path``, not a root itself, names: its ``% !TEX root`` target, or the
    main file of a subfiles child (``\\documentclass[../main.tex]{subfiles}``); None when it names
    none, or itself, or a file that does not exist."""
    found = read_file(path, 0)
    if found is None:
        return None
    text = found.text
    magic = _MAGIC_ROOT.search(text[:20000])
    if magic:
        target = magic.group(1).strip()
    else:
        command = _documentclass_command(text)
        options = _CLASS_OPTIONS.match(text, command.start) if command is not None else None
        if options is None or command.value.strip() != "subfiles":
            return None
        target = options.group(1).strip()
    named = path.parent / target
    for candidate in (named, named.with_name(named.name + ".tex")):
        if candidate.is_file() and candidate.resolve() != path.resolve():
            return candidate.resolve()
    return None


def marked_folder(path: Path) -> Path | None:
    """The nearest folder at or above ``path`` (resolved) that holds a colosseum.toml, or None."""
    probe = resolved(Path(path))
    probe = probe if probe.is_dir() else probe.parent
    while probe != probe.parent:
        if (probe / "colosseum.toml").is_file():
            return probe
        probe = probe.parent
    return None


def project_folder(path: Path) -> Path:
    """The folder that bounds the project ``path`` belongs to, resolved: a folder is its own; a
    file's is the nearest folder above it with a colosseum.toml, else the file's own folder. Every
    read and write of the project stays inside it (colosseum.settings.boundary)."""
    path = resolved(Path(path))
    if not path.is_file():
        return path
    return marked_folder(path) or path.parent


def root_in_reach(part: Path, root: Path) -> bool:
    """Whether a part may be read as part of the ``root`` it names: the root's project folder holds
    the part, and the part's own project (a colosseum.toml above it), if it has one, holds the root.
    A part naming a root elsewhere on the disk (``% !TEX root = ../../other/main.tex``) is not."""
    part, root = resolved(Path(part)), resolved(Path(root))
    marked = marked_folder(part)
    return is_under(part, project_folder(root)) and (marked is None or is_under(root, marked))


def root_outside(path: Path, project_dir: Path | None = None, text: str | None = None) -> PathProblem | None:
    """The finding for a file whose ``% !TEX root`` (or subfiles main file) names a file outside
    ``project_dir`` once symbolic links are resolved (without ``project_dir``: out of reach, see
    ``root_in_reach``): not followed, reported on the comment's line."""
    named = named_root(path)
    if named is None:
        return None
    if project_dir is not None and is_under(resolved(named), resolved(project_dir)):
        return None
    if project_dir is None and root_in_reach(path, named):
        return None
    if text is None:
        found = read_file(path, 0)
        text = found.text if found is not None else ""
    magic = _MAGIC_ROOT.search(text[:20000])
    line = text[:magic.start(1)].count("\n") if magic else 0
    folder = project_dir if project_dir is not None else project_folder(path)
    return PathProblem(path, f"{path.name} names its root {named}, outside the project folder ({folder}); "
                             "not followed", line=line)


def discover_roots(root_dir: Path, texts: dict[Path, str], configured: list[str]) -> Discovery:
    """Roots: configured ones, else every .tex file with a \\documentclass (not a subfile or a
    standalone figure), or one that reads it from a shared preamble and begins the document
    itself (colosseum.project.preamble_roots), that no ``% !TEX root`` comment points elsewhere;
    not one that begins no document (a template, a shared preamble) while other roots do."""
    result = Discovery(tex_files=sorted(texts))
    if configured:
        for name in configured:
            path = (root_dir / name).resolve() if not Path(name).is_absolute() else Path(name)
            if path.is_file():
                result.roots.append(path)
            else:
                result.problems.append(f"configured root `{name}` does not exist")
        if result.roots:
            return result
    candidates: set[Path] = set()  # no % !TEX root elsewhere, no \\documentclass of their own
    class_files: set[Path] = set()
    for path, text in texts.items():
        head = text[:20000]
        magic = _MAGIC_ROOT.search(head)
        if magic:
            target = (path.parent / magic.group(1).strip()).resolve()
            if target != path.resolve():
                outside = root_outside(path, root_dir, text)
                if outside is not None:
                    result.problems.append(outside)
                continue
        document = document_class(text)
        if document is None:
            candidates.add(path)
        elif document not in NOT_ROOT_CLASSES:
            result.roots.append(path)
            class_files.add(path)
    if class_files:
        result.roots += [path for path in preamble_roots(texts, class_files) if path in candidates]
        templates = never_compiled(result.roots, texts)
        result.roots = [root for root in result.roots if root not in templates]
    result.roots.sort()
    return result


def resolve_include(command: str, argument: str, directory: str | None, including_file: Path,
                    root_file: Path, import_base: Path | None) -> list[Path]:
    """Candidate paths for an include, in the order LaTeX would try them."""
    arg = argument.strip().strip('"')
    if not arg:
        return []
    bases: list[Path] = []
    if command in ("import", "inputfrom", "includefrom"):
        base = Path(directory or "")
        bases.append(base if base.is_absolute() else (root_file.parent / base))
    elif command in ("subimport", "subinputfrom", "subincludefrom"):
        bases.append((import_base or including_file.parent) / (directory or ""))
    elif command == "subfile":
        bases += [including_file.parent, root_file.parent]
    else:
        bases += [root_file.parent, including_file.parent]
        if import_base is not None:
            bases.insert(0, import_base)
    names = [arg + ".tex", arg] if command != "include" else [arg + ".tex"]
    if arg.endswith(".tex"):
        names = [arg]
    out: list[Path] = []
    for base in bases:
        for name in names:
            candidate = Path(name) if Path(name).is_absolute() else base / name
            if candidate not in out:
                out.append(candidate)
    return out
