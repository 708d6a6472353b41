"""Slack Block Kit rendering of answers: escaping, our own links, Slack's size limits, feedback buttons."""

from __future__ import annotations

import json

import pytest

from bot_handlers.slack.blocks import (
    BLOCKS_TEXT_BUDGET,
    MAX_BLOCKS,
    SECTION_TEXT_LIMIT,
    answer_blocks,
    answer_messages,
    escape,
    link,
    notice_blocks,
)
from lcabot import messages
from lcabot.models import Answer, Citation

COFFEE_URL = "https://files.example.org/library/coffee.pdf#page=11"


def coffee_citation(number: int = 1, *, quote: str = "Exportation accounts for 10.44 kg CO2e", page: int = 11,
                    page_label: str = "11") -> Citation:
    return Citation(number=number, evidence_id=f"ev{number}", source="coffee.pdf",
                    title="Carbon footprint of green coffee", section="3.2 Results", page=page,
                    page_label=page_label, quote=quote)


def make_answer(text: str = "Exportation accounts for 10.44 kg CO2e per tonne of green coffee [1].",
                citations: tuple[Citation, ...] | None = None, **fields) -> Answer:
    values = {"abstained": False, "claims": (), "retrieval_mode": "rag", "searched": "3 documents",
              "ledger_hash": "h", "generator": "extractive"}
    values.update(fields)
    return Answer(text=text, citations=(coffee_citation(),) if citations is None else citations, **values)


def texts(blocks: list[dict]) -> list[str]:
    """Every mrkdwn/plain text of the blocks, in order."""
    found = []
    for block in blocks:
        if "text" in block:
            found.append(block["text"]["text"])
        for element in block.get("elements", []):
            found.append(element["text"] if element["type"] == "mrkdwn" else element["text"]["text"])
    return found


def sections(blocks: list[dict]) -> list[str]:
    return [b["text"]["text"] for b in blocks if b["type"] == "section"]


def test_escape_neutralises_slack_control_sequences():
    assert escape("<!channel> R&D <@U123> <#C1> <https://evil|click>") == (
        "&lt;!channel&gt; R&amp;D &lt;@U123&gt; &lt;#C1&gt; &lt;https://evil|click&gt;")


def test_mentions_and_links_in_answer_and_quote_cannot_ping_or_link():
    quote = "Exportation accounts for 10.44 kg CO2e <!here> <https://evil|click>"
    answer = make_answer("Ask <!channel> and <@U123> about 10.44 kg CO2e [1].", (coffee_citation(quote=quote),))

    fallback, blocks = answer_blocks(answer, question="What does exportation add?")

    assert sections(blocks)[0] == "Ask &lt;!channel&gt; and &lt;@U123&gt; about 10.44 kg CO2e [1]."
    assert fallback == "Ask &lt;!channel&gt; and &lt;@U123&gt; about 10.44 kg CO2e [1]."
    assert sections(blocks)[2].endswith("\n>Exportation accounts for 10.44 kg CO2e &lt;!here&gt; "
                                        "&lt;https://evil|click&gt;")
    payload = json.dumps(blocks)
    for raw in ("<!channel>", "<!here>", "<@U123>", "<https://evil"):
        assert raw not in payload
    mrkdwn = [o for b in blocks for o in [b.get("text"), *b.get("elements", [])] if o and o["type"] == "mrkdwn"]
    assert mrkdwn and all(o["verbatim"] is True for o in mrkdwn)


def test_citation_line_links_the_page_label_to_the_url_from_link_for():
    _, blocks = answer_blocks(make_answer(), question="q", link_for=lambda c: COFFEE_URL)

    assert sections(blocks)[1:] == [
        "*Sources*",
        f"[1] *Carbon footprint of green coffee* (coffee.pdf), 3.2 Results, <{COFFEE_URL}|p. 11>\n"
        ">Exportation accounts for 10.44 kg CO2e",
    ]


def test_page_label_differing_from_the_pdf_page_shows_both():
    _, blocks = answer_blocks(make_answer(citations=(coffee_citation(page=6, page_label="iv"),)), question="q")

    assert "3.2 Results, p. iv (PDF p. 6)\n>" in sections(blocks)[2]
    assert "PDF p." not in answer_blocks(make_answer(), question="q")[1][2]["text"]["text"]


def test_link_for_returning_none_or_a_refused_url_leaves_the_label_unlinked():
    for link_for in (lambda c: None, lambda c: "javascript:alert(1)", lambda c: "https://x.example/a|b"):
        _, blocks = answer_blocks(make_answer(), question="q", link_for=link_for)
        assert "3.2 Results, p. 11\n>" in sections(blocks)[2]
        assert "javascript" not in json.dumps(blocks)


def test_link_escapes_the_label_and_the_ampersands_of_the_url():
    assert link("https://s3.example.com/coffee.pdf?X-Amz-Date=1&X-Amz-Signature=ab#page=6", "p. <iv> a|b") == (
        "<https://s3.example.com/coffee.pdf?X-Amz-Date=1&amp;X-Amz-Signature=ab#page=6|p. &lt;iv&gt; a¦b>")


@pytest.mark.parametrize("url", ["javascript:alert(1)", "ftp://files.example.org/a.pdf", "/library/coffee.pdf",
                                 "https://files.example.org/a b.pdf", "https://files.example.org/a|b",
                                 "https://files.example.org/<x>", "https://files.example.org/a\nb", "https://"])
def test_link_refuses_urls_that_are_not_plain_http(url):
    with pytest.raises(ValueError):
        link(url, "p. 11")


def test_long_answer_is_split_at_word_boundaries_into_sections_within_the_limit():
    sentence = "Green coffee & roasting emit 10.44 kg CO2e per tonne over the transport stage to Hamburg. "
    text = "".join(sentence if i % 7 else sentence + "\n\n" for i in range(125))[:10_000].strip()

    _, blocks = answer_blocks(make_answer(text), question="q")

    pieces = sections(blocks)[: sections(blocks).index("*Sources*")]
    assert len(pieces) >= 4
    assert all(0 < len(p) <= SECTION_TEXT_LIMIT for p in pieces)
    assert [w for p in pieces for w in p.split()] == escape(text).split()  # nothing lost, no word cut


def test_a_token_longer_than_a_section_is_cut_but_never_inside_an_entity():
    _, blocks = answer_blocks(make_answer("<" * 2000), question="q", feedback_value="k")

    pieces = sections(blocks)[: sections(blocks).index("*Sources*")]
    assert "".join(pieces) == "&lt;" * 2000 and len(pieces) == 3
    assert all(len(p) <= SECTION_TEXT_LIMIT and p.startswith("&lt;") and p.endswith("&lt;") for p in pieces)


def test_all_block_text_stays_within_the_budget_slack_accepts():
    citations = tuple(coffee_citation(n, quote="Exportation accounts for 10.44 kg CO2e per tonne. " * 20)
                      for n in range(1, 41))

    _, blocks = answer_blocks(make_answer("Green coffee exportation " * 1000, citations), question="q",
                              link_for=lambda c: COFFEE_URL)

    assert sum(len(t) for t in texts(blocks)) <= BLOCKS_TEXT_BUDGET
    answer_part = sections(blocks)[: sections(blocks).index("*Sources*")]
    assert answer_part[-1].endswith("…") and sum(map(len, answer_part)) > 10_000
    assert texts([blocks[-3]]) == ["Sources [1]–[40] follow in the next message."]

    _, blocks = answer_blocks(make_answer(citations=citations), question="q", link_for=lambda c: COFFEE_URL)

    shown = [s for s in sections(blocks) if s.startswith("[")]
    assert sum(len(t) for t in texts(blocks)) <= BLOCKS_TEXT_BUDGET
    assert 20 < len(shown) < 40 and texts([blocks[-3]]) == [f"Sources [{len(shown) + 1}]–[40] follow in the next "
                                                             "message."]
    further = answer_messages(make_answer(citations=citations), question="q", link_for=lambda c: COFFEE_URL)[1:]
    assert all(sum(len(t) for t in texts(m)) <= BLOCKS_TEXT_BUDGET and len(m) <= MAX_BLOCKS for _, m in further)
    numbers = [int(t[1:t.index("]")]) for _, m in further for t in sections(m) if t.startswith("[")]
    assert numbers == list(range(len(shown) + 1, 41))


def test_fallback_text_is_cut_to_3000_characters_with_an_ellipsis():
    fallback, _ = answer_blocks(make_answer("Coffee <b> " * 1000), question="q")

    assert len(fallback) <= 3000 and fallback.endswith("…")
    assert fallback.startswith("Coffee &lt;b&gt; Coffee")


def test_sixty_citations_keep_fifty_blocks_with_the_rest_in_a_second_message_and_feedback_last():
    citations = tuple(coffee_citation(n, page=n, page_label=str(n)) for n in range(1, 61))

    (_, blocks), (more_text, more) = answer_messages(make_answer(citations=citations), question="q",
                                                     feedback_value="answer-key-1")

    assert len(blocks) == MAX_BLOCKS
    cited = [s for s in sections(blocks) if s.startswith("[")]
    assert len(cited) == 45 and cited[0].startswith("[1] ") and cited[-1].startswith("[45] ")
    assert texts([blocks[-3]]) == ["Sources [46]–[60] follow in the next message."]
    assert more_text == "Sources [46]–[60]" and sections(more)[0] == "*Sources (continued)*"
    assert [s[: s.index("]") + 1] for s in sections(more)[1:]] == [f"[{n}]" for n in range(46, 61)]
    assert texts([blocks[-2]]) == ["Mode: RAG only · answered by extractive"]
    assert blocks[-1]["type"] == "actions" and blocks[-1]["block_id"] == "feedback"


def test_feedback_buttons_carry_the_value_and_slack_limit_is_enforced():
    _, blocks = answer_blocks(make_answer(), question="q", feedback_value="v" * 2000)

    up, down = blocks[-1]["elements"]
    assert (up["action_id"], down["action_id"]) == ("feedback_up", "feedback_down")
    assert up["value"] == down["value"] == "v" * 2000
    assert up["text"]["text"].startswith("👍") and down["text"]["text"].startswith("👎")
    with pytest.raises(ValueError, match="2,?000"):
        answer_blocks(make_answer(), question="q", feedback_value="v" * 2001)
    _, blocks = answer_blocks(make_answer(), question="q")
    assert all("value" not in e for e in blocks[-1]["elements"])


def test_long_quote_is_trimmed_with_an_ellipsis():
    quote = "Exportation accounts for 10.44 kg CO2e " * 40
    _, blocks = answer_blocks(make_answer(citations=(coffee_citation(quote=quote),)), question="q")

    shown = sections(blocks)[2].split("\n>", 1)[1]
    assert shown.endswith("…") and 250 <= len(shown) <= 300
    assert quote.startswith(shown[:-1])


def test_notes_are_a_context_block_and_the_graph_mode_is_named():
    answer = make_answer(notes=(messages.claims_dropped(1),), retrieval_mode="rag+graph", generator="claude")

    _, blocks = answer_blocks(answer, question="q")

    assert blocks[1] == {"type": "context", "elements": [
        {"type": "mrkdwn", "text": messages.claims_dropped(1), "verbatim": True}]}
    assert texts([blocks[-2]]) == ["Mode: RAG + knowledge graph · answered by claude"]


def test_abstained_answer_shows_the_reason_and_no_sources():
    text = messages.abstain_no_evidence("12 documents (340 passages) for “cobalt mining”")
    answer = make_answer(text, (), abstained=True, generator="none", abstain_reason="no verifiable statement")

    fallback, blocks = answer_blocks(answer, question="What about cobalt mining?", feedback_value="k")

    assert sections(blocks) == [text]
    assert fallback == text
    assert texts([blocks[-2]]) == ["Mode: RAG only · no answer (abstained)"]
    assert blocks[-1]["block_id"] == "feedback"


def test_notice_is_escaped_into_sections():
    fallback, blocks = notice_blocks("coffee.pdf: indexed <!channel>")

    assert fallback == "coffee.pdf: indexed &lt;!channel&gt;"
    assert sections(blocks) == ["coffee.pdf: indexed &lt;!channel&gt;"]


def test_graph_facts_used_are_shown_with_their_citations_and_escaped():
    from lcabot.models import GraphFact

    base = Answer(text="The CFF allocates burdens and credits between supplier and user [1].", abstained=False,
                  citations=(), claims=(), retrieval_mode="rag+graph", searched="", ledger_hash="h",
                  generator="extractive",
                  facts=(GraphFact("Circular Footprint Formula", "defined_in", "PEFCR guidance <v6.3>", (1, 2)),))
    _, blocks = answer_blocks(base, question="What is the CFF?")
    shown = [e["text"] for b in blocks if b["type"] == "context" for e in b["elements"]]
    assert "Knowledge graph facts used:\nCircular Footprint Formula —defined in→ PEFCR guidance &lt;v6.3&gt; [1, 2]" \
        in shown
