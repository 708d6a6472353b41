"""AWS Lambda: ``AnswerJob``s (through SQS) → the core answerer → the job's platform client.

Idempotent per job dedupe key (Slack team + channel + message ts; Teams activity id): a duplicate delivery of the
same chat message is answered once. A job that fails is retried by SQS; on its last delivery, before it moves to
the dead-letter queue, the user gets a short message instead of silence.
"""

from __future__ import annotations

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.typing import LambdaContext

from bot_handlers.platforms import deployed
from lambdas import runtime
from lambdas.answer.job import answer, logger
from lcabot import messages
from lcabot.jobs import AnswerJob
from lcabot.wiring import Deps

processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
worker = runtime.JobWorker(AnswerJob, answer, lambda job: messages.answer_failed(), logger)


def handle(event: dict, context: LambdaContext, deps: Deps) -> PartialItemFailureResponse:
    """SQS batch event → ``{"batchItemFailures": [{"itemIdentifier": messageId}, …]}``."""
    return runtime.process_records(event, context, deps, worker, processor)


@logger.inject_lambda_context
def handler(event: dict, context: LambdaContext) -> PartialItemFailureResponse:
    return handle(event, context, deployed())
