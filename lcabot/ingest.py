"""Ingestion: PDF bytes → parse → chunk → embed → one atomic upsert into the index."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from lcabot import messages
from lcabot.chunking import chunk_document, embedding_text
from lcabot.config import PERSPECTIVES, Settings
from lcabot.errors import DocumentError, NotAPdfError, TooLargeError
from lcabot.models import DocumentRecord
from lcabot.pdf import parse_pdf
from lcabot.ports import Embedder, SearchIndex


@dataclass(frozen=True)
class IngestResult:
    """What happened to one file. ``status``: ``indexed``, ``replaced``, ``unchanged`` or ``failed``."""

    source: str
    status: str
    doc_id: str | None = None
    n_pages: int = 0
    n_chunks: int = 0
    pages_without_text: tuple[int, ...] = field(default=())
    reason: str | None = None  # DocumentError.reason when failed
    message: str = ""


def content_hash(data: bytes) -> str:
    """The document id: first 16 hex digits of SHA-256 of the file's bytes."""
    return hashlib.sha256(data).hexdigest()[:16]


def ingest_bytes(
    data: bytes,
    *,
    source: str,
    source_key: str,
    perspective: str,
    index: SearchIndex,
    embedder: Embedder,
    settings: Settings,
) -> IngestResult:
    """Ingest one PDF. Never raises for a bad document: the failure is returned and the index is untouched.

    Args:
        data: the PDF's bytes.
        source: the file name shown in citations.
        source_key: stable origin (absolute path, S3 object key); a new version under the same key replaces the old.
        perspective: one of :data:`lcabot.config.PERSPECTIVES`.

    Raises:
        ValueError: unknown ``perspective`` (a caller error, not a document error).
    """
    if perspective not in PERSPECTIVES:
        raise ValueError(f"perspective must be one of {', '.join(PERSPECTIVES)}, got {perspective!r}")
    doc_id = content_hash(data)
    previous = {d.source_key: d for d in index.documents()}
    known = previous.get(source_key)
    if known is not None and known.doc_id == doc_id and known.perspective == perspective:
        return IngestResult(source, "unchanged", doc_id, known.n_pages, known.n_chunks, known.pages_without_text,
                            message=messages.unchanged(source))
    same_content = index.document(doc_id)
    if same_content is not None and same_content.source_key != source_key:
        return IngestResult(source, "unchanged", doc_id, same_content.n_pages, same_content.n_chunks,
                            same_content.pages_without_text, message=messages.duplicate(source, same_content.source))
    try:
        if len(data) > settings.max_pdf_mb * 1024 * 1024:
            raise TooLargeError(source, f"{len(data) / 1048576:.1f} MB is above the limit of {settings.max_pdf_mb} MB")
        parsed = parse_pdf(data, source, max_pages=settings.max_pages)
    except DocumentError as err:
        return IngestResult(source, "failed", reason=err.reason, message=str(err))
    chunks = chunk_document(parsed, doc_id, source)
    vectors = embedder.embed([embedding_text(c) for c in chunks])
    record = DocumentRecord(
        doc_id=doc_id, source=source, source_key=source_key, title=parsed.title, perspective=perspective,
        n_pages=len(parsed.page_texts), n_chunks=len(chunks), pages_without_text=tuple(parsed.pages_without_text),
        page_labels=tuple(parsed.page_labels),
    )
    index.upsert_document(record, chunks, vectors, parsed.page_texts)
    status = "replaced" if known is not None else "indexed"
    return IngestResult(source, status, doc_id, record.n_pages, record.n_chunks, record.pages_without_text,
                        message=messages.ingested(record, status))


def ingest_path(path: Path, *, perspective: str, index: SearchIndex, embedder: Embedder,
                settings: Settings) -> IngestResult:
    """Ingest a local file (see :func:`ingest_bytes`); unreadable files are returned as failed."""
    try:
        data = path.read_bytes()
    except OSError as err:
        return IngestResult(path.name, "failed", reason="unreadable", message=f"{path}: cannot be read ({err.strerror})")
    if path.suffix.lower() != ".pdf" and not data.startswith(b"%PDF"):
        err = NotAPdfError(path.name, "this is not a PDF file")
        return IngestResult(path.name, "failed", reason=err.reason, message=str(err))
    return ingest_bytes(data, source=path.name, source_key=str(path.resolve()), perspective=perspective,
                        index=index, embedder=embedder, settings=settings)


def discover_pdfs(paths: list[Path]) -> list[Path]:
    """Expand directories into the PDFs they hold (recursively, sorted); files are kept as given."""
    found: list[Path] = []
    for p in paths:
        if p.is_dir():
            found.extend(sorted(q for q in p.rglob("*") if q.is_file() and q.suffix.lower() == ".pdf"))
        else:
            found.append(p)
    return found
