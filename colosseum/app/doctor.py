"""`colosseum doctor`: what this machine can do for a project and how to fix what it cannot. Each
check is a plain record (what was looked at, what was found, how to fix it, and whether the
project's settings use it); the CLI prints them as one table and exits 1 when something the
project uses is missing. Nothing here prints the API key: a record says only that it is set."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from colosseum import __version__
from colosseum.core.extras import DISTRIBUTION, NEEDED_BY
from colosseum.core.schema_version import SCHEMA_VERSION

OK, MISSING, FAILED, SKIPPED, WARNING = "ok", "missing", "failed", "skipped", "warning"
COMMAND_SECONDS = 20  # one tool's `--version`; a tool that hangs longer is reported as failing
BASE_PACKAGES = ("pygls", "lsprotocol")  # the language server's own; the rest of the base is the index's
# an extra's packages when the install's metadata cannot say (a source checkout run without install)
EXTRA_PACKAGES = {"models": ("anthropic", "httpx"), "lean": ("leanclient",), "probe": ("numpy", "sympy"),
                  "bench": ("matplotlib",)}
RUN_TABLES = ("models", "solve", "review", "research", "budget")  # a project using any of them calls a model
VSCODE_EXTENSION = "colosseum.colosseum-latex"  # publisher.name in editor-clients/vscode/package.json
USERNS_FIX = ("allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 "
              "also kernel.apparmor_restrict_unprivileged_userns=0)")


@dataclass
class Check:
    """One row: ``state`` is ok, missing, failed, skipped or warning; ``needed`` when the project's
    settings use it (then anything but ok, skipped or warning makes the doctor exit 1)."""

    name: str
    state: str
    detail: str = ""
    fix: str = ""
    needed: bool = False

    @property
    def blocking(self) -> bool:
        return self.needed and self.state in (MISSING, FAILED)


@dataclass
class Uses:
    """What the project's settings use: model calls, Lean, probes."""

    models: bool = False
    lean: bool = False
    probe: bool = False
    provider: str = "anthropic"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "ANTHROPIC_API_KEY"
    lean_project: Path | None = None
    lean_problem: str = ""  # why the configured Lean project is not one
    settings: Check | None = None  # the colosseum.toml row


@dataclass
class DoctorReport:
    path: Path
    checks: list[Check] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return not any(check.blocking for check in self.checks)

    def to_json(self) -> dict:
        return {"schema_version": SCHEMA_VERSION, "path": str(self.path), "ready": self.ready,
                "version": __version__, "checks": [asdict(check) for check in self.checks]}


def examine(project_dir: Path, *, offline: bool = False, environ=None) -> DoctorReport:
    """Every check for the project at ``project_dir`` (a folder)."""
    environ = os.environ if environ is None else environ
    uses = project_uses(project_dir)
    report = DoctorReport(project_dir)
    report.checks.append(Check("python", OK, sys.version.split()[0], needed=True))
    report.checks.append(uses.settings)
    report.checks += package_checks(uses)
    report.checks += extra_checks(uses)
    report.checks += model_checks(uses, offline, environ)
    report.checks += lean_checks(project_dir, uses, environ)
    report.checks.append(bubblewrap_check(uses))
    report.checks.append(tool_check("latexmk", ["latexmk", "-v"], "install latexmk (TeX Live: tlmgr install latexmk)"))
    report.checks.append(tool_check("graphviz dot", ["dot", "-V"],
                                    "install graphviz (it renders `colosseum dag --format dot`)"))
    report.checks += editor_client_checks()
    return report


def project_uses(project_dir: Path) -> Uses:
    """What colosseum.toml asks for (and a Lean project in the folder, which the Lean check finds)."""
    from colosseum.lean.project import LeanProjectError, find_lean_project
    from colosseum.settings.project import load_config, table

    config = load_config(project_dir)
    uses = Uses(models=any(name in config.raw for name in RUN_TABLES), probe="probe" in config.raw)
    uses.settings = settings_check(config)
    models = table(config, "models")
    uses.provider, uses.model, uses.base_url = models.provider, models.model, models.base_url
    if models.provider != "anthropic":
        uses.api_key_env = models.api_key_env
    configured = table(config, "lean").project
    try:
        uses.lean_project = find_lean_project(project_dir, [project_dir / name for name in config.index.roots],
                                              configured)
    except LeanProjectError as exc:  # a configured project that is not one: the toolchain row says so
        uses.lean_problem = str(exc)
    uses.lean = "lean" in config.raw or uses.lean_project is not None
    return uses


def settings_check(config) -> Check:
    """colosseum.toml: absent, read, or its problems (an error in it is blocking: the commands refuse it)."""
    if config.path is None:
        return Check("colosseum.toml", SKIPPED, "none (the defaults)")
    errors = [p for p in config.problems if p.severity == "error"]
    if not config.problems:
        return Check("colosseum.toml", OK, "read", needed=True)
    first = errors[0] if errors else config.problems[0]
    where = f"line {first.line + 1}: " if first.line else ""
    more = f" (and {len(config.problems) - 1} more)" if len(config.problems) > 1 else ""
    return Check("colosseum.toml", FAILED if errors else WARNING, f"{where}{first.message}{more}",
                 "fix it as `colosseum check` says", needed=True)


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def packages_of_extras() -> dict[str, tuple[str, ...]]:
    """extra -> its packages, from the install's metadata (``Requires-Dist: x; extra == "models"``)."""
    try:
        requires = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        return dict(EXTRA_PACKAGES)
    found: dict[str, list[str]] = {}
    for line in requires:
        m = re.match(r"\s*([A-Za-z0-9_.-]+)[^;]*;\s*extra\s*==\s*['\"]([^'\"]+)['\"]", line)
        if m and m.group(2) in NEEDED_BY and m.group(1) != DISTRIBUTION:
            found.setdefault(m.group(2), []).append(m.group(1))
    return {extra: tuple(found.get(extra, EXTRA_PACKAGES[extra])) for extra in NEEDED_BY}


def _extra_needed(extra: str, uses: Uses) -> bool:
    return {"models": uses.models, "lean": uses.lean, "probe": uses.probe}.get(extra, False)


def package_checks(uses: Uses) -> list[Check]:
    checks = [Check("colosseum", OK, __version__, needed=True)]
    for name in BASE_PACKAGES:
        version = _version(name)
        checks.append(Check(name, OK if version else MISSING, version or "not installed",
                            "" if version else f"pip install --upgrade '{DISTRIBUTION}'", needed=True))
    for extra, packages in packages_of_extras().items():
        for name in packages:
            version = _version(name)
            checks.append(Check(name, OK if version else MISSING, version or "not installed",
                                "" if version else f"pip install '{DISTRIBUTION}[{extra}]'",
                                needed=_extra_needed(extra, uses)))
    return checks


def extra_checks(uses: Uses) -> list[Check]:
    checks = []
    for extra, packages in packages_of_extras().items():
        absent = [name for name in packages if _version(name) is None]
        used = " (the project's settings use it)" if _extra_needed(extra, uses) else ""
        checks.append(Check(f"extra [{extra}]", MISSING if absent else OK,
                            f"lacks {', '.join(absent)}" if absent else f"installed{used}",
                            f"pip install '{DISTRIBUTION}[{extra}]'" if absent else "",
                            needed=_extra_needed(extra, uses)))
    return checks


def model_checks(uses: Uses, offline: bool, environ) -> list[Check]:
    """The key (present or not, never its value) and, online, one free count_tokens request."""
    key = environ.get(uses.api_key_env, "")
    key_check = Check("API key", OK if key else MISSING,
                      f"{uses.api_key_env} is set" if key else f"{uses.api_key_env} is not set",
                      "" if key else f"export {uses.api_key_env}=... (from the provider's console)",
                      needed=uses.models)
    if offline:
        return [key_check, Check("API request", SKIPPED, "--offline")]
    if not key:
        return [key_check, Check("API request", SKIPPED, "no key", needed=False)]
    if uses.provider != "anthropic":
        return [key_check, Check("API request", SKIPPED, f"only checked for the anthropic provider ({uses.provider})")]
    return [key_check, live_request(uses, key)]


def live_request(uses: Uses, key: str) -> Check:
    """One ``messages.count_tokens`` through the SDK: free of charge, yet it proves the key, the
    model's name and the network (the SDK reads ANTHROPIC_BASE_URL when the settings give none)."""
    from colosseum.models.anthropic_provider import DEFAULT_MODEL

    try:
        import anthropic
    except ImportError:
        return Check("API request", SKIPPED, "the anthropic package is not installed")
    model = uses.model or DEFAULT_MODEL
    try:
        client = anthropic.Anthropic(api_key=key, base_url=uses.base_url, max_retries=0, timeout=30.0)
        counted = client.messages.count_tokens(model=model, messages=[{"role": "user", "content": "ping"}])
    except Exception as exc:  # any failure is the row's answer, never the doctor's end
        message = getattr(exc, "message", None) or str(exc)
        return Check("API request", FAILED, f"{type(exc).__name__}: {message}"[:300],
                     "check the key, the model name ([models] model) and the network", needed=uses.models)
    return Check("API request", OK, f"count_tokens answered for {model} ({counted.input_tokens} tokens)",
                 needed=uses.models)


def tool_output(argv: list[str]) -> tuple[int, str]:
    """(exit code, all it printed on stdout then stderr); 127 when it is not on PATH, 126 when it
    cannot be run or takes longer than COMMAND_SECONDS."""
    if shutil.which(argv[0]) is None:
        return 127, "not found on PATH"
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_SECONDS, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 126, str(exc)
    return done.returncode, done.stdout + "\n" + done.stderr


def run_tool(argv: list[str]) -> tuple[int, str]:
    """(exit code, the first line it printed on stdout or stderr); 127 when it is not on PATH."""
    code, output = tool_output(argv)
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return code, lines[0] if lines else ""


def tool_check(name: str, argv: list[str], fix: str, needed: bool = False) -> Check:
    code, line = run_tool(argv)
    if code == 127:
        return Check(name, MISSING, line, fix, needed)
    return Check(name, OK if code == 0 else FAILED, line, "" if code == 0 else fix, needed)


def lean_checks(project_dir: Path, uses: Uses, environ) -> list[Check]:
    from colosseum.settings.trust import HOW_TO_TRUST, is_trusted

    fix = "install elan (https://github.com/leanprover/elan), which brings lake"
    checks = [tool_check("lake", ["lake", "--version"], fix, uses.lean),
              tool_check("elan", ["elan", "--version"], fix, uses.lean)]
    toolchain = uses.lean_project / "lean-toolchain" if uses.lean_project else None
    if toolchain is not None and toolchain.is_file():
        checks.append(toolchain_check(toolchain.read_text(encoding="utf-8").strip(), uses.lean))
    else:
        checks.append(Check("lean-toolchain", MISSING if uses.lean else SKIPPED,
                            uses.lean_problem or "no Lean project found",
                            "set [lean] project to a folder with a lakefile and lean-toolchain" if uses.lean else "",
                            needed=uses.lean))
    trust = is_trusted(project_dir, environ=environ)
    checks.append(Check("trusted folder", OK if trust else MISSING,
                        trust.reason if trust else "not trusted: no lake, no probes, no code from the project",
                        "" if trust else HOW_TO_TRUST, needed=uses.lean))
    return checks


def toolchain_check(name: str, needed: bool) -> Check:
    """The toolchain lean-toolchain names, and whether elan has it already (else the first check
    downloads it: a warning, not a failure)."""
    code, listed = tool_output(["elan", "toolchain", "list"])
    if code != 0:
        return Check("lean-toolchain", OK, name, needed=needed)
    short = name.split(":", 1)[-1]
    installed = any(short in line for line in listed.splitlines())
    if installed:
        return Check("lean-toolchain", OK, f"{name} (installed)", needed=needed)
    return Check("lean-toolchain", WARNING, f"{name} (not installed yet: the first Lean check downloads it)",
                 f"elan toolchain install {name}", needed=needed)


def bubblewrap_check(uses: Uses) -> Check:
    """bwrap is there and can make a sandbox (a kernel without unprivileged user namespaces refuses)."""
    code, version = run_tool(["bwrap", "--version"])
    if code == 127:
        return Check("bubblewrap", MISSING, version, "install bubblewrap (apt install bubblewrap)", uses.probe)
    code, line = run_tool(["bwrap", "--ro-bind", "/", "/", "true"])
    if code != 0:
        return Check("bubblewrap", FAILED, f"{version}; cannot run a sandbox: {line}", USERNS_FIX, uses.probe)
    return Check("bubblewrap", OK, f"{version}; runs a sandbox", needed=uses.probe)


def major_minor(version: str) -> tuple[int, int]:
    parts = [int(part) if part.isdigit() else 0 for part in re.split(r"[.+-]", version.strip())[:2]]
    return tuple(parts + [0] * (2 - len(parts)))  # type: ignore[return-value]


UPGRADE_SERVER = f"upgrade the server: pipx upgrade {DISTRIBUTION} (or uv tool upgrade {DISTRIBUTION})"


def client_check(name: str, version: str | None, how_to_update_client: str) -> Check:
    """An installed editor client against this server: the same major and minor version fit;
    otherwise the older side is the one to upgrade."""
    if version is None:
        return Check(name, SKIPPED, "not found")
    if major_minor(version) == major_minor(__version__):
        return Check(name, OK, version)
    fix = how_to_update_client if major_minor(version) < major_minor(__version__) else UPGRADE_SERVER
    return Check(name, WARNING, f"{version}, the server is {__version__}", fix)


def editor_client_checks() -> list[Check]:
    """The installed VS Code extension and Neovim plugin, against this server's version."""
    vscode = None
    code, listed = tool_output(["code", "--list-extensions", "--show-versions"])
    if code == 0:
        vscode = next((line.split("@", 1)[1].strip() for line in listed.splitlines()
                       if line.lower().startswith(VSCODE_EXTENSION + "@")), None)
    neovim = None
    code, line = run_tool(["nvim", "--headless", "-c",
                           "lua local ok, m = pcall(require, 'colosseum'); io.stderr:write(ok and m.version or '')",
                           "-c", "qa!"])
    if code == 0 and re.fullmatch(r"\d+\.\d+[\w.+-]*", line or ""):
        neovim = line
    return [client_check("VS Code extension", vscode, "update the Colosseum extension (Extensions view, Update)"),
            client_check("Neovim plugin", neovim, "update the colosseum.nvim plugin (your plugin manager's update)")]
