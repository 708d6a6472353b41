"""What the answer Lambda does with one ``AnswerJob``: the thread's earlier turns, the core answerer in the job's (or
the channel's) retrieval mode, and the answer delivered through the job's platform client."""

from __future__ import annotations

from aws_lambda_powertools import Logger

from lambdas import runtime
from lcabot.errors import QuestionError
from lcabot.jobs import AnswerJob
from lcabot.wiring import Deps

logger = Logger(service="lcabot-answer")


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
