"""Verification before anything is shown (DESIGN.md §6): ids exist, quotes are verbatim on the cited page,
the cited page is the one that holds the quote, numbers occur in the cited evidence. Failing claims are dropped."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lcabot.models import Citation, Claim, Evidence, GraphFact
from lcabot.normalize import collapse, match_key
from lcabot.ports import SearchIndex

_NUMBER = re.compile(r"(?<![\w.])[-−–]?\d+(?:[.,]\d+)*(?![\w])")
_MARKER = re.compile(r"\[\d+(?:,\s*\d+)*\]|\[E[0-9a-f]{10}\]")


@dataclass(frozen=True)
class Verified:
    claims: tuple[Claim, ...]
    citations: tuple[Citation, ...]
    text: str
    dropped: int
    facts: tuple[GraphFact, ...] = ()


def numbers_in(text: str) -> list[str]:
    """Numbers written in ``text`` (citation markers excluded), as printed: ``10.44``, ``1,000``, ``-2.51``."""
    return [m.group(0).lstrip("-−–") for m in _NUMBER.finditer(_MARKER.sub(" ", text))]


def verify(claims: Sequence[Claim], ledger: Sequence[Evidence], index: SearchIndex,
           facts: Sequence[tuple[GraphFact, Sequence[Evidence]]] = (), max_facts: int = 0) -> Verified:
    """Keep the claims whose evidence ids all exist, whose quote comes from the cited evidence and is on its page
    and whose numbers are in the cited evidence; number the citations in order of first use and render ``text``
    with ``[n]`` markers. A claim citing any id outside the ledger is dropped, not trimmed to its valid ids.

    Graph ``facts`` (each with the evidence of the statements behind it) pass the same test: a fact is kept, with
    the numbers of its citations (appended after the claims'), when at least one of its quotes is on its cited
    page; at most ``max_facts`` are kept. Facts never make an answer on their own: without a kept claim there are
    no facts."""
    by_id = {e.evidence_id: e for e in ledger}
    kept: list[Claim] = []
    citations: dict[tuple[str, int, str], Citation] = {}
    lines: list[str] = []
    for claim in claims:
        if not claim.evidence_ids or any(i not in by_id for i in claim.evidence_ids):
            continue
        cited = [by_id[i] for i in dict.fromkeys(claim.evidence_ids)]
        if not _numbers_supported(claim.text, cited):
            continue
        markers: list[int] = []
        for evidence in cited:
            quote = collapse(claim.quote) if claim.quote and len(cited) == 1 else evidence.text
            number = _cite(evidence, quote, citations, index)
            if number is not None:
                markers.append(number)
        if not markers:
            continue
        kept.append(claim)
        lines.append(f"{claim.text.strip()} " + "".join(f"[{n}]" for n in dict.fromkeys(markers)))
    shown: list[GraphFact] = []
    for fact, evidence in facts if kept else ():
        if len(shown) == max_facts:
            break
        numbers = [n for e in evidence if (n := _cite(e, e.text, citations, index)) is not None]
        if numbers:
            shown.append(GraphFact(fact.subject, fact.relation, fact.object, tuple(dict.fromkeys(numbers))))
    return Verified(tuple(kept), tuple(citations.values()), "\n".join(lines), len(claims) - len(kept), tuple(shown))


def _cite(evidence: Evidence, quote: str, citations: dict[tuple[str, int, str], Citation],
          index: SearchIndex) -> int | None:
    """The citation number of ``quote`` from ``evidence`` (a new citation when it is new), or None when the quote is
    not in the evidence or not on its page (or the page next to it)."""
    if match_key(quote) not in match_key(evidence.text):
        return None  # a quote from elsewhere (even an adjacent page) does not support this evidence
    page = _page_holding(quote, evidence, index)
    if page is None:
        return None
    key = (evidence.doc_id, page, match_key(quote))
    if key not in citations:
        label = evidence.page_label if page == evidence.page else _label(index, evidence.doc_id, page)
        citations[key] = Citation(len(citations) + 1, evidence.evidence_id, evidence.source, evidence.title,
                                  evidence.section, page, label, quote)
    return citations[key].number


def _numbers_supported(text: str, cited: Sequence[Evidence]) -> bool:
    haystack = match_key(" ".join(f"{e.section or ''} {e.context} {e.text}" for e in cited))
    return all(match_key(n) in haystack for n in numbers_in(text))


def _page_holding(quote: str, evidence: Evidence, index: SearchIndex) -> int | None:
    """The PDF page whose text holds ``quote``: the evidence's page, else the page before or after it."""
    key = match_key(quote)
    if not key:
        return None
    for page in (evidence.page, evidence.page - 1, evidence.page + 1):
        text = index.page_text(evidence.doc_id, page)
        if text is not None and key in match_key(text):
            return page
    return None


def _label(index: SearchIndex, doc_id: str, page: int) -> str:
    record = index.document(doc_id)
    return record.label(page) if record else str(page)
