"""The Teams bot's activity logic: what a message, a card click or a file consent asks for, claimed once in the
conversation store and carried out (a reply, a job queued for the workers, a report file uploaded)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from botbuilder.core import InvokeResponse, TurnContext
from botbuilder.core.teams import TeamsActivityHandler
from botbuilder.schema import Activity, ActivityTypes, Attachment
from botbuilder.schema.teams import FileConsentCardResponse

from bot_handlers.dispatch import FileJobs, Reply, decide
from bot_handlers.intent import MODE_WORDS, parse_intent, strip_mentions
from bot_handlers.teams.client import FILE_DOWNLOAD_INFO, FILE_INFO, consent_context
from lcabot import messages
from lcabot.adapters.conversations import DUPLICATE, RATE_LIMITED, ConversationState
from lcabot.adapters.queues import JobQueues
from lcabot.errors import ConfigurationError
from lcabot.jobs import AnswerJob, ConversationRef, FileRef, IndexJob, ReportJob

if TYPE_CHECKING:
    from lcabot.ports import ObjectStore

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
