"""Only the build steps pyproject.toml cannot express:

- The prompts (prompts/*.md) and the starter catalog with its schema (knowledge/) live at the top
  of the repository, where people edit them, and an installed package needs its own copy under
  colosseum/data/ (where models/prompts.py and catalog/store.py look first). MANIFEST.in puts them
  in the sdist, so a wheel built from the sdist gets them too.
- The long description is README.md without its images: their paths are relative to the
  repository, which PyPI cannot show, and the project states no address to make them absolute.

Everything else is configured in pyproject.toml."""

from pathlib import Path
import re
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# (source in this repository, destination inside the built colosseum package)
SHIPPED = (("prompts", "data/prompts"), ("knowledge/starter", "data/starter"),
           ("knowledge/schema.json", "data/knowledge-schema.json"),
           # the diagnostics' codeDescription links to its "Diagnostic codes" table (convert.py)
           ("README.md", "data/README.md"))
# a Markdown image on a line of its own, `![alt](path)`, whose path is not an absolute URL
RELATIVE_IMAGE = re.compile(r"^!\[[^\]]*\]\((?!https?://)[^)]*\)\s*$")


class BuildWithData(build_py):
    def run(self):
        super().run()
        if self.editable_mode:
            return  # an editable install reads them from the repository itself
        package = Path(self.build_lib) / "colosseum"
        for source, destination in SHIPPED:
            origin, target = HERE / source, package / destination
            if origin.is_dir():
                shutil.copytree(origin, target, dirs_exist_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, target)


def long_description() -> str:
    lines = (HERE / "README.md").read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(line for line in lines if not RELATIVE_IMAGE.match(line))


setup(cmdclass={"build_py": BuildWithData}, long_description=long_description(),
      long_description_content_type="text/markdown")
