"""A regular expression compiled when first used, not when its module is imported.

`colosseum check` imports about sixty module-level patterns, most of which a given project never
needs (bibliography files, settings files, generated inputs, citations): compiling them all at
import was a tenth of the command's import time (issue #15).
"""

from __future__ import annotations

import re


class LazyPattern:
    """Stands for ``re.compile(pattern, flags)``: any attribute (``search``, ``finditer``,
    ``pattern`` ...) compiles it on first use. The attribute is then kept on the instance, so a
    hot loop's ``PATTERN.match`` is one dictionary look-up, as cheap as on the compiled pattern."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern itself (for APIs that need an ``re.Pattern``)."""
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self.__dict__["_compiled"] = re.compile(*self._source)
        return compiled

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self.compiled(), name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f"lazy_regex({self._source[0]!r}, {self._source[1]!r})"


def lazy_regex(pattern: str, flags: int = 0) -> LazyPattern:
    return LazyPattern(pattern, flags)
