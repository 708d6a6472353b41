"""The evidence ledger: every quotable span (a sentence or a table row on one page) of the retrieved chunks."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from lcabot.models import Chunk, DocumentRecord, Evidence, Hit
from lcabot.normalize import collapse, split_sentences

_MIN_CHARS = 25
_NUMBER_CELL = re.compile(r"^[-−–]?\d+(?:[.,]\d+)*\s*%?$")


def evidence_id(doc_id: str, page: int, text: str) -> str:
    """Stable id of a quotable span: hash of document, page and the span's text."""
    return "E" + hashlib.sha256(f"{doc_id}\x00{page}\x00{collapse(text)}".encode()).hexdigest()[:10]


def build_ledger(hits: Sequence[Hit], documents: dict[str, DocumentRecord]) -> list[Evidence]:
    """Split each hit (and its context chunks) into quotable units bound to the page that holds them.

    Text becomes sentences (those under 25 characters, such as headings and stray labels, are left out); a table
    becomes its data rows, each carrying the caption and the panel and group labels above it as ``context``.
    Duplicates are left out; order follows the hits' rank.
    """
    ledger: dict[str, Evidence] = {}
    for hit in hits:
        for chunk in (hit.chunk, *hit.context):
            record = documents.get(chunk.doc_id)
            if record is None:
                continue
            for offset, text, context in quotable_units(chunk):
                page = chunk.page_at(offset)
                eid = evidence_id(chunk.doc_id, page, text)
                ledger.setdefault(eid, Evidence(
                    evidence_id=eid, doc_id=chunk.doc_id, source=record.source, title=record.title,
                    section=chunk.section_path[-1] if chunk.section_path else None, page=page,
                    page_label=record.label(page), text=text, chunk_id=chunk.chunk_id, context=context,
                ))
    return list(ledger.values())


def quotable_units(chunk: Chunk) -> list[tuple[int, str, str]]:
    """``(offset, text, context)`` of each quotable unit of a chunk."""
    pieces = [(offset, collapse(s)) for offset, s in _page_pieces(chunk)]
    units: list[tuple[int, str, str]] = []
    panel = group = ""
    data_seen = False
    for i, (offset, text) in enumerate(pieces):
        if not text.startswith("|"):
            if len(text) >= _MIN_CHARS:
                units.append((offset, text, ""))
            continue
        cells = [c.strip() for c in text.strip("|").split("|") if c.strip()]
        if any(_NUMBER_CELL.match(c) for c in cells):
            units.append((offset, text, " ".join(p for p in (_caption(chunk), panel, group) if p)))
            data_seen = True
            continue
        label = cells[0] if len(set(cells)) == 1 and re.search(r"[^\W\d_]", cells[0]) else None
        if label is None:
            continue  # a header or separator row
        nxt = pieces[i + 1][1] if i + 1 < len(pieces) else ""
        if any(_NUMBER_CELL.match(c.strip()) for c in nxt.strip("|").split("|")):
            group = label  # "|Exportation|||Exportation|||" directly above its rows
        else:  # "|Conventional|…" above header rows: a panel of the table (labels in a row accumulate)
            panel, group = (label if data_seen else f"{panel} {label}".strip()), ""
            data_seen = False
    return units


def _caption(chunk: Chunk) -> str:
    """The text before a table's first row (its caption), or its section title."""
    head = chunk.text.split("\n|", 1)[0] if not chunk.text.startswith("|") else ""
    return collapse(head) or (chunk.section_path[-1] if chunk.section_path else "")


def _page_pieces(chunk: Chunk) -> list[tuple[int, str]]:
    """Sentences of a chunk, never crossing a page boundary (so each has exactly one page)."""
    bounds = [s.start for s in chunk.page_spans] + [len(chunk.text)]
    out: list[tuple[int, str]] = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        out.extend((start + o, s) for o, s in split_sentences(chunk.text[start:end]))
    return out


def ledger_hash(evidence: Sequence[Evidence]) -> str:
    """A fingerprint of the frozen ledger an answer was written from."""
    return hashlib.sha256("\n".join(e.evidence_id for e in evidence).encode()).hexdigest()[:16]
