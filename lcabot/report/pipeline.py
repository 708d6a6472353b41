"""``write_report``: a study PDF → an ISO 14067 CFP study report (Markdown, Word, chart)."""

from __future__ import annotations

import logging
import re
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from lcabot import messages
from lcabot.config import Settings
from lcabot.ports import Embedder
from lcabot.report.extractive import ExtractiveFiller
from lcabot.report.grounding import ground_breakdowns, ground_fields, ground_results
from lcabot.report.model import FieldResult, Quote, Report, ReportFiles, ScenarioResult
from lcabot.report.results import breakdowns, climate_results
from lcabot.report.study import Study, parse_study
from lcabot.report.template import BASIC

logger = logging.getLogger(__name__)


class Filler(Protocol):
    """Fills every template field from the study (the extractive filler, or Claude in one call)."""

    name: str

    def fill_all(self, study: Study) -> list[FieldResult]: ...


def write_report(data: bytes, name: str, out_dir: Path, *, settings: Settings, embedder: Embedder) -> ReportFiles:
    """Write the CFP study report of one study PDF into ``out_dir`` (created if missing).

    The study is parsed with the ingestion limits and indexed on its own in a temporary directory (a SQLite index
    that is deleted afterwards; the library index under ``settings.home`` is never touched). Per-field retrieval
    gathers the passages; Claude fills the template in one call when ``settings.anthropic_api_key`` is set, else
    the extractive filler quotes the study. Every quote and number is then checked against its page.

    Args:
        data: the PDF's bytes.
        name: the file name (shown in the report; its stem names the output files).
        out_dir: where ``<stem>-cfp-report.md``, ``<stem>-cfp-report.docx`` and ``<stem>-cfp-chart.png`` go.
        settings: limits (``max_pdf_mb``, ``max_pages``) and the Claude settings.
        embedder: the embedding model.

    Returns:
        The written files and the filled :class:`~lcabot.report.model.Report`. The chart is ``None`` when the study
        has neither per-stage values nor a stated result per scenario.

    Raises:
        lcabot.errors.DocumentError: the PDF cannot be used (``TooLargeError``, ``NotAPdfError``,
            ``EncryptedPdfError``, ``CorruptPdfError``, ``EmptyPdfError``).
    """
    started = time.monotonic()
    parsed = parse_study(data, name, settings)
    with tempfile.TemporaryDirectory(prefix="lcabot-report-") as work:
        study = Study.build(parsed, data, name, Path(work), embedder)
        try:
            report = build_report(study, _filler(study, settings))
        finally:
            study.close()
    files = render(report, out_dir, Path(name).stem)
    logger.info("report written", extra={"source": name, "seconds": round(time.monotonic() - started, 2)})
    return files


def _filler(study: Study, settings: Settings) -> Filler:
    extractive = ExtractiveFiller(study)
    if not settings.anthropic_api_key:
        return extractive
    from lcabot.report.claude import ClaudeFiller

    return ClaudeFiller(settings.anthropic_api_key, settings.anthropic_model, settings.llm_timeout_s,
                        fallback=extractive)


def build_report(study: Study, filler: Filler) -> Report:
    """Fill the template, read the numbers from the study's tables and text, and keep only what is grounded."""
    fields = [*_title_field(study), *filler.fill_all(study)]
    stages, stated = breakdowns(study)
    results = _unique(climate_results(study) + stated)
    fields, dropped_quotes = ground_fields(study, fields)
    stages, dropped_stages = ground_breakdowns(study, stages)
    results, dropped_results = ground_results(study, results)
    notes: list[str] = list(getattr(filler, "notes", ()))
    if dropped_quotes or dropped_results or dropped_stages:
        notes.append(messages.report_dropped(dropped_quotes + dropped_results + dropped_stages))
    if not stages:
        notes.append(messages.report_no_stage_values())
    fields = _with_results(fields, results)
    generator = getattr(filler, "used", filler.name)
    return Report(study.parsed.title, study.record.source, study.record.n_pages, tuple(fields), tuple(stages),
                  tuple(results), generator, tuple(notes))


def _title_field(study: Study) -> list[FieldResult]:
    title = study.parsed.title
    page = study.find_page(title, near=1) if title else None
    quotes = (Quote(title, page, study.label(page)),) if page else ()
    return [FieldResult("title", "Study title", BASIC.title, "7.3", quotes)]


def _unique(results: list[ScenarioResult]) -> list[ScenarioResult]:
    seen: set[tuple[str, str]] = set()
    out = []
    for r in results:
        if (r.scenario, r.value.printed) not in seen:
            seen.add((r.scenario, r.value.printed))
            out.append(r)
    return out


def _with_results(fields: list[FieldResult], results: list[ScenarioResult]) -> list[FieldResult]:
    """The biogenic field also holds the results labelled with biogenic carbon (reported separately)."""
    biogenic = [r.value.quote for r in results if r.biogenic]
    out = []
    for f in fields:
        if f.key == "biogenic" and biogenic:
            keys = {q.text for q in biogenic}
            f = replace(f, quotes=(*biogenic, *(q for q in f.quotes if q.text not in keys)))
        out.append(f)
    return out


def render(report: Report, out_dir: Path, stem: str) -> ReportFiles:
    """Write the Markdown, the Word file and the chart of ``report`` into ``out_dir``."""
    from lcabot.report.chart import write_chart
    from lcabot.report.render_docx import write_docx
    from lcabot.report.render_md import to_markdown

    out_dir.mkdir(parents=True, exist_ok=True)
    base = re.sub(r"[^\w.-]+", "-", stem).strip("-.") or "study"
    chart = write_chart(report, out_dir / f"{base}-cfp-chart.png")
    markdown = out_dir / f"{base}-cfp-report.md"
    markdown.write_text(to_markdown(report, chart.name if chart else None), encoding="utf-8")
    docx = write_docx(report, out_dir / f"{base}-cfp-report.docx", chart)
    return ReportFiles(markdown, docx, chart, report)

