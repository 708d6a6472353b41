"""The Slack bot end to end on this machine: signed requests in the API Gateway event shape reach the real Bolt
app (``bot_handlers.slack.app.handler``), which enqueues jobs on the template's queues in moto; the real answer and
report Lambdas answer from the real corpus and reply through ``slack_sdk`` to a local server speaking the Slack Web
API (``tests/stubs/slack_server.py``), which records every call."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot_handlers.slack import app as slack_app
from bot_handlers.slack import listeners
from lcabot import messages
from lcabot.adapters import conversations
from lcabot.dev.loop import LambdaContext
from tests import slack_events as ev
from tests.fixtures import hostile
from tests.stack.conftest import CHANNEL_LIMIT, CHIC, COFFEE, COFFEE_KEY, GENEROUS, USER_LIMIT
from tests.stack.conftest import TABLE_2_QUESTION as TABLE_2
from tests.stubs.faulty_proxy import FaultyProxy
from tests.stubs.slack_server import SlackAPIStub

pytestmark = pytest.mark.corpus

CHANNEL = "C0LCA"


_stack: list = []  # the stack the module's fixture set up: post() invokes the handler with its dependencies


@pytest.fixture(scope="module")
def slack(stack):
    stub = SlackAPIStub(team_id=ev.TEAM).start()
    with stack.using(slack_bot_token=stub.bot_token, slack_signing_secret=ev.SIGNING_SECRET,
                     slack_api_url=stub.api_url, slack_library_channels=frozenset({"C0LIBRARY"})):
        stack.put(COFFEE_KEY, COFFEE)
        stack.ingest()
        stack.slack = stub
        _stack[:] = [stack]
        yield stack
    stub.stop()


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


_clock = iter(range(1, 10_000))


def new_ts() -> str:
    """A fresh Slack message ts (seconds.micro, increasing)."""
    return f"{int(time.time())}.{next(_clock):06d}"


def post(event: dict) -> dict:
    """The Slack function's invocation with the stack's current dependencies."""
    return slack_app.handle(event, LambdaContext("SlackFunction", timeout_s=10), _stack[0].deps)


def replies(stub: SlackAPIStub, channel: str, thread_ts: str) -> list[dict]:
    """The bot's messages in a thread (the thread root excluded)."""
    return [m for m in stub.messages(channel, thread_ts=thread_ts) if m.get("user") == stub.bot_user_id]


def block_text(message: dict) -> str:
    parts = []
    for block in message.get("blocks") or []:
        for item in [block.get("text"), *(block.get("elements") or []), *(block.get("fields") or [])]:
            if isinstance(item, dict) and isinstance(item.get("text"), str):
                parts.append(item["text"])
    return "\n".join(parts)


def seed_root(stub: SlackAPIStub, ts: str, text: str, channel: str = CHANNEL, user: str = "U0ALICE") -> None:
    stub.add_message(channel, text, user=user, ts=ts)


# ---------------------------------------------------------------- 1. entry


def test_url_verification_is_answered_with_the_challenge(slack):
    body = json.dumps({"token": "legacy", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
                       "type": "url_verification"})
    response = post(ev.api_gateway_event(body, "application/json"))
    assert response["statusCode"] == 200
    assert "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" in response["body"]


def test_bad_and_stale_signatures_are_rejected_and_nothing_is_enqueued(slack):
    ts = new_ts()
    before = len(slack.slack.calls_to("chat.postMessage"))
    forged = ev.event_callback(ev.mention("What is GWP100?", ts), signature="v0=" + "0" * 64)
    wrong_secret = ev.event_callback(ev.mention("What is GWP100?", ts), secret="not-the-signing-secret")
    stale = ev.event_callback(ev.mention("What is GWP100?", ts), timestamp=int(time.time()) - 6 * 60)
    assert [post(e)["statusCode"] for e in (forged, wrong_secret, stale)] == [401, 401, 401]
    assert len(slack.slack.calls_to("chat.postMessage")) == before
    assert post({"body": None})["statusCode"] == 400  # not an API Gateway event: refused before Bolt


def test_retries_and_duplicate_deliveries_produce_exactly_one_reply(slack):
    ts = new_ts()
    seed_root(slack.slack, ts, "<@U0BOT> What is the functional unit of the coffee study?")
    mention = ev.mention("What is the functional unit of the coffee study?", ts)
    first = ev.event_callback(mention)
    retry = ev.event_callback(mention, event_id=json.loads(first["body"])["event_id"],
                              headers={"x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout"})
    other_id = ev.event_callback(mention)  # same message, new event_id: the dedupe is on team + channel + ts
    as_message = ev.event_callback(ev.message("<@U0BOT> What is the functional unit of the coffee study?", ts,
                                              channel=CHANNEL, channel_type="channel", thread_ts=ts))
    assert [post(e)["statusCode"] for e in (first, retry, other_id, as_message)] == [200] * 4
    assert slack.answer() == (1, 0)
    (reply,) = replies(slack.slack, CHANNEL, ts)
    assert "coffee" in block_text(reply).lower()


# ---------------------------------------------------------------- 1b. the claim under DynamoDB faults

COFFEE_QUESTION = "What is the functional unit of the coffee study?"


@pytest.fixture
def dynamodb(slack, monkeypatch):
    """The handlers' DynamoDB calls go through a proxy that can lose a response, fail a call or slow every call."""
    proxy = FaultyProxy(slack.endpoint).start()
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", proxy.url)
    slack.use()  # clients built from now on go through the proxy
    yield proxy
    monkeypatch.undo()
    slack.use()
    proxy.stop()


def answers_in(stub: SlackAPIStub, channel: str, thread_ts: str) -> list[str]:
    """The texts of the bot's answers (Block Kit replies) in a thread."""
    return [block_text(m) for m in replies(stub, channel, thread_ts) if m.get("blocks")]


@pytest.mark.parametrize("lost", ["TransactWriteItems", "PutItem"])
def test_a_claim_or_settle_whose_response_was_lost_does_not_lose_the_message(slack, dynamodb, lost):
    """The write happened, its response did not arrive, the SDK sent it again: the retry finds the request's own
    token and goes on (the claim was a plain conditional put before, so its retry failed on our own first write and
    the message was dropped as a duplicate, and so was Slack's retry)."""
    ts = new_ts()
    seed_root(slack.slack, ts, f"<@U0BOT> {COFFEE_QUESTION}")
    event = ev.event_callback(ev.mention(COFFEE_QUESTION, ts))
    dynamodb.lose_response(lost)
    assert post(event)["statusCode"] == 200
    assert dynamodb.count(lost) == 2  # sent, lost, sent again
    assert post(event)["statusCode"] == 200  # Slack's own retry is a duplicate now
    assert slack.answer() == (1, 0)
    (answer,) = answers_in(slack.slack, CHANNEL, ts)
    assert "1 kg of green coffee" in answer


class _Stopped(BaseException):
    """The Lambda runtime ending an invocation (its timeout): no ``except Exception`` runs."""


def test_an_invocation_stopped_between_claim_and_job_leaves_only_a_lease_that_a_later_retry_takes(slack, monkeypatch):
    monkeypatch.setattr(conversations, "LEASE_S", 1)
    ts = new_ts()
    seed_root(slack.slack, ts, f"<@U0BOT> {COFFEE_QUESTION}")
    event = ev.event_callback(ev.mention(COFFEE_QUESTION, ts))

    def stopped(job):
        raise _Stopped

    with monkeypatch.context() as timing_out:
        timing_out.setattr(slack.deps.queues, "send", stopped)
        with pytest.raises(_Stopped):
            post(event)
    assert post(event)["statusCode"] == 200  # Slack's first retry, inside the lease: the first may still run
    assert slack.answer() == (0, 0)
    time.sleep(2.1)  # the lease (whole seconds) has run out with no job queued
    assert post(event)["statusCode"] == 200  # Slack's next retry acts
    assert post(event)["statusCode"] == 200  # and settled it: this one is a duplicate
    assert slack.answer() == (1, 0)
    (answer,) = answers_in(slack.slack, CHANNEL, ts)
    assert "1 kg of green coffee" in answer


def test_an_invocation_stopped_after_queueing_its_job_leaves_no_placeholder_searching(slack, monkeypatch):
    """Stopped between the job and the settle, the claim's lease runs out and Slack's retry queues a second job
    with a second placeholder; the answer worker runs the message once, and the second placeholder stayed at
    "Searching the LCA library…" for good. It now says the message is answered in the thread."""
    monkeypatch.setattr(conversations, "LEASE_S", 1)
    ts = new_ts()
    seed_root(slack.slack, ts, f"<@U0BOT> {COFFEE_QUESTION}")
    event = ev.event_callback(ev.mention(COFFEE_QUESTION, ts))

    def stopped(claim):
        raise _Stopped

    with monkeypatch.context() as timing_out:
        timing_out.setattr(slack.deps.conversations, "settle", stopped)
        with pytest.raises(_Stopped):
            post(event)
    time.sleep(2.1)
    assert post(event)["statusCode"] == 200  # Slack's retry: the lease ran out, nothing settled
    assert slack.answer() == (2, 0)
    thread = replies(slack.slack, CHANNEL, ts)
    assert len(thread) == 2
    assert sum("1 kg of green coffee" in block_text(m) for m in thread) == 1
    assert [m["text"] for m in thread if "1 kg of green coffee" not in block_text(m)] == [messages.answered_already()]


def test_the_acknowledgement_makes_at_most_two_dynamodb_calls(slack, dynamodb):
    root, follow, stranger = new_ts(), new_ts(), new_ts()
    seed_root(slack.slack, root, f"<@U0BOT> {COFFEE_QUESTION}")
    calls = dynamodb.count()
    post(ev.event_callback(ev.mention(COFFEE_QUESTION, root)))
    assert dynamodb.calls[calls:] == ["TransactWriteItems", "PutItem"]  # claim + thread + rate limits; settle
    calls = dynamodb.count()
    slack.slack.add_message(CHANNEL, "And for the organic farms?", ts=follow, thread_ts=root)
    post(ev.event_callback(ev.message("And for the organic farms?", follow, channel=CHANNEL, channel_type="channel",
                                      thread_ts=root)))
    assert dynamodb.calls[calls:] == ["TransactWriteItems", "PutItem"]  # the thread checked within the claim
    calls = dynamodb.count()
    post(ev.event_callback(ev.message("Lunch?", new_ts(), channel=CHANNEL, channel_type="channel",
                                      thread_ts=stranger)))
    assert dynamodb.calls[calls:] == ["TransactWriteItems"]  # not a bot thread: nothing written, nothing said
    assert slack.answer() == (2, 0)
    first, second = answers_in(slack.slack, CHANNEL, root)
    assert "1 kg of green coffee" in first and "organic" in second.lower()


def test_concurrent_deliveries_of_one_message_make_one_job(slack):
    ts = new_ts()
    seed_root(slack.slack, ts, f"<@U0BOT> {COFFEE_QUESTION}")
    mention = ev.mention(COFFEE_QUESTION, ts)
    deliveries = [ev.event_callback(mention) for _ in range(8)]
    with ThreadPoolExecutor(8) as pool:
        assert [r["statusCode"] for r in pool.map(post, deliveries)] == [200] * 8
    assert slack.answer() == (1, 0)
    assert len(replies(slack.slack, CHANNEL, ts)) == 1


def test_dynamodb_failing_gets_slack_to_retry_with_nothing_posted(slack, dynamodb):
    ts = new_ts()
    seed_root(slack.slack, ts, f"<@U0BOT> {COFFEE_QUESTION}")
    event = ev.event_callback(ev.mention(COFFEE_QUESTION, ts))
    dynamodb.fail("TransactWriteItems", times=3)  # every attempt the bounded client makes
    assert post(event)["statusCode"] == 500
    assert replies(slack.slack, CHANNEL, ts) == []
    assert post(event)["statusCode"] == 200  # Slack's retry
    assert slack.answer() == (1, 0)
    (answer,) = answers_in(slack.slack, CHANNEL, ts)
    assert "1 kg of green coffee" in answer


# ---------------------------------------------------------------- 2 and 3. questions and replies


def test_a_mention_is_answered_in_its_thread_with_cited_block_kit_replacing_the_placeholder(slack):
    ts = new_ts()
    seed_root(slack.slack, ts, f"<@U0BOT> {TABLE_2}")
    assert post(ev.event_callback(ev.mention(TABLE_2, ts)))["statusCode"] == 200
    (placeholder,) = replies(slack.slack, CHANNEL, ts)
    assert placeholder["text"] == messages.searching() and placeholder["thread_ts"] == ts
    assert slack.answer() == (1, 0)
    (reply,) = replies(slack.slack, CHANNEL, ts)
    assert reply["ts"] == placeholder["ts"]  # updated in place (chat.update), not a second message
    text = block_text(reply)
    assert "10.44" in text
    assert "Nab &amp; Maslin coffee (2020).pdf" in text and "p. 11" in text  # escaped file name, printed page
    assert any(b.get("block_id") == "feedback" for b in reply["blocks"])
    assert len(reply["text"]) <= 3000


def test_a_direct_message_is_answered(slack):
    ts = new_ts()
    slack.slack.add_message("D0ALICE", "What is the functional unit in the coffee study?", ts=ts)
    post(ev.event_callback(ev.message("What is the functional unit in the coffee study?", ts)))
    assert slack.answer() == (1, 0)
    (reply,) = replies(slack.slack, "D0ALICE", ts)
    assert "green coffee" in block_text(reply).lower()


def test_a_follow_up_in_the_thread_needs_no_mention_and_carries_the_thread_as_history(slack):
    root = new_ts()
    seed_root(slack.slack, root, f"<@U0BOT> {TABLE_2}")
    post(ev.event_callback(ev.mention(TABLE_2, root)))
    slack.answer()
    follow = new_ts()
    slack.slack.add_message(CHANNEL, "And for the organic farms?", ts=follow, thread_ts=root)
    before = len(slack.slack.calls_to("conversations.replies"))
    post(ev.event_callback(ev.message("And for the organic farms?", follow, channel=CHANNEL, channel_type="channel",
                                      thread_ts=root)))
    assert slack.answer() == (1, 0)
    assert len(slack.slack.calls_to("conversations.replies")) > before
    answers = replies(slack.slack, CHANNEL, root)
    assert len(answers) == 2 and answers[1]["thread_ts"] == root
    follow_up = block_text(answers[1])
    assert "no answer (abstained)" not in follow_up and "organic" in follow_up.lower()
    assert "Nab &amp; Maslin coffee (2020).pdf" in follow_up  # answered from the coffee study, with its sources


@pytest.mark.parametrize("extra", [
    {"bot_id": "B0OTHER", "subtype": "bot_message"},  # another bot
    {"user": "U0BOT"},  # the bot itself
    {"subtype": "message_changed"},  # an edit
    {"subtype": "channel_join"},
])
def test_own_messages_other_bots_edits_and_joins_are_ignored(slack, extra):
    ts = new_ts()
    before = len(slack.slack.calls)
    event = ev.message("What is GWP100?", ts)
    event.update(extra)
    assert post(ev.event_callback(event))["statusCode"] == 200
    assert [c.method for c in slack.slack.calls[before:] if c.method != "auth.test"] == []


def test_a_channel_message_outside_a_bot_thread_is_ignored(slack):
    ts = new_ts()
    before = len(slack.slack.calls)
    post(ev.event_callback(ev.message("lunch anyone?", ts, channel=CHANNEL, channel_type="channel")))
    assert [c.method for c in slack.slack.calls[before:] if c.method != "auth.test"] == []


def test_document_text_cannot_ping_or_break_rendering(slack, tmp_path):
    hostile_key = "library/general/notice board.pdf"
    text = "The notice board emission factor is 7.77 kg CO2e per board <!channel> <@U0ALICE> & <b>bold</b>."
    slack.put(hostile_key, hostile.plain(tmp_path, "board.pdf", text).read_bytes())
    slack.ingest()
    ts = new_ts()
    seed_root(slack.slack, ts, "<@U0BOT> What is the notice board emission factor?")
    post(ev.event_callback(ev.mention("What is the notice board emission factor?", ts)))
    slack.answer()
    (reply,) = replies(slack.slack, CHANNEL, ts)
    rendered = block_text(reply) + reply["text"]
    assert "7.77" in rendered
    assert "<!channel>" not in rendered and "<@U0ALICE>" not in rendered
    assert "&lt;!channel&gt;" in rendered and "&amp;" in rendered


def test_feedback_buttons_are_recorded_with_question_and_answer(slack):
    ts = new_ts()
    seed_root(slack.slack, ts, f"<@U0BOT> {TABLE_2}")
    post(ev.event_callback(ev.mention(TABLE_2, ts)))
    slack.answer()
    (reply,) = replies(slack.slack, CHANNEL, ts)
    (button,) = [e for b in reply["blocks"] if b.get("block_id") == "feedback" for e in b["elements"]
                 if e["action_id"] == "feedback_down"]
    payload = {"type": "block_actions", "user": {"id": "U0BOB"}, "channel": {"id": CHANNEL},
               "container": {"type": "message", "message_ts": reply["ts"], "channel_id": CHANNEL},
               "message": reply, "trigger_id": "1.2.3",
               "actions": [{"action_id": "feedback_down", "block_id": "feedback", "value": button["value"],
                            "type": "button", "action_ts": new_ts()}]}
    assert post(ev.interaction(payload))["statusCode"] == 200
    (vote,) = [v for v in slack.deps.conversations.feedback("slack", ev.TEAM, CHANNEL)
               if v["sk"] == f"{reply['ts']}#U0BOB"]
    assert vote["vote"] == "down" and vote["question"] == TABLE_2 and "10.44" in vote["answer"]
    assert slack.slack.ephemerals[-1]["text"] == messages.feedback_thanks("down")


def test_retrieval_mode_is_a_channel_setting_and_a_per_question_option(slack):
    response = post(ev.slash_command("/lca-mode", "graph", channel="C0GRAPH"))
    assert response["statusCode"] == 200 and messages.mode_set("rag+graph") in response["body"]
    ts, override = new_ts(), new_ts()
    for t, text in ((ts, "What is the functional unit of the green coffee carbon footprint?"),
                    (override, "--rag What is the functional unit of the green coffee carbon footprint?")):
        seed_root(slack.slack, t, f"<@U0BOT> {text}", channel="C0GRAPH")
        post(ev.event_callback(ev.mention(text, t, channel="C0GRAPH")))
    assert slack.answer() == (2, 0)
    (graph_reply,) = replies(slack.slack, "C0GRAPH", ts)
    (rag_reply,) = replies(slack.slack, "C0GRAPH", override)
    # the ingest Lambda built the graph in the artifacts bucket: the channel's mode uses it, --rag does not
    assert "Mode: RAG + knowledge graph" in block_text(graph_reply)
    assert "Knowledge graph facts used:" in block_text(graph_reply)
    assert "Mode: RAG only" in block_text(rag_reply) and "Knowledge graph facts used" not in block_text(rag_reply)
    shown = post(ev.slash_command("/lca-mode", "", channel="C0GRAPH"))["body"]
    assert "RAG + knowledge graph" in shown


# ---------------------------------------------------------------- 4. /lca-report


def test_lca_report_opens_a_pdf_modal_and_uploads_the_report_files_to_the_thread(slack):
    trigger = "13345224609.738474920.8088930838d88f008e1"
    assert post(ev.slash_command("/lca-report", trigger_id=trigger))["statusCode"] == 200
    view = slack.slack.views[-1]
    (file_input,) = [b["element"] for b in view["blocks"] if b["type"] == "input"]
    assert file_input["type"] == "file_input" and file_input["filetypes"] == ["pdf"]
    study = slack.slack.register_file(COFFEE.read_bytes(), "coffee study.pdf")
    submission = {"type": "view_submission", "user": {"id": "U0ALICE"}, "trigger_id": "1.2.4", "view": {
        **view, "id": "V0REPORT1", "state": {"values": {listeners.REPORT_BLOCK: {listeners.REPORT_ACTION: {
            "type": "file_input", "files": [study]}}}}}}
    assert post(ev.interaction(submission))["statusCode"] == 200
    assert post(ev.interaction(submission))["statusCode"] == 200  # a repeated submission runs one report
    assert slack.report() == (1, 0)
    uploads = [u for u in slack.slack.uploads if u["filename"].startswith("coffee-study-cfp")]
    assert sorted(u["filename"].rsplit(".", 1)[1] for u in uploads) == ["docx", "md", "png"]
    (md,) = [u for u in uploads if u["filename"].endswith(".md")]
    assert "| Exportation | 10.44 |" in md["data"].decode()
    progress = [m for m in slack.slack.messages(CHANNEL) if messages.report_started("coffee study.pdf") in
                m.get("text", "") or m.get("ts") == md["thread_ts"]]
    assert progress and md["thread_ts"] == progress[0]["ts"]
    assert messages.report_ready("coffee study.pdf") in slack.slack.messages(CHANNEL, md["thread_ts"])[0]["text"]


def test_a_non_pdf_in_the_report_modal_is_refused_in_the_modal(slack):
    trigger = "13345224609.738474920.8088930838d88f008e2"
    post(ev.slash_command("/lca-report", trigger_id=trigger))
    view = slack.slack.views[-1]
    picture = slack.slack.register_file(b"\x89PNG\r\n", "chart.png", filetype="png", mimetype="image/png")
    submission = {"type": "view_submission", "user": {"id": "U0ALICE"}, "view": {
        **view, "id": "V0REPORT2", "state": {"values": {listeners.REPORT_BLOCK: {listeners.REPORT_ACTION: {
            "type": "file_input", "files": [picture]}}}}}}
    response = post(ev.interaction(submission))
    assert json.loads(response["body"]) == {"response_action": "errors",
                                            "errors": {listeners.REPORT_BLOCK: "Choose a PDF file."}}


def test_mentioning_report_on_a_message_with_a_pdf_starts_a_report(slack):
    ts = new_ts()
    study = slack.slack.register_file(COFFEE.read_bytes(), "coffee again.pdf")
    seed_root(slack.slack, ts, "<@U0BOT> report")
    post(ev.event_callback(ev.mention("report", ts, files=[study])))
    assert slack.report() == (1, 0)
    names = sorted(u["filename"] for u in slack.slack.uploads if u["thread_ts"] == ts)
    assert names == ["coffee-again-cfp-chart.png", "coffee-again-cfp-report.docx", "coffee-again-cfp-report.md"]


# ---------------------------------------------------------------- 5. indexing from Slack


def test_a_pdf_shared_with_index_is_added_to_the_library_and_the_bot_says_when_it_is_searchable(slack):
    ts = new_ts()
    shared = slack.slack.register_file(CHIC.read_bytes(), "CHIC objective.pdf")
    slack.slack.add_message("D0ALICE", "index eu", ts=ts)
    post(ev.event_callback(ev.message("index eu", ts, files=[shared])))
    assert slack.report() == (1, 0)
    head = slack.s3.head_object(Bucket=slack.library_bucket, Key="library/eu_funding/CHIC objective.pdf")
    assert json.loads(head["Metadata"]["lcabot-conversation"])["channel"] == "D0ALICE"
    assert slack.ingest() == (1, 0)
    (reply,) = replies(slack.slack, "D0ALICE", ts)
    assert reply["text"].startswith("CHIC objective.pdf ")
    status = slack.status("library/eu_funding/CHIC objective.pdf")
    assert reply["text"] == messages.index_done(status)


def test_an_encrypted_pdf_dropped_in_a_library_channel_gets_the_reason(slack, tmp_path):
    ts = new_ts()
    locked = slack.slack.register_file(hostile.encrypted(tmp_path).read_bytes(), "locked.pdf")
    slack.slack.add_message("C0LIBRARY", "", ts=ts)
    post(ev.event_callback(ev.message("", ts, channel="C0LIBRARY", channel_type="channel", files=[locked])))
    assert slack.report() == (1, 0)
    assert slack.ingest() == (1, 0)
    (reply,) = replies(slack.slack, "C0LIBRARY", ts)
    assert reply["text"].startswith("locked.pdf was not added to the library:")
    assert "password" in reply["text"] or "encrypted" in reply["text"]


# ---------------------------------------------------------------- 6. limits


def test_a_slack_429_is_waited_out_and_the_answer_still_arrives(slack):
    ts = new_ts()
    seed_root(slack.slack, ts, "<@U0BOT> What is the functional unit of the coffee study?")
    post(ev.event_callback(ev.mention("What is the functional unit of the coffee study?", ts)))
    slack.slack.rate_limit_next("chat.update", retry_after=1)
    assert slack.answer() == (1, 0)
    limited, ok = slack.slack.calls_to("chat.update")[-2:]
    assert (limited.status, ok.status) == (429, 200) and ok.at - limited.at >= 1.0
    (reply,) = replies(slack.slack, CHANNEL, ts)
    assert "green coffee" in block_text(reply).lower()


def test_a_user_over_the_rate_limit_is_answered_politely(slack, monkeypatch):
    monkeypatch.setattr(conversations, "RATE_WINDOW_S", 10**9)  # all eleven requests fall in one window
    sent = []
    with slack.using(user_rate_limit=USER_LIMIT, channel_rate_limit=CHANNEL_LIMIT):  # the deployed limits
        for _ in range(USER_LIMIT + 1):
            ts = new_ts()
            sent.append(ts)
            post(ev.event_callback(ev.mention("What is GWP100?", ts, user="U0HASTY", channel="C0BUSY")))
    last = [m for m in slack.slack.messages("C0BUSY") if m.get("thread_ts") == sent[-1]]
    assert [m["text"] for m in last] == [messages.rate_limited()]
    queued = [m for m in slack.slack.messages("C0BUSY") if m.get("text") == messages.searching()]
    assert len(queued) == USER_LIMIT
    slack.sqs.purge_queue(QueueUrl=slack.env["LCABOT_ANSWER_QUEUE_URL"])


def test_a_deleted_placeholder_does_not_lose_the_answer(slack):
    ts = new_ts()
    seed_root(slack.slack, ts, "<@U0BOT> What is the functional unit of the coffee study?")
    post(ev.event_callback(ev.mention("What is the functional unit of the coffee study?", ts)))
    slack.slack.fail_next("chat.update", "message_not_found")  # someone deleted "Searching the LCA library…"
    assert slack.answer() == (1, 0)
    placeholder, answer = replies(slack.slack, CHANNEL, ts)
    assert placeholder["text"] == messages.searching()
    assert "green coffee" in block_text(answer).lower() and answer["thread_ts"] == ts


# ---------------------------------------------------------------- hostile input and failures


def test_a_file_name_cannot_ping_the_channel(slack):
    ts = new_ts()
    shared = slack.slack.register_file(CHIC.read_bytes(), "<!channel> budget.pdf")
    slack.slack.add_message("D0ALICE", "index", ts=ts)
    post(ev.event_callback(ev.message("index", ts, files=[shared])))
    (placeholder,) = replies(slack.slack, "D0ALICE", ts)
    assert placeholder["text"] == "Adding &lt;!channel&gt; budget.pdf to the library (general perspective)…"
    slack.sqs.purge_queue(QueueUrl=slack.env["LCABOT_REPORT_QUEUE_URL"])


def test_a_shared_pdf_never_replaces_a_library_document(slack, tmp_path):
    key = "library/industry/curated.pdf"
    slack.put(key, hostile.plain(tmp_path, "curated.pdf", "Curated EPD: 2.31 kg CO2e per declared unit.").read_bytes())
    slack.ingest()
    before = slack.s3.head_object(Bucket=slack.library_bucket, Key=key)["ETag"]
    ts = new_ts()
    forged = slack.slack.register_file(
        hostile.plain(tmp_path, "evil.pdf", "Curated EPD: 0.01 kg CO2e per declared unit.").read_bytes(), "curated.pdf")
    slack.slack.add_message("D0MALLORY", "index industry", ts=ts)
    post(ev.event_callback(ev.message("index industry", ts, channel="D0MALLORY", user="U0MALLORY", files=[forged])))
    assert slack.report() == (1, 0)
    assert slack.s3.head_object(Bucket=slack.library_bucket, Key=key)["ETag"] == before
    (reply,) = replies(slack.slack, "D0MALLORY", ts)
    assert reply["text"] == messages.index_exists("curated.pdf", key)


def test_a_failed_enqueue_deletes_the_placeholder_and_slacks_retry_gets_one_answer(slack, monkeypatch):
    ts = new_ts()
    seed_root(slack.slack, ts, "<@U0BOT> What is the functional unit of the coffee study?")
    event = ev.event_callback(ev.mention("What is the functional unit of the coffee study?", ts))
    queues = slack.deps.queues

    def throttled(job):
        raise RuntimeError("SQS throttled")

    with monkeypatch.context() as throttling:
        throttling.setattr(queues, "send", throttled)
        assert post(event)["statusCode"] == 500  # Slack retries
        assert replies(slack.slack, CHANNEL, ts) == []  # the placeholder of the failed attempt is gone
    assert post(event)["statusCode"] == 200
    assert slack.answer() == (1, 0)
    (reply,) = replies(slack.slack, CHANNEL, ts)
    assert "green coffee" in block_text(reply).lower()


def test_a_slack_429_in_the_acknowledgement_path_is_not_waited_out(slack):
    ts = new_ts()
    seed_root(slack.slack, ts, "<@U0BOT> What is the functional unit of the coffee study?")
    event = ev.event_callback(ev.mention("What is the functional unit of the coffee study?", ts))
    slack.slack.rate_limit_next("chat.postMessage", retry_after=4)
    start = time.monotonic()
    assert post(event)["statusCode"] == 500
    assert time.monotonic() - start < 3.0  # Slack's deadline; its own retry comes later
    assert post(event)["statusCode"] == 200  # the claim was released: the retry is acted on
    assert slack.answer() == (1, 0)
    assert len(replies(slack.slack, CHANNEL, ts)) == 1


def test_the_bot_not_being_in_the_channel_is_acknowledged_not_retried(slack):
    ts = new_ts()
    slack.slack.fail_next("chat.postMessage", "not_in_channel")
    assert post(ev.event_callback(ev.mention("What is GWP100?", ts, channel="C0NOTIN")))["statusCode"] == 200
    assert slack.deps.conversations.claim("slack", f"slack:{ev.TEAM}:C0NOTIN:{ts}").outcome == \
        conversations.DUPLICATE  # settled: Slack's retry is not acted on


def test_an_event_without_a_channel_is_acknowledged(slack):
    event = ev.mention("What is GWP100?", new_ts())
    del event["channel"]
    assert post(ev.event_callback(event))["statusCode"] == 200


def test_a_file_shared_event_is_acknowledged_and_acted_on_only_by_its_message(slack):
    """Slack sends ``file_shared`` beside the ``message`` sharing the file; without a listener Bolt answered 404 and
    Slack retried it."""
    before = len(slack.slack.calls_to("chat.postMessage"))
    event = {"type": "file_shared", "file_id": "F0SHARED", "user_id": "U0ALICE", "channel_id": CHANNEL,
             "file": {"id": "F0SHARED"}, "event_ts": new_ts()}
    assert post(ev.event_callback(event))["statusCode"] == 200
    assert len(slack.slack.calls_to("chat.postMessage")) == before


def _fuzzed_bodies(n: int) -> list[tuple[str, str]]:
    """``n`` (body, content type) pairs: real request shapes (a mention, a direct message, ``/lca-report``,
    ``/lca-mode``, a feedback button, the report modal's submission) with a field deleted, retyped or truncated,
    nested fields included, plus bodies that are not Slack's at all."""
    import random
    from urllib.parse import urlencode

    rng = random.Random(14)
    junk = [None, 0, -1, 1.5, True, "", "x" * 3000, [], [1, "a"], {}, {"id": 7}, "<!channel>", "\u0000"]

    def mutate(value, depth=0):
        if isinstance(value, dict) and value and depth < 3:
            value = dict(value)
            key = rng.choice(sorted(value))
            choice = rng.random()
            if choice < 0.3:
                del value[key]
            elif choice < 0.7:
                value[key] = rng.choice(junk)
            else:
                value[key] = mutate(value[key], depth + 1)
        return value

    def event_callback(event):
        return json.dumps({"token": "t", "team_id": ev.TEAM, "api_app_id": "A0TEST", "type": "event_callback",
                           "event_id": f"Ev{rng.randrange(10**8)}", "event_time": 1, "event": event})

    def command(name):
        return {"token": "legacy", "team_id": ev.TEAM, "channel_id": "C0FUZZ", "user_id": "U0FUZZ",
                "command": name, "text": "rag", "trigger_id": "1.2.3"}

    feedback = {"type": "block_actions", "team": {"id": ev.TEAM}, "user": {"id": "U0FUZZ"},
                "channel": {"id": "C0FUZZ"}, "message": {"ts": "1.1", "text": "answer"},
                "actions": [{"action_id": "feedback_up", "value": json.dumps({"q": "?", "h": "x"})}]}
    submission = {"type": "view_submission", "team": {"id": ev.TEAM}, "user": {"id": "U0FUZZ"},
                  "view": {"id": "V0FUZZ", "callback_id": listeners.REPORT_CALLBACK,
                           "private_metadata": json.dumps({"channel": "C0FUZZ"}),
                           "state": {"values": {listeners.REPORT_BLOCK: {listeners.REPORT_ACTION: {"files": [
                               {"id": "F0FUZZ", "name": "a.txt", "filetype": "text"}]}}}}}}
    bodies = []
    for i in range(n):
        kind = i % 7
        if kind == 0:
            bodies.append((event_callback(mutate(ev.mention("What is GWP100?", f"{i}.000001", channel="C0FUZZ"))),
                           "application/json"))
        elif kind == 1:
            bodies.append((event_callback(mutate(ev.message("hello", f"{i}.000002", channel="D0FUZZ"))),
                           "application/json"))
        elif kind in (2, 3):
            fields = mutate(command("/lca-report" if kind == 2 else "/lca-mode"))
            bodies.append((urlencode({k: v if isinstance(v, str) else json.dumps(v) for k, v in fields.items()}),
                           "application/x-www-form-urlencoded"))
        elif kind in (4, 5):
            payload = mutate(feedback if kind == 4 else submission)
            bodies.append((urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"))
        else:
            whole = event_callback(ev.mention("What is GWP100?", f"{i}.000003", channel="C0FUZZ"))
            bodies.append(rng.choice([(whole[: rng.randrange(len(whole))], "application/json"),
                                      ("[1, 2, 3]", "application/json"), ("payload=%5B%5D", "text/plain"),
                                      ("payload=%7Bbroken", "application/x-www-form-urlencoded"),
                                      (json.dumps({"type": "event_callback", "event": "x"}), "application/json"),
                                      ("{" * 5000, "application/json"), ("", "application/json")]))
    return bodies


@pytest.mark.parametrize("timestamp", ["abc", "", "1e9", "9" * 5000])
def test_an_unreadable_timestamp_header_gets_401_not_an_exception(slack, timestamp):
    """slack_sdk's verifier reads the timestamp with int(): 'abc' raised ValueError out of the handler."""
    event = ev.event_callback(ev.mention("What is GWP100?", new_ts()))
    event["headers"]["x-slack-request-timestamp"] = timestamp
    assert post(event)["statusCode"] == 401


@pytest.mark.parametrize("channel_name,text", [("payload-team", "graph"), ("lca", "graph payload")])
def test_a_slash_command_holding_the_word_payload_is_acted_on(slack, channel_name, text):
    """Bolt takes a form body holding "payload" for an interaction; /lca-mode from #payload-team was refused 400."""
    from urllib.parse import urlencode

    body = urlencode({"token": "legacy", "team_id": ev.TEAM, "team_domain": "lca", "channel_id": "C0PAYLOAD",
                      "channel_name": channel_name, "user_id": "U0ALICE", "user_name": "alice",
                      "command": "/lca-mode", "text": text, "api_app_id": "A0TEST",
                      "response_url": "http://127.0.0.1:9/commands/1", "trigger_id": "1.2.3"})
    response = post(ev.api_gateway_event(body, "application/x-www-form-urlencoded"))
    assert response["statusCode"] == 200
    expected = messages.mode_set("rag+graph") if text == "graph" else messages.mode_is("rag+graph")
    assert expected in response["body"]


@pytest.mark.parametrize("actions", [[], [{}], [{"action_id": 5, "value": "{}"}],
                                     [{"action_id": "feedback_up", "value": 7}]])
def test_button_clicks_without_a_readable_action_get_400(slack, actions):
    payload = {"type": "block_actions", "user": {"id": "U0ALICE"}, "channel": {"id": CHANNEL},
               "message": {"ts": "1.1", "text": "answer"}, "actions": actions}
    assert post(ev.interaction(payload))["statusCode"] == 400


def test_a_rate_limited_message_delivered_twice_at_once_is_answered_once(slack, monkeypatch):
    """A rate-limited claim writes nothing, so deliveries arriving together each replied; the reply now follows
    the settle only one of them can write."""
    import threading

    monkeypatch.setattr(conversations, "RATE_WINDOW_S", 10**9)
    user, channel = f"U0PAIR{time.time_ns()}", "C0PAIR"
    root = new_ts()
    post(ev.event_callback(ev.mention("What is GWP100?", root, user=user, channel=channel)))
    slack.use(user_rate_limit=1)  # this user is at the limit now
    ts = new_ts()
    pair = [ev.event_callback(ev.mention("and GWP20?", ts, user=user, channel=channel, thread_ts=root)),
            ev.event_callback(ev.message("<@U0BOT> and GWP20?", ts, user=user, channel=channel,
                                         channel_type="channel", thread_ts=root))] * 3
    barrier = threading.Barrier(len(pair))

    def deliver(event):
        barrier.wait()
        return post(event)["statusCode"]

    try:
        with ThreadPoolExecutor(len(pair)) as pool:
            assert list(pool.map(deliver, pair)) == [200] * len(pair)
    finally:
        slack.use(user_rate_limit=GENEROUS["user_rate_limit"])
    polite = [m for m in slack.slack.messages(channel, thread_ts=root) if m.get("text") == messages.rate_limited()]
    assert len(polite) == 1
    drain(slack, "LCABOT_ANSWER_QUEUE_URL")


def test_when_the_second_of_two_shared_pdfs_cannot_be_queued_the_first_is_queued_once_and_the_second_said(
        slack, monkeypatch):
    """Both placeholders were deleted, the claim released and Slack's retry queued the first PDF again, leaving a
    placeholder no worker would update."""
    from tests.conftest import CORPUS

    ts = new_ts()
    eu = CORPUS / "perspectives" / "eu_funding"
    one = slack.slack.register_file((eu / "cordis-hyperfarm-101000828-report.pdf").read_bytes(), "hyperfarm.pdf")
    two = slack.slack.register_file((eu / "ec-rtd-enough-food-sector-decarbonisation.pdf").read_bytes(),
                                    "enough.pdf")
    slack.slack.add_message("D0MULTI", "index eu_funding", ts=ts)
    event = ev.event_callback(ev.message("index eu_funding", ts, channel="D0MULTI", files=[one, two]))
    queues = slack.deps.queues
    sent = []
    real_send = queues.send

    def second_fails(job):
        sent.append(job.file.name)
        if len(sent) == 2:
            raise RuntimeError("SQS throttled")
        real_send(job)

    with monkeypatch.context() as throttling:
        throttling.setattr(queues, "send", second_fails)
        assert post(event)["statusCode"] == 200
    assert post(event)["statusCode"] == 200  # a retry (were there one) is a duplicate
    texts = [m["text"] for m in replies(slack.slack, "D0MULTI", ts)]
    assert texts == [messages.index_started("hyperfarm.pdf", "eu_funding"), messages.not_queued("enough.pdf")]
    assert slack.report() == (1, 0)
    assert slack.ingest() == (1, 0)
    assert slack.status("library/eu_funding/hyperfarm.pdf").status == "indexed"


def drain(slack, queue: str) -> None:
    """Drop the jobs on ``queue`` (not purged: SQS allows one PurgeQueue a minute, which another test uses)."""
    url = slack.env[queue]
    while batch := slack.sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages"):
        slack.sqs.delete_message_batch(QueueUrl=url, Entries=[
            {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(batch)])


def test_a_question_over_the_core_limit_is_refused_before_it_is_queued(slack):
    """A 100,000-character mention is told the limit at once (2,000 characters); no "Searching…" placeholder, no
    job."""
    ts = new_ts()
    assert post(ev.event_callback(ev.mention("What is GWP100? " + "x" * 100_000, ts, channel="C0LONG")))[
        "statusCode"] == 200
    thread = [m for m in slack.slack.messages("C0LONG") if m.get("thread_ts") == ts]
    assert [m["text"] for m in thread] == [messages.question_too_long(100_016, 2000)]
    assert not any(m.get("text") == messages.searching() for m in slack.slack.messages("C0LONG"))


def test_fuzzed_requests_never_raise_or_get_a_5xx_and_unsigned_ones_get_401(slack):
    """Issue 14: 500 bodies, each sent unsigned and signed. The signature is checked before the body is read, so
    every unsigned one gets 401; a signed one Bolt cannot read gets 400, one no listener acts on 200; no request
    raises or gets a 5xx (which Slack would retry)."""
    statuses = {}
    for body, content_type in _fuzzed_bodies(500):
        unsigned = post(ev.api_gateway_event(body, content_type, signature="v0=" + "0" * 64))
        assert unsigned["statusCode"] == 401, body[:200]
        signed = post(ev.api_gateway_event(body, content_type))
        assert signed["statusCode"] < 500, (signed, body[:300])
        statuses[signed["statusCode"]] = statuses.get(signed["statusCode"], 0) + 1
    assert set(statuses) <= {200, 400} and statuses.get(400, 0) >= 50 and statuses.get(200, 0) >= 200, statuses
    for queue in ("LCABOT_ANSWER_QUEUE_URL", "LCABOT_REPORT_QUEUE_URL"):  # the well-formed ones' jobs, dropped
        # (not purged: SQS allows one PurgeQueue a minute, which another test uses)
        url = slack.env[queue]
        while batch := slack.sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages"):
            slack.sqs.delete_message_batch(QueueUrl=url, Entries=[
                {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(batch)])


def test_an_unreadable_thread_history_still_gets_an_answer(slack):
    ts = new_ts()
    seed_root(slack.slack, ts, "<@U0BOT> What is the functional unit of the coffee study?")
    follow = new_ts()
    slack.slack.add_message(CHANNEL, "<@U0BOT> What is the functional unit of the coffee study?", ts=follow,
                            thread_ts=ts)
    post(ev.event_callback(ev.mention("What is the functional unit of the coffee study?", follow, thread_ts=ts)))
    slack.slack.fail_next("conversations.replies", "missing_scope", times=5)
    assert slack.answer() == (1, 0)
    (reply,) = replies(slack.slack, CHANNEL, ts)
    assert "green coffee" in block_text(reply).lower()


def test_a_file_deleted_before_the_worker_runs_gets_share_it_again(slack):
    ts = new_ts()
    shared = slack.slack.register_file(COFFEE.read_bytes(), "gone.pdf")
    seed_root(slack.slack, ts, "<@U0BOT> report")
    post(ev.event_callback(ev.mention("report", ts, files=[shared])))
    slack.slack._files.pop(shared["id"])  # deleted in Slack meanwhile: its download URL now answers 404
    assert slack.report() == (1, 0)
    (reply,) = replies(slack.slack, CHANNEL, ts)
    assert reply["text"].startswith("I cannot make a report from this file: gone.pdf: Slack no longer has this file")
