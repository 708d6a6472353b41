"""AWS Lambda behind the HTTP API (``POST /slack/events``): the Slack Bolt app.

Bolt verifies the request signature (``X-Slack-Signature``, timestamps older than five minutes refused) and answers
``url_verification``. The listeners only decide what a message asks for, claim it once (durable dedupe on team +
channel + message ts in the conversations table, so Slack's retries and duplicate deliveries act once), post a
placeholder into the thread and enqueue a job; the worker Lambdas do the rest and update the placeholder. Nothing
here imports torch or loads a model, so the acknowledgement stays well inside Slack's 3 seconds.

Handled: ``app_mention``; ``message`` in direct messages, in threads the bot answers in, and PDF shares in library
channels (``LCABOT_SLACK_LIBRARY_CHANNELS``, comma-separated channel ids); ``/lca-report`` (a modal with a PDF
``file_input``); ``/lca-mode`` (the channel's retrieval mode); 👍/👎 buttons. The bot's own messages, other bots,
edits and other message subtypes are ignored.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import re
from functools import cache
from typing import Any

from slack_bolt import App, BoltContext
from slack_bolt.adapter.aws_lambda import SlackRequestHandler
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot_handlers.intent import parse_intent
from bot_handlers.slack.client import slack_credentials, web_client
from bot_handlers.state import ConversationState, JobQueues, conversation_state, job_queues
from lcabot import messages
from lcabot.jobs import AnswerJob, ConversationRef, FileRef, IndexJob, ReportJob

logger = logging.getLogger("lcabot.slack")

REPORT_CALLBACK = "lca_report"
REPORT_BLOCK, REPORT_ACTION = "study", "study_file"
_ACTED_SUBTYPES = (None, "file_share", "thread_broadcast")  # message subtypes that are a person writing


def is_pdf(file: dict) -> bool:
    return file.get("filetype") == "pdf" or file.get("mimetype") == "application/pdf"


def file_ref(file: dict) -> FileRef:
    """A Slack file object (event ``files[]``, ``file_input`` value) → a ``FileRef`` downloaded by the worker."""
    return FileRef(name=file.get("name") or file.get("title") or file["id"],
                   url=file.get("url_private_download") or file["url_private"], size=file.get("size"))


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


class SlackBot:
    """The listeners' logic, bound to a conversation state store and the job queues."""

    def __init__(self, state: ConversationState, queues: JobQueues, library_channels: frozenset[str] = frozenset()):
        self.state = state
        self.queues = queues
        self.library_channels = library_channels

    # ---------------------------------------------------------------- messages
    def on_mention(self, event: dict, context: BoltContext, client: WebClient) -> None:
        self._act(event, context, client)

    def on_message(self, event: dict, context: BoltContext, client: WebClient) -> None:
        if event.get("subtype") not in _ACTED_SUBTYPES or event.get("bot_id") or not event.get("user"):
            return
        if event.get("user") == context.bot_user_id:
            return
        channel, thread_ts = event["channel"], event.get("thread_ts")
        if event.get("channel_type") == "im" or channel in self.library_channels and event.get("files"):
            self._act(event, context, client)
        elif thread_ts and thread_ts != event["ts"] and \
                self.state.in_thread("slack", context.team_id or "", channel, thread_ts):
            self._act(event, context, client)

    def _act(self, event: dict, context: BoltContext, client: WebClient) -> None:
        team, channel, ts, user = context.team_id or "", event["channel"], event["ts"], event.get("user", "")
        files = event.get("files") or []
        pdfs = [f for f in files if is_pdf(f)]
        intent = parse_intent(event.get("text", ""), library_channel=channel in self.library_channels,
                              has_file=bool(pdfs))
        dedupe_key = f"slack:{team}:{channel}:{ts}"
        if not self.state.claim("slack", dedupe_key):
            logger.info("duplicate delivery ignored: %s", dedupe_key)
            return
        try:
            thread = event.get("thread_ts") or ts
            conversation = ConversationRef("slack", channel, thread, team)
            if self.state.over_limit("slack", team, channel, user):
                client.chat_postMessage(channel=channel, thread_ts=thread, text=messages.rate_limited())
                return
            if files and not pdfs:
                client.chat_postMessage(channel=channel, thread_ts=thread,
                                        text=messages.only_pdfs(files[0].get("name", "the file")))
            elif intent.kind in ("report", "index") and not pdfs:
                client.chat_postMessage(channel=channel, thread_ts=thread, text=messages.file_missing(
                    "make a report" if intent.kind == "report" else "add a document to the library"))
            elif intent.kind == "report":
                self._enqueue_files(client, conversation, user, dedupe_key, pdfs, report=True)
            elif intent.kind == "index":
                self._enqueue_files(client, conversation, user, dedupe_key, pdfs, perspective=intent.perspective)
            elif pdfs:
                client.chat_postMessage(channel=channel, thread_ts=thread, text=messages.pdf_needs_intent(
                    pdfs[0].get("name", "the PDF")))
            elif intent.kind == "help":
                client.chat_postMessage(channel=channel, thread_ts=thread, text=messages.chat_help())
            else:
                mode = intent.mode or self.state.retrieval_mode("slack", team, channel)
                placeholder = client.chat_postMessage(channel=channel, thread_ts=thread, text=messages.searching())
                self.state.remember_thread("slack", team, channel, thread)
                self.queues.send(AnswerJob(
                    dedupe_key=dedupe_key, user=user, question=intent.text, retrieval_mode=mode,
                    conversation=ConversationRef("slack", channel, thread, team, status_message=placeholder["ts"])))
        except Exception:
            self.state.release("slack", dedupe_key)  # Slack retries on a 5xx; that retry must not be a duplicate
            raise

    def _enqueue_files(self, client: WebClient, conversation: ConversationRef, user: str, dedupe_key: str,
                       pdfs: list[dict], *, report: bool = False, perspective: str = "general") -> None:
        for file in pdfs:
            ref = file_ref(file)
            text = messages.report_started(ref.name) if report else messages.index_started(ref.name, perspective)
            posted = client.chat_postMessage(channel=conversation.channel, thread_ts=conversation.thread_ts,
                                             text=text)
            target = ConversationRef("slack", conversation.channel, conversation.thread_ts, conversation.team,
                                     status_message=posted["ts"])
            key = f"{dedupe_key}:{file['id']}"
            job = ReportJob(key, target, user, ref) if report else IndexJob(key, target, user, ref, perspective)
            self.queues.send(job)
        self.state.remember_thread("slack", conversation.team or "", conversation.channel,
                                   conversation.thread_ts or "")

    # ---------------------------------------------------------------- commands and interactivity
    def on_report_command(self, ack, body: dict, client: WebClient) -> None:
        ack()
        client.views_open(trigger_id=body["trigger_id"], view=report_modal(body["channel_id"]))

    def on_report_submission(self, ack, body: dict, view: dict, context: BoltContext, client: WebClient) -> None:
        value = view["state"]["values"].get(REPORT_BLOCK, {}).get(REPORT_ACTION, {})
        files = value.get("files") or []
        if not files or not is_pdf(files[0]):
            ack(response_action="errors", errors={REPORT_BLOCK: "Choose a PDF file."})
            return
        ack()
        team, user = context.team_id or "", body["user"]["id"]
        meta = json.loads(view.get("private_metadata") or "{}")
        channel = meta.get("channel") or user
        dedupe_key = f"slack:{team}:view:{view['id']}"
        if not self.state.claim("slack", dedupe_key):
            return
        ref = file_ref(files[0])
        text = f"<@{user}>: {messages.report_started(ref.name)}"
        try:
            posted = client.chat_postMessage(channel=channel, thread_ts=meta.get("thread_ts"), text=text)
        except SlackApiError as err:
            if err.response.get("error") not in ("not_in_channel", "channel_not_found"):
                raise
            posted = client.chat_postMessage(channel=user, text=text)  # the bot is not in that channel: DM
        channel = posted["channel"]
        thread = meta.get("thread_ts") or posted["ts"]
        conversation = ConversationRef("slack", channel, thread, team, status_message=posted["ts"])
        self.queues.send(ReportJob(f"{dedupe_key}:{files[0]['id']}", conversation, user, ref))

    def on_mode_command(self, ack, command: dict, context: BoltContext) -> None:
        team, channel, user = context.team_id or "", command["channel_id"], command["user_id"]
        choice = (command.get("text") or "").strip().lower().lstrip("-")
        modes = {"rag": "rag", "graph": "rag+graph", "rag+graph": "rag+graph"}
        if choice in modes:
            self.state.set_retrieval_mode("slack", team, channel, modes[choice], user)
            ack(text=messages.mode_set(modes[choice]))
        else:
            ack(text=messages.mode_is(self.state.retrieval_mode("slack", team, channel)))

    def on_feedback(self, ack, body: dict, action: dict, context: BoltContext, client: WebClient) -> None:
        ack()
        vote = "up" if action["action_id"] == "feedback_up" else "down"
        try:
            value = json.loads(action.get("value") or "{}")
        except json.JSONDecodeError:
            value = {}
        message, channel, user = body.get("message") or {}, body["channel"]["id"], body["user"]["id"]
        self.state.record_feedback("slack", context.team_id or "", channel, message.get("ts", ""), user, vote,
                                   question=str(value.get("q", "")), answer=message.get("text", ""),
                                   ledger_hash=str(value.get("h", "")))
        client.chat_postEphemeral(channel=channel, user=user, thread_ts=message.get("thread_ts"),
                                  text=messages.feedback_thanks(vote))


def build_app(bot: SlackBot, *, token: str, signing_secret: str) -> App:
    """The Bolt app: signature verification on, ``process_before_response`` (a Lambda must finish its work
    before returning), listeners registered on ``bot``."""
    app = App(client=web_client(token), signing_secret=signing_secret, process_before_response=True, logger=logger)
    app.event("app_mention")(bot.on_mention)
    app.event("message")(bot.on_message)
    app.command("/lca-report")(bot.on_report_command)
    app.command("/lca-mode")(bot.on_mode_command)
    app.view(REPORT_CALLBACK)(bot.on_report_submission)
    app.action(re.compile(r"^feedback_(up|down)$"))(bot.on_feedback)
    return app


@cache
def request_handler() -> SlackRequestHandler:
    credentials = slack_credentials()
    channels = frozenset(c for c in os.environ.get("LCABOT_SLACK_LIBRARY_CHANNELS", "").split(",") if c.strip())
    bot = SlackBot(conversation_state(), job_queues(), channels)
    return SlackRequestHandler(build_app(bot, token=credentials.bot_token, signing_secret=credentials.signing_secret))


def handler(event: dict, context: Any) -> dict:
    """API Gateway (HTTP API, payload 2.0) event → ``{"statusCode", "body", "headers"}``; a request that is not
    an HTTP API event gets 400 without reaching Bolt."""
    if not isinstance(event, dict) or not isinstance(event.get("headers"), dict) or \
            not isinstance(event.get("body", ""), str):
        return {"statusCode": 400, "body": "not an API Gateway HTTP event", "headers": {}}
    event = {**event, "isBase64Encoded": bool(event.get("isBase64Encoded"))}
    if event["isBase64Encoded"]:
        try:
            base64.b64decode(event.get("body") or "", validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return {"statusCode": 400, "body": "body is not base64-encoded UTF-8", "headers": {}}
    return request_handler().handle(event, context)
