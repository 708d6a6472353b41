"""``lcabot report STUDY.pdf -o DIR``: an ISO 14067 CFP study report (Markdown, Word, chart) from one LCA study."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from rich.console import Console

from lcabot import messages
from lcabot.errors import DocumentError
from lcabot.wiring import Deps


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``report`` subcommand to the ``lcabot`` parser's subcommands."""
    rep = sub.add_parser("report", help="ISO 14067 carbon footprint study report from one LCA study PDF",
                         description="Write an ISO 14067:2018 CFP study report (Markdown, Word, stage chart) filled "
                                     "only from what the study states. The study never enters the library.")
    rep.add_argument("study", type=Path, metavar="STUDY.pdf")
    rep.add_argument("-o", "--out", type=Path, default=Path("."), metavar="DIR",
                     help="directory for the report files (created if missing; default: current directory)")
    rep.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace, deps: Deps) -> int:
    """Exit 0 with the written paths and a summary (with the report's notes); exit 2 with a one-line reason for an
    unusable file or an output directory that cannot be written."""
    from lcabot.report import write_report

    if args.out.exists() and not args.out.is_dir():
        print(f"{args.out} is a file; -o needs a directory for the three report files", file=sys.stderr)
        return 2
    try:  # before the work: an -o that cannot be written fails at once, not after a minute of reading the study
        args.out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=args.out):
            pass
    except OSError as err:
        print(messages.report_unwritable(str(args.out), err.strerror or type(err).__name__), file=sys.stderr)
        return 2
    try:
        data = args.study.read_bytes()
    except OSError as err:
        print(messages.report_unreadable(str(args.study), err.strerror or type(err).__name__), file=sys.stderr)
        return 2
    try:
        # a spinner on stderr while the study is read (about 1 s per page; only on a terminal)
        with Console(stderr=True).status(messages.report_started(args.study.name)):
            files = write_report(data, args.study.name, args.out, settings=deps.model_settings,
                                 embedder=deps.embedder)
    except DocumentError as err:
        print(messages.report_refused(str(err)), file=sys.stderr)
        return 2
    except OSError as err:
        print(messages.report_unwritable(str(args.out), err.strerror or type(err).__name__), file=sys.stderr)
        return 2
    for path in files.paths():
        print(path)
    report = files.report
    print(messages.report_summary(report.source, sum(f.provided for f in report.fields), len(report.fields),
                                  len(report.results), len(report.mismatches), report.generator, report.notes))
    return 0
