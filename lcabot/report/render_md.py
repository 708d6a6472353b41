"""The report as Markdown. Quotes are shown verbatim with their page; computed numbers (sums, differences,
shares) are labelled as computed; nothing else carries a number."""

from __future__ import annotations

import re
from decimal import Decimal

from lcabot.report.model import NOT_PROVIDED, Quote, Report, ScenarioResult, StageBreakdown, Value
from lcabot.report.tables import format_amount, places_of
from lcabot.report.template import TEMPLATE, SectionSpec
from lcabot.report.units import per_what

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def esc(text: str) -> str:
    """Escape Markdown so that a quote renders as the characters it holds."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def show(quote: Quote) -> str:
    """A quote for reading: table-cell emphasis marks PyMuPDF adds (``_−_``) removed, whitespace collapsed."""
    text = re.sub(r"_(\W)_", r"\1", quote.display()).replace("**", "")
    return " ".join(text.split()).strip(" |")  # a sidebar line's trailing separator ("Revised: 18 November 2020 |")


def no_stage_values(shares_quoted: bool) -> str:
    """What the stage results field says when no table of the study gives per-stage GHG values."""
    return (f"{NOT_PROVIDED} — the study's tables give no per-stage values with a greenhouse-gas unit."
            + (" Stage contributions it states as shares:" if shares_quoted else ""))


def result_basis(r: ScenarioResult) -> str:
    """Where a CFP result is stated and what it covers: ``text on Table 2; covers Growing, Milling, Exportation``."""
    return r.basis + (f"; {r.scope}" if r.scope else "") + (
        "; biogenic carbon reported separately (ISO 14067 7.2)" if r.biogenic else "")


def where(quote: Quote) -> str:
    """The page of a quote, and for a table row the table and cell it was read from:
    ``p. 11 (Table 2, panel Conventional, stage Growing, Total row, column Brazil)``."""
    return quote.cite() + (f" ({quote.context})" if quote.kind == "table" and quote.context else "")


def quote_line(quote: Quote) -> str:
    where = f" ({esc(quote.context)})" if quote.kind == "table" and quote.context else ""
    return f"“{esc(show(quote))}” — {quote.cite()}{where}"


def reconciliation(b: StageBreakdown) -> str:
    """``Stated total 11.56 kg CO2e; stages sum to 11.55 kg CO2e (difference 0.01)``, or that they agree."""
    total = format_amount(b.stage_sum, b.places)
    if b.stated_total is None:
        return f"The study states no total for this scenario; the stages sum to {total} {b.unit} (computed)."
    stated = b.stated_total
    if not b.mismatch:
        return f"Stated total {stated.printed} {b.unit} ({stated.quote.cite()}) equals the sum of the stages."
    diff = format_amount(abs(b.difference or Decimal(0)), max(b.places, places_of(stated.printed)))
    return (f"Stated total {stated.printed} {b.unit}; stages sum to {total} {b.unit} (difference {diff}). "
            f"The study's own figures are shown unchanged ({stated.quote.cite()}).")


def partial_table(b: StageBreakdown, w: Value) -> str:
    """The warning for a stage table ``b`` that leaves out stages of the study's total footprint ``w``, with the
    part the table leaves out (computed from the study's figures)."""
    table_total = b.stated_total.amount if b.stated_total is not None else b.stage_sum
    places = max(b.places, places_of(w.printed))
    left_out = format_amount(w.amount - table_total, places)
    return (f"The study's total footprint for this scenario is {w.printed} {w.unit} ({w.quote.cite()}), "
            f"{left_out} more than this table's total (computed): the table leaves out stages, and the shares above "
            f"are of its stages only, not of the footprint.")


def values_in(unit: str) -> str:
    """How a stage table's unit is described: as printed when it says what it is per (``"kg CO2e kg–1 green
    coffee"``), else ``"kg CO2e per functional unit"`` (a stage table reports the CFP per functional unit)."""
    return unit if per_what(unit) else f"{unit} per functional unit"


def to_markdown(report: Report, chart_name: str | None) -> str:
    lines = [
        "# Product carbon footprint (CFP) study report",
        "",
        f"Study: **{esc(report.title)}** ({esc(report.source)}, {report.n_pages} pages).",
        "",
        "Template: the content ISO 14067:2018 asks of a CFP study report (clause 7.3). Every entry is quoted from "
        f"the study with its page; {esc(NOT_PROVIDED)} marks what the study does not state. Filled by: "
        f"{report.generator}.",
        "",
    ]
    lines += [f"> Note: {esc(n)}" for n in report.notes]
    for number, section in enumerate(TEMPLATE, start=1):
        lines += _section(report, number, section, chart_name)
    lines += _appendix(report)
    return "\n".join(lines).rstrip() + "\n"


def _section(report: Report, number: int, section: SectionSpec, chart_name: str | None) -> list[str]:
    lines = ["", f"## {number} {section.title}", "", f"*ISO 14067:2018 {section.clause}: {section.requirement}*", ""]
    keys = ["title"] if section.key == "basic" else []
    keys += [spec.key for spec in section.fields]
    for key in keys:
        f = report.field(key)
        lines += [f"### {esc(f.label)}", ""]
        if key == "cfp":
            lines += _results(report.results)
            if chart_name and report.results and not report.breakdowns:
                lines += [f"![Carbon footprint per functional unit by scenario, as stated]({chart_name})", ""]
        if key == "stages":
            lines += _stages(report, chart_name)
        if key == "stages" and not report.breakdowns:
            lines.append(no_stage_values(bool(f.quotes)))
            lines.append("")
        if f.quotes:
            lines += [f"- {quote_line(q)}" for q in f.quotes]
        elif not (key == "cfp" and report.results) and key != "stages":
            lines.append(NOT_PROVIDED)
        lines.append("")
    return lines


def _results(results: tuple[ScenarioResult, ...]) -> list[str]:
    if not results:
        return []
    lines = ["| Scenario | CFP per functional unit | Unit | Where the study states it | Page |",
             "|---|---|---|---|---|"]
    for r in results:
        where = result_basis(r)
        lines.append(f"| {esc(r.scenario)} | {esc(r.value.printed)} | {esc(r.value.unit)} | {esc(where)} | "
                     f"{r.value.quote.cite()} |")
    return [*lines, ""]


def _stages(report: Report, chart_name: str | None) -> list[str]:
    lines: list[str] = []
    for b in report.breakdowns:
        lines += [f"#### {esc(b.scenario)}", "", f"From {esc(b.table)}. Values in {esc(values_in(b.unit))}.",
                  "", f"| Life cycle stage | {esc(b.unit)} | % of stage sum (computed) | Source |", "|---|---|---|---|"]
        for s in b.stages:
            share = b.share(s)
            shown = f"{share:.1f} %" if share is not None else "—"
            source = "sum of the stage's rows (computed)" if s.computed else s.value.quote.cite()
            lines.append(f"| {esc(s.stage)} | {esc(s.value.printed)} | {shown} | {source} |")
        lines.append(f"| Sum of stages (computed) | {format_amount(b.stage_sum, b.places)} | 100 % | |")
        if b.stated_total is not None:
            lines.append(f"| Stated total | {esc(b.stated_total.printed)} | | {b.stated_total.quote.cite()} |")
        mark = "⚠ " if b.mismatch else ""
        lines += ["", f"{mark}{reconciliation(b)}", ""]
        if b.whole_footprint is not None:
            lines += [f"⚠ {esc(partial_table(b, b.whole_footprint))}", ""]
    if report.breakdowns and chart_name:
        lines += [f"![Stage shares by scenario]({chart_name})", ""]
    return lines


def evidence(report: Report) -> list[tuple[str, Quote]]:
    """The evidence appendix as ``(what it supports, quote)`` rows: every field quote, every CFP result, every stage
    value read from a table and the header row that gives the stage values' unit."""
    rows = [(f.label, q) for f in report.fields for q in f.quotes]
    rows += [(f"CFP — {r.scenario}: {r.value.printed} {r.value.unit}", r.value.quote) for r in report.results]
    for b in report.breakdowns:
        rows += [(f"Stage {s.stage} — {b.scenario}: {s.value.printed} {b.unit}", s.value.quote)
                 for s in b.stages if not s.computed]
        unit_quote = next((s.value.unit_quote for s in b.stages if s.value.unit_quote), None)
        if unit_quote is not None:
            rows.append((f"Unit of the stage values — {b.scenario}", unit_quote))
    return rows


def _appendix(report: Report) -> list[str]:
    lines = ["", "## Evidence appendix", "",
             "Every quote the report rests on, with the page that holds it (and for a table value, the cell).", "",
             "| Field | Quote | Where |", "|---|---|---|"]
    return lines + [_row(label, quote) for label, quote in evidence(report)]


def _row(label: str, quote: Quote) -> str:
    return f"| {esc(label)} | {esc(show(quote))} | {esc(where(quote))} |"
