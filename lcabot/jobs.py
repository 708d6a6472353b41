"""Work items that cross a queue: ``AnswerJob`` and ``ReportJob`` (DESIGN.md §5, "Jobs").

A job is JSON in an SQS message body. It carries the platform, a conversation reference to reply into, the user,
the question or file, the retrieval mode and a natural dedupe key (Slack team + channel + message ts; Teams activity
id), so a duplicate delivery of the same chat event produces one reply.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lcabot.errors import LcabotError
from lcabot.models import Turn

PLATFORMS = ("local",)  # the Slack and Teams clients add "slack" and "teams"
RETRIEVAL_MODES = ("rag", "rag+graph")


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
    """

    platform: str
    channel: str
    thread_ts: str | None = None
    team: str | None = None
    reference: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FileRef:
    """A file to fetch: an S3 object (``bucket``, ``key``) with the name the user gave it."""

    name: str
    bucket: str
    key: str


@dataclass(frozen=True)
class AnswerJob:
    """A question to answer into ``conversation``. ``history`` holds the thread's earlier turns, oldest first."""

    dedupe_key: str
    conversation: ConversationRef
    user: str
    question: str
    retrieval_mode: str = "rag"
    history: tuple[Turn, ...] = ()

    def to_json(self) -> str:
        return json.dumps({
            "kind": "answer", "dedupe_key": self.dedupe_key, "conversation": _conversation_json(self.conversation),
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
            "kind": "report", "dedupe_key": self.dedupe_key, "conversation": _conversation_json(self.conversation),
            "user": self.user, "file": {"name": self.file.name, "bucket": self.file.bucket, "key": self.file.key},
        })


def parse_job(body: str) -> AnswerJob | ReportJob:
    """Parse an SQS message body into a job.

    Raises:
        MalformedJobError: the body is not JSON, ``kind`` is not ``answer``/``report``, or a field is missing,
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
        if mode not in RETRIEVAL_MODES:
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
        file = _field(data, "file", dict)
        return ReportJob(
            dedupe_key=_field(data, "dedupe_key", str), conversation=conversation, user=_field(data, "user", str),
            file=FileRef(name=_field(file, "name", str), bucket=_field(file, "bucket", str),
                         key=_field(file, "key", str)),
        )
    raise MalformedJobError(f"kind must be 'answer' or 'report', got {kind!r}")


def _conversation(data: dict) -> ConversationRef:
    platform = _field(data, "platform", str)
    if platform not in PLATFORMS:
        raise MalformedJobError(f"platform must be one of {', '.join(PLATFORMS)}, got {platform!r}")
    thread_ts = data.get("thread_ts")
    team = data.get("team")
    reference = data.get("reference") or {}
    if not all(isinstance(v, str | None) for v in (thread_ts, team)) or not isinstance(reference, dict):
        raise MalformedJobError("conversation.thread_ts and .team must be strings, .reference an object")
    return ConversationRef(platform, _field(data, "channel", str), thread_ts, team, reference)


def _conversation_json(c: ConversationRef) -> dict[str, Any]:
    return {"platform": c.platform, "channel": c.channel, "thread_ts": c.thread_ts, "team": c.team,
            "reference": dict(c.reference)}


def _field(data: dict, name: str, kind: type, *, allow_empty: bool = False) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or (not allow_empty and not value):
        raise MalformedJobError(f"job field {name!r} must be a non-empty {kind.__name__}, got {value!r}")
    return value
