"""Prompt specifications: one file per agent role in ``prompts/`` (data, not code). A file has
a YAML header (role, version, inputs, output schema) and a body with a SYSTEM: part (the long
shared prefix, cached by providers) and a USER: part, both with ``{name}`` placeholders.

Quoted data has its own form in a template, a block of three lines::

    <document name="notation">
    {notation}
    </document>

Rendering fences the block's value with tags derived from a hash of the value (``quoting.py``),
so no paper can close its own quote; a placeholder outside such a block gets an inline value."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from colosseum.core.resources import PACKAGE_DATA, REPOSITORY
from colosseum.models.quoting import fence, inline

PROMPT_LOCATIONS = (
    PACKAGE_DATA / "prompts",  # installed package
    REPOSITORY / "prompts",  # this repository
)


class PromptError(ValueError):
    pass


@dataclass(frozen=True)
class PromptSpec:
    role: str
    version: int
    inputs: tuple[str, ...]
    schema: dict
    system_template: str
    user_template: str
    path: Path

    def render(self, values: dict[str, str]) -> tuple[str, str]:
        missing = [name for name in self.inputs if name not in values]
        if missing:
            raise PromptError(f"{self.path.name}: missing inputs {', '.join(missing)}")
        return _fill(self.system_template, values), _fill(self.user_template, values)


def _fill(template: str, values: dict[str, str]) -> str:
    """Every quoted block and every ``{name}`` of ``values`` replaced in one pass over the
    template, so a value that itself contains ``{other}`` (LaTeX is full of braces) or
    ``</document>`` is inserted as it is: never filled in, never able to end its quote."""
    if not values:
        return template

    def replace(match: re.Match) -> str:
        name, quoted, placeholder = match.group("name", "quoted", "placeholder")
        if quoted is None:
            return inline(values[placeholder])
        title = _placeholders(tuple(values)).sub(lambda m: str(values[m.group(1)]), name)
        return fence("document", str(values[quoted]), name=title)
    return _slots(tuple(values)).sub(replace, template)


@lru_cache(maxsize=64)
def _placeholders(names: tuple[str, ...]) -> re.Pattern:
    return re.compile("\\{(" + "|".join(map(re.escape, names)) + ")\\}")


@lru_cache(maxsize=64)
def _slots(names: tuple[str, ...]) -> re.Pattern:
    """A quoted block (its name may hold placeholders) or a bare placeholder of ``names``."""
    alternatives = "|".join(map(re.escape, names))
    return re.compile(f'<document name="(?P<name>[^"\\n]*)">\\n\\{{(?P<quoted>{alternatives})\\}}\\n</document>'
                      f"|\\{{(?P<placeholder>{alternatives})\\}}")


@lru_cache(maxsize=32)
def load_prompt(role: str, directory: Path | None = None) -> PromptSpec:
    import yaml

    folders = (directory,) if directory else PROMPT_LOCATIONS
    for folder in folders:
        path = Path(folder) / f"{role}.md"
        if path.is_file():
            break
    else:
        raise PromptError(f"no prompt file for role `{role}` in {', '.join(map(str, folders))}")
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n") or "\n---\n" not in text[4:]:
        raise PromptError(f"{path}: a prompt file starts with a YAML header between --- lines")
    header_text, body = text[4:].split("\n---\n", 1)
    header = yaml.safe_load(header_text) or {}
    for key in ("role", "version", "inputs", "output_schema"):
        if key not in header:
            raise PromptError(f"{path}: header field `{key}` is missing")
    if "SYSTEM:\n" not in body or "\nUSER:\n" not in body:
        raise PromptError(f"{path}: the body needs a SYSTEM: part and a USER: part")
    system, user = body.split("SYSTEM:\n", 1)[1].split("\nUSER:\n", 1)
    inputs = tuple(header["inputs"])
    if any("</document>" in _slots(inputs).sub("", part) for part in (system, user)):
        raise PromptError(f"{path}: quoted data goes in a block <document name=...>, {{input}}, </document>")
    return PromptSpec(header["role"], int(header["version"]), inputs, header["output_schema"],
                      system.strip() + "\n", user.strip() + "\n", path)
