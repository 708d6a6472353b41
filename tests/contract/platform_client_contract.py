"""The contract every ``PlatformClient`` implementation passes (Slack, Teams, the local outbox). A ``Test…`` class
inherits it and provides ``client`` and ``observer``: an :class:`Observer` that sets a conversation up the way the
platform's webhook would and reads back what was delivered, so the tests are written once."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import pytest

from lcabot.errors import DocumentError, TooLargeError
from lcabot.jobs import AnswerJob, ConversationRef, FileRef
from lcabot.models import Answer, Citation, Turn

CLAIM = "Air freight from Brazil emits 10.42 kg CO2e per kg green coffee"  # shown as is (no markup to escape)
SENTENCE = f"{CLAIM} [1]."
ANSWER = Answer(text=SENTENCE, abstained=False, citations=(
    Citation(1, "E0000000001", "coffee.pdf", "Carbon footprint of green coffee", "6.2 Transport", 11, "11",
             "Air freight 10.42"),), claims=(), retrieval_mode="rag", searched="the library", ledger_hash="ab12",
    generator="extractive")
SEARCHING = "Searching the LCA library for your question"
PDF = b"%PDF-1.7\n" + bytes(range(256)) * 8 + b"\n%%EOF\n"
LOGIN_PAGE = b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form></form></body></html>"


class Observer(Protocol):
    """What a contract test needs of a platform besides the client."""

    conversation: ConversationRef  # a conversation with no progress message

    def progress(self, text: str) -> ConversationRef:
        """Post a progress message as the platform's webhook does; ``conversation`` with its ``status_message``."""

    def shown(self) -> list[str]:
        """The text of each message the bot has in the conversation now (updates applied), oldest first."""

    def files(self) -> dict[str, bytes]:
        """The files delivered into the conversation, by name."""

    def job(self, question: str, earlier: tuple[Turn, ...]) -> AnswerJob:
        """A job asking ``question`` in ``conversation`` after the ``earlier`` turns, as the platform keeps them."""

    def shared(self, data: bytes, name: str, *, state_size: bool) -> FileRef:
        """A file someone shared, served with ``data``; its ``size`` stated or not."""

    def fetches(self) -> int | None:
        """How many download requests reached the platform (``None``: the local files are read, not fetched)."""


class PlatformClientContract:
    """Tests every client passes. A ``Test…`` subclass provides the ``client`` and ``observer`` fixtures."""

    def test_post_answer_replaces_the_progress_message(self, client, observer):
        conversation = observer.progress(SEARCHING)
        assert [SEARCHING in t for t in observer.shown()] == [True]
        client.post_answer(AnswerJob("k1", conversation, "U1", "Air freight?"), ANSWER)
        (shown,) = observer.shown()
        assert CLAIM in shown
        assert SEARCHING not in shown

    def test_post_answer_without_a_progress_message_posts_one(self, client, observer):
        client.post_answer(AnswerJob("k1", observer.conversation, "U1", "Air freight?"), ANSWER)
        (shown,) = observer.shown()
        assert CLAIM in shown

    def test_post_progress_updates_the_progress_message_in_place(self, client, observer):
        conversation = observer.progress(SEARCHING)
        client.post_progress(conversation, "Reading page 3 of 12")
        client.post_progress(conversation, "Reading page 9 of 12")
        (shown,) = observer.shown()
        assert "Reading page 9 of 12" in shown and "page 3" not in shown and SEARCHING not in shown

    def test_post_notice_posts_or_replaces_the_progress_message(self, client, observer):
        client.post_notice(observer.conversation, "The library has 12 documents.")
        assert ["The library has 12 documents." in t for t in observer.shown()] == [True]
        conversation = observer.progress(SEARCHING)
        client.post_notice(conversation, "You are asking too fast.")
        shown = observer.shown()
        assert len(shown) == 2 and "The library has 12 documents." in shown[0]
        assert "You are asking too fast." in shown[1] and SEARCHING not in shown[1]

    def test_post_files_delivers_the_files_with_the_comment(self, client, observer, tmp_path):
        report = tmp_path / "coffee report.pdf"
        report.write_bytes(PDF)
        notes = tmp_path / "notes.csv"
        notes.write_bytes("page,value\n11,10.42 kg CO₂e\n".encode())
        conversation = observer.progress("Reading coffee report.pdf…")
        client.post_files(conversation, [report, notes], "Your LCA report on coffee is ready.")
        assert observer.files() == {"coffee report.pdf": PDF, "notes.csv": notes.read_bytes()}
        shown = observer.shown()
        assert any("Your LCA report on coffee is ready." in t for t in shown)
        assert not any("Reading coffee report.pdf" in t for t in shown)  # the progress message was replaced

    def test_history_gives_the_earlier_turns_oldest_first(self, client, observer):
        earlier = (Turn("What is the functional unit?", "1 kg of green coffee"),
                   Turn("And the system boundary?", "Cradle to gate"))
        assert client.history(observer.job("Which transport emits most?", earlier)) == earlier
        assert client.history(observer.job("A first question", ())) == ()

    def test_download_returns_the_files_bytes_up_to_the_limit(self, client, observer):
        assert client.download(observer.shared(PDF, "study.pdf", state_size=True), len(PDF)) == PDF
        assert client.download(observer.shared(PDF, "unsized.pdf", state_size=False), len(PDF)) == PDF

    def test_download_refuses_a_stated_size_above_the_limit_before_downloading(self, client, observer):
        file = observer.shared(PDF, "study.pdf", state_size=True)
        before = observer.fetches()
        with pytest.raises(TooLargeError):
            client.download(file, len(PDF) - 1)
        assert observer.fetches() == before  # nothing was fetched (None == None where nothing is fetched)

    def test_download_refuses_an_unsized_file_above_the_limit(self, client, observer):
        with pytest.raises(TooLargeError):
            client.download(observer.shared(PDF, "unsized.pdf", state_size=False), len(PDF) - 1)

    def test_download_refuses_what_is_not_a_pdf(self, client, observer):
        with pytest.raises(DocumentError, match="study.pdf|PDF"):
            client.download(observer.shared(LOGIN_PAGE, "study.pdf", state_size=False), 1_000_000)


def write(tmp_path: Path, data: bytes, name: str) -> Path:
    path = tmp_path / "shared" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
