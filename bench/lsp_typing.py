"""What an author waits for while typing, measured from the client side of one server session
(bench/lsp_bench.py runs these steps in its session):

- ``time_queued_edits``: N edits, each sent as soon as the findings of the previous one arrived,
  never waiting for the server's `ready` (whatever it does after publishing, e.g. warming its
  lookup tables, is work the next keystroke waits behind). Each edit is timed from writing its
  didChange to reading the publishDiagnostics of a version at least as new; every 50th edit and
  the last are checked against the generator's model. Drift: the median of the last 100 edits
  over that of the first 100.
- ``time_bursts``: bursts of 40 keystrokes 30 ms apart (one character each, typing
  ``By \\cref{label} ...`` into a blank line), timed from the last keystroke to the findings of
  the last version; right after the ``{`` a completion request goes out while the server
  indexes (the whole wait the author sees for it).
- ``time_completions``: completion inside ``\\cref{`` with nothing typed (the whole label list:
  a bounded page marked incomplete) and with the first four characters of a label typed, one
  request at a time on an idle server.
"""

from __future__ import annotations

import asyncio
import time

import lsp_bench
import synthetic
import synthetic_edits

CHECK_EVERY = 50
KEYSTROKES = 40
KEYSTROKE_GAP_S = 0.030
MAX_ITEMS = 100  # what the server's completion returns at most (server/.../completion.py)


def _change(uri: str, version: int, change: dict) -> dict:
    return {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}


async def time_queued_edits(s, n_edits: int, seed: int) -> tuple[synthetic.EditSequence, synthetic.Model]:
    seq = synthetic.EditSequence(s.project, s.rel, seed=seed)
    other = synthetic.analyze({k: v for k, v in s.project.texts.items() if k != s.rel})
    raw, kinds, cpu, sampled = [], [], [], []
    for k, edit in enumerate(seq.edits(n_edits), start=1):
        got = s.client.wait_diagnostics_since(s.uri, k)
        cpu0 = lsp_bench.proc_cpu_s(s.proc.pid)
        t0 = await s.client.notify("textDocument/didChange", _change(s.uri, k, edit.lsp_change()))
        try:
            params, t1 = await asyncio.wait_for(got, 30)
        except TimeoutError:
            raise lsp_bench.LspError(f"edit {k} ({edit.description}): no findings within 30 s") from None
        raw.append(t1 - t0)
        cpu.append(lsp_bench.proc_cpu_s(s.proc.pid) - cpu0)
        kinds.append(edit.kind)
        if k % CHECK_EVERY == 0 or k == n_edits:
            total = sum(1 for (_, diags, _) in s.client.diagnostics.values() for d in diags
                        if d.get("code") == lsp_bench.UNDEFINED_CODE)
            sampled.append((k, edit, params, total, seq.expected_undefined_references()))
    mismatches = []
    for k, edit, params, total, want_total in sampled:
        got = lsp_bench.undefined_in(params["diagnostics"], edit.text.split("\n"))
        want = lsp_bench.expected_undefined_here(s.rel, edit.text, other)
        if params.get("version") != k or got != want or total != want_total:
            mismatches.append({"edit": k, "what": edit.description, "version": params.get("version"),
                               "got": got[:10], "want": want[:10], "project_total": total,
                               "project_total_want": want_total})
    s.version = n_edits
    s.res.update(edit_raw_s=raw, edit_server_cpu_s=cpu, edit_kinds=kinds, edit_mismatches=mismatches,
                 edit_checked=len(sampled), edit_seed=seed)
    return seq, other


def _blank_lines(lines: list[str], n: int) -> list[int]:
    code = synthetic_edits.code_lines(lines)
    return lsp_bench.spread([i for i, line in enumerate(lines) if line == "" and code[i] and i > 3], n)


async def time_bursts(s, text: str, labels: list[str], other: synthetic.Model, n_bursts: int) -> str:
    """The bursts, one after another with a pause between; returns the file's text after them."""
    lines = text.split("\n")
    waits, cpu, published, completion, mismatches = [], [], [], [], []
    spots = _blank_lines(lines, n_bursts)
    for b, line_no in enumerate(sorted(spots, reverse=True)):  # bottom up: earlier spots stay put
        typed = (f"By \\cref{{{labels[(b * 7919) % len(labels)]}}} we get the bound for every n, ")[:KEYSTROKES]
        count_before = s.client.publications.get(s.uri, 0)
        cpu0 = lsp_bench.proc_cpu_s(s.proc.pid)
        start = time.perf_counter()
        asked = None
        for k, ch in enumerate(typed):
            await asyncio.sleep(max(0.0, start + k * KEYSTROKE_GAP_S - time.perf_counter()))
            s.version += 1
            got = s.client.wait_diagnostics_since(s.uri, s.version) if k == len(typed) - 1 else None
            at = {"line": line_no, "character": k}
            t_last = await s.client.notify("textDocument/didChange", _change(
                s.uri, s.version, {"range": {"start": at, "end": at}, "text": ch}))
            if typed[:k + 1].endswith("\\cref{"):  # the editor asks for completion as `{` is typed
                asked = asyncio.ensure_future(s.client.request("textDocument/completion", {
                    "textDocument": {"uri": s.uri}, "position": {"line": line_no, "character": k + 1},
                    "context": {"triggerKind": 2, "triggerCharacter": "{"}}))
        params, t_diag = await asyncio.wait_for(got, 30)
        waits.append(t_diag - t_last)
        if asked is not None:
            completion.append((await asked)[1])
        await s.client.quiet(0.2)
        cpu.append(lsp_bench.proc_cpu_s(s.proc.pid) - cpu0)
        published.append(s.client.publications.get(s.uri, 0) - count_before)
        lines[line_no] = typed
        now = "\n".join(lines)
        got_undefined = lsp_bench.undefined_in(params["diagnostics"], lines)
        want = lsp_bench.expected_undefined_here(s.rel, now, other)
        if params.get("version") != s.version or got_undefined != want:
            mismatches.append({"burst": b, "line": line_no, "version": params.get("version"),
                               "want_version": s.version, "got": got_undefined[:5], "want": want[:5]})
    s.res.update(burst_wait_s=waits, burst_server_cpu_s=cpu, burst_publications=published,
                 burst_completion_s=completion, burst_mismatches=mismatches, burst_keystrokes=KEYSTROKES,
                 burst_gap_s=KEYSTROKE_GAP_S)
    return "\n".join(lines)


def _items(result) -> tuple[list[dict], bool]:
    if isinstance(result, dict):
        return result.get("items", []), bool(result.get("isIncomplete"))
    return result or [], False


async def time_completions(s, lines: list[str], all_labels: set[str], n_requests: int) -> None:
    """Inside \\cref{, one request at a time: with nothing typed, and with four characters typed."""
    empty, typed, sizes, bad = [], [], set(), []
    for (line, ch) in lsp_bench.completion_positions(lines, n_requests):
        rest = lines[line][ch:]
        prefix = rest[:4] if len(rest) >= 4 and "}" not in rest[:4] and "," not in rest[:4] else ""
        if prefix and not any(name.startswith(prefix) for name in all_labels):
            prefix = ""  # a reference to no label (\\cref{missing:...}): nothing to complete
        for partial, samples in (("", empty), (prefix, typed)) if prefix else (("", empty),):
            result, dt = await s.client.request("textDocument/completion", {
                "textDocument": {"uri": s.uri}, "position": {"line": line, "character": ch + len(partial)},
                "context": {"triggerKind": 2, "triggerCharacter": "{"} if not partial else {"triggerKind": 1}})
            samples.append(dt)
            items, incomplete = _items(result)
            names = [it["label"] for it in items]
            sizes.add(len(items))
            unknown = [n for n in names if n not in all_labels]
            wrong = (not items or unknown or len(items) > MAX_ITEMS or (not partial and not incomplete)
                     or (partial and (not names[0].lower().startswith(partial.lower())
                                      or any(partial.lower() not in n.lower() for n in names))))
            if wrong:
                bad.append({"line": line, "character": ch, "typed": partial, "items": len(items),
                            "incomplete": incomplete, "first": names[:3], "unknown": unknown[:5]})
    s.res.update(completion_s=empty, completion_typed_s=typed, completion_items=sorted(sizes),
                 completion_mismatches=bad)
