"""``DynamoStatusStore`` (the template's status table on moto server) and ``SqliteStatusStore`` (one SQLite file)
pass the ``StatusStore`` contract; then what only the SQLite store has (no file made by reading; several stores on
one file)."""

from __future__ import annotations

import pytest

from lcabot.adapters.aws import DynamoStatusStore
from lcabot.adapters.sqlite_status import SqliteStatusStore
from tests.contract.status_store_contract import FAILED, INDEXED, StatusStoreContract


class TestDynamoStatusStore(StatusStoreContract):
    @pytest.fixture
    def store(self, moto):
        return DynamoStatusStore(moto.table("DocumentStatusTable"), moto.resource("dynamodb"))


class TestSqliteStatusStore(StatusStoreContract):
    @pytest.fixture
    def store(self, tmp_path):
        return SqliteStatusStore(tmp_path / "home" / "status.sqlite3")

    def test_reading_a_store_never_written_makes_no_file_or_folder(self, store):
        assert store.get("library/a.pdf") is None
        assert store.with_doc_id("d") == []
        assert store.put_if_unchanged(FAILED, FAILED) is False
        assert not store.path.parent.exists()

    def test_a_second_store_on_the_same_file_sees_the_writes(self, store):
        store.put(INDEXED)
        other = SqliteStatusStore(store.path)
        assert other.get(INDEXED.source_key) == INDEXED
        other.put(FAILED)
        assert [s.source_key for s in store.with_doc_id("d-coffee")] == [INDEXED.source_key]
        assert store.get(FAILED.source_key) == FAILED
