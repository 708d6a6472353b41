"""Query latency on an existing index: p50/p95 of retrieval alone and of a full ``ask`` (retrieval, evidence ledger,
offline extractive generation, verification). Prints figures, asserts nothing.

Run: ``.venv/bin/python bench/query_latency.py [--home .lcabot] [--questions FILE] [--repeat 3] [--k 5]
[--torch-threads N]``

Every question of the file (default ``../shared/eval/dev_questions.jsonl``) is asked on its own (follow-ups without
their history), ``--repeat`` times, after a warm-up that loads the embedding model. Claude is never called: the
answerer is built with the extractive generator even when ``ANTHROPIC_API_KEY`` is set. The index is only read.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from lcabot import wiring
from lcabot.config import Settings

REPO = Path(__file__).resolve().parents[1]
DEFAULT_QUESTIONS = REPO.parent / "shared" / "eval" / "dev_questions.jsonl"


def load_questions(path: Path) -> list[str]:
    return [json.loads(line)["question"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def timed_ms(fn, questions: list[str], repeat: int) -> tuple[list[float], list]:
    """Milliseconds per call over ``repeat`` passes, and the results of the last pass."""
    times: list[float] = []
    results: list = []
    for _ in range(repeat):
        results = []
        for q in questions:
            start = time.perf_counter()
            results.append(fn(q))
            times.append((time.perf_counter() - start) * 1000)
    return times, results


def summary(name: str, times: list[float]) -> str:
    p50, p95 = np.percentile(times, [50, 95])
    return f"{name:<28} n={len(times):<4} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms   max {max(times):7.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Query latency benchmark.")
    parser.add_argument("--home", type=Path, default=Path(".lcabot"), help="LCABOT_HOME holding index.sqlite3")
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--repeat", type=int, default=3, help="passes over all questions")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--torch-threads", type=int, default=None, help="torch.set_num_threads (default: torch's)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if not (args.home / "index.sqlite3").is_file():
        print(f"no index at {args.home / 'index.sqlite3'}; run `lcabot ingest` (or make demo) first", file=sys.stderr)
        return 2
    questions = load_questions(args.questions)
    settings = dataclasses.replace(Settings.from_env(), home=args.home, anthropic_api_key=None)
    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)

    start = time.perf_counter()
    answerer = wiring.build_answerer(settings)
    answerer.retrieve(questions[0], k=args.k)  # loads the model and the vector matrix
    answerer.ask(questions[0], k=args.k)
    warmup_s = time.perf_counter() - start
    docs = answerer.documents()
    print(f"index: {args.home} ({len(docs)} documents, {sum(d.n_chunks for d in docs)} chunks); "
          f"{len(questions)} questions x {args.repeat}; k={args.k}")
    print(f"warm-up (model load, first retrieval and ask): {warmup_s:.1f} s")
    import torch  # loaded by now

    print(f"machine: {os.cpu_count()} CPUs, torch threads {torch.get_num_threads()}, "
          f"load average {os.getloadavg()[0]:.1f} before timing")

    retrieval, _ = timed_ms(lambda q: answerer.retrieve(q, k=args.k), questions, args.repeat)
    asks, answers = timed_ms(lambda q: answerer.ask(q, k=args.k), questions, args.repeat)
    abstained = sum(a.abstained for a in answers)
    print(summary("retrieval (hybrid + MMR)", retrieval))
    print(summary("full ask (extractive)", asks))
    print(f"abstained on {abstained} of {len(questions)} questions; load average {os.getloadavg()[0]:.1f} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
