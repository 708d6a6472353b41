"""What a chat message asks for, the same on Slack and Teams: a question (with an optional ``--rag``/``--graph``
retrieval mode), a report on an attached PDF (``report``), adding an attached PDF to the library
(``index [perspective]``), or help.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lcabot.config import PERSPECTIVES

_MENTION = re.compile(r"<@[UWB][A-Z0-9]+(?:\|[^>]*)?>|<at>[^<]*</at>")
_MODE_FLAG = re.compile(r"(?<!\S)--(rag|graph)(?!\S)", re.I)
MODE_WORDS = {"rag": "rag", "graph": "rag+graph", "rag+graph": "rag+graph"}  # /lca-mode and "mode …" arguments
_PERSPECTIVE_ALIASES = {"eu": "eu_funding", "eu-funding": "eu_funding", "eu_funding": "eu_funding"}


@dataclass(frozen=True)
class Intent:
    """``kind`` is ``question``, ``report``, ``index`` or ``help``; ``mode`` is ``rag``/``rag+graph`` when the
    message chose one; ``perspective`` is the library perspective for ``index``."""

    kind: str
    text: str = ""
    mode: str | None = None
    perspective: str = "general"


def strip_mentions(text: str) -> str:
    """The text without Slack (``<@U…>``) and Teams (``<at>…</at>``) mentions, whitespace collapsed."""
    return " ".join(_MENTION.sub(" ", text or "").split())


def parse_intent(text: str, *, library_channel: bool = False, has_file: bool = False) -> Intent:
    """Read a message. With a file attached, ``report`` and ``index`` (the first word) choose what to do; in a
    library channel a file is indexed unless ``report`` is asked. Without words or a file it is ``help``."""
    words_text = strip_mentions(text)
    mode = None
    for match in _MODE_FLAG.finditer(words_text):
        mode = "rag+graph" if match.group(1).lower() == "graph" else "rag"
    words_text = " ".join(_MODE_FLAG.sub(" ", words_text).split())
    words = words_text.split()
    first = words[0].lower().strip(":,.") if words else ""
    if first == "report":
        return Intent("report", words_text)
    if first == "index" or (library_channel and has_file):
        rest = words[1].lower().strip(":,.") if first == "index" and len(words) > 1 else ""
        perspective = _PERSPECTIVE_ALIASES.get(rest, rest if rest in PERSPECTIVES else "general")
        return Intent("index", words_text, perspective=perspective)
    if not words or first == "help":
        return Intent("help", words_text)
    return Intent("question", words_text, mode=mode)
