"""Adaptive Card rendering of answers for Teams: schema, Markdown neutralising, size budget, feedback actions."""

from __future__ import annotations

import json
import re

import pytest

from bot_handlers.teams.cards import (
    answer_card,
    answer_cards,
    attachment,
    escape_markdown,
    markdown_link,
    notice_card,
)
from lcabot import messages
from lcabot.models import Answer, Citation

COFFEE_URL = "https://files.example.org/library/coffee.pdf#page=11"
UNESCAPED_LINK = re.compile(r"(?<!\\)\[[^\]]*(?<!\\)\]\(")


def coffee_citation(number: int = 1, *, quote: str = "Exportation accounts for 10.44 kg CO2e", page: int = 11,
                    page_label: str = "11", title: str = "Carbon footprint of green coffee") -> Citation:
    return Citation(number=number, evidence_id=f"ev{number}", source="coffee.pdf", title=title,
                    section="3.2 Results", page=page, page_label=page_label, quote=quote)


def make_answer(text: str = "Exportation accounts for 10.44 kg CO2e per tonne of green coffee [1].",
                citations: tuple[Citation, ...] | None = None, **fields) -> Answer:
    values = {"abstained": False, "claims": (), "retrieval_mode": "rag", "searched": "3 documents",
              "ledger_hash": "h", "generator": "extractive"}
    values.update(fields)
    return Answer(text=text, citations=(coffee_citation(),) if citations is None else citations, **values)


def block_texts(card: dict) -> list[str]:
    found = []
    for item in card["body"]:
        found += [i["text"] for i in item["items"]] if item["type"] == "Container" else [item["text"]]
    return found


def test_card_is_adaptive_card_1_5_and_json_serialisable():
    card = answer_card(make_answer(), question="What does exportation add to green coffee?")

    assert json.loads(json.dumps(card)) == card
    assert (card["type"], card["version"], card["$schema"]) == (
        "AdaptiveCard", "1.5", "http://adaptivecards.io/schemas/adaptive-card.json")
    assert all(b["wrap"] is True for b in card["body"] if b["type"] == "TextBlock")
    assert attachment(card) == {"contentType": "application/vnd.microsoft.card.adaptive", "content": card}


def test_card_shows_question_answer_sources_with_our_link_and_mode():
    card = answer_card(make_answer(), question="What does exportation add?", link_for=lambda c: COFFEE_URL)

    assert block_texts(card) == [
        "Q: What does exportation add?",
        "Exportation accounts for 10.44 kg CO2e per tonne of green coffee \\[1\\].",
        "Sources",
        f"\\[1\\] **Carbon footprint of green coffee** (coffee.pdf), 3.2 Results, [p. 11]({COFFEE_URL})",
        "_“Exportation accounts for 10.44 kg CO2e”_",
        "Mode: RAG only · answered by extractive",
    ]
    quote = card["body"][3]["items"][1]
    assert quote["isSubtle"] is True


def test_markdown_link_in_a_quote_is_not_a_link_but_ours_is():
    quote = "Exportation accounts for 10.44 kg CO2e, see [click](https://evil.example) or <https://evil.example>"
    card = answer_card(make_answer("**Coffee** _export_ [click](https://evil.example)",
                                   (coffee_citation(quote=quote),)), question="q", link_for=lambda c: COFFEE_URL)

    line, shown_quote = card["body"][3]["items"][0]["text"], card["body"][3]["items"][1]["text"]
    assert "\\[click\\]\\(https://evil.example\\) or \\<https://evil.example\\>" in shown_quote
    assert card["body"][1]["text"] == "\\*\\*Coffee\\*\\* \\_export\\_ \\[click\\]\\(https://evil.example\\)"
    assert not UNESCAPED_LINK.search(shown_quote) and not UNESCAPED_LINK.search(card["body"][1]["text"])
    assert UNESCAPED_LINK.findall(line) == ["[p. 11]("]


def test_escape_markdown_neutralises_lists_emphasis_and_template_functions():
    assert escape_markdown("- cradle\n12. gate\n+ grave") == "\\- cradle\n12\\. gate\n\\+ grave"
    assert escape_markdown("CO2_e *bold* `x` {{DATE(2017-02-14T06:00:00Z)}} a\\b") == (
        "CO2\\_e \\*bold\\* \\`x\\` \\{\\{DATE\\(2017-02-14T06:00:00Z\\)\\}\\} a\\\\b")


@pytest.mark.parametrize("url", ["javascript:alert(1)", "/coffee.pdf", "https://files.example.org/a b.pdf",
                                 "https://files.example.org/a)b", "https://files.example.org/<x>"])
def test_markdown_link_refuses_urls_that_could_escape_the_link(url):
    with pytest.raises(ValueError):
        markdown_link(url, "p. 11")


def test_refused_url_leaves_the_page_label_unlinked_and_pdf_page_shows_when_label_differs():
    citation = coffee_citation(page=6, page_label="iv")
    card = answer_card(make_answer(citations=(citation,)), question="q", link_for=lambda c: "javascript:alert(1)")

    assert card["body"][3]["items"][0]["text"].endswith("3.2 Results, p. iv (PDF p. 6)")
    assert "javascript" not in json.dumps(card)


def test_sixty_long_citations_stay_under_the_teams_message_limit_and_the_rest_follow_in_more_cards():
    long_title = "Carbon footprint of green coffee from Brazil, Colombia and Ethiopia " * 5
    citations = tuple(coffee_citation(n, page=n, page_label=str(n), title=long_title,
                                      quote="Exportation accounts for 10.44 kg CO2e per tonne. " * 60)
                      for n in range(1, 61))
    long_url = "https://s3.example.com/library/coffee.pdf?X-Amz-Signature=" + "a" * 800 + "#page=11"

    card, *more = answer_cards(make_answer("Green coffee exportation " * 400, citations), question="q",
                               link_for=lambda c: long_url, feedback_data={"answer_key": "k1"})

    for each in (card, *more):  # Teams counts UTF-16: 2 bytes a character, ASCII included
        assert len(json.dumps(attachment(each), ensure_ascii=False).encode("utf-16-le")) < 26 * 1024
    shown = [b for b in card["body"] if b["type"] == "Container"]
    assert 0 < len(shown) < 60
    assert card["body"][-2]["text"] == f"Sources [{len(shown) + 1}]–[60] follow in the next message."
    assert shown[-1]["items"][0]["text"].startswith(f"\\[{len(shown)}\\] ")
    assert all(len(c["items"][1]["text"]) <= 300 + len("_“”_") for c in shown)
    assert more and all(m["body"][0]["text"] == "Sources (continued)" and "actions" not in m for m in more)
    numbers = [c["items"][0]["text"] for m in (card, *more) for c in m["body"] if c["type"] == "Container"]
    assert [int(t[2:t.index("\\]")]) for t in numbers] == list(range(1, 61))


def test_feedback_actions_submit_the_given_fields_with_up_or_down():
    data = {"conversation_id": "19:abc@thread.tacv2", "answer_key": "k1"}

    card = answer_card(make_answer(), question="q", feedback_data=data)

    up, down = card["actions"]
    assert (up["type"], down["type"]) == ("Action.Submit", "Action.Submit")
    assert up["data"] == {**data, "feedback": "up"} and down["data"] == {**data, "feedback": "down"}
    assert up["title"].startswith("👍") and down["title"].startswith("👎")
    assert answer_card(make_answer(), question="q")["actions"][0]["data"] == {"feedback": "up"}


def test_abstained_answer_has_no_sources_and_notes_are_shown():
    text = messages.abstain_no_evidence("12 documents (340 passages) for “cobalt mining”")
    answer = make_answer(text, (), abstained=True, generator="none", notes=(messages.llm_incomplete(),))

    card = answer_card(answer, question="What about cobalt mining?")

    assert "Sources" not in block_texts(card)
    assert card["body"][1]["color"] == "Warning" and card["body"][1]["text"] == escape_markdown(text)
    assert card["body"][2]["text"] == f"Note: {messages.llm_incomplete()}"
    assert card["body"][-1]["text"] == "Mode: RAG only · no answer (abstained)"


def test_notice_card_escapes_its_text():
    card = notice_card("coffee_v2.pdf: indexed, 12 pages")

    assert card["body"] == [{"type": "TextBlock", "text": "coffee\\_v2.pdf: indexed, 12 pages", "wrap": True}]
    assert "actions" not in card


def test_each_answer_line_is_its_own_text_block_and_list_markers_stay_literal():
    card = answer_card(make_answer("Stages covered:\n- cultivation\n- processing\n\nExport adds 10.44 kg CO2e [1]."),
                       question="")

    assert [b["text"] for b in card["body"][:4]] == [
        "Stages covered:", "\\- cultivation", "\\- processing", "Export adds 10.44 kg CO2e \\[1\\]."]
    assert card["body"][3]["spacing"] == "Medium" and "spacing" not in card["body"][1]


def test_graph_facts_used_are_listed_on_the_card():
    from lcabot.models import GraphFact

    answer = Answer(text="The DQR rates data quality [1].", abstained=False, citations=(), claims=(),
                    retrieval_mode="rag+graph", searched="", ledger_hash="h", generator="extractive",
                    facts=(GraphFact("Data Quality Rating", "part_of", "PEF method", (1,)),))
    texts = [b.get("text") for b in answer_card(answer, question="What is the DQR?")["body"]]
    assert "Knowledge graph facts used" in texts
    assert "Data Quality Rating —part of→ PEF method \\[1\\]" in texts
