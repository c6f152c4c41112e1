"""Document sync with the language server, end to end over stdio: incremental and full changes,
versions, the position encoding, the debounce, and publications that belong to their version and
their project."""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pytest_lsp import LanguageClient
from server_session import (B_TEX, FILES, _apply, _change, _codes, _find, _open, _publication, _ready, _undefined,
                            _write, vscode_only)
from server_session import client, project  # noqa: F401 - fixtures, requested by name


async def test_incremental_and_full_changes(client: LanguageClient):
    enc = client.encoding
    a = _open(client, "sections/a.tex")
    text = (client.project / "sections/a.tex").read_text(encoding="utf-8")
    await _ready(client, a)

    # an incremental edit breaks the reference of the theorem's body
    mark = len(client.published)
    rng = _find(text, "alpha", enc, after="Beta holds by \\cref{lem:")
    version = _change(client, a, (rng, "alpah"))
    text = _apply(text, [types.TextEdit(range=rng, new_text="alpah")], enc)
    published = await _publication(client, a, mark, lambda p: _undefined(p, "lem:alpah"),
                                   "undefined-reference for lem:alpah")
    [diag] = _undefined(published, "lem:alpah")
    assert diag.range == _find(text, "lem:alpah", enc)
    assert diag.severity == types.DiagnosticSeverity.Error
    assert "lem:alpha" in diag.message  # the one-letter neighbour is suggested
    assert published.version == version == 2

    # fixing it clears the file: an empty list is published, for the latest version
    mark = len(client.published)
    rng = _find(text, "alpah", enc)
    version = _change(client, a, (rng, "alpha"))
    text = _apply(text, [types.TextEdit(range=rng, new_text="alpha")], enc)
    published = await _publication(client, a, mark, lambda p: True, "the cleared diagnostics")
    assert len(published.diagnostics) == 0 and published.version == version == 3

    # a full change, then two partial changes in one notification, the second relative to the first
    mark = len(client.published)
    broken = text.replace("\\cref{lem:alpha}.\n  \\end{theorem}", "\\cref{lem:nowhere}.\n  \\end{theorem}")
    assert broken != text
    version = _change(client, a, broken)
    published = await _publication(client, a, mark, lambda p: _undefined(p, "lem:nowhere"),
                                   "undefined-reference after a full change")
    assert published.version == version == 4
    assert [d.range for d in _undefined(published, "lem:nowhere")] == [_find(broken, "lem:nowhere", enc)]

    mark = len(client.published)
    first = _find(broken, "nowhere", enc)
    inserted = "\\ref{sec:first}\n"
    second = types.Range(start=types.Position(line=first.start.line + 1, character=first.start.character),
                         end=types.Position(line=first.end.line + 1, character=first.start.character + len("nowhere")))
    version = _change(client, a, (types.Range(start=types.Position(line=0, character=0),
                                              end=types.Position(line=0, character=0)), inserted),
                      (second, "alpha"))
    published = await _publication(client, a, mark, lambda p: p.version == version, "diagnostics of version 5")
    assert len(published.diagnostics) == 0, [(d.code, d.message) for d in published.diagnostics]
    text = inserted + text

    # the server now holds the same text as this client: a hover on the moved reference resolves
    pos = _find(text, "lem:alpha", enc, after="Beta holds by \\cref{").start
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=a), position=pos))
    assert hover is not None and "lem:alpha" in str(hover.contents)


async def test_edits_below_a_form_feed_land_on_their_line(client: LanguageClient):
    """A form feed (TeX's ^^L page break) or U+2028 does not end a line for the protocol: an
    incremental edit below one is applied where the client means it (pygls's own document
    splits lines there too, and put such an edit a line too low)."""
    enc = client.encoding
    path = client.project / "sections/a.tex"
    text = path.read_text(encoding="utf-8").replace("\\section{First}", "% page\x0cbreak \u2028 here\n\\section{First}")
    path.write_text(text, encoding="utf-8")
    a = _open(client, "sections/a.tex")
    await _ready(client, a)

    mark = len(client.published)
    rng = _find(text, "alpha", enc, after="Beta holds by \\cref{lem:")
    version = _change(client, a, (rng, "alpah"))
    text = _apply(text, [types.TextEdit(range=rng, new_text="alpah")], enc)
    published = await _publication(client, a, mark, lambda p: p.version == version, f"diagnostics of version {version}")
    assert [d.range for d in _undefined(published, "lem:alpah")] == [_find(text, "lem:alpah", enc)]

    # the server holds the client's text: every reference but the broken one still resolves
    assert [d.code for d in published.diagnostics] == ["colosseum/undefined-reference"]


async def test_lone_carriage_returns_end_lines_for_edits_and_findings(client: LanguageClient):
    """A file with old Mac line ends (a lone CR): the protocol and TeX both end a line there, so
    findings and edits land on the same lines as in the LF copy of the file."""
    enc = client.encoding
    path = client.project / "sections/a.tex"
    text = path.read_text(encoding="utf-8")
    path.write_bytes(text.replace("\n", "\r").encode("utf-8"))
    uri = path.as_uri()
    client.versions[uri] = 1
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="latex", version=1, text=text.replace("\n", "\r"))))
    await _ready(client, uri)

    mark = len(client.published)
    rng = _find(text, "alpha", enc, after="Beta holds by \\cref{lem:")
    version = _change(client, uri, (rng, "alpah"))
    text = _apply(text, [types.TextEdit(range=rng, new_text="alpah")], enc)
    published = await _publication(client, uri, mark, lambda p: p.version == version, f"diagnostics of version {version}")
    assert [d.range for d in _undefined(published, "lem:alpah")] == [_find(text, "lem:alpah", enc)]
    assert [d.code for d in published.diagnostics] == ["colosseum/undefined-reference"]


async def test_ranges_in_the_negotiated_position_encoding(client: LanguageClient):
    """On a line with non-ASCII text before the reference, edits and diagnostics use the position
    encoding the server announced in its capabilities (UTF-16, or UTF-8 for Neovim >= 0.10)."""
    enc = client.encoding
    a = _open(client, "sections/a.tex")
    text = (client.project / "sections/a.tex").read_text(encoding="utf-8")
    await _ready(client, a)
    mark = len(client.published)
    rng = _find(text, "alpha", enc, after="voir \\cref{lem:")
    version = _change(client, a, (rng, "omega"))
    text = _apply(text, [types.TextEdit(range=rng, new_text="omega")], enc)
    assert "Erdős — voir \\cref{lem:omega}." in text
    published = await _publication(client, a, mark, lambda p: p.version == version and _codes(
        p, "colosseum/undefined-reference"), "undefined-reference after the edit")
    assert [d.range for d in _codes(published, "colosseum/undefined-reference")] == \
        [_find(text, "lem:omega", enc)], f"position encoding {enc}"
    assert _undefined(published, "lem:omega"), "the edit was applied at the wrong place"

    # a position in the same encoding finds the reference after the non-ASCII text
    pos = _find(text, "lem:alpha", enc, after="Beta holds by \\cref{").start
    refs = await client.text_document_references_async(types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(uri=a), position=pos,
        context=types.ReferenceContext(include_declaration=True)))
    assert refs and _find(text, "lem:alpha", enc, after="\\label{").start in [r.range.start for r in refs]


async def test_quick_edits_to_two_files_are_all_applied(client: LanguageClient):
    enc = client.encoding
    a, b = _open(client, "sections/a.tex"), _open(client, "sections/b.tex")
    text_a = (client.project / "sections/a.tex").read_text(encoding="utf-8")
    text_b = (client.project / "sections/b.tex").read_text(encoding="utf-8")
    await _ready(client, a)
    mark = len(client.published)

    # six edits back to back, well within the debounce, alternating between the files
    end_a = types.Position(line=text_a.count("\n"), character=0)
    end_b = types.Position(line=text_b.count("\n"), character=0)
    _change(client, a, (_find(text_a, "lem:alpha", enc, after="Beta holds by \\cref{"), "lem:zzz1"))
    _change(client, b, (_find(text_b, "lem:gamma", enc, after="By \\ref{"), "lem:zzz2"))
    _change(client, a, (types.Range(start=end_a, end=end_a), "\\ref{lem:zzz3}\n"))
    _change(client, b, (types.Range(start=end_b, end=end_b), "\\ref{lem:zzz4}\n"))
    end_a = types.Position(line=end_a.line + 1, character=0)
    _change(client, a, (types.Range(start=end_a, end=end_a), "\\ref{lem:zzz5}\n"))
    version_b = _change(client, b, (types.Range(start=end_b, end=end_b), "\\ref{lem:zzz6}\n"))
    version_a = client.versions[a]

    def complete(uri, version, labels):
        return lambda p: p.version == version and all(_undefined(p, label) for label in labels)

    got_a = await _publication(client, a, mark, complete(a, version_a, ["lem:zzz1", "lem:zzz3", "lem:zzz5"]),
                               f"a.tex v{version_a} with zzz1, zzz3 and zzz5")
    got_b = await _publication(client, b, mark, complete(b, version_b, ["lem:zzz2", "lem:zzz4", "lem:zzz6"]),
                               f"b.tex v{version_b} with zzz2, zzz4 and zzz6")
    assert len(_codes(got_a, "colosseum/undefined-reference")) == 3
    assert len(_codes(got_b, "colosseum/undefined-reference")) == 3
    # the last publication of each file is the latest version (nothing older arrives afterwards)
    await asyncio.sleep(0.5)
    for uri, version in ((a, version_a), (b, version_b)):
        assert [p.version for p in client.published if p.uri == uri][-1] == version


@vscode_only
async def test_published_version_matches_the_findings(client: LanguageClient):
    """Edits that arrive while the index is being rebuilt: a publication labelled with version V
    holds the findings of the text of version V (never those of an older text)."""
    uri = (client.project / "sections/a.tex").as_uri()
    # a long buffer (unsaved), so that each rebuild takes a while
    filler = "".join(f"See \\cref{{lem:alpha}} and {{\\bf {k}}} \\textit{{x}}.\n" for k in range(20000))
    text = filler + (client.project / "sections/a.tex").read_text(encoding="utf-8")
    client.versions[uri] = 1
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="latex", version=1, text=text)))
    await _ready(client, uri)
    mark = len(client.published)
    end = types.Position(line=text.count("\n"), character=0)
    expected: dict[int, set[str]] = {}
    labels: set[str] = set()
    for step in range(6):
        label = f"lem:v{step}"
        version = _change(client, uri, (types.Range(start=end, end=end), f"\\ref{{{label}}}\n"))
        end = types.Position(line=end.line + 1, character=0)
        labels.add(label)
        expected[version] = set(labels)
        await asyncio.sleep(0.17)  # just past the debounce: the next edit lands during the rebuild
    await _publication(client, uri, mark, lambda p: p.version == version and len(_codes(
        p, "colosseum/undefined-reference")) == len(labels), f"the findings of version {version}")
    await asyncio.sleep(0.3)
    wrong = []
    for p in client.published[mark:]:
        if p.uri != uri:
            continue
        found = {d.message.split("`")[1] for d in _codes(p, "colosseum/undefined-reference")}
        if found != expected.get(p.version):
            wrong.append(f"labelled version {p.version}: {sorted(found)} (expected {sorted(expected.get(p.version, []))})")
    assert not wrong, "publications whose version does not match their findings:\n" + "\n".join(wrong)
    assert [p.version for p in client.published if p.uri == uri][-1] == version


@vscode_only
async def test_edits_in_one_project_keep_the_diagnostics_of_another(client: LanguageClient):
    """Two projects side by side whose directory names share a prefix (paper, paper-v2): publishing
    the findings of one never clears those of the other."""
    other = _write(client.project.parent / "paper-v2", {**FILES, "sections/b.tex": B_TEX + "\\ref{lem:v2only}\n"})
    other_b = (other / "sections/b.tex").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=other_b, language_id="latex", version=1, text=(other / "sections/b.tex").read_text(encoding="utf-8"))))
    await _publication(client, other_b, 0, lambda p: _undefined(p, "lem:v2only"), "paper-v2's diagnostics")

    a = _open(client, "sections/a.tex")
    text = (client.project / "sections/a.tex").read_text(encoding="utf-8")
    await _ready(client, a)
    mark = len(client.published)
    for label in ("lem:broken", "lem:alpha"):  # break, then fix a reference in paper
        version = _change(client, a, text.replace("Beta holds by \\cref{lem:alpha}", f"Beta holds by \\cref{{{label}}}"))
        await _publication(client, a, mark, lambda p, v=version: p.version == v, f"paper's diagnostics of v{version}")
    await asyncio.sleep(0.3)
    cleared = [p for p in client.published[mark:] if p.uri == other_b and not p.diagnostics]
    assert not cleared, f"paper-v2's b.tex was published an empty list {len(cleared)} time(s) " \
                        "when paper's findings were published"
    assert [d for d in client.diagnostics[other_b] if "`lem:v2only`" in d.message], client.diagnostics[other_b]


@vscode_only
async def test_edit_right_after_open_is_kept(client: LanguageClient):
    """The first edit can come before the project is indexed (didOpen, then didChange at once):
    it is indexed, and not replaced by the text of the didOpen."""
    a = _open(client, "sections/a.tex")
    text = (client.project / "sections/a.tex").read_text(encoding="utf-8")
    version = _change(client, a, (_find(text, "lem:alpha", client.encoding, after="Beta holds by \\cref{"),
                                  "lem:typo"))
    await _publication(client, a, 0, lambda p: p.version == version and _undefined(p, "lem:typo"),
                       "the diagnostics of the edit made right after didOpen")
    await asyncio.sleep(0.3)
    last = [p for p in client.published if p.uri == a][-1]
    assert _undefined(last, "lem:typo"), f"the edit was undone afterwards: {last!r}"
