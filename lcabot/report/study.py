"""The study in an ephemeral index: parsed by the same ingestion code, chunked, embedded and written to a
:class:`~lcabot.adapters.sqlite_index.SqliteIndex` in a temporary directory that never becomes part of the library."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lcabot.adapters.sqlite_index import SqliteIndex
from lcabot.config import Settings
from lcabot.errors import DocumentError
from lcabot.ingest.chunking import chunk_document, embedding_text
from lcabot.ingest.normalize import collapse, for_search, match_key
from lcabot.ingest.pdf import ParsedDocument
from lcabot.ingest.pipeline import content_hash, parse_document
from lcabot.models import Chunk, DocumentRecord
from lcabot.ports import Embedder
from lcabot.report.model import Quote
from lcabot.report.units import (
    Unit,
    is_references_heading,
    literature_paragraph,
    mark_other_studies,
    paragraphs,
    sentences,
)
from lcabot.search.retrieval import HybridRetriever, RetrievalQuery

_LONG_ROW = 300  # table rows longer than this are quoted cell by cell (merged cells hold whole paragraphs)


def parse_study(data: bytes, name: str, settings: Settings) -> ParsedDocument:
    """Parse with the ingestion limits (``settings.max_pdf_mb``, ``settings.max_pages``).

    Raises:
        lcabot.errors.DocumentError: TooLargeError, NotAPdfError, EncryptedPdfError, CorruptPdfError or
            EmptyPdfError, as ingestion would report them.
    """
    parsed = parse_document(data, name, settings.max_pdf_mb, settings.max_pages)
    if isinstance(parsed, DocumentError):
        raise parsed
    return parsed


@dataclass
class Study:
    """One study, indexed on its own.

    Args:
        parsed: the parsed PDF.
        record: its document record in ``index``.
        chunks: its chunks in reading order.
        index: the ephemeral index (a SQLite file in a temporary directory).
        embedder: the embedding model (shared with the rest of the process).
    """

    parsed: ParsedDocument
    record: DocumentRecord
    chunks: list[Chunk]
    index: SqliteIndex
    embedder: Embedder
    units_by_chunk: dict[str, list[Unit]] = field(default_factory=dict)
    _page_keys: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, parsed: ParsedDocument, data: bytes, name: str, workdir: Path, embedder: Embedder) -> Study:
        """Chunk, embed and index the parsed study in ``workdir`` (which the caller deletes afterwards)."""
        doc_id = content_hash(data)
        chunks = chunk_document(parsed, doc_id, name)
        vectors = embedder.embed([embedding_text(c) for c in chunks])
        index = SqliteIndex(workdir / "study.sqlite3", int(vectors.shape[1]))
        record = DocumentRecord(
            doc_id=doc_id, source=name, source_key=f"report:{name}", title=parsed.title, perspective="general",
            n_pages=len(parsed.page_texts), n_chunks=len(chunks), pages_without_text=tuple(parsed.pages_without_text),
            page_labels=tuple(parsed.page_labels),
        )
        index.upsert_document(record, chunks, vectors, parsed.page_texts)
        study = cls(parsed, record, chunks, index, CachedEmbedder(embedder))
        study._split_units()
        return study

    def close(self) -> None:
        self.index.close()

    # -- units -------------------------------------------------------------------------------------------------

    def _split_units(self) -> None:
        """Sentences and table rows of every chunk; a unit that is not verbatim on its page (a fragment ending in
        a hyphen, a row the parser garbled) or repeats one already seen (chunk overlap) is left out."""
        self._page_keys = [page_key(t) for t in self.parsed.page_texts]
        order = 0
        in_references = False
        seen: set[tuple[int, str]] = set()
        for chunk in self.chunks:
            units: list[Unit] = []
            section = chunk.section_path[-1] if chunk.section_path else None
            in_references = in_references or bool(section and is_references_heading(section))
            for page, piece in _page_pieces(chunk):
                for group in _piece_units(piece, chunk):
                    kept: list[Unit] = []
                    for text, kind, context in group:
                        if kind == "text" and is_references_heading(text):
                            in_references = True
                        if not self._new_on_page(text, page, seen):
                            continue
                        kept.append(Unit(text, page, kind, section, context, order, in_references=in_references))
                        order += 1
                    units.extend(_flag_other_studies(kept))
            self.units_by_chunk[chunk.chunk_id] = units

    def _new_on_page(self, text: str, page: int, seen: set[tuple[int, str]]) -> bool:
        key = page_key(text)
        if not re.search(r"[^\W_]", text) or (page, key) in seen or key not in self._page_keys[page - 1]:
            return False
        seen.add((page, key))
        return True

    def all_units(self) -> list[Unit]:
        """Every quotable unit of the study in reading order."""
        return [u for c in self.chunks for u in self.units_by_chunk[c.chunk_id]]

    def retrieve_units(self, query: str, k: int) -> list[tuple[Unit, int]]:
        """Units of the ``k`` passages retrieved for ``query`` (with their neighbours), with the rank (0 = best)
        of the passage they come from; each unit once, at its best rank."""
        hits = HybridRetriever(self.index, self.embedder).retrieve(
            RetrievalQuery(query, k, doc_ids=(self.record.doc_id,)))
        seen: dict[int, tuple[Unit, int]] = {}
        for rank, hit in enumerate(hits):
            for chunk in (hit.chunk, *hit.context):
                for unit in self.units_by_chunk.get(chunk.chunk_id, []):
                    seen.setdefault(unit.order, (unit, rank))
        return sorted(seen.values(), key=lambda ur: (ur[1], ur[0].order))

    def similarity(self, query: str, units: Sequence[Unit]) -> np.ndarray:
        """Cosine similarity of each unit (with its context) to ``query``."""
        if not units:
            return np.zeros(0)
        vectors = self.embedder.embed([for_search(query), *(unit_text(u) for u in units)])
        similarity: np.ndarray = vectors[1:] @ vectors[0]
        return similarity

    def prime(self, queries: Sequence[str], units: Sequence[Unit] = ()) -> None:
        """Embed queries (as retrieval embeds them) and units in one batch; later calls read the cache."""
        self.embedder.embed([for_search(q) for q in queries] + [unit_text(u) for u in units])

    # -- quotes ------------------------------------------------------------------------------------------------

    def label(self, page: int) -> str:
        return self.record.label(page)

    def on_page(self, text: str, page: int) -> bool:
        """The grounding test: ``text`` occurs verbatim (after normalisation) on PDF page ``page``."""
        if not 1 <= page <= len(self._page_keys):
            return False
        key = page_key(text)
        return bool(key) and key in self._page_keys[page - 1]

    def quote(self, unit: Unit) -> Quote:
        return Quote(unit.text, unit.page, self.label(unit.page), unit.kind, unit.context)

    def find_page(self, text: str, near: int | None = None) -> int | None:
        """The PDF page holding ``text`` verbatim (``near`` first), or ``None``."""
        pages = range(1, len(self.parsed.page_texts) + 1)
        ordered = sorted(pages, key=lambda p: abs(p - near)) if near else list(pages)
        return next((p for p in ordered if self.on_page(text, p)), None)


def unit_text(unit: Unit) -> str:
    """What is embedded for a unit: its context (a table's caption) and its text."""
    return for_search(f"{unit.context} {unit.text}" if unit.context else unit.text)


class CachedEmbedder:
    """An embedder that embeds each distinct text once (the report asks for the same queries and units again).
    Many small calls cost far more than one batch on a CPU, so callers :meth:`Study.prime` the cache."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self._cache: dict[str, np.ndarray] = {}

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    def embed(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            self._cache.update(zip(missing, self._inner.embed(missing), strict=True))
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])


def page_key(text: str) -> str:
    """The page's :func:`~lcabot.ingest.normalize.match_key`, with the line breaks PyMuPDF writes inside table cells
    (``<br>``) read as the line breaks they are."""
    return match_key(text.replace("<br>", "\n"))


def _page_pieces(chunk: Chunk) -> list[tuple[int, str]]:
    bounds = [s.start for s in chunk.page_spans] + [len(chunk.text)]
    return [(span.page, chunk.text[start:end]) for span, start, end in
            zip(chunk.page_spans, bounds, bounds[1:], strict=False)]


def _piece_units(piece: str, chunk: Chunk) -> list[list[tuple[str, str, str]]]:
    """``(text, kind, context)`` of the sentences and table rows in one page's part of a chunk, grouped by
    paragraph (a table is one group)."""
    groups: list[list[tuple[str, str, str]]] = []
    blocks = piece.split("\n\n")
    text_blocks = [b for b in blocks if not b.lstrip().startswith("|") and b.strip() != "|"]
    caption = collapse(" ".join(text_blocks))[:300] if chunk.kind == "table" else ""
    for para in paragraphs(text_blocks):
        groups.append([(s, "text", "") for s in sentences(para)])
    rows: list[tuple[str, str, str]] = []
    for block in blocks:
        for line in block.splitlines():
            line = line.strip()
            if not line.startswith("|") or re.fullmatch(r"\|(?:\s*:?-{3,}:?\s*\|)+", line):
                continue
            if len(line) <= _LONG_ROW:
                rows.append((line, "table", caption))
            else:
                rows.extend((cell, "cell", caption) for cell in _cells(line))
    return [g for g in (*groups, rows) if g]


def _cells(line: str) -> list[str]:
    """Quotable pieces of a very long table row (merged cells can hold whole paragraphs): the sentences of each
    cell, and each line of a cell that holds one entry (``IPCC 2013, GWP 100a with carbon climate feedback``)."""
    out: list[str] = []
    for cell in line.strip("|").split("|"):
        lines = [ln.strip() for ln in cell.split("<br>") if ln.strip()]
        out.extend(s for para in paragraphs(lines) for s in sentences(para))
        out.extend(ln for ln in lines if not ln.endswith("-"))
    return [s for s in dict.fromkeys(out) if len(s) >= 12]


def _flag_other_studies(units: list[Unit]) -> list[Unit]:
    texts = [u.text for u in units]
    other, literature = mark_other_studies(texts), literature_paragraph(texts)
    return [Unit(u.text, u.page, u.kind, u.section, u.context, u.order, o and u.kind != "table", u.in_references, lit)
            for u, o, lit in zip(units, other, literature, strict=True)]
