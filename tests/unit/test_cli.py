"""The ``lcabot`` command end to end on generated PDFs, with the real embedding model."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pymupdf
import pytest

from lcabot import cli
from tests.fixtures import hostile

STUDY = [
    "The functional unit is 1 kg of roasted coffee delivered to the retailer.",
    "Air freight from Brazil contributes 10.42 kg CO2e per kg of green coffee in the conventional scenario.",
]


def _two_page_study(tmp: Path) -> Path:
    doc = pymupdf.open()
    for line in STUDY:
        doc.new_page().insert_text((72, 100), line, fontsize=11)
    path = tmp / "study.pdf"
    doc.save(path)
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LCABOT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return tmp_path / "home"


def test_ingest_ask_sources_remove(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    _two_page_study(docs)
    hostile.encrypted(docs)
    hostile.image_only_pages(docs)

    # one bad file never stops the batch; the exit code says something failed
    assert cli.main(["ingest", str(docs), "--perspective", "academic"]) == 1
    out = capsys.readouterr()
    assert "password-protected" in out.err and "study.pdf: indexed, 2 pages" in out.err
    assert "no text layer on page(s) 1, 3" in out.err

    assert cli.main(["ask", "How much does air freight from Brazil contribute per kg of green coffee?",
                     "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["abstained"] is False and data["retrieval_mode"] == "rag+graph"  # the default, graph built by ingest
    first = data["citations"][0]
    assert (first["source"], first["page"], first["page_label"]) == ("study.pdf", 2, "2")
    assert "10.42 kg CO2e" in first["quote"] and "10.42" in data["answer"]

    assert cli.main(["ask", "How much does air freight contribute?", "--rag", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["retrieval_mode"] == "rag"

    assert cli.main(["sources"]) == 0
    listing = capsys.readouterr().out
    assert "study.pdf" in listing and "academic" in listing and "1, 3" in listing

    assert cli.main(["graph", "stats", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["documents"] == 2 and ["green coffee", "product_system", 1] in figures["top_entities"]
    assert cli.main(["graph", "show", "green coffee"]) == 0
    assert "green coffee (product_system), 1 mentions" in capsys.readouterr().out

    assert cli.main(["remove", "study.pdf"]) == 0
    assert "removed study.pdf" in capsys.readouterr().out
    assert cli.main(["graph", "stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["documents"] == 1
    assert cli.main(["remove", "study.pdf"]) == 1
    capsys.readouterr()
    assert cli.main(["ask", "How much does air freight contribute?", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["citations"] == []


def test_chat_keeps_history_for_follow_ups(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    _two_page_study(tmp_path)
    assert cli.main(["ingest", str(tmp_path / "study.pdf")]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("What is the functional unit of the coffee study?\n"
                                                 "And what does air freight from Brazil contribute?\n\n"))
    assert cli.main(["chat"]) == 0
    out = capsys.readouterr().out
    assert "1 kg of roasted coffee" in out and "10.42 kg CO2e" in out


def test_reingest_is_unchanged(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _two_page_study(tmp_path)
    assert cli.main(["ingest", str(path)]) == 0
    assert cli.main(["ingest", str(path)]) == 0
    assert "already indexed, unchanged" in capsys.readouterr().err


def test_unusable_settings_and_questions_get_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "not-a-dir"
    a_file.write_text("x")
    monkeypatch.setenv("LCABOT_HOME", str(a_file))
    assert cli.main(["sources"]) == 2
    assert "is a file, not a directory (check LCABOT_HOME)" in capsys.readouterr().err

    monkeypatch.setenv("LCABOT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LCABOT_EMBEDDING_MODEL", str(tmp_path / "no-model"))
    _two_page_study(tmp_path)
    assert cli.main(["ingest", str(tmp_path / "study.pdf")]) == 2
    assert "embedding model directory not found" in capsys.readouterr().err

    monkeypatch.delenv("LCABOT_EMBEDDING_MODEL")
    assert cli.main(["ask", "  <@U123> "]) == 2
    assert "The question is empty" in capsys.readouterr().err
