"""The ``ConversationStore`` on DynamoDB: what the chat handlers remember between requests, in the conversations
table (``Settings.conversations_table``, partition key ``pk``, sort key ``sk``, TTL attribute ``expires_at``).

Items (one table, distinguished by the ``pk`` prefix):

- ``seen#<platform>`` / ``<dedupe key>``: a chat event being or already acted on (Slack team + channel + message
  ts; Teams activity id), with the claiming request's ``token``, its lease (``lease_until``) and, once acted on,
  ``settled_at``. A conditional write makes the claim atomic, so Slack's retries and duplicate deliveries act once,
  while a request that stopped between claiming and acting (a timeout) leaves only a lease that runs out.
- ``thread#<platform>#<team>#<channel>`` / ``<thread ts>``: a thread the bot answers in; later messages in it are
  follow-ups even without a mention.
- ``channel#<platform>#<team>#<channel>`` / ``settings``: the channel's retrieval mode.
- ``feedback#<platform>#<team>#<channel>`` / ``<message ts>#<user>``: a 👍/👎 with the question and the answer.
- ``rate#<scope>`` / ``<window start>``: request counts for the per-user and per-channel rate limits.
- ``turns#<platform>#<conversation>`` / ``<time ns>``: question/answer turns of a conversation whose platform keeps
  no readable thread history for bots (Teams), written by the answer worker, read as the next answer's history.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import boto3
from botocore.exceptions import ClientError

from lcabot.config import RETRIEVAL_MODES
from lcabot.models import Turn

LEASE_S = 30  # the longest a webhook invocation can run (the HTTP API's integration timeout is 30 s)
CONFLICT_RETRIES = 2  # a claim transaction cancelled by a concurrent one on the same thread or counter is retried
SEEN_TTL_S = 3 * 24 * 3600  # Slack retries for about an hour, Bot Framework for minutes; keep well beyond
THREAD_TTL_S = 30 * 24 * 3600  # a thread older than a month starts a new conversation
RATE_WINDOW_S = 60
TURN_ANSWER_CHARS = 2000  # of an answer kept as history (the follow-up resolver needs its gist, not all of it)
# what :meth:`ConversationState.claim` found
CLAIMED, DUPLICATE, RATE_LIMITED, NOT_IN_THREAD = "claimed", "duplicate", "rate limited", "not in a bot thread"

logger = logging.getLogger("lcabot.state")


@dataclass(frozen=True)
class Claim:
    """One request's claim on a chat event: ``token`` identifies the request, ``outcome`` is one of
    :data:`CLAIMED`, :data:`DUPLICATE`, :data:`RATE_LIMITED`, :data:`NOT_IN_THREAD`."""

    platform: str
    dedupe_key: str
    token: str
    outcome: str

    @property
    def claimed(self) -> bool:
        return self.outcome == CLAIMED


class ConversationState:
    """The conversations table. Every method is one DynamoDB call.

    Args:
        table: the table's name.
        resource: a boto3 DynamoDB resource (default: one bounded for the webhook handlers' acknowledgement, see
            :func:`bounded_resource`).
        user_limit / channel_limit: requests per user and per channel per :data:`RATE_WINDOW_S`
            (``Settings.user_rate_limit``, ``Settings.channel_rate_limit``).
        clock: the time in epoch seconds (leases, rate windows, expiry; tests pass their own to let a lease run out
            without waiting).
    """

    def __init__(self, table: str, resource: Any = None, *, user_limit: int = 10, channel_limit: int = 30,
                 clock: Callable[[], float] = time.time) -> None:
        self._table = (resource or bounded_resource()).Table(table)
        self.user_limit, self.channel_limit = user_limit, channel_limit
        self._clock = clock

    def claim(self, platform: str, dedupe_key: str, *, thread: tuple[str, str, str] | None = None,
              follow_up: bool = False, limit: tuple[str, str, str] | None = None) -> Claim:
        """Claim the chat event ``dedupe_key`` for this request, in one DynamoDB call.

        The claim carries a fresh request token and a lease of :data:`LEASE_S`. It is taken when the event was never
        claimed, when the claim is this request's own (a retried write whose first response was lost), or when an
        earlier request's lease ran out before it :meth:`settle`-d (that request stopped before acting); otherwise
        the event is a ``DUPLICATE``. With ``thread`` (team, channel, thread ts) the thread is remembered in the same
        transaction, so that follow-ups there need no mention; with ``follow_up`` the thread must already be one the
        bot answers in (``NOT_IN_THREAD`` otherwise). With ``limit`` (team, channel, user) the request is counted
        against the per-user and per-channel limits (``user_limit``, ``channel_limit`` per
        :data:`RATE_WINDOW_S`); over either, nothing is written and the outcome is ``RATE_LIMITED``.

        Raises:
            botocore.exceptions.ClientError: DynamoDB failed, or transactions on the same thread or counter kept
                conflicting (:data:`CONFLICT_RETRIES`); nothing was claimed.
        """
        token, now = uuid.uuid4().hex, int(self._clock())
        put = {"Put": {
            "TableName": self._table.name,
            "Item": {"pk": f"seen#{platform}", "sk": dedupe_key, "token": token,
                                "lease_until": now + LEASE_S, "expires_at": now + SEEN_TTL_S},
            "ConditionExpression": ("attribute_not_exists(pk) OR #token = :token OR "
                                    "(attribute_not_exists(settled_at) AND lease_until < :now)"),
            "ExpressionAttributeNames": {"#token": "token"},
            "ExpressionAttributeValues": {":token": token, ":now": now},
        }}
        outcomes = [DUPLICATE]
        items = [put]
        if thread is not None:
            key = {"pk": f"thread#{platform}#{thread[0]}#{thread[1]}", "sk": thread[2]}
            if follow_up:  # the thread must be one the bot answers in; its lease on follow-ups is renewed
                items.append({"Update": {
                    "TableName": self._table.name, "Key": key, "UpdateExpression": "SET expires_at = :exp",
                    "ConditionExpression": "attribute_exists(pk) AND expires_at > :now",
                    "ExpressionAttributeValues": {":exp": now + THREAD_TTL_S, ":now": now}}})
            else:
                items.append({"Put": {"TableName": self._table.name,
                                      "Item": {**key, "expires_at": now + THREAD_TTL_S}}})
            outcomes.append(NOT_IN_THREAD if follow_up else DUPLICATE)
        if limit is not None:
            team, channel, user = limit
            window = now // RATE_WINDOW_S * RATE_WINDOW_S
            for pk, most in ((f"rate#{platform}#{team}#user#{user}", self.user_limit),
                             (f"rate#{platform}#{team}#channel#{channel}", self.channel_limit)):
                items.append({"Update": {
                    "TableName": self._table.name, "Key": {"pk": pk, "sk": str(window)},
                    "UpdateExpression": "ADD n :one SET expires_at = :exp",
                    "ConditionExpression": "attribute_not_exists(n) OR n < :most",
                    "ExpressionAttributeValues": {":one": 1, ":most": most,
                                                             ":exp": window + 2 * RATE_WINDOW_S}}})
                outcomes.append(RATE_LIMITED)
        client = self._table.meta.client
        for attempt in range(CONFLICT_RETRIES + 1):
            try:
                if len(items) == 1:
                    client.put_item(**put["Put"])
                else:
                    client.transact_write_items(TransactItems=items)
                return Claim(platform, dedupe_key, token, CLAIMED)
            except ClientError as err:
                code = err.response["Error"]["Code"]
                if code == "ConditionalCheckFailedException":
                    return Claim(platform, dedupe_key, token, DUPLICATE)
                reasons = [r.get("Code") for r in err.response.get("CancellationReasons") or []]
                if code != "TransactionCanceledException" or len(reasons) != len(items):
                    raise
                if "TransactionConflict" in reasons and "ConditionalCheckFailed" not in reasons \
                        and attempt < CONFLICT_RETRIES:
                    time.sleep(random.uniform(0.02, 0.1))  # another request is writing the same thread or counter
                    continue
                failed = [outcome for outcome, reason in zip(outcomes, reasons, strict=True)
                          if reason == "ConditionalCheckFailed"]
                if not failed:
                    raise
                return Claim(platform, dedupe_key, token, failed[0])
        raise AssertionError("unreachable")  # the last attempt returns or raises

    def settle(self, claim: Claim) -> bool:
        """Record that the claimed event was acted on (its job queued, or its reply posted): from now on every
        delivery of it is a duplicate, whatever the lease. One DynamoDB call; it is written even when the claim
        itself was not (a ``RATE_LIMITED`` one), unless another request holds the event: ``False`` then.

        Raises:
            botocore.exceptions.ClientError: DynamoDB failed (the lease still guards the event until it runs out).
        """
        now = int(self._clock())
        try:
            self._table.put_item(
                Item={"pk": f"seen#{claim.platform}", "sk": claim.dedupe_key, "token": claim.token,
                      "lease_until": now, "settled_at": now, "expires_at": now + SEEN_TTL_S},
                ConditionExpression="attribute_not_exists(pk) OR #token = :token",
                ExpressionAttributeNames={"#token": "token"}, ExpressionAttributeValues={":token": claim.token})
        except ClientError as err:
            if err.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            logger.warning("claim on %s is another request's", claim.dedupe_key)
            return False
        return True

    def release(self, claim: Claim) -> None:
        """Undo :meth:`claim` when acting failed, so that the platform's retry is not taken for a duplicate (only
        this request's own claim is removed)."""
        try:
            self._table.delete_item(Key={"pk": f"seen#{claim.platform}", "sk": claim.dedupe_key},
                                    ConditionExpression="#token = :token",
                                    ExpressionAttributeNames={"#token": "token"},
                                    ExpressionAttributeValues={":token": claim.token})
        except ClientError as err:
            if err.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise

    def retrieval_mode(self, platform: str, team: str, channel: str, default: str) -> str:
        """The channel's retrieval mode (``/lca-mode``), else ``default``."""
        item = self._table.get_item(Key={"pk": f"channel#{platform}#{team}#{channel}", "sk": "settings"}).get("Item")
        if item and item.get("retrieval_mode") in RETRIEVAL_MODES:
            return str(item["retrieval_mode"])
        return default

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

    def feedback(self, platform: str, team: str, channel: str) -> list[dict[str, Any]]:
        """The channel's votes (for reviewing answers), oldest message first."""
        from boto3.dynamodb.conditions import Key

        result = self._table.query(KeyConditionExpression=Key("pk").eq(f"feedback#{platform}#{team}#{channel}"))
        items: list[dict[str, Any]] = result.get("Items", [])
        return items

    def add_turn(self, platform: str, conversation: str, question: str, answer: str) -> None:
        """Remember one answered question (the answer cut to :data:`TURN_ANSWER_CHARS`) for :data:`THREAD_TTL_S`."""
        self._table.put_item(Item={"pk": f"turns#{platform}#{conversation}", "sk": f"{time.time_ns():020d}",
                                   "question": question, "answer": answer[:TURN_ANSWER_CHARS],
                                   "expires_at": int(self._clock()) + THREAD_TTL_S})

    def turns(self, platform: str, conversation: str, limit: int = 6) -> tuple[Turn, ...]:
        """The conversation's last ``limit`` turns, oldest first."""
        from boto3.dynamodb.conditions import Key

        result = self._table.query(KeyConditionExpression=Key("pk").eq(f"turns#{platform}#{conversation}"),
                                   ScanIndexForward=False, Limit=limit)
        now = self._clock()
        items = [i for i in result.get("Items", []) if int(i.get("expires_at", 0)) > now]
        return tuple(Turn(str(i["question"]), str(i["answer"])) for i in reversed(items))


def bounded_resource() -> Any:
    """A DynamoDB resource bounded for the webhook handlers' acknowledgement (Slack's 3 s): three attempts in all,
    1 s to connect and 2 s to read; a DynamoDB slower than that fails the request, which Slack retries."""
    from botocore.config import Config

    config = Config(retries={"mode": "standard", "total_max_attempts": 3}, connect_timeout=1, read_timeout=2)
    return boto3.resource("dynamodb", config=config)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
