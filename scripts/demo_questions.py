"""Ask questions from an evaluation file by id, exactly as ``lcabot ask "…"`` would (used by ``make demo``).

Run: ``.venv/bin/python scripts/demo_questions.py D017 D022 D001 [--questions ../shared/eval/dev_questions.jsonl]``
The index is the one in ``LCABOT_HOME`` (default ``./.lcabot``); ingest first.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lcabot.cli import main as cli

DEFAULT_QUESTIONS = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev_questions.jsonl"


def load_rows(path: Path) -> dict[str, dict]:
    """The question rows of a JSONL file, by id."""
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return {row["id"]: row for row in rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="+", metavar="ID", help="question ids, e.g. D017")
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS, help="JSONL file with id and question")
    args = parser.parse_args(argv)
    if not args.questions.is_file():
        print(f"questions file not found: {args.questions}", file=sys.stderr)
        return 2
    rows = load_rows(args.questions)
    unknown = [i for i in args.ids if i not in rows]
    if unknown:
        print(f"unknown question ids in {args.questions}: {', '.join(unknown)}", file=sys.stderr)
        return 2
    status = 0
    for qid in args.ids:
        row = rows[qid]
        note = f" (follow-up of {row['follows']}, asked on its own)" if row.get("follows") else ""
        print(f"\n=== {qid}{note}: {row['question']}\n$ lcabot ask \"{row['question']}\"", flush=True)
        status = max(status, cli.main(["ask", row["question"]]))
    return status


if __name__ == "__main__":
    sys.exit(main())
