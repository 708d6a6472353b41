"""``OpenSearchIndex`` passes the ``SearchIndex`` contract on the local OpenSearch stub (as a managed domain / plain
cluster, and as a Serverless collection with SigV4), and on a real cluster when ``LCABOT_OPENSEARCH_URL`` is set.
Then what only this adapter has: per-item bulk results, 429 back-off, undo of a failed write, efficient kNN filters,
the index body in ``iac/``, refresh handling, SigV4. The stub's own refusals are tested too, so it cannot quietly
accept what OpenSearch refuses."""

from __future__ import annotations

import base64
import itertools
import json
import os
import uuid
from pathlib import Path

import numpy as np
import pytest
from opensearchpy import AWSV4SignerAuth, OpenSearch, RequestsHttpConnection
from opensearchpy.exceptions import AuthorizationException, RequestError

from lcabot.adapters.opensearch import OpenSearchIndex, cosine_from_score, index_body
from lcabot.adapters.sqlite_index import SqliteIndex
from lcabot.errors import IndexWriteError
from tests.contract.search_index_contract import COFFEE, EMBEDDER, HYDROGEN, SearchIndexContract, make_doc
from tests.stubs.opensearch_server import OpenSearchStub, SigV4Check, knn_score

IAC_BODY = Path(__file__).resolve().parents[2] / "iac" / "opensearch" / "chunks-index.json"
LIVE_URL = os.environ.get("LCABOT_OPENSEARCH_URL")
KEY_ID, SECRET = "AKIDLCABOTTEST000001", "lcabot/test/secret/key"
_numbers = itertools.count()


def fresh_name() -> str:
    return f"lcabot-test-{next(_numbers)}-{uuid.uuid4().hex[:6]}"


@pytest.fixture(scope="module")
def stub():
    with OpenSearchStub() as server:
        yield server


@pytest.fixture(scope="module")
def aoss_stub():
    with OpenSearchStub(serverless=True, sigv4=SigV4Check(KEY_ID, SECRET, "eu-west-1", "aoss")) as server:
        yield server


@pytest.fixture
def aws_env(monkeypatch):
    """Fake static credentials from the environment only (no profile, config file or instance metadata)."""
    for name in ("AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/aws-config")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def bulk_actions(request) -> list[dict]:
    """The action lines of a recorded ``_bulk`` request (sources dropped)."""
    lines, out, i = request.body, [], 0
    while i < len(lines):
        out.append(lines[i])
        i += 1 if "delete" in lines[i] else 2
    return out


class TestOpenSearchIndex(SearchIndexContract):
    @pytest.fixture
    def index(self, stub):
        idx = OpenSearchIndex(stub.url, 384, index_name=fresh_name(), backoff_s=0.0)
        yield idx
        idx.close()


class TestOpenSearchServerlessIndex(SearchIndexContract):
    """Serverless: SigV4 (``aoss``) on every request, no refresh, no custom ``_id``s, no ``_delete_by_query`` (the
    stub refuses all three in this mode, so passing the contract shows the adapter avoids them)."""

    @pytest.fixture
    def index(self, aoss_stub, aws_env):
        idx = OpenSearchIndex(aoss_stub.url, 384, index_name=fresh_name(), service="aoss", region="eu-west-1")
        yield idx
        idx.close()


@pytest.mark.skipif(not LIVE_URL, reason="LCABOT_OPENSEARCH_URL is not set")
class TestOpenSearchLive(SearchIndexContract):
    """The contract on a real cluster (SigV4 when the host is an AWS one). A unique index per test, dropped after."""

    @pytest.fixture
    def index(self):
        idx = OpenSearchIndex(LIVE_URL, 384, index_name=f"lcabot-contract-{uuid.uuid4().hex[:12]}")
        if idx.service == "aoss":
            pytest.skip("OpenSearch Serverless is eventually consistent; the contract reads its own writes at once")
        yield idx
        idx.delete_index()
        idx.close()


# -- bulk: per-item results, 429 back-off, undo --------------------------------------------------------------


def test_429_items_are_retried_with_exponential_backoff(stub):
    sleeps: list[float] = []
    idx = OpenSearchIndex(stub.url, 384, index_name=fresh_name(), backoff_s=0.5, sleep=sleeps.append)
    stub.fail_next_bulk_items({0: 429, 3: 429})  # chunk 0 and page 2 of the first bulk
    stub.fail_next_bulk_items({1: 429})  # then page 2 again
    before = len(stub.requests)
    idx.upsert_document(*COFFEE)
    bulks = [r for r in stub.requests[before:] if r.path.endswith("/_bulk")]
    ids = [[a["index"]["_id"].rsplit(":", 1)[0] for a in bulk_actions(b)] for b in bulks]
    assert ids == [
        ["c:d-coffee-0", "c:d-coffee-1", "p:d-coffee:000001", "p:d-coffee:000002", "d:d-coffee"],
        ["c:d-coffee-0", "p:d-coffee:000002"],
        ["p:d-coffee:000002"],
    ]
    assert sleeps == [0.5, 1.0]
    assert idx.bm25("freight", 5)[0][0] == "d-coffee-1"
    assert idx.page_text("d-coffee", 2) == COFFEE[3][1]


def test_429_that_never_ends_fails_after_the_bounded_retries_and_keeps_the_old_version(stub):
    sleeps: list[float] = []
    idx = OpenSearchIndex(stub.url, 384, index_name=fresh_name(), max_retries=2, backoff_s=0.1, sleep=sleeps.append)
    idx.upsert_document(*COFFEE)
    new = make_doc("d-coffee-v2", "coffee.pdf", ["Roasting uses natural gas."], key="/lib/coffee.pdf")
    stub.fail_next_bulk_items({0: 429}, times=3)
    with pytest.raises(IndexWriteError, match=r"c:d-coffee-v2-0:\S+: 429 still rejected after 2 retries"):
        idx.upsert_document(*new)
    assert sleeps == [0.1, 0.2]
    assert [d.doc_id for d in idx.documents()] == ["d-coffee"]
    assert idx.bm25("roasting", 5) == []
    assert idx.bm25("freight", 5)[0][0] == "d-coffee-1"


def test_a_permanent_item_failure_is_raised_by_name_and_what_was_written_is_deleted(stub):
    idx = OpenSearchIndex(stub.url, 384, index_name=fresh_name())
    idx.upsert_document(*COFFEE)
    new = make_doc("d-coffee-v2", "coffee.pdf", ["Roasting uses natural gas.", "Packed in a PET bag."],
                   key="/lib/coffee.pdf")
    stub.fail_next_bulk_items({2: 400})  # the first page of the new version
    before = len(stub.requests)
    with pytest.raises(IndexWriteError) as caught:
        idx.upsert_document(*new)
    assert "p:d-coffee-v2:000001:" in str(caught.value) and "400 mapper_parsing_exception" in str(caught.value)
    undo = [r for r in stub.requests[before:] if r.path.endswith("/_bulk")][-1]
    assert sorted(a["delete"]["_id"].rsplit(":", 1)[0] for a in bulk_actions(undo)) == [
        "c:d-coffee-v2-0", "c:d-coffee-v2-1", "d:d-coffee-v2", "p:d-coffee-v2:000002"]
    assert [d.doc_id for d in idx.documents()] == ["d-coffee"]
    assert idx.bm25("roasting", 5) == [] and idx.chunks(["d-coffee-v2-0"]) == []
    assert idx.bm25("freight", 5)[0][0] == "d-coffee-1"
    stored = stub.indices[idx.index_name].docs.values()
    assert sorted(d.source["key"].rsplit(":", 1)[0] for d in stored) == [
        "c:d-coffee-0", "c:d-coffee-1", "d:d-coffee", "p:d-coffee:000001", "p:d-coffee:000002"]


def test_a_failed_rewrite_of_the_same_document_keeps_it_whole(stub):
    """An SQS redelivery writes the same chunks again: a failure then must not delete the copy already indexed."""
    idx = OpenSearchIndex(stub.url, 384, index_name=fresh_name())
    idx.upsert_document(*COFFEE)
    stub.fail_next_bulk_items({4: 400})  # the document record of the second copy
    with pytest.raises(IndexWriteError):
        idx.upsert_document(*COFFEE)
    assert idx.chunks(["d-coffee-0", "d-coffee-1"]) == COFFEE[1]
    assert [d.doc_id for d in idx.documents()] == ["d-coffee"]
    idx.upsert_document(*COFFEE)  # and a successful re-upsert leaves exactly one version
    assert len(stub.indices[idx.index_name].docs) == 5
    assert sorted(c for c, _ in idx.bm25("kg", 10)) == ["d-coffee-0", "d-coffee-1"]


def test_a_zero_vector_refused_by_a_cosine_index_is_an_index_write_error(stub):
    """A real item-level refusal (not an injected one): an index someone created with lucene/cosinesimil refuses a
    zero vector; the adapter reads the space type from the mapping and undoes the partial write."""
    name = fresh_name()
    body = index_body(384)
    body["mappings"]["properties"]["embedding"]["method"] = {"name": "hnsw", "engine": "lucene",
                                                             "space_type": "cosinesimil"}
    OpenSearch(stub.url).indices.create(index=name, body=body)
    idx = OpenSearchIndex(stub.url, index_name=name)
    with pytest.raises(IndexWriteError, match="zero vector is not supported when space type is"):
        idx.upsert_document(*make_doc("d-empty", "empty.pdf", ["Coal gasification with capture.", ""]))
    assert idx.documents() == [] and stub.indices[name].docs == {}
    idx.upsert_document(*HYDROGEN)
    query = EMBEDDER.embed(["without capture the result is"])[0]
    hits = idx.knn(query, 2)
    assert [c for c, _ in hits] == ["d-h2-1", "d-h2-0"]
    assert np.allclose([s for _, s in hits], HYDROGEN[2][[1, 0]] @ query, atol=1e-5)


def test_bulk_requests_are_bounded_in_size_and_the_record_comes_last(stub):
    idx = OpenSearchIndex(stub.url, 384, index_name=fresh_name(), bulk_max_bytes=40_000)
    doc = make_doc("d-big", "big.pdf", [f"Passage {i} on the electricity mix of plant {i}." for i in range(24)])
    before = len(stub.requests)
    idx.upsert_document(*doc)
    bulks = [r for r in stub.requests[before:] if r.path.endswith("/_bulk")]
    sizes = [sum(len(json.dumps(line)) + 1 for line in b.body) for b in bulks]
    assert len(bulks) == 7 and max(sizes) <= 40_000  # 24 chunks of ≈ 9 kB (the vector), 24 pages, 1 record
    assert bulk_actions(bulks[-1])[-1]["index"]["_id"].startswith("d:d-big:")
    assert len(idx.bm25("electricity", 30)) == 24


# -- search ----------------------------------------------------------------------------------------------------


def test_knn_with_a_narrow_filter_still_returns_k_hits_ranked_by_cosine(stub):
    idx = OpenSearchIndex(stub.url, 384, index_name=fresh_name())
    docs = [make_doc(f"d-{i}", f"doc{i}.pdf", [f"passage {j} of document {i} about topic {j % 7}" for j in range(30)],
                     perspective="industry" if i == 4 else "academic") for i in range(5)]
    for doc in docs:
        idx.upsert_document(*doc)
    query = EMBEDDER.embed(["passage about topic 3"])[0]
    hits = idx.knn(query, 10, doc_ids=["d-4"])
    cosines = docs[4][2] @ query
    best = np.argsort(-cosines)[:10]
    assert [c for c, _ in hits] == [f"d-4-{i}" for i in best]
    assert np.allclose([s for _, s in hits], cosines[best], atol=1e-5)
    assert [c for c, _ in idx.knn(query, 10, perspective="industry")] == [c for c, _ in hits]
    sent = stub.requests_to("/_search")[-1].body
    assert sent["query"]["knn"]["embedding"]["filter"] == {"bool": {"filter": [{"term": {"perspective": "industry"}}]}}
    assert sent["query"]["knn"]["embedding"]["k"] == 10 and sent["size"] == 10
    # the same filter outside the knn clause (post-filtering) loses hits: the stub tells the two apart
    post = OpenSearch(stub.url).search(index=idx.index_name, body={"size": 10, "query": {"bool": {
        "must": [{"knn": {"embedding": {"vector": query.tolist(), "k": 10}}}],
        "filter": [{"term": {"doc_id": "d-4"}}]}}})
    assert len(post["hits"]["hits"]) < 10


def test_uploaded_then_asked_is_found_at_once(stub):
    idx = OpenSearchIndex(stub.url, 384, index_name=fresh_name())
    idx.upsert_document(*COFFEE)
    assert idx.bm25("freight", 5)[0][0] == "d-coffee-1"
    # the stub only shows refreshed writes: without the adapter's refresh the same upsert is not searchable yet
    lazy = OpenSearchIndex(stub.url, 384, index_name=fresh_name(), refresh=False)
    lazy.upsert_document(*COFFEE)
    assert lazy.bm25("freight", 5) == [] and lazy.documents() == []
    stub.indices[lazy.index_name].refresh()
    assert lazy.bm25("freight", 5)[0][0] == "d-coffee-1"


def test_a_whole_request_429_is_retried_with_backoff(stub):
    sleeps: list[float] = []
    idx = OpenSearchIndex(stub.url, 384, index_name=fresh_name(), backoff_s=0.1, sleep=sleeps.append)
    idx.upsert_document(*COFFEE)
    stub.fail_next_requests(429, times=2, path=r"/_search$")
    assert idx.bm25("freight", 5)[0][0] == "d-coffee-1"
    assert sleeps == [0.1, 0.2]


def test_contains_text_and_term_frequency_agree_with_sqlite(stub, tmp_path):
    sqlite = SqliteIndex(tmp_path / "i.sqlite3", 384)
    idx = OpenSearchIndex(stub.url, 384, index_name=fresh_name())
    for backend in (sqlite, idx):
        backend.upsert_document(*COFFEE)
        backend.upsert_document(*HYDROGEN)
    probes = ["Brazil", "BRAZIL", "brazil", "CO2", "CO2e", "CO2 eq", "kg CO2e", "10.42", "0.42", "10", "42", "UK.",
              "Coal", "coal", "Pilkington", "gasification with", "per kg hydrogen", "kg hydrogen.", "-", "Braz"]
    assert [idx.contains_text(p) for p in probes] == [sqlite.contains_text(p) for p in probes]
    assert [idx.contains_text(p) for p in probes[:4]] == [True, False, False, True]
    terms = ["hydrogen", "capture", "emits", "kg", "coffee", "co2", "10.42", "pilkington"]
    assert idx.term_document_frequency(terms) == sqlite.term_document_frequency(terms)
    assert idx.term_document_frequency(terms)[0]["capture"] == 2
    sqlite.close()


def test_kNN_scores_convert_back_to_cosine_for_every_space_type():
    rng = np.random.default_rng(7)
    for _ in range(20):
        q, v = (x / np.linalg.norm(x) for x in rng.standard_normal((2, 16)).astype(np.float32))
        for space in ("cosinesimil", "innerproduct", "l2"):
            assert cosine_from_score(knn_score(space, q, v), space) == pytest.approx(float(q @ v), abs=1e-5)


# -- the index: body, creation, dimension ---------------------------------------------------------------------


def test_the_index_body_sent_is_the_one_in_iac(stub):
    checked_in = json.loads(IAC_BODY.read_text())
    assert checked_in == index_body(384)
    method = checked_in["mappings"]["properties"]["embedding"]["method"]
    assert (method["engine"], method["space_type"]) == ("faiss", "innerproduct")
    idx = OpenSearchIndex(stub.url, 384, index_name=fresh_name())
    idx.upsert_document(*COFFEE)
    puts = [r for r in stub.requests if r.method == "PUT" and r.path == f"/{idx.index_name}"]
    assert [p.body for p in puts] == [checked_in]


def test_dimension_is_read_from_the_mapping_and_a_mismatch_is_refused(stub):
    name = fresh_name()
    OpenSearchIndex(stub.url, 384, index_name=name).upsert_document(*COFFEE)
    reopened = OpenSearchIndex(stub.url, index_name=name)
    assert reopened.dimension == 384
    vectors = reopened.vectors(["d-coffee-1", "d-coffee-0"])
    assert vectors.dtype == np.float32 and np.array_equal(vectors, COFFEE[2][[1, 0]])
    assert reopened.vectors([]).shape == (0, 384)
    with pytest.raises(ValueError, match="384-dimensional"):
        OpenSearchIndex(stub.url, 768, index_name=name).knn(np.ones(768, dtype=np.float32), 1)
    empty = OpenSearchIndex(stub.url, index_name=fresh_name())  # nothing written yet: reads are empty, not errors
    assert (empty.dimension, empty.documents(), empty.bm25("coffee", 5), empty.knn(np.ones(3), 5)) == (0, [], [], [])
    assert not empty.delete_document("d-coffee") and not empty.contains_text("Brazil")


def test_an_index_created_concurrently_is_tolerated(stub, monkeypatch):
    name = fresh_name()
    first = OpenSearchIndex(stub.url, 384, index_name=name)
    second = OpenSearchIndex(stub.url, 384, index_name=name)
    monkeypatch.setattr(second._client.indices, "exists", lambda **kwargs: False)  # it looked before `first` created
    first.upsert_document(*COFFEE)
    second.upsert_document(*HYDROGEN)
    assert len([r for r in stub.requests if r.method == "PUT" and r.path == f"/{name}"]) == 2
    assert [d.doc_id for d in first.documents()] == ["d-coffee", "d-h2"]


# -- the stub refuses what OpenSearch refuses -----------------------------------------------------------------


def _with(change):
    body = index_body(4)
    change(body)
    return body


@pytest.mark.parametrize(("body", "reason"), [
    (_with(lambda b: b["mappings"]["properties"]["embedding"]["method"].update(engine="nmslib", space_type="l2")),
     "nmslib engine is deprecated"),
    (_with(lambda b: b["mappings"]["properties"]["embedding"].pop("dimension")), "Dimension value missing"),
    (_with(lambda b: b["settings"]["index"].pop("knn")), "needs the index setting index.knn: true"),
    (_with(lambda b: b["mappings"]["properties"].update(ordinal={"type": "integr"})), "No handler for type [integr]"),
    (_with(lambda b: b["mappings"]["properties"]["search_text"].update(analyzer="englsh")), "analyzer [englsh] has "),
    (_with(lambda b: b["mappings"]["properties"]["embedding"]["method"].update(engine="lucene", space_type="l1")),
     "lucene engine does not support space type [l1]"),
])
def test_the_stub_refuses_index_bodies_opensearch_refuses(stub, body, reason):
    client = OpenSearch(stub.url)
    name = fresh_name()
    with pytest.raises(RequestError) as caught:
        client.indices.create(index=name, body=body)
    assert caught.value.status_code == 400 and caught.value.error == "mapper_parsing_exception"
    assert reason in caught.value.info["error"]["reason"]
    assert not client.indices.exists(index=name)


DOC = {"type": "chunk", "key": "k", "embedding": [0.5, 0.5, 0.5, 0.5]}
LINES = json.dumps({"index": {"_id": "1"}}) + "\n" + json.dumps(DOC)
JSON = {"content-type": "application/json"}


@pytest.mark.parametrize(("method", "path", "body", "headers", "status", "kind", "reason"), [
    ("PUT", "", index_body(4), JSON, 400, "resource_already_exists_exception", "already exists"),
    ("POST", "-missing/_search", {}, JSON, 404, "index_not_found_exception", "no such index"),
    ("POST", "/_bulk", LINES, JSON, 400, "illegal_argument_exception", "must be terminated by a newline"),
    ("POST", "/_bulk", LINES + "\n", {"content-type": "text/plain"}, 406, None, "Content-Type header [text/plain]"),
    ("POST", "/_bulk?refresh=yes", LINES + "\n", JSON, 400, "illegal_argument_exception", "refresh: [yes]"),
    ("POST", "/_search?size=5", {}, JSON, 400, "illegal_argument_exception", "unrecognized parameter: [size]"),
    ("POST", "/_search", {"size": 10_001}, JSON, 400, "illegal_argument_exception", "Result window is too large"),
    ("POST", "/_search", {"query": {"fuzzy_match": {"text": "x"}}}, JSON, 400, "parsing_exception",
     "no [query] registered for [fuzzy_match]"),
    ("POST", "/_search", {"query": {"knn": {"embedding": {"vector": [1, 0, 0], "k": 2}}}}, JSON, 400,
     "illegal_argument_exception", "Query vector has invalid dimension: 3. Dimension should be: 4"),
    ("POST", "/_search", {"query": {"knn": {"search_text": {"vector": [1, 0, 0, 0], "k": 2}}}}, JSON, 400,
     "illegal_argument_exception", "Field 'search_text' is not knn_vector type."),
    ("POST", "/_search", {"query": {"knn": {"embedding": {"vector": [1, 0, 0, 0], "k": 10_001}}}}, JSON, 400,
     "illegal_argument_exception", "requires k to be in the range"),
    ("POST", "/_search", {"query": {"match": {"text": "x"}}}, JSON, 400, "query_shard_exception",
     "Cannot search on field [text] since it is not indexed."),
    ("POST", "/_search", {"sort": ["search_text"]}, JSON, 400, "illegal_argument_exception",
     "Text fields are not optimised"),
])
def test_the_stub_refuses_requests_opensearch_refuses(stub, method, path, body, headers, status, kind, reason):
    name = fresh_name()
    OpenSearch(stub.url).indices.create(index=name, body=index_body(4))
    raw = (body if isinstance(body, str) else json.dumps(body)).encode()
    answer_status, answer = stub.handle(method, f"/{name}{path}", headers, raw)
    error = answer["error"]
    if kind is None:
        assert (answer_status, error) == (status, reason + " is not supported")
    else:
        assert (answer_status, error["root_cause"][0]["type"]) == (status, kind)
        assert reason in error["root_cause"][0]["reason"]
    assert stub.indices[name].docs == {}


def test_the_stub_refuses_bad_documents_item_by_item(stub):
    name = fresh_name()
    OpenSearch(stub.url).indices.create(index=name, body=index_body(4))
    body = [{"index": {"_id": "a"}}, {**DOC, "embedding": [1.0, 2.0]},
            {"index": {"_id": "b"}}, {**DOC, "colour": "red"},
            {"index": {"_id": "c"}}, DOC]
    answer = OpenSearch(stub.url).bulk(index=name, body=body)
    items = [i["index"] for i in answer["items"]]
    assert (answer["errors"], [i["status"] for i in items]) == (True, [400, 400, 201])
    assert items[0]["error"]["type"] == "mapper_parsing_exception"
    assert items[0]["error"]["caused_by"]["reason"] == "Vector dimension mismatch. Expected: 4, Given: 2"
    assert items[1]["error"]["type"] == "strict_dynamic_mapping_exception"
    assert list(stub.indices[name].docs) == ["c"] and stub.indices[name].visible == {}  # not refreshed


def test_the_stub_scores_bm25_as_lucene_does(stub):
    """Hand-computed: idf = ln(1 + (N − n + 0.5) / (n + 0.5)), times tf / (tf + k1 (1 − b + b dl / avgdl))."""
    name = fresh_name()
    client = OpenSearch(stub.url)
    client.indices.create(index=name, body={"mappings": {"properties": {"t": {"type": "text", "analyzer": "english"}}}})
    client.bulk(index=name, body=[{"index": {"_id": "a"}}, {"t": "the emissions of coal plants"},
                                  {"index": {"_id": "b"}}, {"t": "coal"}], refresh="true")
    hits = client.search(index=name, body={"query": {"match": {"t": "Emission"}}})["hits"]["hits"]
    idf = np.log(1 + (2 - 1 + 0.5) / (1 + 0.5))
    avgdl = (3 + 1) / 2  # "the" and "of" are stop words: not counted in the length
    assert [h["_id"] for h in hits] == ["a"]
    assert hits[0]["_score"] == pytest.approx(idf * 1 / (1 + 1.2 * (1 - 0.75 + 0.75 * 3 / avgdl)))


# -- SigV4 and Serverless -------------------------------------------------------------------------------------


def test_sigv4_for_a_managed_domain_signs_every_request(aws_env):
    with OpenSearchStub(sigv4=SigV4Check(KEY_ID, SECRET, "eu-west-1", "es")) as signed:
        idx = OpenSearchIndex(signed.url, 384, index_name=fresh_name(), service="es", region="eu-west-1")
        connection = idx._client.transport.get_connection()
        assert isinstance(connection, RequestsHttpConnection)
        assert isinstance(connection.session.auth, AWSV4SignerAuth)
        assert (connection.session.auth.service, connection.session.auth.signer.region) == ("es", "eu-west-1")
        idx.upsert_document(*COFFEE)
        assert idx.bm25("freight", 5)[0][0] == "d-coffee-1"
        assert len(signed.requests) >= 5
        for request in signed.requests:  # each one also verified by the stub (a bad signature answers 403)
            assert request.headers["authorization"].startswith(
                f"AWS4-HMAC-SHA256 Credential={KEY_ID}/{request.headers['x-amz-date'][:8]}/eu-west-1/es/aws4_request, ")
            assert request.headers["x-amz-date"].endswith("Z") and len(request.headers["x-amz-date"]) == 16
        forged = OpenSearchIndex(signed.url, 384, index_name=fresh_name(), service="es", region="eu-west-1")
        forged._client.transport.get_connection().session.auth.signer.credentials.secret_key = "not-the-secret"
        with pytest.raises(AuthorizationException, match="signature we calculated does not match"):
            forged._client.search(index=forged.index_name, body={})


def test_serverless_skips_refresh_and_lets_the_service_assign_ids(aoss_stub, aws_env):
    before = len(aoss_stub.requests)
    idx = OpenSearchIndex(aoss_stub.url, 384, index_name=fresh_name(), service="aoss", region="eu-west-1")
    idx.upsert_document(*COFFEE)
    idx.upsert_document(*make_doc("d-coffee-v2", "coffee.pdf", ["Roasting uses natural gas."], key="/lib/coffee.pdf"))
    assert idx.delete_document("d-coffee-v2")
    requests = aoss_stub.requests[before:]
    assert not [r for r in requests if "refresh" in r.params or r.path.endswith(("/_refresh", "/_delete_by_query"))]
    actions = [a for r in requests if r.path.endswith("/_bulk") for a in bulk_actions(r)]
    assert [a for a in actions if "index" in a] == [{"index": {}}] * 8  # 5 + 3 documents, ids chosen by the service
    assert len([a for a in actions if "delete" in a]) == 8  # the old version, then the new one
    assert all("/eu-west-1/aoss/aws4_request" in r.headers["authorization"] for r in requests)
    assert idx.documents() == [] and aoss_stub.indices[idx.index_name].docs == {}


def test_aws_hosts_get_sigv4_and_plain_urls_do_not(aws_env):
    es = OpenSearchIndex("https://search-lca-abc123.eu-west-1.es.amazonaws.com", 384)
    aoss = OpenSearchIndex("https://07tjusf2h91cunochc.us-east-1.aoss.amazonaws.com", 384)
    for idx, service, region in ((es, "es", "eu-west-1"), (aoss, "aoss", "us-east-1")):
        auth = idx._client.transport.get_connection().session.auth
        assert idx.service == service and isinstance(auth, AWSV4SignerAuth)
        assert (auth.service, auth.signer.region, auth.signer.credentials.access_key) == (service, region, KEY_ID)
    plain = OpenSearchIndex("http://admin:s%3Dcret@localhost:9200", 384)
    connection = plain._client.transport.get_connection()
    assert plain.service is None and not isinstance(connection, RequestsHttpConnection)
    assert connection.headers["authorization"] == "Basic " + base64.b64encode(b"admin:s=cret").decode()
    assert connection.host == "http://localhost:9200"
