"""The ports of the core as ``typing.Protocol``s. Adapters do not inherit from them; contract tests check them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from lcabot.models import Answer, Chunk, Claim, DocumentRecord, DocumentStatus, Evidence, Turn

if TYPE_CHECKING:
    from lcabot.jobs import AnswerJob, ConversationRef, FileRef


class Embedder(Protocol):
    """Text → unit-length float32 vectors of shape ``(n, dimension)``."""

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray: ...


class SearchIndex(Protocol):
    """Chunks with BM25 and kNN search, filters by document and perspective, delete by document.

    ``upsert_document`` replaces, in one transaction, every chunk of an earlier version of the same
    ``source_key`` (or the same ``doc_id``); a failure leaves the index as it was.
    """

    def upsert_document(
        self, record: DocumentRecord, chunks: Sequence[Chunk], vectors: np.ndarray, page_texts: Sequence[str]
    ) -> None: ...

    def delete_document(self, doc_id: str) -> bool: ...

    def documents(self) -> list[DocumentRecord]: ...

    def document(self, doc_id: str) -> DocumentRecord | None: ...

    def bm25(
        self, query: str, n: int, *, doc_ids: Sequence[str] | None = None, perspective: str | None = None
    ) -> list[tuple[str, float]]: ...

    def knn(
        self, vector: np.ndarray, n: int, *, doc_ids: Sequence[str] | None = None, perspective: str | None = None
    ) -> list[tuple[str, float]]: ...

    def chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]: ...

    def vectors(self, chunk_ids: Sequence[str]) -> np.ndarray: ...

    def neighbours(self, chunk: Chunk) -> list[Chunk]: ...

    def page_text(self, doc_id: str, page: int) -> str | None: ...

    def term_document_frequency(self, terms: Sequence[str]) -> tuple[dict[str, int], int]: ...

    def contains_text(self, text: str) -> bool: ...


class Generator(Protocol):
    """Writes an answer from an evidence ledger as claims, each bound to the evidence ids that support it.

    Raises:
        lcabot.errors.GenerationError: the model failed or timed out.
        lcabot.errors.IncompleteGenerationError: the model stopped before finishing.
    """

    name: str

    def generate(
        self, question: str, evidence: Sequence[Evidence], history: Sequence[Turn]
    ) -> list[Claim]: ...


@dataclass(frozen=True)
class ObjectInfo:
    """An object's metadata: ``size`` in bytes, its ``etag`` (S3's, without quotes; a content hash locally) and its
    user-defined ``metadata`` (S3 ``x-amz-meta-*``, names lower-case; empty locally)."""

    key: str
    size: int
    etag: str
    metadata: Mapping[str, str] = field(default_factory=dict)


class ObjectStore(Protocol):
    """Bytes under string keys (an S3 bucket, or a local folder). Keys use ``/`` as separator.

    ``get`` raises :class:`lcabot.errors.ObjectNotFoundError` for a missing key; ``head`` returns ``None``;
    ``delete`` of a missing key is not an error (as in S3).
    """

    def get(self, key: str) -> bytes: ...

    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None: ...

    def delete(self, key: str) -> None: ...

    def head(self, key: str) -> ObjectInfo | None: ...

    def keys(self, prefix: str = "") -> list[str]: ...


class StatusStore(Protocol):
    """The last known status of every library document, keyed by S3 object key (``DocumentStatus``)."""

    def put(self, status: DocumentStatus) -> None: ...

    def get(self, source_key: str) -> DocumentStatus | None: ...

    def with_doc_id(self, doc_id: str) -> list[DocumentStatus]: ...


class PlatformClient(Protocol):
    """Delivers to a chat platform (Slack, Teams, or the local outbox). Rendering is the client's job.

    ``post_answer`` and ``post_files`` replace the conversation's progress message (``status_message``) when there
    is one; ``post_progress`` updates it in place. ``history`` gives the earlier turns of the job's thread, oldest
    first (Slack reads the thread; elsewhere the turns the job carries). ``download`` fetches a shared file's bytes
    and raises :class:`lcabot.errors.TooLargeError` above ``limit_bytes`` (before downloading when the size is
    known) and :class:`lcabot.errors.DocumentError` when what arrives is not the file (e.g. a login page).
    """

    def post_answer(self, job: AnswerJob, answer: Answer) -> None: ...

    def post_notice(self, conversation: ConversationRef, text: str) -> None: ...

    def post_progress(self, conversation: ConversationRef, text: str) -> None: ...

    def post_files(self, conversation: ConversationRef, files: Sequence[Path], comment: str) -> None: ...

    def history(self, job: AnswerJob) -> tuple[Turn, ...]: ...

    def download(self, file: FileRef, limit_bytes: int) -> bytes: ...
