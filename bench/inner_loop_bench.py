"""The inner loop's harness against a provider that answers after a simulated latency (a scripted
test double): wall time over the critical-path bound (levels x latency), harness overhead per
call, and, from the token accounting, the input tokens sent with and without prompt caching of
the shared prefix. With a variable (lognormal) latency, the wall time over the true critical path
of the run: the longest chain of calls through the dependency DAG (a candidate, its refuters, the
aggregators that drew it, up to the root), each call weighted by the latency it was recorded with."""

from __future__ import annotations

import asyncio
import math
import random
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
        return self.answer(request)

    def answer(self, request):
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


class LognormalDouble(LatencyDouble):
    """Answers after a latency of ``median * exp(N(0, sigma))``, drawn from a generator seeded by
    ``seed`` and the call's slot, so each call has the same latency whatever the order calls are
    made in; records each call's start and end (after it holds a slot: queueing is not latency)."""

    def __init__(self, median: float, sigma: float, seed: int, limit: int = 16):
        super().__init__(median, limit)
        self.sigma, self.seed = sigma, seed
        self.spans: dict[str, tuple[float, float]] = {}  # node -> (start, end), perf_counter seconds

    async def complete(self, request):
        node = call_node(request.messages[0].content)
        latency = self.latency * math.exp(random.Random(f"{self.seed}:{node}").gauss(0.0, self.sigma))
        async with self.limit:
            start = time.perf_counter()
            await asyncio.sleep(latency)
            self.spans[node] = (start, time.perf_counter())
        return self.answer(request)


def call_node(prompt: str) -> str:
    """The node of the tree a prompt is for, from its slot: L3 (prover 4), L3.r0 (its first referee),
    A1.2, F.r1 (the root's second final referee); "plan" for the angle plan, which has no slot."""
    if (at := prompt.find("(final referee ")) >= 0:
        return f"F.r{int(prompt[at:].split()[2]) - 1}"
    slot = next((prompt[at + 1:prompt.index(")", at)] for marker in ("(prover ", "(referee ", "(aggregator ")
                 if (at := prompt.find(marker)) >= 0), None)
    if slot is None:
        return "plan"
    words = slot.split()
    if words[0] == "prover":
        return f"L{int(words[1]) - 1}"
    if words[0] == "referee":
        return f"{words[-1]}.r{int(words[1]) - 1}"
    return words[1]


def critical_path(spans: dict[str, tuple[float, float]], result, refuters: int) -> float:
    """The longest chain of recorded latencies through the run's dependency DAG: a leaf is ready
    when its candidate and all its refutations are; an aggregator finishes its own latency after
    the last bundle it drew is ready."""
    latency = {node: end - start for node, (start, end) in spans.items()}
    planned = latency.get("plan", 0.0)  # every prover waits for the angle plan
    ready: dict[str, float] = {}
    for node in (n for n in spans if n.startswith("L") and "." not in n):
        made = planned + latency[node]
        ready[node] = made + max((latency.get(f"{node}.r{r}", 0.0) for r in range(refuters)), default=0.0)
    for level in result.groups:
        for name, members in level:
            ready[name] = latency[name] + max(ready[m] for m in members)
    final_round = max((t for node, t in latency.items() if node.startswith("F.")), default=0.0)
    return ready[result.root.id] + final_round


def level_by_level(spans: dict[str, tuple[float, float]]) -> float:
    """What a schedule with a barrier after every stage would take with the same latencies: the
    sum over stages (generation, refutation, each level) of the slowest call of the stage."""
    stages: dict[str, float] = {}
    for node, (start, end) in spans.items():
        stage = ("final" if node.startswith("F.") else "refute" if ".r" in node
                 else "generate" if node.startswith("L") else node.split(".")[0])
        stages[stage] = max(stages.get(stage, 0.0), end - start)
    return sum(stages.values())


async def measure_variable(median: float = 0.1, sigma: float = 0.5, seed: int = 1) -> dict:
    """One run of the default tree with lognormal latencies: wall over the true critical path, and
    the old figure, wall over the nominal bound (stages x median)."""
    config = InnerLoopConfig(seed=1)
    provider = LognormalDouble(median, sigma, seed)
    start = time.perf_counter()
    result = await solve(CONTEXT, provider, config)
    wall = time.perf_counter() - start
    path = critical_path(provider.spans, result, config.refuters_per_candidate)
    nominal = (int(config.plan_angles) + 2 + len(config.widths) - 1 + int(config.final_refuters > 0)) * median
    return {"wall_s": wall, "critical_path_s": path, "ratio": wall / path, "nominal_s": nominal,
            "wall_over_nominal": wall / nominal, "level_by_level_s": level_by_level(provider.spans),
            "calls": len(provider.spans), "sigma": sigma, "median_latency_s": median, "seed": seed}


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
    for seed in (1, 2, 3):
        print(variable_line(asyncio.run(measure_variable(seed=seed))))
    return 0


def variable_line(m: dict) -> str:
    return (f"inner loop, lognormal latency (median {m['median_latency_s']} s, sigma {m['sigma']}, seed {m['seed']}): "
            f"{m['calls']} calls in {m['wall_s']:.3f} s; true critical path {m['critical_path_s']:.3f} s; "
            f"wall / critical path {m['ratio']:.3f} (target <= 1.15); wall / nominal {m['wall_over_nominal']:.2f} "
            f"(nominal {m['nominal_s']:.2f} s); a level-by-level schedule would take {m['level_by_level_s']:.3f} s")


if __name__ == "__main__":
    sys.exit(main())
