"""The library, the one ingest use case: a PDF → parse → chunks → embeddings → the index → its graph fragment → the
merged graph (→ its status, for a bucket).

:meth:`Library.apply` is what the ingest Lambda runs for each S3 notification (delivered through SQS), and what
``lcabot dev`` runs locally; :meth:`Library.add_files` is ``lcabot ingest`` on local files. Ports only: the object
stores, index, embedder and status store are passed in.

Event rules (DESIGN.md §4):

* object keys arrive URL-encoded (``+`` for spaces, ``%2F`` even for ``/``) and are decoded;
* ``s3:TestEvent`` messages and keys outside ``library/`` (or not ending in ``.pdf``) are skipped;
* the perspective is the first folder under ``library/`` (``library/academic/…`` → ``academic``); a key directly
  under ``library/`` or in another folder is ``general``;
* a created event whose ETag no longer matches the object (a newer version was uploaded since) is skipped, since
  the newer version's own event indexes it; a removed event for a key that exists again is skipped too, so events
  delivered out of order never undo a newer state.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from lcabot import graph, messages
from lcabot.config import PERSPECTIVES, Settings
from lcabot.errors import LcabotError, ObjectNotFoundError, TooLargeError
from lcabot.graph import ontology
from lcabot.graph.build import rebuild, write_fragment
from lcabot.graph.extract import GraphExtractor, OfflineExtractor
from lcabot.ingest.chunking import chunk_document
from lcabot.ingest.pdf import ParsedDocument
from lcabot.ingest.pipeline import IngestResult, ingest_bytes, ingest_paths, parse_document
from lcabot.models import Chunk, DocumentRecord, DocumentStatus
from lcabot.ports import Embedder, ObjectStore, SearchIndex, StatusStore

LIBRARY_PREFIX = "library/"


class MalformedEventError(LcabotError):
    """A queue message is neither an S3 event notification nor an ``s3:TestEvent``."""


@dataclass(frozen=True)
class ObjectChange:
    """One S3 event record, decoded.

    Attributes:
        action: ``created`` (any ``ObjectCreated:*``) or ``removed`` (any ``ObjectRemoved:*``).
        key: the decoded object key.
        etag: the new version's ETag without quotes (``None`` for removals).
        size: object size in bytes (0 for removals).
        sequencer: S3's per-key event order (hex string), kept for idempotency keys.
    """

    action: str
    bucket: str
    key: str
    etag: str | None = None
    size: int = 0
    sequencer: str = ""

    @property
    def idempotency_key(self) -> str:
        """Same for a duplicate delivery of one event; different for a re-upload or a later removal."""
        return f"{self.action}|{self.bucket}|{self.key}|{self.etag or ''}|{self.sequencer}"


def parse_s3_notification(body: str) -> list[ObjectChange]:
    """The object changes in one SQS message body (an S3 event notification).

    Returns:
        ``[]`` for an ``s3:TestEvent`` (sent when a notification is configured) and for records of other event
        types; otherwise one change per record, in order.

    Raises:
        MalformedEventError: the body is not JSON or a record lacks the bucket or object key.
    """
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, TypeError) as err:
        raise MalformedEventError(f"not an S3 event notification: body is not JSON ({err})") from None
    if not isinstance(data, dict):
        raise MalformedEventError("not an S3 event notification: body is not a JSON object")
    if data.get("Event") == "s3:TestEvent":
        return []
    records = data.get("Records")
    if not isinstance(records, list):
        raise MalformedEventError("not an S3 event notification: no Records list")
    changes = []
    for record in records:
        name = str(record.get("eventName", "")) if isinstance(record, dict) else ""
        action = "created" if name.startswith("ObjectCreated:") else "removed" if name.startswith(
            "ObjectRemoved:") else None
        if action is None:
            continue
        try:
            s3 = record["s3"]
            obj = s3["object"]
            changes.append(ObjectChange(
                action=action, bucket=str(s3["bucket"]["name"]), key=unquote_plus(str(obj["key"])),
                etag=str(obj["eTag"]).strip('"') if action == "created" and obj.get("eTag") else None,
                size=int(obj.get("size") or 0), sequencer=str(obj.get("sequencer", "")),
            ))
        except (KeyError, TypeError, ValueError) as err:
            raise MalformedEventError(f"S3 event record without bucket or object key ({err!r})") from None
    return changes


def perspective_of(key: str) -> str:
    """``library/<perspective>/…`` → that perspective if it is one of :data:`lcabot.config.PERSPECTIVES`,
    else ``general``."""
    parts = key[len(LIBRARY_PREFIX):].split("/")
    return parts[0] if len(parts) > 1 and parts[0] in PERSPECTIVES else "general"


def in_library(key: str) -> bool:
    """Only ``library/….pdf`` keys are library documents (the bucket notification filters the same way)."""
    return key.startswith(LIBRARY_PREFIX) and key.lower().endswith(".pdf")


class Library:
    """Applies object changes (or local files) to the index, the graph fragments and the status store.

    Args:
        documents: the library bucket (the PDFs); ``None`` for a library of local files.
        artifacts: graph fragments under ``graph/fragments/`` and the merged graph
            (:data:`lcabot.graph.build.MERGED_KEY`), rebuilt after every change to a fragment.
        status: the document statuses of a bucket's library; ``None`` for local files.
        extractor: concept and relation extraction for fragments (default: the offline alias-map extractor).
    """

    def __init__(self, documents: ObjectStore | None, artifacts: ObjectStore, index: SearchIndex, embedder: Embedder,
                 status: StatusStore | None, settings: Settings, extractor: GraphExtractor | None = None) -> None:
        self.documents = documents
        self.artifacts = artifacts
        self.index = index
        self.embedder = embedder
        self.status = status
        self.settings = settings
        self.ontology = ontology.load()
        self.extractor = extractor or OfflineExtractor(self.ontology)

    def add_files(self, paths: Sequence[Path], perspective: str,
                  progress: Callable[[str], object] = print) -> Iterator[IngestResult]:
        """Ingest local files (``lcabot ingest``), one result per file in order: each parsed (in a worker process
        while the one before is embedded), indexed and given its graph fragment; then the fragments of documents no
        longer indexed (or missing theirs) are brought in step and the merged graph rebuilt once
        (:func:`lcabot.graph.sync.sync_fragments`, which reports through ``progress``).

        Raises:
            lcabot.errors.IndexWriteError: the index refused a write (the files before it stay indexed).
            ValueError: unknown ``perspective``.
        """
        from lcabot.graph.sync import sync_fragments

        for result in ingest_paths(paths, perspective=perspective, index=self.index, embedder=self.embedder,
                                   settings=self.settings):
            if result.record is not None:
                write_fragment(self.artifacts, result.record, result.chunks, self.extractor, self.ontology)
            yield result
        sync_fragments(self.index, self.artifacts, self.extractor, self.embedder, max_pdf_mb=self.settings.max_pdf_mb,
                       max_pages=self.settings.max_pages, progress=progress)

    def apply(self, change: ObjectChange, max_pages: int | None = None) -> DocumentStatus | None:
        """Apply one change; returns the status recorded, or ``None`` for a key outside the library.

        A document that cannot be ingested (corrupt, encrypted, no text, too large) is recorded as ``failed``
        with its reason; it is not an error of this call. ``max_pages`` lowers the page limit for this change
        (what the caller's remaining time can index); a longer document is ``failed`` as ``too_large``.

        Raises:
            lcabot.errors.IndexWriteError: the index refused the write (transient: the caller retries; the index
                keeps the previous version).
        """
        if not in_library(change.key):
            return None
        status = self._created(change, max_pages) if change.action == "created" else self._removed(change)
        if status.reason == "superseded" and self._statuses().get(change.key) is not None:
            return status  # a late event of an older version: the newer version's status stands
        self._statuses().put(status)
        return status

    def _bucket(self) -> ObjectStore:
        if self.documents is None:
            raise TypeError("a library of local files has no bucket (Library.add_files adds files)")
        return self.documents

    def _statuses(self) -> StatusStore:
        if self.status is None:
            raise TypeError("a library of local files has no status store (Library.add_files adds files)")
        return self.status

    def _created(self, change: ObjectChange, max_pages: int | None = None) -> DocumentStatus:
        key, source = change.key, posixpath.basename(change.key)
        info = self._bucket().head(key)
        if info is None:
            return _status(key, "skipped", messages.object_gone(key), reason="gone", etag=change.etag)
        if change.etag and info.etag != change.etag:
            return _status(key, "skipped", messages.object_superseded(key), reason="superseded", etag=change.etag)
        perspective = perspective_of(key)
        if info.size > self.settings.max_pdf_mb * 1024 * 1024:
            err = TooLargeError(source, messages.over_size_limit(info.size, self.settings.max_pdf_mb))
            return _status(key, "failed", str(err), reason=err.reason, perspective=perspective, etag=info.etag)
        try:
            data = self._bucket().get(key)
        except ObjectNotFoundError:
            return _status(key, "skipped", messages.object_gone(key), reason="gone", etag=change.etag)
        settings = self.settings if max_pages is None or max_pages >= self.settings.max_pages else \
            replace(self.settings, max_pages=max_pages)
        result = ingest_bytes(data, source=source, source_key=key, perspective=perspective, index=self.index,
                              embedder=self.embedder, settings=settings)
        if result.record is not None:
            self._write_fragment(result.record, result.chunks)
            # the object may have changed while it was read and indexed (a run takes minutes, and SQS keeps no
            # order): the library follows what the bucket holds now, whichever event's run finishes last
            now = self._bucket().head(key)
            if now is None:
                return self._removed(ObjectChange("removed", change.bucket, key))
            if now.etag != info.etag:
                return self._created(ObjectChange("created", change.bucket, key, now.etag), max_pages)
        elif result.status == "unchanged":
            self._repair_fragment(key, data)
        title = result.record.title if result.record else None
        return _status(key, result.status, result.message, reason=result.reason, doc_id=result.doc_id, title=title,
                       perspective=perspective, n_pages=result.n_pages, n_chunks=result.n_chunks,
                       pages_without_text=result.pages_without_text, etag=info.etag)

    def _repair_fragment(self, key: str, data: bytes) -> None:
        """After a crash between the index write and the fragment write, the retry finds the document unchanged;
        the fragment is rebuilt if it is missing or describes another version."""
        record = self.index.document_by_key(key)
        if record is None:  # same content already indexed under another key: no fragment of its own
            return
        try:
            current = json.loads(self.artifacts.get(graph.fragment_key(key)))
            if current.get("doc_id") == record.doc_id:
                return
        except (ObjectNotFoundError, json.JSONDecodeError):
            pass
        parsed = parse_document(data, record.source, self.settings.max_pdf_mb, self.settings.max_pages)
        if isinstance(parsed, ParsedDocument):
            self._write_fragment(record, chunk_document(parsed, record.doc_id, record.source))

    def _write_fragment(self, record: DocumentRecord, chunks: Sequence[Chunk]) -> None:
        """Extract the document's graph contribution, store it, and rebuild the merged graph."""
        write_fragment(self.artifacts, record, chunks, self.extractor, self.ontology)
        rebuild(self.artifacts, self.ontology, self.embedder)

    def _removed(self, change: ObjectChange) -> DocumentStatus:
        key, source = change.key, posixpath.basename(change.key)
        if self._bucket().head(key) is not None:
            return _status(key, "skipped", messages.object_restored(key), reason="restored")
        record = self.index.document_by_key(key)
        if self.artifacts.head(graph.fragment_key(key)) is not None:
            self.artifacts.delete(graph.fragment_key(key))
            rebuild(self.artifacts, self.ontology, self.embedder)
        if record is None:
            return _status(key, "removed", messages.not_indexed(source))
        self.index.delete_document(record.doc_id)
        self._rehome(record.doc_id, change.bucket, key)
        return _status(key, "removed", messages.removed(source, record.n_chunks), doc_id=record.doc_id,
                       title=record.title, perspective=record.perspective)

    def _rehome(self, doc_id: str, bucket: str, removed_key: str) -> None:
        """Other keys holding the same bytes were recorded as duplicates of the removed one; index them now, so
        deleting one copy never takes the content out of the library."""
        for other in self._statuses().with_doc_id(doc_id):
            if other.source_key != removed_key and other.status == "unchanged" and in_library(other.source_key):
                self._statuses().put(self._created(ObjectChange("created", bucket, other.source_key)))


def _status(key: str, status: str, message: str, **fields: Any) -> DocumentStatus:
    return DocumentStatus(source_key=key, status=status, message=message, **fields)
