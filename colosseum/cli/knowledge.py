"""``colosseum knowledge check|list|show PATH``."""

from __future__ import annotations

import sys
from pathlib import Path

from colosseum.app.knowledge import CatalogOutsideProject, catalog_directory
from colosseum.catalog.store import load_catalog
from colosseum.cli.terminal import print_json


def _catalog_directory(path: Path) -> Path | None:
    """The catalog's folder; None, said on stderr, when it leads outside the project."""
    try:
        return catalog_directory(path.resolve())
    except CatalogOutsideProject as exc:
        print(f"colosseum: {exc}", file=sys.stderr)
        return None


def run_knowledge(args) -> int:
    path = Path(args.path)
    if not path.exists():
        print(f"colosseum: {path}: no such file or directory", file=sys.stderr)
        return 2
    directory = _catalog_directory(path)
    if directory is None:
        return 2
    catalog = load_catalog(directory, with_starter=not args.no_starter)

    def rel(file: Path) -> str:
        for base in (directory.parent, Path.cwd()):
            try:
                return file.relative_to(base).as_posix()
            except ValueError:
                continue
        return str(file)

    if args.action == "check":
        problems = sorted(catalog.problems, key=lambda p: (str(p.file), p.field))
        if args.format == "json":
            print_json({"entries": len(catalog.entries), "problems": [
                {"file": rel(p.file), "line": p.line + 1, "field": p.field, "severity": p.severity,
                 "message": p.message} for p in problems]})
        else:
            for p in problems:
                where = f"{p.field}: " if p.field else ""
                print(f"{rel(p.file)}:{p.line + 1}: {p.severity} {where}{p.message}")
            print(f"{len(catalog.entries)} entries, {len(catalog.malformed())} malformed", file=sys.stderr)
        return 1 if catalog.malformed() else 0
    if args.action == "add":
        from colosseum.app.knowledge import CatalogRefused, add_entry
        from colosseum.app.project import ProjectNotOpened, open_plain

        try:
            index = open_plain(path)
        except ProjectNotOpened as exc:
            print(f"colosseum: {exc}", file=sys.stderr)
            return 2
        claim = index.claims.get(args.entry or "")
        if claim is None:
            print(f"colosseum: no claim `{args.entry}` in the paper", file=sys.stderr)
            return 2
        try:
            written, problems = add_entry(path.resolve(), claim)
        except CatalogRefused as exc:
            print(f"colosseum: {exc}", file=sys.stderr)
            return 2
        print(f"added {rel(written)}" + (": " + "; ".join(p.message for p in problems) if problems else ""))
        return 1 if problems else 0
    if args.action == "retract":
        return _retract(args, path, directory, rel)
    if args.action == "list":
        return _list(catalog, args, rel)
    entry = catalog.entries.get(args.entry or "")
    if entry is None:
        print(f"colosseum: no entry `{args.entry}` in {directory}", file=sys.stderr)
        return 2
    if args.format == "json":
        print_json({"file": rel(entry.file), "layer": entry.layer, **entry.data})
    else:
        print(entry.file.read_text(encoding="utf-8"))
    return 0


def _retract(args, path: Path, directory: Path, rel) -> int:
    from colosseum.app.knowledge import CatalogRefused, retract

    if not args.reason:
        print("colosseum: say why: --reason '...'", file=sys.stderr)
        return 2
    try:
        retraction = retract(path.resolve(), args.entry or "", args.reason)
    except CatalogRefused as exc:
        print(f"colosseum: {exc}", file=sys.stderr)
        return 2
    for p in retraction.problems:
        print(f"{rel(p.file)}: {p.field}: {p.message}", file=sys.stderr)
    print(f"retracted `{args.entry}`; now suspect: {', '.join(retraction.suspect) or 'no other catalog entry'}"
          f"{_suspect_in_the_paper(path, directory, [args.entry, *retraction.suspect])}")
    return 1 if retraction.problems else 0


def _suspect_in_the_paper(path: Path, directory: Path, entry_ids: list) -> str:
    """"; in the paper, N claims ...": what `check` will call suspect (the catalog's own list says
    nothing of the paper); empty when the paper cannot be read."""
    from colosseum.app.project import ProjectNotOpened, open_plain
    from colosseum.catalog.checks import suspect_claims

    try:
        index = open_plain(path)
    except ProjectNotOpened:
        return ""
    count = len(suspect_claims(load_catalog(directory), index, entry_ids))
    return f"; in the paper, {count} claim{'' if count == 1 else 's'} (`colosseum check` lists them)" if count else \
        "; in the paper, no claim"


def _list(catalog, args, rel) -> int:
    """Every entry; an observation's computations (range and verdict) each on a line of their own,
    named as computation: small cases checked, apart from the entry's other evidence."""
    from colosseum.catalog.evidence import computation_line, entry_items

    entries = sorted(catalog.entries.values(), key=lambda e: (e.layer, e.kind, e.id))
    if args.format == "json":
        print_json({"entries": [{"id": e.id, "kind": e.kind, "status": e.status, "title": e.title,
                                 "layer": e.layer, "file": rel(e.file),
                                 "computation": [i.as_json() for i in entry_items(e) if i.kind == "computation"]}
                                for e in entries]})
        return 0
    for e in entries:
        print(f"{e.id:40} {e.kind:13} {e.status:10} {e.title}")
        for item in entry_items(e):
            if item.kind == "computation":
                print(f"{'':40} computation (not a proof): {computation_line(item)}")
    return 0
