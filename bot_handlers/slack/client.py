"""The Slack ``PlatformClient`` the worker Lambdas deliver through (``slack_sdk.WebClient``, no Bolt), and the Slack
credentials both the Bolt app and the workers read.

Answers replace the "Searching the LCA library…" placeholder in place (``chat.update``) with Block Kit; report files
go to the thread with ``files_upload_v2``; the thread's earlier turns come from ``conversations.replies``. Slack's
429 responses are retried after their ``Retry-After`` (slack_sdk's ``RateLimitErrorRetryHandler``).

Environment: ``LCABOT_SLACK_BOT_TOKEN`` and ``LCABOT_SLACK_SIGNING_SECRET``, or ``LCABOT_SLACK_SECRET_ARN`` (a
Secrets Manager JSON secret with ``bot_token`` and ``signing_secret``); ``LCABOT_SLACK_API_URL`` points the Web API
elsewhere than ``https://slack.com/api/`` (the tests' local Slack server). The ``LCABOT_`` prefix keeps Bolt from
also reading the token from ``SLACK_BOT_TOKEN``.
"""

from __future__ import annotations

import html
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler

from bot_handlers.download import fetch_pdf
from bot_handlers.intent import strip_mentions
from bot_handlers.slack import blocks
from lcabot.errors import ConfigurationError
from lcabot.jobs import AnswerJob, ConversationRef, FileRef
from lcabot.models import Answer, Turn

if TYPE_CHECKING:
    from lcabot.wiring import Deps

logger = logging.getLogger("lcabot.slack")

SLACK_API_URL = "https://slack.com/api/"
HISTORY_TURNS = 6  # earlier question/answer pairs of the thread given to the answerer
_PLACEHOLDER_GONE = ("message_not_found", "cant_update_message")
FEEDBACK_QUESTION_CHARS = 1500  # the question kept in the 👍/👎 button value (Slack allows 2,000 characters)


@dataclass(frozen=True)
class SlackCredentials:
    bot_token: str
    signing_secret: str


def slack_credentials(deps: Deps) -> SlackCredentials:
    """The bot token and signing secret from the settings or the secret ``settings.slack_secret_arn``.

    Raises:
        ConfigurationError: neither ``LCABOT_SLACK_BOT_TOKEN``/``LCABOT_SLACK_SIGNING_SECRET`` nor
            ``LCABOT_SLACK_SECRET_ARN`` is set, or the secret lacks a field.
    """
    s = deps.settings
    if s.slack_bot_token and s.slack_signing_secret:
        return SlackCredentials(s.slack_bot_token, s.slack_signing_secret)
    if not s.slack_secret_arn:
        raise ConfigurationError("set LCABOT_SLACK_BOT_TOKEN and LCABOT_SLACK_SIGNING_SECRET, or "
                                 "LCABOT_SLACK_SECRET_ARN")
    return SlackCredentials(str(deps.secret(s.slack_secret_arn, "bot_token")),
                            str(deps.secret(s.slack_secret_arn, "signing_secret")))


def web_client(token: str, api_url: str | None = None, *, wait_on_rate_limit: bool = True) -> WebClient:
    """A Web API client (``api_url``: default Slack's) that retries dropped connections and, for the workers,
    waits out 429s (``Retry-After``)."""
    client = WebClient(token=token, base_url=api_url or SLACK_API_URL)
    client.retry_handlers = [ConnectionErrorRetryHandler(max_retry_count=2)]
    if wait_on_rate_limit:
        client.retry_handlers.append(RateLimitErrorRetryHandler(max_retry_count=3))
    return client


def slack_client(deps: Deps) -> SlackClient:
    """The workers' ``PlatformClient`` for Slack (``bot_handlers.platforms.PLATFORMS``)."""
    return SlackClient(web_client(slack_credentials(deps).bot_token, deps.settings.slack_api_url))


def message_ts(job: AnswerJob) -> str:
    """The ts of the Slack message a job answers (the last part of its dedupe key ``slack:<team>:<channel>:<ts>``)."""
    return job.dedupe_key.rsplit(":", 1)[-1]


def feedback_value(question: str, answer: Answer) -> str:
    """The 👍/👎 buttons' value: the question (cut to :data:`FEEDBACK_QUESTION_CHARS`), mode and ledger hash."""
    return json.dumps({"q": question[:FEEDBACK_QUESTION_CHARS], "m": answer.retrieval_mode,
                       "h": answer.ledger_hash}, ensure_ascii=False)


class SlackClient:
    """``PlatformClient`` for Slack conversations (``ConversationRef.channel`` is the channel id, ``thread_ts`` the
    thread root, ``status_message`` the ts of the bot's placeholder)."""

    def __init__(self, web: WebClient) -> None:
        self.web = web

    def post_answer(self, job: AnswerJob, answer: Answer) -> None:
        first, *more = blocks.answer_messages(answer, question=job.question,
                                              feedback_value=feedback_value(job.question, answer))
        self._replace_or_post(job.conversation, *first)
        for text, content in more:  # the sources that did not fit beside the answer
            self.web.chat_postMessage(channel=job.conversation.channel, thread_ts=job.conversation.thread_ts,
                                      text=text, blocks=content)

    def post_notice(self, conversation: ConversationRef, text: str) -> None:
        self._replace_or_post(conversation, *blocks.notice_blocks(text))

    def post_progress(self, conversation: ConversationRef, text: str) -> None:
        self._replace_or_post(conversation, *blocks.notice_blocks(text))

    def post_files(self, conversation: ConversationRef, files: Sequence[Path], comment: str) -> None:
        """Upload into the thread, then mark the progress message done. The files are the delivery: once they are
        uploaded, a failing progress update is logged, not raised (a retry would upload them twice)."""
        self.web.files_upload_v2(
            channel=conversation.channel, thread_ts=conversation.thread_ts, initial_comment=blocks.escape(comment),
            file_uploads=[{"file": str(f), "filename": f.name, "title": f.name} for f in files],
            request_file_info=False,
        )
        if conversation.status_message:
            try:
                self.post_progress(conversation, comment)
            except SlackApiError as err:
                logger.warning("report delivered; progress message not updated: %s", err.response.get("error"))

    def history(self, job: AnswerJob) -> tuple[Turn, ...]:
        """The thread's earlier question/answer pairs (at most :data:`HISTORY_TURNS`, oldest first): each person's
        message followed by a reply of this bot, before the message being answered; other bots, placeholders and
        notices are skipped."""
        conversation = job.conversation
        if not conversation.thread_ts:
            return job.history
        bot_user = self.web.auth_test()["user_id"]
        current = float(message_ts(job))
        turns: list[Turn] = []
        question: str | None = None
        for message in self._replies(conversation.channel, conversation.thread_ts):
            if float(message["ts"]) >= current:
                break
            if message.get("user") == bot_user or message.get("bot_id"):
                if question is not None and message.get("user") == bot_user and message.get("blocks") and \
                        any(b.get("block_id") == "feedback" for b in message["blocks"]):
                    turns.append(Turn(question, html.unescape(message.get("text", ""))))
                    question = None
            elif not message.get("subtype") or message.get("subtype") == "file_share":
                question = strip_mentions(html.unescape(message.get("text", "")))
        return tuple(turns[-HISTORY_TURNS:])

    def download(self, file: FileRef, limit_bytes: int) -> bytes:
        """A Slack file's bytes from ``url_private_download`` with the bot token (see
        :func:`bot_handlers.download.fetch_pdf` for the limits and errors)."""
        return fetch_pdf(file, limit_bytes, platform="Slack", headers={"Authorization": f"Bearer {self.web.token}"})

    def _replies(self, channel: str, thread_ts: str) -> list[dict]:
        messages: list[dict] = []
        cursor = None
        while True:
            page = self.web.conversations_replies(channel=channel, ts=thread_ts, limit=200, cursor=cursor)
            messages += page.get("messages", [])
            cursor = (page.get("response_metadata") or {}).get("next_cursor")
            if not page.get("has_more") or not cursor:
                return messages

    def _replace_or_post(self, conversation: ConversationRef, text: str, content: list[dict]) -> None:
        """Update the placeholder in place; when it is gone (deleted by someone) post into the thread instead."""
        if conversation.status_message:
            try:
                self.web.chat_update(channel=conversation.channel, ts=conversation.status_message, text=text,
                                     blocks=content)
                return
            except SlackApiError as err:
                if err.response.get("error") not in _PLACEHOLDER_GONE:
                    raise
        self.web.chat_postMessage(channel=conversation.channel, thread_ts=conversation.thread_ts, text=text,
                                  blocks=content)
