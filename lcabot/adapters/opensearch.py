"""The production ``SearchIndex``: one OpenSearch index (opensearch-py) holding chunks, page texts and document records.

Layout (the body is :func:`index_body`, checked in as ``iac/opensearch/chunks-index.json`` for 384 dimensions):
every OpenSearch document has a ``type`` (``chunk`` | ``page`` | ``document``), the ``doc_id``, ``source_key`` and
``perspective`` of its document, and a ``version`` token unique to the upsert that wrote it. Chunks carry
``search_text`` (``english`` analyzer, BM25) with a case-sensitive ``search_text.exact`` sub-field (split on
anything but ASCII letters and digits, for :meth:`OpenSearchIndex.contains_text`) and ``embedding`` (``knn_vector``,
faiss HNSW, ``innerproduct``: equal to cosine for the unit vectors embedders return, and unlike ``cosinesimil`` it
accepts a zero vector). Nothing is ever updated in place: an upsert writes a complete new version next to the old
one, checks every bulk item, makes it visible, and only then deletes older versions of the same ``source_key`` or
``doc_id``. A failed write deletes what it wrote (by the ``_id``s the bulk items answered), so the old version stays.
Reads prefer the newest version if two briefly coexist.
"""

from __future__ import annotations

import copy
import json
import os
import re
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import numpy as np
from opensearchpy import AWSV4SignerAuth, OpenSearch, RequestsHttpConnection
from opensearchpy.exceptions import NotFoundError, RequestError, TransportError

from lcabot.errors import ConfigurationError, IndexWriteError
from lcabot.models import Chunk, DocumentRecord, PageSpan, same_section

DEFAULT_INDEX_NAME = "lcabot-chunks"
VECTOR_FIELD = "embedding"
MAX_RESULT_WINDOW = 10_000  # index.max_result_window: from + size of one search
MAX_K = 10_000  # the k-NN plugin's limit on k
SCAN_PAGE = 1_000  # hits per page when reading by id or listing (search_after on `key`)
TERMS_BATCH = 1_000  # ids per `terms` query
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)  # as SqliteIndex.bm25 splits a query
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
_AWS_HOST = re.compile(r"\.(?P<region>[a-z]{2}(?:-[a-z]+)+-\d+)\.(?P<service>es|aoss)\.amazonaws\.com(?:\.cn)?$")

_INDEX_BODY: dict[str, Any] = {
    "settings": {
        "index": {"knn": True},
        "analysis": {
            "tokenizer": {"lcabot_ascii_words": {"type": "pattern", "pattern": "[^A-Za-z0-9]+"}},
            "analyzer": {"lcabot_exact": {"type": "custom", "tokenizer": "lcabot_ascii_words"}},
        },
    },
    "mappings": {
        "dynamic": "strict",
        "properties": {
            "type": {"type": "keyword"},
            "key": {"type": "keyword"},
            "version": {"type": "keyword"},
            "doc_id": {"type": "keyword"},
            "source_key": {"type": "keyword"},
            "perspective": {"type": "keyword"},
            "chunk_id": {"type": "keyword"},
            "ordinal": {"type": "integer"},
            "section_path": {"type": "keyword"},
            "page_start": {"type": "integer"},
            "page_end": {"type": "integer"},
            "page_label_start": {"type": "keyword"},
            "page_label_end": {"type": "keyword"},
            "kind": {"type": "keyword"},
            "page": {"type": "integer"},
            "text": {"type": "text", "index": False},
            "search_text": {
                "type": "text",
                "analyzer": "english",
                "fields": {"exact": {"type": "text", "analyzer": "lcabot_exact"}},
            },
            "page_spans": {"type": "object", "enabled": False},
            "record": {"type": "object", "enabled": False},
            VECTOR_FIELD: {
                "type": "knn_vector",
                "dimension": 0,
                "method": {
                    "name": "hnsw",
                    "engine": "faiss",
                    "space_type": "innerproduct",
                    "parameters": {"m": 16, "ef_construction": 128},
                },
            },
        },
    },
}


def index_body(dimension: int) -> dict[str, Any]:
    """The body of ``PUT /<index>`` for ``dimension``-sized embeddings (a fresh copy)."""
    if dimension < 1:
        raise ValueError(f"the embedding dimension must be positive, got {dimension}")
    body = copy.deepcopy(_INDEX_BODY)
    body["mappings"]["properties"][VECTOR_FIELD]["dimension"] = int(dimension)
    return body


def cosine_from_score(score: float, space_type: str) -> float:
    """Turn the ``_score`` of a kNN hit back into cosine similarity (vectors of unit length).

    OpenSearch scores: ``cosinesimil`` (1 + cos) / 2; ``innerproduct`` 1 + ip when ip ≥ 0, else 1 / (1 − ip);
    ``l2`` 1 / (1 + d²) where d² = 2 − 2 cos for unit vectors.
    """
    if space_type == "cosinesimil":
        return 2.0 * score - 1.0
    if space_type == "innerproduct":
        return score - 1.0 if score >= 1.0 else 1.0 - 1.0 / score
    if space_type == "l2":
        return 1.0 - (1.0 / score - 1.0) / 2.0
    raise ConfigurationError(f"the kNN space type {space_type!r} has no cosine equivalent")


@dataclass(frozen=True)
class _Op:
    """One bulk action: index ``source`` under ``key`` (``_id`` unless the service assigns ids) or delete ``_id``."""

    key: str
    source: dict[str, Any] | None = None  # None: delete the document whose _id is ``key``


class _BulkFailed(Exception):
    def __init__(self, failures: list[str]) -> None:
        super().__init__("; ".join(failures[:5]) + (f"; … {len(failures) - 5} more" if len(failures) > 5 else ""))
        self.failures = failures


class OpenSearchIndex:
    """``SearchIndex`` over one OpenSearch index (managed domain, Serverless collection, or a plain cluster).

    Args:
        url: ``https://host[:port]`` of the cluster; ``user:password@`` in it means basic auth.
        dimension: embedding size. ``None`` reads it from the existing index (so listing and removing documents
            never load the embedding model); an index created by the first write takes it from the vectors.
        index_name: the OpenSearch index (created on first write when absent, with :func:`index_body`).
        service: ``"es"`` (managed domain) or ``"aoss"`` (Serverless) to sign requests with SigV4 (botocore's
            default credential chain). Inferred from ``*.<region>.es|aoss.amazonaws.com`` hosts; otherwise no signing.
        region: AWS region for SigV4; default from the host, then ``AWS_REGION`` / ``AWS_DEFAULT_REGION`` / profile.
        client: a ready ``opensearchpy.OpenSearch`` (then ``url`` only names it in messages).
        refresh: make every write searchable before returning (``POST /<index>/_refresh`` after bulk writes,
            ``refresh=true`` on ``_delete_by_query``). Default: on, except for ``aoss``, which supports neither and is
            eventually consistent (a write becomes searchable within seconds, so "uploaded, then asked" can miss it).
        max_retries: bulk items (or whole requests) answered 429 are retried this many times, with exponential
            back-off starting at ``backoff_s`` seconds and capped at ``max_backoff_s``.
        bulk_max_bytes: a bulk request holds at most this many bytes of NDJSON (at least one action).
        timeout_s: socket timeout of one request, seconds.
        sleep: how back-off waits (tests pass a recorder).

    On ``aoss`` the service assigns document ids (vector collections refuse custom ``_id``s), and deletes do not
    rely on ``_delete_by_query`` (not offered on every collection type): they search for the ``_id``s and delete
    them with ``_bulk``. Everything else is the same on ``es``, ``aoss`` and a plain cluster.

    Raises:
        ConfigurationError: the URL is not http(s), ``service`` is unknown, or SigV4 lacks a region or credentials.
        ValueError: (on first use) the index holds vectors of another dimension than ``dimension``.
    """

    def __init__(
        self,
        url: str,
        dimension: int | None = None,
        *,
        index_name: str = DEFAULT_INDEX_NAME,
        service: str | None = None,
        region: str | None = None,
        client: OpenSearch | None = None,
        refresh: bool | None = None,
        max_retries: int = 5,
        backoff_s: float = 0.2,
        max_backoff_s: float = 20.0,
        bulk_max_bytes: int = 5_000_000,
        timeout_s: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if service not in (None, "es", "aoss"):
            raise ConfigurationError(f"OpenSearch service must be 'es' or 'aoss', got {service!r}")
        parts = urlsplit(url)
        self.url = urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))  # no password
        self.index_name = index_name
        aws_host = _AWS_HOST.search(parts.hostname or "")
        service = service or (aws_host["service"] if aws_host else None)
        if client is None:
            client = _build_client(url, service, region or (aws_host["region"] if aws_host else None), timeout_s)
        self.service = service
        self._client = client
        self._refresh = (service != "aoss") if refresh is None else refresh
        self._own_ids = service != "aoss"
        self._dimension = int(dimension or 0)
        self._space = "innerproduct"
        self._exists = False
        self._lock = threading.Lock()
        self._max_retries = max_retries
        self._backoff_s = backoff_s
        self._max_backoff_s = max_backoff_s
        self._bulk_max_bytes = bulk_max_bytes
        self._sleep = sleep

    @property
    def dimension(self) -> int:
        """The embedding size (read from the index when not given; 0 while neither is known)."""
        self._open()
        return self._dimension

    def close(self) -> None:
        self._client.close()

    def delete_index(self) -> bool:
        """Drop the whole OpenSearch index (every document). Returns False when it did not exist."""
        self._exists = False
        try:
            self._call(self._client.indices.delete, index=self.index_name)
        except NotFoundError:
            return False
        return True

    # -- writes ------------------------------------------------------------------------------------------------

    def upsert_document(
        self, record: DocumentRecord, chunks: Sequence[Chunk], vectors: np.ndarray, page_texts: Sequence[str]
    ) -> None:
        """Replace any earlier version (same ``source_key`` or ``doc_id``) by this one.

        ``vectors`` has shape ``(len(chunks), dimension)``; ``page_texts[i]`` is PDF page ``i + 1``.

        Raises:
            ValueError: ``vectors`` has the wrong shape or holds NaN/infinity; nothing was written.
            IndexWriteError: chunk ids repeat (nothing was written), or OpenSearch refused part of the write (every
                failed item is named; what was written is deleted again, so the previous version stays searchable),
                or the new version is in place but the old one could not be fully deleted (upsert again).
        """
        if not self._dimension:
            self._open()
        dimension = self._dimension or (int(vectors.shape[1]) if vectors.ndim == 2 else 0)
        if vectors.shape != (len(chunks), dimension):
            raise ValueError(f"vectors must have shape ({len(chunks)}, {dimension}), got {vectors.shape}")
        vectors = np.asarray(vectors, dtype=np.float32)
        if not np.isfinite(vectors).all():
            raise ValueError(f"{record.source}: the vectors hold NaN or infinity")
        counts = Counter(c.chunk_id for c in chunks)
        repeated = sorted(chunk_id for chunk_id, n in counts.items() if n > 1)
        if repeated:
            raise IndexWriteError(f"{record.source}: chunk ids repeat ({', '.join(repeated[:5])}); nothing was written")
        self._exists = False  # look again: had the index been dropped, a bulk write would auto-create it unmapped
        self._open(create_dimension=dimension)
        version = f"{time.time_ns():020d}-{secrets.token_hex(4)}"
        ops = self._document_ops(record, chunks, vectors, page_texts, version)
        written: list[str] = []
        try:
            self._bulk(ops, written)
            if self._refresh:
                self._call(self._client.indices.refresh, index=self.index_name)
        except (_BulkFailed, TransportError) as err:
            undo = self._undo(written)
            raise IndexWriteError(
                f"{record.source}: OpenSearch refused the write ({err}); {undo}; the previous version is unchanged"
            ) from err
        older = {"bool": {
            "filter": [{"range": {"version": {"lt": version}}}],
            "should": [{"term": {"source_key": record.source_key}}, {"term": {"doc_id": record.doc_id}}],
            "minimum_should_match": 1,
        }}
        try:
            self._delete_where(older)
        except (_BulkFailed, TransportError) as err:
            raise IndexWriteError(f"{record.source}: the new version is indexed but the previous one could not be "
                                  f"fully removed ({err}); upserting again removes it") from err

    def delete_document(self, doc_id: str) -> bool:
        """Delete a document, its chunks and pages. Returns False when it was not indexed.

        Raises:
            IndexWriteError: OpenSearch refused part of the delete.
        """
        try:
            return self._delete_where({"term": {"doc_id": doc_id}}) > 0
        except (_BulkFailed, TransportError) as err:
            raise IndexWriteError(f"{doc_id}: OpenSearch refused the delete ({err})") from err

    def _document_ops(self, record: DocumentRecord, chunks: Sequence[Chunk], vectors: np.ndarray,
                      page_texts: Sequence[str], version: str) -> list[_Op]:
        common = {"version": version, "source_key": record.source_key, "perspective": record.perspective}
        ops = [
            _Op(f"c:{c.chunk_id}:{version}", {
                "type": "chunk", "key": f"c:{c.chunk_id}:{version}", **common, "doc_id": c.doc_id,
                "chunk_id": c.chunk_id, "ordinal": c.ordinal, "section_path": list(c.section_path),
                "page_start": c.page_start, "page_end": c.page_end, "page_label_start": c.page_label_start,
                "page_label_end": c.page_label_end, "kind": c.kind, "text": c.text, "search_text": c.search_text,
                "page_spans": [{"start": s.start, "page": s.page} for s in c.page_spans],
                VECTOR_FIELD: vectors[i].tolist(),
            })
            for i, c in enumerate(chunks)
        ]
        ops += [
            _Op(f"p:{record.doc_id}:{page:06d}:{version}", {
                "type": "page", "key": f"p:{record.doc_id}:{page:06d}:{version}", **common, "doc_id": record.doc_id,
                "page": page, "text": text,
            })
            for page, text in enumerate(page_texts, start=1)
        ]
        ops.append(_Op(f"d:{record.doc_id}:{version}", {
            "type": "document", "key": f"d:{record.doc_id}:{version}", **common, "doc_id": record.doc_id,
            "record": {
                "doc_id": record.doc_id, "source": record.source, "source_key": record.source_key,
                "title": record.title, "perspective": record.perspective, "n_pages": record.n_pages,
                "n_chunks": record.n_chunks, "pages_without_text": list(record.pages_without_text),
                "page_labels": list(record.page_labels),
            },
        }))  # last: a listed document implies its chunks and pages were accepted
        return ops

    def _bulk(self, ops: Sequence[_Op], written: list[str]) -> int:
        """Send ``ops`` in size-bounded batches, reading every item's status; 429 items are retried with back-off.

        Appends the ``_id`` of every indexed document to ``written`` as soon as it is known. Returns the number of
        documents deleted. Stops at the first batch with a permanent failure.

        Raises:
            _BulkFailed: the failures, one ``"<key>: <status> <error type>: <reason>"`` each.
        """
        deleted = 0
        for batch in self._batches(ops):
            pending, failures = batch, []
            for attempt in range(self._max_retries + 1):
                if attempt:
                    self._sleep(self._backoff(attempt - 1))
                lines = []
                for op in pending:
                    if op.source is None:
                        lines.append(json.dumps({"delete": {"_id": op.key}}))
                    else:
                        lines.append(json.dumps({"index": {"_id": op.key} if self._own_ids else {}}))
                        lines.append(json.dumps(op.source))
                unsure = [op.key for op in pending if op.source is not None and self._own_ids]
                try:
                    response = self._call(self._client.bulk, index=self.index_name, body="\n".join(lines) + "\n")
                except TransportError:
                    written.extend(unsure)  # no answer, yet some may have been written: undo deletes them all
                    raise
                items = response.get("items") or []
                if len(items) != len(pending):
                    written.extend(unsure)
                    raise _BulkFailed([f"the bulk response holds {len(items)} items for {len(pending)} actions"])
                retry = []
                for op, item in zip(pending, items, strict=True):
                    result = next(iter(item.values()))
                    status = int(result.get("status", 500))
                    if 200 <= status < 300 or (op.source is None and status == 404):
                        if op.source is not None:
                            written.append(result.get("_id") or op.key)
                        elif result.get("result") == "deleted":
                            deleted += 1
                    elif status == 429:
                        retry.append(op)
                    else:
                        failures.append(f"{op.key}: {status} {_describe(result.get('error'))}")
                pending = retry
                if not pending:
                    break
            failures += [f"{op.key}: 429 still rejected after {self._max_retries} retries" for op in pending]
            if failures:
                raise _BulkFailed(failures)
        return deleted

    def _batches(self, ops: Sequence[_Op]) -> Iterator[list[_Op]]:
        batch: list[_Op] = []
        size = 0
        for op in ops:
            n = len(json.dumps(op.source)) + len(op.key) + 40 if op.source is not None else len(op.key) + 30
            if batch and size + n > self._bulk_max_bytes:
                yield batch
                batch, size = [], 0
            batch.append(op)
            size += n
        if batch:
            yield batch

    def _undo(self, written: list[str]) -> str:
        """Delete the documents a failed upsert wrote, by ``_id``; says how that went."""
        ids = list(dict.fromkeys(written))
        if not ids:
            return "nothing had been written"
        try:
            deleted = self._bulk([_Op(i) for i in ids], [])
            if self._refresh:
                self._call(self._client.indices.refresh, index=self.index_name)
        except (_BulkFailed, TransportError) as err:
            return f"deleting what was already written failed too ({err})"
        return f"the {deleted} documents already written were deleted again"

    def _delete_where(self, query: dict[str, Any]) -> int:
        """Delete every document matching ``query``; returns how many were deleted."""
        if not self._open():
            return 0
        if not self._own_ids:  # aoss: no _delete_by_query; find the service-assigned _ids, then bulk-delete them
            return self._bulk([_Op(hit["_id"]) for hit in self._scan(query, False)], [])
        params = {"conflicts": "proceed"}
        if self._refresh:
            params["refresh"] = "true"
        try:
            response = self._call(self._client.delete_by_query, index=self.index_name, body={"query": query},
                                  params=params)
        except NotFoundError:
            self._exists = False
            return 0
        failures = response.get("failures") or []
        if failures:
            raise _BulkFailed([f"{f.get('id', '?')}: {f.get('status', '?')} {_describe(f.get('cause', f))}"
                               for f in failures])
        return int(response.get("deleted", 0))

    # -- reads -------------------------------------------------------------------------------------------------

    def documents(self) -> list[DocumentRecord]:
        """Every indexed document, ordered by ``source``."""
        found = [h["_source"] for h in self._scan({"term": {"type": "document"}}, ["record", "version"])]
        seen: set[str] = set()
        kept = []
        for src in sorted(found, key=lambda s: s["version"], reverse=True):  # newest wins while two coexist
            rec = src["record"]
            keys = {"k:" + rec["source_key"], "d:" + rec["doc_id"]}
            if not keys & seen:
                kept.append(_record(rec))
            seen |= keys
        return sorted(kept, key=lambda r: r.source)

    def document(self, doc_id: str) -> DocumentRecord | None:
        hits = list(self._scan(_all_of({"type": "document"}, {"doc_id": doc_id}), ["record"]))
        return _record(hits[-1]["_source"]["record"]) if hits else None

    def document_by_key(self, source_key: str) -> DocumentRecord | None:
        """The document indexed from ``source_key``, or ``None``; while two versions coexist (a replacement being
        made visible), the newer."""
        hits = list(self._scan(_all_of({"type": "document"}, {"source_key": source_key}), ["record", "version"]))
        return _record(max(hits, key=lambda h: h["_source"]["version"])["_source"]["record"]) if hits else None

    def bm25(
        self, query: str, n: int, *, doc_ids: Sequence[str] | None = None, perspective: str | None = None
    ) -> list[tuple[str, float]]:
        """Top ``n`` (at most 10 000) chunks by BM25 (``english`` analyzer) for any of the query's words, as
        ``(chunk_id, score)``, best first."""
        terms = sorted({t.lower() for t in _TOKEN.findall(query)})
        if not terms or n <= 0 or (doc_ids is not None and not doc_ids):
            return []
        body = {
            "size": min(n, MAX_RESULT_WINDOW),
            "_source": ["chunk_id"],
            "query": {"bool": {"must": [{"match": {"search_text": " ".join(terms)}}],
                               "filter": _filters(doc_ids, perspective)}},
        }
        response = self._search(body)
        return _unique(response["hits"]["hits"], float) if response else []

    def knn(
        self, vector: np.ndarray, n: int, *, doc_ids: Sequence[str] | None = None, perspective: str | None = None
    ) -> list[tuple[str, float]]:
        """Top ``n`` (at most 10 000) chunks by cosine similarity to a unit ``vector`` of shape ``(dimension,)``,
        as ``(chunk_id, cosine)``, best first. The filters go inside the ``knn`` clause (efficient filtering), so a
        narrow filter still yields ``n`` hits when it allows that many.

        Raises:
            ValueError: ``vector`` is not ``(dimension,)`` or not finite.
        """
        if not self._open() or n <= 0 or (doc_ids is not None and not doc_ids):
            return []
        vector = np.asarray(vector, dtype=np.float32)
        if vector.shape != (self._dimension,) or not np.isfinite(vector).all():
            raise ValueError(f"the query vector must be finite with shape ({self._dimension},), got {vector.shape}")
        k = min(n, MAX_K)
        clause: dict[str, Any] = {"vector": vector.tolist(), "k": k}
        filters = _filters(doc_ids, perspective)
        if filters:
            clause["filter"] = {"bool": {"filter": filters}}
        response = self._search({"size": k, "_source": ["chunk_id"], "query": {"knn": {VECTOR_FIELD: clause}}})
        space = self._space
        return _unique(response["hits"]["hits"], lambda s: cosine_from_score(s, space)) if response else []

    def chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Chunks in the order of ``chunk_ids`` (unknown ids are skipped)."""
        by_id = {src["chunk_id"]: src for src in self._by_chunk_id(chunk_ids, {"excludes": [VECTOR_FIELD]})}
        return [_chunk(by_id[c]) for c in chunk_ids if c in by_id]

    def vectors(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """Stored vectors, float32 of shape ``(len(chunk_ids), dimension)``, in the given order.

        Raises:
            KeyError: an id is not indexed.
        """
        if not chunk_ids:
            self._open()
            return np.zeros((0, self._dimension), dtype=np.float32)
        by_id = {src["chunk_id"]: src[VECTOR_FIELD] for src in self._by_chunk_id(chunk_ids, ["chunk_id", VECTOR_FIELD])}
        return np.asarray([by_id[c] for c in chunk_ids], dtype=np.float32)

    def neighbours(self, chunk: Chunk) -> list[Chunk]:
        """The chunks just before and after ``chunk`` in the same section of the same document (the one after it may
        open a subsection)."""
        query = _all_of({"type": "chunk"}, {"doc_id": chunk.doc_id},
                        terms={"ordinal": [chunk.ordinal - 1, chunk.ordinal + 1]})
        found = {h["_source"]["chunk_id"]: h["_source"] for h in self._scan(query, {"excludes": [VECTOR_FIELD]})}
        out = sorted((_chunk(s) for s in found.values()), key=lambda c: c.ordinal)
        return [c for c in out if same_section(c, chunk)]

    def page_text(self, doc_id: str, page: int) -> str | None:
        hits = list(self._scan(_all_of({"type": "page"}, {"doc_id": doc_id}, {"page": page}), ["text"]))
        return hits[-1]["_source"]["text"] if hits else None

    def term_document_frequency(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        """Number of chunks whose search text holds each term (``match_phrase``, ``english`` analyzer: stemmed,
        stop words never counted), and the total number of chunks; one ``_msearch``."""
        if not self._open():
            return {t: 0 for t in terms}, 0
        chunk_filter = {"term": {"type": "chunk"}}
        queries = [{"bool": {"filter": [chunk_filter], "must": [{"match_phrase": {"search_text": t}}]}} for t in terms]
        body: list[dict[str, Any]] = []
        for query in [{"bool": {"filter": [chunk_filter]}}, *queries]:
            body += [{}, {"size": 0, "track_total_hits": True, "query": query}]
        try:
            responses = self._call(self._client.msearch, index=self.index_name, body=body)["responses"]
        except NotFoundError:
            self._exists = False
            return {t: 0 for t in terms}, 0
        counts = []
        for response in responses:
            if "error" in response:
                error = response["error"]
                raise TransportError(response.get("status", 500), error.get("type", str(error)), response)
            counts.append(int(response["hits"]["total"]["value"]))
        return dict(zip(terms, counts[1:], strict=True)), counts[0]

    def contains_text(self, text: str) -> bool:
        """True when ``text`` occurs, case-sensitively, in some chunk's search text, not touching an ASCII letter
        or digit on either side (as :meth:`lcabot.adapters.sqlite_index.SqliteIndex.contains_text`). A
        ``match_phrase`` on ``search_text.exact`` finds the candidates; beyond one plain word, each candidate is
        checked exactly.
        Texts without an ASCII letter or digit, or holding ``*?[]``, are never found."""
        if not text or any(c in text for c in "*?[]") or not _ASCII_WORD.search(text) or not self._open():
            return False
        query = _all_of({"type": "chunk"}, phrase={"search_text.exact": text})
        if _ASCII_WORD.fullmatch(text):
            response = self._search({"size": 1, "_source": False, "query": query})
            return bool(response and response["hits"]["hits"])
        exact = re.compile(rf"(?<![A-Za-z0-9]){re.escape(text)}(?![A-Za-z0-9])")
        return any(exact.search(h["_source"]["search_text"]) for h in self._scan(query, ["search_text"]))

    # -- plumbing ----------------------------------------------------------------------------------------------

    def _open(self, create_dimension: int = 0) -> bool:
        """True when the index exists (creating it when ``create_dimension`` is given); reads its dimension."""
        if self._exists:
            return True
        with self._lock:
            if self._exists:
                return True
            if self._call(self._client.indices.exists, index=self.index_name):
                self._read_mapping()
            elif create_dimension:
                try:
                    self._call(self._client.indices.create, index=self.index_name, body=index_body(create_dimension))
                    self._dimension = create_dimension
                    self._space = _INDEX_BODY["mappings"]["properties"][VECTOR_FIELD]["method"]["space_type"]
                except RequestError as err:
                    if err.error != "resource_already_exists_exception":
                        raise
                    self._read_mapping()  # a concurrent writer created it first
            else:
                return False
            self._exists = True
        return True

    def _read_mapping(self) -> None:
        mappings = self._call(self._client.indices.get_mapping, index=self.index_name)
        props = next(iter(mappings.values()))["mappings"].get("properties", {})
        field = props.get(VECTOR_FIELD) or {}
        if field.get("type") != "knn_vector":
            raise ConfigurationError(f"the OpenSearch index {self.index_name} has no knn_vector field {VECTOR_FIELD!r}"
                                     " (not an lcabot index?)")
        stored = int(field["dimension"])
        if self._dimension and stored != self._dimension:
            raise ValueError(f"the OpenSearch index {self.index_name} holds {stored}-dimensional vectors, the embedder "
                             f"gives {self._dimension}; use another index name or re-ingest into a fresh one")
        self._dimension = stored
        self._space = (field.get("method") or {}).get("space_type") or field.get("space_type") or "l2"

    def _call(self, fn: Callable[..., Any], **kwargs: Any) -> Any:
        """``fn(**kwargs)``, retrying a whole-request 429 with bounded exponential back-off."""
        for attempt in range(self._max_retries + 1):
            try:
                return fn(**kwargs)
            except TransportError as err:
                if err.status_code != 429 or attempt == self._max_retries:
                    raise
                self._sleep(self._backoff(attempt))
        raise AssertionError("unreachable")

    def _backoff(self, attempt: int) -> float:
        return float(min(self._backoff_s * 2**attempt, self._max_backoff_s))

    def _search(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """``POST /<index>/_search``; None when the index does not exist (nothing was ever written)."""
        if not self._open():
            return None
        try:
            found: dict[str, Any] = self._call(self._client.search, index=self.index_name, body=body)
            return found
        except NotFoundError:
            self._exists = False
            return None

    def _scan(self, query: dict[str, Any], source: Any) -> Iterator[dict[str, Any]]:
        """Every hit of ``query`` in ``key`` order (so newer versions of the same thing come later)."""
        body: dict[str, Any] = {"size": SCAN_PAGE, "_source": source, "query": query, "sort": [{"key": "asc"}]}
        while True:
            response = self._search(body)
            hits = response["hits"]["hits"] if response else []
            yield from hits
            if len(hits) < SCAN_PAGE:
                return
            body["search_after"] = hits[-1]["sort"]

    def _by_chunk_id(self, chunk_ids: Sequence[str], source: Any) -> Iterator[dict[str, Any]]:
        unique = list(dict.fromkeys(chunk_ids))
        for start in range(0, len(unique), TERMS_BATCH):
            query = _all_of({"type": "chunk"}, terms={"chunk_id": unique[start:start + TERMS_BATCH]})
            for hit in self._scan(query, source):
                yield hit["_source"]


def _build_client(url: str, service: str | None, region: str | None, timeout_s: float) -> OpenSearch:
    """A client for ``url``: SigV4 (``RequestsHttpConnection``) when ``service`` is set, else basic or no auth."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(f"the OpenSearch URL must be http(s)://host[:port], got {url!r}")
    bare = urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))
    options: dict[str, Any] = {"hosts": [bare], "timeout": timeout_s}
    if service:
        import botocore.session

        session = botocore.session.Session()
        region = region or os.environ.get("AWS_REGION") or session.get_config_variable("region")
        if not region:
            raise ConfigurationError(f"SigV4 for {service} needs a region: set AWS_REGION")
        credentials = session.get_credentials()
        if credentials is None:
            raise ConfigurationError(f"SigV4 for {service} needs AWS credentials; none were found")
        options.update(http_auth=AWSV4SignerAuth(credentials, region, service), connection_class=RequestsHttpConnection)
    elif parts.username:
        options["http_auth"] = (unquote(parts.username), unquote(parts.password or ""))
    return OpenSearch(**options)


def _describe(error: Any) -> str:
    """``"<type>: <reason> (<caused_by type>: <reason>)"`` of an OpenSearch error object."""
    if not isinstance(error, dict):
        return str(error)
    text = f"{error.get('type', 'error')}: {error.get('reason', '')}"
    cause = error.get("caused_by")
    return text + (f" ({_describe(cause)})" if cause else "")


def _filters(doc_ids: Sequence[str] | None, perspective: str | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if doc_ids is not None:
        out.append({"terms": {"doc_id": list(doc_ids)}})
    if perspective is not None:
        out.append({"term": {"perspective": perspective}})
    return out


def _all_of(*equal: dict[str, Any], terms: dict[str, list[Any]] | None = None,
            phrase: dict[str, str] | None = None) -> dict[str, Any]:
    """``bool.filter``: a ``term`` clause per dict in ``equal``, plus a ``terms`` and a ``match_phrase`` clause."""
    clauses: list[dict[str, Any]] = [{"term": t} for t in equal]
    if terms:
        clauses.append({"terms": terms})
    if phrase:
        clauses.append({"match_phrase": phrase})
    return {"bool": {"filter": clauses}}


def _unique(hits: list[dict[str, Any]], score: Callable[[float], float]) -> list[tuple[str, float]]:
    """``(chunk_id, score)`` of hits, best first, each chunk once (two versions may briefly coexist)."""
    out: dict[str, float] = {}
    for hit in hits:
        out.setdefault(hit["_source"]["chunk_id"], score(float(hit["_score"])))
    return list(out.items())


def _record(rec: dict[str, Any]) -> DocumentRecord:
    return DocumentRecord(
        doc_id=rec["doc_id"], source=rec["source"], source_key=rec["source_key"], title=rec["title"],
        perspective=rec["perspective"], n_pages=rec["n_pages"], n_chunks=rec["n_chunks"],
        pages_without_text=tuple(rec["pages_without_text"]), page_labels=tuple(rec["page_labels"]),
    )


def _chunk(src: dict[str, Any]) -> Chunk:
    return Chunk(
        chunk_id=src["chunk_id"], doc_id=src["doc_id"], ordinal=src["ordinal"], section_path=tuple(src["section_path"]),
        page_start=src["page_start"], page_end=src["page_end"], page_label_start=src["page_label_start"],
        page_label_end=src["page_label_end"], kind=src["kind"], text=src["text"], search_text=src["search_text"],
        page_spans=tuple(PageSpan(s["start"], s["page"]) for s in src["page_spans"]),
    )
