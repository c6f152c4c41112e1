"""The first Python a probe runs, inside the sandbox: it becomes an unprivileged user where the
sandbox starts as root, then forks; the child sets the limits and runs the probe's code as
``__main__``, the parent waits for it and writes its exit status and CPU time on the report pipe
(the child closes that pipe first, so the probe's code cannot write there).

This file is not imported by the engine; its text is handed to the interpreter (``python -I -c``),
so it uses only the standard library. Its exit codes tell the runner which limit stopped the code
(code that exits with them itself only misleads its own record)."""

import errno
import os
import resource
import sys

MEMORY_EXIT = 86  # a MemoryError reached the top: RLIMIT_AS refused an allocation
PROCESSES_EXIT = 87  # a fork or a thread was refused: RLIMIT_NPROC


def _limit(kind, soft, hard=None):
    resource.setrlimit(kind, (soft, soft if hard is None else hard))


def _drop_root(uid):
    if uid >= 0:
        # bwrap started by root keeps uid 0 (a user namespace would map only root to root, and the
        # kernel never counts root's processes against RLIMIT_NPROC): drop to a plain user first
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)


def _start(cpu_s, memory_bytes, processes):
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_CPU, cpu_s, cpu_s + 1)  # SIGXCPU at the soft limit, SIGKILL one second on
    _limit(resource.RLIMIT_AS, memory_bytes)
    _limit(resource.RLIMIT_FSIZE, memory_bytes)
    if processes > 0:
        _limit(resource.RLIMIT_NPROC, processes)


def _stop(code, message):
    try:
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - the output may be what failed
        pass
    os.write(2, message)
    os._exit(code)


def _supervise(report_fd):
    """Fork; the parent waits and reports "<wait status> <CPU seconds>", the child returns."""
    child = os.fork()
    if child == 0:
        os.close(report_fd)
        return
    _, status, usage = os.wait4(child, 0)
    os.write(report_fd, f"{status} {usage.ru_utime + usage.ru_stime:.3f}\n".encode())
    os._exit(0)


def main():
    cpu_s, memory_bytes, processes, uid, report_fd, path = sys.argv[1:7]
    _drop_root(int(uid))
    _supervise(int(report_fd))
    _start(int(cpu_s), int(memory_bytes), int(processes))
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    sys.argv = [path]
    namespace = {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__}
    try:
        exec(compile(source, "probe.py", "exec"), namespace)
    except MemoryError:
        _stop(MEMORY_EXIT, b"\nMemoryError: the probe's memory limit was reached\n")
    except BlockingIOError as error:
        if error.errno != errno.EAGAIN:
            raise
        _stop(PROCESSES_EXIT, b"\nBlockingIOError: the probe's process limit was reached\n")
    except RuntimeError as error:
        if "can't start new thread" not in str(error):
            raise
        _stop(PROCESSES_EXIT, b"\nRuntimeError: the probe's process limit was reached\n")


if __name__ == "__main__":  # run by `python -I -c`; the runner imports only the exit codes
    main()
