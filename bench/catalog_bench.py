"""Retrieval from a knowledge catalog of 10,000 entries: building the search once, then one
retrieval for a target (what a solve does per obligation)."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from colosseum.catalog.store import Catalog, Entry  # noqa: E402
from colosseum.catalog.retrieval import CatalogSearch  # noqa: E402

WORDS = ("graph hypergraph edge vertex colouring bound probability expectation variance martingale "
         "lemma inequality independent event dependency matrix eigenvalue spectral flow cut matching "
         "degree codegree uniform random algorithm resampling witness tree sparse dense chromatic").split()


def synthetic_catalog(n: int, seed: int = 1) -> Catalog:
    rng = random.Random(seed)
    catalog = Catalog()
    kinds = ("result", "literature", "observation", "failed-route")
    for i in range(n):
        kind = kinds[i % 4]
        words = " ".join(rng.choice(WORDS) for _ in range(40))
        data = {"id": f"e{i}", "kind": kind, "title": " ".join(rng.choice(WORDS) for _ in range(6)),
                "status": "active", "links": {"labels": [f"lem:{rng.randrange(2000)}"], "entries": []},
                "statement": words}
        if kind == "failed-route":
            data["target"] = {"label": f"lem:{rng.randrange(2000)}"}
            data["failure_point"] = " ".join(rng.choice(WORDS) for _ in range(15))
        catalog.entries[data["id"]] = Entry(data["id"], kind, data["title"], "active", Path(f"e{i}.md"), data)
    return catalog


def measure(n: int = 10_000) -> dict:
    catalog = synthetic_catalog(n)
    start = time.perf_counter()
    search = CatalogSearch(catalog)
    built = time.perf_counter() - start
    times = []
    for i in range(20):
        t = time.perf_counter()
        got = search.retrieve(f"lem:{i}", {f"lem:{i + 1}", f"lem:{i + 2}"},
                              "bound on the expected number of resampling steps in a sparse hypergraph")
        times.append(time.perf_counter() - t)
    times.sort()
    return {"entries": n, "build_s": built, "retrieve_median_ms": times[len(times) // 2] * 1000,
            "retrieve_p95_ms": times[int(len(times) * 0.95) - 1] * 1000, "tokens": got.tokens}


if __name__ == "__main__":
    m = measure()
    print(f"catalog of {m['entries']:,} entries: search built in {m['build_s']:.2f} s; retrieval median "
          f"{m['retrieve_median_ms']:.1f} ms, p95 {m['retrieve_p95_ms']:.1f} ms (target < 100 ms); "
          f"{m['tokens']} tokens taken")
