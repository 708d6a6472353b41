"""ISO 14067 carbon footprint (CFP) study reports from one LCA study PDF (``lcabot report``, ``/lca-report``).

    from lcabot.report import write_report
    files = write_report(data, "study.pdf", out_dir, settings=settings, embedder=embedder)
    files.paths()  # [markdown, docx, chart png if any]

The study is indexed on its own in a temporary SQLite index, per-field retrieval gathers the passages, and the
fixed template (:mod:`lcabot.report.template`) is filled only from what the study states: verbatim quotes with
their page, numbers as printed, per-stage values re-summed and compared with the stated total.
"""

from lcabot.report.model import NOT_PROVIDED, Report, ReportFiles, ScenarioResult, StageBreakdown
from lcabot.report.pipeline import build_report, render, write_report

__all__ = ["NOT_PROVIDED", "Report", "ReportFiles", "ScenarioResult", "StageBreakdown", "build_report", "render",
           "write_report"]
