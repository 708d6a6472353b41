"""PDF parsing with PyMuPDF: text in reading order, heading tree, tables, printed page labels.

PyMuPDF (AGPL-3.0) is imported lazily so that light entry points never load it.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from lcabot.errors import CorruptPdfError, EmptyPdfError, EncryptedPdfError, NotAPdfError, TooLargeError
from lcabot.ingest.headings import NUMBER_ONLY, SECTION_START, HeadingTracker, is_contents
from lcabot.ingest.normalize import BULLET_GLYPHS, PLACEHOLDER_CELL, document_vocabulary, join_lines, match_key
from lcabot.search.abstention import term_present
from lcabot.search.retrieval import content_terms

_PAGE_NUMBER_BAND = 0.08  # bare page numbers are looked for this close to the top or bottom edge
_MARGIN_FRACTION = 0.15  # top/bottom band searched for running headers and footers (PEFCR footer at 85 %)
_PAGE_NUMBER = re.compile(r"^(?:page\s*\|?\s*)?(\d{1,4})(?:\s*(?:of|/)\s*\d{1,4})?$", re.I)
_STAMP = re.compile(
    r"downloaded from|for personal use only|protected by copyright|terms and conditions \(https?://|"
    r"·\s*page \d+ of \d+\s*$", re.I  # the last: a copy's page stamp ("….pdf  ·  page 1 of 2")
)
# what the renderer of a copy wrote in place of what it left out: "[Image: no caption]", "[Excerpt ends here; …]"
_RENDERER_NOTE = re.compile(r"^\[(?:Image|Excerpt ends here)\b[^\]]*\]$")
_PHOTO_CREDIT = re.compile(r"^©\s?\S+$")  # a picture's credit on a line of its own: "©AdobeStock/scharfsinn86"
_PROVENANCE_FIELD = re.compile(r"^(Source|Stored copy used|Licen[cs]e|Retrieved|Changes):\s", re.I)
PROVENANCE_MIN_FIELDS = 3  # distinct fields that make a provenance box (a lone "Source:" is a figure's credit)
COLUMN_PROSE_WIDTH = 0.35  # of the page width: a line of a column of prose is at least this wide
COLUMN_PROSE_CHARS = 500  # prose per half that makes a page two-column whatever its full-width content
TABLE_CAPTION = re.compile(r"^\s*(?:table|tab\.)\s*[A-Z]?\d+\b", re.I | re.M)  # "Table 16:", "TABLE 2"
# a text line holding one decimal value or amount ("0.37", "EUR 45,228,375"): a caption-less page with this many is
# searched for a table too (the bid table of the Hydrogen Bank pilot auction, p. 2, has no caption)
_VALUE_LINE = re.compile(r"^\s*(?:EUR\s*|€\s*)?[-−–]?\d+(?:[.,]\d+)+\s*%?\s*$", re.M)
_RAISED_MARK = re.compile(r"\d{1,3}(?:,\d{1,3})*,?")
# what a raised mark follows: a word, a sign or a number ("M = 10⁶", Heijungs 2020, p. 2), not a minus ("kg−1")
_MARKED = re.compile(r"[\w%.,;:)\]”’]\Z")
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
TABULAR_VALUES = 6
DISPLAY_SIZE = 1.4  # times the body size: a first-page line this large is display type (a title, a kicker)
_LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                            "\ufb05": "st", "\ufb06": "st"})
_NEAR_WHITE = 0xF0  # text whose red, green and blue are all at least this is unreadable on paper (#FCFCFC too)


@dataclass
class Block:
    """A unit of page content in reading order. ``kind`` is ``text``, ``table``, ``heading``, ``footnote`` (a note in
    smaller type opening with its raised number, PEFCR guidance p. 96: "⁵⁹ as no EF-compliant dataset …"),
    ``contents`` (table-of-contents entries) or ``title`` (the document's title as printed on its first page);
    contents and the title are kept in the page text, not chunked."""

    page: int  # 1-based PDF page index
    kind: str
    text: str
    section_path: tuple[str, ...] = ()


@dataclass
class ParsedDocument:
    """Everything ingestion needs from one PDF.

    ``page_texts[i]`` is the cleaned display text of PDF page ``i + 1`` (what citations are verified against);
    ``page_labels[i]`` its printed label; ``pages_without_text`` the 1-based pages with no text layer.
    """

    title: str
    authors: str
    page_labels: list[str]
    page_texts: list[str]
    blocks: list[Block] = field(default_factory=list)
    pages_without_text: list[int] = field(default_factory=list)


@dataclass
class _Line:
    page: int
    text: str
    bbox: tuple[float, float, float, float]
    size: float
    bold: bool
    note: bool = False  # opens with a raised, smaller number ("⁵⁹ as no EF-compliant dataset …"): a footnote's start
    italic: bool = False


def parse_pdf(data: bytes, source: str, *, max_pages: int = 2000) -> ParsedDocument:
    """Parse PDF bytes into pages, labels and structured blocks.

    Args:
        data: the file's bytes.
        source: name used in error messages.
        max_pages: documents with more pages are refused.

    Raises:
        NotAPdfError: the bytes are not a PDF.
        EncryptedPdfError: the PDF needs a password.
        CorruptPdfError: PyMuPDF cannot open or read it (truncated, damaged).
        TooLargeError: more than ``max_pages`` pages.
        EmptyPdfError: no page has a text layer (scanned or empty); the message names the pages.
    """
    import pymupdf

    if not data.strip():
        raise NotAPdfError(source, "the file is empty (0 bytes)" if not data else "the file holds only whitespace")
    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise NotAPdfError(source, "this is not a PDF file (no %PDF header)")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # PyMuPDF raises FileDataError and friends
        raise CorruptPdfError(source, f"the PDF is damaged or truncated and cannot be opened ({exc})") from exc
    with doc:
        if doc.needs_pass or doc.is_encrypted:
            raise EncryptedPdfError(source, "the PDF is password-protected; upload an unprotected copy")
        if doc.is_repaired and b"%%EOF" not in data[-2048:]:
            raise CorruptPdfError(source, "the PDF is damaged or truncated (it ends before its end-of-file marker); "
                                          "upload the complete file")
        if doc.page_count == 0:
            raise CorruptPdfError(source, "the PDF has no pages (it may be truncated)")
        if doc.page_count > max_pages:
            raise TooLargeError(source, f"its {doc.page_count} pages are above the limit of {max_pages} pages; "
                                        "split it into smaller PDFs")
        try:
            return _parse_open_document(doc, source)
        except (EmptyPdfError, TooLargeError):
            raise
        except Exception as exc:
            raise CorruptPdfError(source, f"the PDF could not be read ({exc})") from exc


def _parse_open_document(doc: Any, source: str) -> ParsedDocument:
    n = doc.page_count
    pages_lines: list[list[_Line]] = []
    pages_tables: list[list[tuple[tuple[float, float, float, float], str]]] = []
    heights: list[float] = []
    carried = ""  # the header of a table that runs on to the next page
    for i in range(n):
        page = doc[i]
        heights.append(page.rect.height)
        tables = _tables(page, carried)
        carried = _running_on(page, tables)
        pages_tables.append(tables)
        pages_lines.append(_page_lines(page, i + 1, [bbox for bbox, _ in tables]))
    no_text = [i + 1 for i in range(n) if not pages_lines[i] and not pages_tables[i]]
    if len(no_text) == n:
        raise EmptyPdfError(source, _no_text_message(no_text, n))
    running = _running_lines(pages_lines, heights)
    labels = _page_labels(doc, pages_lines, heights)
    body_size = _body_size(pages_lines)
    toc = [(lvl, title.strip(), page) for lvl, title, page in doc.get_toc(simple=True) if title.strip()]
    tracker = HeadingTracker(toc)
    vocabulary = document_vocabulary(["\n".join(ln.text for ln in lines) for lines in pages_lines])
    blocks: list[Block] = []
    page_texts: list[str] = []
    for i in range(n):
        lines = [ln for ln in pages_lines[i] if _keep_line(ln, heights[i], running, pages_lines[i])]
        page_blocks = _page_blocks(lines, pages_tables[i], doc[i].rect.width, body_size, tracker, i + 1, vocabulary)
        blocks.extend(page_blocks)
        page_texts.append("\n\n".join(b.text for b in page_blocks))
    title = _title((doc.metadata or {}).get("title") or "", pages_lines) or Path(source).stem
    _mark_title(blocks, title)
    authors = " ".join(((doc.metadata or {}).get("author") or "").split())
    return ParsedDocument(title=title.strip(), authors=authors, page_labels=labels, page_texts=page_texts,
                          blocks=blocks, pages_without_text=no_text)


def _mark_title(blocks: list[Block], title: str) -> None:
    """The document's title printed on its first page is its title, not a passage: every chunk's search text starts
    with it already, and as body text it outranks the passages that answer (Nab & Maslin 2020, p. 1)."""
    key = match_key(title)
    if len(key) < 20:
        return
    for block in blocks:
        if block.page > 1:
            break
        text_key = match_key(block.text)
        if block.kind == "text" and len(text_key) >= 20 and (text_key == key or text_key in key):
            block.kind = "title"


def _no_text_message(pages: list[int], n: int) -> str:
    listed = ", ".join(str(p) for p in pages[:20]) + (" …" if len(pages) > 20 else "")
    return f"no text layer on any of its {n} page(s) (pages {listed}); it looks scanned or empty — run OCR first"


def _tables(page: Any, carried: str = "") -> list[tuple[tuple[float, float, float, float], str]]:
    """Tables as Markdown (header + rows, decimals intact), only on pages with a table caption, with at least
    ``TABULAR_VALUES`` lines holding a lone decimal value, or where the table of the page before runs on (``carried``:
    its header and separator lines; speed: ``find_tables`` is the costliest step of parsing)."""
    text = page.get_text()
    captioned = TABLE_CAPTION.search(text) is not None
    if not captioned and len(_VALUE_LINE.findall(text)) < TABULAR_VALUES:
        if not carried:
            return []
        # (a page of a table's text rows runs on from the page before, no caption of its own)
        return [(tuple(table.bbox), _run_on(page, table, carried)) for table in page.find_tables().tables
                if table.bbox[1] < RUN_ON_TOP * page.rect.height
                and table.col_count == len(_md_cells(carried.split("\n", 1)[0]))][:1]
    found = []
    for table in page.find_tables().tables:
        if table.row_count < 2 or table.col_count < 2 or _sideways_values(page, table.bbox):
            continue
        markdown = _markdown(page, table)
        if not captioned:
            markdown = _uncaptioned(markdown)
        markdown = markdown.translate(_LIGATURES)
        markdown = _restore_ligatures(markdown, text.translate(_LIGATURES))
        markdown = "\n".join(row for line in markdown.splitlines() for row in _unstacked(line))
        if markdown:
            found.append((tuple(table.bbox), markdown))
    return found


_DECIMAL = re.compile(r"\d[.,]\d")
RUN_ON_BOTTOM = 0.7  # a table ending below this share of the page height may run on to the next page …
RUN_ON_TOP = 0.15  # … where a table starting above this share, with as many columns, goes on with it


def _running_on(page: Any, tables: list[tuple[tuple[float, float, float, float], str]]) -> str:
    """The header and separator lines of the page's last table when it ends near the foot of the page (it may run
    on to the next: JRC ILCD compliance rules, Tab. 1 on pp. 5–6, Tab. 7 on pp. 16–17), else ``""``."""
    if not tables or tables[-1][0][3] < RUN_ON_BOTTOM * page.rect.height:
        return ""
    lines = tables[-1][1].splitlines()
    return "\n".join(lines[:2]) if len(lines) >= 2 and _SEPARATOR_LINE.match(lines[1]) else ""


_SEPARATOR_LINE = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+\s*$")


def _run_on(page: Any, table: Any, carried: str) -> str:
    """The part of a table printed at the top of a page under the header of the page before (``carried``): every
    row is data, its cells read from the page with their spaces (PyMuPDF runs the words of justified cells together:
    "Terminologyusenotenforced", JRC ILCD compliance rules p. 6)."""
    rows = []
    for row in table.rows:
        cells = [" <br>".join(" ".join(line.split()) for line in page.get_text("text", clip=box).splitlines()
                             if line.strip()) if box is not None else "" for box in row.cells]
        if any(cells) and cells != [" ".join(c.split()) for c in _md_cells(carried.split("\n", 1)[0])]:
            rows.append("|" + "|".join(c.replace("|", "/") for c in cells) + "|")  # (not the header printed again)
    return "\n".join([carried, *rows]).translate(_LIGATURES)


def _sideways_values(page: Any, bbox: tuple[float, float, float, float]) -> bool:
    """True when the table's values are printed sideways on an upright page: PyMuPDF reads its grid across the
    printed rows and takes in the upright text beside it (Moretti et al. 2020, p. 4: Table 1's factors, printed
    turned in the left column, read as one "table" with §2.2.2 Multifunctionality from the right column). Such a grid
    is not the printed table; the upright text in its box is then read as text. Sideways labels alone ("Situation 1:
    process run by the company …" down a row group, PEFCR guidance p. 139) leave the table as it is."""
    if page.rotation:
        return False  # a turned page reads upright on screen (``_on_screen``)
    x0, y0, x1, y1 = bbox
    for block in page.get_text("dict")["blocks"]:
        for line in block.get("lines", []):
            if abs(line["dir"][1]) <= 0.1:
                continue
            lx0, ly0, lx1, ly1 = line["bbox"]
            if x0 <= (lx0 + lx1) / 2 <= x1 and y0 <= (ly0 + ly1) / 2 <= y1 and _DECIMAL.search(
                    "".join(s["text"] for s in line["spans"])):
                return True
    return False


def _markdown(page: Any, table: Any) -> str:
    """The table as Markdown with clean header cells. A header PyMuPDF reads above the table's box whose cells end
    with the box's first row is the caption sliced at the column edges ("ariation of cradle-to-factory gate i
    methane. Impact Category", Moretti et al. 2020, Table 5, p. 8): the first row is the header. Header cells whose
    words PyMuPDF ran together ("Increase(%)(negativevaluesstandforadecrease)50/50Method", Table 6) are read again
    from the page inside the cell's box, keeping the same characters."""
    lines = table.to_markdown().strip().splitlines()
    if len(lines) < 3:
        return "\n".join(lines)
    first = _md_cells(lines[2])
    if table.header.external and len(first) == len(_md_cells(lines[0])) and all(
            f and h.endswith(f) for h, f in zip(_md_cells(lines[0]), first, strict=True)):
        lines = [lines[2], lines[1], *lines[3:]]
    elif not table.header.external and table.rows:
        header = _md_cells(lines[0])
        boxes = table.rows[0].cells
        if len(boxes) == len(header):
            spaced = [_spaced_cell(page, box, cell) for box, cell in zip(boxes, header, strict=True)]
            lines[0] = "|" + "|".join(spaced) + "|"
    return "\n".join(lines)


def _uncaptioned(markdown: str) -> str:
    """A table found on a page without a caption, as Markdown whose first row is its header, or "" when it does not
    read as a table. PyMuPDF names no column of the Hydrogen Bank's bid table (p. 2: ``|Col1|…|Col8|`` above an
    empty row and the bold header row "Project acronym | … | Total requested funding (EUR)"), so the first row of
    text becomes the header; rows without a label in their first cell (blank rows, the "Σ EUR 694,521,237" total
    row spread across columns) are dropped. A grid of boxes whose header leaves a column unnamed, or whose numbers
    run across lines ("130<br>.", PEFCR guidance p. 88), is page layout read as a grid: ""."""
    lines = markdown.splitlines()
    if len(lines) < 3:
        return ""
    rows = [_md_cells(line) for line in lines[2:]]
    header = ["" if PLACEHOLDER_CELL.match(c.strip()) else c for c in _md_cells(lines[0])]
    if not any(c.strip() for c in header):
        first = next((i for i, row in enumerate(rows)
                      if sum(bool(c.strip()) for c in row) > 1 and not any(_CELL_NUMBER.match(c) for c in row)), None)
        if first is None:
            return ""
        header, rows = rows[first], rows[first + 1:]
    rows = [row for row in rows if row and row[0].strip()]
    if not rows or not all(c.strip() for c in header[1:]) or re.search(r"\d<br>\d|<br>[.,]", markdown):
        return ""
    return "\n".join("|" + "|".join(row) + "|" for row in [header, ["---"] * len(header), *rows])


def _restore_ligatures(markdown: str, page_text: str) -> str:
    """Table text with the letters PyMuPDF's cell reader drops after a ligature put back ("Acidifcation", "non-cancer
    efects", "kg C defcit" in Moretti et al. 2020, Table 4, p. 6): a word the page's own text never prints becomes
    the one word it prints that adds "i", "f" or "l" after an "f"."""
    printed = set(re.findall(r"[^\W\d_]+", page_text))

    def restored(m: re.Match[str]) -> str:
        word = m.group(0)
        if word in printed or "f" not in word:
            return word
        options = {word[:i + 1] + extra + word[i + 1:] for i, c in enumerate(word) if c == "f"
                   for extra in ("i", "f", "l", "fi", "fl")}
        found = options & printed
        return found.pop() if len(found) == 1 else word
    return re.sub(r"[^\W\d_]+", restored, markdown)


# a cell value of a table row: a number, per cent or E-notation ("2.1E-03", "28%", "−2.51")
_CELL_NUMBER = re.compile(r"^\s*[-−–]?\d[\d.,]*(?:E[-−+]?\d+)?\s*%?\s*$", re.I)


def _unstacked(line: str) -> list[str]:
    """A Markdown row holding several table rows stacked in each cell, line for line (the rule between them not
    drawn: "|Photochemical ozone formation<br>Acidifcation|kg NMVOC eq<br>molc H+ eq|1.9E-03<br>2.1E-03|6%<br>5%|",
    Moretti et al. 2020, Table 4, p. 6), as one row per line; any other line unchanged. Cells stack rows when every
    non-empty cell has the same number of lines and one cell holds a number on each."""
    if not line.startswith("|") or "<br>" not in line:
        return [line]
    cells = [c.split("<br>") for c in _md_cells(line)]
    counts = {len(c) for c in cells if any(p.strip() for p in c)}
    if len(counts) != 1 or (n := counts.pop()) < 2 or not any(
            len(c) == n and all(_CELL_NUMBER.match(p) for p in c) for c in cells):
        return [line]
    return ["|" + "|".join(c[i] if len(c) == n else "" for c in cells) + "|" for i in range(n)]


def _md_cells(line: str) -> list[str]:
    return line.strip().removeprefix("|").removesuffix("|").split("|")


def _spaced_cell(page: Any, box: Any, cell: str) -> str:
    """``cell`` with the spaces the page's text holds inside ``box`` (the same characters), else ``cell``."""
    if box is None or not cell:
        return cell
    read = " ".join(page.get_text("text", clip=box).split())
    return read if re.sub(r"\s+", "", read) == re.sub(r"<br>|\s+", "", cell) else cell


def _visible(span: dict[str, Any], page_rect: Any, ocr_layer: bool = False,
             backgrounds: Callable[[], list[Any]] = list) -> bool:
    """False for text a reader cannot see: white or near-white (unless printed on a picture or a coloured fill,
    as on a report cover), transparent, microscopic or off the page.

    On an ``ocr_layer`` page transparent text is kept: it is the text OCR software lays invisibly over a scan.
    ``backgrounds`` gives the page's pictures and non-white fills (rectangles), computed only when needed.
    """
    color = span["color"]
    if span["size"] < 2:
        return False
    if all((color >> shift) & 0xFF >= _NEAR_WHITE for shift in (16, 8, 0)):
        x0, y0, x1, y1 = span["bbox"]
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if not any(r.x0 <= cx <= r.x1 and r.y0 <= cy <= r.y1 for r in backgrounds()):
            return False
    if span.get("alpha", 255) == 0 and not ocr_layer:
        return False
    x0, y0, x1, y1 = span["bbox"]
    on_page: bool = x1 > page_rect.x0 and x0 < page_rect.x1 and y1 > page_rect.y0 and y0 < page_rect.y1
    return on_page


def _page_lines(page: Any, number: int, table_boxes: list[tuple[float, float, float, float]]) -> list[_Line]:
    width = page.rect.width
    out: list[_Line] = []
    import pymupdf

    # ligatures expanded (ﬁ → fi): display text is what people read and quotes are matched against
    blocks = _on_screen(page.get_text("dict", flags=pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_LIGATURES)
                        ["blocks"], page)
    ocr_layer = _is_ocr_layer(blocks)
    numbered = _has_line_numbers(blocks, width)
    backgrounds = cache(lambda: _backgrounds(page, blocks))
    raw = cache(lambda: _on_screen(page.get_text("rawdict", flags=pymupdf.TEXTFLAGS_RAWDICT
                                                 & ~pymupdf.TEXT_PRESERVE_LIGATURES)["blocks"], page))
    rows: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]] = []  # (spans with spaces, inked spans) per line
    for block in blocks:
        for line in block.get("lines", []):
            if line["dir"] != (1.0, 0.0) and abs(line["dir"][1]) > 0.1:
                continue  # rotated margin text (download stamps, vertical labels)
            kept = [s for s in line["spans"] if not s["text"].strip()
                    or (_visible(s, page.rect, ocr_layer, backgrounds)
                        and not (numbered and _is_margin_line_number(s, width)))]
            spans = [s for s in kept if s["text"].strip()]  # geometry and style come from the inked spans
            if spans:
                rows.append((kept, spans))
    for kept, spans in _join_subscripts(rows, lambda span: _chars(raw(), span)):
        x0 = min(s["bbox"][0] for s in spans)
        y0 = min(s["bbox"][1] for s in spans)
        x1 = max(s["bbox"][2] for s in spans)
        y1 = max(s["bbox"][3] for s in spans)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in table_boxes):
            continue
        # spaces may be spans of their own; a raised mark inside the line is printed raised
        text = ""
        for before, s in zip([None, *kept], kept, strict=False):
            if before is not None and _run_together(before, s, text):
                text += " "
            text += _raised(s, text) if s is not spans[0] else s["text"]
        text = text.strip()
        main = max(spans, key=lambda s: len(s["text"].strip()))
        bold = bool(main["flags"] & 16) or "bold" in main["font"].lower()
        note = (len(spans) > 1 and spans[0]["text"].strip().isdigit() and spans[0]["size"] < 0.8 * main["size"]
                and spans[0] is not main)
        italic = bool(main["flags"] & 2) or "ital" in main["font"].lower()
        out.append(_Line(number, text, (x0, y0, x1, y1), round(main["size"], 1), bold, note, italic))
    return _without_provenance(_equations(out), backgrounds)


_EQUATION_LABEL = re.compile(r"^\[?Equation \d+[a-z]?\]?$")
_OPERATOR = re.compile(r"[+−\-∗*·×/]|\s")


def _math_letters(text: str) -> str:
    """Mathematical alphanumeric symbols written as letters and digits ("𝐷𝑄𝑅" → "DQR"); other signs kept."""
    return "".join(unicodedata.normalize("NFKC", c) if 0x1D400 <= ord(c) <= 0x1D7FF else c for c in text)


def _equations(lines: list[_Line]) -> list[_Line]:
    """A displayed equation as one line, read as typed: its left-hand side, each fraction as "(numerator)/denominator"
    from the lines printed above and below the line holding "=", then its label. The PEFCR guidance's Equation 20
    (p. 130) is "DQR = (TeR+GR+TiR+P)/4 [Equation 20]", not "𝑇𝑒𝑅+𝐺𝑅+𝑇𝑖𝑅+𝑃", "4", "𝐷𝑄𝑅=" as three lines; Equation
    4 (p. 77) "AF = 1 −6.04 ∗ Mmeat/Mmilk". Mathematical letters are written as letters everywhere."""
    math = [any(0x1D400 <= ord(c) <= 0x1D7FF for c in ln.text) for ln in lines]
    used: set[int] = set()
    replaced: dict[int, _Line] = {}
    for i, ln in enumerate(lines):
        if i in used or not math[i] or "=" not in ln.text:
            continue
        top, bottom = ln.bbox[1], ln.bbox[3]
        middle, reach = (top + bottom) / 2, bottom - top
        # the equation's pieces: short lines beside it, reaching no further than a line above or below it (a long
        # one only as the other half of a fraction: "[(Energy for wool (NEwool)+ Energy for milk (NEl) + …]", p. 78)
        band = [j for j, other in enumerate(lines) if j not in used and (j == i or (
            (len(other.text) <= 60 or math[j]) and other.bbox[1] >= top - reach and other.bbox[3] <= bottom + reach
            and other.bbox[0] >= ln.bbox[0] - reach and (math[j] or _EQUATION_LABEL.match(other.text.strip())
                                                          or len(other.text.split()) <= 2)))]
        label = [j for j in band if _EQUATION_LABEL.match(lines[j].text.strip())]
        pieces = [j for j in band if j not in label]
        above = [j for j in pieces if (lines[j].bbox[1] + lines[j].bbox[3]) / 2 < middle - reach / 4]
        below = [j for j in pieces if (lines[j].bbox[1] + lines[j].bbox[3]) / 2 > middle + reach / 4]
        placed: list[tuple[float, str]] = [(lines[j].bbox[0], lines[j].text) for j in pieces
                                           if j not in above and j not in below]
        unpaired = set()
        for a in above:  # a numerator and the denominator printed under it make a fraction
            under = next((b for b in below if lines[b].bbox[0] < lines[a].bbox[2]
                          and lines[a].bbox[0] < lines[b].bbox[2]), None)
            if under is None:
                unpaired.add(a)
                continue
            below.remove(under)
            num, den = (_math_letters(lines[k].text).strip() for k in (a, under))
            wrap = [f"({t})" if _OPERATOR.search(t) else t for t in (num, den)]
            placed.append((min(lines[a].bbox[0], lines[under].bbox[0]), f"{wrap[0]}/{wrap[1]}"))
        unpaired.update(below)
        # (a long line left unpaired is no part of it: prose or a parameter's definition printed close below)
        band = [j for j in band if not (j in unpaired and len(lines[j].text) > 60)]
        if any(j in band for j in unpaired) or any("=" in lines[j].text for j in band if j != i):
            continue  # not one equation's fractions around its "=": a table of equations (p. 82) is left as printed
        text = " ".join(_math_letters(t).strip() for _, t in sorted(placed))
        text = re.sub(r"\s*=\s*", " = ", text)
        text = " ".join([text, *(lines[j].text.strip() for j in label)])
        members = [lines[j] for j in band]
        box = (min(m.bbox[0] for m in members), min(m.bbox[1] for m in members), max(m.bbox[2] for m in members),
               max(m.bbox[3] for m in members))
        used.update(band)
        replaced[i] = _Line(ln.page, text, box, ln.size, ln.bold, ln.note, ln.italic)
    return [replaced.get(i, _Line(ln.page, _math_letters(ln.text), ln.bbox, ln.size, ln.bold, ln.note, ln.italic)
                         if math[i] else ln) for i, ln in enumerate(lines) if i in replaced or i not in used]


def _run_together(before: dict[str, Any], span: dict[str, Any], text: str) -> bool:
    """A web page printed to PDF sets a link's words in another font or colour, touching the words before them with
    no space ("The" + "more than €4.8 billion", "… for a" + "third auction", Hydrogen Bank second auction news, p. 1):
    a word space goes between. A style change inside a word (a diacritic's font in "Thuột", Nab & Maslin 2020; "The
    f" + "inal fate", PEFCR guidance p. 75) keeps it joined: only letters after a word, a bracket or a stop, both in
    one size."""
    return (re.search(r"(?:\b[aAI]|[A-Za-z]{2}|[)\].,;:])$", text) is not None
            and re.match(r"[A-Za-z]{2}", span["text"]) is not None and before["size"] == span["size"]
            and (before["font"] != span["font"] or before["color"] != span["color"])
            and abs(span["bbox"][0] - before["bbox"][2]) < 0.5)


def _raised(span: dict[str, Any], before: str) -> str:
    """A span's text, in superscript digits when PyMuPDF reports it raised and it is digits after a word, a sign or
    a number: a footnote mark ("a default utilisation ratio of 64%⁵⁸ shall be used", PEFCR guidance p. 95, not
    "64%58") or a power of ten ("M = 10⁶", Heijungs 2020, p. 2, not "M = 106"). An exponent after a minus ("kg−1",
    Nab & Maslin 2020, p. 1) stays in line. Search and quote matching read superscript digits as plain ones (NFKC)."""
    text: str = span["text"]
    if span["flags"] & 1 and _RAISED_MARK.fullmatch(text.strip()) and _MARKED.search(before):
        return text.translate(_SUPERSCRIPT)
    return text


def _without_provenance(lines: list[_Line], backgrounds: Callable[[], list[Any]]) -> list[_Line]:
    """The page without its provenance box: the panel a rendered copy opens with, saying where the copy comes from
    and what was changed ("Source: … Stored copy used: … Licence: … Retrieved: … Changes: …", the perspective
    corpora's news items and Wikipedia extracts, p. 1). It describes the copy, not what the document states, so it is
    neither quotable nor page text. The box is the shaded rectangle holding its first field, else the fields and the
    lines in their type size that follow them."""
    fields = [i for i, ln in enumerate(lines) if _PROVENANCE_FIELD.match(ln.text)]
    named = {m.group(1).lower() for i in fields if (m := _PROVENANCE_FIELD.match(lines[i].text))}
    if len(named) < PROVENANCE_MIN_FIELDS:
        return lines
    first = lines[fields[0]].bbox
    cx, cy = (first[0] + first[2]) / 2, (first[1] + first[3]) / 2
    box = next((r for r in backgrounds() if r.x0 <= cx <= r.x1 and r.y0 <= cy <= r.y1), None)
    if box is not None:
        return [ln for ln in lines if not (box.y0 <= (ln.bbox[1] + ln.bbox[3]) / 2 <= box.y1
                                           and box.x0 <= (ln.bbox[0] + ln.bbox[2]) / 2 <= box.x1)]
    size, end = lines[fields[0]].size, fields[-1] + 1
    while end < len(lines) and lines[end].size == size:
        end += 1
    return lines[:fields[0]] + lines[end:]


def _join_subscripts(rows: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]],
                     chars_of: Callable[[dict[str, Any]], list[dict[str, Any]]]
                     ) -> list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """A subscript digit that the PDF writes after the rest of its line (``… kg CO eq …`` then a lowered ``2``)
    is put back right after its formula, so the line reads ``kg CO2 eq``. A line is such a subscript when it is one
    or two digits in smaller type, inside another line's height, starting where a capital letter of that line ends
    (``chars_of`` gives a span's characters with their boxes)."""
    out: list[tuple[list[dict[str, Any]], list[dict[str, Any]]] | None] = list(rows)
    for i, (_, spans) in enumerate(rows):
        if len(spans) != 1 or not re.fullmatch(r"\d{1,2}", spans[0]["text"].strip()):
            continue
        sub = spans[0]
        sx0, sy0, _, sy1 = sub["bbox"]
        for j, row in enumerate(out):
            if j == i or row is None:
                continue
            host_kept, host_spans = row
            top, bottom = min(s["bbox"][1] for s in host_spans), max(s["bbox"][3] for s in host_spans)
            if sub["size"] >= 0.85 * max(s["size"] for s in host_spans) or not top < (sy0 + sy1) / 2 < bottom:
                continue
            split = _subscript_place(host_kept, sx0, chars_of)
            if split is not None:
                k, at = split
                span = host_kept[k]
                pieces = [{**span, "text": span["text"][:at]}, sub, {**span, "text": span["text"][at:]}]
                out[j] = ([*host_kept[:k], *pieces, *host_kept[k + 1:]], [*host_spans, sub])
                out[i] = None
                break
    return [row for row in out if row is not None]


def _subscript_place(spans: list[dict[str, Any]], x: float,
                     chars_of: Callable[[dict[str, Any]], list[dict[str, Any]]]) -> tuple[int, int] | None:
    """``(span index, character offset)`` right after the capital letter of ``spans`` that ends at ``x``."""
    for k, span in enumerate(spans):
        if not span["text"].strip() or not span["bbox"][0] - 1.5 <= x <= span["bbox"][2] + 1.5:
            continue
        chars = chars_of(span)
        if "".join(c["c"] for c in chars) != span["text"]:
            return None
        at = next((n for n, c in enumerate(chars) if c["c"].isupper() and abs(c["bbox"][2] - x) < 1.5), None)
        return None if at is None else (k, at + 1)
    return None


def _backgrounds(page: Any, blocks: list[dict[str, Any]]) -> list[Any]:
    """The rectangles (on screen) of a page's pictures and of its filled shapes in a colour other than near-white."""
    import pymupdf

    out = [pymupdf.Rect(b["bbox"]) for b in blocks if b.get("type") == 1]
    for path in page.get_drawings():
        fill = path.get("fill")
        if fill and not all(c * 255 >= _NEAR_WHITE for c in fill[:3]) and path.get("fill_opacity", 1) > 0.5:
            out.append(path["rect"] * page.rotation_matrix)
    return out


def _chars(raw_blocks: list[dict[str, Any]], span: dict[str, Any]) -> list[dict[str, Any]]:
    """The characters (``{"c", "bbox"}``) of the ``rawdict`` span with the same box as ``span``."""
    key = tuple(round(v, 1) for v in span["bbox"])
    for block in raw_blocks:
        for line in block.get("lines", []):
            for raw_span in line["spans"]:
                if tuple(round(v, 1) for v in raw_span["bbox"]) == key:
                    chars: list[dict[str, Any]] = raw_span["chars"]
                    return chars
    return []


def _on_screen(blocks: list[dict[str, Any]], page: Any) -> list[dict[str, Any]]:
    """Text blocks with boxes and writing directions as the page shows on screen: a page with ``/Rotate 90`` or
    ``/Rotate 270`` whose text reads upright is read like any other (PyMuPDF reports it unrotated, running down)."""
    if not page.rotation:
        return blocks
    import pymupdf

    to_screen, turn = page.rotation_matrix, pymupdf.Matrix(page.rotation)

    def box(bbox: Any) -> tuple[float, float, float, float]:
        return tuple(pymupdf.Rect(bbox) * to_screen)

    out = []
    for block in blocks:
        lines = [{**line, "bbox": box(line["bbox"]),
                  "dir": tuple(round(v, 6) + 0.0 for v in pymupdf.Point(line["dir"]) * turn),
                  "spans": [{**span, "bbox": box(span["bbox"]),
                             **({"chars": [{**c, "bbox": box(c["bbox"])} for c in span["chars"]]}
                                if "chars" in span else {})} for span in line["spans"]]}
                 for line in block.get("lines", [])]
        out.append({**block, "bbox": box(block["bbox"]), **({"lines": lines} if "lines" in block else {})})
    return out


def _is_ocr_layer(blocks: list[dict[str, Any]]) -> bool:
    """A scanned page after OCR: it shows a picture and all of its text is invisible (render mode 3)."""
    spans = [s for b in blocks for ln in b.get("lines", []) for s in ln["spans"] if s["text"].strip()]
    has_picture = any(b.get("type") == 1 for b in blocks)
    return has_picture and bool(spans) and all(s.get("alpha", 255) == 0 for s in spans)


def _has_line_numbers(blocks: list[dict[str, Any]], page_width: float) -> bool:
    """A page with line numbers has a column of them (five or more); a lone number is a heading or a label."""
    spans = (s for b in blocks for ln in b.get("lines", []) for s in ln["spans"])
    return sum(1 for s in spans if _is_margin_line_number(s, page_width)) >= 5


def _is_margin_line_number(span: dict[str, Any], page_width: float) -> bool:
    """Line numbers printed in the left or right margin (the PEFCR guidance numbers every line)."""
    text = span["text"].strip()
    x0, _, x1, _ = span["bbox"]
    numbered: bool = text.isdigit() and (x1 < page_width * 0.11 or x0 > page_width * 0.92)
    return numbered


def _margin_key(line: _Line, height: float, fraction: float = _MARGIN_FRACTION) -> str | None:
    """The line with digits masked (``page | #``) when it lies in the top or bottom band, else ``None``."""
    y0, y1 = line.bbox[1], line.bbox[3]
    if y1 > height * fraction and y0 < height * (1 - fraction):
        return None
    return re.sub(r"\d+", "#", line.text.lower()).strip()


_FOOT = "foot:"  # a running key that holds at the foot of the page only
_CHAPTER_KEY = re.compile(r"^#(?:\.#)*\.?\s+[^\W\d_][^#.:;,]{0,60}(?:\s#)?$")  # "# entry-level requirements"


def _running_lines(pages_lines: list[list[_Line]], heights: list[float]) -> set[str]:
    """Keys of header/footer lines with letters that repeat on at least 30 % of the pages (min. 3 pages), and of
    chapter titles at the foot of two pages running (prefixed ``foot:``). Table
    captions at the top of pages ("Table 3 …", numbers masked alike) are content, never running headers."""
    counts: Counter[str] = Counter()
    pages: dict[str, list[int]] = {}
    for i, (lines, h) in enumerate(zip(pages_lines, heights, strict=True)):
        keys = {k for ln in lines if (k := _margin_key(ln, h)) and re.search(r"[^\W\d_]", k)
                and not TABLE_CAPTION.match(ln.text)}
        counts.update(keys)
        for k in {_FOOT + k for ln in lines if (k := _margin_key(ln, h)) and ln.bbox[1] > h / 2}:
            pages.setdefault(k, []).append(i)
    threshold = max(3, int(0.3 * len(pages_lines)))
    # (a numbered chapter title printed at the foot of each of its pages, "4 Entry-level requirements" over "17" in
    # the JRC ILCD compliance rules, pp. 16–17, is a running footer however short the chapter: a heading is
    # printed once, not at the foot of two pages running; the heading itself, at the top of the chapter's first page,
    # stays)
    return {k for k, c in counts.items() if c >= threshold} | {
        k for k, at in pages.items() if _CHAPTER_KEY.match(k.removeprefix(_FOOT))
        and any(b - a == 1 for a, b in itertools.pairwise(at))}


def _keep_line(line: _Line, height: float, running: set[str], row: Sequence[_Line] = ()) -> bool:
    """Drop download stamps, a copy's page stamps and placeholders, photo credits, running headers/footers, and bare
    page numbers near the page edge: not a section's number beside its title on the same line (``row``: the page's
    lines), "5" before "| LIFE CYCLE ASSESSMENTS" at the top of Nab & Maslin 2020, p. 5."""
    if _STAMP.search(line.text) or _RENDERER_NOTE.match(line.text) or _PHOTO_CREDIT.match(line.text.strip()):
        return False
    key = _margin_key(line, height)
    if key in running or (line.bbox[1] > height / 2 and f"{_FOOT}{key}" in running):
        return False
    near_edge = _margin_key(line, height, _PAGE_NUMBER_BAND) is not None
    if not (near_edge and _PAGE_NUMBER.match(line.text.strip())):
        return True
    middle = (line.bbox[1] + line.bbox[3]) / 2
    return any(other.text.startswith("|") and other.bbox[1] < middle < other.bbox[3]
               and 0 <= other.bbox[0] - line.bbox[2] < 3 * line.size for other in row)


def _page_labels(doc: Any, pages_lines: list[list[_Line]], heights: list[float]) -> list[str]:
    """Printed page labels: the PDF's /PageLabels, else numbers printed in the margins when consistent."""
    n = doc.page_count
    pdf_labels = [doc[i].get_label() or "" for i in range(n)]
    if any(pdf_labels):
        return [lab or str(i + 1) for i, lab in enumerate(pdf_labels)]
    offsets: Counter[int] = Counter()
    for i, (lines, h) in enumerate(zip(pages_lines, heights, strict=True)):
        for ln in lines:
            m = _PAGE_NUMBER.match(ln.text.strip())
            if m and _margin_key(ln, h) is not None:
                offsets[int(m.group(1)) - (i + 1)] += 1
    if offsets:
        offset, count = offsets.most_common(1)[0]
        if offset != 0 and count >= max(2, n // 2):
            return [str(i + 1 + offset) for i in range(n)]
    return [str(i + 1) for i in range(n)]


def _body_size(pages_lines: list[list[_Line]]) -> float:
    sizes: Counter[float] = Counter()
    for lines in pages_lines:
        for ln in lines:
            sizes[ln.size] += len(ln.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _title(metadata_title: str, pages_lines: list[list[_Line]]) -> str | None:
    """The metadata title when the first two pages print most of its words, else the largest type on the first
    page, else the metadata title. A template's leftover title loses to the printed one (the JRC ILCD compliance
    rules carry "Validity and conformity tests" and print "Compliance rules and entry-level requirements")."""
    printed = _largest_text(pages_lines[0]) if pages_lines else None
    words = content_terms(metadata_title)
    if not words or not printed:
        return metadata_title.strip() or printed
    first_pages = " ".join(ln.text for lines in pages_lines[:2] for ln in lines)
    return metadata_title.strip() if sum(term_present(w, first_pages) for w in words) >= len(words) / 2 else printed


def _largest_text(lines: list[_Line]) -> str | None:
    """The title guess for PDFs without metadata: the largest type on the first page, unless that is most of the
    page's text (a page in one type size has no title line to tell apart; the file name is used instead)."""
    if not lines:
        return None
    biggest = max(ln.size for ln in lines)
    title = " ".join(ln.text for ln in lines if ln.size == biggest)
    if len(title) > 0.5 * sum(len(ln.text) + 1 for ln in lines):
        return None
    return title[:200] if len(title) >= 4 else None


def _reading_order(items: list[tuple[tuple[float, float, float, float], Any]], width: float) -> list[Any]:
    """Order boxes column by column: full-width boxes cut the page into bands; in a band, left then right.

    A page is read as two columns when each half holds at least a fifth of its text, or when each half holds
    :data:`COLUMN_PROSE_CHARS` of prose in lines as wide as a column, even if full-width tables and figures hold
    most of the page's text (Moretti et al. 2020, p. 5: two tables above two columns of text). Narrow table cells
    left and right of the middle (PEFCR guidance tables, p. 135) do not count as columns.
    """
    mid = width / 2
    tol = width * 0.02
    edges = _column_edges(items, width)
    if len(edges) >= 3:
        return _by_columns(items, width, edges)

    def column(b: tuple[float, float, float, float]) -> str:
        if b[2] <= mid + tol:
            return "L"
        if b[0] >= mid - tol:
            return "R"
        return "F"

    weight: Counter[str] = Counter()
    prose: Counter[str] = Counter()  # text of boxes at least COLUMN_PROSE_WIDTH wide: column lines, not table cells
    for b, item in items:
        weight[column(b)] += _text_weight(item)
        if b[2] - b[0] >= COLUMN_PROSE_WIDTH * width:
            prose[column(b)] += _text_weight(item)
    total = sum(weight.values()) or 1
    sides = (prose["L"] + prose["R"]) or 1
    two_columns = (weight["R"] >= 0.2 * total and weight["L"] >= 0.2 * total) or (
        min(prose["L"], prose["R"]) >= COLUMN_PROSE_CHARS and min(prose["L"], prose["R"]) >= 0.2 * sides)
    if not two_columns:
        return [item for _, item in _by_rows(items)]
    ordered: list[Any] = []
    band: list[tuple[tuple[float, float, float, float], Any]] = []
    for box, item in _by_rows(items):
        if column(box) == "F":
            ordered.extend(_band(band, column))
            band = []
            ordered.append(item)
        else:
            band.append((box, item))
    ordered.extend(_band(band, column))
    return ordered


THREE_COLUMN_MIN_SHARE = 0.15  # of a page's text in each column of a three-column page


def _column_edges(items: list[tuple[tuple[float, float, float, float], Any]], width: float) -> list[float]:
    """Left edges of the columns of a page set in three or more narrow columns (the WBCSD Pathfinder Framework),
    each holding at least :data:`THREE_COLUMN_MIN_SHARE` of the text in boxes narrower than a third of the page;
    otherwise an empty list (one or two columns are read by :func:`_reading_order` itself)."""
    narrow = sorted(((b[0], _text_weight(it)) for b, it in items if b[2] - b[0] < width / 3), key=lambda x: x[0])
    total = sum(_text_weight(it) for _, it in items) or 1
    clusters: list[list[tuple[float, int]]] = []
    for x0, w in narrow:
        if clusters and x0 - clusters[-1][0][0] <= width * 0.06:
            clusters[-1].append((x0, w))
        else:
            clusters.append([(x0, w)])
    edges = [min(x for x, _ in c) for c in clusters if sum(w for _, w in c) >= THREE_COLUMN_MIN_SHARE * total]
    return edges if len(edges) >= 3 else []


def _by_columns(items: list[tuple[tuple[float, float, float, float], Any]], width: float,
                edges: list[float]) -> list[Any]:
    """Column after column, top to bottom; a box wider than two columns cuts the page into bands."""
    ordered: list[Any] = []
    band: list[tuple[tuple[float, float, float, float], Any]] = []

    def flush() -> None:
        def col(b: tuple[float, float, float, float]) -> int:
            return max((i for i, e in enumerate(edges) if e <= b[0] + width * 0.02), default=0)
        ordered.extend(it for _, it in sorted(band, key=lambda x: (col(x[0]), x[0][1])))
        band.clear()

    for box, item in _by_rows(items):
        if box[2] - box[0] > 0.6 * width:
            flush()
            ordered.append(item)
        else:
            band.append((box, item))
    flush()
    return ordered


def _by_rows(items: list[tuple[tuple[float, float, float, float], Any]]
             ) -> list[tuple[tuple[float, float, float, float], Any]]:
    """Top to bottom; boxes whose tops lie within 3 pt of each other form one row, read left to right."""
    rows: list[list[tuple[tuple[float, float, float, float], Any]]] = []
    for it in sorted(items, key=lambda it: it[0][1]):
        if rows and abs(it[0][1] - rows[-1][0][0][1]) < 3:
            rows[-1].append(it)
        else:
            rows.append([it])
    return [it for row in rows for it in sorted(row, key=lambda it: it[0][0])]


def _text_weight(item: Any) -> int:
    """Characters of text in a line, a paragraph or a table (page numbers and digits alone weigh nothing)."""
    if isinstance(item, str):
        return len(item)
    lines = item if isinstance(item, list) else [item]
    return sum(len(ln.text) for ln in lines if not ln.text.strip().isdigit())


def _band(band: list[tuple[tuple[float, float, float, float], Any]], column: Any) -> list[Any]:
    left = [it for b, it in sorted(band, key=lambda x: x[0][1]) if column(b) == "L"]
    right = [it for b, it in sorted(band, key=lambda x: x[0][1]) if column(b) == "R"]
    return left + right


def _paragraphs(lines: list[_Line]) -> list[list[_Line]]:
    """Group lines (in reading order) into paragraphs by vertical gap, horizontal overlap and style.

    A line joins the most recent open paragraph whose last line sits directly above it, not only the paragraph
    just before it: boxes side by side (an abstract beside a "Correspondence" sidebar, p. 1 of the coffee study)
    arrive interleaved line by line and are read box by box. Leading tighter than the type (Moretti et al. 2020:
    line boxes overlapping by 3 pt) still makes one paragraph. Paragraphs come out in order of their first line.
    """
    paragraphs: list[list[_Line]] = []
    for ln in lines:
        target = next((para for para in reversed(paragraphs[-_OPEN_PARAGRAPHS:]) if _continues(para[-1], ln)), None)
        if target is not None:
            target.append(ln)
        else:
            paragraphs.append([ln])
    return paragraphs


_OPEN_PARAGRAPHS = 4  # paragraphs a line may continue: side-by-side boxes on one page


def _continues(prev: _Line, ln: _Line) -> bool:
    """True when ``ln`` is the next line of the paragraph ending with ``prev``."""
    gap = ln.bbox[1] - prev.bbox[3]
    overlaps = ln.bbox[0] < prev.bbox[2] and ln.bbox[2] > prev.bbox[0]
    # (a list item's lines hang under its text, whatever the style of its first line: "• Situation A "Micro-level
    # decision support": Decision support on micro-level," with its label in bold, JRC ILCD compliance rules, p. 7)
    hangs = _BULLETED.match(prev.text) is not None and ln.bbox[0] > prev.bbox[0] + 2
    same_style = (ln.bold == prev.bold or hangs) and abs(ln.size - prev.size) < 1
    # a numbered heading set in bold or, in body type, in italics ("2.1. Goal and Scope of the Study: System
    # Boundaries and Functional Unit", Burchart et al. 2023, p. 4) is a paragraph of its own
    starts_section = (ln.bold or ln.italic) and SECTION_START.match(ln.text) is not None
    ends_section = prev.italic and not ln.italic and SECTION_START.match(prev.text) is not None
    size = max(prev.size, ln.size)
    pitch = ln.bbox[1] - prev.bbox[1]  # baseline to baseline, whatever the height of the line boxes
    close = -0.5 * size <= gap <= size * 0.8 or 0 < pitch <= 1.35 * size
    return (overlaps and close and same_style and not starts_section and not ends_section
            and not ln.note  # each footnote its own
            and not _BULLETED.match(ln.text))  # and each bulleted item


_BULLETED = re.compile(rf"^[{BULLET_GLYPHS}]\s")


def _column_sorted_lines(lines: list[_Line], width: float) -> list[_Line]:
    return _join_fragments(_reading_order([(ln.bbox, ln) for ln in _with_bullets(lines)], width), width)


_LONE_BULLET = re.compile(rf"^[{BULLET_GLYPHS}]$")


def _with_bullets(lines: list[_Line]) -> list[_Line]:
    """A bullet glyph set as a line of its own opens the line beside it: in the JRC ILCD compliance rules (p. 7) the
    bullet of "Situation A …" sits 4 pt below the top of its item's first line and would otherwise be read after that
    line, splitting the item and leaving it without its bullet."""
    out = list(lines)
    for bullet in [ln for ln in lines if _LONE_BULLET.match(ln.text.strip())]:
        middle = (bullet.bbox[1] + bullet.bbox[3]) / 2
        beside = [ln for ln in out if ln is not bullet and ln.bbox[1] <= middle <= ln.bbox[3]
                  and 0 <= ln.bbox[0] - bullet.bbox[2] < 3 * max(ln.size, bullet.size)]
        if not beside or bullet not in out:
            continue
        item = min(beside, key=lambda ln: ln.bbox[0])
        out[out.index(item)] = replace(item, text=f"{bullet.text.strip()} {item.text}", bbox=(
            bullet.bbox[0], min(bullet.bbox[1], item.bbox[1]), item.bbox[2], max(bullet.bbox[3], item.bbox[3])))
        out.remove(bullet)
    return out


def _join_fragments(lines: list[_Line], width: float) -> list[_Line]:
    """Join pieces of one visual line (same baseline, small horizontal gap) that PyMuPDF reports apart."""
    out: list[_Line] = []
    for ln in lines:
        prev = out[-1] if out else None
        near = prev is not None and 0 <= ln.bbox[0] - prev.bbox[2] < 3 * ln.size
        toc_page_number = ln.text.strip().isdigit() and ln.bbox[0] > width * 0.6  # "7.6 CUT-OFF ...... 61"
        if prev and abs(ln.bbox[1] - prev.bbox[1]) < 2 and (near or toc_page_number):
            box = (prev.bbox[0], min(prev.bbox[1], ln.bbox[1]), ln.bbox[2], max(prev.bbox[3], ln.bbox[3]))
            out[-1] = _Line(prev.page, f"{prev.text} {ln.text}", box, prev.size, prev.bold and ln.bold, prev.note,
                              prev.italic and ln.italic)
            continue
        out.append(ln)
    return out


def _page_blocks(
    lines: list[_Line],
    tables: list[tuple[tuple[float, float, float, float], str]],
    width: float,
    body_size: float,
    tracker: HeadingTracker,
    page: int,
    vocabulary: Counter[str] | None = None,
) -> list[Block]:
    ordered = _column_sorted_lines(lines, width)
    items: list[tuple[tuple[float, float, float, float], Any]] = []
    for para in _paragraphs(ordered):
        box = (min(ln.bbox[0] for ln in para), para[0].bbox[1], max(ln.bbox[2] for ln in para), para[-1].bbox[3])
        items.append((box, para))
    items.extend((bbox, md) for bbox, md in tables)
    blocks: list[Block] = []
    ordered_items = _merge_split_headings(_reading_order(items, width))
    contents_page = is_contents([ln.text for ln in ordered], minimum=10)  # on such a page, one entry is contents too
    for item in ordered_items:
        if isinstance(item, str):
            blocks.append(Block(page, "table", item, tracker.path))
            continue
        text = join_lines([ln.text for ln in item], vocabulary)
        if item[0].note and item[0].size < body_size - 0.5:
            blocks.append(Block(page, "footnote", text, tracker.path))
        elif is_contents([ln.text for ln in item], minimum=1 if contents_page else 3):
            blocks.append(Block(page, "contents", text, tracker.path))
        elif tracker.observe(text, item[0].size, item[0].bold, body_size, page):
            blocks.append(Block(page, "heading", " ".join(text.split()), tracker.path))
        elif page == 1 and item[0].size >= DISPLAY_SIZE * body_size and len(text) <= 200:
            # first-page display type names the document, it states nothing: "European Commission news item (DG
            # CLIMA, 7 October 2024)" above the Hydrogen Bank pilot's headline (p. 1)
            blocks.append(Block(page, "title", text, tracker.path))
        else:
            blocks.append(Block(page, "text", text, tracker.path))
    return blocks


def _merge_split_headings(items: list[Any]) -> list[Any]:
    """Join a bold paragraph holding only a section number ("7.18.10") with the bold title that follows it in the
    same type size."""
    out: list[Any] = []
    for item in items:
        prev = out[-1] if out else None
        if (
            isinstance(item, list) and isinstance(prev, list) and len(prev) == 1 and prev[0].bold and item[0].bold
            and NUMBER_ONLY.match(prev[0].text.strip()) and len(item) <= 2
            and abs(prev[0].size - item[0].size) < 1  # a bold table cell "8.92" above "Annex B" (PEFCR p. 164) is not
        ):
            out[-1] = prev + item
            continue
        out.append(item)
    return out
