"""The ``local`` platform: a JSON-lines outbox file standing in for Slack and Teams.

``lcabot dev`` and the tests deliver answers, notices and report files here through the same
``PlatformClient`` calls the Slack and Teams clients receive; ``lcabot dev ask`` reads the answer back.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lcabot import messages
from lcabot.errors import NotAPdfError, TooLargeError
from lcabot.jobs import AnswerJob, ConversationRef, FileRef
from lcabot.models import Answer, Turn


def render_text(answer: Answer) -> str:
    """Plain text: the answer, its notes, the graph facts used, the numbered sources (title, file, section, printed
    page), then the retrieval mode and the generator (as ``lcabot ask`` prints them)."""
    lines = [answer.text, *(f"note: {n}" for n in answer.notes)]
    if answer.facts:
        lines += ["", "Knowledge graph facts used", *(messages.graph_fact(f) for f in answer.facts)]
    if answer.citations:
        lines += ["", "Sources", *(messages.citation(c) for c in answer.citations)]
    lines.append(f"mode: {answer.retrieval_mode}, answered by: {answer.generator}")
    return "\n".join(lines)


class LocalOutbox:
    """``PlatformClient`` appending one JSON object per delivery to ``directory/outbox.jsonl``; report files are
    copied into ``directory/files/<channel>/``.

    Each entry has ``kind`` (``answer``, ``notice``, ``progress``, ``files``), ``channel``, ``thread_ts``, ``text``
    and ``status_message``: the conversation's progress message the entry replaces (``answer``, ``files``) or
    updates (``progress``), ``None`` for a new message. A reader showing the conversation applies them in order.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / "outbox.jsonl"
        self._lock = threading.Lock()

    def post_answer(self, job: AnswerJob, answer: Answer) -> None:
        self._append({"kind": "answer", **_where(job.conversation), "dedupe_key": job.dedupe_key,
                      "question": job.question, "text": render_text(answer), **answer.to_json(),
                      "generator": answer.generator, "notes": list(answer.notes)})

    def post_notice(self, conversation: ConversationRef, text: str) -> None:
        self._append({"kind": "notice", **_where(conversation), "text": text})

    def post_progress(self, conversation: ConversationRef, text: str) -> None:
        self._append({"kind": "progress", **_where(conversation), "text": text})

    def history(self, job: AnswerJob) -> tuple[Turn, ...]:
        """The turns the job carries (the outbox has no threads to read)."""
        return job.history

    def download(self, file: FileRef, limit_bytes: int) -> bytes:
        """A ``file://`` URL's bytes (the local platform's shared files are local paths).

        Raises:
            TooLargeError: the file is larger than ``limit_bytes``.
            NotAPdfError: the URL is not a ``file://`` URL of an existing file, or the file is not a PDF.
        """
        path = Path(unquote(urlparse(file.url).path)) if file.url.startswith("file://") else None
        if path is None or not path.is_file():
            raise NotAPdfError(file.name, f"{file.url!r} is not a local file")
        if path.stat().st_size > limit_bytes:
            raise TooLargeError(file.name, messages.over_size_limit(path.stat().st_size, limit_bytes / 1048576))
        data = path.read_bytes()
        if not data.startswith(b"%PDF-"):
            raise NotAPdfError(file.name, f"{file.url!r} is not a PDF")
        return data

    def post_files(self, conversation: ConversationRef, files: Sequence[Path], comment: str) -> None:
        target = self.directory / "files" / _safe_name(conversation.channel)
        target.mkdir(parents=True, exist_ok=True)
        copied = [str(Path(shutil.copy2(f, target / f.name))) for f in files]
        self._append({"kind": "files", **_where(conversation), "text": comment, "files": copied})

    def read(self) -> list[dict[str, Any]]:
        """Every delivery so far, oldest first."""
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def _append(self, entry: dict[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry, ensure_ascii=False) + "\n")


def _where(conversation: ConversationRef) -> dict[str, str | None]:
    return {"channel": conversation.channel, "thread_ts": conversation.thread_ts,
            "status_message": conversation.status_message}


def _safe_name(channel: str) -> str:
    """A channel id as one safe folder name: ``../x`` or ``/etc`` can never leave the outbox."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", channel).strip("_")
    return name or "_"
