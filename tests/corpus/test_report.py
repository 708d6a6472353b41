"""`lcabot report` on the three studies of the corpus: values read from the studies' own tables and text, each
scenario on its own, stage totals re-summed against the stated total, and the three files written."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from lcabot import reportcli
from lcabot.config import Settings
from lcabot.normalize import match_key
from lcabot.pdf import parse_pdf
from lcabot.report import NOT_PROVIDED, ReportFiles, write_report
from lcabot.report.units import number_lists
from tests.conftest import CORPUS

STUDIES = CORPUS / "studies"
COFFEE = "nab-maslin-2020-coffee-carbon-footprint.pdf"
HYDROGEN = "burchart-2023-hydrogen-coal-gasification-lca.pdf"
POLYPROPYLENE = "moretti-2020-uco-polypropylene-lca.pdf"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory, embedder) -> dict[str, ReportFiles]:
    """GIVEN the three study PDFs WHEN a report is written for each (offline: no API key) THEN their files."""
    out = tmp_path_factory.mktemp("reports")
    settings = Settings(home=out / "home")
    files = {name: write_report((STUDIES / name).read_bytes(), name, out, settings=settings, embedder=embedder)
             for name in (COFFEE, HYDROGEN, POLYPROPYLENE)}
    assert not (out / "home").exists()  # the study never enters a library index
    return files


@pytest.fixture(scope="module")
def pages() -> dict[str, list[str]]:
    """Each study's page texts, parsed independently of the report (the ground truth for citations)."""
    return {name: parse_pdf((STUDIES / name).read_bytes(), name).page_texts
            for name in (COFFEE, HYDROGEN, POLYPROPYLENE)}


def _on_page(text: str, page_text: str) -> bool:
    return match_key(text.replace("<br>", "\n")) in match_key(page_text.replace("<br>", "\n"))


def _breakdown(files: ReportFiles, scenario: str):
    return next(b for b in files.report.breakdowns if b.scenario == scenario)


# -- the coffee study: Table 2, four scenarios, one stated total that differs from its stages ---------------------

def test_coffee_stage_values_come_from_table_2_on_pdf_page_11(reports):
    brazil = _breakdown(reports[COFFEE], "Conventional — Brazil")
    assert [(s.stage, s.value.printed) for s in brazil.stages] == [
        ("Growing", "1.01"), ("Milling", "0.10"), ("Exportation", "10.44")]
    assert {s.value.quote.page for s in brazil.stages} == {11}
    assert brazil.unit == "kg CO2e"
    assert "10.44" in brazil.stages[2].value.quote.text


def test_coffee_stated_total_differs_from_the_stages_and_is_shown_not_fixed(reports):
    brazil = _breakdown(reports[COFFEE], "Conventional — Brazil")
    assert brazil.stated_total is not None and brazil.stated_total.printed == "11.56"
    assert brazil.stated_total.quote.page == 10
    assert str(brazil.stage_sum) == "11.55" and brazil.mismatch
    markdown = reports[COFFEE].markdown.read_text()
    assert "Stated total 11.56 kg CO2e; stages sum to 11.55 kg CO2e (difference 0.01)" in markdown
    assert "| Exportation | 10.44 | 90.4 % | p. 11 |" in markdown
    assert [b.scenario for b in reports[COFFEE].mismatches] == ["Conventional — Brazil"]


def test_coffee_scenarios_are_reported_apart(reports):
    report = reports[COFFEE].report
    assert [b.scenario for b in report.breakdowns] == [
        "Conventional — Brazil", "Conventional — Vietnam", "Sustainable — Brazil", "Sustainable — Vietnam"]
    sums = {b.scenario: (str(b.stage_sum), b.stated_total.printed if b.stated_total else None)
            for b in report.breakdowns}
    assert sums == {"Conventional — Brazil": ("11.55", "11.56"), "Conventional — Vietnam": ("12.99", "12.99"),
                    "Sustainable — Brazil": ("0.32", "0.32"), "Sustainable — Vietnam": ("0.59", "0.59")}
    exportation = {b.scenario: b.stages[2].value.printed for b in report.breakdowns}
    assert exportation == {"Conventional — Brazil": "10.44", "Conventional — Vietnam": "11.77",
                           "Sustainable — Brazil": "0.19", "Sustainable — Vietnam": "0.41"}


def test_coffee_functional_unit_is_quoted_from_page_7(reports):
    quotes = reports[COFFEE].report.field("functional_unit").quotes
    assert quotes[0].page == 7 and "1 kg of green Arabica coffee beans" in quotes[0].text


# -- the hydrogen study: two scenarios, no per-stage values ------------------------------------------------------

def test_hydrogen_reports_with_and_without_capture_as_two_scenarios(reports):
    results = {r.value.printed: r for r in reports[HYDROGEN].report.results}
    assert set(results) == {"34.8", "19.5"}
    assert "Non-Seq" in results["34.8"].scenario and "Non-Seq" not in results["19.5"].scenario
    assert {r.value.quote.page for r in results.values()} == {12}
    assert all(r.value.unit == "kg CO2 eq" for r in results.values())


def test_hydrogen_invents_no_per_stage_values(reports):
    files = reports[HYDROGEN]
    assert files.report.breakdowns == ()
    markdown = files.markdown.read_text()
    assert f"{NOT_PROVIDED} — the study gives no per-stage values" in markdown
    assert "% of stage sum" not in markdown
    stages = markdown.split("### Results by life cycle stage", 1)[1].split("\n### ", 1)[0]
    assert not [n for line in stages.splitlines() if not line.startswith("- “") for n in number_lists(line)]


# -- the polypropylene study: with and without biogenic carbon removal, separately --------------------------------

def test_polypropylene_reports_biogenic_removal_separately(reports):
    report = reports[POLYPROPYLENE].report
    results = {r.value.printed: r for r in report.results}
    assert set(results) == {"0.63", "−2.51"}
    assert "without biogenic" in results["0.63"].scenario and results["0.63"].biogenic
    assert "with biogenic" in results["−2.51"].scenario and results["−2.51"].biogenic
    assert {r.value.quote.page for r in results.values()} == {6}
    biogenic = [q.text for q in report.field("biogenic").quotes]
    assert any("0.63" in q for q in biogenic) and any("−2.51" in q for q in biogenic)
    markdown = reports[POLYPROPYLENE].markdown.read_text()
    assert "| Climate change (without biogenic carbon removal (BCR)) | 0.63 | kg CO2eq |" in markdown
    assert "| Climate change, with biogenic carbon removal (BCR) | −2.51 | kg CO2eq |" in markdown


def test_polypropylene_functional_unit(reports):
    quotes = reports[POLYPROPYLENE].report.field("functional_unit").quotes
    assert quotes[0].page == 2 and "1 kg of polypropylene" in quotes[0].text


# -- every study: grounding and files ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", [COFFEE, HYDROGEN, POLYPROPYLENE])
def test_every_quote_is_verbatim_on_its_cited_page(reports, pages, name):
    report = reports[name].report
    quotes = [q for f in report.fields for q in f.quotes] + [r.value.quote for r in report.results]
    quotes += [s.value.quote for b in report.breakdowns for s in b.stages if not s.computed]
    assert quotes
    for q in quotes:
        assert _on_page(q.text, pages[name][q.page - 1]), (q.page, q.text)


@pytest.mark.parametrize("name", [COFFEE, HYDROGEN, POLYPROPYLENE])
def test_every_number_with_a_ghg_unit_is_in_the_study_or_labelled_computed(reports, pages, name):
    markdown = reports[name].markdown.read_text()
    study = match_key(" ".join(pages[name]))
    for line in markdown.splitlines():
        if "computed" in line or "stages sum to" in line:
            continue
        for numbers, _ in number_lists(line.replace("\\", "")):
            assert all(match_key(n) in study for n in numbers), line


@pytest.mark.parametrize("name", [COFFEE, HYDROGEN, POLYPROPYLENE])
def test_template_is_complete_and_silent_fields_say_so(reports, name):
    markdown = reports[name].markdown.read_text()
    for heading in ("## 1 Basic information", "## 2 Goal of the study", "## 3 Scope of the study",
                    "## 4 Life cycle inventory", "## 5 Impact assessment", "## 6 Interpretation",
                    "## 7 Critical review", "## Evidence appendix"):
        assert heading in markdown
    critical = markdown.split("### Critical review", 1)[1]
    assert NOT_PROVIDED in critical.split("##", 1)[0]  # none of the three studies reports a critical review


@pytest.mark.parametrize("name", [COFFEE, HYDROGEN, POLYPROPYLENE])
def test_docx_opens_with_headings_and_tables_and_chart_is_a_png(reports, name):
    import docx
    from PIL import Image

    files = reports[name]
    assert [p.suffix for p in files.paths()] == [".md", ".docx", ".png"]
    document = docx.Document(str(files.docx))
    headings = [p.text for p in document.paragraphs if p.style.name.startswith("Heading")]
    assert "1 Basic information" in headings and "Evidence appendix" in headings
    cells = {c.text for t in document.tables for row in t.rows for c in row.cells}
    expected = {COFFEE: {"10.44", "11.56"}, HYDROGEN: {"34.8", "19.5"}, POLYPROPYLENE: {"0.63", "−2.51"}}[name]
    assert expected <= cells
    assert files.chart is not None and files.chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(files.chart) as image:
        image.verify()
        assert image.size[0] > 400 and image.size[1] > 200


def test_cli_writes_three_files_and_a_summary(tmp_path: Path, embedder, monkeypatch, capsys):
    from lcabot import wiring

    monkeypatch.setattr(wiring, "build_embedder", lambda settings: embedder)
    parser = argparse.ArgumentParser()
    reportcli.add_parser(parser.add_subparsers())
    args = parser.parse_args(["report", str(STUDIES / POLYPROPYLENE), "-o", str(tmp_path / "out")])
    assert args.func(args, Settings(home=tmp_path / "home")) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [Path(p).suffix for p in lines[:3]] == [".md", ".docx", ".png"]
    assert all(Path(p).is_file() for p in lines[:3])
    assert re.match(rf"{re.escape(POLYPROPYLENE)}: \d+ of \d+ report fields filled", lines[3])


def test_report_lambda_posts_the_same_report_for_a_report_job(reports, tmp_path: Path, embedder, monkeypatch):
    from lambdas import runtime
    from lambdas.report import app
    from lcabot.jobs import ConversationRef, FileRef, ReportJob
    from lcabot.outbox import LocalOutbox
    from tests.fixtures import hostile

    home = tmp_path / "home"
    monkeypatch.setenv("LCABOT_HOME", str(home))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    runtime.settings.cache_clear()
    try:
        monkeypatch.setattr(app, "embedder", lambda: embedder)
        monkeypatch.setattr(app, "fetch", lambda job: (STUDIES / COFFEE).read_bytes())
        conversation = ConversationRef("local", "C1", "1700000000.000100")
        job = ReportJob("T1|C1|1700000000.000100", conversation, "U1", FileRef(COFFEE, "uploads", f"in/{COFFEE}"))
        assert app.report(job) == {"delivered": "files"}
        delivered = LocalOutbox(home / "outbox").read()[-1]
        assert [Path(f).suffix for f in delivered["files"]] == [".md", ".docx", ".png"]
        markdown = Path(delivered["files"][0]).read_text(encoding="utf-8")
        assert markdown == reports[COFFEE].markdown.read_text(encoding="utf-8")

        monkeypatch.setattr(app, "fetch", lambda job: hostile.encrypted(tmp_path).read_bytes())
        assert app.report(job) == {"delivered": "notice", "reason": "encrypted"}
        assert "password-protected" in LocalOutbox(home / "outbox").read()[-1]["text"]
    finally:
        runtime.settings.cache_clear()
