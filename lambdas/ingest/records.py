"""What the ingest Lambda does with one SQS record (an S3 notification): each library change applied once
(powertools idempotency on bucket, key, ETag and sequencer) through :class:`lcabot.ingest.library.Library`, with its
status recorded from the start, a deadline watch, the failure recorded before the dead-letter queue, and the person
who shared the file told. See ``lambdas/ingest/app.py`` for the rules."""

from __future__ import annotations

import json
import posixpath
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.idempotency import idempotent_function
from aws_lambda_powertools.utilities.typing import LambdaContext

from lambdas import runtime
from lcabot import messages
from lcabot.errors import IndexWriteError
from lcabot.ingest.library import ObjectChange, in_library, parse_s3_notification
from lcabot.jobs import CONVERSATION_METADATA, MalformedJobError, parse_conversation
from lcabot.models import DocumentStatus
from lcabot.wiring import Deps

logger = Logger(service="lcabot-ingest")

DEADLINE_MARGIN_S = 30.0  # before the function's timeout: time to record the status and tell the sharer
# pages indexed per second, at least (parse, chunk, embed, index, graph fragment): bench/lambda_ingest.py measured
# 0.7 (a dense 13-page paper, Groen et al. 2016) to 2.3 (the 238-page PEFCR guidance) on a loaded 2-core machine;
# a 900 s run so takes 435 pages
PAGES_PER_S = 0.5


def _idempotent_apply(deps: Deps) -> Callable[..., dict]:
    def build() -> Callable[..., dict]:
        persistence, config = runtime.idempotency(deps)

        @idempotent_function(data_keyword_argument="change", persistence_store=persistence, config=config)
        def apply(change: dict, started: list[DocumentStatus]) -> dict:
            fields = {k: v for k, v in change.items() if k not in ("idempotency_key", "max_pages", "last_attempt")}
            if fields["action"] == "created":
                earlier = deps.status.get(fields["key"])
                if earlier is not None and earlier.reason == "too_large" and earlier.etag == fields["etag"]:
                    return _outcome(earlier)  # the same version ran out of time before: it would again
                current = deps.documents.head(fields["key"])
                if current is None or current.etag != fields["etag"]:  # a late event: the library says it is
                    return _outcome(deps.library.apply(ObjectChange(**fields), change.get("max_pages")))  # skipped
                source = posixpath.basename(fields["key"])
                # on the last delivery, what is recorded first is what holds should this run, too, be stopped
                # without a word (out of memory: no handler runs); the outcome replaces it
                start = DocumentStatus(fields["key"], "failed", messages.ingest_stopped(source), reason="error",
                                       etag=fields["etag"]) if change.get("last_attempt") else \
                    DocumentStatus(fields["key"], "indexing", messages.indexing(source), etag=fields["etag"])
                deps.status.put(start)
                started.append(start)
            return _outcome(deps.library.apply(ObjectChange(**fields), change.get("max_pages")))

        return apply

    return deps.once("ingest:apply", build)


def _outcome(status: DocumentStatus | None) -> dict:
    return {"status": status.status, "reason": status.reason, "doc_id": status.doc_id,
            "notice": messages.index_done(status)} if status else {"status": None}


def handle_record(record: SQSRecord, lambda_context: LambdaContext | None = None, *, deps: Deps) -> None:
    remaining_s = lambda_context.get_remaining_time_in_millis() / 1000 if lambda_context else None
    for change in parse_s3_notification(record.body):
        if not in_library(change.key):
            logger.info("skipped: outside library/*.pdf", extra={"key": change.key})
            continue
        max_pages = None if remaining_s is None else max(1, int((remaining_s - DEADLINE_MARGIN_S) * PAGES_PER_S))
        started: list[DocumentStatus] = []
        try:
            with _deadline_watch(change, lambda_context, started, deps):
                outcome = _idempotent_apply(deps)(change={
                    **asdict(change), "idempotency_key": change.idempotency_key, "max_pages": max_pages,
                    "last_attempt": runtime.is_last_attempt(record, deps)}, started=started)
        except Exception as err:
            logger.exception("library change failed", extra={"key": change.key, "action": change.action,
                                                              "etag": change.etag})
            if runtime.is_last_attempt(record, deps):  # the next stop is the dead-letter queue: say so
                _record_failure(change, err, deps)
            raise
        logger.info("library change applied", extra={"key": change.key, "action": change.action, **outcome})
        if change.action == "created" and outcome.get("status") not in (None, "skipped"):
            _tell_sharer(change.key, change.etag, outcome["notice"], deps)


def _record_failure(change: ObjectChange, err: Exception, deps: Deps) -> None:
    """The ``failed`` status of a change given up on, and the sharer told; failures here are logged (the error
    being raised is the one to report)."""
    if isinstance(err, IndexWriteError):
        status = DocumentStatus(change.key, "failed", str(err), reason="index_error", etag=change.etag)
    else:
        status = DocumentStatus(change.key, "failed", messages.ingest_error(posixpath.basename(change.key)),
                                reason="error", etag=change.etag)
    try:
        deps.status.put(status)
        if change.action == "created":
            _tell_sharer(change.key, change.etag, messages.index_done(status), deps)
    except Exception:
        logger.exception("failure not recorded", extra={"key": change.key})


@contextmanager
def _deadline_watch(change: ObjectChange, lambda_context: LambdaContext | None, started: list[DocumentStatus],
                    deps: Deps) -> Iterator[None]:
    """While the change is applied: :data:`DEADLINE_MARGIN_S` before the function's timeout, record that the
    document was too large for one run (the runtime ends the invocation without another word), unless the status
    is no longer the one the run ``started`` with (its outcome is recorded)."""
    if lambda_context is None or change.action != "created":
        yield
        return
    timeout_s = lambda_context.get_remaining_time_in_millis() / 1000

    def out_of_time() -> None:
        source = posixpath.basename(change.key)
        logger.error("ingest ran out of time", extra={"key": change.key, "etag": change.etag})
        status = DocumentStatus(change.key, "failed", messages.ingest_out_of_time(source, timeout_s),
                                reason="too_large", etag=change.etag)
        try:
            if started and deps.status.put_if_unchanged(status, started[-1]):
                _tell_sharer(change.key, change.etag, messages.index_done(status), deps)
        except Exception:
            logger.exception("out-of-time status not recorded", extra={"key": change.key})

    timer = threading.Timer(max(timeout_s - DEADLINE_MARGIN_S, 0.0), out_of_time)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _tell_sharer(key: str, etag: str | None, text: str, deps: Deps) -> None:
    """A PDF shared in chat carries the conversation in its S3 metadata (``lcabot-conversation``): say there whether
    it is searchable. A failed post raises, so SQS redelivers and the (idempotent) outcome is posted again."""
    info = deps.documents.head(key)
    raw = (info.metadata.get(CONVERSATION_METADATA) if info and info.etag == etag else None)
    if not raw:
        return
    try:
        conversation = parse_conversation(json.loads(raw))
    except (ValueError, MalformedJobError) as err:
        logger.warning("unusable conversation metadata", extra={"key": key, "error": str(err)})
        return
    deps.platform(conversation.platform).post_notice(conversation, text)
