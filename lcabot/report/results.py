"""The numbers of the report: per-stage results by scenario (re-summed and compared with the stated total) and the
carbon footprint per functional unit by scenario, each bound to the table row or sentence that prints it."""

from __future__ import annotations

import re
from decimal import Decimal

from lcabot.report.model import Quote, ScenarioResult, StageBreakdown, StageResult, Value
from lcabot.report.study import Study
from lcabot.report.tables import Cell, ClimateRow, StageColumn, climate_rows, places_of, stage_columns, tables
from lcabot.report.units import Unit, ghg_core, number_lists, parse_number

_BIOGENIC = re.compile(r"\bbiogenic\b", re.I)


def breakdowns(study: Study) -> tuple[list[StageBreakdown], list[ScenarioResult]]:
    """Per-stage results of every stage table, and the stated totals they are compared with (as results)."""
    out: list[StageBreakdown] = []
    stated: list[ScenarioResult] = []
    sentences = [u for u in study.all_units() if u.kind == "text" and u.usable]
    for table in tables(study.parsed):
        columns = stage_columns(table)
        if not columns:
            continue
        totals = stated_totals(study, columns, sentences)
        for column in columns:
            total = totals.get(column.scenario) or _row_total(study, column)
            out.append(_breakdown(study, column, total))
            if total is not None:
                basis = ("text on " if total.quote.kind == "text" else "total row of ") + _table_name(column)
                scope = "covers " + ", ".join(s for s, _ in column.stages)
                stated.append(ScenarioResult(column.scenario, total, basis, scope=scope))
    return out, stated


def _table_name(column: StageColumn) -> str:
    return column.table.label or column.table.caption[:80] or f"table on p. {column.table.page}"


def _cell_value(study: Study, cell: Cell, unit: str, context: str, unit_line: str) -> Value:
    quote = Quote(cell.line, cell.page, study.label(cell.page), "table", context)
    unit_quote = Quote(unit_line, cell.page, study.label(cell.page), "table", context) if unit_line else None
    return Value(cell.printed, cell.amount, unit, quote, unit_quote)


def _breakdown(study: Study, column: StageColumn, total: Value | None) -> StageBreakdown:
    caption = column.table.caption
    stages = tuple(
        StageResult(name, _cell_value(study, cell, column.unit, f"{caption} — {name}".strip(" —"), column.unit_line),
                    name in column.computed)
        for name, cell in column.stages
    )
    places = places_of(*(c.printed for _, c in column.stages))
    stage_sum = sum((s.value.amount for s in stages), Decimal(0))
    return StageBreakdown(column.scenario, caption, column.unit, stages, total, stage_sum, places)


def _row_total(study: Study, column: StageColumn) -> Value | None:
    if column.total is None:
        return None
    return _cell_value(study, column.total, column.unit, f"{column.table.caption} — total", column.unit_line)


def stated_totals(study: Study, columns: list[StageColumn], sentences: list[Unit]) -> dict[str, Value]:
    """The totals the study's text states for the scenarios of one stage table.

    A sentence states a table's totals when it refers to the table (``Table 2``) or names all of its stages, names
    the panel (``conventional``) when the table has several, and lists as many numbers with a GHG unit as it names
    column groups, in order (``in Brazil and Vietnam were 11.56 and 12.99 kg CO2e …, respectively``). A sentence
    naming only some of the stages speaks of those stages, not of the total, and is not used.
    """
    if not columns:
        return {}
    table = columns[0].table
    label = table.label
    stage_names = {s.lower() for c in columns for s, _ in c.stages}
    panels = {c.panel for c in columns if c.panel}
    found: dict[str, Value] = {}
    for unit in sentences:
        text = unit.text
        lowered = text.lower()
        refers = bool(label and re.search(rf"\b{re.escape(label)}\b", text, re.I))
        named_stages = {s for s in stage_names if re.search(rf"\b{re.escape(s)}\b", lowered)}
        some_stages = bool(named_stages) and named_stages != stage_names
        if some_stages or (not refers and named_stages != stage_names):
            continue
        for numbers, unit_text in number_lists(text):
            for scenario, printed in _assign(columns, panels, lowered, numbers).items():
                amount = parse_number(printed)
                if amount is not None and scenario not in found:
                    quote = Quote(text, unit.page, study.label(unit.page), "text")
                    found[scenario] = Value(printed, amount, ghg_core(unit_text), quote)
    return found


def _assign(columns: list[StageColumn], panels: set[str], text: str, numbers: list[str]) -> dict[str, str]:
    """Scenario → printed number for one list of numbers of a sentence (``text`` lower-cased)."""
    named_panels = [p for p in panels if re.search(rf"\b{re.escape(p.lower())}\b", text)]
    if panels and len(named_panels) != 1:
        return {}
    candidates = [c for c in columns if not panels or c.panel == named_panels[0]]
    positions = []
    for column in candidates:
        m = re.search(rf"\b{re.escape(column.group.lower())}\b", text) if column.group else None
        if m:
            positions.append((m.start(), column))
    if not positions and len(candidates) == 1 and len(numbers) == 1:
        return {candidates[0].scenario: numbers[0]}
    positions.sort(key=lambda pc: pc[0])
    if len(positions) != len(numbers) or (len(numbers) > 1 and "respectively" not in text):
        return {}
    return {column.scenario: number for (_, column), number in zip(positions, numbers, strict=True)}


def climate_results(study: Study) -> list[ScenarioResult]:
    """Climate-change results by scenario from the study's results tables (see
    :func:`lcabot.report.tables.climate_rows`)."""
    out: list[ScenarioResult] = []
    for table in tables(study.parsed):
        rows: list[ClimateRow] = climate_rows(table)
        for row in rows:
            context = table.caption or table.label or ""
            value = _cell_value(study, row.cell, row.unit, context, "")
            name = table.label or table.caption[:80] or f"table on p. {table.page}"
            biogenic = bool(_BIOGENIC.search(row.scenario) or _BIOGENIC.search(row.label))
            out.append(ScenarioResult(row.scenario, value, name, biogenic=biogenic))
    return out
