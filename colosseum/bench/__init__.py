"""The benchmark: does the method beat simple baselines at the same cost, on a paper's own claims?

- ``problems.py``: each chosen claim a problem, its proof in the paper the reference (graders only);
- ``requests.py``: the seam every stage's requests go through, and spend at list price;
- ``method.py``: the inner loop as configured; ``baselines.py``: direct, best-of-n, self-refine at
  the method's cost on each problem;
- ``grading.py``: several graders per answer; ``agreement.py``: raw agreement and Fleiss' kappa;
- ``report.py``: report.md, report.json and the plot of accuracy against cost;
- ``run.py``: one run, in that order."""

from colosseum.bench.problems import NoProblems, Problem, problems_of
from colosseum.bench.requests import Pricing, RunStage, interactive
from colosseum.bench.run import BenchResult, BenchSettings, run_bench

__all__ = ["BenchResult", "BenchSettings", "NoProblems", "Pricing", "Problem", "RunStage", "interactive",
           "problems_of", "run_bench"]
