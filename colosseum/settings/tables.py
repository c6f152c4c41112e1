"""The tables of colosseum.toml that the model-backed commands read: the inner loop, the models, the
budget, the review, the research pipeline, the Lean bridge, the catalog and the probes' sandbox. Imported only when
colosseum.toml has one of them or a command asks (a cold `check` never pays for their classes)."""

from __future__ import annotations

from dataclasses import dataclass

from colosseum.settings.rules import (BOOL, COUNT, DOLLARS, ENV_NAME, MODULES, NAME, PATH, POSITIVE_INT, PRICES,
                                      PROVIDER, RESEARCH_WIDTHS, SECONDS, SOLVE_WIDTHS, URL, Rule, at_least, setting)

CALL_SECONDS = Rule(lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0,
                    "a positive number of seconds", {"type": "number", "exclusiveMinimum": 0}, float)
WAIT_SECONDS = Rule(lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0,
                    "a number of seconds (0 or more)", {"type": "number", "minimum": 0}, float)


@dataclass(frozen=True, slots=True)
class SolveSettings:
    """[solve]: the inner loop (generate, refute, aggregate by the sampling tree)."""

    leaves: int = setting(16, "Candidate proofs generated in parallel (the tree's first width).", POSITIVE_INT)
    refuters: int = setting(1, "Adversarial reviewers per candidate.", POSITIVE_INT)
    widths: tuple[int, ...] | None = setting(
        None, "Nodes per level of the aggregation tree; starts with `leaves`, ends with 1.", SOLVE_WIDTHS,
        example=[16, 8, 5, 1], shown="[leaves, 8, 5, 1]")
    k: int = setting(5, "Bundles each aggregator draws (capped at the current width).", POSITIVE_INT)
    cover_strategies: bool = setting(False, "Every strategy cluster of the leaves reaches some aggregator.", BOOL)
    final_refuters: int = setting(2, "Fresh refuters of the root proof before it is offered; their fatal and major "
                                  "critiques survive, and a failed one makes the verdict incomplete.", POSITIVE_INT)
    plan_angles: bool = setting(True, "One call plans the provers' angles from the claim (else a fixed list).", BOOL)


@dataclass(frozen=True, slots=True)
class ModelsSettings:
    """[models]: which model answers, through which provider."""

    model: str | None = setting(None, "The model's name.", NAME, example="claude-sonnet-4-5",
                                shown='"claude-sonnet-4-5" (anthropic)')
    provider: str = setting("anthropic", '"anthropic" or "openai-compatible" (a local model, another vendor).',
                            PROVIDER)
    api_key_env: str = setting("OPENAI_API_KEY", "The environment variable holding the openai-compatible key.",
                               ENV_NAME)
    base_url: str | None = setting(None, "Where the API is (required for openai-compatible).", URL,
                                   example="http://localhost:8000/v1", shown="the provider's own")
    prices: dict | None = setting(None, "USD per million tokens: input, output (and cache_read, cache_write).",
                                  PRICES, example={"input": 3, "output": 15}, shown="the list price")
    request_timeout_s: float = setting(300.0, "Seconds one attempt of a model call may take before it is retried.",
                                       CALL_SECONDS)
    idle_timeout_s: float = setting(60.0, "Seconds a streamed answer may stay silent (no event) before the attempt "
                                    "is given up and retried.", CALL_SECONDS)
    max_attempts: int = setting(4, "Attempts per model call (the first and its retries); a call that fails them "
                                "all drops its candidate.", POSITIVE_INT)
    max_concurrency: int = setting(8, "Model requests in flight at once for each model of a run (lower it for an "
                                   "account with a low rate limit).", POSITIVE_INT)
    batch_poll_s: float = setting(30.0, "Seconds between two polls of a batch's status (`--batch`); polling stops "
                                  "after 24 hours' worth (a batch expires then).", WAIT_SECONDS)


@dataclass(frozen=True, slots=True)
class BudgetSettings:
    """[budget]: the bounds of every run; a run that would exceed them does not start."""

    max_calls: int | None = setting(None, "Model calls a run may make (`--max-calls` overrides it).", POSITIVE_INT,
                                    example=200, shown="no bound")
    max_usd: float | None = setting(None, "A cap in US dollars: checked, but no run enforces it yet.", DOLLARS,
                                    example=2.5, shown="no bound")


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    """[review]: the global and local review of the paper."""

    reviewers: int = setting(3, "Independent reviewers, each reading the whole document.", POSITIVE_INT)
    context_tokens: int = setting(200_000, "The model's context window: longer documents are reviewed in parts.",
                                  at_least(2_000))
    output_tokens: int = setting(8192, "max_tokens of each review call; at most half of `context_tokens`.",
                                 at_least(256))


@dataclass(frozen=True, slots=True)
class ResearchSettings:
    """[research]: the outer loop (explore, gate, decompose, solve, review, revise)."""

    exploration_widths: tuple[int, ...] = setting((32, 16, 8, 5, 1), "Widths of the exploration tree.",
                                                  RESEARCH_WIDTHS)
    k: int = setting(5, "Cards each aggregator of the exploration tree draws.", POSITIVE_INT)
    falsifiers: int = setting(1, "Falsifiers per strategy card.", POSITIVE_INT)
    adaptive_widths: bool = setting(False, "Beyond the paper: widen in batches and stop once a batch finds no new "
                                           "fatal flaw (off: the exploration_widths as given).", BOOL)
    batch: int = setting(8, "Leaves per batch when the widths are adaptive.", POSITIVE_INT)
    explorations: int = setting(3, "Explorations (the first included) before the run gives up.", POSITIVE_INT)
    section_retries: int = setting(2, "Retries of a section that fails its local review.", COUNT)
    redecompose: bool = setting(True, "Re-cut the DAG around a section that keeps failing.", BOOL)
    max_redecompositions: int = setting(2, "Re-cuts per run.", COUNT)
    parallel_sections: int = setting(4, "Sections solved at once.", POSITIVE_INT)
    rounds: int = setting(3, "Global reviews, each followed by a revision or a new exploration.", POSITIVE_INT)
    judges: int = setting(8, "Cross-model selection: how often model B judges A's proof.", POSITIVE_INT)
    select_threshold: int = setting(5, "Cross-model selection: the \"correct\" verdicts A needs.", POSITIVE_INT)


@dataclass(slots=True)
class LeanTable:
    """[lean]: the Lean bridge."""

    project: str | None = setting(None, "The Lean project.", PATH,
                                  example="formal", shown="lean/ beside the root, or the nearest Lake project")
    time_limit: float = setting(300.0, "Seconds per file (the first check of a file may build its imports).", SECONDS,
                                shown="`300`")
    check_on_save: bool = setting(True, "The editor checks again when a .tex file is saved.", BOOL)
    record_in_catalog: bool = setting(True, "Passing checks become formal evidence in the catalog.", BOOL)
    inline_imports: list[str] = setting([], "Modules every inline Lean block imports.", MODULES,
                                        example=["Mathlib.Tactic"])


@dataclass(frozen=True, slots=True)
class CatalogSettings:
    """[catalog]: the knowledge catalog."""

    path: str | None = setting(None, "The knowledge catalog.", PATH, example="knowledge",
                               shown="knowledge/ beside the root")


@dataclass(frozen=True, slots=True)
class ProbeSettings:
    """[probe]: computational probes, Python run in a sandbox (bubblewrap) on small cases."""

    cpu_s: float = setting(10.0, "CPU seconds a probe may use (RLIMIT_CPU: the same under any load).", CALL_SECONDS)
    wall_s: float = setting(60.0, "Seconds of wall time before a probe's processes are killed (a safety net).",
                            CALL_SECONDS)
    memory_mb: int = setting(1024, "Address space of a probe's process in MiB (RLIMIT_AS; numpy needs some "
                             "hundreds); also the size of its temporary folder.", at_least(64))
    max_tool_calls: int = setting(8, "Model requests one role's tool-use loop may make, each one call of the "
                                 "budget; the last must answer, so it runs at most one probe fewer.", POSITIVE_INT)
    output_bytes: int = setting(1_000_000, "Bytes of output (stdout and stderr) kept before the probe is stopped.",
                                at_least(1024))
    allow_unsandboxed: bool = setting(False, "Run probes without bubblewrap where it cannot run (the limits still "
                                      "apply; nothing else is isolated).", BOOL)


@dataclass(frozen=True, slots=True)
class BenchSettings:
    """[bench]: the benchmark (`colosseum bench`): the method against simple baselines at equal cost."""

    graders: int = setting(3, "Grader calls per answer (`--graders` overrides it).", POSITIVE_INT)
    grader_model: str | None = setting(None, "The graders' model (`--grader-model` overrides it).", NAME,
                                       example="claude-opus-4-5", shown="the solvers' model")
    max_thinking_tokens: int = setting(32_000, "The direct baseline's largest thinking budget (it thinks as many "
                                       "tokens as the method wrote, up to this).", at_least(1024))
