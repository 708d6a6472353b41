"""What a chat id must be to become part of a DynamoDB key (the conversations table's claims, threads and counters),
the same check on Slack and Teams."""

from __future__ import annotations


def storable(text: str, max_chars: int) -> bool:
    """Whether ``text`` is at most ``max_chars`` long and valid Unicode (no lone surrogate, which JSON can carry and
    DynamoDB cannot store)."""
    if len(text) > max_chars:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
