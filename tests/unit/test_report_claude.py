"""The Claude report filler against a local server speaking the Messages API: one call with a forced tool, the
reply validated (only offered passages, only verbatim quotes), the extractive filler when Claude fails."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest

from lcabot import messages
from lcabot.config import Settings
from lcabot.report import write_report
from tests.fakes import HashEmbedder
from tests.stubs.anthropic_server import AnthropicStub, Reply, error, evidence_of, message, tool_use

LINES = (
    "The functional unit is 1 kg of roasted coffee delivered to the retailer.",
    "The assessment was conducted according to ISO 14067 and PAS 2050.",
    "The aim of this study is to quantify the carbon footprint of roasted coffee.",
)


def _study(tmp: Path) -> bytes:
    doc = pymupdf.open()
    doc.set_metadata({"title": "Carbon footprint of roasted coffee"})
    page = doc.new_page()
    page.insert_text((72, 90), "Carbon footprint of roasted coffee", fontsize=16)
    for i, line in enumerate(LINES):
        page.insert_text((72, 150 + 20 * i), line, fontsize=11)
    return doc.tobytes()


def _tool_reply(fields: dict) -> Reply:
    return tool_use("fill_report", {"fields": fields})


def _passage(body: dict, words: str) -> str:
    return next(e["id"] for e in evidence_of(body) if words in e["text"])


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    stub = AnthropicStub().__enter__()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.url)
    yield stub, Settings(home=tmp_path / "home", anthropic_api_key="test-key", anthropic_model="claude-test",
                         llm_timeout_s=10)
    stub.__exit__(None, None, None)


def test_one_call_fills_fields_and_invented_or_altered_quotes_are_dropped(tmp_path: Path, settings):
    stub, cfg = settings

    def reply(body: dict) -> Reply:
        return _tool_reply({
            "functional_unit": [{"passage": _passage(body, "functional unit"),
                                 "quote": "The functional unit is 1 kg of roasted coffee delivered to the retailer."}],
            "goal": [{"passage": "U999999", "quote": "The aim of this study is to quantify the carbon footprint"}],
            "standards": [{"passage": _passage(body, "ISO 14067"),
                           "quote": "The assessment was conducted according to ISO 14040 and ISO 14044."}],
        })

    stub.script(reply)
    files = write_report(_study(tmp_path), "coffee.pdf", tmp_path / "out", settings=cfg, embedder=HashEmbedder())
    report = files.report
    assert report.generator == "claude"
    assert [q.text for q in report.field("functional_unit").quotes] == [LINES[0]]
    assert report.field("goal").quotes == ()  # the passage id was not offered
    assert report.field("standards").quotes == ()  # the quote is not the passage's words
    assert len(stub.requests) == 1
    request = stub.requests[0]
    assert request.headers["x-api-key"] == "test-key"
    assert request.body["tool_choice"] == {"type": "tool", "name": "fill_report"}
    assert "functional_unit" in request.body["tools"][0]["input_schema"]["properties"]["fields"]["properties"]
    assert "[Information not provided]" in files.markdown.read_text()


def test_claude_failure_falls_back_to_the_extractive_filler(tmp_path: Path, settings):
    stub, cfg = settings
    stub.always(error(400, "invalid_request_error", "bad request"))
    files = write_report(_study(tmp_path), "coffee.pdf", tmp_path / "out", settings=cfg, embedder=HashEmbedder())
    assert files.report.generator == "extractive"
    assert any("did not answer" in n for n in files.report.notes)
    assert files.report.field("functional_unit").quotes[0].text == LINES[0]


FUNCTIONAL_UNIT = "The functional unit is 1 kg of roasted coffee delivered to the retailer."
UNUSABLE = {  # each retried twice (three requests), then the extractive filler with the note saying why
    "input-fails-schema": (lambda body: _tool_reply({"functional_unit": [{"passage": _passage(body, "functional"),
                                                                          "text": FUNCTIONAL_UNIT}]}),
                           "Claude's fill_report input did not fit its schema (at fields/functional_unit/0: required)"),
    "text-only": (lambda body: message(json.dumps({"fields": {"functional_unit": [
        {"passage": _passage(body, "functional"), "quote": FUNCTIONAL_UNIT}]}})),
                  "Claude's reply did not call the fill_report tool"),
}


@pytest.mark.parametrize("case", UNUSABLE)
def test_an_unusable_reply_is_retried_then_the_extractive_filler_says_why(tmp_path: Path, settings, case):
    stub, cfg = settings
    scripted, detail = UNUSABLE[case]
    stub.always(scripted)
    files = write_report(_study(tmp_path), "coffee.pdf", tmp_path / "out", settings=cfg, embedder=HashEmbedder())
    assert len(stub.requests) == 3
    assert all(r.body["tool_choice"] == {"type": "tool", "name": "fill_report"} for r in stub.requests)
    assert files.report.generator == "extractive"
    assert messages.llm_failed(detail) in files.report.notes
    assert files.report.field("functional_unit").quotes[0].text == LINES[0]


def test_a_reply_cut_at_max_tokens_is_not_retried_and_says_so(tmp_path: Path, settings):
    stub, cfg = settings
    stub.always(tool_use("fill_report", {"fields": {}}, stop_reason="max_tokens"))
    files = write_report(_study(tmp_path), "coffee.pdf", tmp_path / "out", settings=cfg, embedder=HashEmbedder())
    assert len(stub.requests) == 1
    assert files.report.generator == "extractive"
    assert messages.llm_incomplete() in files.report.notes


def test_an_unusable_reply_then_a_good_one_fills_from_claude(tmp_path: Path, settings):
    stub, cfg = settings
    good = lambda body: _tool_reply({"functional_unit": [{"passage": _passage(body, "functional"),  # noqa: E731
                                                          "quote": FUNCTIONAL_UNIT}]})
    stub.script(UNUSABLE["text-only"][0], good)
    files = write_report(_study(tmp_path), "coffee.pdf", tmp_path / "out", settings=cfg, embedder=HashEmbedder())
    assert len(stub.requests) == 2
    assert files.report.generator == "claude"
    assert not any("language model" in n for n in files.report.notes)
    assert [q.text for q in files.report.field("functional_unit").quotes] == [LINES[0]]
