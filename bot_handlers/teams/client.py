"""The Teams ``PlatformClient`` the worker Lambdas deliver through, and the Bot Framework credentials both the webhook
Lambda (``bot_handlers.teams.app``) and the workers read.

Delivery is proactive: each job carries the conversation reference of the message it answers (``serviceUrl``,
conversation, the message's activity id), and the synchronous ``botframework.connector.ConnectorClient`` posts into
it with a token from ``MicrosoftAppCredentials`` (msal caches the token inside the credentials object, so one client
per execution environment). Answers are Adaptive Cards (:mod:`bot_handlers.teams.cards`) replying to the question:
in a channel into its reply chain (conversation id ``…;messageid=<root>``), in a personal or group chat into the
chat. A progress message the webhook posted (``ConversationRef.status_message``) is updated in place.

Files: a bot can send files only in personal chats, through a FileConsentCard the user accepts (the webhook then
uploads the bytes, see ``TeamsBot.on_teams_file_consent_accept``). So report files are stored in the reports bucket
under ``teams/<uuid>/<name>`` and, in a personal chat, offered as one FileConsentCard each; in channels and group
chats the message carries presigned S3 links valid for :data:`LINK_EXPIRY_S`.

Environment: ``MICROSOFT_APP_ID`` and ``MICROSOFT_APP_PASSWORD``, or ``LCABOT_TEAMS_SECRET_ARN`` (a Secrets Manager
JSON secret with ``app_id`` and ``app_password``); ``LCABOT_REPORTS_BUCKET`` for report files.
"""

from __future__ import annotations

import mimetypes
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from botbuilder.schema import Activity, ActivityTypes, Attachment
from botframework.connector import ConnectorClient
from botframework.connector.auth import MicrosoftAppCredentials
from botframework.connector.models import ErrorResponseException

from bot_handlers.download import fetch_pdf
from bot_handlers.teams import cards
from lcabot import messages
from lcabot.errors import ConfigurationError
from lcabot.jobs import AnswerJob, ConversationRef, FileRef
from lcabot.models import Answer, Turn

if TYPE_CHECKING:
    from lcabot.adapters.conversations import ConversationState
    from lcabot.wiring import Deps

FILE_CONSENT = "application/vnd.microsoft.teams.card.file.consent"
FILE_INFO = "application/vnd.microsoft.teams.card.file.info"
FILE_DOWNLOAD_INFO = "application/vnd.microsoft.teams.file.download.info"
REPORTS_PREFIX = "teams/"  # reports bucket keys of files offered in Teams: teams/<uuid>/<name>
LINK_EXPIRY_S = 24 * 3600
CONNECTOR_ATTEMPTS = 4  # tries of one Bot Connector call on 429/5xx before the job fails (and SQS retries it)
MAX_RETRY_AFTER_S = 10.0
FEEDBACK_QUESTION_CHARS = 500  # the question and answer excerpt kept in the 👍/👎 data (they count towards 28 KB)
FEEDBACK_ANSWER_CHARS = 500
_T = TypeVar("_T")


@dataclass(frozen=True)
class TeamsCredentials:
    """The Azure Bot's app id and client secret; ``tenant_id`` for a single-tenant bot (``None``: multi-tenant,
    tokens from the ``botframework.com`` tenant)."""

    app_id: str
    app_password: str
    tenant_id: str | None = None

    def app_credentials(self) -> MicrosoftAppCredentials:
        return MicrosoftAppCredentials(self.app_id, self.app_password, channel_auth_tenant=self.tenant_id)


def teams_credentials(deps: Deps) -> TeamsCredentials:
    """The bot's Microsoft app id, password and (single-tenant bots) tenant id from the settings
    (``MICROSOFT_APP_ID``, ``MICROSOFT_APP_PASSWORD``, ``MICROSOFT_APP_TENANT_ID``) or the secret
    ``settings.teams_secret_arn`` (``app_id``, ``app_password``, ``app_tenant_id``).

    Raises:
        ConfigurationError: neither ``MICROSOFT_APP_ID``/``MICROSOFT_APP_PASSWORD`` nor ``LCABOT_TEAMS_SECRET_ARN``
            is set, or the secret lacks a field. An empty app id would switch Bot Framework authentication off, so
            it is refused too.
    """
    s = deps.settings
    if s.teams_app_id and s.teams_app_password:
        return TeamsCredentials(s.teams_app_id, s.teams_app_password, s.teams_tenant_id)
    if not s.teams_secret_arn:
        raise ConfigurationError("set MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD, or LCABOT_TEAMS_SECRET_ARN")
    arn = s.teams_secret_arn
    return TeamsCredentials(str(deps.secret(arn, "app_id")), str(deps.secret(arn, "app_password")),
                            deps.secret(arn, "app_tenant_id", required=False) or None)


def teams_client(deps: Deps) -> TeamsClient:
    """The workers' ``PlatformClient`` for Teams (``bot_handlers.platforms.PLATFORMS``): the conversations table
    keeps answered turns when it is set; report files go to ``settings.reports_bucket``."""
    state = deps.conversations if deps.settings.conversations_table else None
    return TeamsClient(teams_credentials(deps).app_credentials(), state=state,
                       reports_bucket=deps.settings.reports_bucket)


def _retrying(call: Callable[[], _T], attempts: int = CONNECTOR_ATTEMPTS) -> _T:
    """Run a Bot Connector call, retrying a 429 or 5xx after its ``Retry-After`` (capped at
    :data:`MAX_RETRY_AFTER_S`, default 1 s, doubling): msrest retries neither 429 nor a POST. Other errors and the
    last failure are raised."""
    delay = 1.0
    for attempt in range(attempts):
        try:
            return call()
        except ErrorResponseException as err:
            status = err.response.status_code if err.response is not None else 0
            if attempt == attempts - 1 or not (status == 429 or status >= 500):
                raise
            retry_after = (err.response.headers or {}).get("Retry-After", "")
            wait = float(retry_after) if retry_after.replace(".", "", 1).isdigit() else delay
            time.sleep(min(wait, MAX_RETRY_AFTER_S))
            delay *= 2
    raise AssertionError("unreachable")


def feedback_data(question: str, answer: Answer) -> dict[str, str]:
    """What the 👍/👎 actions carry back: the question, an answer excerpt, the retrieval mode and the ledger hash."""
    return {"q": question[:FEEDBACK_QUESTION_CHARS], "a": answer.text[:FEEDBACK_ANSWER_CHARS],
            "m": answer.retrieval_mode, "h": answer.ledger_hash}


def thread_conversation_id(conversation: ConversationRef) -> str:
    """The conversation id that addresses the reply chain: a channel's ``19:…@thread.tacv2;messageid=<root>``."""
    if conversation.thread_ts and ";messageid=" not in conversation.channel:
        return f"{conversation.channel};messageid={conversation.thread_ts}"
    return conversation.channel


def is_personal(conversation: ConversationRef) -> bool:
    reference_conversation = conversation.reference.get("conversation") or {}
    return reference_conversation.get("conversationType") == "personal"


class TeamsClient:
    """``PlatformClient`` for Teams conversations (``ConversationRef.channel`` is the conversation id, ``thread_ts``
    the reply chain's root in channels, ``team`` the tenant, ``reference`` the serialized Bot Framework conversation
    reference, ``status_message`` the id of the webhook's progress message)."""

    def __init__(self, credentials: MicrosoftAppCredentials, s3: Any = None, state: ConversationState | None = None,
                 reports_bucket: str | None = None) -> None:
        self.credentials = credentials
        self.state = state
        self.reports_bucket = reports_bucket
        self._connectors: dict[str, ConnectorClient] = {}
        self._s3 = s3

    # ---------------------------------------------------------------- PlatformClient
    def post_answer(self, job: AnswerJob, answer: Answer) -> None:
        """The answer card (and cards with the sources that did not fit on it); an answer (not an abstention) is also
        kept as a turn of the conversation's history."""
        first, *more = cards.answer_cards(answer, question=job.question,
                                          feedback_data=feedback_data(job.question, answer))
        self._deliver(job.conversation, _card_activity(first, summary=answer.text[:120]))
        for card in more:  # the sources that did not fit beside the answer
            self._send(job.conversation, _card_activity(card, summary="Sources (continued)"))
        if self.state is not None and not answer.abstained:
            self.state.add_turn("teams", thread_conversation_id(job.conversation), job.question, answer.text)

    def post_notice(self, conversation: ConversationRef, text: str) -> None:
        self._deliver(conversation, Activity(type=ActivityTypes.message, text=text, text_format="plain"))

    def post_progress(self, conversation: ConversationRef, text: str) -> None:
        self._deliver(conversation, Activity(type=ActivityTypes.message, text=text, text_format="plain"))

    def post_files(self, conversation: ConversationRef, files: Sequence[Path], comment: str) -> None:
        """Personal chat: a FileConsentCard per file (the user's accept uploads it to their OneDrive). Channels and
        group chats: a card with presigned links to the reports bucket (:data:`LINK_EXPIRY_S`)."""
        if not self.reports_bucket:
            raise ConfigurationError("LCABOT_REPORTS_BUCKET is not set (the function's environment in template.yaml "
                                     "sets it)")
        bucket = self.reports_bucket
        stored = [(path, self._store(bucket, path)) for path in files]
        if is_personal(conversation):
            self._deliver(conversation, Activity(type=ActivityTypes.message, text_format="plain",
                                                 text=f"{comment}\n\n{messages.files_offered(len(stored))}"))
            for path, key in stored:
                context = {"bucket": bucket, "key": key}
                consent = {"description": f"{path.name} ({_size(path.stat().st_size)})",
                           "sizeInBytes": path.stat().st_size, "acceptContext": context, "declineContext": context}
                activity = Activity(type=ActivityTypes.message, attachments=[
                    Attachment(content_type=FILE_CONSENT, name=path.name, content=consent)])
                self._send(conversation, activity)
        else:
            links = [(path.name, self._presign(bucket, key)) for path, key in stored]
            self._deliver(conversation, _card_activity(links_card(comment, links), summary=comment[:120]))

    def history(self, job: AnswerJob) -> tuple[Turn, ...]:
        """The conversation's (channel: the reply chain's) earlier turns this bot answered, from the conversations
        table: a bot cannot read a Teams reply chain through the Bot Connector (that needs Microsoft Graph), so the
        answer worker keeps them (:meth:`post_answer`). Without a table, the turns the job carries."""
        if self.state is None:
            return job.history
        return self.state.turns("teams", thread_conversation_id(job.conversation)) or job.history

    def download(self, file: FileRef, limit_bytes: int) -> bytes:
        """A shared file's bytes from its pre-authenticated ``downloadUrl`` (plain GET, no token; see
        :func:`bot_handlers.download.fetch_pdf` for the limits and errors)."""
        return fetch_pdf(file, limit_bytes, platform="Teams")

    # ---------------------------------------------------------------- connector
    def connector(self, service_url: str) -> ConnectorClient:
        if service_url not in self._connectors:
            self._connectors[service_url] = ConnectorClient(self.credentials, base_url=service_url)
        return self._connectors[service_url]

    def _deliver(self, conversation: ConversationRef, activity: Activity) -> None:
        """Replace the progress message with ``activity`` when there is one (a new message if it is gone)."""
        if conversation.status_message:
            activity.id = conversation.status_message
            try:
                conversations = self._client(conversation).conversations
                _retrying(lambda: conversations.update_activity(
                    thread_conversation_id(conversation), conversation.status_message, activity))
                return
            except ErrorResponseException as err:
                if err.response is None or err.response.status_code != 404:
                    raise
            activity.id = None
        self._send(conversation, activity)

    def _send(self, conversation: ConversationRef, activity: Activity) -> None:
        """A reply to the message the conversation reference names, or a new message in the conversation."""
        conversation_id = thread_conversation_id(conversation)
        replied_to = conversation.reference.get("activityId")
        client = self._client(conversation).conversations
        if replied_to:
            activity.reply_to_id = replied_to
            _retrying(lambda: client.reply_to_activity(conversation_id, replied_to, activity))
        else:
            _retrying(lambda: client.send_to_conversation(conversation_id, activity))

    def _client(self, conversation: ConversationRef) -> ConnectorClient:
        service_url = conversation.reference.get("serviceUrl")
        if not service_url:
            raise ConfigurationError(f"Teams conversation {conversation.channel!r} has no serviceUrl in its reference")
        return self.connector(service_url)

    # ---------------------------------------------------------------- reports bucket
    def s3(self) -> Any:
        if self._s3 is None:
            import boto3
            from botocore.config import Config

            self._s3 = boto3.client("s3", config=Config(signature_version="s3v4"))  # SigV2 links are deprecated
        return self._s3

    def _store(self, bucket: str, path: Path) -> str:
        from lcabot.adapters.aws import S3ObjectStore

        key = f"{REPORTS_PREFIX}{uuid.uuid4().hex}/{path.name}"
        content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        S3ObjectStore(bucket, self.s3()).put(key, path.read_bytes(), content_type)
        return key

    def _presign(self, bucket: str, key: str) -> str:
        return self.s3().generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key},
                                                ExpiresIn=LINK_EXPIRY_S)


def links_card(comment: str, links: Sequence[tuple[str, str]]) -> dict:
    """An Adaptive Card: ``comment``, one link per file (the name shown escaped when the URL is refused by
    :func:`cards.markdown_link`) and when the links expire."""
    body: list[dict[str, Any]] = [_text(line) for line in cards.escape_markdown(comment).splitlines() if line.strip()]
    for name, url in links:
        try:
            body.append(_text(cards.markdown_link(url, name)))
        except ValueError:
            body.append(_text(cards.escape_markdown(name)))
    body.append(_text(messages.links_expire(LINK_EXPIRY_S // 3600), isSubtle=True, size="Small"))
    return {"type": "AdaptiveCard", "$schema": cards.SCHEMA, "version": cards.VERSION, "body": body}


def consent_context(value: Mapping[str, Any] | None, bucket: str) -> str | None:
    """The reports-bucket key a FileConsentCard's context names, or ``None`` unless it is one of our Teams files in
    ``bucket`` (the context comes back from the client; nothing else in the bucket may be fetched through it)."""
    if not isinstance(value, Mapping) or value.get("bucket") != bucket:
        return None
    key = value.get("key")
    if not isinstance(key, str) or not key.startswith(REPORTS_PREFIX) or ".." in key.split("/"):
        return None
    return key


def _card_activity(card: dict, *, summary: str = "") -> Activity:
    return Activity(type=ActivityTypes.message, summary=summary or None, attachments=[
        Attachment(content_type=cards.CONTENT_TYPE, content=card)])


def _text(text: str, **style: object) -> dict:
    return {"type": "TextBlock", "text": text, "wrap": True, **style}


def _size(n: int) -> str:
    return f"{n / 1048576:.1f} MB" if n >= 1048576 else f"{max(1, round(n / 1024))} KB"
