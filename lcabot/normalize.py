"""Text normalisation. Display text stays faithful; these forms are for search and for matching quotes.

Handled: ligatures (ﬁ → fi) and subscripts/superscripts (CO₂ → CO2) through NFKC, soft hyphens, non-breaking
spaces, line-end hyphenation (``envi-\\nronment`` → ``environment``) and runs of whitespace.
"""

from __future__ import annotations

import re
import unicodedata

_SOFT_HYPHEN = "\u00ad"
_LINE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])[-\u2010\u2011]\s*\n\s*(?=[a-z])")
_WS = re.compile(r"\s+")
_DASHES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-", "\u2010": "-", "\u2011": "-"})
_KEY_HYPHEN = re.compile(r"(?<=[^\W\d_])-\s+(?=[^\W\d_])")
_NON_KEY = re.compile(r"[\s\"'`\u2018\u2019\u201c\u201d|*]+")


def for_search(text: str) -> str:
    """Normalised text for BM25 and embeddings: NFKC, no soft hyphens, de-hyphenated, single spaces."""
    t = unicodedata.normalize("NFKC", text).replace(_SOFT_HYPHEN, "")
    t = _LINE_END_HYPHEN.sub("", t)
    return _WS.sub(" ", t).strip()


def match_key(text: str) -> str:
    """A whitespace-free, case-folded key for checking that a quote occurs verbatim on a page.

    ``match_key(quote) in match_key(page_text)`` is the verbatim test of DESIGN.md §6 rule 2: it ignores
    whitespace, line breaks, hyphenation at line ends, ligatures, quote-mark style and table cell separators.
    """
    t = unicodedata.normalize("NFKC", text).replace(_SOFT_HYPHEN, "").translate(_DASHES).casefold()
    t = _KEY_HYPHEN.sub("", t)
    return _NON_KEY.sub("", t)


def collapse(text: str) -> str:
    """Display form of a quote: faithful characters, whitespace runs collapsed to one space."""
    return _WS.sub(" ", text.replace(_SOFT_HYPHEN, "")).strip()
