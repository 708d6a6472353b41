"""The heading tree: from the PDF outline when there is one, else from section numbering and font style.

Numbered headings go down to five levels (``7.18.7.4`` is level 4). A candidate is accepted only when its number
follows plausibly from the previous heading, which keeps list items, years and table cells out of the tree.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from lcabot.ingest.normalize import match_key

_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,3}){0,4})\.?(?:\s*\|\s*|\s+|(?=[A-Z]))(?P<title>[A-Z(\"'].*)?$", re.S)
NUMBER_ONLY = re.compile(r"^(\d{1,2}(?:\.\d{1,3}){1,4})\.?$")  # "7.18.10" on a line of its own
SECTION_START = re.compile(r"^\d{1,2}(?:\.\d{1,3}){0,4}\.?\s*[A-Z]")  # "7.6 Cut-off", "7.9CLIMATE"
_TOC_ENTRY = re.compile(r"(?:\.{3,}|…|\s)\s*\d{1,3}$")
_ANNEX = re.compile(r"^(annex|appendix)\s+([A-Z0-9]{1,3})\b[\s:.\-–]*(?P<title>.*)$", re.I | re.S)
# the back matter a paper heads without a number ("REFERENCES", Nab & Maslin 2020, p. 17)
_BACK_MATTER = re.compile(r"^(?:references|bibliography|literature cited|acknowledge?ments?|abbreviations|"
                          r"conflicts? of interest|declaration of competing interest)$", re.I)


def is_contents(lines: list[str], minimum: int = 3) -> bool:
    """True for table-of-contents entries: at least ``minimum`` lines, nearly all a section number or an upper-case
    title that ends in a page number ("6.6.12 DISCLOSURE AND COMMUNICATION 39", "4 ENTRY-LEVEL REQUIREMENTS ....
    16"). Such text names where things are, never what they say."""
    entries = [ln for ln in (" ".join(x.split()) for x in lines) if ln]
    listed = sum(1 for ln in entries if _TOC_ENTRY.search(ln) and (SECTION_START.match(ln) or ln.upper() == ln))
    return len(entries) >= minimum and listed >= 0.8 * len(entries)


@dataclass(frozen=True)
class Heading:
    number: tuple[int, ...] | None  # (7, 18, 7) for "7.18.7"; None for annexes and outline headings
    text: str  # "7.18.7 Recycling"
    level: int


def detect_heading(text: str, size: float, bold: bool, body_size: float) -> Heading | None:
    """Return a heading when a paragraph looks like a numbered (or annex) heading, else ``None``.

    A heading is short (≤ 160 characters, ≤ 3 lines), set in bold or at least 0.9 pt above the body size,
    and starts with a section number (``7.18.7``) or ``Annex X`` / ``Appendix X``. A paragraph that is only a
    back-matter heading (References, Acknowledgements, Conflict of interest) is one in any style.
    """
    flat = " ".join(text.split())
    if _TOC_ENTRY.search(flat) or (text.count("\n") and text.rsplit("\n", 1)[1].strip().isdigit()):
        return None  # a table-of-contents entry ("7.6 CUT-OFF ..... 61"), not the heading itself
    if _BACK_MATTER.match(flat):  # a paragraph of its own, whatever its style (a bold face PyMuPDF cannot tell)
        return Heading(None, flat, 1)
    if len(flat) > 160 or text.count("\n") > 2 or not (bold or size >= body_size + 0.9):
        return None
    m = NUMBER_ONLY.match(flat)
    if m:
        return Heading(tuple(int(x) for x in m.group(1).split(".")), flat, m.group(1).count(".") + 1)
    m = _NUMBERED.match(flat)
    if m and m.group("title") and not flat.endswith((",", ";")):
        number = tuple(int(x) for x in m.group(1).split("."))
        title = m.group("title").strip()
        return Heading(number, f"{m.group(1)} {title}", len(number))
    if _ANNEX.match(flat):
        return Heading(None, flat, 1)
    return None


def _plausible_next(prev: tuple[int, ...] | None, new: tuple[int, ...]) -> bool:
    """True when ``new`` can follow ``prev`` in a document's numbering (next sibling, child or ancestor's next)."""
    if prev is None:
        return all(part <= 30 for part in new) and new[0] <= 12
    if len(new) == len(prev) + 1 and new[:-1] == prev:
        return new[-1] in (0, 1, 2)
    for depth in range(min(len(prev), len(new)), 0, -1):
        if new[: depth - 1] == prev[: depth - 1] and len(new) == depth:
            step = new[depth - 1] - prev[depth - 1]
            return 1 <= step <= 3
    return False


class HeadingTracker:
    """Keeps the current section path while blocks are visited in reading order.

    Args:
        toc: the PDF outline as ``(level, title, page)`` rows (``doc.get_toc()``); empty when absent.
    """

    def __init__(self, toc: list[tuple[int, str, int]]) -> None:
        self._toc = [(lvl, " ".join(title.split()), page, match_key(title)) for lvl, title, page in toc]
        self._outline_depth = max((lvl for lvl, _, _ in toc), default=0)
        # the outline level of a document's sections: below a lone root entry naming the whole document (Moretti et
        # al. 2020: the article title, then "1 Introduction" … "References" one level down)
        levels = Counter(lvl for lvl, _, _ in toc)
        self._section_level = min((lvl for lvl, n in levels.items() if n > 1), default=1)
        self._stack: list[tuple[int, str]] = []
        self._last_number: tuple[int, ...] | None = None

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(text for _, text in self._stack)

    def observe(self, text: str, size: float, bold: bool, body_size: float, page: int) -> bool:
        """Decide whether a paragraph on ``page`` is a heading; if so, update the path and return True."""
        if self._outline_depth:
            if self._observe_outline(text, page):
                self._last_number = None
                return True
            # a numbered heading below the outline's deepest level is printed only (Pathfinder Framework: chapters
            # in the outline, "3.2 Hierarchy of application" in bold on p. 15)
            # (so is a back-matter heading the outline leaves out: "Abbreviations", Burchart et al. 2023, p. 14)
            heading = detect_heading(text, size, bold, body_size)
            if heading is None or (heading.number is None and not _BACK_MATTER.match(heading.text)) or (
                    heading.number is not None and len(heading.number) <= self._outline_depth):
                return False
        else:
            heading = detect_heading(text, size, bold, body_size)
        if heading is None:
            return False
        if heading.number is not None:
            if not _plausible_next(self._last_number, heading.number):
                return False
            self._last_number = heading.number
        elif self._outline_depth:  # a back-matter heading the outline leaves out sits beside the outline's sections
            heading = Heading(None, heading.text, self._section_level)
        self._push(heading.level, heading.text)
        return True

    def _observe_outline(self, text: str, page: int) -> bool:
        flat = " ".join(text.split())
        if len(flat) > 200:
            return False
        # the outline may leave out the number the page prints ("Multifunctionality" for "2.2.2. Multifunctionality",
        # Moretti et al. 2020, p. 4): the heading is matched without it and named with it
        numbered = re.match(r"^(\d{1,2}(?:\.\d{1,3}){0,4})\.?\s+(?=\S)", flat)
        number = numbered.group(1) if numbered else ""
        keys = [match_key(flat), *([match_key(flat[numbered.end():])] if numbered else [])]
        for i, (level, title, toc_page, title_key) in enumerate(self._toc):
            if abs(toc_page - page) <= 1 and title_key and any(
                    key == title_key or (len(key) > 8 and key in title_key) for key in keys):
                del self._toc[i]
                named = number and not match_key(title).startswith(match_key(number))
                self._push(level, f"{number} {title}" if named else title)
                return True
        return False

    def _push(self, level: int, text: str) -> None:
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, text))
