"""Finding an entry the engine wrote: its id is the wanted name plus a writer's suffix
(``proof-of-lem-x-3fa2c1``), so that co-authors' entries never share a file name."""

import re
from pathlib import Path


def written_entry(folder: Path, wanted: str) -> Path:
    """The one entry file in ``folder`` whose id is ``wanted`` plus a writer's suffix."""
    pattern = re.compile(re.escape(wanted) + r"-[0-9a-f]{6}\.md")
    found = [p for p in folder.glob(f"{wanted}-*.md") if pattern.fullmatch(p.name)]
    assert len(found) == 1, f"expected one {wanted}-<suffix>.md in {folder}, found {[p.name for p in found]}"
    return found[0]
