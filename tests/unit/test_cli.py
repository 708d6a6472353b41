"""The ``lcabot`` command end to end on generated PDFs, with the real embedding model."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pymupdf
import pytest

from lcabot.cli import main as cli
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


def test_while_another_ingest_holds_the_write_lock_sources_reads_and_remove_says_so(
        tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening the index wrote (schema, generation row), so ``sources`` failed with a raw "database is locked"
    traceback while an ingest was writing. Now reads never write, and a write that cannot get the lock is one line
    and exit code 2."""
    import sqlite3

    from lcabot.adapters import sqlite_index

    docs = tmp_path / "docs"
    docs.mkdir()
    _two_page_study(docs)
    assert cli.main(["ingest", str(docs), "--perspective", "academic"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(sqlite_index, "BUSY_TIMEOUT_S", 0.5)
    writer = sqlite3.connect(home / "index.sqlite3", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another `lcabot ingest` in the middle of a write
    try:
        assert cli.main(["sources"]) == 0
        assert "study.pdf\tacademic\t2\t" in capsys.readouterr().out
        assert cli.main(["remove", "study.pdf"]) == 2
        err = capsys.readouterr().err
        assert err.strip() == "the library is being updated by another ingest; try again in a moment"
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert cli.main(["remove", "study.pdf"]) == 0
    assert "removed study.pdf" in capsys.readouterr().out


def test_a_killed_ingest_takes_its_parse_worker_with_it(tmp_path: Path) -> None:
    """A killed ``lcabot ingest`` left its parse worker running (300+ MB, parsing for minutes)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.conftest import CORPUS, ROOT

    pefcr = CORPUS / "guidance" / "ec-pefcr-guidance-v6.3.pdf"  # 238 pages: seconds of parsing each time
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from lcabot.config import Settings\n"
        "from lcabot.adapters.sqlite_index import SqliteIndex\n"
        "from lcabot.ingest.pipeline import ingest_paths\n"
        "from tests.fakes import HashEmbedder\n"
        "index = SqliteIndex(Path(sys.argv[1]) / 'i.sqlite3')\n"
        "for r in ingest_paths([Path(sys.argv[2])] * 5, perspective='general', index=index,\n"
        "                      embedder=HashEmbedder(), settings=Settings()):\n"
        "    pass\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script, str(tmp_path), str(pefcr)], cwd=ROOT)

    def children(pid: int) -> list[int]:
        found = []
        for entry in os.listdir("/proc"):
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except (OSError, ValueError):
                continue
            if entry.isdigit() and int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
        return found

    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while not workers and time.monotonic() < deadline:  # the spawned parse worker (and its resource tracker)
            time.sleep(0.2)
            workers = [c for c in children(parent.pid)
                       if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]
        assert workers, "no parse worker started"
        time.sleep(1.0)  # it is parsing now
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 5
        while any(Path(f"/proc/{w}").exists() and "Z" not in Path(f"/proc/{w}/stat").read_text().split()[2]
                  for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        alive = [w for w in workers if Path(f"/proc/{w}").exists()
                 and Path(f"/proc/{w}/stat").read_text().split()[2] != "Z"]
        assert alive == []
    finally:
        if parent.poll() is None:
            parent.kill()


def test_reading_a_library_never_made_writes_nothing_and_an_unwritable_home_is_one_line(
        tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`lcabot sources` on a fresh LCABOT_HOME made the folder and a 61 KB index; a home this user cannot write
    ended in a raw 'unable to open database file' traceback."""
    import sqlite3

    assert cli.main(["sources"]) == 0
    assert "library is empty" in capsys.readouterr().out.lower()
    assert cli.main(["remove", "study.pdf"]) == 1
    assert not home.exists()

    def unwritable(*args, **kwargs):  # what SQLite says in a folder this user cannot write (root can write any)
        raise sqlite3.OperationalError("unable to open database file")

    home.mkdir()
    (home / "index.sqlite3").write_bytes(b"")
    monkeypatch.setattr(sqlite3, "connect", unwritable)
    assert cli.main(["sources"]) == 2
    err = capsys.readouterr().err
    assert "cannot be opened (unable to open database file)" in err and "Traceback" not in err
