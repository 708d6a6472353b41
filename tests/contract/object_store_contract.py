"""The contract every ``ObjectStore`` implementation passes. A ``Test…`` class inherits it and provides ``store``
(an empty store)."""

from __future__ import annotations

import hashlib

import pytest

from lcabot.errors import ObjectNotFoundError

BINARY = bytes(range(256)) * 4 + b"\x00\r\n\x1a%PDF-"  # every byte value, NULs, CR/LF, Ctrl-Z


def md5(data: bytes) -> str:
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


class ObjectStoreContract:
    """Tests every adapter passes. A ``Test…`` subclass provides the ``store`` fixture (an empty store)."""

    def test_put_then_get_returns_the_bytes_exactly(self, store):
        store.put("library/a.bin", BINARY)
        store.put("library/empty.txt", b"", "text/plain")
        assert store.get("library/a.bin") == BINARY
        assert store.get("library/empty.txt") == b""

    def test_missing_key_get_raises_head_is_none_delete_is_fine(self, store):
        with pytest.raises(ObjectNotFoundError):
            store.get("library/missing.pdf")
        assert store.head("library/missing.pdf") is None
        store.delete("library/missing.pdf")  # no error, as in S3
        assert store.keys() == []

    def test_head_gives_size_md5_etag_and_no_metadata(self, store):
        store.put("graph/fragments/x.json", BINARY, "application/json")
        store.put("empty", b"")
        info = store.head("graph/fragments/x.json")
        assert (info.key, info.size, info.etag, dict(info.metadata)) == \
            ("graph/fragments/x.json", len(BINARY), md5(BINARY), {})
        empty = store.head("empty")
        assert (empty.size, empty.etag) == (0, "d41d8cd98f00b204e9800998ecf8427e")

    def test_overwrite_replaces_content_and_changes_the_etag(self, store):
        store.put("library/doc.pdf", b"%PDF-1.7 version one")
        first = store.head("library/doc.pdf")
        store.put("library/doc.pdf", b"%PDF-1.7 version one")
        assert store.head("library/doc.pdf").etag == first.etag  # same bytes, same etag
        store.put("library/doc.pdf", b"%PDF-1.7 v2")
        second = store.head("library/doc.pdf")
        assert second.etag != first.etag
        assert (second.size, second.etag) == (11, md5(b"%PDF-1.7 v2"))
        assert store.get("library/doc.pdf") == b"%PDF-1.7 v2"
        assert store.keys() == ["library/doc.pdf"]

    def test_delete_removes_only_that_key(self, store):
        store.put("library/a.pdf", b"a")
        store.put("library/b.pdf", b"b")
        store.delete("library/a.pdf")
        assert store.head("library/a.pdf") is None
        with pytest.raises(ObjectNotFoundError):
            store.get("library/a.pdf")
        assert store.keys() == ["library/b.pdf"]
        assert store.get("library/b.pdf") == b"b"

    def test_keys_are_sorted_and_filtered_by_string_prefix(self, store):
        for key in ("library/b.pdf", "library/academic/z.pdf", "librarian.txt", "graph/merged.json",
                    "library/a.pdf"):
            store.put(key, key.encode())
        assert store.keys() == ["graph/merged.json", "librarian.txt", "library/a.pdf", "library/academic/z.pdf",
                                "library/b.pdf"]
        assert store.keys("library/") == ["library/a.pdf", "library/academic/z.pdf", "library/b.pdf"]
        assert store.keys("library/a") == ["library/a.pdf", "library/academic/z.pdf"]
        assert store.keys("librar") == ["librarian.txt", "library/a.pdf", "library/academic/z.pdf", "library/b.pdf"]
        assert store.keys("nothing/") == []

    @pytest.mark.parametrize("key", [
        "library/academic/Nab & Maslin coffee (2020).pdf",  # spaces, & and parentheses
        "library/général/Ökobilanz – Wasserstoff 水素.pdf",  # non-ASCII, an en dash, CJK
        "library/a/b/c/d/deep.pdf",
        "library/odd name+with%20escapes?.pdf",  # characters URL encoding would change
    ])
    def test_keys_with_spaces_unicode_and_slashes_round_trip(self, store, key):
        store.put(key, key.encode())
        assert store.get(key) == key.encode()
        assert store.head(key).key == key
        assert store.head(key).size == len(key.encode())
        assert store.keys() == [key]
        assert store.keys(key.rsplit("/", 1)[0] + "/") == [key]
        store.delete(key)
        assert store.keys() == []
