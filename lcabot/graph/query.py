"""Query time: link a question to graph nodes, walk a bounded neighbourhood, rank and cap the facts.

Linking: concepts the question names (the ontology's alias map, score 1) first, then concepts whose name vector is
closest to the question's (cosine ≥ :data:`LINK_THRESHOLD`), at most :data:`MAX_ENTITIES` in all. Traversal:
edges out of and into the linked nodes, and one hop further from their concept neighbours
(:data:`HOPS` = 2); the structural ``part_of`` edges between sections and documents are not facts. Ranking:
link score × edge weight (statements) ÷ hop; at most :data:`MAX_FACTS` facts, each with the citations (document,
page, quote) of the statements behind it.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from lcabot.graph.build import MERGED_KEY, concept_vectors, loads
from lcabot.graph.ontology import Ontology, normalise
from lcabot.ports import Embedder, ObjectStore

logger = logging.getLogger(__name__)

LINK_THRESHOLD = 0.55
MAX_ENTITIES = 4
HOPS = 2
MAX_FACTS = 6
MAX_PER_SUBJECT_RELATION = 2  # so one concept's many "defined_in" sections do not crowd out other facts
STRUCTURAL = ("document", "section")


@dataclass(frozen=True)
class Fact:
    """One edge: ``subject`` —``relation``→ ``object`` (display names), ``score`` for ranking, ``citations`` as
    stored on the edge (``doc_id``, ``page``, ``page_label``, ``section``, ``quote``, ``chunk_id``)."""

    subject: str
    relation: str
    object: str
    score: float
    citations: tuple[dict[str, Any], ...]


class GraphKnowledge:
    """A loaded graph ready for questions. Building it embeds every concept name once (``(n, dimension)``)."""

    def __init__(self, graph: nx.MultiDiGraph[str], ontology: Ontology, embedder: Embedder) -> None:
        self.graph = graph
        self._ontology = ontology
        self._embedder = embedder
        self._ids, self._vectors = concept_vectors(graph, embedder)
        top = max((graph.nodes[n].get("mentions", 0) for n in self._ids), default=0)
        self._specificity = {n: math.log1p(top / (1 + graph.nodes[n].get("mentions", 0))) / math.log1p(max(top, 1))
                             for n in self._ids}

    def link(self, question: str, vector: np.ndarray | None = None) -> list[tuple[str, float]]:
        """``(node id, score)`` of the concepts the question is about, best first (at most MAX_ENTITIES)."""
        linked: dict[str, float] = {}
        for m in self._ontology.mentions(normalise(question)):
            nid = f"{m.type}:{m.name}"
            if nid in self.graph:
                linked.setdefault(nid, 1.0)
        if len(self._ids) and len(linked) < MAX_ENTITIES:
            if vector is None:
                vector = self._embedder.embed([question])[0]
            sims = self._vectors @ vector
            for i in np.argsort(-sims, kind="stable"):
                if sims[i] < LINK_THRESHOLD or len(linked) >= MAX_ENTITIES:
                    break
                linked.setdefault(self._ids[int(i)], float(sims[i]))
        return sorted(linked.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_ENTITIES]

    def facts(self, linked: list[tuple[str, float]], limit: int = MAX_FACTS) -> list[Fact]:
        """The best facts around the ``linked`` nodes (see the module docstring), best first."""
        best: dict[tuple[str, str, str], float] = {}
        frontier = {n: score * self._specificity.get(n, 1.0) for n, score in linked}
        seen = set(frontier)
        for hop in range(1, HOPS + 1):
            nxt: dict[str, float] = {}
            for node, score in frontier.items():
                for s, t, rel, data in self._incident(node):
                    value = score * math.log1p(data["weight"]) / hop
                    key = (s, t, rel)
                    if value > best.get(key, 0.0):
                        best[key] = value
                    other = t if s == node else s
                    if other not in seen and self.graph.nodes[other]["type"] not in STRUCTURAL:
                        nxt[other] = max(nxt.get(other, 0.0), score * 0.5)
            seen.update(nxt)
            frontier = nxt
        ranked: list[tuple[tuple[str, str, str], float]] = []
        per_pair: dict[tuple[str, str], int] = {}
        for (s, t, rel), value in sorted(best.items(), key=lambda kv: (-kv[1], kv[0])):
            if per_pair.get((s, rel), 0) < MAX_PER_SUBJECT_RELATION and len(ranked) < limit:
                per_pair[(s, rel)] = per_pair.get((s, rel), 0) + 1
                ranked.append(((s, t, rel), value))
        return [Fact(self._name(s), rel, self._name(t), value, tuple(self.graph.edges[s, t, rel]["citations"]))
                for (s, t, rel), value in ranked]

    def _incident(self, node: str) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
        for s, t, rel, data in self.graph.out_edges(node, keys=True, data=True):
            if not self._structural(s, t, rel):
                yield s, t, rel, data
        for s, t, rel, data in self.graph.in_edges(node, keys=True, data=True):
            if not self._structural(s, t, rel):
                yield s, t, rel, data

    def _structural(self, s: str, t: str, rel: str) -> bool:
        return rel == "part_of" and self.graph.nodes[s]["type"] in STRUCTURAL

    def _name(self, node: str) -> str:
        name: str = self.graph.nodes[node]["name"]
        return name


class GraphSource:
    """The current merged graph of an artifacts store, loaded when it changes (its ETag is checked at most every
    :data:`RELOAD_S` seconds). ``current()`` is ``None`` when no graph was built or the artifact cannot be read,
    so answers fall back to passage retrieval."""

    RELOAD_S = 60.0

    def __init__(self, store: ObjectStore, ontology: Ontology, embedder: Embedder) -> None:
        self._store = store
        self._ontology = ontology
        self._embedder = embedder
        self._etag: str | None = None
        self._checked = -math.inf
        self._knowledge: GraphKnowledge | None = None

    def current(self) -> GraphKnowledge | None:
        now = time.monotonic()
        if now - self._checked < self.RELOAD_S:
            return self._knowledge
        self._checked = now
        try:
            info = self._store.head(MERGED_KEY)
            if info is None:
                self._etag, self._knowledge = None, None
            elif info.etag != self._etag:
                self._knowledge = GraphKnowledge(loads(self._store.get(MERGED_KEY)), self._ontology, self._embedder)
                self._etag = info.etag
        except Exception:  # the graph is an addition: an unreadable artifact or store never fails an answer
            logger.exception("knowledge graph unavailable, answering from passages")
            self._etag, self._knowledge = None, None
        return self._knowledge
