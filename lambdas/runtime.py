"""What every worker Lambda shares: settings (with secrets from Secrets Manager), the adapters chosen from the
environment, the idempotency layer and the platform clients. Built once per execution environment (cold start).

Environment (set by ``template.yaml``; ``lcabot dev`` sets the same names):
``LCABOT_LIBRARY_BUCKET``, ``LCABOT_ARTIFACTS_BUCKET``, ``LCABOT_REPORTS_BUCKET``, ``LCABOT_STATUS_TABLE``,
``LCABOT_IDEMPOTENCY_TABLE``, ``LCABOT_MAX_RECEIVE_COUNT`` (the queue's redrive ``maxReceiveCount``),
``LCABOT_ANTHROPIC_SECRET_ARN`` (JSON secret with ``api_key``), plus the core's ``LCABOT_*`` settings
(``LCABOT_OPENSEARCH_URL`` selects OpenSearch over the embedded index).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)

from lcabot import messages
from lcabot.config import Settings
from lcabot.errors import ConfigurationError
from lcabot.jobs import ConversationRef, MalformedJobError, parse_job
from lcabot.ports import PlatformClient

IDEMPOTENCY_TTL_S = 7 * 24 * 3600  # longer than any redelivery: SQS keeps a message at most 14 days, S3 retries less


def env(name: str, environ: Mapping[str, str] | None = None) -> str:
    """A required environment variable.

    Raises:
        ConfigurationError: it is unset or empty.
    """
    value = (os.environ if environ is None else environ).get(name)
    if not value:
        raise ConfigurationError(f"{name} is not set (the function's environment in template.yaml sets it)")
    return value


@cache
def settings() -> Settings:
    """Settings from the environment; the Anthropic key from ``LCABOT_ANTHROPIC_SECRET_ARN`` when set (an empty
    ``api_key`` there means the offline answerer)."""
    base = Settings.from_env()
    arn = os.environ.get("LCABOT_ANTHROPIC_SECRET_ARN")
    if arn and not base.anthropic_api_key:
        from lcabot.adapters.aws import secret_field

        base = dataclasses.replace(base, anthropic_api_key=secret_field(arn, "api_key", required=False))
    return base


def max_receive_count() -> int:
    """The queue's ``maxReceiveCount``: the delivery after which a failing message goes to the dead-letter queue."""
    return int(os.environ.get("LCABOT_MAX_RECEIVE_COUNT") or 3)


def is_last_attempt(record: SQSRecord) -> bool:
    return int(record.attributes.approximate_receive_count) >= max_receive_count()


@cache
def idempotency() -> tuple[DynamoDBPersistenceLayer, IdempotencyConfig]:
    """The powertools idempotency layer on ``LCABOT_IDEMPOTENCY_TABLE`` (key ``id``, TTL ``expiration``)."""
    persistence = DynamoDBPersistenceLayer(table_name=env("LCABOT_IDEMPOTENCY_TABLE"))
    config = IdempotencyConfig(event_key_jmespath="idempotency_key", expires_after_seconds=IDEMPOTENCY_TTL_S,
                               raise_on_no_idempotency_key=True)
    return persistence, config


def platform_client(conversation: ConversationRef) -> PlatformClient:
    """The client that delivers into ``conversation`` (the job's platform): Slack (bot token from
    ``LCABOT_SLACK_BOT_TOKEN`` or ``LCABOT_SLACK_SECRET_ARN``), Teams (app id and password from ``MICROSOFT_APP_ID`` /
    ``MICROSOFT_APP_PASSWORD`` or ``LCABOT_TEAMS_SECRET_ARN``), or the local outbox under ``LCABOT_HOME``."""
    if conversation.platform == "slack":
        from bot_handlers.slack.client import slack_client

        return slack_client()
    if conversation.platform == "teams":
        from bot_handlers.teams.client import teams_client

        return teams_client()
    from lcabot.adapters.outbox import LocalOutbox

    return LocalOutbox(settings().home / "outbox")


def channel_mode(conversation: ConversationRef) -> str:
    """The retrieval mode set for the job's Slack channel (``/lca-mode``; the Slack handler leaves it to this worker
    to keep its acknowledgement to two DynamoDB calls), else ``LCABOT_RETRIEVAL_MODE``."""
    if conversation.platform == "slack":
        from bot_handlers.state import conversation_state

        return conversation_state().retrieval_mode(conversation.platform, conversation.team or "",
                                                   conversation.channel, settings().retrieval_mode)
    return settings().retrieval_mode


class JobWorker:
    """The SQS record handler of a job queue: parse the job (a wrong kind is malformed), run it once per dedupe key
    (powertools idempotency), and on the last failed delivery tell the user ``failed_text(job)`` before the record
    goes to the dead-letter queue.

    Args:
        kind: the job class(es) this queue carries: ``AnswerJob``, or ``(ReportJob, IndexJob)``.
        run: does the job and delivers its result; returns a small JSON-able summary for the log.
    """

    def __init__(self, kind: type | tuple[type, ...], run: Callable[[Any], dict],
                 failed_text: Callable[[Any], str], logger: Logger):
        self.kinds = kind if isinstance(kind, tuple) else (kind,)
        self.run = run
        self.failed_text = failed_text
        self.logger = logger
        self._once: Callable[..., dict] | None = None

    def reset(self) -> None:
        """Forget the idempotency layer (built at the first record from the environment)."""
        self._once = None

    def parse(self, body: str) -> Any:
        job = parse_job(body)
        if not isinstance(job, self.kinds):
            names = "/".join(k.__name__ for k in self.kinds)
            raise MalformedJobError(f"a {names} queue received a {type(job).__name__}")
        return job

    def __call__(self, record: SQSRecord) -> None:
        job = self.parse(record.body)
        if self._once is None:
            persistence, config = idempotency()

            @idempotent_function(data_keyword_argument="payload", persistence_store=persistence, config=config)
            def once(payload: dict) -> dict:
                job = self.parse(payload["body"])
                return {**self.run(job), "placeholder": job.conversation.status_message}

            self._once = once
        payload = {"idempotency_key": f"{type(job).__name__}|{job.dedupe_key}", "body": record.body}
        try:
            outcome = self._once(payload=payload)
        except Exception:
            if is_last_attempt(record):
                platform_client(job.conversation).post_notice(job.conversation, self.failed_text(job))
            self.logger.exception("job failed", extra={"dedupe_key": job.dedupe_key})
            raise
        placeholder = job.conversation.status_message
        if placeholder and outcome.get("placeholder") not in (None, placeholder):
            # a second job for a message already answered (its chat handler stopped after queueing, before it could
            # record that): its own placeholder says so rather than "Searching…" for good
            platform_client(job.conversation).post_notice(job.conversation, messages.answered_already())
        self.logger.info("job done", extra={"dedupe_key": job.dedupe_key, **outcome})
