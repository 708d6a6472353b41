"""Retrieval evaluation over ``shared/eval``-style JSONL: recall@1/5/10 and MRR on (document, PDF page), and
abstention accuracy on ``out_of_scope`` rows. Scoring rules: ``shared/eval/README.md``."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lcabot.answering import Answerer
from lcabot.models import Hit, Turn
from lcabot.normalize import match_key


def load_questions(path: Path) -> list[dict[str, Any]]:
    """Rows of a JSONL file (``id``, ``question``, ``type``, ``expected``, ``follows`` …)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@dataclass
class RetrievalReport:
    ranks: dict[str, int | None] = field(default_factory=dict)  # question id → rank where all passages were hit
    abstained_ok: int = 0
    out_of_scope: int = 0
    false_abstentions: int = 0
    k: int = 5
    key_facts: dict[str, float] = field(default_factory=dict)  # question id → share of its key facts in the answer
    at_k: dict[str, bool] = field(default_factory=dict)  # question id → all passages among the k an answer gets

    @property
    def missed(self) -> list[str]:
        return [qid for qid in self.ranks if not self.at_k.get(qid)]

    def recall(self, k: int) -> float:
        """Share of questions whose expected passages are all within the top ``k`` (for ``k`` equal to the report's
        ``k``: within the passages an answer is given, from a retrieval of ``k``)."""
        if k == self.k and self.at_k:
            return sum(self.at_k.values()) / max(1, len(self.at_k))
        return sum(1 for r in self.ranks.values() if r is not None and r <= k) / max(1, len(self.ranks))

    def summary(self) -> dict[str, float | int]:
        n = len(self.ranks)
        return {
            "n": n,
            "recall_at_1": self.recall(1),
            "recall_at_5": self.recall(5),
            "recall_at_10": self.recall(10),
            "mrr": sum(1.0 / r for r in self.ranks.values() if r) / max(1, n),
            "abstention_accuracy": self.abstained_ok / self.out_of_scope if self.out_of_scope else 1.0,
            "key_facts_in_answer": sum(self.key_facts.values()) / max(1, len(self.key_facts)),
        }


def _rank(hits: Sequence[Hit], sources: dict[str, str], expected: Sequence[dict[str, Any]]) -> int | None:
    """The rank at which every expected passage has been hit, or None."""
    ranks = [passage_rank(hits, sources, e["doc"], e["pages"]) for e in expected]
    return None if any(r is None for r in ranks) else max(r for r in ranks if r)


def passage_rank(hits: Sequence[Hit], sources: dict[str, str], doc: str, pages: Sequence[int]) -> int | None:
    """1-based rank of the first hit from document file ``doc`` covering one of ``pages`` (``sources``: doc id →
    file name)."""
    name = Path(doc).name
    for rank, hit in enumerate(hits, start=1):
        c = hit.chunk
        if sources.get(c.doc_id) == name and any(c.page_start <= p <= c.page_end for p in pages):
            return rank
    return None


def key_fact_share(answer: str, key_facts: Sequence[str]) -> float:
    """Share of ``key_facts`` found in ``answer`` (case-insensitive, whitespace and dashes normalised)."""
    if not key_facts:
        return 1.0
    text = match_key(answer)
    return sum(1 for fact in key_facts if match_key(fact) in text) / len(key_facts)


def evaluate_retrieval(rows: Sequence[dict[str, Any]], answerer: Answerer, k: int = 5,
                       mode: str | None = None) -> RetrievalReport:
    """Score retrieval on ``rows`` in retrieval ``mode`` (``rag``, ``rag+graph``; ``None``: the answerer's
    default), and the share of each row's ``key_facts`` in the answer. Follow-ups are asked with their preceding
    question and its answer as history."""
    sources = {d.doc_id: d.source for d in answerer.documents()}
    report = RetrievalReport(k=k)
    previous: dict[str, Turn] = {}
    for row in rows:
        follows = row.get("follows")
        history = [previous[follows]] if follows in previous else []
        if row["type"] == "out_of_scope":
            report.out_of_scope += 1
            report.abstained_ok += answerer.ask(row["question"], history=history, k=k, mode=mode).abstained
            continue
        report.ranks[row["id"]] = _rank(answerer.retrieve(row["question"], history=history, k=max(10, k), mode=mode),
                                        sources, row["expected"])
        # recall@k from the k passages an answer gets (in rag+graph the last of them may be a graph passage)
        report.at_k[row["id"]] = _rank(answerer.retrieve(row["question"], history=history, k=k, mode=mode),
                                       sources, row["expected"]) is not None
        answer = answerer.ask(row["question"], history=history, k=k, mode=mode)
        report.false_abstentions += answer.abstained
        cited = {int(n) for n in re.findall(r"\[(\d+)\]", answer.text)}  # the statements' own citations
        quotes = " ".join(c.quote for c in answer.citations if c.number in cited)
        report.key_facts[row["id"]] = 0.0 if answer.abstained else key_fact_share(f"{answer.text} {quotes}",
                                                                                   row.get("key_facts") or ())
        previous[row["id"]] = Turn(row["question"], answer.text)
    return report
