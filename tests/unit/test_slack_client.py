"""The Slack platform client (what the worker Lambdas deliver through) against the local Slack Web API server,
which refuses what Slack refuses (more than 50 blocks, a section over 3,000 characters): a very long answer with
many sources is still delivered within Slack's limits, its sources continued in the thread."""

from __future__ import annotations

import pytest

from bot_handlers.slack.client import SlackClient, web_client
from lcabot.errors import NotAPdfError, TooLargeError
from lcabot.jobs import AnswerJob, ConversationRef, FileRef
from lcabot.models import Answer, Citation, Turn
from tests.stubs.slack_server import SlackAPIStub


@pytest.fixture()
def stub():
    with SlackAPIStub() as server:
        yield server


def long_answer(n_citations: int = 60) -> Answer:
    sentence = "The cradle-to-gate GWP100 of green coffee is 10.44 kg CO2e per kg at exportation [1]. "
    citations = tuple(Citation(i, f"E{i:010d}", "coffee.pdf", "Carbon footprint of green coffee",
                               "6.2 Carbon footprint calculation", 11, "11", "Exportation 10.44 " * 30)
                      for i in range(1, n_citations + 1))
    return Answer(text=sentence * 150, abstained=False, citations=citations, claims=(), retrieval_mode="rag",
                  searched="the library", ledger_hash="ab12", generator="extractive")


def test_a_very_long_answer_with_sixty_sources_is_delivered_within_slacks_limits(stub):
    client = SlackClient(web_client(stub.bot_token))
    client.web.base_url = stub.api_url
    root = stub.add_message("C0LCA", "<@U0BOT> coffee?")
    placeholder = client.web.chat_postMessage(channel="C0LCA", thread_ts=root, text="Searching the LCA library…")
    job = AnswerJob(f"slack:T0TEST:C0LCA:{root}", ConversationRef("slack", "C0LCA", root, "T0TEST",
                                                                  status_message=placeholder["ts"]), "U1", "coffee?")
    client.post_answer(job, long_answer())
    (update,) = [c for c in stub.calls_to("chat.update") if c.status == 200]
    (message,) = [m for m in stub.messages("C0LCA", thread_ts=root) if m["ts"] == placeholder["ts"]]
    assert len(message["blocks"]) <= 50 and len(message["text"]) <= 3000
    sections = [b["text"]["text"] for b in message["blocks"] if b["type"] == "section"]
    assert max(len(t) for t in sections) <= 3000
    assert "10.44 kg CO2e" in sections[0]
    notes = [e["text"] for b in message["blocks"] if b["type"] == "context" for e in b["elements"]]
    shown = [t for t in sections if t.startswith("[")]
    assert f"Sources [{len(shown) + 1}]–[60] follow in the next message." in notes
    assert message["blocks"][-1]["block_id"] == "feedback"
    # the sources that did not fit follow in the thread, each message within the limits: all sixty are shown
    follow_ups = [m for m in stub.messages("C0LCA", thread_ts=root) if float(m["ts"]) > float(placeholder["ts"])]
    assert follow_ups and all(len(m["blocks"]) <= 50 for m in follow_ups)
    cited = shown + [b["text"]["text"] for m in follow_ups for b in m["blocks"]
                     if b["type"] == "section" and b["text"]["text"].startswith("[")]
    assert [int(t[1:t.index("]")]) for t in cited] == list(range(1, 61))
    assert follow_ups[0]["blocks"][0]["text"]["text"] == "*Sources (continued)*"


def test_history_pairs_each_question_with_the_bots_answer_before_the_current_message(stub):
    client = SlackClient(web_client(stub.bot_token))
    client.web.base_url = stub.api_url
    root = stub.add_message("C0LCA", "<@U0BOT> What is the functional unit?", user="U1")
    answer = client.web.chat_postMessage(channel="C0LCA", thread_ts=root, text="1 kg of green coffee",
                                         blocks=[{"type": "actions", "block_id": "feedback", "elements": [
                                             {"type": "button", "action_id": "feedback_up",
                                              "text": {"type": "plain_text", "text": "👍"}}]}])
    stub.add_message("C0LCA", "Thanks &amp; bye", user="U2", thread_ts=root)  # a person, no bot reply after it
    stub.add_message("C0LCA", "deploying…", user="U9", bot_id="B0OTHER", subtype="bot_message", thread_ts=root)
    current = stub.add_message("C0LCA", "And the system boundary?", user="U1", thread_ts=root)
    later = stub.add_message("C0LCA", "ignored: after the current message", user="U1", thread_ts=root)
    job = AnswerJob(f"slack:T0TEST:C0LCA:{current}", ConversationRef("slack", "C0LCA", root, "T0TEST"), "U1",
                    "And the system boundary?")
    assert later > current and answer["ts"] < current
    assert client.history(job) == (Turn("What is the functional unit?", "1 kg of green coffee"),)


def test_download_refuses_a_login_page_and_an_oversized_file(stub):
    client = SlackClient(web_client(stub.bot_token))
    pdf = stub.register_file(b"%PDF-1.7\n" + b"0" * 2000, "study.pdf")
    ref = FileRef("study.pdf", url=pdf["url_private_download"], size=pdf["size"])
    assert client.download(ref, 10_000).startswith(b"%PDF-1.7")
    with pytest.raises(TooLargeError):
        client.download(ref, 1000)
    stranger = SlackClient(web_client("xoxb-not-the-token"))
    with pytest.raises(NotAPdfError, match="did not send a PDF"):
        stranger.download(ref, 10_000)
