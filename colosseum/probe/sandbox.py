"""The bubblewrap command a probe runs in, and whether bubblewrap can run here at all.

What the sandbox holds: /usr, the /lib* and /bin links (or folders) and the interpreter's own
environment, all read-only; a fresh tmpfs at /tmp, the only writable place (and the working
folder); the probe's code and the files it is handed, read-only. No network, no other process, no
$HOME, no environment variable of ours (``--clearenv``), a new session (no terminal to push input
into), and ``--die-with-parent``. bwrap is the pid namespace's first process: when the probe's main
process ends, or bwrap is killed, the kernel ends every process left in the namespace.

The user: run by a plain user, bwrap maps that user to 65534 in a new user namespace, where
RLIMIT_NPROC counts only the sandbox's processes. Run by root (a container, CI), a user namespace
would map root to root, and the kernel never applies RLIMIT_NPROC to root; so root's bwrap makes no
user namespace and the bootstrap (colosseum.probe.bootstrap) drops to a plain uid of its own before
any of the probe's code runs."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

INSIDE_TMP = "/tmp"
INSIDE_CODE = "/probe/main.py"
INSIDE_INPUT = "/tmp/input"
SANDBOX_UID = 65534  # nobody, inside the user namespace of a plain user's bwrap
_ROOTS_UIDS = itertools.count()  # root's probes: a uid each, so their process counts stay apart
BASE_ENV = {"PATH": "/usr/bin:/bin", "HOME": INSIDE_TMP, "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8",
            "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": INSIDE_TMP,
            # one thread per library: threads count against the process limit, and numpy's
            # OpenBLAS reserves memory per thread against RLIMIT_AS
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


class SandboxUnavailable(RuntimeError):
    """bubblewrap cannot run here; the message says why and what to do."""


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def _is_root() -> bool:
    return os.geteuid() == 0


def _namespaces() -> list[str]:
    if _is_root():  # every namespace but the user's (see the module's docstring)
        return ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    return ["--unshare-all", "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]


def _system() -> list[str]:
    """/usr read-only, and /lib*, /bin, /sbin as the host has them (links into /usr, or folders)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for entry in sorted(Path("/").iterdir()):
        if not (entry.name.startswith("lib") or entry.name in ("bin", "sbin")):
            continue
        if entry.is_symlink():
            args += ["--symlink", os.readlink(entry), str(entry)]
        elif entry.is_dir():
            args += ["--ro-bind", str(entry), str(entry)]
    return args


def base_args(tmp_bytes: int) -> list[str]:
    """The sandbox without the interpreter: namespaces, system, /proc, /dev, the writable tmpfs."""
    return [*_namespaces(), "--clearenv", "--new-session", "--die-with-parent", *_system(),
            "--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", str(tmp_bytes), "--tmpfs", INSIDE_TMP]


def interpreter_roots() -> list[Path]:
    """The folders the interpreter needs beyond /usr: its prefix (and a virtual environment's base)."""
    found: list[Path] = []
    for folder in (sys.prefix, sys.base_prefix, sys.exec_prefix, Path(os.path.realpath(sys.executable)).parent.parent):
        path = Path(os.path.realpath(folder))
        if path == Path("/") or Path("/usr") in (path, *path.parents):
            continue
        if not any(path == known or known in path.parents for known in found):
            found = [known for known in found if path not in known.parents] + [path]
    return found


def _read_only(host: Path, inside: str) -> list[str]:
    """Bind a host path read-only; the folders bwrap creates on the way are readable by all (bwrap
    makes them 0700, which the dropped uid could not cross)."""
    args: list[str] = []
    for parent in reversed(Path(inside).parents):
        if str(parent) not in ("/", INSIDE_TMP):
            args += ["--perms", "0755", "--dir", str(parent)]
    return args + ["--ro-bind", str(host), inside]


def sandbox_command(code_file: Path, handed: dict[str, Path], tmp_bytes: int) -> tuple[list[str], int]:
    """The bwrap command line up to the interpreter, and the uid the bootstrap drops to (-1: none)."""
    bwrap = bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable(sandbox_problem() or "bwrap is not installed")
    args = [bwrap, *base_args(tmp_bytes)]
    for root in interpreter_roots():
        args += _read_only(root, str(root))
    args += _read_only(code_file, INSIDE_CODE)
    for name, path in sorted(handed.items()):
        args += _read_only(path, f"{INSIDE_INPUT}/{name}")
    args += ["--remount-ro", "/", "--chdir", INSIDE_TMP]
    for key, value in BASE_ENV.items():
        args += ["--setenv", key, value]
    uid = 200_000 + (os.getpid() % 1000) * 1000 + next(_ROOTS_UIDS) % 1000 if _is_root() else -1
    return args, uid


@cache
def sandbox_problem() -> str | None:
    """Why bubblewrap cannot run here (None: it can), checked once per process by running
    `bwrap ... true` with the sandbox's own options."""
    bwrap = bwrap_path()
    if bwrap is None:
        return ("bubblewrap (bwrap) is not installed, so probes are off: install it (Debian: apt-get install "
                "bubblewrap), or set [probe] allow_unsandboxed = true to run them with limits but no isolation")
    try:
        done = subprocess.run([bwrap, *base_args(1 << 20), "--setenv", "PATH", "/usr/bin:/bin", "true"],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap could not start, so probes are off: {error}"
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip()[-300:]
        return (f"bubblewrap cannot make a sandbox here ({detail or f'exit {done.returncode}'}), so probes are "
                "off: user namespaces may be disabled (kernel.unprivileged_userns_clone, "
                "user.max_user_namespaces); [probe] allow_unsandboxed = true runs them with limits but no isolation")
    return None
