"""An installed package (a wheel, not this checkout) carries what the engine reads at run time:
the prompts, the starter catalog and its schema, the LaTeX package; and finds them there."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    pytest.importorskip("wheel", reason="the packaging test builds a wheel with the `wheel` package")
    source = tmp_path_factory.mktemp("src") / "repo"
    # a copy, so that the build leaves nothing in the checkout
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", "node_modules", "build", "*.egg-info", "__pycache__", ".colosseum", "editor-clients", "bench", "tests"))
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(out), str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (built,) = out.glob("*.whl")
    return built


def test_the_wheel_carries_the_prompts_the_starter_catalog_and_the_schema(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for prompt in (REPO / "prompts").glob("*.md"):
        assert f"colosseum/data/prompts/{prompt.name}" in names
    for entry in (REPO / "knowledge" / "starter").iterdir():
        assert f"colosseum/data/starter/{entry.name}" in names
    assert "colosseum/data/knowledge-schema.json" in names and "colosseum/data/colosseum.sty" in names
    assert any(n.startswith("colosseum_lsp/") for n in names)
    assert not any(n.split("/")[0] in ("server", "tests", "prompts", "knowledge") for n in names)


def test_the_installed_package_reads_them_from_itself(wheel, tmp_path):
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)
    code = (f"import sys; sys.path.insert(0, r'{target}'); "
            "from colosseum.models.prompts import load_prompt; from colosseum.catalog.store import load_catalog, "
            "starter_directory; import colosseum, pathlib; "
            "assert pathlib.Path(colosseum.__file__).is_relative_to(pathlib.Path(r'%s')); "
            "print(load_prompt('generator').role, len(load_catalog(None).entries), starter_directory())" % target)
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    role, entries, starter = done.stdout.split()
    assert role == "generator" and int(entries) == len(list((REPO / "knowledge" / "starter").glob("*.md")))
    assert starter.startswith(str(target))
