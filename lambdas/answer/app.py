"""AWS Lambda: ``AnswerJob``s (through SQS) → the core answerer → the job's platform client.

Idempotent per job dedupe key (Slack team + channel + message ts; Teams activity id): a duplicate delivery of the
same chat message is answered once. A job that fails is retried by SQS; on its last delivery, before it moves to
the dead-letter queue, the user gets a short message instead of silence.
"""

from __future__ import annotations

from functools import partial

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.typing import LambdaContext

from bot_handlers.platforms import deployed
from lambdas import runtime
from lcabot import messages
from lcabot.errors import QuestionError
from lcabot.jobs import AnswerJob
from lcabot.wiring import Deps

logger = Logger(service="lcabot-answer")
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


def answer(job: AnswerJob, deps: Deps) -> dict:
    """Answer one job (with its thread's earlier turns) and deliver it; an unaskable question (empty, too long) gets
    its reason as a notice. The job's retrieval mode applies, or when it names none the channel's (``/lca-mode``);
    ``rag+graph`` asked before the knowledge graph exists is answered by retrieval alone, and the answer says so."""
    client = deps.platform(job.conversation.platform)
    mode = job.retrieval_mode or runtime.channel_mode(job.conversation, deps)
    try:
        history = client.history(job)
    except Exception:  # the thread cannot be read (a missing scope, a deleted thread): answer without it
        logger.exception("thread history unavailable", extra={"dedupe_key": job.dedupe_key})
        history = job.history
    try:
        result = deps.answerer.ask(job.question, history=history, k=deps.settings.top_k, mode=mode)
    except QuestionError as err:
        client.post_notice(job.conversation, str(err))
        return {"delivered": "notice"}
    client.post_answer(job, result)
    return {"delivered": "answer", "abstained": result.abstained, "citations": len(result.citations)}


worker = runtime.JobWorker(AnswerJob, answer, lambda job: messages.answer_failed(), logger)


def handle(event: dict, context: LambdaContext, deps: Deps) -> PartialItemFailureResponse:
    """SQS batch event → ``{"batchItemFailures": [{"itemIdentifier": messageId}, …]}``."""
    runtime.idempotency(deps)[1].register_lambda_context(context)
    return process_partial_response(event=event, record_handler=partial(worker, deps=deps), processor=processor,
                                    context=context)


@logger.inject_lambda_context
def handler(event: dict, context: LambdaContext) -> PartialItemFailureResponse:
    return handle(event, context, deployed())
