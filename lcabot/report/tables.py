"""Tables of the study (PyMuPDF Markdown): per-stage results by scenario, and climate-change result rows.

Only what a table prints is read: a stage value is the number in the stage's "Total" row (or the stage's own
row in a flat table); nothing is interpolated. Sums are computed later and always shown as computed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from lcabot.ingest.normalize import collapse
from lcabot.ingest.pdf import TABLE_CAPTION, Block, ParsedDocument
from lcabot.report.units import GHG_UNIT, parse_number, printed_unit

_PLACEHOLDER = re.compile(r"^Col\d+$")
_SEPARATOR = re.compile(r"^:?-{3,}:?$")
_TOTAL = re.compile(r"^(?:sub-?)?totals?\b|^sum\b", re.I)
_CLIMATE = re.compile(r"climate change|global warming|\bGWP\b|greenhouse gas|\bGHG\b|carbon footprint", re.I)
_PERCENT_HEADER = re.compile(r"%|share|normali[sz]ed|weighted|relative|change", re.I)
_LABEL = re.compile(r"\btable\s*([A-Z]?\d+)", re.I)


@dataclass(frozen=True)
class Table:
    """One table of the study: ``lines[i]`` is the Markdown line of ``rows[i]`` (verbatim in the page text)."""

    page: int
    caption: str
    rows: tuple[tuple[str, ...], ...]
    lines: tuple[str, ...]

    @property
    def label(self) -> str | None:
        """``"Table 2"`` from a caption ``"TABLE 2 Carbon footprint …"``."""
        m = _LABEL.search(self.caption)
        return f"Table {m.group(1)}" if m else None


@dataclass(frozen=True)
class Cell:
    """A number as a table prints it, with the table line that holds it."""

    printed: str
    amount: Decimal
    line: str
    page: int


@dataclass(frozen=True)
class StageColumn:
    """Per-stage values of one scenario (one value column of one panel) of a stage table.

    ``stages`` pairs a stage name with its value; ``computed`` names the stages whose value is the sum of their
    items because the table prints no total for them. ``total`` is a total row printed below the stages.
    """

    table: Table
    scenario: str
    panel: str
    group: str
    unit: str
    unit_line: str
    stages: tuple[tuple[str, Cell], ...]
    computed: frozenset[str] = field(default_factory=frozenset)
    total: Cell | None = None


@dataclass(frozen=True)
class ClimateRow:
    """A climate-change result of one scenario in a results table (a row, or one column of a row)."""

    table: Table
    scenario: str
    label: str
    unit: str
    cell: Cell


def tables(parsed: ParsedDocument) -> list[Table]:
    """Every table of the parsed study with its caption (the caption block may sit on the page before)."""
    out: list[Table] = []
    blocks = parsed.blocks
    for i, block in enumerate(blocks):
        if block.kind != "table":
            continue
        rows, lines = _parse(block.text)
        if rows:
            out.append(Table(block.page, _caption(blocks[max(0, i - 3):i], block.page), rows, lines))
    return out


def _caption(before: list[Block], page: int) -> str:
    """The caption above a table: the blocks from a "Table N" line down to the table; else the short text block
    right above it on the same page (a caption whose "Table N" line the parser dropped)."""
    kept = [b for b in before if b.kind != "table" and b.text.strip() not in ("|", "")]
    for start in range(len(kept) - 1, -1, -1):
        if TABLE_CAPTION.match(kept[start].text):
            return collapse(" ".join(b.text for b in kept[start:]))
    if kept and kept[-1].page == page and len(kept[-1].text) < 300:
        return collapse(kept[-1].text)
    return ""


def _parse(markdown: str) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    lines: list[str] = []
    for line in markdown.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = line[1:-1].split("|") if line.endswith("|") else line[1:].split("|")
        if all(_SEPARATOR.match(c.strip()) for c in cells):
            continue
        rows.append(tuple(_clean(c) for c in cells))
        lines.append(line)
    width = max((len(r) for r in rows), default=0)
    return tuple(r + ("",) * (width - len(r)) for r in rows), tuple(lines)


def _clean(cell: str) -> str:
    text = " ".join(cell.replace("<br>", " ").split()).strip("*_ ")
    return "" if _PLACEHOLDER.match(text) else text


def _cell(table: Table, row: int, col: int) -> Cell | None:
    printed = table.rows[row][col]
    amount = parse_number(printed)
    return None if amount is None else Cell(printed, amount, table.lines[row], table.page)


def _numeric(row: tuple[str, ...]) -> bool:
    return any(parse_number(c) is not None for c in row)


def stage_columns(table: Table) -> list[StageColumn]:
    """The per-stage results of each scenario of a stage table, or ``[]`` when ``table`` is not one.

    A stage table has a header row naming a greenhouse-gas unit above its value columns (``kg CO2e kg–1 green
    coffee``). Above that header, a row with one label is a panel (``Conventional``) and a row with labels over the
    label columns names the column groups (``Brazil``, ``Vietnam``). Below it, a label without a value starts a
    stage (``Growing``) and its ``Total`` row gives the stage value; in a flat table each row is a stage and a
    ``Total`` row is the table's own total. Each (panel, group, value column) is one scenario, never mixed.
    """
    unit_rows = [i for i, r in enumerate(table.rows)
                 if any(GHG_UNIT.search(c) and parse_number(c) is None for c in r)]
    out: list[StageColumn] = []
    for n, h in enumerate(unit_rows):
        start = _region_start(table, h, unit_rows[n - 1] if n else -1)
        end = _region_start(table, unit_rows[n + 1], h) if n + 1 < len(unit_rows) else len(table.rows)
        header = table.rows[h]
        values = [j for j, c in enumerate(header) if GHG_UNIT.search(c)]
        labels = {v: _label_column(header, v) for v in values}
        panel, groups = _header_labels(table.rows[start:h], labels)
        for v in values:
            column = _column(table, h, end, v, labels[v], panel, groups.get(v, "") or _header_name(header[v]))
            if column is not None:
                out.append(column)
    return out


def _header_name(cell: str) -> str:
    """The scenario a value column's header names besides its unit: ``"A (kg CO2e/kg)"`` → ``"A"``; ``""`` for a
    header that is only a unit (``"kg CO2e kg–1 green coffee"``)."""
    unit = printed_unit(cell)
    return cell.replace(unit, " ").strip(" ()[]/,;:-–") if unit != cell else ""


def _region_start(table: Table, header: int, previous: int) -> int:
    """First row of the labels above the unit row ``header``: after the last numeric row before it."""
    i = header
    while i - 1 > previous and not _numeric(table.rows[i - 1]):
        i -= 1
    return i


def _label_column(header: tuple[str, ...], value: int) -> int:
    for j in range(value - 1, -1, -1):
        if header[j] and not GHG_UNIT.search(header[j]) and parse_number(header[j]) is None:
            return j
    return 0


def _header_labels(region: tuple[tuple[str, ...], ...], labels: dict[int, int]) -> tuple[str, dict[int, str]]:
    label_cols = set(labels.values())
    named = [r for r in region if any(r[j] for j in label_cols)]
    if not named:
        return "", {}
    group_row = named[-1]
    groups = {v: group_row[j] for v, j in labels.items()}
    singles = [r for r in named[:-1] if len({c for c in r if c}) == 1]
    panel = next((c for c in singles[0] if c), "") if singles else ""
    if len(set(groups.values())) <= 1 and not panel and len(named) == 1:
        return "", {v: g for v, g in groups.items()}
    return panel, groups


def _column(table: Table, header: int, end: int, value: int, label: int, panel: str,
            group: str) -> StageColumn | None:
    stages: list[tuple[str, Cell]] = []
    items: dict[str, list[Cell]] = {}
    order: list[str] = []
    totals: dict[str, Cell] = {}
    flat: list[tuple[str, Cell]] = []
    table_total: Cell | None = None
    current: str | None = None
    for r in range(header + 1, end):
        name, cell = table.rows[r][label], _cell(table, r, value)
        if not name:
            continue
        if cell is None:
            if not table.rows[r][value] and parse_number(name) is None:
                current = name
                order.append(name)
            continue
        if _TOTAL.match(name):
            if current is None:
                table_total = cell
            else:
                totals[current] = cell
        elif current is None:
            flat.append((name, cell))
        else:
            items.setdefault(current, []).append(cell)
    computed: set[str] = set()
    if order:
        for stage in order:
            if stage in totals:
                stages.append((stage, totals[stage]))
            elif items.get(stage):
                stages.append((stage, _sum_cell(items[stage], table.page)))
                computed.add(stage)
    else:
        stages = flat
    if len(stages) < 2:
        return None
    scenario = " — ".join(p for p in (panel, group) if p) or (table.label or "Table")
    return StageColumn(table, scenario, panel, group, printed_unit(table.rows[header][value]), table.lines[header],
                       tuple(stages), frozenset(computed), table_total)


def _sum_cell(cells: list[Cell], page: int) -> Cell:
    places = max(_places(c.printed) for c in cells)
    amount = sum((c.amount for c in cells), Decimal(0))
    return Cell(format_amount(amount, places), amount, "", page)


def _places(printed: str) -> int:
    return len(printed.split(".", 1)[1]) if "." in printed else 0


def format_amount(amount: Decimal, places: int) -> str:
    """``Decimal("11.55")``, 2 → ``"11.55"``; negative values get a minus sign (``−2.51``) as studies print."""
    text = f"{amount:.{places}f}"
    return text.replace("-", "−") if text.startswith("-") else text


def places_of(*printed: str) -> int:
    """The most decimal places among printed numbers (the precision sums and differences are shown with)."""
    return max((_places(p) for p in printed), default=0)


def climate_rows(table: Table) -> list[ClimateRow]:
    """Climate-change results of a results table: rows labelled climate change / GWP / greenhouse gases / GHG /
    carbon footprint with a greenhouse-gas unit (in the row or the header). One such row with several value
    columns gives one result per column (scenario = column header, e.g. ``Total (H2 Seq.)``); several such rows
    give one result per row (scenario = row label, e.g. with / without biogenic carbon removal). Percentage
    columns (shares, normalised scores, relative change) are skipped."""
    if not table.rows:
        return []
    header = table.rows[0]
    found: list[tuple[int, list[int], str]] = []
    for r, row in enumerate(table.rows[1:], start=1):
        if not _CLIMATE.search(row[0]):
            continue
        unit = next((c for c in row if GHG_UNIT.search(c)), None) or next(
            (c for c in header if GHG_UNIT.search(c)), None)
        if unit is None:
            continue
        cols = [j for j in range(1, len(row)) if parse_number(row[j]) is not None
                and not _PERCENT_HEADER.search(header[j])]
        if cols:
            found.append((r, cols, printed_unit(unit)))
    out: list[ClimateRow] = []
    for r, cols, unit in found:
        for j in cols:
            by_column = len(cols) > 1 or len(found) == 1 and header[j] and not re.fullmatch(r"values?", header[j], re.I)
            scenario = header[j] if by_column and len(cols) > 1 else table.rows[r][0]
            cell = _cell(table, r, j)
            if cell is not None:
                out.append(ClimateRow(table, _scenario_name(scenario), table.rows[r][0], unit, cell))
    return out


def _scenario_name(text: str) -> str:
    """A header as a scenario name. PyMuPDF moves a subscript after a line break (``Total (H Seq.)<br>2`` for
    "Total (H₂ Seq.)"): a trailing lone digit goes back after the one single-letter symbol it belongs to, and is
    dropped when that symbol is ambiguous."""
    m = re.fullmatch(r"(.*\S)\s+(\d)", text)
    if not m:
        return text.strip()
    head, digit = m.groups()
    symbols = list(re.finditer(r"(?<![\w])([A-Z])(?=\s)", head))
    if len(symbols) == 1:
        at = symbols[0].end()
        return head[:at] + digit + head[at:]
    return head
