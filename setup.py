"""Only the build step pyproject.toml cannot express: the prompts (prompts/*.md) and the starter
catalog with its schema (knowledge/) live at the top of the repository, where people edit them,
and an installed package needs its own copy under colosseum/data/ (where prompt_specs.py and
catalog.py look first). Everything else is configured in pyproject.toml."""

from pathlib import Path
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# (source in this repository, destination inside the built colosseum package)
SHIPPED = (("prompts", "data/prompts"), ("knowledge/starter", "data/starter"),
           ("knowledge/schema.json", "data/knowledge-schema.json"))


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


setup(cmdclass={"build_py": BuildWithData})
