"""A document's contribution to the LCA knowledge graph (its *fragment*), as stable JSON.

A fragment holds:

* the document's structure: one ``document`` node, one ``section`` node per heading on its section paths, linked
  by ``part_of`` edges, each with the pages where the section's text lies;
* the ontology concepts the document names (node id ``<type>:<name>``, with how often and where), the relations
  extracted between them, and ``defined_in`` edges from a concept to each section whose heading names it and
  whose text mentions it (``Circular Footprint Formula`` —defined_in→ ``7.18.1 The Circular Footprint Formula``),
  for the concept types the ontology's ``defined_in`` allows.

Every concept node and edge carries citations ``{"doc_id", "page", "page_label", "section", "quote",
"chunk_id"}``: the quotable unit that states it. Fragments live in the artifacts store under :func:`fragment_key`,
one per library object key, so a new version of an object overwrites its fragment and a removal deletes it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from lcabot.graph.extract import Extraction, Sighting
from lcabot.graph.ontology import Ontology, normalise
from lcabot.models import Chunk, DocumentRecord

FORMAT = "lcabot-graph-fragment/2"
FRAGMENT_PREFIX = "graph/fragments/"
MAX_CITATIONS = 3  # per node and per edge in one fragment


def fragment_key(source_key: str) -> str:
    """The artifacts key of the fragment for library object ``source_key``: ``graph/fragments/<sha256[:24]>.json``."""
    return f"{FRAGMENT_PREFIX}{hashlib.sha256(source_key.encode()).hexdigest()[:24]}.json"


def concept_id(kind: str, name: str) -> str:
    return f"{kind}:{name}"


def document_fragment(record: DocumentRecord, chunks: Sequence[Chunk], extraction: Extraction,
                      ontology: Ontology) -> dict[str, Any]:
    """The fragment of one document.

    Args:
        record: the indexed document; chunks: all its chunks, in order.
        extraction: what an extractor found in ``chunks`` (:mod:`lcabot.graph.extract`).
        ontology: for the concepts named in section headings.

    Returns:
        ``{"format", "doc_id", "source_key", "title", "perspective", "extraction", "nodes", "edges"}``. Structural
        nodes are ``document:<doc_id>`` and ``section:<doc_id>:<heading path joined by " > ">`` with ``citations``
        listing each PDF page once; concept nodes add ``mentions`` and the
        ``aliases`` they were written as; edges are ``{"source", "target", "relation",
        "weight", "citations"}`` with ``weight`` the number of distinct statements.
    """
    doc_node = f"document:{record.doc_id}"
    by_chunk = {c.chunk_id: c for c in chunks}
    pages: dict[str, set[int]] = {}
    parents: dict[str, str] = {}
    names: dict[str, str] = {}
    for chunk in chunks:
        parent = doc_node
        for depth in range(len(chunk.section_path)):
            section = _section_id(record.doc_id, chunk.section_path[: depth + 1])
            names[section] = chunk.section_path[depth]
            parents[section] = parent
            pages.setdefault(section, set()).update(s.page for s in chunk.page_spans)
            parent = section

    def cite_pages(node: str) -> list[dict[str, Any]]:
        return [{"doc_id": record.doc_id, "page": p, "page_label": record.label(p)} for p in sorted(pages[node])]

    def cite(chunk_id: str, page: int, quote: str) -> dict[str, Any]:
        path = by_chunk[chunk_id].section_path if chunk_id in by_chunk else ()
        return {"doc_id": record.doc_id, "page": page, "page_label": record.label(page),
                "section": path[-1] if path else None, "quote": quote, "chunk_id": chunk_id}

    nodes: list[dict[str, Any]] = [{"id": doc_node, "type": "document", "name": record.title, "citations": []}]
    nodes += [{"id": n, "type": "section", "name": names[n], "citations": cite_pages(n)} for n in sorted(names)]
    edges = [{"source": n, "target": parents[n], "relation": "part_of", "weight": 1, "citations": cite_pages(n)}
             for n in sorted(names)]

    concepts: dict[str, dict[str, Any]] = {}
    for s in extraction.sightings:
        node = concepts.setdefault(concept_id(s.type, s.name),
                                   {"type": s.type, "name": s.name, "mentions": 0, "citations": []})
        node["mentions"] += 1
        if s.surface:
            node.setdefault("aliases", set()).add(s.surface)
        _add_citation(node["citations"], cite(s.chunk_id, s.page, s.quote))
    relations: dict[tuple[str, str, str], dict[str, Any]] = {}
    for t in extraction.triples:
        for kind, name in ((t.subject_type, t.subject), (t.object_type, t.object)):
            concepts.setdefault(concept_id(kind, name), {"type": kind, "name": name, "mentions": 0, "citations": []})
        edge = relations.setdefault((concept_id(t.subject_type, t.subject), concept_id(t.object_type, t.object),
                                     t.relation), {"quotes": set(), "citations": []})
        edge["quotes"].add(t.quote)
        _add_citation(edge["citations"], cite(t.chunk_id, t.page, t.quote))
    dropped = extraction.dropped
    for (concept, section), found in _heading_definitions(record.doc_id, chunks, extraction.sightings,
                                                           ontology).items():
        if normalise(names[section]).casefold() == normalise(record.title).casefold():
            continue  # a document without numbered headings has its title as its first section: not a definition
        if not ontology.allows("defined_in", concepts[concept]["type"], "section"):
            dropped += 1  # e.g. a standard or a product named in a heading is not defined there
            continue
        edge = relations.setdefault((concept, section, "defined_in"), {"quotes": set(), "citations": []})
        for s in found:
            edge["quotes"].add(s.quote)
            _add_citation(edge["citations"], cite(s.chunk_id, s.page, s.quote))

    for node in concepts.values():
        if "aliases" in node:
            node["aliases"] = sorted(node["aliases"])
    nodes += [{"id": cid, **node} for cid, node in sorted(concepts.items())]
    edges += [{"source": s, "target": o, "relation": r, "weight": len(e["quotes"]), "citations": e["citations"]}
              for (s, o, r), e in sorted(relations.items())]
    return {"format": FORMAT, "doc_id": record.doc_id, "source_key": record.source_key, "title": record.title,
            "perspective": record.perspective,
            "extraction": {"extractor": extraction.extractor, "triples": len(extraction.triples),
                           "dropped": dropped, "failed_chunks": extraction.failed_chunks},
            "nodes": nodes, "edges": edges}


def _section_id(doc_id: str, path: Sequence[str]) -> str:
    return f"section:{doc_id}:{' > '.join(path)}"


def _heading_definitions(doc_id: str, chunks: Sequence[Chunk], sightings: Sequence[Sighting],
                         ontology: Ontology) -> dict[tuple[str, str], list[Sighting]]:
    """(concept node, section node) → the sightings of the concept in the text of a section whose own heading
    names it, in page order."""
    by_chunk: dict[str, list[Sighting]] = {}
    for s in sightings:
        by_chunk.setdefault(s.chunk_id, []).append(s)
    heading_concepts: dict[str, set[str]] = {}
    found: dict[tuple[str, str], list[Sighting]] = {}
    for chunk in chunks:
        for depth in range(len(chunk.section_path)):
            section = _section_id(doc_id, chunk.section_path[: depth + 1])
            if section not in heading_concepts:
                heading_concepts[section] = {concept_id(m.type, m.name)
                                             for m in ontology.mentions(normalise(chunk.section_path[depth]))}
            for s in by_chunk.get(chunk.chunk_id, ()):
                concept = concept_id(s.type, s.name)
                if concept in heading_concepts[section]:
                    found.setdefault((concept, section), []).append(s)
    return {key: sorted(v, key=lambda s: s.page) for key, v in found.items()}


def _add_citation(citations: list[dict[str, Any]], citation: dict[str, Any]) -> None:
    if len(citations) < MAX_CITATIONS and all(c["quote"] != citation["quote"] for c in citations):
        citations.append(citation)


def dumps(fragment: dict[str, Any]) -> bytes:
    """Stable serialisation (sorted keys, one node or edge per line) so fragments diff cleanly."""
    head = {k: v for k, v in fragment.items() if k not in ("nodes", "edges")}
    lines = [json.dumps(head, sort_keys=True, ensure_ascii=False)[:-1] + ","]
    for name in ("nodes", "edges"):
        items = [json.dumps(x, sort_keys=True, ensure_ascii=False) for x in fragment[name]]
        lines.append(f' "{name}": [\n  ' + ",\n  ".join(items) + "\n ]" + ("," if name == "nodes" else ""))
    return ("\n".join(lines) + "\n}\n").encode()
