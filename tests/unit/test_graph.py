"""The graph's precision and robustness rules on small texts: what the offline extractor may state, what resolution
may merge, and that broken artifacts never stop a build or an answer."""

from __future__ import annotations

import json

from lcabot.adapters.local_objects import LocalObjectStore
from lcabot.graph import ontology
from lcabot.graph.build import MERGED_KEY, load, mergeable, rebuild, write_fragment
from lcabot.graph.extract import OfflineExtractor
from lcabot.graph.fragments import fragment_key
from lcabot.graph.query import GraphSource
from lcabot.models import Chunk, DocumentRecord, PageSpan

ONTOLOGY = ontology.load()


def _chunk(text: str, doc_id: str = "d1", section: tuple[str, ...] = ("1 Scope",), ordinal: int = 0) -> Chunk:
    return Chunk(f"{doc_id}-c{ordinal}", doc_id, ordinal, section, 1, 1, "1", "1", "text", text, text,
                 (PageSpan(0, 1),))


def _triples(text: str) -> list[tuple[str, str, str]]:
    return [(t.subject, t.relation, t.object) for t in OfflineExtractor(ONTOLOGY).extract([_chunk(text)]).triples]


def test_offline_relations_need_neighbours_a_cue_and_no_negation():
    assert _triples("Carbon dioxide does not contribute to ozone depletion in any of the scenarios.") == []
    assert _triples("Methane contributes to climate change in all scenarios of the study.") == [
        ("methane", "contributes_to", "climate change")]
    # a listed object each gets the relation; a concept between two others blocks a link across it
    assert _triples("The EF method covers climate change, acidification and eutrophication.") == [
        ("EF method", "covers", "climate change"), ("EF method", "covers", "acidification"),
        ("EF method", "covers", "eutrophication")]
    assert _triples("Co and CO are different metals and gases; CO is emitted by incineration of waste.") == [
        ("carbon monoxide", "emitted_by", "incineration")]


def test_split_subscripts_are_carbon_dioxide_never_carbon_monoxide():
    found = [(m.surface, m.name) for m in ONTOLOGY.mentions(ontology.normalise("10 million tonnes of CO 2 and CO₂"))]
    assert found == [("CO 2", "carbon dioxide"), ("CO2", "carbon dioxide")]


def test_opposites_never_merge_by_similarity():
    assert not mergeable("upstream emissions", "downstream emissions", ONTOLOGY)
    assert not mergeable("inbound transport", "outbound transport", ONTOLOGY)
    assert mergeable("coffee roasting", "roasting of coffee", ONTOLOGY)


def _record(doc_id: str) -> DocumentRecord:
    return DocumentRecord(doc_id, f"{doc_id}.pdf", f"library/general/{doc_id}.pdf", f"Study {doc_id}", "general", 1, 1,
                          ())


def test_a_corrupt_fragment_does_not_keep_other_documents_out(tmp_path):
    store = LocalObjectStore(tmp_path)
    write_fragment(store, _record("d1"), [_chunk("Methane contributes to climate change in the study.")],
                   OfflineExtractor(ONTOLOGY), ONTOLOGY)
    for n, bad in enumerate((b"[]", b"\xff\xfe", json.dumps({"format": "x", "doc_id": "d9", "title": "t"}).encode())):
        store.put(f"graph/fragments/bad{n}.json", bad)
    rebuild(store, ONTOLOGY, None)
    graph = load(store)
    assert graph.graph["documents"] == {"d1": "Study d1"}
    assert graph.edges["substance:methane", "impact_category:climate change", "contributes_to"]["weight"] == 1
    assert fragment_key("library/general/d1.pdf") in graph.graph["built_from"]


def test_a_malformed_artifact_is_no_graph_not_an_error(tmp_path):
    store = LocalObjectStore(tmp_path)
    write_fragment(store, _record("d1"), [_chunk("Methane contributes to climate change in the study.")],
                   OfflineExtractor(ONTOLOGY), ONTOLOGY)
    rebuild(store, ONTOLOGY, None)
    artifact = json.loads(store.get(MERGED_KEY))
    del artifact["nodes"][0]["type"]
    store.put(MERGED_KEY, json.dumps(artifact).encode())

    class NoEmbedder:
        dimension = 3

        def embed(self, texts, *, progress=False):
            raise AssertionError("a malformed graph is never embedded")

    assert GraphSource(store, ONTOLOGY, NoEmbedder()).current() is None


def test_a_document_title_is_not_where_its_concepts_are_defined(tmp_path):
    record = _record("d2")
    chunks = [_chunk("Sensitivity analysis is applied to every parameter of the model.", "d2", ("Study d2",)),
              _chunk("Sensitivity analysis ranks the parameters by their variance share.", "d2",
                     ("Study d2", "2 Sensitivity analysis"), ordinal=1)]
    fragment = write_fragment(LocalObjectStore(tmp_path), record, chunks, OfflineExtractor(ONTOLOGY), ONTOLOGY)
    defined = [e["target"] for e in fragment["edges"] if e["relation"] == "defined_in"]
    assert defined == ["section:d2:Study d2 > 2 Sensitivity analysis"]
