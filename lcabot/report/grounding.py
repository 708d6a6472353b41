"""The last gate before rendering (DESIGN.md §6): every quote is verbatim on its cited page, every number is in
its quote and its unit in the quote or the table header it comes from. What fails is dropped and counted."""

from __future__ import annotations

from dataclasses import replace

from lcabot.ingest.normalize import match_key
from lcabot.report.model import FieldResult, Quote, ScenarioResult, StageBreakdown, Value
from lcabot.report.study import Study


def ground_quote(study: Study, quote: Quote) -> Quote | None:
    """The quote with the page that holds it (its own, else an adjacent one), or ``None``."""
    if study.on_page(quote.text, quote.page):
        return replace(quote, page_label=study.label(quote.page))
    for page in (quote.page - 1, quote.page + 1):
        if study.on_page(quote.text, page):
            return replace(quote, page=page, page_label=study.label(page))
    return None


def ground_value(study: Study, value: Value) -> Value | None:
    quote = ground_quote(study, value.quote)
    if quote is None or match_key(value.printed) not in match_key(quote.text):
        return None
    unit_quote = ground_quote(study, value.unit_quote) if value.unit_quote else None
    held = quote.text + " " + (unit_quote.text if unit_quote else "")
    if match_key(value.unit) not in match_key(held):
        return None
    return replace(value, quote=quote, unit_quote=unit_quote)


def ground_fields(study: Study, fields: list[FieldResult]) -> tuple[list[FieldResult], int]:
    out: list[FieldResult] = []
    dropped = 0
    for f in fields:
        quotes = [q for q in (ground_quote(study, q) for q in f.quotes) if q is not None]
        dropped += len(f.quotes) - len(quotes)
        out.append(replace(f, quotes=tuple(quotes)))
    return out, dropped


def ground_results(study: Study, results: list[ScenarioResult]) -> tuple[list[ScenarioResult], int]:
    out = []
    for r in results:
        value = ground_value(study, r.value)
        if value is not None:
            out.append(replace(r, value=value))
    return out, len(results) - len(out)


def ground_breakdowns(study: Study, breakdowns: list[StageBreakdown]) -> tuple[list[StageBreakdown], int]:
    """A breakdown is kept only when every stage value is grounded (a partial stage table would mislead); a stated
    total or whole footprint that fails is removed from it."""
    out = []
    dropped = 0
    for b in breakdowns:
        stages = []
        for s in b.stages:
            value = s.value if s.computed else ground_value(study, s.value)
            if value is None:
                break
            stages.append(replace(s, value=value))
        else:
            total = ground_value(study, b.stated_total) if b.stated_total else None
            whole = ground_value(study, b.whole_footprint) if b.whole_footprint else None
            dropped += (bool(b.stated_total) and total is None) + (bool(b.whole_footprint) and whole is None)
            out.append(replace(b, stages=tuple(stages), stated_total=total, whole_footprint=whole))
            continue
        dropped += 1
    return out, dropped
