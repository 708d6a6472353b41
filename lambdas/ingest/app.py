"""AWS Lambda: S3 notifications for ``library/*.pdf`` (through SQS) → :class:`lcabot.ingest.library.Library`.

Each SQS record holds one S3 event notification. Records are processed one by one with powertools batch
processing; a record that fails is reported in ``batchItemFailures`` (SQS redelivers it, then moves it to the
dead-letter queue), never the whole batch. Each object change is idempotent on bucket, key, ETag and S3
sequencer, so a duplicate delivery indexes once. A PDF that cannot be ingested is recorded as ``failed`` in the
status table and the record succeeds (retrying cannot fix the file).

Every change ends with a status: ``indexing`` when work on a new PDF starts; the outcome; for any error (the index
refusing a write, the index or model failing to load, anything unexpected) a log line naming the key and, on the
delivery after which the record goes to the dead-letter queue, ``failed`` (and the person who shared the file is
told). A PDF with more pages than the function's remaining time can index (:data:`PAGES_PER_S`) is refused as
``too_large`` before it is parsed; and should one still run long, :data:`DEADLINE_MARGIN_S` before the function's
timeout its status says it was too large for one run, and a redelivery of the same version is not tried again.
"""

from __future__ import annotations

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.typing import LambdaContext

from bot_handlers.platforms import deployed
from lambdas import runtime
from lambdas.ingest.records import handle_record, logger
from lcabot.wiring import Deps

processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


def handle(event: dict, context: LambdaContext, deps: Deps) -> PartialItemFailureResponse:
    """SQS batch event → ``{"batchItemFailures": [{"itemIdentifier": messageId}, …]}``."""
    return runtime.process_records(event, context, deps, handle_record, processor)


@logger.inject_lambda_context
def handler(event: dict, context: LambdaContext) -> PartialItemFailureResponse:
    return handle(event, context, deployed())
