"""``write_report``: a study PDF → an ISO 14067 CFP study report (Markdown, Word, chart)."""

from __future__ import annotations

import errno
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
from lcabot.report.units import number_lists, parse_number

logger = logging.getLogger(__name__)

# A study longer than this is refused: at about 0.75 s per page on 2 cores (`lcabot report` on the 238-page PEFCR
# guidance took 178 s) it stays well inside the report Lambda's 900 s timeout.
REPORT_MAX_PAGES = 400


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
        settings: limits (``max_pdf_mb``, ``max_pages``, never above :data:`REPORT_MAX_PAGES`) and the Claude
            settings.
        embedder: the embedding model.

    Returns:
        The written files and the filled :class:`~lcabot.report.model.Report`. The chart is ``None`` when the study
        has neither per-stage values nor a stated result per scenario.

    Raises:
        lcabot.errors.DocumentError: the PDF cannot be used (``TooLargeError``, ``NotAPdfError``,
            ``EncryptedPdfError``, ``CorruptPdfError``, ``EmptyPdfError``).
        OSError: ``out_dir`` cannot be created or written; no report file is left half-written.
    """
    started = time.monotonic()
    parsed = parse_study(data, name, replace(settings, max_pages=min(settings.max_pages, REPORT_MAX_PAGES)))
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
    not_a_study = not results and not stages and not any(f.key == "functional_unit" and f.quotes for f in fields)
    if not_a_study:
        notes.insert(0, messages.report_not_a_study())
    elif not stages:
        notes.append(messages.report_no_stage_values())
    instructions = sum(u.instruction for u in study.all_units())
    if instructions:
        notes.append(messages.report_instructions_ignored(instructions))
    fields = _with_results(_cfp_quotes(fields, results), results)
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


def _cfp_quotes(fields: list[FieldResult], results: list[ScenarioResult]) -> list[FieldResult]:
    """With results read from the study, a quote under "CFP per functional unit" must state one of them: a
    sentence about a reduction, another product basis (``0.28 kg CO2e per espresso``) or other technologies is not
    the study's CFP per functional unit. Without results, a sentence giving a range, a sensitivity variation, an
    avoided-emission credit, a reduction or an annual or per-person figure is not one either."""
    stated = {r.value.amount for r in results}

    def states_a_result(quote: Quote) -> bool:
        if not results:  # nothing read from tables: any sentence but a range, a variation, a credit or a reduction
            return _NOT_A_RESULT.search(quote.text) is None
        return bool(stated & {parse_number(n) for numbers, _ in number_lists(quote.display()) for n in numbers})

    return [replace(f, quotes=tuple(q for q in f.quotes if states_a_result(q))) if f.key == "cfp" else f
            for f in fields]


_NOT_A_RESULT = re.compile(
    r"\b(?:rang\w*|sensitivity|vari\w+|between|avoided|credits?|reduc\w*|sav(?:e|es|ed|ings?)|lower|higher|"
    r"increas\w*|decreas\w*)\b|\bfrom\s+[-−–]?\d[\d.,]*\s+to\s+[-−–]?\d|"
    r"\bper (?:year|annum|capita|person|household|day)\b", re.I)


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
    """Write the Markdown, the Word file and the chart of ``report`` into ``out_dir``. The files are written in a
    temporary directory inside ``out_dir`` and moved in place only when all are written, so a failure leaves none
    of them half-written.

    Raises:
        OSError: ``out_dir`` cannot be created or written, or a target path is taken (e.g. by a directory).
    """
    from lcabot.report.chart import write_chart
    from lcabot.report.render_docx import write_docx
    from lcabot.report.render_md import to_markdown

    out_dir.mkdir(parents=True, exist_ok=True)
    base = re.sub(r"[^\w.-]+", "-", stem).strip("-.") or "study"
    final = {kind: out_dir / f"{base}-cfp-{kind}" for kind in ("chart.png", "report.md", "report.docx")}
    with tempfile.TemporaryDirectory(prefix=".lcabot-report-", dir=out_dir) as work:
        staged = {kind: Path(work) / path.name for kind, path in final.items()}
        chart = write_chart(report, staged["chart.png"])
        staged["report.md"].write_text(to_markdown(report, final["chart.png"].name if chart else None),
                                       encoding="utf-8")
        write_docx(report, staged["report.docx"], chart)
        ready = [kind for kind in ("report.md", "report.docx", "chart.png") if staged[kind].exists()]
        for kind in ready:  # all written; a target taken by a directory fails before any file is moved in place
            if final[kind].is_dir():
                raise IsADirectoryError(errno.EISDIR, "a directory has the report file's name", str(final[kind]))
        for kind in ready:
            staged[kind].replace(final[kind])
        if chart is None and final["chart.png"].is_file():
            final["chart.png"].unlink()  # a chart of an earlier report of this study name would be taken for this one
    return ReportFiles(final["report.md"], final["report.docx"], final["chart.png"] if chart else None, report)

