from __future__ import annotations

import pytest

from lcabot.adapters.sqlite_index import SqliteIndex
from tests.contract.search_index_contract import SearchIndexContract


class TestSqliteIndex(SearchIndexContract):
    @pytest.fixture
    def index(self, tmp_path):
        idx = SqliteIndex(tmp_path / "index.sqlite3", 384)
        yield idx
        idx.close()

    def test_survives_reopening(self, tmp_path):
        from tests.contract.search_index_contract import COFFEE

        first = SqliteIndex(tmp_path / "i.sqlite3", 384)
        first.upsert_document(*COFFEE)
        first.close()
        again = SqliteIndex(tmp_path / "i.sqlite3")  # dimension read back from the file
        assert again.bm25("freight", 1)[0][0] == "d-coffee-1"
        with pytest.raises(ValueError):
            SqliteIndex(tmp_path / "i.sqlite3", 768)
