"""What the three language-model call sites (answers, graph relations, report fields) share: the escaped data
block their prompts carry, and "the model, else the offline way, with a note"."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

from lcabot import messages
from lcabot.errors import GenerationError, IncompleteGenerationError

T = TypeVar("T")
_BLOCK_TAG = re.compile(r"<(?=\s*/?\s*evidence)", re.I)  # document text must not open or close the evidence block


def evidence_line(item: dict[str, Any]) -> str:
    """One evidence object as a JSON line for the ``<evidence>`` block; ``<`` before ``evidence`` is escaped so
    document text can never open or close the block."""
    return _BLOCK_TAG.sub(r"\\u003c", json.dumps(item, ensure_ascii=False))


def model_else(model: Callable[[], T], fallback: Callable[[], T]) -> tuple[T, str | None]:
    """``(model(), None)``; when the model fails, ``(fallback(), note)`` with the note for the user
    (:func:`lcabot.messages.llm_incomplete` for a reply cut at ``max_tokens``, else
    :func:`lcabot.messages.llm_failed` with the error). Errors other than :class:`GenerationError` propagate."""
    try:
        return model(), None
    except IncompleteGenerationError:
        note = messages.llm_incomplete()
    except GenerationError as err:
        note = messages.llm_failed(str(err))
    return fallback(), note
