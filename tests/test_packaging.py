"""A release that builds: `python -m build` makes an sdist and, from it, a wheel; both carry the
LICENSE, and the wheel carries what the engine reads at run time (the prompts, the starter catalog
and its schema, the LaTeX package, the JSON files of colosseum/data/) and finds it there. Installed
in a fresh virtual environment, the wheel alone runs `colosseum check`. A base install has no model
or Lean client: it checks a paper all the same, and a command that needs one names the extra."""

from __future__ import annotations

import email.parser
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "example-project"
OPTIONAL_CLIENTS = ("anthropic", "httpx", "leanclient")  # the [models] and [lean] extras
EXTRAS = {"models", "lean", "probe", "bench", "all", "test"}
SETUPTOOLS_WITH_LICENSE_EXPRESSIONS = 77  # PEP 639: `license = "SPDX"` and `license-files`
ON_CI = os.environ.get("CI") == "true"
VENDORED = {f"colosseum/data/vendor/{name}" for name in ("dagre.min.js", "LICENSE", "README.md")}
PIP_TIMEOUT = 600  # a fresh environment downloads the base dependencies


@dataclass(frozen=True)
class Release:
    sdist: Path
    wheel: Path  # built from the sdist, not from the checkout


def _cannot_install(what: str, done: subprocess.CompletedProcess) -> None:
    """A registry that cannot be reached skips the test here; on CI it is a failure."""
    message = f"{what} failed: {done.stderr[-2000:]}"
    if ON_CI:
        pytest.fail(message)
    pytest.skip(message)


def _environment_without_checkout() -> dict:
    """The environment minus PYTHONPATH, so that a fresh venv runs its own install, not this checkout."""
    return {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}


def _builder(tmp_path_factory) -> str:
    """A Python that builds without build isolation, so that no build downloads anything: this one
    when it has `build` and a setuptools that reads license expressions (the test extra installs
    both); else a venv given them once."""
    try:
        import build  # noqa: F401 - only whether it is there

        setuptools_major = int(version("setuptools").split(".")[0])
    except (ImportError, PackageNotFoundError):
        setuptools_major = 0
    if setuptools_major >= SETUPTOOLS_WITH_LICENSE_EXPRESSIONS:
        return sys.executable
    venv = tmp_path_factory.mktemp("builder") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    done = subprocess.run([python, "-m", "pip", "install", "-q", "build>=1.2",
                           f"setuptools>={SETUPTOOLS_WITH_LICENSE_EXPRESSIONS}"],
                          capture_output=True, text=True, timeout=PIP_TIMEOUT, env=_environment_without_checkout())
    if done.returncode != 0:
        _cannot_install("installing build and setuptools for the build", done)
    return python


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Release:
    source = tmp_path_factory.mktemp("src") / "repo"
    # a copy, so that the build leaves nothing in the checkout
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "node_modules", "build", "dist", "*.egg-info", "__pycache__", ".colosseum", ".hypothesis",
        ".pytest_cache", "editor-clients", "bench", "tests"))
    out = tmp_path_factory.mktemp("dist")
    # with no --sdist or --wheel, `build` makes the sdist, unpacks it and builds the wheel from it
    done = subprocess.run([_builder(tmp_path_factory), "-m", "build", "--no-isolation", "--outdir", str(out),
                           str(source)], capture_output=True, text=True, timeout=300,
                          env=_environment_without_checkout())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return Release(sdist, wheel)


def _shipped_json() -> list[Path]:
    return sorted((REPO / "colosseum" / "data").glob("*.json"))


def _bench_problems() -> set[str]:
    """The problem set `colosseum bench` runs on (main.tex, problems.bib, README.md)."""
    folder = REPO / "colosseum" / "data" / "bench-problems"
    return {f"colosseum/data/bench-problems/{f.name}" for f in folder.iterdir() if f.is_file()}


def test_the_sdist_carries_the_license_and_what_the_wheel_is_built_from(release):
    with tarfile.open(release.sdist) as sdist:
        top, *_ = sdist.getnames()
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"LICENSE", "README.md", "pyproject.toml", "setup.py", "MANIFEST.in"} <= names, top
    assert {f"prompts/{p.name}" for p in (REPO / "prompts").glob("*.md")} <= names
    assert {f"knowledge/starter/{e.name}" for e in (REPO / "knowledge" / "starter").iterdir()} <= names
    assert VENDORED <= names
    assert "knowledge/schema.json" in names and "colosseum/data/colosseum.sty" in names
    assert {f"colosseum/data/{j.name}" for j in _shipped_json()} <= names
    assert _bench_problems() <= names


def test_the_wheel_carries_the_license_prompts_starter_catalog_and_schema(release):
    names = set(zipfile.ZipFile(release.wheel).namelist())
    assert VENDORED <= names  # dagre, which the dependency-graph page inlines, with its licence
    for prompt in (REPO / "prompts").glob("*.md"):
        assert f"colosseum/data/prompts/{prompt.name}" in names
    for entry in (REPO / "knowledge" / "starter").iterdir():
        assert f"colosseum/data/starter/{entry.name}" in names
    assert "colosseum/data/knowledge-schema.json" in names and "colosseum/data/colosseum.sty" in names
    assert {f"colosseum/data/{j.name}" for j in _shipped_json()} <= names
    assert len(_bench_problems()) == 3 and _bench_problems() <= names
    assert any(n.startswith("colosseum_lsp/") for n in names)
    assert any(re.fullmatch(r"colosseum_latex-[^/]+\.dist-info/licenses/LICENSE", n) for n in names)
    assert not any(n.split("/")[0] in ("server", "tests", "prompts", "knowledge") for n in names)


def _metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return email.parser.Parser().parsestr(archive.read(name).decode("utf-8"))


def test_the_metadata_states_the_license_the_platform_and_the_extras(release):
    from packaging.requirements import Requirement

    metadata = _metadata(release.wheel)
    assert metadata["License-Expression"] == "Apache-2.0" and metadata["License"] is None  # not the old table
    assert metadata.get_all("License-File") == ["LICENSE"]
    classifiers = set(metadata.get_all("Classifier"))
    assert {"Operating System :: POSIX", "Topic :: Scientific/Engineering :: Mathematics",
            "Programming Language :: Python :: 3.11"} <= classifiers
    assert "latex" in metadata["Keywords"].split(",")
    assert EXTRAS <= set(metadata.get_all("Provides-Extra"))
    requirements = [Requirement(line) for line in metadata.get_all("Requires-Dist")]
    base = {r.name.lower() for r in requirements if r.marker is None}
    assert not base & {"anthropic", "httpx", "leanclient", "numpy", "sympy", "matplotlib"}, base
    for bounded in ("anthropic", "leanclient"):
        (requirement,) = [r for r in requirements if r.name == bounded]
        assert any(s.operator == "<" for s in requirement.specifier), requirement
    # PyPI cannot show an image by a path relative to the repository
    assert not re.search(r"!\[[^\]]*\]\((?!https?://)", metadata.get_payload())
    assert "colosseum check example-project" in metadata.get_payload()


def test_the_installed_package_reads_them_from_itself(release, tmp_path):
    target = tmp_path / "site"
    zipfile.ZipFile(release.wheel).extractall(target)
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


def _checked_here(project: Path) -> subprocess.CompletedProcess:
    """`colosseum check` from this checkout: what the installed wheel must print too."""
    return subprocess.run([sys.executable, "-m", "colosseum", "check", str(project)], capture_output=True,
                          text=True, timeout=120)


def test_a_fresh_venv_with_the_wheel_alone_runs_check(release, tmp_path):
    """The done-criterion of the release: no checkout on the path, no system site-packages, only
    the wheel and the base dependencies pip brings for it."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    env = _environment_without_checkout()
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(release.wheel)],
                          capture_output=True, text=True, timeout=PIP_TIMEOUT, env=env)
    if done.returncode != 0:
        _cannot_install("installing the wheel in a fresh venv", done)
    project = shutil.copytree(EXAMPLE, tmp_path / "example-project",
                              ignore=shutil.ignore_patterns(".colosseum", ".lake"))
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import colosseum, importlib.util as u; print(colosseum.__file__); "
                            f"print([m for m in {OPTIONAL_CLIENTS!r} if u.find_spec(m)])"],
                           capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    module_file, found_clients = where.stdout.splitlines()
    assert Path(module_file).is_relative_to(venv), module_file
    assert found_clients == "[]"  # a base install: no model or Lean client

    checked = subprocess.run([str(venv / "bin" / "colosseum"), "check", str(project)], capture_output=True,
                             text=True, timeout=120, env=env, cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert "colosseum/depends-on-open-obligation" in checked.stdout and " 0 errors" in checked.stderr + checked.stdout
    assert checked.stdout == _checked_here(project).stdout

    served = subprocess.run([str(venv / "bin" / "colosseum"), "serve"], capture_output=True, text=True, timeout=120,
                            env=env, cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert served.returncode == 0, served.stderr  # the language server's dependencies are in the base install
    solve = subprocess.run([str(venv / "bin" / "colosseum"), "solve", str(project), "--label", "lem:resampling"],
                           capture_output=True, text=True, timeout=120, env=env | {"ANTHROPIC_API_KEY": "unused"},
                           cwd=tmp_path)
    assert solve.returncode == 2 and "pip install 'colosseum-latex[models]'" in solve.stderr, solve.stderr


# `import name` raises ImportError for each of them, as when the extra is not installed
WITHOUT_CLIENTS = ("import sys\n"
                   f"for name in {OPTIONAL_CLIENTS!r}:\n    sys.modules[name] = None\n"
                   "from colosseum.cli.main import main\n"
                   "sys.exit(main(sys.argv[1:]))\n")


def _without_clients(*argv: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT_CLIENTS, *argv], capture_output=True, text=True,
                          timeout=120, env=os.environ | env, stdin=subprocess.DEVNULL)


def test_check_dag_and_serve_run_without_the_model_and_lean_clients(tmp_path):
    project = shutil.copytree(EXAMPLE, tmp_path / "example-project",
                              ignore=shutil.ignore_patterns(".colosseum", ".lake"))
    checked = _without_clients("check", str(project))
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout == _checked_here(project).stdout
    dag = _without_clients("dag", str(project), "--format", "json")
    assert dag.returncode == 0 and '"nodes"' in dag.stdout, dag.stderr
    served = _without_clients("serve")  # loads every feature, then ends at the end of its input
    assert served.returncode == 0, served.stderr


def test_a_solve_without_the_model_clients_names_the_extra(tmp_path):
    project = shutil.copytree(EXAMPLE, tmp_path / "example-project",
                              ignore=shutil.ignore_patterns(".colosseum", ".lake"))
    solve = _without_clients("solve", str(project), "--label", "lem:resampling", ANTHROPIC_API_KEY="unused")
    assert solve.returncode == 2, solve.stderr
    assert solve.stderr.strip() == "colosseum: the model providers need the extra: pip install 'colosseum-latex[models]'"
    assert "Traceback" not in solve.stderr


def test_each_client_names_its_extra_when_it_cannot_be_imported(monkeypatch):
    from colosseum.lean.session import LeanServerFailed, _client_class
    from colosseum.models import ProviderError
    from colosseum.models.anthropic_provider import AnthropicProvider
    from colosseum.models.openai_compatible import OpenAICompatibleProvider

    for name in OPTIONAL_CLIENTS:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ProviderError, match=re.escape("pip install 'colosseum-latex[models]'")):
        AnthropicProvider(api_key="unused")
    with pytest.raises(ProviderError, match=re.escape("pip install 'colosseum-latex[models]'")):
        OpenAICompatibleProvider("a-model", "http://127.0.0.1:9")
    with pytest.raises(LeanServerFailed, match=re.escape("the Lean check needs the extra: "
                                                         "pip install 'colosseum-latex[lean]'")):
        _client_class()
