"""The contract every ``SearchIndex`` implementation passes. A test class inherits it and provides ``index``."""

from __future__ import annotations

import numpy as np
import pytest

from lcabot.errors import IndexWriteError
from lcabot.models import Chunk, DocumentRecord, PageSpan
from tests.fakes import HashEmbedder

EMBEDDER = HashEmbedder()


def make_doc(doc_id: str, source: str, texts: list[str], perspective: str = "general", key: str | None = None):
    chunks = [
        Chunk(chunk_id=f"{doc_id}-{i}", doc_id=doc_id, ordinal=i, section_path=("1 Scope",), page_start=i + 1,
              page_end=i + 1, page_label_start=str(i + 1), page_label_end=str(i + 1), kind="text", text=t,
              search_text=t, page_spans=(PageSpan(0, i + 1),))
        for i, t in enumerate(texts)
    ]
    record = DocumentRecord(doc_id=doc_id, source=source, source_key=key or f"/lib/{source}", title=source,
                            perspective=perspective, n_pages=len(texts), n_chunks=len(texts), pages_without_text=(),
                            page_labels=tuple(str(i + 1) for i in range(len(texts))))
    return record, chunks, EMBEDDER.embed(texts), texts


COFFEE = make_doc("d-coffee", "coffee.pdf", [
    "The functional unit is 1 kg of green coffee delivered to the UK.",
    "Air freight from Brazil emits 10.42 kg CO2e per kg green coffee.",
])
HYDROGEN = make_doc("d-h2", "hydrogen.pdf", [
    "Coal gasification with carbon capture gives 19.5 kg CO2 eq per kg hydrogen.",
    "Without capture the result is 34.8 kg CO2 eq per kg hydrogen.",
], perspective="academic")


class SearchIndexContract:
    """Tests every adapter passes. A ``Test…`` subclass provides the ``index`` fixture (an empty index)."""

    def test_upsert_then_bm25_and_knn_find_the_passage(self, index):
        index.upsert_document(*COFFEE)
        index.upsert_document(*HYDROGEN)
        assert index.bm25("air freight brazil", 5)[0][0] == "d-coffee-1"
        query = EMBEDDER.embed(["without capture the result is"])[0]
        assert index.knn(query, 1)[0][0] == "d-h2-1"

    def test_a_document_is_found_by_its_source_key_and_a_new_version_replaces_it(self, index):
        index.upsert_document(*COFFEE)
        index.upsert_document(*HYDROGEN)
        assert index.document_by_key("/lib/coffee.pdf").doc_id == "d-coffee"
        assert index.document_by_key("/lib/hydrogen.pdf").perspective == "academic"
        assert index.document_by_key("/lib/coffee") is None and index.document_by_key("coffee.pdf") is None
        v2 = make_doc("d-coffee-v2", "coffee.pdf", ["The functional unit is 1 kg of roasted coffee."])
        index.upsert_document(*v2)
        assert index.document_by_key("/lib/coffee.pdf").doc_id == "d-coffee-v2"
        assert index.document("d-coffee") is None
        assert index.delete_document("d-coffee-v2")
        assert index.document_by_key("/lib/coffee.pdf") is None

    def test_filters_by_document_and_perspective(self, index):
        index.upsert_document(*COFFEE)
        index.upsert_document(*HYDROGEN)
        assert {c for c, _ in index.bm25("kg", 10, perspective="academic")} == {"d-h2-0", "d-h2-1"}
        assert {c for c, _ in index.bm25("kg", 10, doc_ids=["d-coffee"])} == {"d-coffee-0", "d-coffee-1"}
        query = EMBEDDER.embed(["kg hydrogen"])[0]
        assert {c for c, _ in index.knn(query, 10, doc_ids=["d-coffee"])} == {"d-coffee-0", "d-coffee-1"}
        assert index.knn(query, 10, doc_ids=[]) == []

    def test_delete_by_document_removes_chunks_from_both_searches(self, index):
        index.upsert_document(*COFFEE)
        index.upsert_document(*HYDROGEN)
        assert index.delete_document("d-coffee")
        assert not index.delete_document("d-coffee")
        assert index.bm25("coffee", 10) == []
        assert all(c.startswith("d-h2") for c, _ in index.knn(EMBEDDER.embed(["coffee"])[0], 10))
        assert [d.doc_id for d in index.documents()] == ["d-h2"]
        assert index.page_text("d-coffee", 1) is None

    def test_new_version_under_the_same_key_replaces_the_old(self, index):
        index.upsert_document(*COFFEE)
        new = make_doc("d-coffee-v2", "coffee.pdf", ["Roasting uses natural gas."], key="/lib/coffee.pdf")
        index.upsert_document(*new)
        assert [d.doc_id for d in index.documents()] == ["d-coffee-v2"]
        assert index.bm25("freight", 5) == []
        assert index.chunks(["d-coffee-1"]) == []

    def test_a_failed_write_leaves_the_index_as_it_was(self, index):
        index.upsert_document(*COFFEE)
        record, chunks, vectors, pages = make_doc("d-bad", "bad.pdf", ["one", "two"])
        duplicate_ids = [chunks[0], chunks[0]]  # the second insert violates the unique chunk id mid-transaction
        with pytest.raises(IndexWriteError):
            index.upsert_document(record, duplicate_ids, vectors, pages)
        assert [d.doc_id for d in index.documents()] == ["d-coffee"]
        assert index.bm25("one", 5) == []
        assert index.bm25("freight", 5)[0][0] == "d-coffee-1"

    def test_wrong_vector_shape_is_refused(self, index):
        record, chunks, vectors, pages = COFFEE
        with pytest.raises(ValueError):
            index.upsert_document(record, chunks, vectors[:1], pages)

    def test_chunks_round_trip_with_page_spans_and_page_text(self, index):
        index.upsert_document(*COFFEE)
        (chunk,) = index.chunks(["d-coffee-1"])
        assert chunk == COFFEE[1][1]
        assert index.page_text("d-coffee", 2) == COFFEE[3][1]
        assert [c.chunk_id for c in index.neighbours(COFFEE[1][0])] == ["d-coffee-1"]
        assert np.allclose(index.vectors(["d-coffee-1"])[0], COFFEE[2][1])

    def test_term_frequency_and_case_sensitive_contains(self, index):
        index.upsert_document(*COFFEE)
        index.upsert_document(*HYDROGEN)
        df, total = index.term_document_frequency(["hydrogen", "pilkington"])
        assert (df, total) == ({"hydrogen": 2, "pilkington": 0}, 4)
        assert index.contains_text("Brazil") and not index.contains_text("BRAZIL")
