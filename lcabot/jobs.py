"""Work items that cross a queue: ``AnswerJob`` and ``ReportJob`` (DESIGN.md §5, "Jobs").

A job is JSON in an SQS message body. It carries the platform, a conversation reference to reply into, the user,
the question or file, the retrieval mode and a natural dedupe key (Slack team + channel + message ts; Teams activity
id), so a duplicate delivery of the same chat event produces one reply. ``IndexJob`` (a PDF shared with the bot for
the library) travels on the report queue: both are file jobs that download from the chat platform.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lcabot.config import PERSPECTIVES, RETRIEVAL_MODES
from lcabot.errors import LcabotError
from lcabot.models import Turn

PLATFORMS = ("local", "slack", "teams")
MAX_QUESTION_CHARS = 2000  # the longest question answered; the chat handlers refuse a longer one before queueing
CONVERSATION_METADATA = "lcabot-conversation"  # S3 user metadata of a PDF shared in chat: where to say it is indexed


class MalformedJobError(LcabotError):
    """A queue message is not a valid job (bad JSON, a missing or mistyped field, an unknown platform)."""


@dataclass(frozen=True)
class ConversationRef:
    """Where a reply goes.

    Attributes:
        platform: one of :data:`PLATFORMS`.
        channel: Slack channel id (``C…``/``D…``), Teams conversation id, or a local conversation name.
        thread_ts: Slack ``thread_ts`` of the thread root (``None`` outside a thread); Teams reply-chain id.
        team: Slack team id or Teams tenant id.
        reference: the Teams conversation reference (``serviceUrl``, ``conversation``, ``bot``, …) as received;
            empty for other platforms.
        status_message: the bot's progress message to update in place with the result (Slack ``ts`` of the
            "Searching the LCA library…" placeholder; Teams activity id), or ``None`` to post a new message.
    """

    platform: str
    channel: str
    thread_ts: str | None = None
    team: str | None = None
    reference: Mapping[str, Any] = field(default_factory=dict)
    status_message: str | None = None


@dataclass(frozen=True)
class FileRef:
    """A file to fetch, with the name the user gave it: either an S3 object (``bucket``, ``key``) or a chat
    platform's download ``url`` (Slack ``url_private_download``, fetched with the bot token; Teams ``downloadUrl``)
    with its ``size`` in bytes when the platform states it."""

    name: str
    bucket: str = ""
    key: str = ""
    url: str = ""
    size: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "bucket": self.bucket, "key": self.key, "url": self.url, "size": self.size}


@dataclass(frozen=True)
class AnswerJob:
    """A question to answer into ``conversation``. ``history`` holds the thread's earlier turns, oldest first;
    ``retrieval_mode`` is one of :data:`lcabot.config.RETRIEVAL_MODES`, or ``None`` for the channel's setting (read
    by the answer worker, so that the chat handler's acknowledgement need not)."""

    dedupe_key: str
    conversation: ConversationRef
    user: str
    question: str
    retrieval_mode: str | None = "rag"
    history: tuple[Turn, ...] = ()

    def to_json(self) -> str:
        return json.dumps({
            "kind": "answer", "dedupe_key": self.dedupe_key, "conversation": conversation_json(self.conversation),
            "user": self.user, "question": self.question, "retrieval_mode": self.retrieval_mode,
            "history": [{"question": t.question, "answer": t.answer} for t in self.history],
        })


@dataclass(frozen=True)
class ReportJob:
    """A study PDF to turn into a carbon footprint study report, delivered into ``conversation``."""

    dedupe_key: str
    conversation: ConversationRef
    user: str
    file: FileRef

    def to_json(self) -> str:
        return json.dumps({
            "kind": "report", "dedupe_key": self.dedupe_key, "conversation": conversation_json(self.conversation),
            "user": self.user, "file": self.file.to_json(),
        })


@dataclass(frozen=True)
class IndexJob:
    """A PDF shared in chat for the library: copied to ``library/<perspective>/<name>`` in the library bucket, with
    ``conversation`` in the object's metadata so that the ingest Lambda says there when it is searchable, or why
    not. ``perspective`` is one of :data:`lcabot.config.PERSPECTIVES`."""

    dedupe_key: str
    conversation: ConversationRef
    user: str
    file: FileRef
    perspective: str = "general"

    def to_json(self) -> str:
        return json.dumps({
            "kind": "index", "dedupe_key": self.dedupe_key, "conversation": conversation_json(self.conversation),
            "user": self.user, "file": self.file.to_json(), "perspective": self.perspective,
        })


def parse_job(body: str) -> AnswerJob | ReportJob | IndexJob:
    """Parse an SQS message body into a job.

    Raises:
        MalformedJobError: the body is not JSON, ``kind`` is not ``answer``/``report``/``index``, or a field is missing,
            empty or of the wrong type; the message names the field.
    """
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, TypeError) as err:
        raise MalformedJobError(f"job body is not JSON ({err})") from None
    if not isinstance(data, dict):
        raise MalformedJobError("job body must be a JSON object")
    kind = data.get("kind")
    conversation = _conversation(_field(data, "conversation", dict))
    if kind == "answer":
        mode = data.get("retrieval_mode", "rag")
        if mode is not None and mode not in RETRIEVAL_MODES:
            raise MalformedJobError(f"retrieval_mode must be one of {', '.join(RETRIEVAL_MODES)}, got {mode!r}")
        history = data.get("history", [])
        if not isinstance(history, list) or not all(
            isinstance(t, dict) and isinstance(t.get("question"), str) and isinstance(t.get("answer"), str)
            for t in history
        ):
            raise MalformedJobError("history must be a list of {question, answer} strings")
        return AnswerJob(
            dedupe_key=_field(data, "dedupe_key", str), conversation=conversation, user=_field(data, "user", str),
            question=_field(data, "question", str, allow_empty=True), retrieval_mode=mode,
            history=tuple(Turn(t["question"], t["answer"]) for t in history),
        )
    if kind == "report":
        return ReportJob(dedupe_key=_field(data, "dedupe_key", str), conversation=conversation,
                         user=_field(data, "user", str), file=_file(_field(data, "file", dict)))
    if kind == "index":
        perspective = data.get("perspective", "general")
        if perspective not in PERSPECTIVES:
            raise MalformedJobError(f"perspective must be one of {', '.join(PERSPECTIVES)}, got {perspective!r}")
        return IndexJob(dedupe_key=_field(data, "dedupe_key", str), conversation=conversation,
                        user=_field(data, "user", str), file=_file(_field(data, "file", dict)), perspective=perspective)
    raise MalformedJobError(f"kind must be 'answer', 'report' or 'index', got {kind!r}")


def _file(data: dict[str, Any]) -> FileRef:
    name = _field(data, "name", str)
    bucket, key, url = (data.get(k) or "" for k in ("bucket", "key", "url"))
    size = data.get("size")
    if not all(isinstance(v, str) for v in (bucket, key, url)) or not (
            size is None or (isinstance(size, int) and not isinstance(size, bool) and size >= 0)):
        raise MalformedJobError("file.bucket, .key and .url must be strings, file.size an integer")
    if bool(bucket and key) == bool(url):
        raise MalformedJobError("a file is either an S3 object (bucket and key) or a download url, not both")
    return FileRef(name, bucket, key, url, size)


def parse_conversation(data: Any) -> ConversationRef:
    """A conversation reference from its JSON object (:func:`conversation_json`).

    Raises:
        MalformedJobError: not an object, an unknown platform, or a field of the wrong type.
    """
    if not isinstance(data, dict):
        raise MalformedJobError("conversation must be a JSON object")
    return _conversation(data)


def _conversation(data: dict[str, Any]) -> ConversationRef:
    platform = _field(data, "platform", str)
    if platform not in PLATFORMS:
        raise MalformedJobError(f"platform must be one of {', '.join(PLATFORMS)}, got {platform!r}")
    thread_ts, team, status_message = (data.get(k) for k in ("thread_ts", "team", "status_message"))
    reference = data.get("reference") or {}
    if not all(isinstance(v, str | None) for v in (thread_ts, team, status_message)) or not isinstance(reference, dict):
        raise MalformedJobError("conversation.thread_ts, .team and .status_message must be strings, .reference an "
                                "object")
    return ConversationRef(platform, _field(data, "channel", str), thread_ts, team, reference, status_message)


def conversation_json(c: ConversationRef) -> dict[str, Any]:
    """The JSON object of a conversation reference (what :func:`parse_conversation` reads)."""
    return {"platform": c.platform, "channel": c.channel, "thread_ts": c.thread_ts, "team": c.team,
            "reference": dict(c.reference), "status_message": c.status_message}


def _field(data: dict[str, Any], name: str, kind: type, *, allow_empty: bool = False) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or (not allow_empty and not value):
        raise MalformedJobError(f"job field {name!r} must be a non-empty {kind.__name__}, got {value!r}")
    return value
