"""Adaptive Card rendering of an :class:`~lcabot.models.Answer` for Microsoft Teams.

Cards use schema version 1.5, the highest Teams renders. A TextBlock's text is a CommonMark subset (bold, italic,
lists, ``[title](url)`` links; Adaptive Cards docs → "Text features"), so model and document text goes through
:func:`escape_markdown`: ``[click](https://evil)`` in a PDF is shown as typed and is not a link. The only links on
a card are the page links built by :func:`markdown_link`.

Size: Teams refuses a bot message over about 28 KB (Teams platform docs, bot message limits), counted in UTF-16
(two bytes a character: an ASCII card of 22,000 characters is 44,000 bytes) of the JSON the SDK sends, where every
non-ASCII character is a ``\\uXXXX`` escape. A card is kept within :data:`CARD_BYTES_LIMIT` such bytes (``", "``
separators, an upper bound of what an SDK sends), which leaves room for the activity around it; citations that do
not fit follow in further cards.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from urllib.parse import urlsplit

from lcabot import messages
from lcabot.models import Answer, Citation

SCHEMA = "http://adaptivecards.io/schemas/adaptive-card.json"
VERSION = "1.5"
CONTENT_TYPE = "application/vnd.microsoft.card.adaptive"
CARD_BYTES_LIMIT = 24_000  # UTF-16 bytes of a card's JSON; the activity around it stays under Teams' 28 KB
QUOTE_LIMIT = 300  # characters of a citation's quote shown, before escaping
NAME_LIMIT = 200  # characters of a title, file name or section shown, before escaping
QUESTION_LIMIT = 300
ANSWER_LIMIT = 10_000

LinkFor = Callable[[Citation], str | None]

_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]()<>~#{}])")
_LIST_MARKER = re.compile(r"^(\s*)(\d+\.|[-+])(?=\s)", re.MULTILINE)


def escape_markdown(text: str) -> str:
    """``text`` with the Markdown that TextBlocks interpret backslash-escaped (CommonMark backslash escapes).

    Escapes ``\\ ` * _ [ ] ( ) < > ~ # { }`` everywhere, and a list marker (``-``, ``+``, ``1.``, ``1)``) at the
    start of a line: no emphasis, link, autolink, list or ``{{DATE(…)}}`` function can come from ``text``.
    """
    text = _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)
    return _LIST_MARKER.sub(lambda m: f"{m[1]}{m[2][:-1]}\\{m[2][-1]}", text)


def markdown_link(url: str, label: str) -> str:
    """Our own Markdown link ``[label](url)``, the label escaped with :func:`escape_markdown`.

    Raises:
        ValueError: ``url`` is not an absolute http(s) URL, or contains ``<``, ``>``, ``(``, ``)``, whitespace or
            a control character (any of which could end the link early).
    """
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ValueError(f"not an absolute http(s) URL: {url!r:.100}")
    if any(ch in "<>()" or ch.isspace() or not ch.isprintable() for ch in url):
        raise ValueError(f"URL contains <, >, (, ), whitespace or a control character: {url!r:.100}")
    return f"[{escape_markdown(label)}]({url})"


def answer_cards(answer: Answer, *, question: str, link_for: LinkFor | None = None,
                 feedback_data: dict | None = None) -> list[dict]:
    """The Adaptive Cards (JSON-ready dicts) showing ``answer``: the answer, then, when its citations do not all fit
    in one card of :data:`CARD_BYTES_LIMIT`, as many more cards as the rest need, so every number the answer cites
    is shown.

    The first card's body, in order: the question (small, subtle); the answer, one wrapping TextBlock per line (cut
    to :data:`ANSWER_LIMIT` characters; warning colour when the answer abstained); the notes; unless the answer
    abstained, "Sources" and per citation a Container with ``[n] **title** (file), section, p. label (PDF p. n)``
    and the quote (cut to :data:`QUOTE_LIMIT` characters) in a subtle italic TextBlock, and when not all fit, a line
    naming the ones that follow ("Sources [12]–[60] follow in the next message"); the retrieval mode and the
    generator. Actions: two ``Action.Submit`` (👍 / 👎) whose ``data`` is ``{**feedback_data, "feedback": "up"}`` or
    ``"down"``; Teams delivers it as the ``value`` of a message activity without text. Each further card: "Sources
    (continued)" and the next citations.

    Args:
        answer: the core's answer.
        question: the question asked (shown at the top: answers arrive asynchronously, and a personal chat has
            no threads).
        link_for: the URL of a citation's page (the caller adds ``#page=<pdf page>``), or ``None`` for no link; a
            URL that :func:`markdown_link` refuses is left out and the page label shown unlinked.
        feedback_data: JSON-serialisable fields the feedback handler needs (e.g. a conversation id and an answer
            key); ``"feedback"`` is ours.

    Raises:
        TypeError: ``feedback_data`` is not JSON-serialisable.
    """
    actions = [_submit("👍 Helpful", feedback_data, "up"), _submit("👎 Not helpful", feedback_data, "down")]
    footer = _text(_footer(answer), isSubtle=True, size="Small", separator=True)
    limit = ANSWER_LIMIT
    head = _head(answer, question, limit)
    citations = () if answer.abstained else answer.citations
    containers = [_citation(c, link_for) for c in citations]
    sources = [_text("Sources", weight="Bolder", separator=True)] if citations else []
    follow = [_text(_follow(citations[-1:] * 2), isSubtle=True)] if citations else []
    while _size(_card([*head, *sources, *follow, footer], actions)) > CARD_BYTES_LIMIT // 2 and limit > 500:
        limit //= 2  # only an answer of many thousand escaped characters gets here
        head = _head(answer, question, limit)
    shown = _fitting(containers, CARD_BYTES_LIMIT - _size(_card([*head, *sources, *follow, footer], actions)))
    sources += containers[:shown]
    if shown < len(citations):
        sources.append(_text(_follow(citations[shown:]), isSubtle=True))
    cards = [_card([*head, *sources, footer], actions)]
    continued = _text("Sources (continued)", weight="Bolder")
    while shown < len(citations):
        more = _fitting(containers[shown:], CARD_BYTES_LIMIT - _size(_card([continued], []))) or 1
        cards.append(_card([continued, *containers[shown:shown + more]], []))
        shown += more
    return cards


def answer_card(answer: Answer, *, question: str, link_for: LinkFor | None = None,
                feedback_data: dict | None = None) -> dict:
    """The first of :func:`answer_cards`: the answer with the citations that fit beside it."""
    return answer_cards(answer, question=question, link_for=link_for, feedback_data=feedback_data)[0]


def _fitting(containers: list[dict], budget: int) -> int:
    """How many of ``containers`` (from the first) fit in ``budget`` UTF-16 bytes of a card's body."""
    n = 0
    for container in containers:
        budget -= _size(container) + 2 * len(", ")
        if budget < 0:
            break
        n += 1
    return n


def _follow(rest: tuple[Citation, ...]) -> str:
    return messages.sources_follow(rest[0].number, rest[-1].number) if rest else ""


def notice_card(text: str) -> dict:
    """A card without actions showing ``text``: escaped, cut to :data:`ANSWER_LIMIT` characters, a TextBlock a line."""
    return _card(_paragraphs(_clip(text, ANSWER_LIMIT)), [])


def attachment(card: dict) -> dict:
    """The Bot Framework attachment carrying ``card``: ``{"contentType": …adaptive, "content": card}``."""
    return {"contentType": CONTENT_TYPE, "content": card}


def _head(answer: Answer, question: str, limit: int) -> list[dict]:
    blocks = []
    if question.strip():
        asked = _clip(" ".join(question.split()), QUESTION_LIMIT)
        blocks.append(_text(f"Q: {escape_markdown(asked)}", isSubtle=True, size="Small"))
    blocks += _paragraphs(_clip(answer.text, limit), **({"color": "Warning"} if answer.abstained else {}))
    blocks += [_text(f"Note: {escape_markdown(n)}", isSubtle=True, size="Small") for n in answer.notes]
    if answer.facts and not answer.abstained:
        blocks.append(_text("Knowledge graph facts used", weight="Bolder", size="Small"))
        blocks += [_text(escape_markdown(messages.graph_fact(f)), isSubtle=True, size="Small") for f in answer.facts]
    return blocks


def _citation(c: Citation, link_for: LinkFor | None) -> dict:
    page = f"p. {c.page_label}"
    shown_page = escape_markdown(page)
    url = link_for(c) if link_for else None
    if url:
        try:
            shown_page = markdown_link(url, page)
        except ValueError:
            pass
    pdf_page = messages.pdf_page_note(c)
    title = escape_markdown(_clip(messages.short_title(c.title, c.source), NAME_LIMIT))
    section = f", {escape_markdown(_clip(c.section, NAME_LIMIT))}" if c.section and c.section.strip() else ""
    line = (f"{escape_markdown(f'[{c.number}]')} **{title}** ({escape_markdown(_clip(c.source, NAME_LIMIT))})"
            f"{section}, {shown_page}{pdf_page}")
    items = [_text(line)]
    quote = _clip(" ".join(c.quote.split()), QUOTE_LIMIT)
    if quote:
        items.append(_text(f"_“{escape_markdown(quote)}”_", isSubtle=True, spacing="None"))
    return {"type": "Container", "spacing": "Small", "items": items}


def _footer(answer: Answer) -> str:
    return messages.answer_footer(escape_markdown(answer.retrieval_mode), escape_markdown(answer.generator),
                                  answer.abstained)


def _submit(title: str, feedback_data: dict | None, feedback: str) -> dict:
    return {"type": "Action.Submit", "title": title, "data": {**(feedback_data or {}), "feedback": feedback}}


def _card(body: list[dict], actions: list[dict]) -> dict:
    card = {"type": "AdaptiveCard", "$schema": SCHEMA, "version": VERSION, "msteams": {"width": "Full"},
            "body": body}
    if actions:
        card["actions"] = actions
    return card


def _text(text: str, **style: object) -> dict:
    return {"type": "TextBlock", "text": text, "wrap": True, **style}


def _size(obj: object) -> int:
    """UTF-16 bytes of ``obj`` as JSON, as the Bot Framework SDK sends it (``ensure_ascii``: a CJK character goes
    out as ``\\uXXXX``, an emoji as two of them) and as Teams counts it against its message limit."""
    return 2 * len(json.dumps(obj))


def _paragraphs(text: str, **style: object) -> list[dict]:
    """One escaped TextBlock per line of ``text`` (a single newline is no line break in Markdown); a line after a
    blank line starts a paragraph (medium spacing)."""
    blocks = []
    for n, paragraph in enumerate(re.split(r"\n\s*\n", text.strip())):
        lines = [line.strip() for line in paragraph.splitlines() if line.strip()]
        blocks += [_text(escape_markdown(line), **style, **({"spacing": "Medium"} if n and not i else {}))
                   for i, line in enumerate(lines)]
    return blocks or [_text("…", **style)]


def _clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters at a word boundary, ending with "…" when cut."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    cut = cut if cut > limit // 2 else limit - 1
    return text[:cut].rstrip() + "…"
