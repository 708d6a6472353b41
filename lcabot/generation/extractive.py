"""The offline generator: answers with the best verbatim sentences of the evidence ledger."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from lcabot.models import Claim, Evidence, Turn
from lcabot.ports import Embedder
from lcabot.retrieval import content_terms
from lcabot.support import term_present

WEIGHTS = (0.5, 0.3, 0.2)  # cosine to the question, share of question terms, rank of the passage it comes from
MAX_PER_PAGE = 3
MAX_PARTS = 4  # parts of a multi-part question answered one by one
_BOILERPLATE = re.compile(
    r"how to cite this article|all rights reserved|creativecommons\.org|^\s*(?:doi|https?):", re.I
)
_PART_BREAK = re.compile(
    r"\?\s+|,?\s+and\s+(?=(?:what|which|how|why|when|where|who|do|does|did|is|are|can)\b)", re.I
)


def sub_questions(question: str) -> list[str]:
    """The parts of a multi-part question ("What functional unit …, and which standard …?" → two parts); a
    single question gives a one-element list."""
    parts = [p.strip(" ,?") for p in _PART_BREAK.split(question)]
    return [p for p in parts if len(p.split()) >= 3][:MAX_PARTS] or [question]


class ExtractiveGenerator:
    """Quotes the best ledger sentences verbatim; each quote is one claim bound to its evidence id.

    A sentence scores by cosine similarity to the question, by the share of the question's content terms it holds
    (IDF-weighted over the ledger) and by the retrieval rank of its passage (weights :data:`WEIGHTS`). The best
    sentence for each part of a multi-part question comes first, then the best overall, up to ``max_sentences``
    and at most :data:`MAX_PER_PAGE` from one page. Citation boilerplate ("How to cite this article") is skipped.
    """

    name = "extractive"

    def __init__(self, embedder: Embedder, max_sentences: int = 4) -> None:
        self._embedder = embedder
        self._max = max_sentences

    def generate(self, question: str, evidence: Sequence[Evidence], history: Sequence[Turn]) -> list[Claim]:
        candidates = [e for e in evidence if len(e.text) <= 900 and not _BOILERPLATE.search(e.text)]
        if not candidates:
            return []
        parts = sub_questions(question)
        # the best sentence for each part of a multi-part question first, then the best overall
        rankings = [np.argsort(-self.score(part, candidates), kind="stable") for part in [*parts, question]]
        order = [int(r[0]) for r in rankings[:-1]] + [int(i) for i in rankings[-1]]
        picked: list[Evidence] = []
        per_page: dict[tuple[str, int], int] = {}
        for i in order:
            e = candidates[i]
            if e in picked or per_page.get((e.doc_id, e.page), 0) >= MAX_PER_PAGE:
                continue
            picked.append(e)
            per_page[(e.doc_id, e.page)] = per_page.get((e.doc_id, e.page), 0) + 1
            if len(picked) == self._max:
                break
        return [Claim(f"{e.context}: “{e.text}”" if e.context else f"“{e.text}”", (e.evidence_id,), e.text)
                for e in picked]

    def score(self, question: str, evidence: Sequence[Evidence]) -> np.ndarray:
        """Relevance of each evidence sentence to ``question`` in [0, 1], shape ``(len(evidence),)``.
        ``evidence`` is in ledger order, i.e. grouped by the rank of the passage it comes from."""
        texts = [f"{e.context} {e.text}" if e.context else e.text for e in evidence]
        vectors = self._embedder.embed([question, *texts])
        cosine = vectors[1:] @ vectors[0]
        terms = content_terms(question)
        present = {t: [term_present(t, text) for text in texts] for t in terms}
        # IDF inside the ledger: a term most sentences share (the study's subject) says little about which answers
        weight = {t: math.log(1 + len(evidence) / (1 + sum(hits))) for t, hits in present.items()}
        total = sum(weight.values()) or 1.0
        overlap = np.array([sum(weight[t] for t in terms if present[t][i]) for i in range(len(evidence))]) / total
        ranks: dict[str, int] = {}
        for e in evidence:
            ranks.setdefault(e.chunk_id, len(ranks))
        rank = np.array([1.0 / (1 + ranks[e.chunk_id]) for e in evidence])
        w_cos, w_terms, w_rank = WEIGHTS
        return w_cos * cosine + w_terms * overlap + w_rank * rank
