"""Is a question supported by the library at all? The test behind abstention (DESIGN.md §6 rule 5)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from lcabot.normalize import for_search


def _stem(term: str) -> str:
    return term if len(term) <= 5 else term[: max(5, len(term) - 3)]


def term_present(term: str, text: str) -> bool:
    """True when ``term`` (or a word sharing its stem, e.g. capture/captured) occurs in ``text``."""
    return re.search(r"(?<![^\W_])" + re.escape(_stem(term)), for_search(text).lower()) is not None


@dataclass(frozen=True)
class Support:
    coverage: float  # IDF-weighted share of the question's terms found in the retrieved passages, in [0, 1]
    missing: tuple[str, ...]  # the question's terms the retrieved passages do not contain


def support(terms: Sequence[str], passages: Sequence[str], df: dict[str, int], n_chunks: int) -> Support:
    """Weigh each term by IDF = ln(1 + N / (1 + df)); a term absent from the whole library weighs most.

    Args:
        terms: the question's content terms (:func:`lcabot.retrieval.content_terms`).
        passages: texts of the retrieved chunks.
        df: chunk frequency of each term in the library; n_chunks: library size in chunks.
    """
    if not terms:
        return Support(0.0, ())
    joined = "\n".join(passages)
    weights = {t: math.log(1 + n_chunks / (1 + df.get(t, 0))) for t in terms}
    found = {t for t in terms if term_present(t, joined)}
    total = sum(weights.values()) or 1.0
    return Support(sum(weights[t] for t in found) / total, tuple(t for t in terms if t not in found))
