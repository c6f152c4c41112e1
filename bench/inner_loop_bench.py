"""The inner loop's harness against a provider that answers after a fixed simulated latency
(a scripted test double): wall time over the critical-path bound (levels x latency), harness
overhead per call, and, from the token accounting, the input tokens sent with and without
prompt caching of the shared prefix."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from colosseum.loops.inner.records import InnerLoopConfig  # noqa: E402
from colosseum.loops.inner.solve import ObligationContext, solve  # noqa: E402
from colosseum.models import ModelResponse, Usage  # noqa: E402

CONTEXT = ObligationContext("lem:x", "Every sparse hypergraph has property B. " * 20,
                            assumable="[thm:lll] The Local Lemma ... " * 200, notation="\\newcommand{\\e}{e}")


class LatencyDouble:
    """Answers every role after ``latency`` seconds; counts tokens as a caching API would."""

    name = "latency double"
    model = "double"

    def __init__(self, latency: float, limit: int = 16):
        self.latency = latency
        self.limit = asyncio.Semaphore(limit)
        self.calls = 0
        self.prefixes: set[str] = set()

    async def complete(self, request):
        async with self.limit:
            await asyncio.sleep(self.latency)
        self.calls += 1
        prefix_tokens = len(request.system) // 4
        rest = sum(len(m.content) for m in request.messages) // 4
        first = request.system not in self.prefixes  # the first call writes the cache, later ones read it
        self.prefixes.add(request.system)
        usage = Usage(input_tokens=rest, output_tokens=50, cache_read_tokens=0 if first else prefix_tokens,
                      cache_write_tokens=prefix_tokens if first else 0, calls=1)
        role = request.role
        data = ({"strategy": "s", "proof": f"proof {self.calls}"} if role == "generator" else
                {"critiques": []} if role == "refuter" else
                {"angles": [{"angle": "one", "why": "."}, {"angle": "two", "why": "."}]} if role == "angle_planner" else
                {"proof": "merged", "alternative": "", "resolved": [], "open_conflicts": []})
        return ModelResponse("", data, usage, self.model)


async def measure(latency: float) -> dict:
    config = InnerLoopConfig(seed=1)
    provider = LatencyDouble(latency)
    start = time.perf_counter()
    result = await solve(CONTEXT, provider, config)
    wall = time.perf_counter() - start
    # the angle plan, generate, refute, one level per aggregation, then the final refutation of the root
    levels = int(config.plan_angles) + 2 + (len(config.widths) - 1) + int(config.final_refuters > 0)
    u = result.usage
    return {"wall_s": wall, "critical_path_s": levels * latency, "ratio": wall / (levels * latency),
            "calls": provider.calls, "overhead_per_call_ms": max(0.0, wall - levels * latency) / provider.calls * 1000,
            "uncached_input_tokens_with_caching": u.input_tokens + u.cache_write_tokens,
            "input_tokens_without_caching": u.input_tokens + u.cache_write_tokens + u.cache_read_tokens}


def main() -> int:
    result = asyncio.run(measure(0.2))
    print(f"inner loop, default tree, 0.2 s simulated latency: {result['calls']} calls in {result['wall_s']:.3f} s; "
          f"critical path {result['critical_path_s']:.2f} s; ratio {result['ratio']:.3f} (target <= 1.15); "
          f"harness overhead {result['overhead_per_call_ms']:.2f} ms per call (target < 2 ms)")
    print(f"input tokens per obligation: {result['uncached_input_tokens_with_caching']:,} uncached with prompt "
          f"caching, {result['input_tokens_without_caching']:,} without")
    return 0


if __name__ == "__main__":
    sys.exit(main())
