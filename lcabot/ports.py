"""The ports of the core as ``typing.Protocol``s. Adapters do not inherit from them; contract tests check them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from lcabot.models import Chunk, Claim, DocumentRecord, Evidence, Turn


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
