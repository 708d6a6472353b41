"""What a chat message asks for (``bot_handlers.intent``) and the file-job envelopes the bots enqueue."""

from __future__ import annotations

import json

import pytest

from bot_handlers.intent import Intent, parse_intent, strip_mentions
from lcabot import messages
from lcabot.jobs import ConversationRef, FileRef, IndexJob, MalformedJobError, ReportJob, parse_job


@pytest.mark.parametrize("text, expected", [
    ("<@U0BOT> What is the functional unit?", Intent("question", "What is the functional unit?")),
    ("<@U0BOT> --graph Which impact categories does EF 3.1 cover?",
     Intent("question", "Which impact categories does EF 3.1 cover?", mode="rag+graph")),
    ("What is GWP100? --rag", Intent("question", "What is GWP100?", mode="rag")),
    ("<at>lcabot</at> report", Intent("report", "report")),
    ("index eu", Intent("index", "index eu", perspective="eu_funding")),
    ("index Academic", Intent("index", "index Academic", perspective="academic")),
    ("index", Intent("index", "index", perspective="general")),
    ("<@U0BOT>", Intent("help", "")),
    ("help", Intent("help", "help")),
    ("a--graph is not a flag", Intent("question", "a--graph is not a flag")),
])
def test_parse_intent(text, expected):
    assert parse_intent(text) == expected


def test_a_pdf_in_a_library_channel_is_indexed_unless_a_report_is_asked():
    assert parse_intent("", library_channel=True, has_file=True).kind == "index"
    assert parse_intent("report please", library_channel=True, has_file=True).kind == "report"
    assert parse_intent("What is this?", library_channel=True, has_file=False).kind == "question"


def test_strip_mentions_removes_slack_and_teams_mentions_only():
    assert strip_mentions("<@U0BOT|lcabot>  hi <at>LCA Bot</at> <#C1> <!channel>") == "hi <#C1> <!channel>"


def test_index_job_round_trips_with_a_platform_file_and_perspective():
    conversation = ConversationRef("slack", "D0ALICE", "1764460800.000100", "T0", status_message="1764460800.000200")
    file = FileRef("CHIC objective.pdf", url="https://files.slack.com/files-pri/T0-F1/download/chic.pdf", size=81234)
    job = IndexJob("slack:T0:D0ALICE:1764460800.000100:F1", conversation, "U0ALICE", file, "eu_funding")
    assert parse_job(job.to_json()) == job
    report = ReportJob("k", conversation, "U0ALICE", FileRef("s.pdf", bucket="b", key="uploads/s.pdf"))
    assert parse_job(report.to_json()) == report


@pytest.mark.parametrize("file, message", [
    ({"name": "a.pdf"}, "either an S3 object"),
    ({"name": "a.pdf", "bucket": "b", "key": "k", "url": "https://x"}, "either an S3 object"),
    ({"name": "a.pdf", "url": "https://x", "size": -1}, "file.size"),
    ({"name": "a.pdf", "url": "https://x", "size": True}, "file.size"),
])
def test_malformed_files_are_refused_with_the_field_named(file, message):
    body = {"kind": "index", "dedupe_key": "k", "user": "U", "file": file, "perspective": "general",
            "conversation": {"platform": "slack", "channel": "C"}}
    with pytest.raises(MalformedJobError, match=message):
        parse_job(json.dumps(body))


def test_an_unknown_perspective_is_refused():
    body = {"kind": "index", "dedupe_key": "k", "user": "U", "file": {"name": "a.pdf", "url": "https://x"},
            "perspective": "blogs", "conversation": {"platform": "slack", "channel": "C"}}
    with pytest.raises(MalformedJobError, match="perspective"):
        parse_job(json.dumps(body))


# ---------------------------------------------------------------- one intent → action tree (bot_handlers.dispatch)


def _decide(text: str, files: list[str], pdfs: list[str], platform: str = "slack", **kw):
    from bot_handlers.dispatch import decide

    return decide(parse_intent(text, has_file=bool(pdfs)), files, pdfs, lambda name: name, platform=platform, **kw)


def test_the_same_message_gets_the_same_action_on_both_platforms():
    from bot_handlers.dispatch import FileJobs, Question, Reply

    for platform in ("slack", "teams"):
        assert _decide("What is GWP100? --rag", [], [], platform) == Question("What is GWP100?", "rag")
        assert _decide("report", ["study.pdf"], ["study.pdf"], platform) == FileJobs(("study.pdf",), False, "general")
        assert _decide("index eu", ["a.pdf", "b.pdf"], ["a.pdf", "b.pdf"], platform) == \
            FileJobs(("a.pdf", "b.pdf"), True, "eu_funding")
        assert _decide("report", ["photo.png"], [], platform) == Reply(messages.only_pdfs("photo.png"))
        assert _decide("What is this?", ["study.pdf"], ["study.pdf"], platform) == \
            Reply(messages.pdf_needs_intent("study.pdf"))
        assert _decide("", [], [], platform) == Reply(messages.chat_help())
        assert _decide("x" * 2001, [], [], platform) == Reply(messages.question_too_long(2001, 2000))
    assert _decide("report", [], [], "slack") == Reply(messages.file_missing("make a report", "slack"))
    assert _decide("index", [], [], "teams") == Reply(messages.file_missing("add a document to the library", "teams"))


def test_a_pdf_without_words_is_a_report_in_teams_and_a_question_back_in_slack():
    from bot_handlers.dispatch import FileJobs, Reply

    assert _decide("", ["s.pdf"], ["s.pdf"], "teams", bare_pdf_is_report=True) == FileJobs(("s.pdf",), False,
                                                                                             "general")
    assert _decide("", ["s.pdf"], ["s.pdf"], "slack") == Reply(messages.pdf_needs_intent("s.pdf"))
