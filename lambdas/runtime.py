"""What every worker Lambda shares: the idempotency layer, the last-delivery test, the channel's retrieval mode and
the SQS job worker. The dependencies come from :func:`bot_handlers.platforms.deployed` (built once per execution
environment from ``template.yaml``'s environment: buckets, tables, queues, ``LCABOT_MAX_RECEIVE_COUNT``, the secret
ARNs) or, in tests, from the test.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import BatchProcessor, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from lcabot import messages
from lcabot.jobs import ConversationRef, MalformedJobError, parse_job
from lcabot.wiring import Deps

IDEMPOTENCY_TTL_S = 7 * 24 * 3600  # longer than any redelivery: SQS keeps a message at most 14 days, S3 retries less


def is_last_attempt(record: SQSRecord, deps: Deps) -> bool:
    """Whether this is the delivery after which a failing record goes to the dead-letter queue (the queue's
    ``maxReceiveCount``, ``settings.max_receive_count``)."""
    return int(record.attributes.approximate_receive_count) >= deps.settings.max_receive_count


def idempotency(deps: Deps) -> tuple[DynamoDBPersistenceLayer, IdempotencyConfig]:
    """The powertools idempotency layer on ``settings.idempotency_table`` (key ``id``, TTL ``expiration``)."""
    def build() -> tuple[DynamoDBPersistenceLayer, IdempotencyConfig]:
        table = deps.required(deps.settings.idempotency_table, "LCABOT_IDEMPOTENCY_TABLE")
        config = IdempotencyConfig(event_key_jmespath="idempotency_key", expires_after_seconds=IDEMPOTENCY_TTL_S,
                                   raise_on_no_idempotency_key=True)
        return DynamoDBPersistenceLayer(table_name=table), config

    return deps.once("idempotency", build)


def channel_mode(conversation: ConversationRef, deps: Deps) -> str:
    """The retrieval mode set for the job's Slack channel (``/lca-mode``; the Slack handler leaves it to this worker
    to keep its acknowledgement to two DynamoDB calls), else ``settings.retrieval_mode``."""
    default = deps.settings.retrieval_mode
    if conversation.platform == "slack":
        return deps.conversations.retrieval_mode(conversation.platform, conversation.team or "",
                                                 conversation.channel, default)
    return default


class JobWorker:
    """The SQS record handler of a job queue: parse the job (a wrong kind is malformed), run it once per dedupe key
    (powertools idempotency), and on the last failed delivery tell the user ``failed_text(job)`` before the record
    goes to the dead-letter queue.

    Args:
        kind: the job class(es) this queue carries: ``AnswerJob``, or ``(ReportJob, IndexJob)``.
        run: does the job with the dependencies and delivers its result; returns a small JSON-able summary for the
            log.
    """

    def __init__(self, kind: type | tuple[type, ...], run: Callable[[Any, Deps], dict],
                 failed_text: Callable[[Any], str], logger: Logger):
        self.kinds = kind if isinstance(kind, tuple) else (kind,)
        self.run = run
        self.failed_text = failed_text
        self.logger = logger

    def parse(self, body: str) -> Any:
        job = parse_job(body)
        if not isinstance(job, self.kinds):
            names = "/".join(k.__name__ for k in self.kinds)
            raise MalformedJobError(f"a {names} queue received a {type(job).__name__}")
        return job

    def _once(self, deps: Deps) -> Callable[..., dict]:
        """The job run once per dedupe key (powertools idempotency on ``deps``' table)."""
        def build() -> Callable[..., dict]:
            persistence, config = idempotency(deps)

            @idempotent_function(data_keyword_argument="payload", persistence_store=persistence, config=config)
            def once(payload: dict) -> dict:
                job = self.parse(payload["body"])
                return {**self.run(job, deps), "placeholder": job.conversation.status_message}

            return once

        return deps.once(f"worker:{'/'.join(k.__name__ for k in self.kinds)}", build)

    def __call__(self, record: SQSRecord, deps: Deps) -> None:
        job = self.parse(record.body)
        payload = {"idempotency_key": f"{type(job).__name__}|{job.dedupe_key}", "body": record.body}
        client = deps.platform(job.conversation.platform)
        try:
            outcome = self._once(deps)(payload=payload)
        except Exception:
            if is_last_attempt(record, deps):
                client.post_notice(job.conversation, self.failed_text(job))
            self.logger.exception("job failed", extra={"dedupe_key": job.dedupe_key})
            raise
        placeholder = job.conversation.status_message
        if placeholder and outcome.get("placeholder") not in (None, placeholder):
            # a second job for a message already answered (its chat handler stopped after queueing, before it could
            # record that): its own placeholder says so rather than "Searching…" for good
            client.post_notice(job.conversation, messages.answered_already())
        self.logger.info("job done", extra={"dedupe_key": job.dedupe_key, **outcome})


def process_records(event: dict, context: LambdaContext, deps: Deps, record_handler: Callable[..., Any],
                    processor: BatchProcessor) -> PartialItemFailureResponse:
    """An SQS batch event → ``{"batchItemFailures": [{"itemIdentifier": messageId}, …]}``: each record handled on its
    own with ``deps`` (``record_handler(record, [lambda_context,] deps=deps)``), a failing one reported for SQS to
    redeliver, never the whole batch."""
    idempotency(deps)[1].register_lambda_context(context)
    return process_partial_response(event=event, record_handler=partial(record_handler, deps=deps),
                                    processor=processor, context=context)
