"""Text normalisation and sentence splitting. Display text stays faithful; the normalised forms are for search
and for matching quotes.

Handled: ligatures (ﬁ → fi) and subscripts/superscripts (CO₂ → CO2) through NFKC, soft hyphens, non-breaking
spaces, line-end hyphenation (``envi-\\nronment`` → ``environment``) and runs of whitespace.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

_SOFT_HYPHEN = "\u00ad"
_LINE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])[-\u2010\u2011]\s*\n\s*(?=[a-z])")
_WS = re.compile(r"\s+")
_DASHES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-", "\u2010": "-", "\u2011": "-"})
_KEY_HYPHEN = re.compile(r"(?<=[^\W\d_])-\s+(?=[^\W\d_])")
_NON_KEY = re.compile(r"[\s\"'`\u2018\u2019\u201c\u201d|*]+")
# bullets the Symbol and Wingdings fonts print from the private use area (JRC ILCD compliance rules, p. 16), shown as
# the bullets they are
_PRIVATE_BULLETS = str.maketrans({"\uf0b7": "•", "\uf0a7": "▪", "\uf0a8": "▫"})
# the glyphs that open a bulleted item, as a character class body: Unicode bullets and the Symbol/Wingdings ones from
# the private use area (before they are shown as the bullets they are)
BULLET_GLYPHS = "•●▪▫◦‣\uf0b7\uf0a7\uf0a8"
# "● …", "- …", "3) …", and the "o" that word processors print as a second-level bullet ("o Situation C1 …")
LIST_ITEM = re.compile(rf"^\s*(?:[{BULLET_GLYPHS}*–-]|\(?[a-z0-9ivx]{{1,4}}[.)]|o(?=\s+[A-Z]))\s+")
PLACEHOLDER_CELL = re.compile(r"^Col\d+$")  # PyMuPDF's name for a table header cell it found empty
# a sentence naming its subject only as the case the sentence before it sets out ("In such a case, the climate
# change impact of UCO-PP could potentially be reduced by a third", Moretti et al. 2020, p. 7, after "… if hydrogen
# could be produced using renewable energy …")
CASE_BACK = re.compile(r"^(?:In|For|Under)\s+(?:such\s+an?|this|that|these|those|either|each|both|the\s+latter|"
                       r"the\s+former)\s+(?:cases?|scenarios?|situations?)\b")
ENDS_SENTENCE = re.compile(r"[.!?:;)\]\"”’]\s*$")  # a span that ends like a sentence (or a list's lead-in)
# a numbered statement on its own line ("1) …", "(2) …") after a lead-in ends with ":" is a sentence of its own
# also "These are: 1) …"; a bullet glyph starts an item wherever it is ("… (CFF-M), ● Default A values …", p. 123)
_ITEM_START = re.compile(r"(?<=[:;.])\n(?=\(?\d{1,2}\)\s+)|(?<=:) (?=\(?1\)\s+)|(?<=\S)[ \n](?=[•●▪◦‣\uf0b7\uf0a7] )")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[\"'“‘(]?[A-Z0-9•●\uf0b7\uf0a7])")
_ABBREV = re.compile(
    r"(?:\b(?:e\.g|i\.e|et al|Fig|Figs|Tab|Tabs|Eq|Eqs|No|Vol|approx|cf|vs|Ref|Sect|Sec|Chap|Art|pp|resp|incl|ca)\.|"
    r"\b[A-Z]\.)$"
)


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
    t = unicodedata.normalize("NFKC", text).replace(_SOFT_HYPHEN, "").translate(_DASHES)
    t = t.translate(_PRIVATE_BULLETS).casefold()
    t = _KEY_HYPHEN.sub("", t)
    return _NON_KEY.sub("", t)


def collapse(text: str) -> str:
    """Display form of a quote: faithful characters (a private-use bullet as the bullet it prints), whitespace runs
    collapsed to one space."""
    return _WS.sub(" ", text.replace(_SOFT_HYPHEN, "").translate(_PRIVATE_BULLETS)).strip()


def split_sentences(text: str) -> list[tuple[int, str]]:
    """Sentences of ``text`` as ``(offset, sentence)``; table rows (``|a|b|``) are one unit each."""
    units: list[tuple[int, str]] = []
    for seg in re.finditer(r"(?:^\|[^\n]*(?:\n|$))+|(?:^(?!\|)[^\n]*(?:\n|$))+", text, re.M):
        block, base = seg.group(0), seg.start()
        if block.startswith("|"):
            units.extend((base + row.start(), row.group(0)) for row in re.finditer(r"[^\n]+", block))
            continue
        for para in re.finditer(r"[^\n]+(?:\n(?!\n)[^\n]+)*", block):
            units.extend((base + para.start() + o, s) for o, s in _sentences(para.group(0)))
    return [(o, s) for o, s in units if s.strip()]


def _sentences(block: str) -> list[tuple[int, str]]:
    """Sentences of one paragraph; a numbered statement on its own line starts a new one even after a colon
    ("… are often made:\n1) Air freight is negligible …")."""
    out: list[tuple[int, str]] = []
    bounds = [0, *(m.end() for m in _ITEM_START.finditer(block)), len(block) + 1]
    for base, end in zip(bounds, bounds[1:], strict=False):
        piece = block[base:end - 1]
        start = 0
        for m in _SENTENCE_END.finditer(piece):
            candidate = piece[start:m.start()]
            if _ABBREV.search(candidate.rstrip(".\"'”’)") + "."):
                continue
            out.append((base + start, candidate))
            start = m.end()
        out.append((base + start, piece[start:]))
    return out


def join_lines(lines: list[str], vocabulary: Counter[str] | None = None) -> str:
    """The text of a paragraph's lines: joined by newlines, a word hyphenated at a line end made whole again.

    ``envi-`` + ``ronment`` → ``environment``; the hyphen stays when the hyphenated form is a word of the document
    (``company-specific``, counted in ``vocabulary``) more often than the joined form, and after a digit or a single
    letter (``1,4-`` + ``dichlorobenzene``, ``n-`` + ``hexane``). A compound broken after one of its hyphens is
    joined with it (``cradle-to-`` + ``gate`` → ``cradle-to-gate``, Pathfinder Framework p. 18).
    """
    vocabulary = vocabulary or Counter()
    out = lines[0] if lines else ""
    for line in lines[1:]:
        m = _BROKEN_WORD.search(out)
        if m and line[:1].islower():
            head = m.group(1)
            tail = re.match(r"[^\W\d_]+", line)
            whole = (head + tail.group(0)).lower() if tail else ""
            hyphenated = f"{head}-{tail.group(0)}".lower() if tail else ""
            if whole and vocabulary[whole] >= vocabulary[hyphenated]:
                out = out[: m.start(0) + len(head)] + line
                continue
            out = out[: m.end(0)] + line
            continue
        if _BROKEN_COMPOUND.search(out) and line[:1].islower():  # "cradle-to-" + "gate PCF": one compound
            out += line
            continue
        out = f"{out}\n{line}"
    return out


_BROKEN_WORD = re.compile(r"(?<![\w-])([^\W\d_]{2,})-$")  # a word of two or more letters, then the hyphen
_BROKEN_COMPOUND = re.compile(r"[^\W\d_]-[^\W\d_]+-$")  # a compound broken after one of its hyphens
_WORD_FORM = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def document_vocabulary(texts: list[str]) -> Counter[str]:
    """How often each lower-case word and hyphenated compound is written inside a line (not broken at its end)."""
    words: Counter[str] = Counter()
    for text in texts:
        for line in text.splitlines():
            body = line[:-1] if line.endswith("-") else line
            words.update(w.lower() for w in _WORD_FORM.findall(body))
    return words
