"""End to end on this machine: real corpus PDFs dropped into (moto) S3 travel through the real S3 → SQS
notification to the ingest Lambda, into OpenSearch (the REST stub) and the artifacts bucket, and become answerable
through the answer Lambda. Duplicate deliveries, corrupt and encrypted PDFs, a bulk partial failure, new versions
and deletions each behave as the issue states."""

from __future__ import annotations

import contextlib
import json
import time
from functools import partial

import pytest

from bot_handlers import platforms
from lambdas.ingest import records as ingest_records
from lcabot import graph, messages
from lcabot.adapters.outbox import LocalOutbox
from lcabot.graph import build
from lcabot.jobs import AnswerJob, ConversationRef
from tests.conftest import CORPUS
from tests.fixtures import hostile

pytestmark = pytest.mark.corpus

COFFEE = CORPUS / "studies" / "nab-maslin-2020-coffee-carbon-footprint.pdf"
CHIC = CORPUS / "perspectives" / "eu_funding" / "cordis-chic-256848-objective.pdf"
APPLE = CORPUS / "perspectives" / "public" / "wikipedia-south-tyrolean-apple.pdf"
COFFEE_KEY = "library/academic/Nab & Maslin coffee (2020).pdf"
COFFEE_SOURCE = "Nab & Maslin coffee (2020).pdf"  # citations name the object, as uploaded
CHIC_KEY = "library/eu_funding/cordis chic.pdf"
TABLE_2_QUESTION = ("In Nab & Maslin's Table 2, what are the conventional Brazil emissions for growing, milling and "
                    "exportation in kg CO2e per kg green coffee?")


@pytest.fixture(scope="module")
def library(stack):
    stack.put(COFFEE_KEY, COFFEE)
    stack.put(CHIC_KEY, CHIC)
    handled, failed = stack.ingest()
    assert failed == 0
    return stack


def index(stack):
    from lcabot import wiring
    from lcabot.config import Settings

    return wiring.build_index(Settings.from_env())


def outbox(stack) -> LocalOutbox:
    return LocalOutbox(stack.home / "outbox")


@contextlib.contextmanager
def claude_for_the_handlers(stack, monkeypatch, reply):
    """The handlers have an Anthropic key and reach the Messages API stub answering with ``reply`` (then forget)."""
    from tests.stubs.anthropic_server import AnthropicStub

    with AnthropicStub() as stub:
        stub.always(reply)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.url)  # the anthropic SDK's own setting
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        try:
            with stack.using(anthropic_api_key="sk-ant-stack-test"):
                yield stub
        finally:
            monkeypatch.undo()


def send_answer_job(stack, dedupe_key: str, question: str) -> None:
    job = AnswerJob(dedupe_key, ConversationRef("local", "C-stack", thread_ts="1764460800.000100"), "U1", question)
    stack.sqs.send_message(QueueUrl=stack.env["LCABOT_ANSWER_QUEUE_URL"], MessageBody=job.to_json())


def test_dropped_pdfs_are_indexed_with_their_status_perspective_and_graph_fragment(library):
    status = library.status(COFFEE_KEY)
    assert (status.status, status.n_pages, status.perspective) == ("indexed", 19, "academic")
    # 104 since issue 13: the title printed on p. 1 is the document's title, not a chunk of its own
    assert status.n_chunks == 104 and status.pages_without_text == ()
    docs = {d.source_key: d for d in index(library).documents()}
    assert set(docs) == {COFFEE_KEY, CHIC_KEY}  # keys arrive URL-encoded and are stored decoded
    assert docs[CHIC_KEY].perspective == "eu_funding"
    body = library.s3.get_object(Bucket=library.artifacts_bucket, Key=graph.fragment_key(COFFEE_KEY))["Body"].read()
    fragment = json.loads(body)
    assert fragment["doc_id"] == status.doc_id
    names = {n["name"] for n in fragment["nodes"] if n["type"] == "section"}
    assert {"6 METHODOLOGY", "6.2 Carbon footprint calculation", "6.2.1 Step 1: calculating coffee production"} <= names
    merged = build.loads(library.s3.get_object(Bucket=library.artifacts_bucket, Key=build.MERGED_KEY)["Body"].read())
    assert merged.graph["documents"][status.doc_id] == docs[COFFEE_KEY].title
    coffee = merged.nodes["product_system:green coffee"]
    assert coffee["citations"][0]["doc_id"] == status.doc_id and coffee["mentions"] >= 20


def test_an_answer_job_is_answered_from_the_dropped_pdfs_with_page_11_cited(library):
    send_answer_job(library, "T1|C-stack|1764460800.000200", TABLE_2_QUESTION)
    handled, failed = library.answer()
    assert (handled, failed) == (1, 0)
    (reply,) = [e for e in outbox(library).read() if e.get("dedupe_key") == "T1|C-stack|1764460800.000200"]
    assert not reply["abstained"] and reply["thread_ts"] == "1764460800.000100"
    page_11 = [n for n, c in enumerate(reply["citations"], 1) if c["source"] == COFFEE_SOURCE and c["page"] == 11]
    rows = " ".join(line for line in reply["text"].split("\n") for n in page_11 if line.endswith(f"[{n}]"))
    # Table 2's rows for the question are stated together, cited to p. 11 (the citation shows the first row)
    assert "Total (Brazil): 10.44 kg CO2e kg–1 green coffee" in rows or "Total (Brazil): 1.01 kg CO2e" in rows


def test_a_rag_graph_answer_job_shows_graph_facts_from_the_artifacts_bucket(library):
    job = AnswerJob("T1|C-stack|1764460800.000250", ConversationRef("local", "C-stack", thread_ts="1764460800.000100"),
                    "U1", "What is the functional unit of the green coffee carbon footprint?",
                    retrieval_mode="rag+graph")
    library.sqs.send_message(QueueUrl=library.env["LCABOT_ANSWER_QUEUE_URL"], MessageBody=job.to_json())
    assert library.answer() == (1, 0)
    (reply,) = [e for e in outbox(library).read() if e.get("dedupe_key") == job.dedupe_key]
    assert reply["retrieval_mode"] == "rag+graph" and not reply["abstained"]
    assert reply["facts"] and all(f["citations"] for f in reply["facts"])
    for fact in reply["facts"]:
        for n in fact["citations"]:
            assert reply["citations"][n - 1]["source"] == COFFEE_SOURCE
    assert "Knowledge graph facts used" in reply["text"]


def test_a_duplicate_answer_job_gets_one_reply(library):
    for _ in range(2):
        send_answer_job(library, "T1|C-stack|1764460800.000300", "What is the functional unit of the coffee study?")
    library.answer()
    replies = [e for e in outbox(library).read() if e.get("dedupe_key") == "T1|C-stack|1764460800.000300"]
    assert len(replies) == 1
    assert any(c["source"] == COFFEE_SOURCE for c in replies[0]["citations"])


def test_a_duplicate_s3_delivery_indexes_once(library):
    key = "library/public/apple.pdf"
    library.put(key, APPLE)
    queue = library.env["LCABOT_INGEST_QUEUE_URL"] if "LCABOT_INGEST_QUEUE_URL" in library.env else \
        library.resources.queues["IngestQueue"]
    (message,) = library.sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=2)["Messages"]
    library.sqs.delete_message(QueueUrl=queue, ReceiptHandle=message["ReceiptHandle"])
    for _ in range(2):  # S3 and SQS both deliver at least once: the same event body twice
        library.sqs.send_message(QueueUrl=queue, MessageBody=message["Body"])
    handled, failed = library.ingest()
    assert (handled, failed) == (2, 0)
    status = library.status(key)
    assert status.status == "indexed"  # a second run through the library would have recorded "unchanged"
    assert [d.source_key for d in index(library).documents()].count(key) == 1


def test_corrupt_and_encrypted_pdfs_are_recorded_failed_and_do_not_poison_the_batch(library, tmp_path):
    good = "library/eu_funding/chic again.pdf"
    library.put("library/general/broken.pdf", hostile.truncated(tmp_path).read_bytes())
    library.put("library/general/locked.pdf", hostile.encrypted(tmp_path).read_bytes())
    library.put(good, CHIC)
    handled, failed = library.ingest(batch_size=10)
    assert (handled, failed) == (3, 0)
    broken, locked = library.status("library/general/broken.pdf"), library.status("library/general/locked.pdf")
    assert (broken.status, broken.reason) == ("failed", "corrupt")
    assert (locked.status, locked.reason) == ("failed", "encrypted")
    assert "password" in locked.message or "encrypted" in locked.message
    assert library.status(good).status == "unchanged"  # same content as the CHIC object: not indexed twice
    assert len(index(library).documents()) == len({d.doc_id for d in index(library).documents()})


def test_a_new_version_replaces_the_old_and_a_deletion_removes_chunks_and_fragment(library, tmp_path):
    key = "library/industry/versioned.pdf"
    library.put(key, hostile.plain(tmp_path, "v1.pdf", "Version one reports 4.2 kg CO2e per pallet.").read_bytes())
    library.ingest()
    first = library.status(key)
    library.put(key, hostile.plain(tmp_path, "v2.pdf", "Version two reports 3.9 kg CO2e per pallet.").read_bytes())
    library.ingest()
    second = library.status(key)
    assert (first.status, second.status) == ("indexed", "replaced") and first.doc_id != second.doc_id
    idx = index(library)
    assert [d.doc_id for d in idx.documents() if d.source_key == key] == [second.doc_id]
    assert idx.bm25("Version one", 5, doc_ids=[first.doc_id]) == []
    fragment = json.loads(library.s3.get_object(Bucket=library.artifacts_bucket,
                                                Key=graph.fragment_key(key))["Body"].read())
    assert fragment["doc_id"] == second.doc_id

    library.s3.delete_object(Bucket=library.library_bucket, Key=key)
    library.ingest()
    removed = library.status(key)
    assert removed.status == "removed" and removed.message == messages.removed("versioned.pdf", 1)
    assert all(d.source_key != key for d in index(library).documents())
    listed = library.s3.list_objects_v2(Bucket=library.artifacts_bucket, Prefix=graph.fragment_key(key))
    assert listed.get("KeyCount", 0) == 0
    merged = build.loads(library.s3.get_object(Bucket=library.artifacts_bucket, Key=build.MERGED_KEY)["Body"].read())
    assert first.doc_id not in merged.graph["documents"] and second.doc_id not in merged.graph["documents"]
    assert not any(c["doc_id"] == second.doc_id for _n, d in merged.nodes(data=True) for c in d["citations"])


def test_keys_outside_library_and_non_pdfs_never_reach_the_queue(library):
    library.put("library/notes.txt", b"not a pdf")
    library.s3.put_object(Bucket=library.library_bucket, Key="reports/x.pdf", Body=b"%PDF-1.7")
    handled, failed = library.ingest()
    assert (handled, failed) == (0, 0)


def test_a_failing_answer_job_lands_in_the_dlq_and_the_user_is_told(library):
    dead = "http://127.0.0.1:9"  # the search cluster is down: every attempt fails
    with library.using(opensearch_url=dead):
        send_answer_job(library, "T1|C-stack|1764460800.000900", "What is the functional unit of the coffee study?")
        library.answer()
    assert library.dlq_depth("AnswerDeadLetterQueue") == 1
    entries = [e for e in outbox(library).read() if e.get("channel") == "C-stack" and e["kind"] == "notice"]
    assert [e["text"] for e in entries] == [messages.answer_failed()]


def test_a_bulk_partial_failure_is_retried_then_dead_lettered_and_the_old_version_stays(library, tmp_path):
    key = "library/industry/partial.pdf"
    library.put(key, hostile.plain(tmp_path, "p1.pdf", "The first edition reports 7.7 kg CO2e per crate.").read_bytes())
    library.ingest()
    old = library.status(key)
    assert old.status == "indexed"
    # every delivery of the next version meets a bulk response whose first item is refused; the rest of that
    # bulk is accepted, and the adapter's undo (the next bulk) deletes it again
    for _ in range(3):
        library.opensearch.fail_next_bulk_items({0: 400})
        library.opensearch.fail_next_bulk_items({})
    library.put(key, hostile.plain(tmp_path, "p2.pdf", "The second edition reports 6.1 kg CO2e per crate.",
                                   pages=3).read_bytes())
    try:
        handled, failed = library.ingest()
    finally:
        library.opensearch.clear_faults()
    assert (handled, failed) == (3, 3)  # maxReceiveCount deliveries, each reported as a batch item failure
    assert library.dlq_depth("IngestDeadLetterQueue") == 1
    status = library.status(key)
    assert (status.status, status.reason) == ("failed", "index_error")
    idx = index(library)
    assert [d.doc_id for d in idx.documents() if d.source_key == key] == [old.doc_id]
    hits = idx.chunks([c for c, _ in idx.bm25("second edition crate", 10)])
    assert hits[0].doc_id == old.doc_id and "first edition" in hits[0].text
    assert not [c for c in hits if "second edition" in c.text]


def test_malformed_messages_fail_alone_and_end_in_the_dead_letter_queues(library, tmp_path):
    ingest_dlq, answer_dlq = library.dlq_depth("IngestDeadLetterQueue"), library.dlq_depth("AnswerDeadLetterQueue")
    queue = library.resources.queues["IngestQueue"]
    library.sqs.send_message(QueueUrl=queue, MessageBody="this is not an S3 event")
    library.put("library/public/beside garbage.pdf", hostile.plain(tmp_path, "ok.pdf").read_bytes())
    handled, failed = library.poller("IngestQueue", library.ingest_handler(), batch_size=10).drain(timeout_s=120)
    assert failed == 3 and handled == 4  # the garbage three times (maxReceiveCount), the PDF once
    assert library.status("library/public/beside garbage.pdf").status == "indexed"
    library.sqs.send_message(QueueUrl=library.env["LCABOT_ANSWER_QUEUE_URL"], MessageBody='{"kind": "answer"}')
    assert library.answer() == (3, 3)
    assert library.dlq_depth("IngestDeadLetterQueue") == ingest_dlq + 1
    assert library.dlq_depth("AnswerDeadLetterQueue") == answer_dlq + 1


def test_with_an_anthropic_key_the_answer_lambda_answers_through_claude(library, monkeypatch):
    from tests.stubs.anthropic_server import evidence_of, tool_use

    def claude(body: dict):
        row = next(e for e in evidence_of(body) if "10.44" in e["text"])
        claim = {"text": "Exportation adds 10.44 kg CO2e per kg of green coffee (conventional, Brazil).",
                 "evidence_ids": [row["id"]], "quote": row["text"]}
        return tool_use("give_claims", {"claims": [claim]})

    with claude_for_the_handlers(library, monkeypatch, claude) as stub:
        send_answer_job(library, "T1|C-stack|1764460800.000800", TABLE_2_QUESTION)
        assert library.answer() == (1, 0)
    (reply,) = [e for e in outbox(library).read() if e.get("dedupe_key") == "T1|C-stack|1764460800.000800"]
    assert reply["generator"] == "claude"
    assert reply["answer"] == "Exportation adds 10.44 kg CO2e per kg of green coffee (conventional, Brazil). [1]"
    assert [(c["source"], c["page"]) for c in reply["citations"]] == [(COFFEE_SOURCE, 11)]
    assert stub.requests[0].headers["x-api-key"] == "sk-ant-stack-test"


def test_with_an_anthropic_key_the_ingest_lambda_extracts_graph_relations_through_claude(library, monkeypatch,
                                                                                         tmp_path):
    from tests.stubs.anthropic_server import evidence_of, tool_use

    def claude(body: dict):
        chunk = next(e for e in evidence_of(body) if "EF 3.1" in e["text"])
        triple = {"chunk": chunk["chunk"], "subject": "EF 3.1", "subject_type": "lcia_method", "relation": "covers",
                  "object": "GWP", "object_type": "impact_category", "quote": "EF 3.1 method covers climate change"}
        return tool_use("give_triples", {"triples": [triple, {**triple, "relation": "invented_by"}]})

    key = "library/general/claude-graph.pdf"
    text = "The EF 3.1 method covers climate change, expressed as GWP100 in kg CO2e per functional unit."
    with claude_for_the_handlers(library, monkeypatch, claude) as stub:
        library.put(key, hostile.plain(tmp_path, "claude-graph.pdf", text).read_bytes())
        assert library.ingest()[1] == 0
    model = stub.requests[0].body["model"]
    assert model == (library.env.get("LCABOT_GRAPH_MODEL") or "claude-haiku-4-5")
    assert stub.requests[0].headers["x-api-key"] == "sk-ant-stack-test"
    fragment = json.loads(library.s3.get_object(Bucket=library.artifacts_bucket, Key=graph.fragment_key(key))["Body"]
                          .read())
    assert fragment["extraction"] == {"extractor": f"claude:{model}", "triples": 1, "dropped": 1, "failed_chunks": 0}
    edges = [(e["source"], e["relation"], e["target"]) for e in fragment["edges"] if e["relation"] != "part_of"]
    assert edges == [("lcia_method:EF method", "covers", "impact_category:climate change")]
    merged = build.loads(library.s3.get_object(Bucket=library.artifacts_bucket, Key=build.MERGED_KEY)["Body"].read())
    edge = merged.edges["lcia_method:EF method", "impact_category:climate change", "covers"]
    assert edge["citations"][0]["quote"] == text and edge["citations"][0]["page"] == 1


def test_deleting_one_of_two_copies_keeps_the_content_searchable_under_the_other(library, tmp_path):
    data = hostile.plain(tmp_path, "copy.pdf", "The shared copy reports 5.5 kg CO2e per widget.").read_bytes()
    first, second = "library/public/copy one.pdf", "library/academic/copy two.pdf"
    library.put(first, data)
    library.ingest()
    library.put(second, data)
    library.ingest()
    assert (library.status(first).status, library.status(second).status) == ("indexed", "unchanged")
    library.s3.delete_object(Bucket=library.library_bucket, Key=first)
    library.ingest()
    assert library.status(first).status == "removed"
    moved = library.status(second)
    assert (moved.status, moved.perspective) == ("indexed", "academic")
    docs = [d for d in index(library).documents() if d.doc_id == moved.doc_id]
    assert [(d.source_key, d.perspective) for d in docs] == [(second, "academic")]


# ---------------------------------------------------------------- every ingest ends with a status (issue 14, item 3)


class _Stopped(BaseException):
    """The Lambda runtime ending an invocation at its timeout: no ``except Exception`` runs."""


def test_an_unexpected_ingest_error_is_logged_with_the_key_and_recorded_before_the_dead_letter_queue(
        library, monkeypatch, caplog):
    """The index failing to load (or anything else unexpected) went to the dead-letter queue with no status and no
    log line. Now: ``indexing`` from the first delivery, a log line naming the key at every failed one, ``failed``
    with the reason when the record is given up on."""
    from lambdas.ingest import app as ingest_app

    key = "library/public/South Tyrolean apple.pdf"
    dlq = library.dlq_depth("IngestDeadLetterQueue")

    class Unreachable:  # the library as it is when its index cannot be reached
        def apply(self, change, max_pages=None):
            raise RuntimeError("the OpenSearch domain refused the connection")

    deps = platforms.build(library.settings, library=Unreachable())
    library.put(key, APPLE)
    poller = library.poller("IngestQueue", partial(ingest_app.handle, deps=deps))
    assert poller.poll_once() == (1, 1)
    assert (library.status(key).status, library.status(key).message) == ("indexing",
                                                                          messages.indexing("South Tyrolean apple.pdf"))
    assert poller.drain(timeout_s=120) == (2, 2)
    status = library.status(key)
    assert (status.status, status.reason, status.message) == ("failed", "error",
                                                              messages.ingest_error("South Tyrolean apple.pdf"))
    assert library.dlq_depth("IngestDeadLetterQueue") == dlq + 1
    failures = [r for r in caplog.records if r.getMessage() == "library change failed"]
    assert len(failures) == 3 and {r.key for r in failures} == {key} and all(r.levelname == "ERROR" for r in failures)
    assert "the OpenSearch domain refused the connection" in str(failures[0].exc_info[1])


def test_a_pdf_longer_than_one_run_can_index_is_refused_before_it_is_parsed(library):
    """With time for 3 pages left after the deadline margin (at PAGES_PER_S), Heijungs' 9 pages are refused up
    front, saying why, and nothing is indexed."""

    key = "library/academic/Heijungs 2020.pdf"
    poller = library.poller("IngestQueue", library.ingest_handler())
    poller.timeout_s = ingest_records.DEADLINE_MARGIN_S + 3.5 / ingest_records.PAGES_PER_S
    library.put(key, CORPUS / "perspectives" / "academic" / "heijungs-2020-monte-carlo-runs.pdf")
    assert poller.drain(timeout_s=120) == (1, 0)
    status = library.status(key)
    assert (status.status, status.reason) == ("failed", "too_large")
    assert status.message.endswith("its 9 pages are above the limit of 3 pages; split it into smaller PDFs")
    assert not [d for d in index(library).documents() if d.source_key == key]


def test_an_ingest_still_running_near_the_deadline_says_so_and_that_version_is_not_tried_again(
        library, tmp_path, monkeypatch):
    from lcabot.ingest.library import Library

    key = "library/industry/slow.pdf"
    monkeypatch.setattr(ingest_records, "DEADLINE_MARGIN_S", 2.0)
    poller = library.poller("IngestQueue", library.ingest_handler())
    poller.timeout_s = 3.0  # the watch fires after 1 s; one run takes a 1-page PDF
    applied = []

    def slow(self, change, max_pages=None):
        applied.append(change.key)
        time.sleep(2.0)
        raise _Stopped

    with monkeypatch.context() as stopping:
        stopping.setattr(Library, "apply", slow)
        library.put(key, hostile.plain(tmp_path, "slow.pdf", "A slow EPD: 3.2 kg CO2e per declared unit.")
                    .read_bytes())
        with pytest.raises(_Stopped):
            poller.poll_once()
    status = library.status(key)
    assert (status.status, status.reason, status.message) == ("failed", "too_large",
                                                              messages.ingest_out_of_time("slow.pdf", 3.0))
    time.sleep(2.0)  # the stopped run's deadline (its idempotency lease) has passed; SQS redelivers
    assert poller.drain(timeout_s=60) == (1, 0)
    assert applied == [key]  # the redelivery did not try the same version again
    assert library.status(key).reason == "too_large"
    assert not [d for d in index(library).documents() if d.source_key == key]


def test_a_run_stopped_without_a_word_on_every_delivery_leaves_failed_not_indexing(library, tmp_path, monkeypatch):
    """Out of memory, no handler runs: the status stayed 'indexing' for good. The last delivery now records first
    what holds should it be stopped too."""
    from lcabot.ingest.library import Library

    key = "library/industry/heavy.pdf"
    monkeypatch.setattr(ingest_records, "DEADLINE_MARGIN_S", 1.0)
    poller = library.poller("IngestQueue", library.ingest_handler())
    poller.timeout_s = 3.0  # the idempotency lease of a stopped run ends with it

    def killed(self, change, max_pages=None):
        raise _Stopped

    monkeypatch.setattr(Library, "apply", killed)
    library.put(key, hostile.plain(tmp_path, "heavy.pdf", "A heavy EPD: 9.9 kg CO2e per declared unit.").read_bytes())
    for delivery in (1, 2, 3):
        time.sleep(0 if delivery == 1 else 3.2)
        with pytest.raises(_Stopped):
            poller.poll_once()
        expected = "failed" if delivery == 3 else "indexing"
        assert library.status(key).status == expected, delivery
    status = library.status(key)
    assert (status.reason, status.message) == ("error", messages.ingest_stopped("heavy.pdf"))


def test_the_deadline_watch_never_overwrites_an_outcome_already_recorded(library, tmp_path, monkeypatch):
    from lcabot.ingest.library import Library

    key = "library/industry/just in time.pdf"
    monkeypatch.setattr(ingest_records, "DEADLINE_MARGIN_S", 2.0)
    poller = library.poller("IngestQueue", library.ingest_handler())
    poller.timeout_s = 3.0  # the watch fires 1 s in
    real = Library.apply

    def slow_after_the_outcome(self, change, max_pages=None):
        status = real(self, change, max_pages)
        time.sleep(1.5)  # the outcome is recorded; the idempotency record is not yet saved
        return status

    monkeypatch.setattr(Library, "apply", slow_after_the_outcome)
    library.put(key, hostile.plain(tmp_path, "jit.pdf", "An EPD in time: 1.2 kg CO2e per declared unit.").read_bytes())
    assert poller.drain(timeout_s=60) == (1, 0)
    assert library.status(key).status == "indexed"


# ---------------------------------------------------------------- the library follows the bucket, whatever the order


def _take_record(stack):
    """The next ingest message, taken off the queue as the Lambda's SQS record."""
    poller = stack.poller("IngestQueue", stack.ingest_handler())
    for _ in range(20):
        got = stack.sqs.receive_message(QueueUrl=poller.queue_url, MaxNumberOfMessages=1, WaitTimeSeconds=1,
                                        VisibilityTimeout=60, MessageSystemAttributeNames=["All"]).get("Messages", [])
        if got:
            stack.sqs.delete_message(QueueUrl=poller.queue_url, ReceiptHandle=got[0]["ReceiptHandle"])
            return poller._record(got[0])
    raise AssertionError("no ingest message")


def _invoke(stack, record) -> dict:
    from lcabot.dev.loop import LambdaContext

    return stack.ingest_handler()({"Records": [record]}, LambdaContext("IngestFunction", 900.0))


def _held_first_read(monkeypatch, key):
    """The first read of ``key`` waits until released: a run that has the bytes and has not yet indexed them."""
    import threading

    from lcabot.adapters.aws import S3ObjectStore

    reached, release = threading.Event(), threading.Event()
    real, first = S3ObjectStore.get, [True]

    def get(self, k):
        data = real(self, k)
        if k == key and first:
            first.clear()
            reached.set()
            release.wait(60)
        return data

    monkeypatch.setattr(S3ObjectStore, "get", get)
    return reached, release


@pytest.mark.parametrize("meanwhile", ["a new version is indexed", "the object is deleted"])
def test_a_run_outlived_by_a_change_to_its_object_leaves_the_library_as_the_bucket_is(
        library, tmp_path, monkeypatch, meanwhile):
    """A run that read version 1, finishing after version 2 was indexed, put version 1 back (status 'replaced');
    after a deletion it left the deleted document searchable."""
    import threading

    key = f"library/academic/race {meanwhile}.pdf"
    library.put(key, hostile.plain(tmp_path, "r1.pdf", "Race, first edition: 1.11 kg CO2e per crate.").read_bytes())
    first = _take_record(library)
    reached, release = _held_first_read(monkeypatch, key)
    run = threading.Thread(target=_invoke, args=(library, first))
    run.start()
    assert reached.wait(60)
    if meanwhile == "a new version is indexed":
        library.put(key, hostile.plain(tmp_path, "r2.pdf", "Race, second edition: 2.22 kg CO2e per crate.")
                    .read_bytes())
    else:
        library.s3.delete_object(Bucket=library.library_bucket, Key=key)
    _invoke(library, _take_record(library))
    release.set()
    run.join(120)
    indexed = [d for d in index(library).documents() if d.source_key == key]
    status = library.status(key)
    if meanwhile == "a new version is indexed":
        (doc,) = indexed
        text = " ".join(c.text for c in index(library).chunks([c for c, _ in index(library).bm25("race crate", 10)])
                        if c.doc_id == doc.doc_id)
        assert "second edition" in text and "first edition" not in text
        head = library.s3.head_object(Bucket=library.library_bucket, Key=key)["ETag"].strip('"')
        assert status.etag == head and status.status in ("indexed", "replaced", "unchanged")
    else:
        assert indexed == [] and status.status == "removed"


def test_a_late_event_of_an_older_version_does_not_overwrite_the_newer_ones_status(library, tmp_path):
    key = "library/academic/two versions.pdf"
    library.put(key, hostile.plain(tmp_path, "v1.pdf", "Version one: 1.11 kg CO2e per crate.").read_bytes())
    older = _take_record(library)
    etag = library.put(key, hostile.plain(tmp_path, "v2.pdf", "Version two: 2.22 kg CO2e per crate.").read_bytes())
    _invoke(library, _take_record(library))  # SQS keeps no order: the newer event first
    _invoke(library, older)
    status = library.status(key)
    assert (status.status, status.etag) == ("indexed", etag)
