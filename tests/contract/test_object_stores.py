"""``LocalObjectStore`` (a folder) and ``S3ObjectStore`` (a bucket on moto server) pass the ``ObjectStore``
contract; then what only one of them has (S3 user metadata and conditional writes; the local store's refusal of keys
that are not relative paths)."""

from __future__ import annotations

import pytest

from lcabot.adapters.aws import S3ObjectStore
from lcabot.adapters.local_objects import LocalObjectStore
from lcabot.errors import ObjectExistsError
from tests.contract.object_store_contract import ObjectStoreContract


class TestLocalObjectStore(ObjectStoreContract):
    @pytest.fixture
    def store(self, tmp_path):
        return LocalObjectStore(tmp_path / "objects")

    @pytest.mark.parametrize("key", ["", "/abs.pdf", "a//b.pdf", "../out.pdf", "a/./b.pdf", "a/../../b.pdf"])
    def test_a_key_that_is_not_a_relative_path_is_refused(self, store, key):
        with pytest.raises(ValueError, match="invalid object key"):
            store.put(key, b"x")
        assert store.keys() == []

    def test_a_write_in_progress_is_not_listed(self, store):
        store.put("library/a.pdf", b"a")
        (store.root / "library" / ".tmp-abc").write_bytes(b"half")
        assert store.keys() == ["library/a.pdf"]


class TestS3ObjectStore(ObjectStoreContract):
    @pytest.fixture
    def store(self, moto):
        return S3ObjectStore(moto.bucket(), moto.client("s3"))

    def test_metadata_round_trips_with_lower_case_names(self, store):
        store.put("library/shared.pdf", b"%PDF-", "application/pdf", metadata={"Lcabot-Conversation": '{"c": 1}'})
        assert dict(store.head("library/shared.pdf").metadata) == {"lcabot-conversation": '{"c": 1}'}

    def test_if_absent_never_replaces_an_existing_object(self, store):
        store.put("library/shared.pdf", b"first", if_absent=True)
        with pytest.raises(ObjectExistsError):
            store.put("library/shared.pdf", b"second", if_absent=True)
        assert store.get("library/shared.pdf") == b"first"
