"""The ``colosseum`` command line: check, dag, obligations, serve."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys

from colosseum import __version__

# subcommands that live in their own module: each has add_arguments(subparsers), which gives its
# parser a default ``run(args) -> exit code``. Building the parser imports all of them, so they
# import their engine (asyncio, the model layer) inside ``run``: `colosseum check` starts fast.
SUBCOMMAND_MODULES: tuple[str, ...] = ("colosseum.cli.solve", "colosseum.cli.review", "colosseum.cli.lean", "colosseum.cli.research",
                                      "colosseum.cli.drafts", "colosseum.cli.doctor", "colosseum.cli.probe",
                                      "colosseum.cli.cache", "colosseum.cli.bench",
                                      "colosseum.cli.batches")


def _print_dag(index, args) -> int:
    # only the writer asked for is imported: `dag` (JSON) loads neither the page nor the exchange formats
    from colosseum.graph import export

    exchange = None
    if args.transitive_reduction or args.format in ("svg", "graphml", "gexf"):
        from colosseum.graph import exchange
    if args.transitive_reduction:
        index = exchange.transitively_reduced(index)
    evidence = _claim_evidence(index)
    if evidence is not None:  # each claim's catalog evidence by kind; probes mark the drawings
        index = export.WithEvidence(index, evidence)
    if args.format == "html":
        from colosseum.graph.html import dag_html as render
    elif exchange is not None and args.format in ("svg", "graphml", "gexf"):
        render = {"svg": exchange.dag_svg, "graphml": exchange.dag_graphml, "gexf": exchange.dag_gexf}[args.format]
    else:
        render = {"json": export.dag_json, "dot": export.dag_dot, "mermaid": export.dag_mermaid}[args.format]
    try:
        print(render(index))
    except Exception as exc:
        if exchange is None or not isinstance(exc, exchange.GraphvizMissing):
            raise
        print(f"colosseum: {exc}", file=sys.stderr)
        return 1
    return 0


def _claim_evidence(index) -> dict | None:
    """label -> the catalog's evidence of it by kind (colosseum.catalog.evidence), for every claim;
    None when the project has no catalog folder (or it may not be read)."""
    from colosseum.app.knowledge import CatalogOutsideProject, catalog_directory

    try:
        directory = catalog_directory(index.root_dir)
    except CatalogOutsideProject:
        return None
    if not directory.is_dir():
        return None
    from colosseum.catalog.evidence import evidence_by_claim
    from colosseum.catalog.store import load_catalog

    found = evidence_by_claim(load_catalog(directory), index.claims)
    return {label: evidence.as_json() for label, evidence in found.items()}


def _computation_text(item: dict) -> str:
    from colosseum.catalog.evidence import computation_line, item_from_json

    return computation_line(item_from_json("computation", item))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="colosseum", description="Check and solve the proof obligations of a LaTeX project.")
    parser.add_argument("--version", action="version", version=f"colosseum {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="report broken references, cycles, open obligations ...")
    check.add_argument("path", help="project directory or its root .tex file")
    from colosseum.cli.check_output import add_check_output_arguments

    add_check_output_arguments(check)
    dag = sub.add_parser("dag", help="print the dependency DAG")
    dag.add_argument("path")
    dag.add_argument("--format", choices=("json", "dot", "mermaid", "html", "svg", "graphml", "gexf"), default="json")
    dag.add_argument("--transitive-reduction", action="store_true",
                     help="leave out the dependency edges a longer path implies (circles kept)")
    obligations = sub.add_parser("obligations", help="the obligations in a valid solve order")
    obligations.add_argument("path")
    obligations.add_argument("--format", choices=("text", "json"), default="text")
    knowledge = sub.add_parser("knowledge", help="the knowledge catalog beside the paper")
    knowledge.add_argument("action", choices=("check", "list", "show", "add", "retract"))
    knowledge.add_argument("path", help="project directory or its root .tex file")
    knowledge.add_argument("entry", nargs="?", help="entry id (show, retract) or claim label (add)")
    knowledge.add_argument("--format", choices=("text", "json"), default="text")
    knowledge.add_argument("--no-starter", action="store_true", help="leave out the starter catalog")
    knowledge.add_argument("--reason", help="why (for retract)")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).add_arguments(sub)
    serve = sub.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", type=int, metavar="PORT", help="listen on 127.0.0.1:PORT instead of stdio")
    serve.add_argument("--log-file", help="write the server log here")
    serve.add_argument("--stdio", action="store_true", help="use stdin/stdout (the default; accepted for clients that pass it)")
    return parser


STDOUT_CLOSED = 141  # what a shell reports for a command that SIGPIPE ended (128 + 13), as `cat` gets in `cat | head`


def main(argv: list[str] | None = None) -> int:
    try:
        code = _run(argv)
        if not sys.stdout.closed:  # (the language server closes it as it ends)
            sys.stdout.flush()  # the output's last buffer goes now, not at exit where a closed pipe prints a traceback
    except BrokenPipeError:
        # the reader stopped reading (`colosseum dag . | head -1`): end quietly. Python's advice
        # (signal module docs): point stdout at devnull so the flush at exit fails no more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return STDOUT_CLOSED
    return code


def _run(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        from colosseum_lsp.main import run_server  # the server package; the engine never imports it

        return run_server(tcp_port=args.tcp, log_file=args.log_file)
    if getattr(args, "run", None) is not None:
        return args.run(args)
    if args.command == "knowledge":
        from colosseum.cli.knowledge import run_knowledge

        return run_knowledge(args)
    from colosseum.cli.terminal import open_project, print_json  # one way to open a project for every command

    # check, dag, obligations: one index, a report, exit. The cyclic collector would walk the
    # whole index once it is built (a sixth of a cold `check`) to free nothing.
    gc.disable()
    index = open_project(args.path, for_edits=False)  # a report, never edited: kept lean
    if index is None:
        return 2
    if args.command == "check":
        from colosseum.settings.user import user_config_diagnostics

        # the user's own config is outside the project: its problems are shown here, on its lines
        diagnostics = index.diagnostics() + (user_config_diagnostics(index.config.user) if index.config.user else [])
        from colosseum.app.knowledge import CatalogOutsideProject, catalog_directory

        try:
            catalog_dir = catalog_directory(index.root_dir)
        except CatalogOutsideProject as exc:  # the paper is still checked, without the catalog's findings
            print(f"colosseum: the catalog is not read: {exc}", file=sys.stderr)
            catalog_dir = None
        if catalog_dir is not None and catalog_dir.is_dir():  # what the catalog beside the paper says about it
            from colosseum.catalog.checks import catalog_diagnostics  # the catalog's code only for a paper that has one
            from colosseum.catalog.store import load_catalog

            diagnostics = sorted(diagnostics + catalog_diagnostics(load_catalog(catalog_dir), index),
                                 key=lambda d: d.sort_key())
        from colosseum.cli.check_output import report

        return report(index, diagnostics, args)
    if args.command == "dag":
        return _print_dag(index, args)
    if args.command == "obligations":
        from colosseum.graph import export  # not on check's path: check starts without it

        evidence = _claim_evidence(index)
        plan = export.obligation_plan(export.WithEvidence(index, evidence) if evidence is not None else index)
        if args.format == "json":
            print_json({"obligations": plan})
        elif not plan:
            print("no obligations (mark a claim with \\obligation or a line `% colosseum: obligation`)")
        else:
            # numbered 1, 2, ... as a list reads; the DAG generation (which the list was numbered by:
            # FLT's one obligation came out as "9.") said apart
            for position, item in enumerate(plan, 1):
                waits = ", ".join(item["waits_on"]) if item["waits_on"] else "nothing"
                status = f"draft of run {item['draft_run'] or '?'}" if item.get("draft") else item["status"]
                print(f"{position}. {item['id']} [{status}] {item['file']}:{item['line']} "
                      f"(generation {item['generation']}) - waits on: {waits}")
                for computation in item.get("computation") or []:  # apart: small cases, never a proof
                    print(f"   computation (not a proof): {_computation_text(computation)}")
        return 0
    return 2
