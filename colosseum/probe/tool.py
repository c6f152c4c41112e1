"""The ``run_python`` tool of every role that tests claims by computation (the prober, the inner
loop's refuters, research's strategy falsifiers): its definition for the Messages API, the runner
that runs each call in the sandbox and keeps every run for the run's record, and the decision
whether a run offers it at all (``ProbeTools``).

It lives here, beside the sandbox, so that the loops and the application layer share one tool
without the loops reaching up into the application layer."""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict, dataclass

from colosseum.models.provider import Tool, ToolCall
from colosseum.probe.limits import ProbeLimits, probe_limits
from colosseum.probe.runner import run_python
from colosseum.probe.sandbox import sandbox_problem
from colosseum.settings import table

RUN_PYTHON = Tool("run_python", "Run Python code in a sandbox (no network, no project files, limits on CPU time, "
                  "memory and output) and get its stdout, stderr tail, exit code, CPU time and the limit that "
                  "stopped it, if any. Print what you want to see.",
                  {"type": "object", "additionalProperties": False, "required": ["code"],
                   "properties": {"code": {"type": "string", "description": "A complete Python program."}}})
RESULT_FIELDS = ("stdout", "stderr_tail", "exit_code", "cpu_s", "limit", "stdout_truncated")


def tool_result(execution: dict) -> str:
    """What the model reads of one run."""
    return json.dumps({key: execution.get(key) for key in RESULT_FIELDS})


class Executions:
    """Runs the model's code in the sandbox (in a thread, so the stage's other calls go on while it
    runs) and keeps every run for the record: its code, output, the limit that stopped it. ``run``
    is the sandbox's runner (a test may hand another)."""

    def __init__(self, limits: ProbeLimits, run=run_python):
        self.limits = limits
        self.run = run
        self.runs: list[dict] = []

    async def __call__(self, call: ToolCall) -> str:
        code = call.input.get("code")
        if call.name != RUN_PYTHON.name or not isinstance(code, str):
            return f"error: the only tool is {RUN_PYTHON.name} with input {{\"code\": \"...\"}}"
        result = await asyncio.to_thread(self.run, code, self.limits)
        execution = {"tool_use_id": call.id, "code": code, **asdict(result)}
        self.runs.append(execution)
        return tool_result(execution)

    def replayed(self, call: ToolCall, text: str) -> None:
        """A run the answer cache replays (its result recorded when it first ran): recorded again,
        marked as replayed, and nothing runs."""
        try:
            shown = json.loads(text)
        except ValueError:
            return  # not a run's result (the answer to a malformed call)
        if isinstance(shown, dict) and isinstance(call.input.get("code"), str):
            self.runs.append({"tool_use_id": call.id, "code": call.input["code"], **shown, "replayed": True})


@dataclass(frozen=True)
class ProbeTools:
    """``run_python`` for the roles that refute: the sandbox's limits and how many requests one
    role's tool-use loop may make (``[probe] max_tool_calls``, each one call of the budget). A test
    may hand another sandbox runner in ``run``."""

    limits: ProbeLimits
    max_tool_calls: int
    run: object = run_python

    def executions(self) -> Executions:
        return Executions(self.limits, self.run)


@dataclass(frozen=True)
class ProbeDecision:
    """Whether a run's refuters get ``run_python``: ``tools`` when they do, else ``reason`` (said once)."""

    tools: ProbeTools | None
    reason: str = ""

    def record(self) -> dict:
        """What a run's record says of its probes."""
        if self.tools is None:
            return {"offered": False, "reason": self.reason}
        return {"offered": True, "reason": "", "limits": asdict(self.tools.limits),
                "max_tool_calls": self.tools.max_tool_calls}

    def for_provider(self, provider) -> "ProbeDecision":
        """This decision for ``provider``: no tool when it cannot run tools (an OpenAI-compatible
        server), rather than every refutation failing."""
        if self.tools is None or getattr(provider, "supports_tools", False):
            return self
        return ProbeDecision(None, f"the model provider ({getattr(provider, 'name', 'provider')}) does not run tools")

    def plan_line(self) -> str:
        """What a dry run says of them, once."""
        if self.tools is None:
            return f"refuters run no code: {self.reason}"
        return (f"refuters may run Python in the sandbox: up to {self.tools.max_tool_calls} model request(s) each "
                "([probe] max_tool_calls), every request one call of the budget")


def probe_tools_for(config, trusted: bool, *, batch: bool = False, untrusted_reason: str = "") -> ProbeDecision:
    """The tool for a run of a project with colosseum.toml ``config``: only for a trusted folder
    (trust comes from outside the project), never in batch mode (a batch answers later, with no
    loop to run a tool in), and only where bubblewrap runs (or ``allow_unsandboxed`` says to run
    without it)."""
    if batch:
        return ProbeDecision(None, "probes are off in batch mode (a batch request cannot wait for a tool)")
    if not trusted:
        return ProbeDecision(None, untrusted_reason or "the folder is not trusted, so no probe is run")
    limits = probe_limits(config)
    problem = sandbox_problem()
    if problem is not None and not limits.allow_unsandboxed:
        return ProbeDecision(None, problem)
    return ProbeDecision(ProbeTools(limits, int(table(config, "probe").max_tool_calls)))
