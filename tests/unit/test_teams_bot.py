"""The Teams bot's activity logic, driven through botbuilder's ``TestAdapter`` with in-memory state and queues (no
sockets), and the Lambda entry's refusals that happen before any network call."""

from __future__ import annotations

import asyncio
import json

import pytest
from botbuilder.core.adapters import TestAdapter
from botbuilder.schema import Activity, Attachment, ChannelAccount, ConversationAccount, Entity

from bot_handlers.teams import app as teams_app
from bot_handlers.teams import bot as teams_bot
from bot_handlers.teams import edge as teams_edge
from bot_handlers.teams.bot import TeamsBot
from bot_handlers.teams.client import (
    FILE_DOWNLOAD_INFO,
    consent_context,
    is_personal,
    links_card,
    thread_conversation_id,
)
from lcabot import messages, wiring
from lcabot.adapters.conversations import CLAIMED, DUPLICATE, RATE_LIMITED, Claim
from lcabot.config import Settings
from lcabot.jobs import AnswerJob, ConversationRef, IndexJob, ReportJob
from tests.events import http_post

TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"
BOT = ChannelAccount(id="28:lcabot-app", name="lcabot")
ALICE = ChannelAccount(id="29:1alice", name="Alice", aad_object_id="aad-alice")
PERSONAL = "a:1personal-chat-with-alice"
CHANNEL = "19:0f3a1c2b9d8e4f70a1b2c3d4e5f60718@thread.tacv2"
SERVICE_URL = "https://smba.trafficmanager.net/emea/"


class FakeState:
    """The calls of ``ConversationState`` the bot makes, in memory."""

    def __init__(self, limited: bool = False) -> None:
        self.claimed: set[str] = set()
        self.released: list[str] = []
        self.modes: dict[tuple[str, str], str] = {}
        self.votes: list[tuple] = []
        self.limited = limited

    def claim(self, platform: str, key: str, limit: tuple[str, str, str] | None = None) -> Claim:
        if key in self.claimed:
            return Claim(platform, key, "token", DUPLICATE)
        if limit is not None and self.limited:
            return Claim(platform, key, "token", RATE_LIMITED)
        self.claimed.add(key)
        return Claim(platform, key, "token", CLAIMED)

    def settle(self, claim: Claim) -> None:
        self.claimed.add(claim.dedupe_key)

    def release(self, claim: Claim) -> None:
        self.claimed.discard(claim.dedupe_key)
        self.released.append(claim.dedupe_key)

    def retrieval_mode(self, platform: str, team: str, channel: str, default: str) -> str:
        return self.modes.get((team, channel), default)

    def set_retrieval_mode(self, platform: str, team: str, channel: str, mode: str, user: str) -> None:
        self.modes[(team, channel)] = mode

    def record_feedback(self, platform, team, channel, message_ts, user, vote, question, answer, ledger_hash=""):
        self.votes.append((platform, team, channel, message_ts, user, vote, question, answer, ledger_hash))


class FakeQueues:
    def __init__(self, fail: bool = False) -> None:
        self.sent: list = []
        self.fail = fail

    def send(self, job) -> None:
        if self.fail:
            raise ConnectionError("SQS is unreachable")
        self.sent.append(job)


@pytest.fixture
def bot():
    return TeamsBot(FakeState(), FakeQueues(), reports_bucket="lcabot-reports", default_mode="rag")


def activity(text: str = "", *, activity_id: str = "1718000000001", conversation: str = PERSONAL,
             kind: str = "personal", mention: bool = False, **fields) -> Activity:
    entities = [Entity().deserialize({"type": "mention", "text": "<at>lcabot</at>", "mentioned": {
        "id": BOT.id, "name": BOT.name}})] if mention else None
    return Activity(type=fields.pop("type", "message"), id=activity_id, channel_id="msteams", service_url=SERVICE_URL,
                    text=f"<at>lcabot</at> {text}" if mention else text, from_property=ALICE, recipient=BOT,
                    conversation=ConversationAccount(id=conversation, conversation_type=kind, tenant_id=TENANT),
                    entities=entities, channel_data={"tenant": {"id": TENANT}}, **fields)


def run(bot: TeamsBot, *incoming: Activity) -> list[Activity]:
    """Deliver activities one by one through a ``TestAdapter``; what the bot sent."""
    adapter = TestAdapter(bot.on_turn)

    async def deliver() -> None:
        for item in incoming:
            await adapter.receive_activity(item)

    asyncio.run(deliver())
    return adapter.activity_buffer


def texts(sent: list[Activity]) -> list[str]:
    return [a.text for a in sent if a.type == "message"]


def pdf(name: str = "coffee study.pdf", file_type: str = "pdf", unique_id: str = "1DF2B3A4") -> Attachment:
    return Attachment(content_type=FILE_DOWNLOAD_INFO, name=name, content={
        "downloadUrl": f"https://contoso-my.sharepoint.com/personal/alice/download.aspx?share={unique_id}",
        "uniqueId": unique_id, "fileType": file_type})


# ---------------------------------------------------------------- questions


def test_a_personal_message_sends_typing_and_enqueues_one_answer_job(bot):
    sent = run(bot, activity("What is the functional unit of the coffee study?"))

    assert [a.type for a in sent] == ["typing"]
    (job,) = bot.queues.sent
    assert isinstance(job, AnswerJob)
    assert (job.dedupe_key, job.question, job.user, job.retrieval_mode) == (
        f"teams:{PERSONAL}:1718000000001", "What is the functional unit of the coffee study?", "aad-alice", "rag")
    c = job.conversation
    assert (c.platform, c.channel, c.thread_ts, c.team, c.status_message) == ("teams", PERSONAL, None, TENANT, None)
    assert c.reference["serviceUrl"] == SERVICE_URL and c.reference["activityId"] == "1718000000001"
    assert c.reference["conversation"]["conversationType"] == "personal" and is_personal(c)
    assert json.loads(job.to_json())["conversation"]["reference"]["bot"]["id"] == BOT.id


def test_a_question_over_the_core_limit_is_refused_in_the_chat_before_it_is_queued(bot):
    question = "What is GWP100? " + "x" * 5000
    sent = run(bot, activity(question))
    assert texts(sent) == [messages.question_too_long(5016, 2000)]
    assert bot.queues.sent == []


def test_a_redelivered_activity_is_acted_on_once(bot):
    question = activity("What is GWP100?")
    sent = run(bot, question, activity("What is GWP100?"))

    assert len(bot.queues.sent) == 1
    assert [a.type for a in sent] == ["typing"]  # the duplicate sends nothing at all


def test_a_channel_mention_answers_into_the_reply_chain_and_an_unmentioned_message_is_ignored(bot):
    in_thread = f"{CHANNEL};messageid=1718000000000"
    mentioned = activity("What is GWP100?", conversation=in_thread, kind="channel", mention=True,
                         activity_id="1718000000055")
    chatter = activity("lunch anyone?", conversation=in_thread, kind="channel", activity_id="1718000000056")

    sent = run(bot, mentioned, chatter)

    (job,) = bot.queues.sent
    assert job.question == "What is GWP100?"
    assert (job.conversation.channel, job.conversation.thread_ts) == (in_thread, "1718000000000")
    assert not is_personal(job.conversation)
    assert [a.type for a in sent] == ["typing"]


def test_retrieval_mode_command_sets_and_shows_and_a_question_flag_overrides(bot):
    sent = run(bot, activity("mode graph", activity_id="1"), activity("What is GWP100?", activity_id="2"),
               activity("--rag What is GWP100?", activity_id="3"), activity("mode", activity_id="4"))

    assert bot.state.modes == {(TENANT, PERSONAL): "rag+graph"}
    assert [j.retrieval_mode for j in bot.queues.sent] == ["rag+graph", "rag"]
    assert texts(sent) == [messages.mode_set("rag+graph"), messages.mode_is("rag+graph")]


def test_help_and_a_user_over_the_limit_get_a_reply_and_no_job():
    limited = TeamsBot(FakeState(limited=True), FakeQueues())
    assert texts(run(limited, activity("What is GWP100?"))) == [messages.rate_limited()]
    assert limited.queues.sent == []
    helped = TeamsBot(FakeState(), FakeQueues())
    assert texts(run(helped, activity("help"))) == [messages.chat_help()]
    assert helped.queues.sent == []


def test_a_failed_enqueue_releases_the_claim_so_the_retry_is_not_a_duplicate():
    bot = TeamsBot(FakeState(), FakeQueues(fail=True))
    with pytest.raises(ConnectionError):
        run(bot, activity("What is GWP100?"))
    assert bot.state.released == [f"teams:{PERSONAL}:1718000000001"] and bot.state.claimed == set()


# ---------------------------------------------------------------- feedback


def test_a_feedback_submit_is_recorded_with_question_and_answer_and_thanked(bot):
    submit = activity("", activity_id="1718000000077", reply_to_id="1718000000070", conversation=f"{CHANNEL};"
                      "messageid=1718000000000", kind="channel",
                      value={"q": "What is GWP100?", "a": "GWP100 is …", "m": "rag", "h": "ledger1",
                             "feedback": "down"})
    sent = run(bot, submit)

    assert bot.state.votes == [("teams", TENANT, CHANNEL, "1718000000070", "aad-alice", "down", "What is GWP100?",
                                "GWP100 is …", "ledger1")]
    assert texts(sent) == [messages.feedback_thanks("down")]
    assert bot.queues.sent == []


# ---------------------------------------------------------------- files


def test_a_pdf_in_a_personal_chat_with_no_text_starts_a_report_with_a_progress_message(bot):
    sent = run(bot, activity("", attachments=[pdf()]))

    assert texts(sent) == [messages.report_started("coffee study.pdf")]
    (job,) = bot.queues.sent
    assert isinstance(job, ReportJob)
    assert job.file.name == "coffee study.pdf" and job.file.url.endswith("share=1DF2B3A4")
    assert job.dedupe_key == f"teams:{PERSONAL}:1718000000001:1DF2B3A4"
    assert job.conversation.status_message  # the id the connector gave the progress message, updated later


def test_index_with_a_pdf_adds_it_to_the_library_under_the_perspective(bot):
    run(bot, activity("index eu", attachments=[pdf("CHIC objective.pdf")]))

    (job,) = bot.queues.sent
    assert isinstance(job, IndexJob) and job.perspective == "eu_funding" and job.file.name == "CHIC objective.pdf"


def test_a_non_pdf_is_refused_and_a_question_with_a_pdf_asks_what_to_do(bot):
    refused = run(bot, activity("report", attachments=[pdf("stages.xlsx", file_type="xlsx")], activity_id="1"))
    asked = run(bot, activity("what is this?", attachments=[pdf()], activity_id="2"))

    assert texts(refused) == [messages.only_pdfs("stages.xlsx")]
    assert texts(asked) == [messages.pdf_needs_intent("coffee study.pdf")]
    assert bot.queues.sent == []


def test_a_declined_file_consent_is_acknowledged_with_an_invoke_response(bot):
    context = {"bucket": "lcabot-reports", "key": "teams/0a1b/coffee study-report.md"}
    invoke = activity("", type="invoke", name="fileConsent/invoke", reply_to_id="1718000000090",
                      value={"type": "fileUpload", "action": "decline", "context": context})

    sent = run(bot, invoke)

    assert texts(sent) == [messages.upload_declined("coffee study-report.md")]
    (response,) = [a for a in sent if a.type == "invokeResponse"]
    assert response.value.status == 200


class FakeReports:
    def __init__(self, objects: dict[str, bytes]) -> None:
        self.objects = objects

    def get(self, key: str) -> bytes:
        return self.objects[key]


def consent(action: str, context: dict, activity_id: str) -> Activity:
    info = {"name": "coffee-report.md", "uploadUrl": "https://contoso-my.sharepoint.com/upload/s1",
            "contentUrl": "https://contoso-my.sharepoint.com/personal/alice/coffee-report.md",
            "uniqueId": "01ABCDEF", "fileType": "md"}
    return activity("", type="invoke", name="fileConsent/invoke", activity_id=activity_id,
                    value={"type": "fileUpload", "action": action, "context": context, "uploadInfo": info})


def test_an_accepted_file_is_uploaded_once_and_shown_and_a_forged_context_uploads_nothing(monkeypatch):
    uploads = []
    monkeypatch.setattr(teams_bot, "upload", lambda url, data: uploads.append((url, data)))
    key = "teams/0a1b/coffee-report.md"
    bot = TeamsBot(FakeState(), FakeQueues(), FakeReports({key: b"| Exportation | 10.44 |"}),
                             reports_bucket="lcabot-reports")
    accepted = consent("accept", {"bucket": "lcabot-reports", "key": key}, "f:1")

    sent = run(bot, accepted, consent("accept", {"bucket": "lcabot-reports", "key": key}, "f:1"),
               consent("accept", {"bucket": "lcabot-reports", "key": "uploads/other.pdf"}, "f:2"))

    assert uploads == [("https://contoso-my.sharepoint.com/upload/s1", b"| Exportation | 10.44 |")]
    shown = [a for a in sent if a.type == "message"]
    assert shown[0].text == messages.upload_done("coffee-report.md")
    (card,) = shown[0].attachments
    assert (card.content_type, card.name, card.content) == (
        "application/vnd.microsoft.teams.card.file.info", "coffee-report.md", {"uniqueId": "01ABCDEF",
                                                                              "fileType": "md"})
    assert [a.text for a in shown[1:]] == [messages.upload_failed("coffee-report.md")]
    assert [a.value.status for a in sent if a.type == "invokeResponse"] == [200, 200, 200]


def test_a_consent_context_names_only_our_teams_files_in_the_reports_bucket():
    assert consent_context({"bucket": "b", "key": "teams/1/r.md"}, "b") == "teams/1/r.md"
    for forged in ({"bucket": "other", "key": "teams/1/r.md"}, {"bucket": "b", "key": "uploads/x.pdf"},
                   {"bucket": "b", "key": "teams/../uploads/x.pdf"}, {"bucket": "b"}, None, "teams/1/r.md"):
        assert consent_context(forged, "b") is None


def test_a_channel_reply_addresses_the_reply_chain_and_links_are_escaped_cards():
    assert thread_conversation_id(ConversationRef("teams", CHANNEL, "17")) == f"{CHANNEL};messageid=17"
    assert thread_conversation_id(ConversationRef("teams", f"{CHANNEL};messageid=17", "17")) == \
        f"{CHANNEL};messageid=17"
    card = links_card("Report_ready", [("r.md", "https://s3.example/r.md?X-Amz-Signature=ab"),
                                       ("x.md", "javascript:1")])
    assert [b["text"] for b in card["body"]] == [
        "Report\\_ready", "[r.md](https://s3.example/r.md?X-Amz-Signature=ab)", "x.md",
        "Download links expire in 24 hours."]


# ---------------------------------------------------------------- the Lambda entry


@pytest.fixture
def entry():
    """The Teams function's dependencies: its app id, and a conversation store and job queues that remember."""
    return wiring.build(Settings(teams_app_id="00000000-0000-0000-0000-00000000a11d", teams_app_password="pw"),
                        conversations=FakeState(), queues=FakeQueues())


def api_event(body: str | None, headers: dict | None = None, **extra) -> dict:
    return http_post("/api/messages", body, {"content-type": "application/json", **(headers or {})}, **extra)


@pytest.mark.parametrize("event", [{"body": None}, "not an event", {"headers": [], "body": "{}"},
                                   {"headers": {}, "body": 7}],
                         ids=["no headers", "not a dict", "headers not an object", "body not a string"])
def test_events_that_are_not_http_api_events_get_400(entry, event):
    assert teams_app.handle(event, None, entry)["statusCode"] == 400
    assert entry.queues.sent == []


@pytest.mark.parametrize("event", [
    api_event("{not json"), api_event("[1, 2]"), api_event('{"text": "no type"}'),
    api_event("!!!", isBase64Encoded=True), api_event(json.dumps({"type": "message", "text": "no conversation"})),
], ids=["not json", "not an object", "no type", "bad base64", "no conversation"])
def test_a_malformed_body_without_a_token_gets_401_before_it_is_read(entry, event, monkeypatch):
    def unread(event):
        raise AssertionError("the body was read before the token was checked")

    monkeypatch.setattr(teams_edge, "parse_body", unread)
    assert teams_app.handle(event, None, entry)["statusCode"] == 401
    assert entry.queues.sent == []


def test_an_activity_without_authorization_gets_401_and_nothing_is_enqueued(entry):
    body = activity("What is GWP100?").serialize()
    for headers in ({}, {"Authorization": ""}):
        response = teams_app.handle(api_event(json.dumps(body), headers), None, entry)
        assert response["statusCode"] == 401
    assert entry.queues.sent == [] and entry.conversations.claimed == set()
