"""One consistent reading of the index for a review, which takes minutes while the server keeps
indexing the author's edits: the snapshot (claims, sections, references, the DAG) and every file's
text as they were when the review started, so that quotes, line numbers and claims agree."""

from __future__ import annotations

from pathlib import Path


class IndexView:
    def __init__(self, index):
        snap = index.snapshot
        self.snapshot = snap
        self.root_dir: Path = index.root_dir
        self.roots = list(index.roots)
        self.config = index.config
        self.claims, self.sections, self.references = snap.claims, snap.sections, snap.references
        self.label_owner, self.graph, self.root_results = snap.label_owner, snap.graph, snap.root_results
        self._relative = index.relative
        self._index = index
        self._texts = {path: index.text_of(path) for result in snap.root_results for path in result.files}
        self.document = None  # the DocumentText, built once (anchoring.document_text)

    def relative(self, path: Path) -> str:
        return self._relative(path)

    def text_of(self, path: Path):
        if path not in self._texts:  # a file outside every root (a preamble read by none): read now
            self._texts[path] = self._index.text_of(path)
        return self._texts[path]


def frozen(index) -> IndexView:
    return index if isinstance(index, IndexView) else IndexView(index)
