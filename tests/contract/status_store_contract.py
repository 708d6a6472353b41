"""The contract every ``StatusStore`` implementation passes. A ``Test…`` class inherits it and provides ``store``
(an empty store)."""

from __future__ import annotations

from lcabot.models import DocumentStatus

INDEXED = DocumentStatus(
    "library/academic/Nab & Maslin coffee (2020).pdf", "indexed", "Indexed “coffee” — 42 chunks.", doc_id="d-coffee",
    title="Carbon footprint of green coffee ☕", perspective="academic", n_pages=12, n_chunks=42,
    pages_without_text=(3, 11), etag="9e107d9d372bb6826bd81d3542a419d6", updated_at="2025-01-02T03:04:05+00:00")
FAILED = DocumentStatus("library/scan.pdf", "failed", "No text layer.", reason="no_text", n_pages=0,
                        updated_at="2025-01-02T03:04:06+00:00")  # doc_id, title, etag … are None


class StatusStoreContract:
    """Tests every adapter passes. A ``Test…`` subclass provides the ``store`` fixture (an empty store)."""

    def test_a_key_never_written_has_no_status(self, store):
        assert store.get("library/never.pdf") is None
        assert store.with_doc_id("d-coffee") == []

    def test_put_then_get_round_trips_every_field(self, store):
        store.put(INDEXED)
        store.put(FAILED)
        assert store.get(INDEXED.source_key) == INDEXED
        assert store.get(FAILED.source_key) == FAILED
        got = store.get(INDEXED.source_key)
        assert (got.n_pages, got.pages_without_text) == (12, (3, 11))
        assert isinstance(got.n_pages, int) and all(isinstance(p, int) for p in got.pages_without_text)

    def test_put_replaces_the_keys_status_whole(self, store):
        store.put(INDEXED)
        removed = DocumentStatus(INDEXED.source_key, "removed", "Removed.", updated_at="2025-01-03T00:00:00+00:00")
        store.put(removed)
        assert store.get(INDEXED.source_key) == removed  # no field of the indexed status left behind
        assert store.with_doc_id("d-coffee") == []

    def test_with_doc_id_lists_every_key_naming_the_document_sorted_by_key(self, store):
        copies = [DocumentStatus(key, "unchanged", "Same content.", doc_id="d-coffee", updated_at="2025-01-02")
                  for key in ("library/z copy.pdf", "library/a copy.pdf")]
        for status in (INDEXED, *copies, FAILED,
                       DocumentStatus("library/other.pdf", "indexed", "x", doc_id="d-other", updated_at="t")):
            store.put(status)
        assert store.with_doc_id("d-coffee") == [copies[1], INDEXED, copies[0]]
        assert [s.source_key for s in store.with_doc_id("d-other")] == ["library/other.pdf"]
        assert store.with_doc_id("d-none") == []

    def test_put_if_unchanged_writes_while_the_status_is_still_since(self, store):
        started = DocumentStatus("library/big.pdf", "indexing", "Indexing big.pdf…", etag="e1",
                                 updated_at="2025-01-02T03:00:00+00:00")
        store.put(started)
        out_of_time = DocumentStatus("library/big.pdf", "failed", "Out of time.", reason="too_large", etag="e1",
                                     updated_at="2025-01-02T03:15:00+00:00")
        assert store.put_if_unchanged(out_of_time, started) is True
        assert store.get("library/big.pdf") == out_of_time

    def test_put_if_unchanged_never_overwrites_a_status_written_meanwhile(self, store):
        started = DocumentStatus("library/big.pdf", "indexing", "Indexing…", etag="e1", updated_at="2025-01-02T03")
        outcome = DocumentStatus("library/big.pdf", "indexed", "Indexed.", doc_id="d1", etag="e1",
                                 updated_at="2025-01-02T04")
        store.put(started)
        store.put(outcome)
        late = DocumentStatus("library/big.pdf", "failed", "Out of time.", reason="too_large", etag="e1",
                              updated_at="2025-01-02T05")
        assert store.put_if_unchanged(late, started) is False
        assert store.get("library/big.pdf") == outcome
        # each field of ``since`` counts: another message, ETag or time is another status
        for other in (DocumentStatus(outcome.source_key, "indexed", "Indexed!", doc_id="d1", etag="e1",
                                     updated_at=outcome.updated_at),
                      DocumentStatus(outcome.source_key, "indexed", "Indexed.", doc_id="d1", etag="e2",
                                     updated_at=outcome.updated_at),
                      DocumentStatus(outcome.source_key, "indexed", "Indexed.", doc_id="d1", etag=None,
                                     updated_at=outcome.updated_at),
                      DocumentStatus(outcome.source_key, "indexed", "Indexed.", doc_id="d1", etag="e1",
                                     updated_at="2025-01-02T04:00:01")):
            assert store.put_if_unchanged(late, other) is False
        assert store.get("library/big.pdf") == outcome

    def test_put_if_unchanged_on_a_key_never_written_writes_nothing(self, store):
        since = DocumentStatus("library/new.pdf", "indexing", "Indexing…", etag="e1", updated_at="t")
        status = DocumentStatus("library/new.pdf", "failed", "Out of time.", reason="too_large", etag="e1",
                                updated_at="t2")
        assert store.put_if_unchanged(status, since) is False
        assert store.get("library/new.pdf") is None
        store.put(FAILED)  # another key's status is not the key's
        assert store.put_if_unchanged(status, FAILED) is False
        assert store.get("library/new.pdf") is None

    def test_put_if_unchanged_matches_a_status_without_etag(self, store):
        store.put(FAILED)  # etag None
        retried = DocumentStatus(FAILED.source_key, "failed", "Given up.", reason="error", updated_at="later")
        assert store.put_if_unchanged(retried, FAILED) is True
        assert store.get(FAILED.source_key) == retried
