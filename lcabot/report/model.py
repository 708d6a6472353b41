"""What a filled report holds: quotes bound to pages, per-stage results per scenario, stated results, fields."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

NOT_PROVIDED = "[Information not provided]"


@dataclass(frozen=True)
class Quote:
    """A verbatim span of the study: ``text`` occurs on PDF page ``page`` (1-based, printed label
    ``page_label``) after whitespace/ligature normalisation. ``context`` names the table (caption, stage) of a
    table row; it is shown beside the quote, never as part of it."""

    text: str
    page: int
    page_label: str
    kind: str = "text"
    context: str = ""

    def cite(self) -> str:
        """``p. 11``, or ``p. xi (PDF p. 11)`` when the printed label differs from the PDF page."""
        if self.page_label and self.page_label != str(self.page):
            return f"p. {self.page_label} (PDF p. {self.page})"
        return f"p. {self.page}"

    def display(self) -> str:
        """A table row as ``cell | cell | …``; a sentence as it is."""
        if self.kind != "table":
            return self.text
        cells = [c.strip() for c in self.text.strip("|").replace("<br>", " ").split("|")]
        return " | ".join(c for c in cells if c)


@dataclass(frozen=True)
class FieldResult:
    """One template field: the quotes that fill it (empty: the study does not state it)."""

    key: str
    label: str
    section: str
    clause: str
    quotes: tuple[Quote, ...] = ()

    @property
    def provided(self) -> bool:
        return bool(self.quotes)


@dataclass(frozen=True)
class Value:
    """A number as the study prints it (``printed``: ``"10.44"``, ``"−2.51"``), its ``amount``, the greenhouse-gas
    ``unit`` (``kg CO2e``) and the quote that holds the number (the unit is in it or in ``unit_quote``)."""

    printed: str
    amount: Decimal
    unit: str
    quote: Quote
    unit_quote: Quote | None = None


@dataclass(frozen=True)
class StageResult:
    """One life cycle stage of one scenario. ``computed``: the table gives no total for the stage, so its value
    is the sum of the stage's rows (shown as computed)."""

    stage: str
    value: Value
    computed: bool = False


@dataclass(frozen=True)
class StageBreakdown:
    """Per-stage results of one scenario, from one table of the study, re-summed and compared with the total the
    study states for it.

    Attributes:
        scenario: e.g. ``Conventional — Brazil``; scenarios are never mixed.
        table: the table caption.
        unit: greenhouse-gas unit of the values, e.g. ``kg CO2e`` (per functional unit).
        stages: the stages in table order.
        stated_total: the total the study states for this scenario (text or a total row), if any.
        stage_sum: sum of the stage values, with the precision of the printed values.
        places: decimal places of the printed values.
        whole_footprint: the scenario's total footprint the study states elsewhere when it is more than this
            table's stages (the table then leaves out stages, so its shares are of its own stages only).
    """

    scenario: str
    table: str
    unit: str
    stages: tuple[StageResult, ...]
    stated_total: Value | None
    stage_sum: Decimal
    places: int
    whole_footprint: Value | None = None

    @property
    def difference(self) -> Decimal | None:
        """Stated total minus the stage sum, or ``None`` when the study states no total."""
        return None if self.stated_total is None else self.stated_total.amount - self.stage_sum

    @property
    def mismatch(self) -> bool:
        return self.difference is not None and self.difference != 0

    def share(self, stage: StageResult) -> Decimal | None:
        """Share of the stage in the stage sum, in percent (computed); ``None`` if the sum is zero or any value
        is negative (shares of a net total with removals would mislead)."""
        if self.stage_sum <= 0 or any(s.value.amount < 0 for s in self.stages):
            return None
        return stage.value.amount * 100 / self.stage_sum


@dataclass(frozen=True)
class ScenarioResult:
    """The carbon footprint per functional unit of one scenario, as the study states it.

    ``basis`` says where it is stated (a table caption, or ``text``); ``scope`` adds what it covers when the
    study says so (e.g. the stages of a stage table). ``biogenic`` marks results labelled with biogenic carbon
    (with / without biogenic removals), which ISO 14067 asks to report separately.
    """

    scenario: str
    value: Value
    basis: str
    biogenic: bool = False
    scope: str = ""


@dataclass(frozen=True)
class Report:
    """A filled CFP study report.

    Attributes:
        title: the study's title; ``source`` its file name; ``n_pages`` its PDF pages.
        fields: every template field in template order (filled or not).
        breakdowns: per-stage results by scenario (empty when the study gives no per-stage values).
        results: the CFP per functional unit by scenario, as stated.
        generator: ``extractive`` or ``claude``.
        notes: what the reader should know (fields dropped by verification, stage shares only, …).
    """

    title: str
    source: str
    n_pages: int
    fields: tuple[FieldResult, ...]
    breakdowns: tuple[StageBreakdown, ...] = ()
    results: tuple[ScenarioResult, ...] = ()
    generator: str = "extractive"
    notes: tuple[str, ...] = ()

    def field(self, key: str) -> FieldResult:
        """Raises KeyError for a key the template does not have."""
        for f in self.fields:
            if f.key == key:
                return f
        raise KeyError(key)

    @property
    def mismatches(self) -> tuple[StageBreakdown, ...]:
        return tuple(b for b in self.breakdowns if b.mismatch)


@dataclass(frozen=True)
class ReportFiles:
    """The files written for one study: Markdown, Word and (when the study has numbers to chart) a PNG chart.
    ``report`` is the filled report they render."""

    markdown: Path
    docx: Path
    chart: Path | None
    report: Report = field(repr=False, compare=False)

    def paths(self) -> list[Path]:
        """``[markdown, docx]`` plus the chart when there is one."""
        return [self.markdown, self.docx, *([self.chart] if self.chart else [])]

    @property
    def mismatches(self) -> tuple[StageBreakdown, ...]:
        return self.report.mismatches
