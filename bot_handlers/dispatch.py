"""One intent → action tree for Slack and Teams: what a chat message gets — a reply saying why not, a report or
library job per attached PDF, or an answer job — decided the same way on both platforms. Each platform only gathers
the message's files and carries the action out (posting, queueing)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bot_handlers.intent import Intent
from lcabot import messages
from lcabot.jobs import MAX_QUESTION_CHARS


@dataclass(frozen=True)
class Reply:
    """Say ``text`` in the thread; nothing is queued."""

    text: str


@dataclass(frozen=True)
class FileJobs:
    """One job per PDF: an ``IndexJob`` into ``perspective`` when ``index``, else a ``ReportJob``."""

    pdfs: tuple[Any, ...]
    index: bool
    perspective: str


@dataclass(frozen=True)
class Question:
    """An ``AnswerJob`` for ``text``, in the retrieval ``mode`` the message chose (``None``: the channel's)."""

    text: str
    mode: str | None


Action = Reply | FileJobs | Question


def decide(intent: Intent, files: Sequence[Any], pdfs: Sequence[Any], name: Callable[[Any], str], *,
           platform: str, bare_pdf_is_report: bool = False) -> Action:
    """The action for a message read as ``intent`` carrying ``files``, of which ``pdfs`` are usable PDFs (``name``
    gives a file's name). ``bare_pdf_is_report``: a PDF sent without words asks for a report (Teams' personal chat)
    rather than being asked what to do with it (Slack)."""
    if files and not pdfs:
        return Reply(messages.only_pdfs(name(files[0]) or "the file"))
    if pdfs and (intent.kind in ("report", "index") or (bare_pdf_is_report and not intent.text)):
        return FileJobs(tuple(pdfs), intent.kind == "index", intent.perspective)
    if pdfs:
        return Reply(messages.pdf_needs_intent(name(pdfs[0]) or "the PDF"))
    if intent.kind in ("report", "index"):
        return Reply(messages.file_missing(
            "make a report" if intent.kind == "report" else "add a document to the library", platform))
    if intent.kind == "help":
        return Reply(messages.chat_help())
    if len(intent.text) > MAX_QUESTION_CHARS:  # refused here, not queued to be refused by the worker
        return Reply(messages.question_too_long(len(intent.text), MAX_QUESTION_CHARS))
    return Question(intent.text, intent.mode)
