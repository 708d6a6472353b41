"""Retrieval quality on the dev set (shared/eval/dev_questions.jsonl)."""

from __future__ import annotations

from lcabot.evaluation.retrieval import evaluate_retrieval, load_questions
from tests.conftest import DEV_QUESTIONS, ROOT


def test_dev_set_recall_at_5_and_abstention(answerer):
    report = evaluate_retrieval(load_questions(DEV_QUESTIONS), answerer, k=5)
    summary = report.summary()
    print("dev-set retrieval:", summary, "missed:", report.missed, "false abstentions:", report.false_abstentions)
    assert summary["n"] == 41
    assert summary["recall_at_5"] >= 0.80
    assert summary["abstention_accuracy"] == 1.0


def test_multi_hop_set_rag_graph_finds_the_connected_passage_rag_misses(answerer):
    """eval/multihop.jsonl: questions needing two connected passages. M001 asks how compost is handled in the
    Circular Footprint Formula (7.18.20, p. 125) and what its A value stands for (7.18.3 The A factor, p. 114):
    passages alone miss the A-factor section; the graph links "A factor" to it."""
    rows = load_questions(ROOT / "eval" / "multihop.jsonl")
    rag = evaluate_retrieval(rows, answerer, k=5, mode="rag")
    graph = evaluate_retrieval(rows, answerer, k=5, mode="rag+graph")
    print("multi-hop rag:", rag.summary(), "rag+graph:", graph.summary())
    assert rag.summary()["n"] == graph.summary()["n"] == 10
    assert "M001" in rag.missed and "M001" not in graph.missed
    assert set(graph.missed) <= set(rag.missed)
    assert graph.recall(5) >= 0.5 and graph.recall(10) >= rag.recall(10)
