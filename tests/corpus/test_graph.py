"""The knowledge graph on the real corpus: extraction, resolution, the artifact, and graph facts in answers."""

from __future__ import annotations

import threading
import time

import pytest

from lcabot import messages, wiring
from lcabot.adapters.local_objects import LocalObjectStore
from lcabot.config import Settings
from lcabot.graph import ontology
from lcabot.graph.build import MERGED_KEY, load, loads, mergeable, rebuild, resolve, write_fragment
from lcabot.graph.extract import OfflineExtractor
from lcabot.graph.fragments import fragment_key
from lcabot.graph.ontology import normalise

PEFCR = "ec-pefcr-guidance-v6.3.pdf"
COFFEE = "nab-maslin-2020-coffee-carbon-footprint.pdf"
MORETTI = "moretti-2020-uco-polypropylene-lca.pdf"


def _section(graph, concept: str, heading: str) -> tuple[str, dict]:
    edges = [(t, d) for _s, t, d in graph.out_edges(concept, data=True)
             if d["relation"] == "defined_in" and graph.nodes[t]["name"] == heading]
    assert len(edges) == 1, [graph.nodes[t]["name"] for _s, t in graph.out_edges(concept)]
    return edges[0]


def test_circular_footprint_formula_and_dqr_are_linked_to_their_pefcr_sections(corpus_graph, sources):
    doc = sources[PEFCR]
    section, edge = _section(corpus_graph, "methodological_concept:Circular Footprint Formula",
                             "7.18.1 The Circular Footprint Formula")
    assert section == f"section:{doc}:7 Technical specifications > 7.18 End-of-Life modelling > " \
                      "7.18.1 The Circular Footprint Formula"
    assert {c["page"] for c in edge["citations"]} == {112}
    assert "Equation 18 – The Circular Footprint Formula (CFF)" in [c["quote"] for c in edge["citations"]]
    # the section sits in its chapter, in the guidance
    parents = [t for _s, t, d in corpus_graph.out_edges(section, data=True) if d["relation"] == "part_of"]
    assert parents == [f"section:{doc}:7 Technical specifications > 7.18 End-of-Life modelling"]

    section, edge = _section(corpus_graph, "indicator:Data Quality Rating", "7.19.2 DQR formula")
    assert section.endswith("7.19 Data requirements and quality requirements > 7.19.2 DQR formula")
    assert min(c["page"] for c in edge["citations"]) == 130
    assert all(c["doc_id"] == doc and ("DQR" in c["quote"] or "Data Quality Rating" in c["quote"])
               for c in edge["citations"])
    # a relation from the text, with its sentence: quality ratios are used in the CFF (section 7.18.6, p. 116)
    cff = "methodological_concept:Circular Footprint Formula"
    used = corpus_graph.edges["methodological_concept:quality ratio", cff, "used_in"]
    assert used["citations"][0]["page"] == 116
    assert used["citations"][0]["quote"].startswith("Two quality ratios are used in the CFF")


def test_aliases_merge_and_co_co_co2_stay_apart(corpus_graph, sources):
    onto = ontology.load()
    found = {(m.surface, m.name) for m in onto.mentions(normalise(
        "CO₂, CO2 and carbon dioxide; CO from combustion; cobalt (Co) in batteries; Co-products; GWP is the global "
        "warming potential; LCIA; EoL and end-of-life; A1–A3 is the product stage."))}
    assert found == {("CO2", "carbon dioxide"), ("carbon dioxide", "carbon dioxide"), ("CO", "carbon monoxide"),
                     ("cobalt", "cobalt"), ("Co", "cobalt"), ("GWP", "climate change"), ("combustion", "combustion"),
                     ("global warming potential", "climate change"), ("LCIA", "life cycle impact assessment"),
                     ("EoL", "end of life"), ("end-of-life", "end of life"), ("A1-A3", "product stage"),
                     ("product stage", "product stage")}
    # in the corpus graph: one carbon dioxide node written as CO2 and CO₂, carbon monoxide its own node
    co2 = corpus_graph.nodes["substance:carbon dioxide"]
    assert "CO2" in co2["aliases"]
    co = corpus_graph.nodes["substance:carbon monoxide"]
    assert any("carbon monoxide" in c["quote"].lower() or "CO " in c["quote"] for c in co["citations"])
    assert not any(d["name"] in ("CO2", "CO₂", "CO") for _n, d in corpus_graph.nodes(data=True))
    # GWP is climate change; in the guidance it is written as "climate change" and "GWP"
    assert {"GWP"} <= set(corpus_graph.nodes["impact_category:climate change"]["aliases"])


def test_resolution_by_alias_name_form_embedding_and_type(embedder):
    onto = ontology.load()
    raw = {f"{kind}:{name}": {"type": kind, "name": name, "mentions": n} for kind, name, n in [
        ("substance", "CO₂", 3), ("substance", "Carbon dioxide", 1), ("substance", "CO", 2), ("substance", "Co", 1),
        ("process", "particulate matter", 1),  # an LLM's type; the ontology says impact category
        ("process", "coffee roasting", 3), ("product_system", "Coffee roasting", 1),
        ("process", "roasting of coffee", 1),
        ("methodological_concept", "life-cycle costing", 2), ("methodological_concept", "life cycle costing", 1),
        ("standard", "ISO 14040", 1), ("standard", "ISO 14044", 1), ("standard", "ISO 9001", 1),
        ("standard", "ISO 9002", 1),
    ]}
    mapping, res = resolve(raw, onto, embedder)
    assert mapping["substance:CO₂"] == mapping["substance:Carbon dioxide"] == "substance:carbon dioxide"
    assert mapping["substance:CO"] == "substance:carbon monoxide" and mapping["substance:Co"] == "substance:cobalt"
    assert mapping["process:particulate matter"] == "impact_category:particulate matter"
    # the same name with two types: one node, of the type named most often, holding both
    assert mapping["process:coffee roasting"] == mapping["product_system:Coffee roasting"] == "process:coffee roasting"
    assert ("coffee roasting", ("process", "product_system"), "process") in res.types
    # similar names merge (cosine 0.95), guarded ones do not: ISO 9001 / ISO 9002 differ in their number
    assert mapping["process:roasting of coffee"] == "process:coffee roasting"
    assert mapping["methodological_concept:life-cycle costing"] == mapping["methodological_concept:life cycle costing"]
    assert mapping["standard:ISO 9001"] != mapping["standard:ISO 9002"]
    assert mapping["standard:ISO 14040"] != mapping["standard:ISO 14044"]
    assert ("roasting of coffee", "coffee roasting") in res.embedding
    assert not mergeable("ISO 14040", "ISO 14044", onto) and not mergeable("CO", "Co", onto)


def _fragments(ingested, names):
    onto = ontology.load()
    extractor = OfflineExtractor(onto)
    return [(ingested[n].record, ingested[n].chunks, extractor, onto) for n in names]


class SlowStore(LocalObjectStore):
    """Widens the window between listing fragments and writing the merged graph, as a slow S3 would."""

    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        if key == MERGED_KEY:
            time.sleep(0.3)
        super().put(key, data, content_type)


def test_concurrent_ingests_lose_no_fragment(ingested, tmp_path, sources):
    store = SlowStore(tmp_path / "artifacts")
    onto = ontology.load()
    names = [COFFEE, MORETTI, "burchart-2023-hydrogen-coal-gasification-lca.pdf", "cordis-chic-256848-objective.pdf"]
    errors = []

    def ingest(record, chunks, extractor, onto):
        try:
            write_fragment(store, record, chunks, extractor, onto)
            rebuild(store, onto, None)
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=ingest, args=args) for args in _fragments(ingested, names)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    merged = load(store)
    assert sorted(merged.graph["documents"]) == sorted(sources[n] for n in names)
    assert sorted(merged.graph["built_from"]) == sorted(fragment_key(ingested[n].record.source_key) for n in names)
    # deterministic: rebuilding from the same fragments gives the same bytes
    before = store.get(MERGED_KEY)
    rebuild(store, onto, None)
    assert store.get(MERGED_KEY) == before

    # removing a document removes its contributions (and nothing else)
    store.delete(fragment_key(ingested[COFFEE].record.source_key))
    rebuild(store, onto, None)
    merged = load(store)
    assert sources[COFFEE] not in merged.graph["documents"]
    assert "product_system:green coffee" not in merged
    assert not any(c["doc_id"] == sources[COFFEE] for _s, _t, d in merged.edges(data=True) for c in d["citations"])
    assert "product_system:polypropylene" in merged


def test_an_interrupted_graph_build_resumes(ingested, tmp_path, embedder, monkeypatch):
    """``lcabot graph build`` stopped after one document picks up at the next; the result equals an
    uninterrupted build."""
    from lcabot.cli import graph as graphcli
    from lcabot.graph import sync

    names = [COFFEE, MORETTI]
    index = wiring.build_index(Settings(home=tmp_path / "full"))
    library = ingested["__index__"]
    for n in names:  # the two documents as the corpus index holds them (their vectors too: none is embedded again)
        result = ingested[n]
        index.upsert_document(result.record, result.chunks, library.vectors([c.chunk_id for c in result.chunks]),
                              [library.page_text(result.record.doc_id, p) or ""
                               for p in range(1, result.record.n_pages + 1)])
    full = Settings(home=tmp_path / "full")
    assert graphcli.sync(wiring.build(full, embedder=embedder, index=index), lambda _t: None)["extracted"] == 2

    stopped = Settings(home=tmp_path / "stopped")
    real_write = sync.write_fragment
    calls = []

    def crash_on_second(*args, **kwargs):
        calls.append(args[1].source)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_write(*args, **kwargs)

    monkeypatch.setattr(sync, "write_fragment", crash_on_second)
    with pytest.raises(KeyboardInterrupt):
        graphcli.sync(wiring.build(stopped, embedder=embedder, index=index), lambda _t: None)
    monkeypatch.setattr(sync, "write_fragment", real_write)
    again = graphcli.sync(wiring.build(stopped, embedder=embedder, index=index), lambda _t: None)
    assert again["extracted"] == 1  # only the document the stop interrupted
    full_store, stopped_store = wiring.build_artifacts(full), wiring.build_artifacts(stopped)
    assert stopped_store.get(MERGED_KEY) == full_store.get(MERGED_KEY)
    assert len(loads(full_store.get(MERGED_KEY)).graph["documents"]) == 2


def test_rag_graph_answer_shows_verified_facts_with_citations(answerer):
    question = "Where is the Circular Footprint Formula defined and what is it used for?"
    answer = answerer.ask(question, mode="rag+graph")
    assert answer.retrieval_mode == "rag+graph" and not answer.abstained
    fact = next(f for f in answer.facts if f.relation == "defined_in"
                and f.object == "7.18.1 The Circular Footprint Formula")
    assert fact.subject == "Circular Footprint Formula" and fact.citations
    cited = [answer.citations[n - 1] for n in fact.citations]
    assert {(c.source, c.page_label) for c in cited} == {(PEFCR, "112")}
    assert all(c.section == "7.18.1 The Circular Footprint Formula" for c in cited)
    plain = answerer.ask(question, mode="rag")
    assert plain.retrieval_mode == "rag" and plain.facts == ()


def test_without_a_graph_answers_fall_back_to_passages(settings, corpus_index, embedder, tmp_path):
    empty = LocalObjectStore(tmp_path / "no-graph")
    answerer = wiring.build_answerer(settings, index=corpus_index, embedder=embedder, artifacts=empty)
    question = "What cut-off threshold does the PEFCR guidance allow?"
    asked = answerer.ask(question, mode="rag+graph")
    assert asked.retrieval_mode == "rag" and not asked.abstained and asked.facts == ()
    assert messages.graph_unavailable() in asked.notes
    assert any(c.source == PEFCR and c.page_label == "61" for c in asked.citations)
    default = answerer.ask(question)  # the default mode (rag+graph) falls back without a note
    assert default.retrieval_mode == "rag" and messages.graph_unavailable() not in default.notes
    # an unreadable artifact is no graph either
    empty.put(MERGED_KEY, b"{not json")
    broken = wiring.build_answerer(settings, index=corpus_index, embedder=embedder, artifacts=empty)
    assert broken.ask(question, mode="rag+graph").retrieval_mode == "rag"
