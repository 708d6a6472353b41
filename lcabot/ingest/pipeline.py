"""Ingestion: PDF bytes → parse → chunk → embed → one atomic upsert into the index."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from lcabot import messages
from lcabot.config import PERSPECTIVES, Settings
from lcabot.errors import DocumentError, NotAPdfError, TooLargeError
from lcabot.ingest.chunking import chunk_document, embedding_text
from lcabot.ingest.pdf import ParsedDocument, parse_pdf
from lcabot.models import Chunk, DocumentRecord
from lcabot.ports import Embedder, SearchIndex

LOOKAHEAD = 2  # documents parsed ahead of the one being embedded
PARENT_CHECK_S = 0.5  # how often a parse worker checks that its parent still runs


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
    record: DocumentRecord | None = field(default=None, repr=False, compare=False)  # when indexed or replaced
    chunks: tuple[Chunk, ...] = field(default=(), repr=False, compare=False)  # when indexed or replaced


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

    Raises:
        lcabot.errors.IndexWriteError: the index refused the write (it keeps the previous version).

    Args:
        data: the PDF's bytes.
        source: the file name shown in citations.
        source_key: stable origin (absolute path, S3 object key); a new version under the same key replaces the old.
        perspective: one of :data:`lcabot.config.PERSPECTIVES`.

    Raises:
        ValueError: unknown ``perspective`` (a caller error, not a document error).
    """
    skipped = _already_indexed(data, source, source_key, perspective, index)
    if skipped is not None:
        return skipped
    parsed = parse_document(data, source, settings.max_pdf_mb, settings.max_pages)
    return _index_parsed(parsed, content_hash(data), source, source_key, perspective, index, embedder)


def parse_document(data: bytes, source: str, max_pdf_mb: float, max_pages: int) -> ParsedDocument | DocumentError:
    """Parse step of ingestion (no index, no model): the parsed document, or the error explaining why not."""
    try:
        if len(data) > max_pdf_mb * 1024 * 1024:
            raise TooLargeError(source, messages.over_size_limit(len(data), max_pdf_mb))
        return parse_pdf(data, source, max_pages=max_pages)
    except DocumentError as err:
        return err


def _already_indexed(data: bytes, source: str, source_key: str, perspective: str,
                     index: SearchIndex) -> IngestResult | None:
    if perspective not in PERSPECTIVES:
        raise ValueError(f"perspective must be one of {', '.join(PERSPECTIVES)}, got {perspective!r}")
    doc_id = content_hash(data)
    known = index.document_by_key(source_key)
    if known is not None and known.doc_id == doc_id and known.perspective == perspective:
        return IngestResult(source, "unchanged", doc_id, known.n_pages, known.n_chunks, known.pages_without_text,
                            message=messages.unchanged(source))
    same_content = index.document(doc_id)
    if same_content is not None and same_content.source_key != source_key:
        return IngestResult(source, "unchanged", doc_id, same_content.n_pages, same_content.n_chunks,
                            same_content.pages_without_text, message=messages.duplicate(source, same_content.source))
    return None


def _index_parsed(parsed: ParsedDocument | DocumentError, doc_id: str, source: str, source_key: str,
                  perspective: str, index: SearchIndex, embedder: Embedder) -> IngestResult:
    if isinstance(parsed, DocumentError):
        return IngestResult(source, "failed", reason=parsed.reason, message=str(parsed))
    replacing = index.document_by_key(source_key) is not None
    chunks = chunk_document(parsed, doc_id, source)
    vectors = embedder.embed([embedding_text(c) for c in chunks])
    record = DocumentRecord(
        doc_id=doc_id, source=source, source_key=source_key, title=parsed.title, perspective=perspective,
        n_pages=len(parsed.page_texts), n_chunks=len(chunks), pages_without_text=tuple(parsed.pages_without_text),
        page_labels=tuple(parsed.page_labels),
    )
    index.upsert_document(record, chunks, vectors, parsed.page_texts)  # IndexWriteError: the caller's to handle
    status = "replaced" if replacing else "indexed"
    return IngestResult(source, status, doc_id, record.n_pages, record.n_chunks, record.pages_without_text,
                        message=messages.ingested(record, status), record=record, chunks=tuple(chunks))


def ingest_paths(paths: Sequence[Path], *, perspective: str, index: SearchIndex, embedder: Embedder,
                 settings: Settings) -> Iterator[IngestResult]:
    """Ingest local files in order, yielding one result per file. While one document is embedded, the next ones
    (at most :data:`LOOKAHEAD`) are parsed in a worker process, so parsing (PyMuPDF) and embedding (torch) overlap.
    """
    context = multiprocessing.get_context("spawn")  # never fork a process that has torch threads running
    with ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_end_with_parent,
                             initargs=(os.getpid(),)) as pool:
        queue: deque[tuple[Path, bytes, Future[ParsedDocument | DocumentError] | Future[IngestResult]]] = deque()
        todo = iter(paths)
        while True:
            while len(queue) < LOOKAHEAD and (path := next(todo, None)) is not None:
                data, early = _read(path, perspective, index)
                if early is not None and not queue:
                    yield early
                    continue
                if early is None:
                    args = (data, path.name, settings.max_pdf_mb, settings.max_pages)
                    queue.append((path, data, pool.submit(parse_document, *args)))
                else:
                    queue.append((path, data, _done(early)))
            if not queue:
                return
            path, data, future = queue.popleft()
            outcome = future.result()
            if isinstance(outcome, IngestResult):
                yield outcome
                continue
            key = str(path.resolve())
            known = _already_indexed(data, path.name, key, perspective, index)  # a duplicate earlier in this batch
            yield known or _index_parsed(outcome, content_hash(data), path.name, key, perspective, index, embedder)


def _end_with_parent(parent: int) -> None:
    """In a parse worker: exit as soon as the process that started it is gone (killed ``lcabot ingest``), rather
    than finish parsing for no one (300+ MB for minutes)."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _done(result: IngestResult) -> Future[IngestResult]:
    future: Future[IngestResult] = Future()
    future.set_result(result)
    return future


def _read(path: Path, perspective: str, index: SearchIndex) -> tuple[bytes, IngestResult | None]:
    try:
        data = path.read_bytes()
    except OSError as err:
        message = f"{path}: cannot be read ({err.strerror})"
        return b"", IngestResult(path.name, "failed", reason="unreadable", message=message)
    if path.suffix.lower() != ".pdf" and not data.startswith(b"%PDF"):
        refused = NotAPdfError(path.name, "this is not a PDF file")
        return data, IngestResult(path.name, "failed", reason=refused.reason, message=str(refused))
    return data, _already_indexed(data, path.name, str(path.resolve()), perspective, index)


def ingest_path(path: Path, *, perspective: str, index: SearchIndex, embedder: Embedder,
                settings: Settings) -> IngestResult:
    """Ingest a local file (see :func:`ingest_bytes`); unreadable files are returned as failed."""
    data, early = _read(path, perspective, index)
    if early is not None:
        return early
    parsed = parse_document(data, path.name, settings.max_pdf_mb, settings.max_pages)
    return _index_parsed(parsed, content_hash(data), path.name, str(path.resolve()), perspective, index, embedder)


def discover_pdfs(paths: list[Path]) -> list[Path]:
    """Expand directories into the PDFs they hold (recursively, sorted); files are kept as given."""
    found: list[Path] = []
    for p in paths:
        if p.is_dir():
            found.extend(sorted(q for q in p.rglob("*") if q.is_file() and q.suffix.lower() == ".pdf"))
        else:
            found.append(p)
    return found
