"""The ports of the core as ``typing.Protocol``s. Adapters do not inherit from them; contract tests check them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

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

    def document_by_key(self, source_key: str) -> DocumentRecord | None: ...

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

    What every implementation promises (``tests/contract/object_store_contract.py``):

    - ``get`` returns exactly the bytes last ``put`` (binary, empty); it raises
      :class:`lcabot.errors.ObjectNotFoundError` for a missing key, where ``head`` returns ``None``; ``delete`` of a
      missing key is not an error (as in S3).
    - ``head`` gives the object's size and, for an object written by ``put``, the MD5 hex digest of its bytes as
      ``etag`` (what S3 gives for a single-part upload): the same bytes give the same ``etag``, other bytes another.
      ``metadata`` is empty for an object written through this port (S3's ``put`` also takes user metadata).
    - ``keys(prefix)`` lists every key that starts with ``prefix`` (a plain string prefix, not a folder), sorted.
    - Keys may hold spaces, any Unicode and several ``/``; they round-trip unchanged. Keys should be relative paths:
      the local store refuses an empty key, a leading ``/``, an empty, ``.`` or ``..`` segment (``ValueError``), and
      a key that is also the "folder" of another key (``library`` beside ``library/a.pdf``) cannot be stored there.
    """

    def get(self, key: str) -> bytes: ...

    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None: ...

    def delete(self, key: str) -> None: ...

    def head(self, key: str) -> ObjectInfo | None: ...

    def keys(self, prefix: str = "") -> list[str]: ...


class StatusStore(Protocol):
    """The last known status of every library document, keyed by S3 object key (``DocumentStatus``).

    ``put`` replaces the key's status; ``get`` returns it as written (``None`` for a key never written);
    ``with_doc_id`` lists every key whose status names the document, sorted by key. ``put_if_unchanged`` writes
    only while the key's status is still ``since`` (same status, message, ETag (``None`` included) and
    ``updated_at``) and says whether it wrote: a status written meanwhile is never overwritten.
    """

    def put(self, status: DocumentStatus) -> None: ...

    def put_if_unchanged(self, status: DocumentStatus, since: DocumentStatus) -> bool: ...

    def get(self, source_key: str) -> DocumentStatus | None: ...

    def with_doc_id(self, doc_id: str) -> list[DocumentStatus]: ...


class EventClaim(Protocol):
    """A request's claim on a chat event (``lcabot.adapters.conversations.Claim``): ``outcome`` is ``claimed``,
    ``duplicate``, ``rate limited`` or ``not in a bot thread``."""

    @property
    def platform(self) -> str: ...

    @property
    def dedupe_key(self) -> str: ...

    @property
    def token(self) -> str: ...

    @property
    def outcome(self) -> str: ...

    @property
    def claimed(self) -> bool: ...


class ConversationStore(Protocol):
    """What the chat handlers and the workers remember between requests
    (``lcabot.adapters.conversations.ConversationState``, a DynamoDB table): event claims, bot threads, rate limits,
    channel settings, feedback and turns.

    - ``claim`` takes a chat event for one request (a fresh token, a lease of ``LEASE_S``): a second claim while the
      lease runs, or any claim after ``settle``, is a duplicate; after ``release``, or once the lease ran out without
      a ``settle``, the event can be claimed again. With ``thread`` the thread is remembered (later ``follow_up``
      claims there are taken; elsewhere they are ``not in a bot thread``); with ``limit`` (team, channel, user) the
      request counts against the store's ``user_limit`` per user and ``channel_limit`` per channel a minute, and over
      either nothing is written (``rate limited``). ``settle`` returns ``False`` when another request holds the
      event.
    - ``retrieval_mode`` is the channel's mode, or ``default`` if never set;
      ``set_retrieval_mode`` raises ``ValueError`` for an unknown mode.
    - ``record_feedback`` keeps one vote per user and message (voting again replaces it); ``feedback`` (for
      reviewing; no handler calls it) lists a channel's votes oldest message first.
    - ``turns`` gives the conversation's last ``limit`` turns written by ``add_turn``, oldest first, for a month.
    """

    def claim(self, platform: str, dedupe_key: str, *, thread: tuple[str, str, str] | None = None,
              follow_up: bool = False, limit: tuple[str, str, str] | None = None) -> EventClaim: ...

    def settle(self, claim: EventClaim) -> bool: ...

    def release(self, claim: EventClaim) -> None: ...

    def retrieval_mode(self, platform: str, team: str, channel: str, default: str) -> str: ...

    def set_retrieval_mode(self, platform: str, team: str, channel: str, mode: str, user: str) -> None: ...

    def record_feedback(self, platform: str, team: str, channel: str, message_ts: str, user: str, vote: str,
                        question: str, answer: str, ledger_hash: str = "") -> None: ...

    def feedback(self, platform: str, team: str, channel: str) -> list[dict[str, Any]]: ...

    def add_turn(self, platform: str, conversation: str, question: str, answer: str) -> None: ...

    def turns(self, platform: str, conversation: str, limit: int = 6) -> tuple[Turn, ...]: ...


class PlatformClient(Protocol):
    """Delivers to a chat platform (Slack, Teams, or the local outbox). Rendering is the client's job.

    ``post_answer``, ``post_notice`` and ``post_files`` replace the conversation's progress message
    (``status_message``) when there is one, and post a new message otherwise; ``post_progress`` updates it in place.
    ``post_files`` delivers every file, byte for byte under its name, with ``comment`` shown. ``history`` gives the
    earlier turns of the job's thread, oldest first (Slack reads the thread; Teams the turns its answers kept in the
    conversation store; the outbox the turns the job carries). ``download`` fetches a shared file's bytes and raises
    :class:`lcabot.errors.TooLargeError` above ``limit_bytes`` (before downloading when the size is known) and
    :class:`lcabot.errors.DocumentError` when what arrives is not a PDF (e.g. a login page).
    ``tests/contract/platform_client_contract.py`` checks all three clients.
    """

    def post_answer(self, job: AnswerJob, answer: Answer) -> None: ...

    def post_notice(self, conversation: ConversationRef, text: str) -> None: ...

    def post_progress(self, conversation: ConversationRef, text: str) -> None: ...

    def post_files(self, conversation: ConversationRef, files: Sequence[Path], comment: str) -> None: ...

    def history(self, job: AnswerJob) -> tuple[Turn, ...]: ...

    def download(self, file: FileRef, limit_bytes: int) -> bytes: ...
