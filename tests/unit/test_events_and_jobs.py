"""S3 notification decoding, library key rules, job envelopes and the local object store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lcabot import graph
from lcabot.adapters.local_objects import LocalObjectStore
from lcabot.errors import ObjectNotFoundError
from lcabot.graph import ontology
from lcabot.graph.extract import OfflineExtractor
from lcabot.ingest.library import MalformedEventError, in_library, parse_s3_notification, perspective_of
from lcabot.jobs import AnswerJob, ConversationRef, FileRef, MalformedJobError, ReportJob, parse_job
from lcabot.models import Chunk, DocumentRecord, PageSpan, Turn
from tests.events import load_event, s3_notification


def s3_event(name: str, key: str, etag: str | None = "abc123", sequencer: str = "0065A1B2C3") -> str:
    return s3_notification(key, name=name, etag=etag, sequencer=sequencer)


def test_keys_are_url_decoded_including_slashes_and_plus_for_space():
    encoded = "library%2Facademic%2Fcoal+gasification+%282023%29.pdf"
    (change,) = parse_s3_notification(s3_event("ObjectCreated:Put", encoded))
    assert change.key == "library/academic/coal gasification (2023).pdf"
    assert (change.action, change.etag, change.size) == ("created", "abc123", 1234)


def test_removal_has_no_etag_and_a_distinct_idempotency_key():
    created = parse_s3_notification(s3_event("ObjectCreated:Put", "library/a.pdf", sequencer="01"))[0]
    removed = parse_s3_notification(s3_event("ObjectRemoved:Delete", "library/a.pdf", etag=None, sequencer="02"))[0]
    again = parse_s3_notification(s3_event("ObjectCreated:Put", "library/a.pdf", sequencer="03"))[0]
    assert removed.action == "removed" and removed.etag is None
    assert len({created.idempotency_key, removed.idempotency_key, again.idempotency_key}) == 3
    duplicate = parse_s3_notification(s3_event("ObjectCreated:Put", "library/a.pdf", sequencer="01"))[0]
    assert duplicate.idempotency_key == created.idempotency_key


def test_test_event_and_other_event_types_yield_nothing():
    assert parse_s3_notification(json.dumps(load_event("s3_test_event"))) == []
    assert parse_s3_notification(s3_event("ObjectRestore:Completed", "library/a.pdf")) == []


@pytest.mark.parametrize("body", ["not json", "[1, 2]", '{"Records": "x"}', '{"Records": [{"eventName": '
                                  '"ObjectCreated:Put", "s3": {}}]}'])
def test_malformed_notifications_are_refused_with_a_reason(body):
    with pytest.raises(MalformedEventError, match="S3 event"):
        parse_s3_notification(body)


def test_library_keys_and_perspectives():
    assert in_library("library/academic/x.pdf") and in_library("library/x.PDF")
    assert not in_library("reports/x.pdf") and not in_library("library/notes.txt")
    assert perspective_of("library/academic/2023/x.pdf") == "academic"
    assert perspective_of("library/eu_funding/x.pdf") == "eu_funding"
    assert perspective_of("library/x.pdf") == "general"
    assert perspective_of("library/misc/x.pdf") == "general"


def test_jobs_round_trip_through_json():
    conversation = ConversationRef("local", "C1", thread_ts="1700000000.000100", team="T1")
    job = AnswerJob("T1|C1|1700000000.000200", conversation, "U1", "What is the functional unit?",
                    history=(Turn("Which study?", "The coffee study."),))
    assert parse_job(job.to_json()) == job
    report = ReportJob("T1|C1|1700000000.000300", conversation, "U1", FileRef("study.pdf", "reports", "uploads/x.pdf"))
    assert parse_job(report.to_json()) == report


@pytest.mark.parametrize("body, field", [
    ('{"kind": "answer"}', "conversation"),
    ('{"kind": "answer", "conversation": {"platform": "irc", "channel": "c"}}', "platform"),
    ('{"kind": "answer", "conversation": {"platform": "local", "channel": "c"}, "dedupe_key": "k", "user": "u"}',
     "question"),
    ('{"kind": "nope", "conversation": {"platform": "local", "channel": "c"}}', "kind"),
    ("{", "not JSON"),
])
def test_malformed_jobs_name_the_problem(body, field):
    with pytest.raises(MalformedJobError, match=field):
        parse_job(body)


def test_local_object_store_round_trip_and_refuses_escaping_keys(tmp_path):
    store = LocalObjectStore(tmp_path / "bucket")
    store.put("graph/fragments/a.json", b"{}")
    assert store.get("graph/fragments/a.json") == b"{}"
    assert store.head("graph/fragments/a.json").size == 2
    assert store.keys("graph/") == ["graph/fragments/a.json"]
    store.delete("graph/fragments/a.json")
    store.delete("graph/fragments/a.json")  # deleting a missing key is not an error, as in S3
    assert store.head("graph/fragments/a.json") is None
    with pytest.raises(ObjectNotFoundError):
        store.get("graph/fragments/a.json")
    for bad in ("../x", "/etc/passwd", "a//b", ""):
        with pytest.raises(ValueError):
            store.put(bad, b"x")


def test_an_interrupted_write_leaves_no_temporary_file_for_good(tmp_path, monkeypatch):
    """A write interrupted in-process removes its temporary file; one a killed process left (older than an hour)
    is swept when the store is next opened; a younger one (another process's write in progress) is left."""
    import os
    import time

    from lcabot.adapters import local_objects

    store = LocalObjectStore(tmp_path / "bucket")
    store.put("graph/merged.json", b"{}")

    def interrupted(src, dst):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(local_objects.os, "replace", interrupted)
        with pytest.raises(KeyboardInterrupt):
            store.put("graph/merged.json", b'{"nodes": []}')
    folder = tmp_path / "bucket" / "graph"
    assert sorted(p.name for p in folder.iterdir()) == ["merged.json"]
    stale, fresh = folder / ".tmp-killed", folder / ".tmp-writing"
    stale.write_bytes(b"{")
    fresh.write_bytes(b"{")
    old = time.time() - local_objects.STALE_TMP_S - 60
    os.utime(stale, (old, old))
    LocalObjectStore(tmp_path / "bucket")
    assert sorted(p.name for p in folder.iterdir()) == [".tmp-writing", "merged.json"]
    assert store.get("graph/merged.json") == b"{}"


def test_graph_fragment_links_sections_to_their_parents_with_pages():
    record = DocumentRecord("d1", "g.pdf", "library/general/g.pdf", "PEFCR Guidance", "general", 70, 2, (),
                            tuple(str(i) for i in range(1, 71)))
    chunk = Chunk("c1", "d1", 0, ("7 Environmental footprint", "7.6 Cut-off"), 61, 62, "61", "62", "text", "t", "t",
                  (PageSpan(0, 61), PageSpan(40, 62)))
    onto = ontology.load()
    extraction = OfflineExtractor(onto).extract([chunk])
    fragment = json.loads(graph.dumps(graph.document_fragment(record, [chunk], extraction, onto)))
    edges = {(e["source"], e["target"]) for e in fragment["edges"]}
    assert ("section:d1:7 Environmental footprint > 7.6 Cut-off", "section:d1:7 Environmental footprint") in edges
    assert ("section:d1:7 Environmental footprint", "document:d1") in edges
    cut_off = next(n for n in fragment["nodes"] if n["name"] == "7.6 Cut-off")
    assert [c["page"] for c in cut_off["citations"]] == [61, 62]
    assert graph.fragment_key("library/general/g.pdf") != graph.fragment_key("library/general/h.pdf")


def test_outbox_files_never_leave_the_outbox_whatever_the_channel(tmp_path):
    from lcabot.adapters.outbox import LocalOutbox

    report = tmp_path / "report.md"
    report.write_text("# CFP")
    outbox = LocalOutbox(tmp_path / "outbox")
    for channel in ("../../../../tmp/pwned", "/etc", "..", "C1/../../x"):
        outbox.post_files(ConversationRef("local", channel), [report], "done")
    delivered = [Path(f) for e in outbox.read() for f in e["files"]]
    assert len(delivered) == 4
    assert all(p.resolve().is_relative_to((tmp_path / "outbox" / "files").resolve()) for p in delivered)


def test_sqlite_delete_refused_by_a_lock_is_an_index_write_error_saying_the_library_is_busy(tmp_path):
    import sqlite3

    from lcabot.adapters.sqlite_index import SqliteIndex
    from lcabot.errors import IndexWriteError, LibraryBusyError
    from tests.contract.search_index_contract import COFFEE

    index = SqliteIndex(tmp_path / "i.sqlite3", 384)
    index.upsert_document(*COFFEE)
    locker = sqlite3.connect(tmp_path / "i.sqlite3", timeout=0)
    locker.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(LibraryBusyError, match="being updated by another ingest") as refused:
            index.delete_document("d-coffee")
        assert isinstance(refused.value, IndexWriteError)  # what the ingest path handles
    finally:
        locker.rollback()
        locker.close()
    assert [d.doc_id for d in index.documents()] == ["d-coffee"]
