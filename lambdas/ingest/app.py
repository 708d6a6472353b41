"""AWS Lambda: S3 notifications for ``library/*.pdf`` (through SQS) → :class:`lcabot.library.Library`.

Each SQS record holds one S3 event notification. Records are processed one by one with powertools batch
processing; a record that fails is reported in ``batchItemFailures`` (SQS redelivers it, then moves it to the
dead-letter queue), never the whole batch. Each object change is idempotent on bucket, key, ETag and S3
sequencer, so a duplicate delivery indexes once. A PDF that cannot be ingested is recorded as ``failed`` in the
status table and the record succeeds (retrying cannot fix the file).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from functools import cache

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.idempotency import idempotent_function
from aws_lambda_powertools.utilities.typing import LambdaContext

from lambdas import runtime
from lcabot import messages, wiring
from lcabot.errors import IndexWriteError
from lcabot.jobs import CONVERSATION_METADATA, MalformedJobError, parse_conversation
from lcabot.library import Library, ObjectChange, in_library, parse_s3_notification
from lcabot.models import DocumentStatus

logger = Logger(service="lcabot-ingest")
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


@cache
def library() -> Library:
    from lcabot.cloud.aws import DynamoStatusStore, S3ObjectStore

    settings = runtime.settings()
    embedder = wiring.build_embedder(settings)
    return Library(
        documents=S3ObjectStore(runtime.env("LCABOT_LIBRARY_BUCKET")),
        artifacts=S3ObjectStore(runtime.env("LCABOT_ARTIFACTS_BUCKET")),
        index=wiring.build_index(settings, embedder.dimension),
        embedder=embedder,
        status=DynamoStatusStore(runtime.env("LCABOT_STATUS_TABLE")),
        settings=settings,
        extractor=wiring.build_graph_extractor(settings),
    )


@cache
def _idempotent_apply():
    persistence, config = runtime.idempotency()

    @idempotent_function(data_keyword_argument="change", persistence_store=persistence, config=config)
    def apply(change: dict) -> dict:
        fields = {k: v for k, v in change.items() if k != "idempotency_key"}
        status = library().apply(ObjectChange(**fields))
        return {"status": status.status, "reason": status.reason, "doc_id": status.doc_id,
                "notice": messages.index_done(status)} if status else {"status": None}

    return apply


def _record(record: SQSRecord) -> None:
    for change in parse_s3_notification(record.body):
        if not in_library(change.key):
            logger.info("skipped: outside library/*.pdf", extra={"key": change.key})
            continue
        try:
            outcome = _idempotent_apply()(change={**asdict(change), "idempotency_key": change.idempotency_key})
        except IndexWriteError as err:
            if runtime.is_last_attempt(record):  # the next stop is the dead-letter queue: say so in the status
                library().status.put(DocumentStatus(change.key, "failed", str(err), reason="index_error",
                                                    etag=change.etag))
            raise
        logger.info("library change applied", extra={"key": change.key, "action": change.action, **outcome})
        if change.action == "created" and outcome.get("status") not in (None, "skipped"):
            _tell_sharer(change.key, change.etag, outcome["notice"])


def _tell_sharer(key: str, etag: str, text: str) -> None:
    """A PDF shared in chat carries the conversation in its S3 metadata (``lcabot-conversation``): say there whether
    it is searchable. A failed post raises, so SQS redelivers and the (idempotent) outcome is posted again."""
    info = library().documents.head(key)
    raw = (info.metadata.get(CONVERSATION_METADATA) if info and info.etag == etag else None)
    if not raw:
        return
    try:
        conversation = parse_conversation(json.loads(raw))
    except (ValueError, MalformedJobError) as err:
        logger.warning("unusable conversation metadata", extra={"key": key, "error": str(err)})
        return
    runtime.platform_client(conversation).post_notice(conversation, text)


@logger.inject_lambda_context
def handler(event: dict, context: LambdaContext) -> dict:
    """SQS batch event → ``{"batchItemFailures": [{"itemIdentifier": messageId}, …]}``."""
    runtime.idempotency()[1].register_lambda_context(context)
    return process_partial_response(event=event, record_handler=_record, processor=processor, context=context)
