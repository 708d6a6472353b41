"""A document's contribution to the LCA knowledge graph (its *fragment*), as stable JSON.

Today a fragment holds the document's structure: one ``document`` node and one ``section`` node per heading on
its section paths, linked by ``part_of`` edges, each with the pages where the section's text lies. Concept
extraction under the closed LCA ontology adds its nodes and edges to the same fragment format.

Fragments live in the artifacts store under :func:`fragment_key`, one per library object key, so a new version
of an object overwrites its fragment and a removal deletes it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from lcabot.models import Chunk, DocumentRecord

FORMAT = "lcabot-graph-fragment/1"
FRAGMENT_PREFIX = "graph/fragments/"


def fragment_key(source_key: str) -> str:
    """The artifacts key of the fragment for library object ``source_key``: ``graph/fragments/<sha256[:24]>.json``."""
    return f"{FRAGMENT_PREFIX}{hashlib.sha256(source_key.encode()).hexdigest()[:24]}.json"


def document_fragment(record: DocumentRecord, chunks: Sequence[Chunk]) -> dict:
    """The fragment of one document.

    Returns:
        ``{"format", "doc_id", "source_key", "nodes": [...], "edges": [...]}``; nodes are
        ``{"id", "type", "name", "citations": [{"doc_id", "page", "page_label"}]}`` and edges
        ``{"source", "target", "relation", "citations"}``. Node ids are ``document:<doc_id>`` and
        ``section:<doc_id>:<heading path joined by " > ">``; citations list each PDF page (1-based) once, in order.
    """
    doc_node = f"document:{record.doc_id}"
    pages: dict[str, set[int]] = {}
    parents: dict[str, str] = {}
    names: dict[str, str] = {}
    for chunk in chunks:
        parent = doc_node
        for depth in range(len(chunk.section_path)):
            node = f"section:{record.doc_id}:{' > '.join(chunk.section_path[: depth + 1])}"
            names[node] = chunk.section_path[depth]
            parents[node] = parent
            pages.setdefault(node, set()).update(s.page for s in chunk.page_spans)
            parent = node

    def cite(node: str) -> list[dict]:
        return [{"doc_id": record.doc_id, "page": p, "page_label": record.label(p)} for p in sorted(pages[node])]

    nodes = [{"id": doc_node, "type": "document", "name": record.title, "citations": []}]
    nodes += [{"id": n, "type": "section", "name": names[n], "citations": cite(n)} for n in sorted(names)]
    edges = [{"source": n, "target": parents[n], "relation": "part_of", "citations": cite(n)} for n in sorted(names)]
    return {"format": FORMAT, "doc_id": record.doc_id, "source_key": record.source_key, "title": record.title,
            "perspective": record.perspective, "nodes": nodes, "edges": edges}


def dumps(fragment: dict) -> bytes:
    """Stable serialisation (sorted keys, one node or edge per line) so fragments diff cleanly."""
    head = {k: v for k, v in fragment.items() if k not in ("nodes", "edges")}
    lines = [json.dumps(head, sort_keys=True, ensure_ascii=False)[:-1] + ","]
    for name in ("nodes", "edges"):
        items = [json.dumps(x, sort_keys=True, ensure_ascii=False) for x in fragment[name]]
        lines.append(f' "{name}": [\n  ' + ",\n  ".join(items) + "\n ]" + ("," if name == "nodes" else ""))
    return ("\n".join(lines) + "\n}\n").encode()
