"""Data contracts shared by ingestion, the index, retrieval and answering (DESIGN.md §5)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime


@dataclass(frozen=True)
class PageSpan:
    """Where a stretch of chunk text comes from: ``start`` is a character offset into ``Chunk.text``."""

    start: int
    page: int  # 1-based PDF page index


@dataclass(frozen=True)
class Chunk:
    """A retrievable passage.

    ``chunk_id`` hashes the document content hash and the chunk's position and text, so re-ingesting the same
    file yields the same ids. ``text`` is faithful display text (quoting); ``search_text`` is its normalised form.
    ``page_spans`` maps character offsets of ``text`` to the PDF pages that hold them, so a quote can be cited to
    the page that actually holds it rather than the page where the chunk starts.
    """

    chunk_id: str
    doc_id: str
    ordinal: int
    section_path: tuple[str, ...]
    page_start: int
    page_end: int
    page_label_start: str
    page_label_end: str
    kind: str  # "text" | "table"
    text: str
    search_text: str
    page_spans: tuple[PageSpan, ...]

    def page_at(self, offset: int) -> int:
        """The 1-based PDF page holding character ``offset`` of ``text``."""
        page = self.page_spans[0].page
        for span in self.page_spans:
            if span.start > offset:
                break
            page = span.page
        return page


def same_section(neighbour: Chunk, chunk: Chunk) -> bool:
    """``neighbour`` (the chunk before or after ``chunk`` in its document) is in ``chunk``'s section, or is the
    chunk after it opening a subsection of it."""
    if neighbour.section_path == chunk.section_path:
        return True
    return neighbour.ordinal == chunk.ordinal + 1 and neighbour.section_path[:len(chunk.section_path)] == \
        chunk.section_path


@dataclass(frozen=True)
class DocumentRecord:
    """An indexed document. ``doc_id`` is the SHA-256 (first 16 hex digits) of the file's bytes."""

    doc_id: str
    source: str  # file name shown in citations
    source_key: str  # where it came from (absolute path or S3 object key); a new version replaces the old
    title: str
    perspective: str
    n_pages: int
    n_chunks: int
    pages_without_text: tuple[int, ...]
    page_labels: tuple[str, ...] = field(default=(), repr=False)

    def label(self, page: int) -> str:
        if 1 <= page <= len(self.page_labels) and self.page_labels[page - 1]:
            return self.page_labels[page - 1]
        return str(page)


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk with its fused score and the neighbouring chunks added as context."""

    chunk: Chunk
    score: float
    context: tuple[Chunk, ...] = ()


@dataclass(frozen=True)
class Evidence:
    """A quotable span: one sentence (or table row) on one page. ``evidence_id`` is stable across runs."""

    evidence_id: str
    doc_id: str
    source: str
    title: str
    section: str | None
    page: int
    page_label: str
    text: str
    chunk_id: str
    context: str = ""  # for table rows: caption and row-group label, used to rank the row, never shown as a quote
    last_page: int = 0  # the PDF page holding the end of the span when it continues across a page break
    reading: str = ""  # a table row written out with its column headers and units (shown instead of the raw row)
    refuted: bool = False  # one of the statements the document calls wrong (a misconception)
    other_work: bool = False  # goes on reporting the work cited in the sentence before it
    place: tuple[int, int] = (0, 0)  # (chunk ordinal, character offset): where the span is read in its document

    @property
    def pages(self) -> tuple[int, ...]:
        """The PDF pages the span is printed on (one, or two for a sentence continued across a page break)."""
        return (self.page,) if self.last_page <= self.page else (self.page, self.last_page)


@dataclass(frozen=True)
class Citation:
    number: int
    evidence_id: str
    source: str
    title: str
    section: str | None
    page: int
    page_label: str
    quote: str

    def to_json(self) -> dict[str, object]:
        return {
            "source": self.source,
            "title": self.title,
            "section": self.section,
            "page": self.page,
            "page_label": self.page_label,
            "quote": self.quote,
        }


@dataclass(frozen=True)
class GraphFact:
    """A knowledge-graph edge used in an answer: ``subject`` —``relation``→ ``object`` (ontology names, e.g.
    ``Circular Footprint Formula`` —``defined_in``→ ``PEFCR guidance``), with the numbers of the answer's
    citations that ground it."""

    subject: str
    relation: str
    object: str
    citations: tuple[int, ...] = ()


@dataclass(frozen=True)
class Claim:
    """A statement of the answer bound to the evidence that supports it."""

    text: str
    evidence_ids: tuple[str, ...]
    quote: str | None = None


@dataclass(frozen=True)
class Turn:
    """One earlier exchange of a conversation (for follow-up questions)."""

    question: str
    answer: str


@dataclass(frozen=True)
class Answer:
    text: str
    abstained: bool
    citations: tuple[Citation, ...]
    claims: tuple[Claim, ...]
    retrieval_mode: str
    searched: str
    ledger_hash: str
    generator: str
    abstain_reason: str | None = None
    notes: tuple[str, ...] = ()
    facts: tuple[GraphFact, ...] = ()  # the knowledge-graph facts used (``rag+graph`` only)
    gate_failures: tuple[str, ...] = ()  # context gates failed by generated statements that were dropped

    def to_json(self) -> dict[str, object]:
        """The ``lcabot ask --json`` object."""
        return {
            "answer": self.text,
            "abstained": self.abstained,
            "citations": [c.to_json() for c in self.citations],
            "facts": [{"subject": f.subject, "relation": f.relation, "object": f.object, "citations": list(f.citations)}
                      for f in self.facts],
            "retrieval_mode": self.retrieval_mode,
        }


@dataclass(frozen=True)
class DocumentStatus:
    """The outcome of the last library event for one object key (stored in the status table).

    Attributes:
        source_key: the S3 object key (decoded), e.g. ``library/academic/coal gasification.pdf``.
        status: ``indexing`` (the ingest Lambda is at work), ``indexed``, ``replaced``, ``unchanged``, ``failed``,
            ``removed`` or ``skipped``.
        reason: for ``failed``/``skipped``, a machine-readable code (``encrypted``, ``corrupt``, ``no_text``,
            ``too_large`` (also: too many pages for one run of the ingest Lambda), ``not_a_pdf``, ``superseded``,
            ``gone``, ``index_error``, ``error`` (anything unexpected)); otherwise ``None``.
        message: the sentence shown to people.
        pages_without_text: 1-based PDF pages with no text layer.
        etag: the S3 ETag (no quotes) of the version this status describes.
        updated_at: ISO 8601 UTC time of the event's processing.
    """

    source_key: str
    status: str
    message: str
    doc_id: str | None = None
    title: str | None = None
    perspective: str | None = None
    n_pages: int = 0
    n_chunks: int = 0
    pages_without_text: tuple[int, ...] = ()
    reason: str | None = None
    etag: str | None = None
    updated_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
