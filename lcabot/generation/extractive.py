"""The offline generator: answers with the best verbatim sentences of the evidence ledger."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from lcabot.models import Claim, Evidence, Turn
from lcabot.ports import Embedder
from lcabot.retrieval import content_terms
from lcabot.support import term_present


class ExtractiveGenerator:
    """Scores each ledger sentence by cosine similarity to the question (weight 0.6) and by the share of the
    question's content terms it contains (weight 0.4), and quotes the best ``max_sentences`` verbatim, at most two
    from one page. Each quote is one claim bound to its own evidence id."""

    name = "extractive"

    def __init__(self, embedder: Embedder, max_sentences: int = 3) -> None:
        self._embedder = embedder
        self._max = max_sentences

    def generate(self, question: str, evidence: Sequence[Evidence], history: Sequence[Turn]) -> list[Claim]:
        candidates = [e for e in evidence if len(e.text) <= 900]
        if not candidates:
            return []
        scores = self.score(question, candidates)
        picked: list[Evidence] = []
        per_page: dict[tuple[str, int], int] = {}
        for i in np.argsort(-scores):
            e = candidates[int(i)]
            if per_page.get((e.doc_id, e.page), 0) >= 2:
                continue
            picked.append(e)
            per_page[(e.doc_id, e.page)] = per_page.get((e.doc_id, e.page), 0) + 1
            if len(picked) == self._max:
                break
        return [Claim(f"“{e.text}”", (e.evidence_id,), e.text) for e in picked]

    def score(self, question: str, evidence: Sequence[Evidence]) -> np.ndarray:
        """Relevance of each evidence sentence to ``question`` in [0, 1], shape ``(len(evidence),)``."""
        vectors = self._embedder.embed([question, *[e.text for e in evidence]])
        cosine = vectors[1:] @ vectors[0]
        terms = content_terms(question)
        weight = {t: 1.0 / math.log(2 + len(t)) if t.isdigit() else 1.0 for t in terms}
        total = sum(weight.values()) or 1.0
        overlap = np.array([sum(w for t, w in weight.items() if term_present(t, e.text)) / total for e in evidence])
        return 0.6 * cosine + 0.4 * overlap
