"""AWS Lambda for file jobs (through SQS): ``ReportJob`` → fetch the study PDF with size and page limits → the
report pipeline → files delivered through the job's platform client; ``IndexJob`` → copy a PDF shared in chat into
the library bucket (``library/<perspective>/<name>``) with the conversation in its metadata, so that the ingest
Lambda says there when it is searchable.

The study is parsed into an ephemeral index under ``/tmp`` that never enters the library. A file that cannot be
used (too large, too many pages, encrypted, corrupt, scanned) gets the reason as a notice and the record succeeds;
other failures are retried by SQS, and on the last delivery the user is told before the job moves to the
dead-letter queue. Idempotent per job dedupe key.
"""

from __future__ import annotations

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.typing import LambdaContext

from bot_handlers.platforms import deployed
from lambdas import runtime
from lambdas.report.jobs import logger, run
from lcabot import messages
from lcabot.jobs import IndexJob, ReportJob
from lcabot.wiring import Deps

processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
worker = runtime.JobWorker((ReportJob, IndexJob), run, lambda job: messages.report_failed(), logger)


def handle(event: dict, context: LambdaContext, deps: Deps) -> PartialItemFailureResponse:
    """SQS batch event → ``{"batchItemFailures": [{"itemIdentifier": messageId}, …]}``."""
    return runtime.process_records(event, context, deps, worker, processor)


@logger.inject_lambda_context
def handler(event: dict, context: LambdaContext) -> PartialItemFailureResponse:
    return handle(event, context, deployed())
