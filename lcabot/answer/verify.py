"""Verification before anything is shown (DESIGN.md §6): ids exist, quotes are verbatim on the cited page,
the cited page is the one that holds the quote, numbers occur in the cited evidence. Failing claims are dropped."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lcabot.answer.gates import failed_gate, units_supported
from lcabot.ingest.normalize import collapse, match_key
from lcabot.models import Citation, Claim, Evidence, GraphFact
from lcabot.ports import SearchIndex
from lcabot.search.abstention import term_present
from lcabot.search.questions import QuestionFrame

_NUMBER = re.compile(r"(?<![\w.])[-−–]?\d+(?:[.,]\d+)*(?![\w])")
_ASKS_WHERE = re.compile(r"\bwhere\b|\bwhich (?:section|chapter|annex|part)\b", re.I)
_MARKER = re.compile(r"\[\d+(?:,\s*\d+)*\]|\[E[0-9a-f]{10}\]")


@dataclass(frozen=True)
class Verified:
    claims: tuple[Claim, ...]
    citations: tuple[Citation, ...]
    text: str
    dropped: int
    facts: tuple[GraphFact, ...] = ()
    gate_failures: tuple[str, ...] = ()  # the context gate each dropped claim failed (DESIGN.md §11)


def numbers_in(text: str) -> list[str]:
    """Numbers written in ``text`` (citation markers excluded), as printed: ``10.44``, ``1,000``, ``-2.51``."""
    return [m.group(0).lstrip("-−–") for m in _NUMBER.finditer(_MARKER.sub(" ", text))]


def verify(claims: Sequence[Claim], ledger: Sequence[Evidence], index: SearchIndex,
           facts: Sequence[tuple[GraphFact, Sequence[Evidence]]] = (), max_facts: int = 0,
           question: QuestionFrame | None = None) -> Verified:
    """Keep the claims whose evidence ids all exist, whose quote comes from the cited evidence and is on its page,
    whose numbers are in the cited evidence (with their units) and whose evidence passes the context gates for
    ``question`` (:mod:`lcabot.answer.gates`); number the citations in order of first use, one per (document, page,
    section, running on to the next page), and render ``text`` with ``[n]`` markers. Citation markers written
    inside a claim's text are removed first. A claim citing any id outside the ledger is dropped, not trimmed to its
    valid ids.

    Graph ``facts`` (each with the evidence of the statements behind it) are shown only when they earn their place:
    not a structural ``defined_in`` fact, naming a concept of the question, stated in a passage a kept claim
    quotes, with at least one of its quotes on its cited page; at most ``max_facts``. Facts never make an answer on
    their own: without a kept claim there are no facts."""
    by_id = {e.evidence_id: e for e in ledger}
    kept: list[Claim] = []
    citations: dict[tuple[str, int, str | None, bool], Citation] = {}
    lines: list[str] = []
    gates: list[str] = []
    for claim in claims:
        text = re.sub(r"\s+(?=[.,;:!?](?:[\s\"”’)]|$))", "", " ".join(_MARKER.sub(" ", claim.text).split()))
        text = re.sub(r"(?<=\w\.)\.(?=[\s\"”’)]|$)", "", text)  # "c.f. [4]." is "c.f."
        if not claim.evidence_ids or any(i not in by_id for i in claim.evidence_ids):
            continue
        cited = [by_id[i] for i in dict.fromkeys(claim.evidence_ids)]
        failed = next((g for e in cited if question is not None and (g := failed_gate(e, question))), None)
        if failed:
            gates.append(failed)
            continue
        if not _numbers_supported(text, cited) or not units_supported(text, cited):
            continue
        markers: list[int] = []
        for evidence in cited:
            quote = collapse(claim.quote) if claim.quote and len(cited) == 1 else evidence.text
            number = _cite(evidence, quote, citations, index)
            if number is not None:
                markers.append(number)
        if not markers:
            continue
        kept.append(Claim(text, claim.evidence_ids, claim.quote))
        lines.append(f"{text} " + "".join(f"[{n}]" for n in dict.fromkeys(markers)))
    # the passages the kept claims quote (and their spans, which overlapping chunks share): a fact stated there backs
    # the answer
    quoted = {x for c in kept for i in c.evidence_ids if i in by_id for x in (i, by_id[i].chunk_id)}
    shown: list[GraphFact] = []
    for fact, fact_evidence in facts if kept else ():
        if len(shown) == max_facts:
            break
        if question is not None:  # a fact's quote is shown too: it passes the same context gates
            fact_evidence = [e for e in fact_evidence if failed_gate(e, question) is None]
        if not _fact_earns_place(fact, fact_evidence, quoted, question):
            continue
        # (cited where the answer quotes it, not also on a page of a document the answer does not cite)
        numbers = [n for e in fact_evidence if (e.chunk_id in quoted or e.evidence_id in quoted)
                   and (n := _cite(e, e.text, citations, index)) is not None]
        if numbers:
            shown.append(GraphFact(fact.subject, fact.relation, fact.object, tuple(dict.fromkeys(numbers))))
    return Verified(tuple(kept), tuple(citations.values()), "\n".join(lines), len(claims) - len(kept), tuple(shown),
                    tuple(gates))


def _fact_earns_place(fact: GraphFact, evidence: Sequence[Evidence], quoted: set[str],
                      question: QuestionFrame | None) -> bool:
    """A graph fact is shown when it names a concept of the question and is stated in a passage the answer quotes
    (``quoted``: their chunk and evidence ids), so it backs a statement of the answer; a fact stated elsewhere in
    a cited document ("PEFCR —covers→ representative product" under any PEFCR question) is not. A structural
    ``defined_in`` fact only when the question asks where something is defined or set out."""
    structural = fact.relation == "defined_in" and not (question and _ASKS_WHERE.search(question.text))
    if structural or not any(e.chunk_id in quoted or e.evidence_id in quoted for e in evidence):
        return False
    return question is None or any(term_present(t, question.text) for name in (fact.subject, fact.object)
                                   for t in name.lower().split() if len(t) > 3)


def _cite(evidence: Evidence, quote: str, citations: dict[tuple[str, int, str | None, bool], Citation],
          index: SearchIndex) -> int | None:
    """The citation number of ``quote`` from ``evidence`` (one citation per document, page, section and running on
    to the next page, showing the first quote cited there), or None when the quote is not in the evidence or not
    on its page (or the page next to it, or the two pages a sentence continued across a page break is printed
    on)."""
    if match_key(quote) not in match_key(evidence.text):
        return None  # a quote from elsewhere (even an adjacent page) does not support this evidence
    held = _page_holding(quote, evidence, index)
    if held is None:
        return None
    page, across = held
    # (a quote under another section of the page, or running on to the next page, is cited as such: Burchart et al.
    # 2023's functional unit sentence is "2.1 Goal and Scope …, p. 4–5", not the "1 Introduction, p. 4" of a quote
    # before it)
    key = (evidence.doc_id, page, evidence.section, across)
    if key not in citations:
        label = evidence.page_label if across else _label(index, evidence.doc_id, page)
        citations[key] = Citation(len(citations) + 1, evidence.evidence_id, evidence.source, evidence.title,
                                  evidence.section, page, label, quote)
    return citations[key].number


def _numbers_supported(text: str, cited: Sequence[Evidence]) -> bool:
    # a table row's reading is built from the cells and headers of the page itself
    haystack = match_key(" ".join(f"{e.section or ''} {e.context} {e.text} {e.reading}" for e in cited))
    return all(match_key(n) in haystack for n in numbers_in(text))


def _page_holding(quote: str, evidence: Evidence, index: SearchIndex) -> tuple[int, bool] | None:
    """The PDF page whose text holds ``quote`` (the evidence's page, else the page before or after it), and whether
    the quote runs on across the page break to the next page."""
    key = match_key(quote)
    if not key:
        return None
    for page in (evidence.page, evidence.page - 1, evidence.page + 1):
        text = index.page_text(evidence.doc_id, page)
        if text is not None and key in match_key(text):
            return page, False
    if len(evidence.pages) == 2:  # a sentence continued across a page break: on the two pages read together
        first, second = (index.page_text(evidence.doc_id, p) for p in evidence.pages)
        if first is not None and second is not None and key in match_key(f"{first}\n{second}"):
            return evidence.page, True
    return None


def _label(index: SearchIndex, doc_id: str, page: int) -> str:
    record = index.document(doc_id)
    return record.label(page) if record else str(page)
