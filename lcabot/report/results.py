"""The numbers of the report: per-stage results by scenario (re-summed and compared with the stated total) and the
carbon footprint per functional unit by scenario, each bound to the table row or sentence that prints it."""

from __future__ import annotations

import re
from decimal import Decimal

from lcabot.ingest.normalize import match_key
from lcabot.report.model import Quote, ScenarioResult, StageBreakdown, StageResult, Value
from lcabot.report.study import Study
from lcabot.report.tables import Cell, ClimateRow, StageColumn, climate_rows, places_of, stage_columns, tables
from lcabot.report.units import Unit, located_number_lists, number_lists, parse_number, per_what, printed_unit

_BIOGENIC = re.compile(r"\bbiogenic\b", re.I)
_WHOLE_TOTAL = re.compile(r"\btotal (?:carbon )?footprint|\ball (?:the )?(?:life cycle )?(?:stages|phases)\b|"
                          r"\boverall (?:carbon )?footprint", re.I)


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
        whole = whole_footprints(study, columns, sentences)
        for column in columns:
            total = totals.get(column.scenario) or _row_total(study, column)
            footprint = whole.get(column.scenario)
            if footprint is not None and (total is None or footprint.amount != total.amount):
                stated.append(ScenarioResult(column.scenario, footprint, "text",
                                             scope=f"total footprint stated in “{footprint.quote.context}”"))
            else:
                footprint = None
            out.append(_breakdown(study, column, total, footprint))
            if total is not None:
                basis = ("text on " if total.quote.kind == "text" else "total row of ") + _table_name(column)
                scope = "covers " + ", ".join(s for s, _ in column.stages) + (" only" if footprint else "")
                stated.append(ScenarioResult(column.scenario, total, basis, scope=scope))
    return out, sorted(stated, key=lambda r: r.basis != "text")


def whole_footprints(study: Study, columns: list[StageColumn], sentences: list[Unit]) -> dict[str, Value]:
    """The total carbon footprint the study states per scenario of a stage table, when it is more than the table
    (Nab & Maslin 2020, p. 12: "By combining all the stages including the processing phase …, conventional coffee
    from Vietnam … (16.04 kg CO2e kg–1 green coffee) followed by conventional coffee from Brazil (14.61 …)").

    A sentence counts when it, or the heading of its section, speaks of the total footprint, and it names none of
    the table's stages. Each number with a GHG unit per the table's basis is one scenario's: the panel and column
    group named between the previous number and this one (``conventional coffee from Brazil (14.61``), both
    required when the table has them. The quote's ``context`` is the section heading.
    """
    if not columns:
        return {}
    stage_names = {s.lower() for c in columns for s, _ in c.stages}
    found: dict[str, Value] = {}
    for unit in sentences:
        text, lowered = unit.text, unit.text.lower()
        heading = unit.section or ""
        if not (_WHOLE_TOTAL.search(text) or _WHOLE_TOTAL.search(heading)):
            continue
        if any(re.search(rf"\b{re.escape(s)}\b", lowered) for s in stage_names):
            continue
        start = 0
        for begin, end, numbers, unit_text in located_number_lists(text):
            window, start = lowered[start:begin], end
            if len(numbers) != 1 or not _same_basis(unit_text, columns[0].unit):
                continue
            column = _named_in(columns, window)
            amount = parse_number(numbers[0])
            if column is None or amount is None or column.scenario in found:
                continue
            quote = Quote(text, unit.page, study.label(unit.page), "text", heading)
            found[column.scenario] = Value(numbers[0], amount, unit_text, quote)
    return found


def _named_in(columns: list[StageColumn], window: str) -> StageColumn | None:
    """The one scenario whose panel and group (as far as the table has them) are both named in ``window``."""
    named = [c for c in columns
             if all(re.search(rf"\b{re.escape(part.lower())}\b", window) for part in (c.panel, c.group) if part)]
    return named[0] if len(named) == 1 else None


def _table_name(column: StageColumn) -> str:
    return column.table.label or column.table.caption[:80] or f"table on p. {column.table.page}"


def _cell_value(study: Study, cell: Cell, unit: str, context: str, column: StageColumn | None = None) -> Value:
    """A table value, quoted with its row; a stage table's value also with the header row that prints its unit."""
    quote = Quote(cell.line, cell.page, study.label(cell.page), "table", context)
    unit_quote = None
    if column is not None and column.unit_line:
        unit_quote = Quote(column.unit_line, cell.page, study.label(cell.page), "table",
                           f"{_table_name(column)}, header row")
    return Value(cell.printed, cell.amount, unit, quote, unit_quote)


def cell_locator(column: StageColumn, cell: Cell, stage: str | None) -> str:
    """Where in its table a stage value (or, with ``stage=None``, the table's total) is read, for a reader to find
    the cell: ``Table 2, panel Conventional, stage Growing, Total row, column Brazil``."""
    parts = [_table_name(column)]
    if column.panel:
        parts.append(f"panel {column.panel}")
    first = next((c.strip(" *_") for c in cell.line.strip().strip("|").split("|") if c.strip(" *_")), "")
    if stage is not None:
        parts.append(f"stage {stage}")
    parts.append(f"{first} row" if first and (stage is None or first != stage) else "")
    if column.group:
        parts.append(f"column {column.group}")
    return ", ".join(p for p in parts if p)


def _breakdown(study: Study, column: StageColumn, total: Value | None, footprint: Value | None) -> StageBreakdown:
    caption = column.table.caption
    stages = tuple(
        StageResult(name, _cell_value(study, cell, column.unit, cell_locator(column, cell, name), column),
                    name in column.computed)
        for name, cell in column.stages
    )
    places = places_of(*(c.printed for _, c in column.stages))
    stage_sum = sum((s.value.amount for s in stages), Decimal(0))
    return StageBreakdown(column.scenario, caption, column.unit, stages, total, stage_sum, places, footprint)


def _row_total(study: Study, column: StageColumn) -> Value | None:
    if column.total is None:
        return None
    return _cell_value(study, column.total, column.unit, cell_locator(column, column.total, None), column)


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
            if not _same_basis(unit_text, columns[0].unit):
                continue
            for scenario, printed in _assign(columns, panels, lowered, numbers).items():
                amount = parse_number(printed)
                if amount is not None and scenario not in found:
                    quote = Quote(text, unit.page, study.label(unit.page), "text")
                    found[scenario] = Value(printed, amount, printed_unit(unit_text), quote)
    return found


def _same_basis(stated: str, table: str) -> bool:
    """A stated total is compared with a table only when both are per the same thing, or either does not say, or
    one says it shorter: ``0.28 kg CO2e per espresso beverage`` is never the total of a table in ``kg CO2e kg–1
    green coffee``, ``kg CO2e kg–1 green`` (p. 12) is the same basis as ``kg CO2e kg–1 green coffee``."""
    a, b = match_key(per_what(stated)), match_key(per_what(table))
    return not a or not b or a.startswith(b) or b.startswith(a)  # "kg–1 green" is "kg–1 green coffee" cut short


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
            value = _cell_value(study, row.cell, row.unit, context)
            name = table.label or table.caption[:80] or f"table on p. {table.page}"
            biogenic = bool(_BIOGENIC.search(row.scenario) or _BIOGENIC.search(row.label))
            out.append(ScenarioResult(row.scenario, value, name, biogenic=biogenic))
    return out
