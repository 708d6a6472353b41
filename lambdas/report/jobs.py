"""What the report Lambda does with one file job: a ``ReportJob``'s study PDF → the ISO 14067 report files delivered
through the job's platform client; an ``IndexJob``'s shared PDF → the library bucket."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path, PurePosixPath

from aws_lambda_powertools import Logger

from lcabot import messages
from lcabot.errors import DocumentError, NotAPdfError, ObjectExistsError, ObjectNotFoundError, TooLargeError
from lcabot.jobs import CONVERSATION_METADATA, IndexJob, ReportJob, conversation_json
from lcabot.report import write_report
from lcabot.wiring import Deps

logger = Logger(service="lcabot-report")


def fetch(job: ReportJob | IndexJob, deps: Deps) -> bytes:
    """The file's bytes, from S3 or from the chat platform, refused before download when the size is known to be
    above ``LCABOT_MAX_PDF_MB``.

    Raises:
        TooLargeError: the file is larger than the limit.
        lcabot.errors.ObjectNotFoundError: the S3 object does not exist.
        lcabot.errors.DocumentError: the platform sent something other than a PDF.
    """
    limit = deps.settings.max_pdf_mb
    if job.file.url:
        return deps.platform(job.conversation.platform).download(job.file, int(limit * 1048576))
    store = deps.bucket(job.file.bucket)
    info = store.head(job.file.key)
    if info is not None and info.size > limit * 1024 * 1024:
        raise TooLargeError(job.file.name, messages.over_size_limit(info.size, limit))
    return store.get(job.file.key)


def library_key(job: IndexJob) -> str:
    """``library/<perspective>/<name>`` (``general`` at the top): the file name without any folder part, letters
    of any script kept, other characters replaced by ``_``, ending in ``.pdf``."""
    stem = re.sub(r"[^\w ._()&-]+", "_", PurePosixPath(job.file.name.replace("\\", "/")).name).strip(" ._")
    stem = stem[:200] or "document"
    name = stem if stem.lower().endswith(".pdf") else f"{stem}.pdf"
    return f"library/{name}" if job.perspective == "general" else f"library/{job.perspective}/{name}"


def run(job: ReportJob | IndexJob, deps: Deps) -> dict:
    return index(job, deps) if isinstance(job, IndexJob) else report(job, deps)


def index(job: IndexJob, deps: Deps) -> dict:
    """Copy the shared PDF into the library bucket; the ingest Lambda takes it from there (and replies)."""
    client = deps.platform(job.conversation.platform)
    try:
        data = fetch(job, deps)
        if not data.startswith(b"%PDF-"):
            raise NotAPdfError(job.file.name, "it is not a PDF")
    except DocumentError as err:
        client.post_notice(job.conversation, messages.index_refused(str(err)))
        return {"delivered": "notice", "reason": err.reason}
    key = library_key(job)
    metadata = {CONVERSATION_METADATA: json.dumps(conversation_json(job.conversation), ensure_ascii=True)}
    try:
        deps.documents.put(key, data, "application/pdf", metadata=metadata, if_absent=True)
    except ObjectExistsError:  # a document shared from chat never replaces one already in the library
        client.post_notice(job.conversation, messages.index_exists(PurePosixPath(key).name, key))
        return {"delivered": "notice", "reason": "exists"}
    client.post_progress(job.conversation, messages.index_waiting(PurePosixPath(key).name))
    return {"delivered": "library", "key": key}


def report(job: ReportJob, deps: Deps) -> dict:
    client = deps.platform(job.conversation.platform)
    settings = deps.model_settings
    try:
        data = fetch(job, deps)
        client.post_progress(job.conversation, messages.report_progress(job.file.name, "reading the study"))
        with tempfile.TemporaryDirectory(prefix="report-", dir=settings.home if settings.home.is_dir() else None) \
                as work:
            files = write_report(data, job.file.name, Path(work), settings=settings, embedder=deps.embedder)
            client.post_files(job.conversation, files.paths(),
                              messages.report_ready(job.file.name, files.chart is not None, files.report.notes))
    except DocumentError as err:
        client.post_notice(job.conversation, messages.report_refused(str(err)))
        return {"delivered": "notice", "reason": err.reason}
    except ObjectNotFoundError:
        client.post_notice(job.conversation, messages.report_refused(f"{job.file.name} was not found (it may have "
                                                                     "been deleted); please share it again"))
        return {"delivered": "notice", "reason": "not_found"}
    return {"delivered": "files"}
