"""``SlackClient`` (against the local Slack Web API server), ``TeamsClient`` (against the local Bot Framework
stand-in, its report files in a moto bucket, its turns in the conversations table on moto) and ``LocalOutbox`` (a
JSON-lines file) pass the ``PlatformClient`` contract. Each has an observer that reads back what was delivered the
platform's way: the Slack server's messages and uploads, the Bot Connector's activities and the bucket, the outbox."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import pytest
from botbuilder.schema import Activity, ActivityTypes

from bot_handlers.slack.client import SlackClient, web_client
from bot_handlers.teams.client import REPORTS_PREFIX, TeamsClient, TeamsCredentials, thread_conversation_id
from lcabot.adapters.conversations import ConversationState
from lcabot.adapters.outbox import LocalOutbox
from lcabot.jobs import AnswerJob, ConversationRef, FileRef
from lcabot.models import Turn
from tests.contract.platform_client_contract import ANSWER, PlatformClientContract, write
from tests.stubs.botframework_server import BotFrameworkStub
from tests.stubs.slack_server import SlackAPIStub

FEEDBACK = [{"type": "actions", "block_id": "feedback", "elements": [
    {"type": "button", "action_id": "feedback_up", "text": {"type": "plain_text", "text": "👍"}}]}]


# ---------------------------------------------------------------- Slack
class SlackObserver:
    def __init__(self, stub: SlackAPIStub, client: SlackClient) -> None:
        self.stub, self.client = stub, client
        root = stub.add_message("C0LCA", "<@U0BOT> coffee?", user="U1")
        self.conversation = ConversationRef("slack", "C0LCA", root, "T0TEST")

    def progress(self, text: str) -> ConversationRef:
        posted = self.client.web.chat_postMessage(channel="C0LCA", thread_ts=self.conversation.thread_ts, text=text)
        return ConversationRef("slack", "C0LCA", self.conversation.thread_ts, "T0TEST", status_message=posted["ts"])

    def shown(self) -> list[str]:
        return [m["text"] for m in self.stub.messages("C0LCA", thread_ts=self.conversation.thread_ts)
                if m.get("user") == self.stub.bot_user_id]

    def files(self) -> dict[str, bytes]:
        return {u["filename"]: u["data"] for u in self.stub.uploads
                if u["thread_ts"] == self.conversation.thread_ts}

    def job(self, question: str, earlier: tuple[Turn, ...]) -> AnswerJob:
        """The thread as Slack keeps it: each question, the bot's answer (with its feedback buttons), then the
        question being answered."""
        root = None
        for turn in earlier:
            asked = self.stub.add_message("C0HIST", f"<@U0BOT> {turn.question}", user="U1", thread_ts=root)
            root = root or asked
            self.client.web.chat_postMessage(channel="C0HIST", thread_ts=root, text=turn.answer, blocks=FEEDBACK)
        current = self.stub.add_message("C0HIST", f"<@U0BOT> {question}", user="U1", thread_ts=root)
        return AnswerJob(f"slack:T0TEST:C0HIST:{current}", ConversationRef("slack", "C0HIST", root or current,
                                                                             "T0TEST"), "U1", question)

    def shared(self, data: bytes, name: str, *, state_size: bool) -> FileRef:
        obj = self.stub.register_file(data, name)
        return FileRef(name, url=obj["url_private_download"], size=len(data) if state_size else None)

    def fetches(self) -> int | None:
        return sum(1 for c in self.stub.calls if c.method.startswith("/files-pri/"))


class TestSlackClient(PlatformClientContract):
    @pytest.fixture(scope="class")
    def stub(self):
        with SlackAPIStub() as server:
            yield server

    @pytest.fixture
    def client(self, stub):
        return SlackClient(web_client(stub.bot_token, stub.api_url))

    @pytest.fixture
    def observer(self, stub, client):
        return SlackObserver(stub, client)


# ---------------------------------------------------------------- Teams
CHANNEL = "19:5e1f3c2b9d8e4f70a1b2c3d4e5f60718@thread.tacv2"
_ids = itertools.count(int(time.time() * 1000) * 10)


def card_texts(node) -> list[str]:
    """Every TextBlock / TextRun text of an Adaptive Card, in order."""
    if isinstance(node, dict):
        own = [node["text"]] if node.get("type") in ("TextBlock", "TextRun") and "text" in node else []
        return own + [t for key, value in node.items() if key != "actions" for t in card_texts(value)]
    if isinstance(node, list):
        return [t for item in node for t in card_texts(item)]
    return []


class TeamsObserver:
    def __init__(self, stub: BotFrameworkStub, client: TeamsClient, s3, bucket: str) -> None:
        self.stub, self.client, self.s3, self.bucket = stub, client, s3, bucket
        root = str(next(_ids))
        self.conversation = self._conversation(root)

    def _conversation(self, root: str, status_message: str | None = None) -> ConversationRef:
        reference = {"serviceUrl": self.stub.service_url, "activityId": root,
                     "conversation": {"id": CHANNEL, "conversationType": "channel"}}
        return ConversationRef("teams", CHANNEL, root, "tenant-1", reference, status_message)

    @property
    def _thread(self) -> str:
        return thread_conversation_id(self.conversation)

    def progress(self, text: str) -> ConversationRef:
        """As the webhook does: a reply to the question, whose id becomes the ``status_message``."""
        connector = self.client.connector(self.stub.service_url).conversations
        posted = connector.reply_to_activity(self._thread, self.conversation.thread_ts,
                                             Activity(type=ActivityTypes.message, text=text))
        return self._conversation(self.conversation.thread_ts or "", posted.id)

    def shown(self) -> list[str]:
        messages: dict[str, dict] = {}
        for a in self.stub.activities:
            if a["conversation_id"] == self._thread and a["body"]["type"] == "message":
                messages[a["id"]] = a["body"]  # an update keeps its id: it replaces the body
        return ["\n".join(filter(None, [body.get("text"), *card_texts(body.get("attachments") or [])]))
                for body in messages.values()]

    def files(self) -> dict[str, bytes]:
        listed = self.s3.list_objects_v2(Bucket=self.bucket, Prefix=REPORTS_PREFIX).get("Contents", [])
        return {Path(o["Key"]).name: self.s3.get_object(Bucket=self.bucket, Key=o["Key"])["Body"].read()
                for o in listed}

    def job(self, question: str, earlier: tuple[Turn, ...]) -> AnswerJob:
        """The reply chain's turns as the answer worker keeps them (Teams lets no bot read the chain)."""
        conversation = self._conversation(str(next(_ids)))
        for turn in earlier:
            self.client.state.add_turn("teams", thread_conversation_id(conversation), turn.question, turn.answer)
        return AnswerJob(f"teams:{next(_ids)}", conversation, "29:alice", question)

    def shared(self, data: bytes, name: str, *, state_size: bool) -> FileRef:
        return FileRef(name, url=self.stub.register_download(data, name), size=len(data) if state_size else None)

    def fetches(self) -> int | None:
        return sum(1 for r in self.stub.requests if r.path.startswith("/download/"))


class TestTeamsClient(PlatformClientContract):
    @pytest.fixture(scope="class")
    def stub(self):
        with pytest.MonkeyPatch.context() as mp, BotFrameworkStub() as server:
            for name, value in server.proxy_env().items():  # msal's token request goes to the stub's AAD
                mp.setenv(name, value)
            yield server

    @pytest.fixture(scope="class")
    def credentials(self, stub):
        return TeamsCredentials(stub.app_id, stub.app_password).app_credentials()  # one token for the class

    @pytest.fixture
    def s3(self, moto):
        from botocore.config import Config

        return moto.client("s3", config=Config(signature_version="s3v4"))

    @pytest.fixture
    def client(self, moto, stub, credentials, s3):
        state = ConversationState(moto.table("ConversationsTable"), moto.resource("dynamodb"))
        return TeamsClient(credentials, s3=s3, state=state, reports_bucket=moto.bucket())

    @pytest.fixture
    def observer(self, stub, client, s3):
        return TeamsObserver(stub, client, s3, client.reports_bucket)

    def test_an_answer_is_kept_as_the_next_answers_history(self, client, observer):
        job = observer.job("Air freight?", ())
        client.post_answer(job, ANSWER)
        later = AnswerJob("teams:later", job.conversation, "29:alice", "And by sea?")
        assert client.history(later) == (Turn("Air freight?", ANSWER.text),)


# ---------------------------------------------------------------- local outbox
class OutboxObserver:
    def __init__(self, outbox: LocalOutbox, tmp_path: Path) -> None:
        self.outbox, self.tmp_path = outbox, tmp_path
        self.conversation = ConversationRef("local", "dev-chat", "t1")
        self._progress = itertools.count(1)

    def progress(self, text: str) -> ConversationRef:
        """``lcabot dev`` names its progress message; it is recorded as a progress entry of that name."""
        conversation = ConversationRef("local", "dev-chat", "t1", status_message=f"progress-{next(self._progress)}")
        self.outbox.post_progress(conversation, text)
        return conversation

    def shown(self) -> list[str]:
        messages: dict[str, str] = {}
        for i, entry in enumerate(e for e in self.outbox.read() if e["channel"] == "dev-chat"):
            messages[entry.get("status_message") or f"entry-{i}"] = entry["text"]
        return list(messages.values())

    def files(self) -> dict[str, bytes]:
        return {Path(f).name: Path(f).read_bytes() for e in self.outbox.read() if e["kind"] == "files"
                for f in e["files"]}

    def job(self, question: str, earlier: tuple[Turn, ...]) -> AnswerJob:
        """The local platform keeps no threads: the job carries its history."""
        return AnswerJob("local:1", self.conversation, "me", question, history=earlier)

    def shared(self, data: bytes, name: str, *, state_size: bool) -> FileRef:
        path = write(self.tmp_path, data, name)
        return FileRef(name, url=path.as_uri(), size=len(data) if state_size else None)

    def fetches(self) -> int | None:
        return None


class TestLocalOutbox(PlatformClientContract):
    @pytest.fixture
    def client(self, tmp_path):
        return LocalOutbox(tmp_path / "outbox")

    @pytest.fixture
    def observer(self, client, tmp_path):
        return OutboxObserver(client, tmp_path)
