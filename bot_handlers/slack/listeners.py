"""The Slack Bolt app's listeners: what a message, a command, a modal or a button asks for, claimed once in the
conversation store and carried out (a reply, or a job queued for the workers)."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import replace
from typing import Any

from slack_bolt import Ack, App, BoltContext
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot_handlers.dispatch import FileJobs, Reply, decide
from bot_handlers.intent import MODE_WORDS, parse_intent
from bot_handlers.slack import blocks
from bot_handlers.slack.client import web_client
from lcabot import messages
from lcabot.adapters.conversations import DUPLICATE, NOT_IN_THREAD, RATE_LIMITED, Claim, ConversationState
from lcabot.adapters.queues import JobQueues
from lcabot.jobs import AnswerJob, ConversationRef, FileRef, IndexJob, ReportJob

logger = logging.getLogger("lcabot.slack")

REPORT_CALLBACK = "lca_report"
REPORT_BLOCK, REPORT_ACTION = "study", "study_file"
_ACTED_SUBTYPES = (None, "file_share", "thread_broadcast")  # message subtypes that are a person writing
# Web API errors that retrying the event cannot fix: acknowledged and logged instead of making Slack retry
_PERMANENT_ERRORS = ("not_in_channel", "channel_not_found", "is_archived", "restricted_action", "missing_scope",
                     "msg_too_long", "invalid_blocks", "no_permission")
_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,}$")


def _text(value: Any, key: str) -> str:
    """``value[key]`` when ``value`` is an object and that field a string, else ``""`` (a malformed request's
    missing or mistyped field)."""
    field = value.get(key) if isinstance(value, dict) else None
    return field if isinstance(field, str) else ""


def is_pdf(file: dict) -> bool:
    return file.get("filetype") == "pdf" or file.get("mimetype") == "application/pdf"


def file_url(file: dict) -> str:
    return file.get("url_private_download") or file.get("url_private") or ""


def file_ref(file: dict) -> FileRef:
    """A Slack file object (event ``files[]``, ``file_input`` value) → a ``FileRef`` downloaded by the worker."""
    return FileRef(name=file.get("name") or file.get("title") or file.get("id") or "the file", url=file_url(file),
                   size=file.get("size"))


def resolve_files(client: WebClient, files: list[dict]) -> list[dict]:
    """Files as full objects: Slack sends some (e.g. in Slack Connect) as ``{"id", "file_access":
    "check_file_info"}``; those are looked up with ``files.info``, and dropped when that is refused."""
    resolved = []
    for file in files:
        if isinstance(file, dict) and file.get("id") and (file.get("file_access") == "check_file_info"
                                                          or not file_url(file)):
            try:
                file = client.files_info(file=file["id"])["file"]
            except SlackApiError as err:
                logger.warning("files.info refused for %s: %s", file["id"], err.response.get("error"))
                continue
        if isinstance(file, dict):
            resolved.append(file)
    return resolved


def report_modal(channel: str, thread_ts: str | None = None) -> dict:
    """The ``/lca-report`` modal: one PDF ``file_input``; the channel (and thread) travel in ``private_metadata``."""
    return {
        "type": "modal", "callback_id": REPORT_CALLBACK,
        "title": {"type": "plain_text", "text": "ISO 14067 report"},
        "submit": {"type": "plain_text", "text": "Make report"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "private_metadata": json.dumps({"channel": channel, "thread_ts": thread_ts}),
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": (
                "Choose a carbon footprint study (PDF). The report follows ISO 14067 and marks what the study does "
                "not state as _[Information not provided]_.")}},
            {"type": "input", "block_id": REPORT_BLOCK, "label": {"type": "plain_text", "text": "Study PDF"},
             "element": {"type": "file_input", "action_id": REPORT_ACTION, "filetypes": ["pdf"], "max_files": 1}},
        ],
    }


class _Replies:
    """The bot's messages in one thread while acting on one event: text escaped (file names and the like can
    never ping anyone), and the placeholders posted so far, to delete if acting fails before a job is queued."""

    def __init__(self, client: WebClient, channel: str, thread_ts: str) -> None:
        self.client, self.channel, self.thread_ts = client, channel, thread_ts
        self.placeholders: list[str] = []

    def say(self, text: str) -> str:
        return self.client.chat_postMessage(channel=self.channel, thread_ts=self.thread_ts,
                                            text=blocks.escape(text))["ts"]

    def placeholder(self, text: str) -> str:
        ts = self.say(text)
        self.placeholders.append(ts)
        return ts

    def keep(self, ts: str) -> None:
        """The placeholder ``ts`` now belongs to a queued job (its worker updates it): never undone."""
        self.placeholders.remove(ts)

    def replace(self, ts: str, text: str) -> None:
        self.client.chat_update(channel=self.channel, ts=ts, text=blocks.escape(text))
        self.placeholders.remove(ts)

    def undo(self) -> None:
        for ts in self.placeholders:
            try:
                self.client.chat_delete(channel=self.channel, ts=ts)
            except SlackApiError as err:
                logger.warning("could not delete placeholder %s: %s", ts, err.response.get("error"))


class SlackBot:
    """The listeners' logic, bound to a conversation state store and the job queues."""

    def __init__(self, state: ConversationState, queues: JobQueues, library_channels: frozenset[str] = frozenset(),
                 default_mode: str = "rag+graph"):
        self.state = state
        self.queues = queues
        self.library_channels = library_channels
        self.default_mode = default_mode  # a channel's retrieval mode until /lca-mode sets one (Settings)

    # ---------------------------------------------------------------- messages
    def on_mention(self, event: dict, context: BoltContext, client: WebClient) -> None:
        self._act(event, context, client)

    def on_message(self, event: dict, context: BoltContext, client: WebClient) -> None:
        if event.get("subtype") not in _ACTED_SUBTYPES or event.get("bot_id") or not _text(event, "user"):
            return
        if event.get("user") == context.bot_user_id or not _text(event, "channel") or not _text(event, "ts"):
            return
        channel, thread_ts = event["channel"], _text(event, "thread_ts")
        if event.get("channel_type") == "im" or channel in self.library_channels and event.get("files"):
            self._act(event, context, client)
        elif thread_ts and thread_ts != event["ts"]:  # acted on only in a thread the bot answers in
            self._act(event, context, client, follow_up=True)

    def on_file_shared(self, event: dict) -> None:
        """``file_shared`` comes beside the ``message`` that shares the file, which is what is acted on; it is
        acknowledged (no listener would mean a 404, which Slack retries)."""
        logger.debug("file_shared acknowledged: %s", event.get("file_id"))

    def _act(self, event: dict, context: BoltContext, client: WebClient, follow_up: bool = False) -> None:
        """Claim the message (one DynamoDB call: the claim, the thread remembered and the rate limits counted),
        reply or enqueue, then settle the claim (the second and last call). A failure Slack's retry can fix (a 5xx,
        a throttled queue) releases the claim, deletes the placeholders posted and raises (Slack gets a 500 and
        retries); one it cannot fix (the bot is not in the channel, the channel is archived) is logged and
        acknowledged. If this invocation stops between claim and settle (a timeout), the claim's lease runs out and
        Slack's next retry acts. ``follow_up``: a thread message without a mention, acted on only in a thread the
        bot answers in."""
        team, channel, ts = context.team_id or "", _text(event, "channel"), _text(event, "ts")
        if not channel or not ts:
            logger.warning("event without channel or ts ignored")
            return
        dedupe_key = f"slack:{team}:{channel}:{ts}"
        thread = _text(event, "thread_ts") or ts
        claim = self.state.claim("slack", dedupe_key, thread=(team, channel, thread), follow_up=follow_up,
                                 limit=(team, channel, _text(event, "user")))
        if claim.outcome in (DUPLICATE, NOT_IN_THREAD):
            if claim.outcome == DUPLICATE:
                logger.info("duplicate delivery ignored: %s", dedupe_key)
            return
        replies = _Replies(client, channel, thread)
        try:
            if claim.outcome == RATE_LIMITED:  # told once, however many deliveries arrive together
                if self.state.settle(claim):
                    replies.say(messages.rate_limited())
                return
            else:
                self._reply(event, context, client, replies, dedupe_key)
        except SlackApiError as err:
            replies.undo()
            if err.response.get("error") in _PERMANENT_ERRORS:
                logger.warning("cannot reply in %s: %s", channel, err.response.get("error"))
                self._settle(claim)
                return
            self._release(claim)
            raise
        except Exception:
            replies.undo()
            self._release(claim)  # Slack retries on a 5xx; that retry must not be a duplicate
            raise
        self._settle(claim)

    def _settle(self, claim: Claim) -> None:
        """The reply is posted or the job queued: a failure to record that is logged, not raised (raising would make
        Slack retry what is done; the lease still refuses retries for :data:`bot_handlers.state.LEASE_S`, and the
        workers answer a job once per dedupe key)."""
        try:
            self.state.settle(claim)
        except Exception:
            logger.exception("claim on %s not settled", claim.dedupe_key)

    def _release(self, claim: Claim) -> None:
        try:
            self.state.release(claim)
        except Exception:  # the claim's lease runs out instead; the error being raised is the one to report
            logger.exception("claim on %s not released", claim.dedupe_key)

    def _reply(self, event: dict, context: BoltContext, client: WebClient, replies: _Replies,
               dedupe_key: str) -> None:
        """What the message asks for: a job queued (an answer in the channel's retrieval mode, which the answer
        worker reads, or the one the question names; a report; a document for the library) or a reply saying why
        not. Makes no DynamoDB call."""
        team, channel, user, thread = context.team_id or "", replies.channel, _text(event, "user"), replies.thread_ts
        files = resolve_files(client, event["files"] if isinstance(event.get("files"), list) else [])
        pdfs = [f for f in files if is_pdf(f) and file_url(f)]
        intent = parse_intent(_text(event, "text"), library_channel=channel in self.library_channels,
                              has_file=bool(pdfs))
        conversation = ConversationRef("slack", channel, thread, team)
        action = decide(intent, files, pdfs, lambda f: f.get("name") or "", platform="slack")
        if isinstance(action, Reply):
            replies.say(action.text)
        elif isinstance(action, FileJobs):
            for n, file in enumerate(action.pdfs):
                ref = file_ref(file)
                key = f"{dedupe_key}:{file.get('id') or n}"
                started = messages.index_started(ref.name, action.perspective) if action.index else \
                    messages.report_started(ref.name)
                target = replace(conversation, status_message=replies.placeholder(started))
                job = IndexJob(key, target, user, ref, action.perspective) if action.index else \
                    ReportJob(key, target, user, ref)
                try:
                    self.queues.send(job)
                except Exception:
                    if not n:  # nothing queued yet: Slack's retry does it all again
                        raise
                    # an earlier file's job is queued (a retry would queue it twice): this one is said to fail
                    logger.exception("job for %s not queued", ref.name)
                    replies.replace(target.status_message or "", messages.not_queued(ref.name))
                    continue
                replies.keep(target.status_message or "")
        else:
            target = replace(conversation, status_message=replies.placeholder(messages.searching()))
            self.queues.send(AnswerJob(dedupe_key=dedupe_key, user=user, question=action.text,
                                       retrieval_mode=action.mode, conversation=target))

    # ---------------------------------------------------------------- commands and interactivity
    def on_report_command(self, ack: Ack, body: dict, client: WebClient) -> None:
        ack()
        trigger, channel = _text(body, "trigger_id"), _text(body, "channel_id")
        if not trigger or not channel:
            logger.warning("/lca-report without trigger_id or channel_id ignored")
            return
        try:
            client.views_open(trigger_id=trigger, view=report_modal(channel))
        except SlackApiError as err:  # an expired or already used trigger: the command cannot be retried
            logger.warning("/lca-report modal not opened: %s", err.response.get("error"))

    def on_report_submission(self, ack: Ack, body: dict, view: Any, context: BoltContext, client: WebClient) -> None:
        """The dialog's PDF → a progress message (in the channel the command came from, or a DM when the bot is not
        there) and a ``ReportJob`` threaded under it. Claimed once per view; released if queueing fails."""
        state = view.get("state") if isinstance(view.get("state"), dict) else {}
        values: Any = state.get("values") if isinstance(state.get("values"), dict) else {}
        block: Any = values.get(REPORT_BLOCK) if isinstance(values.get(REPORT_BLOCK), dict) else {}
        value: Any = block.get(REPORT_ACTION) if isinstance(block.get(REPORT_ACTION), dict) else {}
        files = [f for f in value.get("files") or [] if isinstance(f, dict)] \
            if isinstance(value.get("files") or [], list) else []
        if not files or not is_pdf(files[0]) or not file_url(files[0]):
            ack(response_action="errors", errors={REPORT_BLOCK: "Choose a PDF file."})
            return
        ack()
        team, user = context.team_id or "", _text(body.get("user"), "id")
        if not user or not _text(view, "id"):
            logger.warning("report submission without user or view id ignored")
            return
        try:
            meta = json.loads(view.get("private_metadata") or "{}")
        except json.JSONDecodeError:
            meta = {}
        meta = {k: v for k, v in meta.items() if isinstance(v, str)} if isinstance(meta, dict) else {}
        dedupe_key = f"slack:{team}:view:{view['id']}"
        claim = self.state.claim("slack", dedupe_key)
        if not claim.claimed:
            return
        ref = file_ref(files[0])
        text = blocks.escape(messages.report_started(ref.name))
        if _USER_ID.match(user):
            text = f"<@{user}>: {text}"
        try:
            try:
                posted = client.chat_postMessage(channel=meta.get("channel") or user, thread_ts=meta.get("thread_ts"),
                                                 text=text)
            except SlackApiError as err:
                if err.response.get("error") not in ("not_in_channel", "channel_not_found"):
                    raise
                posted = client.chat_postMessage(channel=user, text=text)  # the bot is not in that channel: DM
            thread = meta.get("thread_ts") if posted["channel"] == meta.get("channel") else None
            conversation = ConversationRef("slack", posted["channel"], thread or posted["ts"], team,
                                           status_message=posted["ts"])
            self.queues.send(ReportJob(f"{dedupe_key}:{files[0].get('id', '')}", conversation, user, ref))
        except Exception:
            self._release(claim)
            raise
        self._settle(claim)

    def on_mode_command(self, ack: Ack, command: dict, context: BoltContext) -> None:
        team, channel, user = context.team_id or "", _text(command, "channel_id"), _text(command, "user_id")
        if not channel or not user:
            ack()
            logger.warning("/lca-mode without channel_id or user_id ignored")
            return
        choice = _text(command, "text").strip().lower().lstrip("-")
        if choice in MODE_WORDS:
            self.state.set_retrieval_mode("slack", team, channel, MODE_WORDS[choice], user)
            ack(text=messages.mode_set(MODE_WORDS[choice]))
        else:
            ack(text=messages.mode_is(self.state.retrieval_mode("slack", team, channel, self.default_mode)))

    def on_feedback(self, ack: Ack, body: Any, action: dict, context: BoltContext, client: WebClient) -> None:
        ack()
        vote = "up" if action.get("action_id") == "feedback_up" else "down"
        try:
            value = json.loads(action.get("value") or "{}")
        except json.JSONDecodeError:
            value = {}
        value = value if isinstance(value, dict) else {}
        message = body.get("message") if isinstance(body.get("message"), dict) else {}
        channel, user = _text(body.get("channel"), "id"), _text(body.get("user"), "id")
        if not channel or not user:
            logger.warning("feedback without channel or user ignored")
            return
        self.state.record_feedback("slack", context.team_id or "", channel, message.get("ts", ""), user, vote,
                                   question=str(value.get("q", "")), answer=message.get("text", ""),
                                   ledger_hash=str(value.get("h", "")))
        client.chat_postEphemeral(channel=channel, user=user, thread_ts=message.get("thread_ts"),
                                  text=messages.feedback_thanks(vote))


def build_app(bot: SlackBot, *, token: str, signing_secret: str, api_url: str | None = None) -> App:
    """The Bolt app: signature verification on, ``process_before_response`` (a Lambda must finish its work
    before returning), listeners registered on ``bot``."""
    # no waiting out 429s here: Slack needs its 200 within 3 s; a failed reply releases the claim and Slack retries
    app = App(client=web_client(token, api_url, wait_on_rate_limit=False), signing_secret=signing_secret,
              process_before_response=True, logger=logger)
    app.event("app_mention")(bot.on_mention)
    app.event("message")(bot.on_message)
    app.event("file_shared")(bot.on_file_shared)
    app.command("/lca-report")(bot.on_report_command)
    app.command("/lca-mode")(bot.on_mode_command)
    app.view(REPORT_CALLBACK)(bot.on_report_submission)
    app.action(re.compile(r"^feedback_(up|down)$"))(bot.on_feedback)
    return app
