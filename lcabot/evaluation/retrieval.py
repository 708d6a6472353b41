"""Retrieval evaluation over ``shared/eval``-style JSONL: recall@1/5/10 and MRR on (document, PDF page), and
abstention accuracy on ``out_of_scope`` rows. Scoring rules: ``shared/eval/README.md``."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lcabot.answer.answerer import Answerer, clean_question, resolve_followup
from lcabot.ingest.normalize import match_key
from lcabot.models import Answer, Hit, Turn


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
    lead: dict[str, bool] = field(default_factory=dict)  # question id → the lead statement states a key fact
    types: dict[str, str] = field(default_factory=dict)  # question id → its type (numeric, definition, …)
    quotes_shown: int = 0
    quotes_failing_gate: int = 0  # shown quotes that fail a context gate (lcabot.answer.gates) for their question

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
            "false_abstentions": self.false_abstentions,
            "key_facts_in_answer": sum(self.key_facts.values()) / max(1, len(self.key_facts)),
            "lead_states_key_fact": sum(self.lead.values()) / max(1, len(self.lead)),
            "quotes_failing_gate": self.quotes_failing_gate / max(1, self.quotes_shown),
        }

    def by_type(self) -> dict[str, dict[str, float | int]]:
        """Per question type: how many, key facts in the answer, and the share whose lead states a key fact."""
        out: dict[str, dict[str, float | int]] = {}
        for kind in sorted(set(self.types.values())):
            ids = [q for q, t in self.types.items() if t == kind and q in self.key_facts]
            out[kind] = {"n": len(ids), "key_facts_in_answer": sum(self.key_facts[q] for q in ids) / max(1, len(ids)),
                         "lead_states_key_fact": sum(self.lead[q] for q in ids) / max(1, len(ids))}
        return out


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
    """Share of ``key_facts`` found in ``answer``, compared as ``shared/eval/README.md`` says: case-insensitive,
    ignoring whitespace, thousands separators (``10,000`` = ``10 000`` = ``10’000``), the dash variant and the
    exponent notation (``10^-16`` = ``10−16``); a number is compared with its unit (``34.8 kg CO2``)."""
    if not key_facts:
        return 1.0
    text = _fact_key(answer)
    return sum(1 for fact in key_facts if _fact_key(fact) in text) / len(key_facts)


def _fact_key(text: str) -> str:
    text = re.sub(r"(?<=\d)[,’'\u202f\u00a0 ](?=\d{3}\b)", "", text).replace("^", "")
    return match_key(text)


def shown_gate_failures(answer: Answer, question: str) -> int:
    """How many of the answer's shown quotes fail a context gate for ``question`` (they should be none: the
    verifier drops such statements; this counts what got through). A quote shown as a list item is judged as
    one."""
    from lcabot.answer.gates import failed_gate
    from lcabot.models import Evidence
    from lcabot.search.questions import frame

    asked = frame(question)

    def item(quote: str) -> str:  # shown as a list item under its lead-in ("Under “…:”: “● …” “● …”")
        return "item" if re.search(r"”:? “" + re.escape(quote) + "”", answer.text) else ""

    return sum(1 for c in answer.citations if failed_gate(
        Evidence(c.evidence_id, "", c.source, c.title, c.section, c.page, c.page_label, c.quote, "",
                 reading=c.quote if c.quote.startswith("|") else "", context=item(c.quote)), asked))


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
        # recall@k from the first k passages an answer gets (in rag+graph the last of them may be a graph passage;
        # a (k + 1)th, BM25's best when fusion ranked it lower, is not counted)
        report.at_k[row["id"]] = _rank(answerer.retrieve(row["question"], history=history, k=k, mode=mode)[:k],
                                       sources, row["expected"]) is not None
        answer = answerer.ask(row["question"], history=history, k=k, mode=mode)
        report.false_abstentions += answer.abstained
        cited = {int(n) for n in re.findall(r"\[(\d+)\]", answer.text)}  # the statements' own citations
        quotes = " ".join(c.quote for c in answer.citations if c.number in cited)
        facts = row.get("key_facts") or ()
        report.types[row["id"]] = row["type"]
        report.key_facts[row["id"]] = 0.0 if answer.abstained else key_fact_share(f"{answer.text} {quotes}", facts)
        lead = answer.text.split("\n", 1)[0]
        report.lead[row["id"]] = not answer.abstained and bool(facts) and key_fact_share(lead, facts) > 0
        report.quotes_shown += len(answer.citations)
        # judged against the question the answer answered: a follow-up joined to the question it follows
        report.quotes_failing_gate += shown_gate_failures(
            answer, resolve_followup(clean_question(row["question"]), history))
        previous[row["id"]] = Turn(row["question"], answer.text)
    return report
