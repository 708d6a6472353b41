"""The merged knowledge graph: all fragments → entity resolution → one networkx ``MultiDiGraph`` artifact.

Entity resolution, in order:

1. **Alias map**: a name that is a concept name or alias of the ontology becomes that concept with the ontology's
   type (``GWP`` → ``climate change``, ``CO₂`` → ``carbon dioxide``; ``CO`` → ``carbon monoxide`` and ``Co`` →
   ``cobalt`` stay apart because acronyms and formulas match only in their own case).
2. **Same name key** (:func:`lcabot.graph.ontology.name_key`: case, plural, dashes, subscripts): one node. When the
   name came with two types, the type named most often wins (ties: ontology order) and the edges of both follow
   it; the resolution is counted, nothing is dropped.
3. **Embedding similarity** of names of one type at or above :data:`MERGE_THRESHOLD`, guarded: names with an
   acronym or formula, names with different numbers (``ISO 14040`` / ``ISO 14044``) and two ontology concepts
   are never merged this way.

The artifact is stored at :data:`MERGED_KEY` as stable JSON (sorted, one node or edge per line), so a rebuild
from the same fragments is byte-identical and diffs cleanly. :func:`rebuild` never loses an update when ingests
run concurrently: after writing it lists the fragments again and rebuilds until what it built from is still
current (the last writer has then seen every fragment written before its write).
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np

from lcabot.errors import ObjectNotFoundError
from lcabot.graph.extract import GraphExtractor
from lcabot.graph.fragments import FRAGMENT_PREFIX, concept_id, document_fragment, fragment_key
from lcabot.graph.fragments import dumps as fragments_dumps
from lcabot.graph.ontology import Ontology, is_acronym, name_key, normalise
from lcabot.models import Chunk, DocumentRecord
from lcabot.ports import Embedder, ObjectStore

logger = logging.getLogger(__name__)
FORMAT = "lcabot-graph/1"
MERGED_KEY = "graph/lca_graph.json"
MERGE_THRESHOLD = 0.92  # cosine of all-MiniLM-L6-v2 name vectors; "end of life recycling rate" ≈ "recycling rate …"
MAX_CITATIONS = 5
MAX_ROUNDS = 8
_DIGITS = re.compile(r"\d+")
_OPPOSITES = {frozenset(p) for p in (
    ("upstream", "downstream"), ("inbound", "outbound"), ("input", "output"), ("direct", "indirect"),
    ("fossil", "biogenic"), ("primary", "secondary"), ("emission", "removal"), ("emissions", "removals"),
    ("positive", "negative"), ("minimum", "maximum"), ("attributional", "consequential"), ("ingoing", "outgoing"),
    ("renewable", "non-renewable"), ("cradle-to-gate", "cradle-to-grave"), ("gate", "grave"),
)}


@dataclass
class Resolution:
    """How raw extracted names were resolved. ``alias``: distinct names (as written, or as an LLM gave them) mapped
    by the alias map to another name;
    ``key``: names joined by their name key; ``embedding``: names merged by similarity (pairs listed);
    ``types``: names seen with more than one type and resolved to one."""

    alias: int = 0
    key: int = 0
    embedding: list[tuple[str, str]] = field(default_factory=list)
    types: list[tuple[str, tuple[str, ...], str]] = field(default_factory=list)  # name, types seen, chosen


def resolve(raw: dict[str, dict[str, Any]], ontology: Ontology,
            embedder: Embedder | None) -> tuple[dict[str, str], Resolution]:
    """Map raw concept node ids (``<type>:<name>``) to resolved node ids.

    Args:
        raw: raw id → ``{"type", "name", "mentions"}`` over all fragments.
        embedder: for step 3; ``None`` skips it.

    Returns:
        ``(raw id → resolved id, what was done)``.
    """
    out: dict[str, str] = {}
    res = Resolution()
    groups: dict[str, list[str]] = {}
    for rid in sorted(raw):
        node = raw[rid]
        canonical = ontology.canonical(node["name"])
        if canonical is not None:
            name, kind = canonical
            out[rid] = concept_id(kind, name)
            res.alias += normalise(node["name"]) != name
            if kind != node["type"]:
                res.types.append((node["name"], (node["type"],), kind))
            continue
        groups.setdefault(name_key(node["name"]), []).append(rid)
    reps: dict[str, tuple[str, str, int]] = {}  # resolved id → (type, name, mentions)
    for _key, members in sorted(groups.items()):
        names: Counter[str] = Counter()
        types: Counter[str] = Counter()
        for rid in members:
            names[raw[rid]["name"]] += raw[rid]["mentions"] or 1
            types[raw[rid]["type"]] += raw[rid]["mentions"] or 1
        name = min(names, key=lambda n: (-names[n], n))
        kind = min(types, key=lambda t: (-types[t], ontology.node_types.index(t) if t in ontology.node_types else 99))
        if len(types) > 1:
            res.types.append((name, tuple(sorted(types)), kind))
        res.key += len(names) - 1
        rid = concept_id(kind, name)
        reps[rid] = (kind, name, sum(names.values()))
        for member in members:
            out[member] = rid
    if embedder is not None:
        merged = _embedding_merges(reps, ontology, embedder, res)
        out = {rid: merged.get(target, target) for rid, target in out.items()}
    return out, res


def mergeable(a: str, b: str, ontology: Ontology) -> bool:
    """The guard of step 3: may names ``a`` and ``b`` be merged by similarity at all? Not acronyms or formulas,
    not names whose numbers differ, not two ontology concepts, not names that differ by opposite words
    (upstream/downstream emissions, inbound/outbound transport score ≥ 0.92 with all-MiniLM-L6-v2)."""
    if is_acronym(normalise(a)) or is_acronym(normalise(b)):
        return False
    words_a, words_b = set(name_key(a).replace("-", " ").split()), set(name_key(b).replace("-", " ").split())
    if any(frozenset((x, y)) in _OPPOSITES for x in words_a - words_b for y in words_b - words_a):
        return False
    if _DIGITS.findall(a) != _DIGITS.findall(b):
        return False
    return not (ontology.canonical(a) and ontology.canonical(b))


def _embedding_merges(reps: dict[str, tuple[str, str, int]], ontology: Ontology, embedder: Embedder,
                      res: Resolution) -> dict[str, str]:
    """Resolved id → the id it merges into (the more mentioned name of a similar pair, ties by name)."""
    by_type: dict[str, list[str]] = {}
    for rid, (kind, name, _n) in sorted(reps.items()):
        if not ontology.canonical(name):  # ontology concepts are already resolved by the alias map
            by_type.setdefault(kind, []).append(rid)
    merged: dict[str, str] = {}
    for ids in by_type.values():
        if len(ids) < 2:
            continue
        vectors = embedder.embed([reps[i][1] for i in ids])
        sims = vectors @ vectors.T
        order = sorted(ids, key=lambda i: (-reps[i][2], reps[i][1]))
        position = {rid: n for n, rid in enumerate(ids)}
        for n, rid in enumerate(order):
            if rid in merged:
                continue
            for other in order[n + 1:]:
                if other in merged:
                    continue
                a, b = reps[rid][1], reps[other][1]
                if sims[position[rid], position[other]] >= MERGE_THRESHOLD and mergeable(a, b, ontology):
                    merged[other] = rid
                    res.embedding.append((b, a))
    return merged


def merge(fragments: Sequence[dict[str, Any]], ontology: Ontology, embedder: Embedder | None) -> nx.MultiDiGraph[str]:
    """One graph from ``fragments`` (any order; the result does not depend on it).

    Nodes: ``type``, ``name``, ``mentions`` and ``aliases`` (the other names it was written as) for concepts,
    ``citations`` (at most :data:`MAX_CITATIONS`, by document and page). Edges, keyed by relation: ``relation``,
    ``weight`` (statements over all documents), ``citations``. ``graph.graph`` holds ``format``, ``documents``
    (doc id → title), ``resolution`` (merges done) and ``extraction`` (counts per document).
    """
    fragments = sorted(fragments, key=lambda f: f["doc_id"])
    raw: dict[str, dict[str, Any]] = {}
    for fragment in fragments:
        for node in fragment["nodes"]:
            if node["type"] not in ("document", "section"):
                entry = raw.setdefault(node["id"], {"type": node["type"], "name": node["name"], "mentions": 0})
                entry["mentions"] += node.get("mentions", 0)
    mapping, res = resolve(raw, ontology, embedder)
    res.alias += len({(mapping.get(n["id"]), a) for f in fragments for n in f["nodes"] for a in n.get("aliases", ())})
    g: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    for fragment in fragments:
        for node in fragment["nodes"]:
            nid = mapping.get(node["id"], node["id"])
            if nid not in g:
                structural = node["type"] in ("document", "section")
                kind, _, name = (node["type"], "", node["name"]) if structural else nid.partition(":")
                g.add_node(nid, type=kind, name=name, mentions=0, citations=[])
            attrs = g.nodes[nid]
            attrs["mentions"] += node.get("mentions", 0)
            written = {*node.get("aliases", ()), node["name"]} - {attrs["name"]}
            if written:
                attrs["aliases"] = sorted(set(attrs.get("aliases", ())) | written)
            attrs["citations"] = _merge_citations(attrs["citations"], node["citations"])
        for edge in fragment["edges"]:
            source = mapping.get(edge["source"], edge["source"])
            target = mapping.get(edge["target"], edge["target"])
            if source == target:
                continue
            relation = edge["relation"]
            if g.has_edge(source, target, key=relation):
                attrs = g.edges[source, target, relation]
                attrs["weight"] += edge["weight"]
                attrs["citations"] = _merge_citations(attrs["citations"], edge["citations"])
            else:
                g.add_edge(source, target, key=relation, relation=relation, weight=edge["weight"],
                           citations=_merge_citations([], edge["citations"]))
    g.graph.update({
        "format": FORMAT,
        "documents": {f["doc_id"]: f["title"] for f in fragments},
        "resolution": {"alias": res.alias, "key": res.key, "embedding": sorted(res.embedding),
                       "types": sorted([n, list(t), c] for n, t, c in res.types)},
        "extraction": {f["doc_id"]: f.get("extraction", {}) for f in fragments},
    })
    return g


def _merge_citations(current: list[dict[str, Any]], more: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    seen = {(c["doc_id"], c["page"], c.get("quote")) for c in current}
    out = list(current) + [c for c in more if (c["doc_id"], c["page"], c.get("quote")) not in seen]
    out.sort(key=lambda c: (c["doc_id"], c["page"], c.get("quote") or ""))
    return out[:MAX_CITATIONS]


def dumps(g: nx.MultiDiGraph[str], built_from: dict[str, str]) -> bytes:
    """Stable JSON: graph attributes, then nodes sorted by id and edges by (source, target, relation), one per
    line. ``built_from``: fragment key → ETag the graph was built from."""
    head = {**g.graph, "built_from": dict(sorted(built_from.items()))}
    nodes = [json.dumps({"id": n, **g.nodes[n]}, sort_keys=True, ensure_ascii=False) for n in sorted(g.nodes)]
    edges = [json.dumps({"source": s, "target": t, **d}, sort_keys=True, ensure_ascii=False)
             for s, t, _k, d in sorted(g.edges(keys=True, data=True), key=lambda e: (e[0], e[1], e[2]))]
    lines = [json.dumps(head, sort_keys=True, ensure_ascii=False)[:-1] + ","]
    lines.append(' "nodes": [\n  ' + ",\n  ".join(nodes) + "\n ],")
    lines.append(' "edges": [\n  ' + ",\n  ".join(edges) + "\n ]")
    return ("\n".join(lines) + "\n}\n").encode()


def loads(data: bytes) -> nx.MultiDiGraph[str]:
    """The graph written by :func:`dumps`.

    Raises:
        ValueError: not a graph artifact of this format.
    """
    obj = json.loads(data)
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise ValueError("not an lcabot graph artifact")
    g: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    g.graph.update({k: v for k, v in obj.items() if k not in ("nodes", "edges")})
    for node in obj["nodes"]:
        g.add_node(node["id"], **{k: v for k, v in node.items() if k != "id"})
    for edge in obj["edges"]:
        g.add_edge(edge["source"], edge["target"], key=edge["relation"],
                   **{k: v for k, v in edge.items() if k not in ("source", "target")})
    return g


def valid_fragment(fragment: object) -> bool:
    """A fragment this code can merge: ``format``, ``doc_id``, ``title``, nodes with ``id``/``type``/``name``/
    ``citations`` and edges with ``source``/``target``/``relation``/``weight``/``citations``."""
    if not (isinstance(fragment, dict) and all(isinstance(fragment.get(k), str) for k in ("doc_id", "format", "title"))
            and isinstance(fragment.get("nodes"), list) and isinstance(fragment.get("edges"), list)):
        return False
    nodes_ok = all(isinstance(n, dict) and all(isinstance(n.get(k), str) for k in ("id", "type", "name"))
                   and isinstance(n.get("citations"), list) for n in fragment["nodes"])
    edges_ok = all(isinstance(e, dict) and all(isinstance(e.get(k), str) for k in ("source", "target", "relation"))
                   and isinstance(e.get("weight"), int) and isinstance(e.get("citations"), list)
                   for e in fragment["edges"])
    return nodes_ok and edges_ok


def fragment_versions(store: ObjectStore) -> dict[str, str]:
    """Fragment key → ETag of every fragment in ``store`` now."""
    versions = {}
    for key in store.keys(FRAGMENT_PREFIX):
        info = store.head(key)
        if info is not None:
            versions[key] = info.etag
    return versions


@dataclass(frozen=True)
class BuildResult:
    rounds: int  # builds done (more than 1 when fragments changed while building)
    fragments: int
    nodes: int
    edges: int


def rebuild(store: ObjectStore, ontology: Ontology, embedder: Embedder | None) -> BuildResult:
    """Merge every fragment in ``store`` into :data:`MERGED_KEY`, repeating until the fragments it was built
    from are still the current ones after the write (see the module docstring).

    Raises:
        RuntimeError: fragments kept changing for :data:`MAX_ROUNDS` builds (the next ingest's rebuild will
            include them; nothing is lost, the artifact is just behind until then).
    """
    for rounds in range(1, MAX_ROUNDS + 1):
        versions = fragment_versions(store)
        fragments = []
        for key in versions:
            try:
                fragment = json.loads(store.get(key))
            except ObjectNotFoundError:  # removed since the listing: the next round sees it gone
                continue
            except ValueError:
                fragment = None
            if valid_fragment(fragment):
                fragments.append(fragment)
            else:  # one unreadable fragment must not keep every other document out of the graph
                logger.warning("skipped unreadable graph fragment %s", key)
        g = merge(fragments, ontology, embedder)
        store.put(MERGED_KEY, dumps(g, versions), "application/json")
        if fragment_versions(store) == versions:
            return BuildResult(rounds, len(fragments), g.number_of_nodes(), g.number_of_edges())
    raise RuntimeError(f"graph fragments changed during {MAX_ROUNDS} rebuilds")


def load(store: ObjectStore) -> nx.MultiDiGraph[str] | None:
    """The merged graph in ``store``, or ``None`` when none was built."""
    try:
        return loads(store.get(MERGED_KEY))
    except ObjectNotFoundError:
        return None


def concept_vectors(g: nx.MultiDiGraph[str], embedder: Embedder) -> tuple[list[str], np.ndarray]:
    """Concept node ids and their name vectors ``(n, dimension)``, for linking questions to nodes."""
    ids = sorted(n for n, d in g.nodes(data=True) if d["type"] not in ("document", "section"))
    return ids, embedder.embed([g.nodes[n]["name"] for n in ids]) if ids else np.zeros((0, embedder.dimension))


def write_fragment(store: ObjectStore, record: DocumentRecord, chunks: Sequence[Chunk], extractor: GraphExtractor,
                   ontology: Ontology) -> dict[str, Any]:
    """Extract one document's contribution and store it under :func:`fragment_key` of its ``source_key`` (the
    write replaces the fragment of an earlier version). Returns the fragment. The merged graph is not rebuilt."""
    fragment = document_fragment(record, chunks, extractor.extract(chunks), ontology)
    store.put(fragment_key(record.source_key), fragments_dumps(fragment), "application/json")
    return fragment


def stats(g: nx.MultiDiGraph[str], top: int = 10) -> dict[str, Any]:
    """Figures of a merged graph: ``nodes``, ``edges``, ``concepts``, ``node_types`` and ``relations`` (counts),
    ``top_entities`` (``[name, type, mentions]`` by mentions), ``resolution`` (merges done) and ``extraction``
    (triples, dropped and failed chunks summed over documents)."""
    concepts = [(d["name"], d["type"], d.get("mentions", 0)) for _n, d in g.nodes(data=True)
                if d["type"] not in ("document", "section")]
    extraction: Counter[str] = Counter()
    for figures in g.graph.get("extraction", {}).values():
        extraction.update({k: v for k, v in figures.items() if isinstance(v, int)})
    resolution = g.graph.get("resolution", {})
    return {
        "documents": len(g.graph.get("documents", {})),
        "nodes": g.number_of_nodes(),
        "edges": g.number_of_edges(),
        "concepts": len(concepts),
        "node_types": dict(sorted(Counter(d["type"] for _n, d in g.nodes(data=True)).items())),
        "relations": dict(sorted(Counter(k for _s, _t, k in g.edges(keys=True)).items())),
        "top_entities": [list(c) for c in sorted(concepts, key=lambda c: (-c[2], c[0]))[:top]],
        "resolution": {"alias": resolution.get("alias", 0), "key": resolution.get("key", 0),
                       "embedding": len(resolution.get("embedding", [])), "types": len(resolution.get("types", []))},
        "extraction": dict(extraction),
    }
