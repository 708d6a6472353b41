"""The chart PNG: stage shares per scenario (pies; bars when a stage value is negative, such as a biogenic
removal), or, when the study gives no per-stage values, its stated CFP per scenario as bars.

matplotlib is imported lazily with the non-interactive Agg backend (no display is needed)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from lcabot.report.model import Report, StageBreakdown

_MAX_PANELS = 8


def write_chart(report: Report, path: Path) -> Path | None:
    """Write the chart to ``path``; ``None`` (nothing written) when the study has no numbers to chart."""
    if report.breakdowns:
        return _stage_chart(report.breakdowns[:_MAX_PANELS], report.title, path)
    if report.results:
        return _results_chart(report, path)
    return None


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _stage_chart(breakdowns: tuple[StageBreakdown, ...], title: str, path: Path) -> Path:
    plt = _pyplot()
    n = len(breakdowns)
    cols = min(n, 2)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 4.6 * rows), squeeze=False)
    for ax, b in zip(axes.flat, breakdowns, strict=False):
        values = [float(s.value.amount) for s in b.stages]
        if any(v < 0 for v in values):
            ax.barh([s.stage for s in b.stages], values, color=["#2a9d8f" if v < 0 else "#e76f51" for v in values])
            ax.axvline(0, color="black", linewidth=0.8)
            ax.set_xlabel(b.unit)
        else:
            wedges, *_ = ax.pie(values, autopct=_percent, startangle=90, counterclock=False, pctdistance=0.75,
                                textprops={"fontsize": 8}, wedgeprops={"linewidth": 1, "edgecolor": "white"})
            ax.legend(wedges, [f"{s.stage}: {s.value.printed}" for s in b.stages], loc="center left",
                      bbox_to_anchor=(0.95, 0.5), fontsize=8, frameon=False)
            ax.axis("equal")
        partial = (f"\ntable leaves out stages of the total {b.whole_footprint.printed}"
                   if b.whole_footprint is not None else "")
        ax.set_title(f"{b.scenario} ({b.unit}){partial}", fontsize=9)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.suptitle(_wrap(f"Share of each stage in the sum of the table's stages (computed from the study's values) — "
                       f"{title}"),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _percent(p: float) -> str:
    return f"{p:.1f} %" if p >= 3 else ""  # thin slices are named in the legend only


def _results_chart(report: Report, path: Path) -> Path:
    plt = _pyplot()
    results = report.results[:12]
    labels = [_wrap(r.scenario, 28) for r in results]
    values = [float(r.value.amount) for r in results]
    units = sorted({r.value.unit for r in results})
    fig, ax = plt.subplots(figsize=(8.5, 1.4 + 0.7 * len(results)))
    bars = ax.barh(labels, values, color=["#2a9d8f" if v < 0 else "#e76f51" for v in values])
    ax.bar_label(bars, labels=[r.value.printed for r in results], padding=3, fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.invert_yaxis()
    ax.set_xlabel(" / ".join(units) + " per functional unit")
    lo, hi = min(0.0, *values), max(0.0, *values)
    pad = (hi - lo) * 0.15 or 1.0
    ax.set_xlim(lo - (pad if lo < 0 else 0), hi + pad)
    ax.set_title(_wrap(f"Carbon footprint per functional unit by scenario, as stated — {report.title}", 70),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _wrap(text: str, width: int = 90) -> str:
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + len(w) + 1 > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return "\n".join([*lines, line])
