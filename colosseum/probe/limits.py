"""The limits one probe runs under, from `[probe]` of colosseum.toml (colosseum.settings.tables)."""

from __future__ import annotations

from dataclasses import dataclass

from colosseum.settings import table

# which limit stopped a probe (ExecutionResult.limit)
LIMITS = ("cpu", "wall", "memory", "output", "processes", "none")


@dataclass(frozen=True, slots=True)
class ProbeLimits:
    """cpu_s: CPU seconds per process (RLIMIT_CPU, the same under any load); wall_s: a safety net
    for a probe that sleeps or blocks; memory_mb: address space per process (RLIMIT_AS) and the size
    of the writable folder; output_bytes: stdout and stderr together; processes: processes and
    threads at once (RLIMIT_NPROC, counted in the sandbox's own user)."""

    cpu_s: float = 10.0
    wall_s: float = 60.0
    memory_mb: int = 1024
    output_bytes: int = 1_000_000
    processes: int = 16
    allow_unsandboxed: bool = False


def probe_limits(config) -> ProbeLimits:
    """The limits that colosseum.toml's `[probe]` sets (its defaults where a key is absent)."""
    settings = table(config, "probe")
    return ProbeLimits(cpu_s=settings.cpu_s, wall_s=settings.wall_s, memory_mb=settings.memory_mb,
                       output_bytes=settings.output_bytes, allow_unsandboxed=settings.allow_unsandboxed)
