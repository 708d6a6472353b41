"""The Claude report filler against a local server speaking the Messages API: one call with a forced tool, the
reply validated (only offered passages, only verbatim quotes), the extractive filler when Claude fails."""

from __future__ import annotations

import uuid
from pathlib import Path

import pymupdf
import pytest

from lcabot.config import Settings
from lcabot.report import write_report
from tests.fakes import HashEmbedder
from tests.stubs.anthropic_server import AnthropicStub, Reply, error, evidence_of

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
    return Reply(200, {
        "id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "tool_use", "id": "toolu_01", "name": "fill_report", "input": {"fields": fields}}],
        "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 900, "output_tokens": 80},
    })


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
