"""Retrieval quality on the dev set (shared/eval/dev_questions.jsonl)."""

from __future__ import annotations

from lcabot.evaluation import evaluate_retrieval, load_questions
from tests.conftest import DEV_QUESTIONS


def test_dev_set_recall_at_5_and_abstention(answerer):
    report = evaluate_retrieval(load_questions(DEV_QUESTIONS), answerer, k=5)
    summary = report.summary()
    print("dev-set retrieval:", summary, "missed:", report.missed, "false abstentions:", report.false_abstentions)
    assert summary["n"] == 41
    assert summary["recall_at_5"] >= 0.80
    assert summary["abstention_accuracy"] == 1.0
