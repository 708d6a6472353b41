"""AWS Lambda: ``ReportJob``s (through SQS) → fetch the study PDF with size and page limits → the report
pipeline → files delivered through the job's platform client.

The study is parsed into an ephemeral index under ``/tmp`` that never enters the library. A file that cannot be
used (too large, too many pages, encrypted, corrupt, scanned) gets the reason as a notice and the record succeeds;
other failures are retried by SQS, and on the last delivery the user is told before the job moves to the
dead-letter queue. Idempotent per job dedupe key.
"""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.typing import LambdaContext

from lambdas import runtime
from lcabot import messages, wiring
from lcabot.errors import DocumentError, ObjectNotFoundError, TooLargeError
from lcabot.jobs import ReportJob
from lcabot.report import write_report

logger = Logger(service="lcabot-report")
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


@cache
def embedder():
    return wiring.build_embedder(runtime.settings())


def fetch(job: ReportJob) -> bytes:
    """The study's bytes from S3, refused before download when above ``LCABOT_MAX_PDF_MB``.

    Raises:
        TooLargeError: the object is larger than the limit.
        lcabot.errors.ObjectNotFoundError: the object does not exist.
    """
    from lcabot.cloud.aws import S3ObjectStore

    store = S3ObjectStore(job.file.bucket)
    info = store.head(job.file.key)
    limit = runtime.settings().max_pdf_mb
    if info is not None and info.size > limit * 1024 * 1024:
        raise TooLargeError(job.file.name, f"{info.size / 1048576:.1f} MB is above the limit of {limit} MB")
    return store.get(job.file.key)


def report(job: ReportJob) -> dict:
    client = runtime.platform_client(job.conversation)
    settings = runtime.settings()
    try:
        data = fetch(job)
        with tempfile.TemporaryDirectory(prefix="report-", dir=settings.home if settings.home.is_dir() else None) \
                as work:
            files = write_report(data, job.file.name, Path(work), settings=settings, embedder=embedder())
            client.post_files(job.conversation, files.paths(), messages.report_ready(job.file.name))
    except DocumentError as err:
        client.post_notice(job.conversation, messages.report_refused(str(err)))
        return {"delivered": "notice", "reason": err.reason}
    except ObjectNotFoundError:
        client.post_notice(job.conversation, messages.report_refused(f"{job.file.name} was not found (it may have "
                                                                     "been deleted); please share it again"))
        return {"delivered": "notice", "reason": "not_found"}
    return {"delivered": "files"}


worker = runtime.JobWorker(ReportJob, report, messages.report_failed, logger)


@logger.inject_lambda_context
def handler(event: dict, context: LambdaContext) -> dict:
    """SQS batch event → ``{"batchItemFailures": [{"itemIdentifier": messageId}, …]}``."""
    runtime.idempotency()[1].register_lambda_context(context)
    return process_partial_response(event=event, record_handler=worker, processor=processor, context=context)
