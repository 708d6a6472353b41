"""Shared fixtures. The corpus lives beside the checkout in ../shared (never copied into the project)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
DEV_QUESTIONS = SHARED / "eval" / "dev_questions.jsonl"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if CORPUS.is_dir():
        return
    skip = pytest.mark.skip(reason=f"corpus not found at {CORPUS}")
    for item in items:
        if "corpus" in item.keywords:
            item.add_marker(skip)
