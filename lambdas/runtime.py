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
from collections.abc import Mapping
from functools import cache

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer, IdempotencyConfig

from lcabot.config import Settings
from lcabot.errors import ConfigurationError
from lcabot.jobs import ConversationRef
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
        from lcabot.cloud.aws import secret_field

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
    """The client that delivers into ``conversation`` (the job's platform)."""
    if conversation.platform == "local":
        from lcabot.outbox import LocalOutbox

        return LocalOutbox(settings().home / "outbox")
    raise ConfigurationError(f"no client for platform {conversation.platform!r}")
