"""AWS Lambda behind the HTTP API (``POST /api/messages``): the Microsoft Teams bot.

The handler checks the Bot Framework JWT in ``Authorization`` with botframework-connector's validator (issuer,
audience = our app id, signing key from the channel's published keys, endorsement of the channel) before it reads the
body, then that the activity comes from ``msteams`` and names the ``serviceUrl`` the token's ``serviceurl`` claim
holds, and only then runs the activity through botbuilder's ``BotFrameworkAdapter`` and :class:`TeamsBot`; so a
``serviceUrl`` is trusted (replied to, stored in a job) only after validation. Status codes: 401 for any failure of
authentication (a missing header, a forged, expired or foreign token, an unreachable key endpoint, another channel or
``serviceUrl``), 400 for an event or body that is not a well-formed activity (:func:`malformed`), 500 when the bot
fails after authentication (Teams may retry: the dedupe claim is released), otherwise 200 (or an invoke's status).

:class:`TeamsBot` only decides what an activity asks for, claims it once (durable dedupe on conversation + activity
id in the conversations table) and enqueues a job; the worker Lambdas deliver through
:class:`bot_handlers.teams.client.TeamsClient`. It handles personal-chat messages and channel/group-chat @mentions
(questions with ``--rag``/``--graph``, ``mode [rag|graph]``, ``help``), a PDF attached in a personal chat (``report``
or no text → report, ``index [perspective]`` → library), the 👍/👎 ``Action.Submit`` of an answer card, and
``fileConsent/invoke`` (the user accepted or declined a report file offered with a FileConsentCard). Nothing here
imports torch or loads a model.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from botbuilder.core import BotFrameworkAdapter, BotFrameworkAdapterSettings, InvokeResponse, TurnContext
from botbuilder.core.teams import TeamsActivityHandler
from botbuilder.schema import Activity, ActivityTypes, Attachment
from botbuilder.schema.teams import FileConsentCardResponse
from botframework.connector.auth import (
    AuthenticationConfiguration,
    ChannelValidation,
    ClaimsIdentity,
    MicrosoftAppCredentials,
    SimpleCredentialProvider,
)
from botframework.connector.auth.jwt_token_extractor import JwtTokenExtractor

from bot_handlers.dispatch import FileJobs, Reply, decide
from bot_handlers.intent import MODE_WORDS, parse_intent, strip_mentions
from bot_handlers.platforms import deployed
from bot_handlers.teams.client import FILE_DOWNLOAD_INFO, FILE_INFO, consent_context, teams_credentials
from lcabot import messages
from lcabot.adapters.conversations import DUPLICATE, RATE_LIMITED, ConversationState
from lcabot.adapters.queues import JobQueues
from lcabot.errors import ConfigurationError
from lcabot.jobs import AnswerJob, ConversationRef, FileRef, IndexJob, ReportJob

if TYPE_CHECKING:
    from lcabot.ports import ObjectStore
    from lcabot.wiring import Deps

logger = logging.getLogger("lcabot.teams")

UPLOAD_FRAGMENT = 10 * 320 * 1024  # upload sessions take fragments in multiples of 320 KiB


@dataclass(frozen=True)
class Chat:
    """Who and where an activity comes from, in the terms the state and the jobs use."""

    conversation_id: str  # as received: in a channel ``19:…@thread.tacv2;messageid=<root>``
    base_id: str  # without ``;messageid=``: the channel or chat (settings, rate limits, feedback)
    thread: str | None  # reply-chain root in channels, None in personal and group chats
    tenant: str
    user: str
    personal: bool

    @classmethod
    def of(cls, activity: Activity) -> Chat:
        conversation = activity.conversation
        conversation_id = conversation.id or ""
        base_id, _, message_id = conversation_id.partition(";messageid=")
        kind = conversation.conversation_type or "personal"
        thread = (message_id or activity.reply_to_id or activity.id) if kind == "channel" else None
        channel_data = activity.channel_data if isinstance(activity.channel_data, dict) else {}
        tenant = conversation.tenant_id or (channel_data.get("tenant") or {}).get("id") or ""
        sender = activity.from_property
        user = (sender.aad_object_id or sender.id or "") if sender else ""
        return cls(conversation_id, base_id, thread, tenant, user, kind == "personal")

    def ref(self, activity: Activity, status_message: str | None = None) -> ConversationRef:
        reference = TurnContext.get_conversation_reference(activity).serialize()
        return ConversationRef("teams", self.conversation_id, self.thread, self.tenant, reference, status_message)


async def _say(turn_context: TurnContext, text: str) -> Any:
    """Send ``text`` as plain text: file names and other user-supplied words are never rendered as markdown (a
    file named ``[Verify](https://evil)`` stays text). Returns the resource response (its ``id``)."""
    return await turn_context.send_activity(Activity(type=ActivityTypes.message, text=text, text_format="plain"))


def is_pdf(attachment: Attachment) -> bool:
    content = attachment.content if isinstance(attachment.content, dict) else {}
    return str(content.get("fileType", "")).lower() == "pdf" or (attachment.name or "").lower().endswith(".pdf")


def mentions_bot(activity: Activity) -> bool:
    bot_id = activity.recipient.id if activity.recipient else None
    for entity in activity.entities or []:
        if str(getattr(entity, "type", "") or "").lower() != "mention":
            continue
        mentioned = getattr(entity, "mentioned", None) or (entity.additional_properties or {}).get("mentioned")
        mentioned_id = getattr(mentioned, "id", None) if not isinstance(mentioned, dict) else mentioned.get("id")
        if bot_id and mentioned_id == bot_id:
            return True
    return False


class TeamsBot(TeamsActivityHandler):
    """The activity logic, bound to a conversation state store, the job queues and (for accepted report files)
    the reports bucket."""

    def __init__(self, state: ConversationState, queues: JobQueues, reports: ObjectStore | None = None,
                 reports_bucket: str = "", default_mode: str = "rag+graph") -> None:
        self.state = state
        self.queues = queues
        self.reports = reports
        self.reports_bucket = reports_bucket
        self.default_mode = default_mode  # a chat's retrieval mode until ``mode`` sets one (Settings.retrieval_mode)

    async def on_conversation_update_activity(self, turn_context: TurnContext) -> None:
        """Members added or removed, a channel renamed: nothing to act on (botbuilder would look each added member
        up on the Bot Connector first)."""
        logger.debug("conversationUpdate acknowledged: %s", turn_context.activity.id)

    # ---------------------------------------------------------------- messages
    async def on_message_activity(self, turn_context: TurnContext) -> None:
        activity = turn_context.activity
        value = activity.value if isinstance(activity.value, dict) else {}
        chat = Chat.of(activity)
        if value.get("feedback") in ("up", "down"):
            act = self._feedback
        elif chat.personal or mentions_bot(activity):
            act = self._message
        else:
            return
        if not activity.id:
            logger.warning("message activity without an id ignored")
            return
        dedupe_key = f"teams:{chat.conversation_id}:{activity.id}"
        claim = self.state.claim("teams", dedupe_key,
                                 limit=(chat.tenant, chat.base_id, chat.user) if act == self._message else None)
        if claim.outcome == DUPLICATE:
            logger.info("duplicate delivery ignored: %s", dedupe_key)
            return
        try:
            if claim.outcome == RATE_LIMITED:
                await _say(turn_context, messages.rate_limited())
            else:
                await act(turn_context, chat, dedupe_key)
        except Exception:
            self.state.release(claim)  # the channel's retry must not be taken for a duplicate
            raise
        self.state.settle(claim)

    async def _message(self, turn_context: TurnContext, chat: Chat, dedupe_key: str) -> None:
        activity = turn_context.activity
        try:
            await turn_context.send_activity(Activity(type=ActivityTypes.typing))
        except Exception:  # a lost typing indicator must not lose the question
            logger.warning("typing indicator not sent", exc_info=True)
        text = strip_mentions(activity.text or "")
        words = text.lower().split()
        if words and words[0] == "mode" and len(words) <= 2:
            await self._mode(turn_context, chat, words[1] if len(words) == 2 else "")
            return
        files = [a for a in activity.attachments or []
                 if a.content_type == FILE_DOWNLOAD_INFO or (a.content_type or "").startswith("image/")]
        pdfs = [a for a in files if a.content_type == FILE_DOWNLOAD_INFO and is_pdf(a)]
        intent = parse_intent(text, has_file=bool(pdfs))
        action = decide(intent, files, pdfs, lambda a: a.name or "", platform="teams", bare_pdf_is_report=True)
        if isinstance(action, Reply):
            await _say(turn_context, action.text)
        elif isinstance(action, FileJobs):
            await self._enqueue_files(turn_context, chat, dedupe_key, list(action.pdfs), action.index,
                                      action.perspective)
        else:
            mode = action.mode or self.state.retrieval_mode("teams", chat.tenant, chat.base_id,
                                                            self.default_mode)
            self.queues.send(AnswerJob(dedupe_key=dedupe_key, conversation=chat.ref(activity), user=chat.user,
                                       question=action.text, retrieval_mode=mode))

    async def _mode(self, turn_context: TurnContext, chat: Chat, choice: str) -> None:
        choice = choice.lstrip("-")
        if choice in MODE_WORDS:
            self.state.set_retrieval_mode("teams", chat.tenant, chat.base_id, MODE_WORDS[choice], chat.user)
            await _say(turn_context, messages.mode_set(MODE_WORDS[choice]))
        else:
            await _say(turn_context, messages.mode_is(
                self.state.retrieval_mode("teams", chat.tenant, chat.base_id, self.default_mode)))

    async def _enqueue_files(self, turn_context: TurnContext, chat: Chat, dedupe_key: str,
                             pdfs: list[Attachment], index: bool, perspective: str) -> None:
        activity = turn_context.activity
        for n, pdf in enumerate(pdfs):
            content = pdf.content if isinstance(pdf.content, dict) else {}
            url, name = content.get("downloadUrl"), pdf.name or "study.pdf"
            if not isinstance(url, str) or not url:
                await _say(turn_context, messages.only_pdfs(name))
                continue
            text = messages.index_started(name, perspective) if index else messages.report_started(name)
            posted = await _say(turn_context, text)
            conversation = chat.ref(activity, status_message=posted.id if posted else None)
            key = f"{dedupe_key}:{content.get('uniqueId') or n}"
            file = FileRef(name=name, url=url)
            job = IndexJob(key, conversation, chat.user, file, perspective) if index else \
                ReportJob(key, conversation, chat.user, file)
            self.queues.send(job)

    async def _feedback(self, turn_context: TurnContext, chat: Chat, dedupe_key: str) -> None:
        value = turn_context.activity.value
        vote = value["feedback"]
        self.state.record_feedback("teams", chat.tenant, chat.base_id, turn_context.activity.reply_to_id or "",
                                   chat.user, vote, question=str(value.get("q", "")),
                                   answer=str(value.get("a", "")), ledger_hash=str(value.get("h", "")))
        await _say(turn_context, messages.feedback_thanks(vote))

    # ---------------------------------------------------------------- report files (FileConsentCard)
    async def on_teams_file_consent(self, turn_context: TurnContext,
                                    file_consent_card_response: FileConsentCardResponse) -> InvokeResponse:
        """Act once per invoke (a redelivered accept must not upload twice into a finished upload session)."""
        activity = turn_context.activity
        dedupe_key = f"teams:{activity.conversation.id}:{activity.id}"
        claim = self.state.claim("teams", dedupe_key) if activity.id else None
        if claim is not None and not claim.claimed:
            return InvokeResponse(status=200)
        try:
            response = await super().on_teams_file_consent(turn_context, file_consent_card_response)
        except Exception:
            if claim is not None:
                self.state.release(claim)
            raise
        if claim is not None:
            self.state.settle(claim)
        return response

    async def on_teams_file_consent_accept(self, turn_context: TurnContext,
                                           file_consent_card_response: FileConsentCardResponse) -> None:
        """Upload the offered file to the ``uploadUrl`` Teams created in the user's OneDrive, then show it."""
        info = file_consent_card_response.upload_info
        key = consent_context(file_consent_card_response.context, self.reports_bucket)
        name = (info.name if info and info.name else None) or PurePosixPath(key or "report").name
        try:
            if key is None or info is None or not info.upload_url:
                raise ValueError("the consent does not name one of our report files")
            upload(info.upload_url, self._reports().get(key))
        except Exception:
            logger.exception("file consent upload failed: %s", key)
            await _say(turn_context, messages.upload_failed(name))
            return
        card = Attachment(content_type=FILE_INFO, name=info.name, content_url=info.content_url,
                          content={"uniqueId": info.unique_id, "fileType": info.file_type})
        await turn_context.send_activity(Activity(type=ActivityTypes.message, text=messages.upload_done(name),
                                                  text_format="plain", attachments=[card]))

    async def on_teams_file_consent_decline(self, turn_context: TurnContext,
                                            file_consent_card_response: FileConsentCardResponse) -> None:
        key = consent_context(file_consent_card_response.context, self.reports_bucket)
        await _say(turn_context, messages.upload_declined(PurePosixPath(key or "the report file").name))

    def _reports(self) -> ObjectStore:
        if self.reports is None:
            raise ConfigurationError("LCABOT_REPORTS_BUCKET is not set (the function's environment in template.yaml "
                                     "sets it)")
        return self.reports


def upload(upload_url: str, data: bytes) -> None:
    """PUT ``data`` to a OneDrive upload session in fragments (``Content-Range``; no ``Authorization``: the URL is
    pre-authenticated)."""
    import requests

    total = len(data)
    if not total:
        raise ValueError("an upload session cannot take an empty file")
    for first in range(0, total, UPLOAD_FRAGMENT):
        chunk = data[first:first + UPLOAD_FRAGMENT]
        response = requests.put(upload_url, data=chunk, timeout=30,
                                headers={"Content-Range": f"bytes {first}-{first + len(chunk) - 1}/{total}"})
        response.raise_for_status()


# -------------------------------------------------------------------- Lambda entry


@dataclass(frozen=True)
class Runtime:
    """What one execution environment keeps between invocations: the app's credentials (msal caches the
    connector token inside them) and the bot."""

    app_id: str
    app_password: str
    credentials: MicrosoftAppCredentials
    bot: TeamsBot


def runtime(deps: Deps) -> Runtime:
    """The credentials and the bot for ``deps``, built at their first request."""
    def build() -> Runtime:
        creds = teams_credentials(deps)
        bucket = deps.settings.reports_bucket or ""
        bot = TeamsBot(deps.conversations, deps.queues, reports=deps.bucket(bucket) if bucket else None,
                       reports_bucket=bucket, default_mode=deps.settings.retrieval_mode)
        return Runtime(creds.app_id, creds.app_password, creds.app_credentials(), bot)

    return deps.once("teams:runtime", build)


class _Adapter(BotFrameworkAdapter):
    """A ``BotFrameworkAdapter`` for one invocation: its aiohttp connector sessions belong to that invocation's
    event loop, so they are closed at its end (:meth:`close`)."""

    def __init__(self, settings: BotFrameworkAdapterSettings) -> None:
        super().__init__(settings)
        self._opened: list[Any] = []

    async def create_connector_client(self, service_url: str, identity: Any = None,
                                      audience: str | None = None) -> Any:
        client = await super().create_connector_client(service_url, identity, audience)
        self._opened.append(client)
        return client

    async def close(self) -> None:
        for client in {id(c): c for c in self._opened}.values():
            await client.__aexit__(None, None, None)


def _response(status: int, body: Any = None) -> dict:
    if hasattr(body, "serialize"):  # a botbuilder model (an invoke's response)
        body = body.serialize()
    if body is None:
        return {"statusCode": status, "headers": {}, "body": ""}
    if isinstance(body, str):
        return {"statusCode": status, "headers": {"content-type": "text/plain; charset=utf-8"}, "body": body}
    return {"statusCode": status, "headers": {"content-type": "application/json"}, "body": json.dumps(body)}


def parse_body(event: dict) -> Activity:
    """The activity in an HTTP API (payload 2.0) event's body, read only after its token was checked.

    Raises:
        ValueError: a body that is not base64/UTF-8/JSON, not an activity with a type and a conversation, or one
            whose fields the bot reads have the wrong type (:func:`malformed`).
    """
    body = event.get("body") or ""
    if event.get("isBase64Encoded"):
        try:
            body = base64.b64decode(body, validate=True).decode("utf-8")
        except (binascii.Error, ValueError) as err:
            raise ValueError("body is not base64-encoded UTF-8") from err
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, RecursionError) as err:
        raise ValueError("body is not JSON") from err
    if not isinstance(data, dict) or not isinstance(data.get("type"), str) or not data["type"]:
        raise ValueError("body is not an activity with a type")
    if reason := malformed(data):
        raise ValueError(reason)
    try:
        activity = Activity().deserialize(data)
    except Exception as err:  # msrest raises DeserializationError and others for mistyped fields
        raise ValueError(f"body is not an activity ({type(err).__name__})") from err
    if activity.conversation is None or not activity.conversation.id:
        raise ValueError("activity has no conversation")
    return activity


# the objects of an activity the bot or botbuilder reads by key (msrest types the rest), and their fields that must
# be strings where present
_OBJECT_FIELDS = {"channelData": ("tenant", "team", "channel", "settings", "meeting"),
                  "from": (), "conversation": (), "recipient": ()}
_ID_OBJECTS = ("tenant", "team", "channel")
MAX_ID_CHARS = 1000  # a Teams id (a DynamoDB key part, 1,024 bytes at most there); Teams' are far shorter


def malformed(data: dict) -> str:
    """Why an activity's JSON cannot be read as Teams sends it, else ``""``: ``channelData``, ``from``,
    ``conversation`` and ``recipient`` must be objects, and ``channelData``'s ``tenant``, ``team`` and ``channel``
    objects with a string ``id``; the ids the bot keeps (activity, conversation, tenant, sender, recipient, reply-to)
    strings of at most :data:`MAX_ID_CHARS` valid characters; ``attachments`` objects with a string
    ``contentType``; an invoke a ``fileConsent/invoke`` (the only one this bot's cards and manifest make) accepting
    or declining; a message's ``value`` (a card's submit) an object."""
    for key, inner in _OBJECT_FIELDS.items():
        if key in data and not isinstance(data[key], dict | None):
            return f"{key} is not an object"
        for name in inner:
            field = (data.get(key) or {}).get(name)
            if field is not None and not isinstance(field, dict):
                return f"{key}.{name} is not an object"
            if name in _ID_OBJECTS and field is not None and not isinstance(field.get("id", ""), str):
                return f"{key}.{name}.id is not a string"
    for key, name in (("id", ""), ("conversation", "id"), ("conversation", "tenantId"), ("from", "id"),
                      ("from", "aadObjectId"), ("recipient", "id"), ("replyToId", "")):
        field = data.get(key) if not name else (data.get(key) or {}).get(name)
        if field is not None and (not isinstance(field, str) or len(field) > MAX_ID_CHARS or not _encodable(field)):
            return f"{key}{'.' + name if name else ''} is not an id"
    attachments = data.get("attachments")
    if attachments is not None and (not isinstance(attachments, list) or not all(
            isinstance(a, dict) and isinstance(a.get("contentType", ""), str) for a in attachments)):
        return "attachments are not objects with a contentType"
    value = data.get("value")
    if data["type"] == "invoke":
        if data.get("name") != "fileConsent/invoke":  # the only invoke this bot's cards and manifest make
            return "an invoke this bot does not handle"
        if not isinstance(value, dict) or value.get("action") not in ("accept", "decline") or \
                not isinstance(value.get("uploadInfo") or {}, dict):
            return "a fileConsent/invoke without an accept or decline"
    elif data["type"] == "message" and value is not None and not isinstance(value, dict):
        return "a message's value is not an object"
    return ""


def _encodable(text: str) -> bool:
    """Whether ``text`` is valid Unicode (no lone surrogate, which JSON can carry and DynamoDB cannot store)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


async def authenticate(auth_header: str, rt: Runtime) -> ClaimsIdentity:
    """The Bot Framework channel token in ``Authorization``, checked before the body is read, by
    botframework-connector's ``ChannelValidation`` only: issuer ``https://api.botframework.com``, audience our app
    id, a signing key the channel's OpenID metadata publishes and endorses for ``msteams``. Emulator and AAD-issued
    tokens (which ``JwtTokenValidation`` would also accept, without the ``serviceurl`` check of
    :func:`check_sender`) are refused. An unknown key id makes the cached keys be fetched again, once (keys roll
    over; the library would otherwise keep refusing for a day).

    Raises:
        PermissionError: the token is missing or not valid (any validator error).
    """
    if not auth_header:
        raise PermissionError("no Authorization header")
    credentials = SimpleCredentialProvider(rt.app_id, rt.app_password)
    for attempt in range(2):
        try:
            identity = await ChannelValidation.authenticate_channel_token(
                auth_header, credentials, "msteams", AuthenticationConfiguration())
        except IndexError as err:  # the cached key set lacks the token's key id
            if attempt:
                raise PermissionError("unknown signing key") from err
            JwtTokenExtractor.metadataCache.clear()
            continue
        except Exception as err:  # PermissionError, jwt errors, plain Exception for endorsements …
            raise PermissionError(f"{type(err).__name__}: {err}") from err
        if identity is None or not identity.is_authenticated:
            raise PermissionError("not authenticated")
        return identity
    raise PermissionError("unknown signing key")


def check_sender(activity: Activity, identity: ClaimsIdentity) -> None:
    """The activity comes from Teams and names the ``serviceUrl`` its token was issued for (a reply goes there).

    Raises:
        PermissionError: another channel, or a ``serviceUrl`` other than the token's ``serviceurl`` claim.
    """
    if activity.channel_id != "msteams":
        raise PermissionError(f"channel {activity.channel_id!r} is not msteams")
    if identity.get_claim_value(ChannelValidation.SERVICE_URL_CLAIM) != activity.service_url:
        raise PermissionError("the serviceUrl is not the one the token was issued for")


async def serve(event: dict, auth_header: str, rt: Runtime) -> dict:
    """Authenticate, read the body, check the sender, then run the activity through the adapter and the bot; the
    HTTP response."""
    try:
        identity = await authenticate(auth_header, rt)
    except PermissionError as err:
        logger.warning("activity refused: %s", err)
        return _response(401, "unauthorized")
    try:
        activity = parse_body(event)
    except ValueError as err:
        logger.warning("malformed activity refused: %s", err)
        return _response(400, str(err))
    try:
        check_sender(activity, identity)
    except PermissionError as err:
        logger.warning("activity refused: %s", err)
        return _response(401, "unauthorized")
    adapter = _Adapter(BotFrameworkAdapterSettings(rt.app_id, rt.app_password, app_credentials=rt.credentials))
    try:
        invoke = await adapter.process_activity_with_identity(activity, identity, rt.bot.on_turn)
    except Exception:
        logger.exception("activity failed: %s %s", activity.type, activity.id)
        return _response(500, "internal error")
    finally:
        await adapter.close()
    if invoke is not None:
        return _response(int(invoke.status), invoke.body)
    return _response(200)


def handler(event: dict, context: Any) -> dict:
    return handle(event, context, deployed())


def handle(event: dict, context: Any, deps: Deps) -> dict:
    """API Gateway (HTTP API, payload 2.0) event → ``{"statusCode", "headers", "body"}``: 401 before the body is read
    when the token is not the channel's, 400 for a body that is not a well-formed activity, 401 for an activity from
    another channel or ``serviceUrl`` than the token's."""
    if not isinstance(event, dict) or not isinstance(event.get("headers"), dict) or \
            not isinstance(event.get("body", ""), str | None):
        return _response(400, "not an API Gateway HTTP event")
    headers = {str(k).lower(): v for k, v in event["headers"].items()}
    auth_header = headers.get("authorization")
    try:
        rt = runtime(deps)
    except Exception:  # no credentials: refuse every activity rather than run unauthenticated
        logger.exception("Teams bot is not configured")
        return _response(500, "not configured")
    try:
        return asyncio.run(serve(event, auth_header if isinstance(auth_header, str) else "", rt))
    except Exception:  # a last line: logged, and a response rather than a raw Lambda error
        logger.exception("Teams request failed")
        return _response(500, "internal error")
