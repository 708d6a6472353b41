"""The report as a Word file (python-docx, imported lazily): real headings, real tables, the chart embedded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lcabot.report.model import NOT_PROVIDED, Quote, Report
from lcabot.report.render_md import (
    evidence,
    no_stage_values,
    partial_table,
    reconciliation,
    result_basis,
    show,
    values_in,
    where,
)
from lcabot.report.tables import format_amount
from lcabot.report.template import TEMPLATE, SectionSpec


def write_docx(report: Report, path: Path, chart: Path | None) -> Path:
    from docx import Document
    from docx.shared import Inches

    doc = Document()
    doc.add_heading("Product carbon footprint (CFP) study report", 0)
    doc.add_paragraph(f"Study: {report.title} ({report.source}, {report.n_pages} pages).")
    doc.add_paragraph(
        "Template: the content ISO 14067:2018 asks of a CFP study report (clause 7.3). Every entry is quoted from "
        f"the study with its page; {NOT_PROVIDED} marks what the study does not state. Filled by: {report.generator}."
    )
    for note in report.notes:
        doc.add_paragraph(f"Note: {note}", style="Intense Quote")
    for number, section in enumerate(TEMPLATE, start=1):
        _section(doc, report, number, section, chart, Inches)
    _appendix(doc, report)
    doc.save(str(path))
    return path


def _section(doc: Any, report: Report, number: int, section: SectionSpec, chart: Path | None, inches: Any) -> None:
    doc.add_heading(f"{number} {section.title}", 1)
    doc.add_paragraph().add_run(f"ISO 14067:2018 {section.clause}: {section.requirement}").italic = True
    keys = (["title"] if section.key == "basic" else []) + [spec.key for spec in section.fields]
    for key in keys:
        f = report.field(key)
        doc.add_heading(f.label, 2)
        if key == "cfp" and report.results:
            _results_table(doc, report)
            if chart is not None and not report.breakdowns:
                doc.add_picture(str(chart), width=inches(6.3))
        if key == "stages":
            _stage_tables(doc, report)
            if chart is not None and report.breakdowns:
                doc.add_picture(str(chart), width=inches(6.3))
            if not report.breakdowns:
                doc.add_paragraph(no_stage_values(bool(f.quotes)))
        for q in f.quotes:
            _quote(doc, q)
        if not f.quotes and not (key == "cfp" and report.results) and key != "stages":
            doc.add_paragraph(NOT_PROVIDED)


def _quote(doc: Any, quote: Quote) -> None:
    p = doc.add_paragraph(style="Quote")
    p.add_run(f"“{show(quote)}”")
    where = f" ({quote.context})" if quote.kind == "table" and quote.context else ""
    p.add_run(f" — {quote.cite()}{where}").bold = True


def _table(doc: Any, header: list[str], rows: list[list[str]]) -> Any:
    table = doc.add_table(rows=1, cols=len(header))
    table.style = "Table Grid"
    for cell, text in zip(table.rows[0].cells, header, strict=True):
        cell.text = text
        for run in cell.paragraphs[0].runs:
            run.bold = True
    for row in rows:
        cells = table.add_row().cells
        for cell, text in zip(cells, row, strict=True):
            cell.text = text
    return table


def _results_table(doc: Any, report: Report) -> None:
    rows = [[r.scenario, r.value.printed, r.value.unit,
             result_basis(r),
             r.value.quote.cite()] for r in report.results]
    _table(doc, ["Scenario", "CFP per functional unit", "Unit", "Where the study states it", "Page"], rows)


def _stage_tables(doc: Any, report: Report) -> None:
    for b in report.breakdowns:
        doc.add_heading(b.scenario, 3)
        doc.add_paragraph(f"From {b.table}. Values in {values_in(b.unit)}.")
        rows = []
        for s in b.stages:
            share = b.share(s)
            rows.append([s.stage, s.value.printed, f"{share:.1f} %" if share is not None else "—",
                         "sum of the stage's rows (computed)" if s.computed else s.value.quote.cite()])
        rows.append(["Sum of stages (computed)", format_amount(b.stage_sum, b.places), "100 %", ""])
        if b.stated_total is not None:
            rows.append(["Stated total", b.stated_total.printed, "", b.stated_total.quote.cite()])
        _table(doc, ["Life cycle stage", b.unit, "% of stage sum (computed)", "Source"], rows)
        doc.add_paragraph(("⚠ " if b.mismatch else "") + reconciliation(b))
        if b.whole_footprint is not None:
            doc.add_paragraph("⚠ " + partial_table(b, b.whole_footprint))


def _appendix(doc: Any, report: Report) -> None:
    doc.add_heading("Evidence appendix", 1)
    rows = [[label, show(quote), where(quote)] for label, quote in evidence(report)]
    _table(doc, ["Field", "Quote", "Where"], rows)
