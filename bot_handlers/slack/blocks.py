"""Slack Block Kit rendering of an :class:`~lcabot.models.Answer` and of notices.

Model and document text is mrkdwn-escaped (``&``, ``<``, ``>``) and goes into text objects with ``verbatim: true``.
So ``<!channel>``, ``<@U123>``, ``<#C1>`` or ``<https://evil|click>`` in a PDF or an answer cannot mention anyone,
create a link or break the layout, and Slack does not turn a plain ``@here`` or ``#general`` into a mention or a
channel link. The only links in a message are the page links built by :func:`link`.

Limits, from the Slack Block Kit reference (docs.slack.dev/reference/block-kit):

* a text object (section text, context element): 3,000 characters (composition objects → text object);
* a message: 50 blocks (blocks reference);
* a button's ``value``: 2,000 characters (block elements → button);
* all the text of a message's blocks: about 12,000 characters. This one is not in the reference: ``chat.postMessage``
  answers ``msg_blocks_too_long`` beyond it (a Slack engineer's "12,000 text characters with a buffer for block
  containers" in slackapi/bolt-js#2509; a rejection reported at 11,341 counted characters in #2867), so the blocks
  keep within :data:`BLOCKS_TEXT_BUDGET`.

The message's top-level ``text`` (notifications, screen readers) is kept to 3,000 characters, well under the 4,000
Slack advises for ``chat.postMessage``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlsplit

from lcabot import messages
from lcabot.models import Answer, Citation

SECTION_TEXT_LIMIT = 3000
MAX_BLOCKS = 50
BUTTON_VALUE_LIMIT = 2000
FALLBACK_TEXT_LIMIT = 3000
BLOCKS_TEXT_BUDGET = 11_000
NOTES_LIMIT = 1_000
QUOTE_LIMIT = 300  # characters of a citation's quote shown, before escaping
NAME_LIMIT = 200  # characters of a title, file name or section shown, before escaping
FEEDBACK_BLOCK_ID = "feedback"
FEEDBACK_UP = "feedback_up"
FEEDBACK_DOWN = "feedback_down"

LinkFor = Callable[[Citation], str | None]

_SOURCES = "*Sources*"
_CONTINUED = "*Sources (continued)*"
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*(?=\s)")
_WHITESPACE = re.compile(r"\s")


def escape(text: str) -> str:
    """``text`` with Slack's three control characters escaped: ``&`` → ``&amp;``, ``<`` → ``&lt;``, ``>`` → ``&gt;``.

    ``<!channel>`` becomes ``&lt;!channel&gt;``, shown as typed and pinging nobody.
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def link(url: str, label: str) -> str:
    """Our own mrkdwn link ``<url|label>``.

    The label is escaped, and ``|`` in it becomes ``¦``, so it can neither end the link early nor add markup; ``&``
    in the URL is written ``&amp;`` (as Slack itself stores it).

    Raises:
        ValueError: ``url`` is not an absolute http(s) URL, or contains ``<``, ``>``, ``|``, whitespace or a control
            character.
    """
    _check_url(url)
    return f"<{url.replace('&', '&amp;')}|{escape(label).replace('|', '¦')}>"


def answer_messages(answer: Answer, *, question: str, link_for: LinkFor | None = None,
                    feedback_value: str = "") -> list[tuple[str, list[dict]]]:
    """The ``(text, blocks)`` of each ``chat.postMessage`` carrying ``answer``: the answer itself, then, when its
    citations do not all fit in one message, as many more as the rest need, so every number the answer cites is
    shown in the thread.

    The first message's blocks, in order: the answer as mrkdwn sections (≤ 3,000 characters each, split at
    paragraph, line, sentence or word boundaries); the notes as one context block; unless the answer abstained, a
    "Sources" section and one section per citation (``[n] *title* (file), section, p. label (PDF p. n)``, then the
    quote, escaped and cut to :data:`QUOTE_LIMIT` characters, as a blockquote), and when not all fit, a context
    block naming the ones that follow ("Sources [46]–[60] follow in the next message"); a context line with the
    retrieval mode and the generator; the feedback actions (block_id ``feedback``; buttons ``feedback_up`` /
    ``feedback_down``, each with ``value=feedback_value`` when it is not empty), always its last block. Each further
    message: "Sources (continued)" and the next citations.

    Every message keeps to :data:`MAX_BLOCKS` blocks and :data:`BLOCKS_TEXT_BUDGET` characters of text: the answer
    text is cut (with "…") to leave room for the rest.

    Args:
        answer: the core's answer.
        question: the question asked. Not repeated in the blocks: the answer is posted in the question's thread.
        link_for: the URL of a citation's page (the caller adds ``#page=<pdf page>``), or ``None`` for no link; a
            URL that :func:`link` refuses is left out and the page label shown unlinked.
        feedback_value: the buttons' ``value`` (what the feedback handler needs to find the answer again).

    Returns:
        ``[(text, blocks), …]``: ``text`` is the escaped answer text cut to 3,000 characters with "…" (for a
        further message, the numbers of the sources it holds).

    Raises:
        ValueError: ``feedback_value`` is longer than Slack's 2,000 characters.
    """
    del question  # accepted for the same call shape as the Teams card, which shows it
    if len(feedback_value) > BUTTON_VALUE_LIMIT:
        raise ValueError(f"feedback_value has {len(feedback_value)} characters; Slack allows {BUTTON_VALUE_LIMIT}")
    tail = [_context(_footer(answer)), _feedback(feedback_value)]
    notes = [_context(_cut("\n".join(escape(n) for n in answer.notes), NOTES_LIMIT))] if answer.notes else []
    if answer.facts and not answer.abstained:
        facts = "\n".join(escape(messages.graph_fact(f)) for f in answer.facts)
        notes.append(_context(_cut(f"Knowledge graph facts used:\n{facts}", NOTES_LIMIT)))
    citations = () if answer.abstained else answer.citations
    reserved = _text_size(tail + notes) + (len(_SOURCES) + len(_follow(citations[-1:] * 2)) if citations else 0)
    answer_text = _cut(escape(answer.text.strip()), BLOCKS_TEXT_BUDGET - reserved) or "…"
    head = [_section(t) for t in _split(answer_text, SECTION_TEXT_LIMIT)] + notes
    texts = [_citation_text(c, link_for) for c in citations]
    shown = _fitting(texts, MAX_BLOCKS - len(head) - len(tail) - 1,
                     BLOCKS_TEXT_BUDGET - _text_size(head + tail) - len(_SOURCES), reserve=len(_follow(citations)))
    sources = [_section(_SOURCES), *(_section(t) for t in texts[:shown])] if citations else []
    if shown < len(citations):
        sources.append(_context(_follow(citations[shown:])))
    fallback = _cut(escape(answer.text.strip()), FALLBACK_TEXT_LIMIT) or "…"
    found = [(fallback, head + sources + tail)]
    while shown < len(citations):
        more = _fitting(texts[shown:], MAX_BLOCKS - 1, BLOCKS_TEXT_BUDGET - len(_CONTINUED)) or 1
        part = citations[shown:shown + more]
        found.append((messages.sources_continued(part[0].number, part[-1].number),
                      [_section(_CONTINUED), *(_section(t) for t in texts[shown:shown + more])]))
        shown += more
    return found


def answer_blocks(answer: Answer, *, question: str, link_for: LinkFor | None = None,
                  feedback_value: str = "") -> tuple[str, list[dict]]:
    """The first of :func:`answer_messages`: the answer with the citations that fit beside it."""
    return answer_messages(answer, question=question, link_for=link_for, feedback_value=feedback_value)[0]


def notice_blocks(text: str) -> tuple[str, list[dict]]:
    """The ``(text, blocks)`` of a notice: ``text`` escaped and cut to :data:`BLOCKS_TEXT_BUDGET` characters, as
    sections of ≤ 3,000 characters, and as the top-level text cut to 3,000 characters."""
    escaped = escape(text.strip()) or "…"
    sections = _split(_cut(escaped, BLOCKS_TEXT_BUDGET), SECTION_TEXT_LIMIT)
    return _cut(escaped, FALLBACK_TEXT_LIMIT), [_section(t) for t in sections]


def _fitting(texts: list[str], blocks_left: int, text_left: int, reserve: int = 0) -> int:
    """How many of ``texts`` (from the first) fit in ``blocks_left`` blocks and ``text_left`` characters, keeping
    ``reserve`` characters (the note naming the ones that follow) when not all fit."""
    if len(texts) > blocks_left or sum(map(len, texts)) > text_left:
        blocks_left, text_left = blocks_left - 1, text_left - reserve
    n = 0
    for text in texts:
        if n == blocks_left or len(text) > text_left:
            break
        n += 1
        text_left -= len(text)
    return n


def _citation_text(c: Citation, link_for: LinkFor | None) -> str:
    page = f"p. {c.page_label}"
    shown_page = escape(page)
    url = link_for(c) if link_for else None
    if url:
        try:
            shown_page = link(url, page)
        except ValueError:
            pass
    if len(shown_page) > SECTION_TEXT_LIMIT // 2:  # an absurdly long URL: show the label rather than cut the quote
        shown_page = escape(page)
    pdf_page = messages.pdf_page_note(c)
    title = _clip(messages.short_title(c.title, c.source), NAME_LIMIT)
    section = f", {escape(_clip(c.section, NAME_LIMIT))}" if c.section and c.section.strip() else ""
    text = f"[{c.number}] *{escape(title)}* ({escape(_clip(c.source, NAME_LIMIT))}){section}, {shown_page}{pdf_page}"
    quote = _clip(" ".join(c.quote.split()), QUOTE_LIMIT)
    if quote:
        text += "\n>" + escape(quote)
    return _cut(text, SECTION_TEXT_LIMIT)


def _footer(answer: Answer) -> str:
    return messages.answer_footer(escape(answer.retrieval_mode), escape(answer.generator), answer.abstained)


def _follow(rest: tuple[Citation, ...]) -> str:
    return messages.sources_follow(rest[0].number, rest[-1].number) if rest else ""


def _text_size(obj: object) -> int:
    """The characters of every ``text`` string in ``obj`` (blocks, elements, text objects)."""
    if isinstance(obj, list):
        return sum(_text_size(o) for o in obj)
    if isinstance(obj, dict):
        return sum(len(v) if k == "text" and isinstance(v, str) else _text_size(v) for k, v in obj.items())
    return 0


def _section(text: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text, "verbatim": True}}


def _context(text: str) -> dict:
    return {"type": "context",
            "elements": [{"type": "mrkdwn", "text": _cut(text, SECTION_TEXT_LIMIT) or "…", "verbatim": True}]}


def _feedback(value: str) -> dict:
    def button(label: str, action_id: str) -> dict:
        element = {"type": "button", "action_id": action_id,
                   "text": {"type": "plain_text", "text": label, "emoji": True}}
        if value:
            element["value"] = value
        return element

    return {"type": "actions", "block_id": FEEDBACK_BLOCK_ID,
            "elements": [button("👍 Helpful", FEEDBACK_UP), button("👎 Not helpful", FEEDBACK_DOWN)]}


def _check_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ValueError(f"not an absolute http(s) URL: {url!r:.100}")
    if any(ch in "<>|" or ch.isspace() or not ch.isprintable() for ch in url):
        raise ValueError(f"URL contains <, >, |, whitespace or a control character: {url!r:.100}")


def _clip(text: str, limit: int) -> str:
    """Plain ``text`` cut to ``limit`` characters at a word boundary, ending with "…" when cut."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    cut = cut if cut > limit // 2 else limit - 1
    return text[:cut].rstrip() + "…"


def _cut(text: str, limit: int) -> str:
    """Escaped ``text`` cut to ``limit`` characters, ending with "…" when cut; never inside ``&amp;``/``&lt;``."""
    if len(text) <= limit:
        return text
    room = limit - 1
    cut = _last(_WHITESPACE, text[: room + 1])
    if cut <= room // 2:
        cut = _hard_cut(text, room)
    return text[:cut].rstrip() + "…"


def _split(text: str, limit: int) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, cut at the last paragraph, line, sentence or word
    boundary in the second half of the window; a token longer than that is cut (never inside an entity)."""
    pieces = []
    text = text.strip()
    while len(text) > limit:
        cut = _boundary(text, limit)
        pieces.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    if text:
        pieces.append(text)
    return pieces


def _boundary(text: str, limit: int) -> int:
    window = text[: limit + 1]
    candidates = (window.rfind("\n\n"), window.rfind("\n"), _last(_SENTENCE_END, window, end=True),
                  _last(_WHITESPACE, window))
    for cut in candidates:
        if cut > limit // 2:
            return cut
    return candidates[-1] if candidates[-1] > 0 else _hard_cut(text, limit)


def _last(pattern: re.Pattern[str], text: str, *, end: bool = False) -> int:
    """Where the last match of ``pattern`` in ``text`` starts (or ends), -1 when none."""
    position = -1
    for match in pattern.finditer(text):
        position = match.end() if end else match.start()
    return position


def _hard_cut(text: str, cut: int) -> int:
    """``cut``, moved back to the ``&`` of an entity (``&amp;``, ``&lt;``, ``&gt;``) it would split."""
    amp = text.rfind("&", max(0, cut - 4), cut)
    return amp if amp > 0 and ";" not in text[amp:cut] else cut
