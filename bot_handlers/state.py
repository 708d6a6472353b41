"""What the chat handlers remember between requests, in the conversations table (DynamoDB,
``LCABOT_CONVERSATIONS_TABLE``, partition key ``pk``, sort key ``sk``, TTL attribute ``expires_at``), and the job
queues they fill.

Items (one table, distinguished by the ``pk`` prefix):

- ``seen#<platform>`` / ``<dedupe key>``: a chat event already acted on (Slack team + channel + message ts; Teams
  activity id). A conditional put makes the claim atomic, so Slack's retries and duplicate deliveries act once.
- ``thread#<platform>#<team>#<channel>`` / ``<thread ts>``: a thread the bot answers in; later messages in it are
  follow-ups even without a mention.
- ``channel#<platform>#<team>#<channel>`` / ``settings``: the channel's retrieval mode.
- ``feedback#<platform>#<team>#<channel>`` / ``<message ts>#<user>``: a 👍/👎 with the question and the answer.
- ``rate#<scope>`` / ``<window start>``: request counts for the per-user and per-channel rate limits.
- ``turns#<platform>#<conversation>`` / ``<time ns>``: question/answer turns of a conversation whose platform keeps
  no readable thread history for bots (Teams), written by the answer worker, read as the next answer's history.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from functools import cache

import boto3
from botocore.exceptions import ClientError

from lcabot.config import Settings
from lcabot.errors import ConfigurationError
from lcabot.jobs import RETRIEVAL_MODES, AnswerJob, IndexJob, ReportJob
from lcabot.models import Turn

SEEN_TTL_S = 3 * 24 * 3600  # Slack retries for about an hour, Bot Framework for minutes; keep well beyond
THREAD_TTL_S = 30 * 24 * 3600  # a thread older than a month starts a new conversation
RATE_WINDOW_S = 60
USER_LIMIT = 10  # requests per user per minute
CHANNEL_LIMIT = 30  # requests per channel per minute
TURN_ANSWER_CHARS = 2000  # of an answer kept as history (the follow-up resolver needs its gist, not all of it)


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise ConfigurationError(f"{name} is not set (the function's environment in template.yaml sets it)")
    return value


class ConversationState:
    """The conversations table. Every method is one DynamoDB call."""

    def __init__(self, table: str, resource=None) -> None:
        self._table = (resource or boto3.resource("dynamodb")).Table(table)

    def claim(self, platform: str, dedupe_key: str) -> bool:
        """Record that the event ``dedupe_key`` is being acted on; ``False`` when it already was (a duplicate)."""
        try:
            self._table.put_item(
                Item={"pk": f"seen#{platform}", "sk": dedupe_key, "expires_at": int(time.time()) + SEEN_TTL_S},
                ConditionExpression="attribute_not_exists(pk)",
            )
        except ClientError as err:
            if err.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def release(self, platform: str, dedupe_key: str) -> None:
        """Undo :meth:`claim` when acting failed, so that the platform's retry is not taken for a duplicate."""
        self._table.delete_item(Key={"pk": f"seen#{platform}", "sk": dedupe_key})

    def remember_thread(self, platform: str, team: str, channel: str, thread_ts: str) -> None:
        self._table.put_item(Item={"pk": f"thread#{platform}#{team}#{channel}", "sk": thread_ts,
                                   "expires_at": int(time.time()) + THREAD_TTL_S})

    def in_thread(self, platform: str, team: str, channel: str, thread_ts: str) -> bool:
        """Whether the bot answers in this thread (follow-ups there need no mention)."""
        item = self._table.get_item(Key={"pk": f"thread#{platform}#{team}#{channel}", "sk": thread_ts}).get("Item")
        return item is not None and int(item.get("expires_at", 0)) > time.time()

    def retrieval_mode(self, platform: str, team: str, channel: str, default: str | None = None) -> str:
        item = self._table.get_item(Key={"pk": f"channel#{platform}#{team}#{channel}", "sk": "settings"}).get("Item")
        if item and item.get("retrieval_mode") in RETRIEVAL_MODES:
            return str(item["retrieval_mode"])
        return default or Settings.from_env().retrieval_mode

    def set_retrieval_mode(self, platform: str, team: str, channel: str, mode: str, user: str) -> None:
        """Set the channel's retrieval mode.

        Raises:
            ValueError: ``mode`` is not one of :data:`lcabot.jobs.RETRIEVAL_MODES`.
        """
        if mode not in RETRIEVAL_MODES:
            raise ValueError(f"retrieval mode must be one of {', '.join(RETRIEVAL_MODES)}, got {mode!r}")
        self._table.put_item(Item={"pk": f"channel#{platform}#{team}#{channel}", "sk": "settings",
                                   "retrieval_mode": mode, "set_by": user, "set_at": _now()})

    def record_feedback(self, platform: str, team: str, channel: str, message_ts: str, user: str, vote: str,
                        question: str, answer: str, ledger_hash: str = "") -> None:
        """Store one vote (``up``/``down``) per user and answer message; voting again replaces the vote."""
        self._table.put_item(Item={
            "pk": f"feedback#{platform}#{team}#{channel}", "sk": f"{message_ts}#{user}", "vote": vote,
            "question": question, "answer": answer, "ledger_hash": ledger_hash, "user": user, "at": _now(),
        })

    def feedback(self, platform: str, team: str, channel: str) -> list[dict]:
        """The channel's votes (for reviewing answers), oldest message first."""
        from boto3.dynamodb.conditions import Key

        result = self._table.query(KeyConditionExpression=Key("pk").eq(f"feedback#{platform}#{team}#{channel}"))
        return result.get("Items", [])

    def add_turn(self, platform: str, conversation: str, question: str, answer: str) -> None:
        """Remember one answered question (the answer cut to :data:`TURN_ANSWER_CHARS`) for :data:`THREAD_TTL_S`."""
        self._table.put_item(Item={"pk": f"turns#{platform}#{conversation}", "sk": f"{time.time_ns():020d}",
                                   "question": question, "answer": answer[:TURN_ANSWER_CHARS],
                                   "expires_at": int(time.time()) + THREAD_TTL_S})

    def turns(self, platform: str, conversation: str, limit: int = 6) -> tuple[Turn, ...]:
        """The conversation's last ``limit`` turns, oldest first."""
        from boto3.dynamodb.conditions import Key

        result = self._table.query(KeyConditionExpression=Key("pk").eq(f"turns#{platform}#{conversation}"),
                                   ScanIndexForward=False, Limit=limit)
        now = time.time()
        items = [i for i in result.get("Items", []) if int(i.get("expires_at", 0)) > now]
        return tuple(Turn(str(i["question"]), str(i["answer"])) for i in reversed(items))

    def over_limit(self, platform: str, team: str, channel: str, user: str) -> bool:
        """Count this request against the user's and the channel's per-minute limits (:data:`USER_LIMIT`,
        :data:`CHANNEL_LIMIT`); ``True`` when either is exceeded."""
        window = int(time.time()) // RATE_WINDOW_S * RATE_WINDOW_S
        counts = [self._count(f"rate#{platform}#{team}#user#{user}", window),
                  self._count(f"rate#{platform}#{team}#channel#{channel}", window)]
        return counts[0] > USER_LIMIT or counts[1] > CHANNEL_LIMIT

    def _count(self, pk: str, window: int) -> int:
        result = self._table.update_item(
            Key={"pk": pk, "sk": str(window)}, UpdateExpression="ADD n :one SET expires_at = :exp",
            ExpressionAttributeValues={":one": 1, ":exp": window + 2 * RATE_WINDOW_S}, ReturnValues="UPDATED_NEW")
        return int(result["Attributes"]["n"])


class JobQueues:
    """Sends jobs: ``AnswerJob`` to ``LCABOT_ANSWER_QUEUE_URL``; ``ReportJob`` and ``IndexJob`` (file jobs) to
    ``LCABOT_REPORT_QUEUE_URL``."""

    def __init__(self, answer_url: str, report_url: str, client=None) -> None:
        self._urls = {AnswerJob: answer_url, ReportJob: report_url, IndexJob: report_url}
        self._sqs = client or boto3.client("sqs")

    def send(self, job: AnswerJob | ReportJob | IndexJob) -> None:
        self._sqs.send_message(QueueUrl=self._urls[type(job)], MessageBody=job.to_json())


@cache
def conversation_state() -> ConversationState:
    return ConversationState(_env("LCABOT_CONVERSATIONS_TABLE"))


@cache
def job_queues() -> JobQueues:
    return JobQueues(_env("LCABOT_ANSWER_QUEUE_URL"), _env("LCABOT_REPORT_QUEUE_URL"))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
