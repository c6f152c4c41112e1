"""The answer cache as a user sees it: how many answers it holds, for which prompts, how many the
current prompts can never ask for again (stale), and pruning; and the line a dry run says of it
before money is spent (``colosseum cache stats|prune``, ``--dry-run``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from colosseum.core.paths import answer_cache_dir
from colosseum.models.response_cache import cache_entries

UNVERSIONED = "unversioned"  # what stats call the entries written before they carried a version


@dataclass
class CacheStats:
    """What the answer cache of a project holds. ``by_role``: role -> prompt version (or
    "unversioned") -> entries."""

    directory: Path
    entries: int = 0
    size_bytes: int = 0
    stale: int = 0
    unversioned: int = 0
    by_role: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def reusable(self) -> int:
        """Entries the current prompts may still ask for (the unversioned ones included: their keys may match)."""
        return self.entries - self.stale

    def to_json(self) -> dict:
        return {"directory": str(self.directory), "entries": self.entries, "size_bytes": self.size_bytes,
                "stale": self.stale, "unversioned": self.unversioned, "reusable": self.reusable,
                "by_role": self.by_role}


def cache_stats(root_dir: Path) -> CacheStats:
    directory = answer_cache_dir(root_dir)
    stats, current = CacheStats(directory), {}
    for entry in cache_entries(directory):
        stats.entries += 1
        stats.size_bytes += entry.size
        stats.stale += entry.stale(current)
        stats.unversioned += not entry.versioned
        version = str(entry.prompt_version) if entry.versioned and entry.prompt_version is not None else UNVERSIONED
        role = entry.role if isinstance(entry.role, str) else "(no role)"
        counts = stats.by_role.setdefault(role, {})
        counts[version] = counts.get(version, 0) + 1
    return stats


@dataclass(frozen=True)
class Pruned:
    removed: int
    freed_bytes: int
    kept: int


def prune_cache(root_dir: Path, *, everything: bool) -> Pruned:
    """Removes the stale entries (or, with ``everything``, all of them); unversioned entries are
    kept unless ``everything``: they may still be asked for."""
    removed = freed = kept = 0
    current: dict[str, dict] = {}
    for entry in cache_entries(answer_cache_dir(root_dir)):
        if everything or entry.stale(current):
            entry.path.unlink(missing_ok=True)
            removed, freed = removed + 1, freed + entry.size
        else:
            kept += 1
    return Pruned(removed, freed, kept)


def stale_line(root_dir: Path) -> str:
    """What a run says before its first call when a change of prompts or format has made cached
    answers useless (empty when none has): those calls are paid for again."""
    stale = cache_stats(root_dir).stale
    if not stale:
        return ""
    return (f"{stale} cached answer{'s' if stale != 1 else ''} {'was' if stale == 1 else 'were'} written for older "
            "prompts or formats: what they answered is asked (and paid for) again "
            "(`colosseum cache prune --stale` removes them)")


def reuse_line(root_dir: Path, use_cache: bool = True) -> str:
    """What a dry run says of the cache before any money is spent; empty when there is none."""
    if not use_cache:
        return "The answer cache is off (--no-cache): every call is paid for."
    stats = cache_stats(root_dir)
    if not stats.entries:
        return ""
    line = (f"{stats.reusable} cached answer{'s' if stats.reusable != 1 else ''} can be reused by the current prompts; "
            f"{stats.stale} {'was' if stats.stale == 1 else 'were'} written for older prompts or formats "
            "and will not be")
    return line + (" (`colosseum cache prune --stale` removes them)." if stats.stale else ".")
