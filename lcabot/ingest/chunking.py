"""Structure-aware chunking with overlap and deterministic ids.

Chunks never cross a section boundary; tables become their own chunks (split by rows with the header repeated
when long); text chunks aim at ``target_chars`` (about 200 MiniLM word pieces) and repeat the previous chunk's last
sentence as overlap.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from lcabot.ingest.normalize import ENDS_SENTENCE, LIST_ITEM, PLACEHOLDER_CELL, for_search, split_sentences
from lcabot.ingest.pdf import TABLE_CAPTION, Block, ParsedDocument
from lcabot.models import Chunk, PageSpan

TARGET_CHARS = 900
MAX_TABLE_CHARS = 1800


@dataclass
class _Piece:
    text: str
    page: int
    joined: bool = False  # continues the previous piece's sentence (across a column or page break)
    continues_paragraph: bool = False  # a later slice of a long paragraph: the same paragraph as the slice before


_FIGURE_CAPTION = re.compile(r"^\s*(?:figure|fig\.)\s*[A-Z]?\d+[a-z]?\s*[.:–—-]", re.I)
_FOOTNOTE = re.compile(r"^\d{1,2}\s+[A-Z]")  # "8 From Ecoinvent 3.4, …" below a column is a footnote
_OPEN_WORD = re.compile(
    r"\b(?:the|a|an|of|at|to|in|on|by|for|from|with|as|and|or|is|are|was|were|be|been|than|per|into|whereas)\s*$",
    re.I,
)




def _continues_list(pending: list[_Piece], piece: _Piece) -> bool:
    """True when ``piece`` is a further item of a list that a piece of ``pending`` introduces ("… the following
    rule:"): a rule's items, its exceptions among them, stay in one chunk (PEFCR guidance 7.6, p. 61)."""
    if not pending or not LIST_ITEM.match(piece.text):
        return False
    for previous in reversed(pending):
        if previous.text.rstrip().endswith(":"):
            return True
        if not LIST_ITEM.match(previous.text):
            return False
    return False


_LIST_NUMBER = re.compile(r"\((?:\d{1,2}|[a-z]|[ivx]{1,4})\)\s")


def continues_sentence(previous: str, text: str) -> bool:
    """True when ``text`` carries on the sentence that ``previous`` leaves open: ``previous`` ends without a
    sentence end and ``text`` starts in lower case, or ``previous`` ends on a word no sentence ends with ("… was"
    before "15.33 kg …"). Table rows, list bullets and captions never continue a sentence."""
    previous, text = previous.rstrip(), text.lstrip()
    if not previous or not text or previous.startswith("|") or text.startswith(("|", "•", "●", "-", "–")):
        return False
    if ENDS_SENTENCE.search(previous) or TABLE_CAPTION.match(text) or _FOOTNOTE.match(text):
        return False
    ends_in_word = previous[-1].islower() and len(previous) >= 40  # "… hydrogen generates" before "9.4 kg CO2eq."
    # (or before its bracketed end: "… 11 countries within the European Economic Area" before "(EEA). Eight of the
    # bids …", Hydrogen Bank second auction news, 2025, p. 1; not a list item's number, "(4) Studies compliant …")
    bracketed = text[0] == "(" and not _LIST_NUMBER.match(text)
    # (a number alone is no value of it: the section number "5.2" printed beside "• Emissions from the end-of-life
    # stage are not included in the Framework Version 1 boundary", Pathfinder Framework p. 13)
    number_only = re.fullmatch(r"\d+(?:\.\d+)*\.?", text) is not None
    return text[0].islower() or _OPEN_WORD.search(previous) is not None or (ends_in_word and not number_only and (
        text[0].isdigit() or bracketed))


def chunk_document(parsed: ParsedDocument, doc_id: str, source: str) -> list[Chunk]:  # noqa: C901
    """Split a parsed document into chunks.

    Args:
        parsed: output of :func:`lcabot.ingest.pdf.parse_pdf`.
        doc_id: the document's content hash; chunk ids are derived from it, so the same bytes give the same ids.
        source: the file name; its words join the title and authors in every chunk's search text, so that
            "the Nab & Maslin study" finds passages that never repeat the authors' names.

    Returns:
        Chunks in reading order; ``ordinal`` counts from 0.
    """
    drafts: list[tuple[tuple[str, ...], str, list[_Piece]]] = []
    pending: list[_Piece] = []
    pending_path: tuple[str, ...] = ()
    notes: list[_Piece] = []  # the section's footnotes: chunked after it, so its sentences run on across pages

    def flush() -> None:
        nonlocal pending
        if pending:
            drafts.append((pending_path, "text", pending))
        pending = []

    def flush_notes() -> None:
        while notes:
            size = 0
            for n, note in enumerate(notes):
                size += len(note.text)
                if size > TARGET_CHARS and n:
                    break
            else:
                n = len(notes)
            drafts.append((pending_path, "text", notes[:n]))
            del notes[:n]

    held: list[_Piece] = []  # captions read after the sentence they interrupt

    def add(piece: _Piece) -> None:
        nonlocal pending
        size = sum(len(p.text) for p in pending)
        piece.joined = bool(pending) and continues_sentence(pending[-1].text, piece.text)
        listed = _continues_list(pending, piece) and size + len(piece.text) <= 2 * TARGET_CHARS
        if pending and size + len(piece.text) > TARGET_CHARS and not piece.joined and not listed:
            overlap = _last_sentence(pending)
            flush()
            pending = [overlap] if overlap else []
        pending.append(piece)

    def release() -> None:
        for caption in held:
            add(caption)
        held.clear()

    for block in parsed.blocks:
        if block.kind in ("title", "contents"):
            continue
        if block.kind == "footnote":
            notes.append(_Piece(block.text, block.page))
            continue
        if block.kind == "heading" or block.section_path != pending_path:
            release()
            flush()
            flush_notes()
            pending_path = block.section_path
            if block.kind == "heading":
                continue
        if block.kind == "table":
            release()
            caption = _take_caption(pending)
            flush()
            drafts.extend((block.section_path, "table", [*caption, p]) for p in _table_pieces(block))
            continue
        for piece in _split_long(block):
            if pending and _FIGURE_CAPTION.match(piece.text) and not ENDS_SENTENCE.search(pending[-1].text.rstrip()):
                held.append(piece)  # a caption set between a sentence and its continuation (Moretti et al. 2020:
                continue  # p. 2 ends "… using hydrogen. The", p. 3 opens with Fig. 1's caption, then "triglycerides")
            add(piece)
            release()
    release()
    flush()
    flush_notes()
    header = document_header(parsed.title, parsed.authors, source)
    return [_make_chunk(parsed, doc_id, header, i, path, kind, pieces)
            for i, (path, kind, pieces) in enumerate(drafts)]


def embedding_text(chunk: Chunk) -> str:
    """What is embedded: section path and text, without the document header (which every chunk of a document
    shares, and which would pull all of its chunks towards one point). A table is embedded by its words — caption,
    headers and row labels, each once — not its numbers and cell rules, which would fill the model's 256 word
    pieces with nothing a question says (Nab & Maslin 2020, Table 2: "Airport to airport", not "10.42|100")."""
    text = chunk.text if chunk.kind != "table" else _table_words(chunk.text)
    return for_search(" > ".join(chunk.section_path) + "\n" + text)


def _table_words(text: str) -> str:
    lines = [line for line in text.splitlines() if not line.startswith("|")]
    cells = (c.replace("<br>", " ").strip(" *_") for line in text.splitlines() if line.startswith("|")
             for c in line.strip().strip("|").split("|"))
    words = [c for c in cells if re.search(r"[^\W\d_]{2}", c) and not PLACEHOLDER_CELL.match(c)]
    return "\n".join([*lines, " | ".join(dict.fromkeys(words))])



def document_header(title: str, authors: str, source: str) -> str:
    """Title, authors and file-name words, prefixed to every chunk's search text (never to its display text)."""
    stem = re.sub(r"[-_.]+", " ", source.rsplit(".", 1)[0])
    return " | ".join(part for part in (title, authors, stem) if part)


def _take_caption(pending: list[_Piece]) -> list[_Piece]:
    """Remove and return the table caption ("TABLE 2", "Table 16: Default allocation …") that ends ``pending``,
    so that it travels with every chunk of its table."""
    for start in (len(pending) - 1, len(pending) - 2):
        if start >= 0 and TABLE_CAPTION.match(pending[start].text):
            caption = pending[start:]
            del pending[start:]
            return caption
    return []


def _split_long(block: Block) -> list[_Piece]:
    """A paragraph longer than the target is cut at sentence ends (pieces are slices of the paragraph; a chunk
    starting on a later slice after the overlap sentence keeps them one paragraph, so a sentence still reporting a
    cited work stays marked as such: Burchart et al. 2023, p. 13)."""
    if len(block.text) <= TARGET_CHARS:
        return [_Piece(block.text, block.page)]
    pieces: list[_Piece] = []
    start = previous = 0
    for offset, _ in split_sentences(block.text)[1:]:
        if offset - start > TARGET_CHARS and previous > start:
            pieces.append(_Piece(block.text[start:previous].strip(), block.page, continues_paragraph=bool(pieces)))
            start = previous
        previous = offset
    pieces.append(_Piece(block.text[start:].strip(), block.page, continues_paragraph=bool(pieces)))
    return pieces


def _last_sentence(pieces: list[_Piece]) -> _Piece | None:
    last = pieces[-1]
    sentence = split_sentences(last.text)[-1][1].strip()
    if len(sentence) > TARGET_CHARS // 3 or sentence == last.text and len(pieces) == 1:
        return None
    return _Piece(sentence, last.page)


def _table_pieces(block: Block) -> list[_Piece]:
    """Markdown table rows grouped under a repeated header (first two lines: header and separator)."""
    lines = block.text.splitlines()
    if len(block.text) <= MAX_TABLE_CHARS or len(lines) < 4:
        return [_Piece(block.text, block.page)]
    header, rows = lines[:2], lines[2:]
    pieces: list[_Piece] = []
    current: list[str] = []
    for row in rows:
        if current and sum(len(r) for r in header + current) + len(row) > MAX_TABLE_CHARS:
            pieces.append(_Piece("\n".join(header + current), block.page))
            current = []
        current.append(row)
    if current:
        pieces.append(_Piece("\n".join(header + current), block.page))
    return pieces


def _make_chunk(
    parsed: ParsedDocument, doc_id: str, header: str, ordinal: int, path: tuple[str, ...], kind: str,
    pieces: list[_Piece],
) -> Chunk:
    text = ""
    spans: list[PageSpan] = []
    for piece in pieces:
        if text:
            text += "\n" if piece.joined or piece.continues_paragraph else "\n\n"
        if not spans or spans[-1].page != piece.page:
            spans.append(PageSpan(len(text), piece.page))
        text += piece.text
    heading = " > ".join(path)
    search_text = for_search(f"{header}\n{heading}\n{text}")
    digest = hashlib.sha256(f"{doc_id}\x00{ordinal}\x00{text}".encode()).hexdigest()[:20]
    first, last = spans[0].page, max(s.page for s in spans)
    return Chunk(
        chunk_id=digest,
        doc_id=doc_id,
        ordinal=ordinal,
        section_path=path,
        page_start=first,
        page_end=last,
        page_label_start=parsed.page_labels[first - 1],
        page_label_end=parsed.page_labels[last - 1],
        kind=kind,
        text=text,
        search_text=search_text,
        page_spans=tuple(spans),
    )
