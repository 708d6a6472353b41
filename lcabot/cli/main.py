"""The ``lcabot`` command: ingest, ask, chat, sources, remove, eval, graph, report, dev."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from lcabot import messages, wiring
from lcabot.config import PERSPECTIVES, Settings
from lcabot.errors import ConfigurationError, IndexWriteError, QuestionError
from lcabot.models import Answer, Turn
from lcabot.wiring import Deps

console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except ValueError as err:
        err_console.print(f"[red]configuration error:[/] {escape(str(err))}")
        return 2
    try:
        return int(args.func(args, wiring.build(settings)) or 0)
    except (ConfigurationError, QuestionError, IndexWriteError) as err:
        err_console.print(f"[red]{escape(str(err))}[/]")
        return 2
    except KeyboardInterrupt:
        err_console.print("stopped (`ingest` and `graph build` pick up where they stopped when run again)")
        return 130


def positive_integer(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lcabot", description="Grounded answers from your LCA library.")
    sub = p.add_subparsers(required=True, metavar="COMMAND")
    ing = sub.add_parser("ingest", help="index PDFs (files or folders)")
    ing.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    ing.add_argument("--perspective", choices=PERSPECTIVES, default="general")
    ing.set_defaults(func=cmd_ingest)
    ask = sub.add_parser("ask", help="ask one question")
    ask.add_argument("question")
    ask.add_argument("--k", type=positive_integer, default=None, help="passages to retrieve (default LCABOT_TOP_K)")
    ask.add_argument("--json", action="store_true", help="print one JSON object")
    _mode_flags(ask)
    ask.set_defaults(func=cmd_ask)
    chat = sub.add_parser("chat", help="interactive questions with follow-ups")
    chat.add_argument("--k", type=positive_integer, default=None)
    _mode_flags(chat)
    chat.set_defaults(func=cmd_chat)
    src = sub.add_parser("sources", help="list indexed documents")
    src.set_defaults(func=cmd_sources)
    rm = sub.add_parser("remove", help="remove a document (file name or doc id)")
    rm.add_argument("doc")
    rm.set_defaults(func=cmd_remove)
    ev = sub.add_parser("eval", help="evaluate")
    ev_sub = ev.add_subparsers(required=True, metavar="WHAT")
    evr = ev_sub.add_parser("retrieval", help="recall@1/5/10, MRR and abstention accuracy")
    evr.add_argument("--questions", type=Path, required=True)
    evr.add_argument("--k", type=positive_integer, default=5)
    evr.add_argument("--json", type=Path, default=None, metavar="OUT")
    evr.add_argument("--mode", choices=("rag", "rag+graph", "both"), default="both",
                     help="retrieval mode(s) to score (default: both, side by side)")
    evr.set_defaults(func=cmd_eval_retrieval)
    from lcabot.cli import dev as devcli
    from lcabot.cli import graph as graphcli
    from lcabot.cli import report as reportcli

    graphcli.add_parser(sub)
    reportcli.add_parser(sub)
    devcli.add_parser(sub)
    return p


def _mode_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--graph", dest="mode", action="store_const", const="rag+graph",
                       help="use the knowledge graph too (rag+graph)")
    group.add_argument("--rag", dest="mode", action="store_const", const="rag", help="passages only (rag)")
    parser.set_defaults(mode=None)


def cmd_ingest(args: argparse.Namespace, deps: Deps) -> int:
    from lcabot.ingest.pipeline import discover_pdfs

    files = discover_pdfs(args.paths)
    if not files:
        err_console.print("[red]no PDF found[/] in " + ", ".join(str(p) for p in args.paths))
        return 1
    failed = 0
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err_console, transient=True) as progress:
        task = progress.add_task(f"ingesting {len(files)} file(s)", total=len(files))
        for result in deps.library.add_files(files, args.perspective,
                                             progress=lambda text: err_console.print(escape(text))):
            style = {"failed": "red", "unchanged": "dim"}.get(result.status, "green")
            text = f"not indexed — {result.message}" if result.status == "failed" else result.message
            progress.console.print(f"[{style}]{escape(text)}[/]")
            failed += result.status == "failed"
            progress.advance(task)
    docs = deps.index.documents()
    console.print(f"library: {len(docs)} documents, {sum(d.n_pages for d in docs)} pages, "
                  f"{sum(d.n_chunks for d in docs)} chunks in {deps.settings.home}")
    return 1 if failed else 0


def cmd_ask(args: argparse.Namespace, deps: Deps) -> int:
    answer = deps.answerer.ask(args.question, k=args.k or deps.settings.top_k, mode=args.mode)
    if args.json:
        print(json.dumps(answer.to_json(), ensure_ascii=False, indent=2))
    else:
        print_answer(answer)
    return 0


def cmd_chat(args: argparse.Namespace, deps: Deps) -> int:
    answerer, settings = deps.answerer, deps.settings
    history: list[Turn] = []
    console.print("[bold]lcabot chat[/] — ask about your LCA library; follow-ups use the conversation. "
                  "Empty line or Ctrl-D to quit.")
    while True:
        try:
            question = console.input("[bold cyan]you>[/] ").strip()
        except (EOFError, KeyboardInterrupt):
            break
        if not question:
            break
        try:
            answer = answerer.ask(question, history=history, k=args.k or settings.top_k, mode=args.mode)
        except QuestionError as err:
            console.print(f"[yellow]{escape(str(err))}[/]")
            continue
        print_answer(answer)
        history.append(Turn(question, "" if answer.abstained else answer.text))
    return 0


def print_answer(answer: Answer) -> None:
    style = "yellow" if answer.abstained else "default"
    console.print(f"[{style}]{escape(answer.text)}[/]")
    for note in answer.notes:
        console.print(f"[dim]note: {escape(note)}[/]")
    if answer.facts:
        console.print("\n[bold]Knowledge graph facts used[/]")
        for fact in answer.facts:
            console.print(escape(messages.graph_fact(fact)))
    if answer.citations:
        console.print("\n[bold]Sources[/]")
        for c in answer.citations:
            console.print(escape(messages.citation(c)))
    console.print(f"[dim]mode: {answer.retrieval_mode}, answered by: {answer.generator}[/]")


def cmd_sources(args: argparse.Namespace, deps: Deps) -> int:
    docs = deps.search_index.documents()
    if not docs:
        console.print(messages.abstain_empty_library())
        return 0
    if not console.is_terminal:  # pipes and files get whole ids and names, one document per line
        for d in docs:
            print("\t".join([d.doc_id, d.source, d.perspective, str(d.n_pages), str(d.n_chunks),
                             messages.pages_list(d.pages_without_text) or "-", d.title]))
        return 0
    table = Table("doc id", "file", "perspective", "pages", "chunks", "pages without text", "title")
    for d in docs:
        table.add_row(d.doc_id, d.source, d.perspective, str(d.n_pages), str(d.n_chunks),
                      messages.pages_list(d.pages_without_text) or "-", d.title[:60])
    console.print(table)
    pages, chunks = sum(d.n_pages for d in docs), sum(d.n_chunks for d in docs)
    console.print(f"{len(docs)} documents, {pages} pages, {chunks} chunks")
    return 0


def cmd_remove(args: argparse.Namespace, deps: Deps) -> int:
    index = deps.search_index
    matches = [d for d in index.documents() if args.doc in (d.doc_id, d.source, d.source_key)]
    if len(matches) != 1:
        problem = "no indexed document" if not matches else f"{len(matches)} documents"
        err_console.print(f"[red]{problem} matches {escape(args.doc)}[/]; see `lcabot sources`")
        return 1
    from lcabot.cli import graph as graphcli

    index.delete_document(matches[0].doc_id)
    graphcli.sync(deps, progress=lambda _text: None)
    console.print(f"removed {matches[0].source} ({matches[0].n_chunks} chunks)")
    return 0


def cmd_eval_retrieval(args: argparse.Namespace, deps: Deps) -> int:
    from lcabot.evaluation.retrieval import evaluate_retrieval, load_questions

    answerer = deps.answerer
    modes = ("rag", "rag+graph") if args.mode == "both" else (args.mode,)
    rows = load_questions(args.questions)
    reports = {mode: evaluate_retrieval(rows, answerer, k=args.k, mode=mode) for mode in modes}
    table = Table("metric", *modes)
    summaries = {mode: report.summary() for mode, report in reports.items()}
    for key in summaries[modes[0]]:
        table.add_row(key, *(_figure(summaries[m][key]) for m in modes))
    console.print(table)
    kinds = Table("type", *(f"{m} {what}" for m in modes for what in ("n", "facts", "lead")))
    per_type = {mode: report.by_type() for mode, report in reports.items()}
    for kind in per_type[modes[0]]:
        kinds.add_row(kind, *(_figure(per_type[m][kind][what]) for m in modes
                              for what in ("n", "key_facts_in_answer", "lead_states_key_fact")))
    console.print(kinds)
    for mode, report in reports.items():
        if report.missed:
            console.print(f"{mode} missed at k: " + ", ".join(report.missed))
    if args.json:
        out = {m: {**summaries[m], "by_type": per_type[m]} for m in modes}
        args.json.write_text(json.dumps(out if len(modes) > 1 else out[modes[0]], indent=2))
    return 0


def _figure(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


if __name__ == "__main__":
    sys.exit(main())
