"""Where the files that ship with the engine are: inside the installed package (``colosseum/data``,
copied there by setup.py at build time) or, in a checkout, at the top of the repository where
people edit them."""

from pathlib import Path

PACKAGE_DATA = Path(__file__).resolve().parents[1] / "data"
REPOSITORY = Path(__file__).resolve().parents[2]
