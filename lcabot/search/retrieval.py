"""Hybrid retrieval: BM25 and kNN fused by reciprocal-rank fusion, MMR for diversity, fragment expansion."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from lcabot.ingest.normalize import BULLET_GLYPHS, for_search
from lcabot.models import Chunk, Hit
from lcabot.ports import Embedder, SearchIndex
from lcabot.search.abstention import is_reference_list, split_compounds, term_present

RRF_K = 60  # Cormack, Clarke & Büttcher (2009), "Reciprocal rank fusion outperforms Condorcet …"
CANDIDATES = 30  # per retriever; re-tuned after the issue-13 parser fixes: 20 / 30 / 40 give dev recall@5 0.83 /
# 0.85 / 0.83 and multi-hop 0.5 / 0.6 / 0.6 (rag)
MMR_LAMBDA = 0.6
FRAGMENT_CHARS = 350
GRAPH_SLOTS = 1  # of k, kept for a chunk stating a graph fact (tuned with GRAPH_FACT_MIN, see answering)
TITLE_BONUS = 0.01  # added to the fused score (≈ 1/61 at rank 1) times the share of question terms in the title
NAMED_BONUS = 1 / (RRF_K + 1)  # for a chunk of a document the question names ("Burchart et al."): a first rank in one
# list (twice that lost D024 on the dev set)
SECTION_BONUS = 1 / (RRF_K + 1)  # for a chunk of the section the question names ("chapter 4 of the ILCD …": BM25
# cannot search a bare "4")
# for a chunk of a named document's conclusions naming what the question asks the document's view on: there it states
# its position ("this paper suggests that the 100 % rule … is not correct", Finnveden et al. 2022, p. 5); conclusions
# that do not name it ("What do Finnveden et al. say about truncation errors …") get nothing
VIEW_BONUS = 1 / (RRF_K + 1)
_CONCLUDING = re.compile(r"^\s*(?:[A-Z]?\d+(?:\.\d+)*\.?\s+)?(?:(?:summary and |discussion and )?conclusions?|"
                         r"concluding remarks|final (?:reflections|remarks)|summary|abstract)\b", re.I)
ASKED_BONUS = 1 / (RRF_K + 1)  # for a chunk holding what the question specifically asks for: a value in the unit of
# the quantity it asks for (kg CO2 eq for a GWP), the parameter it names by symbol ("the A factor"). For values: dev
# recall@5 0.83 → 0.80 (D010's answer is then hit k + 1), key facts 0.593 → 0.597; it brings
# Burchart et al.'s Table 7 to "What GWP100 … without sequestration?", which the dev set does not ask in those words.
STOPWORDS = frozenset(
    """a about above after again all also am an and any are as at be because been before being below between both but
    by can could did do does doing down during each few for from further had has have having he her here how i if in
    into is it its itself just me more most my no nor not now of off on once only or other our out over own same she
    should so some such than that the their them then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours get gets give gives say says
    said tell according want use used using allowed many much we us paper study guidance document must may might shall
    need needs regarding concerning piece vs versus go goes went gone""".split()
)
# the words a definition question asks with ("How does the guidance define …"): not what it asks about
ASKING_DEFINITION = re.compile(r"defin(?:e[sd]?|itions?)|mean(?:s|t)?|stands?")
# an item of a numbered list, on its own line or after the sentence before it ("These are: 1) LCA results …")
_NUMBERED_ITEM = re.compile(r"(?:^|(?<=[:;.])\s)\(?\d{1,2}\)\s", re.M)
_BULLET_LINE = re.compile(rf"^[ \t]*[{BULLET_GLYPHS}][ \t]", re.M)
WORD = re.compile(r"[^\W_]+(?:[.\-][^\W_]+)*", re.UNICODE)


@dataclass(frozen=True)
class RetrievalQuery:
    text: str
    k: int = 5
    doc_ids: tuple[str, ...] | None = None
    perspective: str | None = None
    graph_chunks: tuple[str, ...] = ()  # chunk ids behind the question's graph facts, best first (rag+graph)
    named_docs: tuple[str, ...] = ()  # documents the question names ("Burchart et al."): their chunks rank higher
    holds_asked: Callable[[str], bool] | None = None  # true for text holding what the question specifically asks for
    parameters: tuple[str, ...] = ()  # formula parameters the question names by symbol ("A" for "the A parameter")
    section: str = ""  # the section, clause or chapter number the question names ("4", "7.18.12")
    defines: str = ""  # the term a definition question asks to be defined ("company-specific data")
    view_of: tuple[str, ...] = ()  # the words of what the question asks a named document's view on ("100", "rule")


def concluding(section_path: Sequence[str]) -> bool:
    """A chunk under a document's conclusions, final reflections, summary or abstract."""
    return bool(section_path) and _CONCLUDING.match(section_path[-1]) is not None


def content_terms(text: str) -> list[str]:
    """Lower-cased words of ``text`` without stop words, in order of first appearance (no duplicates)."""
    seen: dict[str, None] = {}
    for word in WORD.findall(for_search(text).lower()):
        if word not in STOPWORDS and (len(word) > 1 or word.isdigit()):
            seen.setdefault(word, None)
    return list(seen)


def document_words(source: str, title: str | None) -> set[str]:
    """The content terms of a document's file name and title, compounds split ("burchart", "2023", "hydrogen",
    "coal", "gasification", …): words that say which document a passage is from, not what it states."""
    return set(split_compounds(content_terms(f"{source.rsplit('.', 1)[0].replace('-', ' ')} {title or ''}")))


def acronyms_of_concepts(question: str) -> list[str]:
    """The acronyms (lower case) of the ontology concepts ``question`` names in full, which documents print after
    defining them once: "functional unit" → ``fu`` (Burchart et al. 2023, p. 4: "… the FU is 1 kg of hydrogen at
    88 MPa"), "attributional LCA" → ``alca``."""
    from lcabot.graph.ontology import load, normalise  # imported here: the graph package imports this module

    ontology = load()
    named = {m.name for m in ontology.mentions(normalise(question)) if " " in m.surface}  # in full, not by acronym
    return list(dict.fromkeys(key.lower() for key, (name, _) in ontology.aliases.items()
                              if name in named and 2 <= len(key) <= 6 and key.isupper() and key.isalpha()))


def lexical_terms(terms: Sequence[str]) -> list[str]:
    """BM25 terms: each content term, and the letters of a term that runs letters into digits ("gwp100" also
    searches "gwp", which documents print as "GWP 100a")."""
    out = dict.fromkeys(terms)
    for term in terms:
        m = re.fullmatch(r"([^\W\d_]{3,})\d+[a-z]?", term)  # not "co" of "co2"
        if m and m.group(1) not in STOPWORDS:
            out.setdefault(m.group(1))
    return list(out)


class HybridRetriever:
    """Retrieves ``k`` chunks for a question.

    BM25 (FTS5) and exact-cosine kNN each return :data:`CANDIDATES` chunks (inside the documents the question names,
    also for the question without their names: :meth:`_rankings`); their ranks are fused with RRF (k = 60), plus
    :data:`TITLE_BONUS` for the question's words in the section title, :data:`NAMED_BONUS` for a chunk of a document
    the question names, :data:`SECTION_BONUS` for one of the section it names and :data:`ASKED_BONUS` for one
    holding what it specifically asks for (a value of the quantity, the parameter named by symbol, a glossary entry
    of the term it asks to be defined); MMR (λ = 0.6, cosine between chunk vectors) picks ``k`` diverse chunks from
    the fused list. In ``rag+graph`` the last :data:`GRAPH_SLOTS` of the ``k`` go to the best chunk stating one of
    the question's graph facts when retrieval did not already pick it (so the graph adds a connected passage, not
    noise: recall@5 on the dev set is the same with and without it, 0.80, on the multi-hop set it goes 0.4 → 0.5).
    When BM25's best chunk (over the library, and inside the documents the question names for the question without
    their names) is not among the ``k``, it is appended after them: the passage holding most of the question's own
    words is always read, however far its vector is from the question's (Burchart et al. 2023, p. 13,
    states 34.8 kg CO2-eq per kg H2 without sequestration at BM25 rank 1 and kNN rank 24). A hit shorter than
    :data:`FRAGMENT_CHARS` or a table gets its neighbouring chunks in the same section as context; a hit ending on a
    list's lead-in, the chunk after it.
    """

    def __init__(self, index: SearchIndex, embedder: Embedder) -> None:
        self._index = index
        self._embedder = embedder

    def retrieve(self, query: RetrievalQuery) -> list[Hit]:
        terms = content_terms(query.text)
        if not terms:
            return []
        qvec = self._embedder.embed([for_search(query.text)])[0]
        words = lexical_terms(terms) + parameter_terms(query.parameters) + acronyms_of_concepts(query.text)
        if query.defines:  # "How does the guidance define …": "define" asks for a definition, it is not searched for
            words = [w for w in words if not ASKING_DEFINITION.fullmatch(w)]
        lexical = self._index.bm25(" ".join(dict.fromkeys(words)), CANDIDATES, doc_ids=query.doc_ids,
                                   perspective=query.perspective)
        semantic = self._index.knn(qvec, CANDIDATES, doc_ids=query.doc_ids, perspective=query.perspective)
        rankings = self._rankings(query, words, lexical, semantic)
        fused = reciprocal_rank_fusion(rankings)
        if not fused:
            return []
        ids = [c for c, _ in fused]
        candidates = self._index.chunks(ids)
        named = set(query.named_docs)
        asked = query.holds_asked or (lambda _: False)
        # a named paper's reference list names other works: it gets no bonus for the paper's name
        relevance = [score + TITLE_BONUS * _title_match(terms, chunk)
                     + NAMED_BONUS * (chunk.doc_id in named and not is_reference_list(chunk.section_path))
                     + ASKED_BONUS * (asked(chunk.text) or defines_term(chunk.text, query.defines))
                     + SECTION_BONUS * in_section(chunk, query.section)
                     + VIEW_BONUS * (bool(query.view_of) and chunk.doc_id in named and concluding(chunk.section_path)
                                     and all(term_present(t, chunk.search_text) for t in query.view_of))
                     for (_, score), chunk in zip(fused, candidates, strict=True)]
        picked = mmr(self._index.vectors(ids), relevance, query.k)
        hits = [Hit(candidates[i], relevance[i], tuple(self._expand(candidates[i]))) for i in picked]
        graph = self._graph_chunks(query)
        reserved = min(GRAPH_SLOTS, len(graph), max(query.k - 1, 0))
        if reserved:
            head = hits[: query.k - reserved]
            taken = {h.chunk.chunk_id for h in head}
            extra = [Hit(c, 0.0, tuple(self._expand(c))) for c in graph if c.chunk_id not in taken][:reserved]
            taken |= {h.chunk.chunk_id for h in extra}
            rest = [h for h in hits[len(head):] if h.chunk.chunk_id not in taken]
            hits = (head + extra + rest)[: query.k]
        # each document the question names is read (its best chunk, when none was picked): "Compare … the Our World
        # in Data article … with … Nab & Maslin" needs a passage of each, not five of the coffee paper
        taken = {h.chunk.doc_id for h in hits}
        if len(query.named_docs) > 1 and query.k:
            for doc_id in query.named_docs:
                best = max((i for i, c in enumerate(candidates) if c.doc_id == doc_id and doc_id not in taken),
                           key=lambda i: relevance[i], default=None)
                if best is not None:
                    taken.add(doc_id)
                    hits.append(Hit(candidates[best], relevance[best], tuple(self._expand(candidates[best]))))
        # BM25's best over the library and, when the question names documents, inside them for the question's own
        # words (Groen et al. 2016, p. 1: "Five methods … were evaluated: …" is first there for "Which five global
        # sensitivity analysis methods did Groen et al. (2016) compare", 7th over the library and not among kNN's)
        lexical_rankings = [rankings[0], *rankings[2:3]] if query.k else []
        for best_lexical in dict.fromkeys(r[0] for r in lexical_rankings if r):
            if best_lexical not in {h.chunk.chunk_id for h in hits}:
                i = ids.index(best_lexical)
                hits.append(Hit(candidates[i], relevance[i], tuple(self._expand(candidates[i]))))
        return self._from_section_start(hits)

    def _rankings(self, query: RetrievalQuery, words: Sequence[str], lexical: Sequence[tuple[str, float]],
                  semantic: Sequence[tuple[str, float]]) -> list[list[str]]:
        """The rankings to fuse: BM25 and kNN over the library and, when the question names documents, their chunks
        ranked by BM25 and (unless it asks for a value) by kNN for the question without the words of their file
        names. Every chunk's header holds its paper's file-name and title words, so inside a named paper those words
        only favour short chunks, and they pull the question's vector towards the paper's abstract. "What
        functional unit did Burchart et al. 2023 use for the coal gasification hydrogen LCA?" also ranks Burchart
        et al.'s chunks as "What functional unit did use for the LCA?" (pp. 4–5, "the FU is 1 kg of hydrogen at
        88 MPa", is kNN rank 2 inside the paper that way, not among its first 20 for the whole question). A value
        is in a table whose caption names it by the paper's title words (Burchart et al.'s Table 7, "Results of
        LCA of hydrogen production by Shell gasification …", p. 12), which that kNN would lose. Dev set: recall@5
        0.85 → 0.90, the first line states a key fact 0.59 → 0.66."""
        rankings = [[c for c, _ in lexical], [c for c, _ in semantic]]
        named = [d for d in query.named_docs if query.doc_ids is None or d in query.doc_ids]
        naming = {"et", "al"}
        for doc_id in named:
            record = self._index.document(doc_id)
            if record is not None:
                naming |= document_words(record.source, None)
        focus = [w for w in words if w not in naming]
        if not named or not focus or len(focus) == len(words):
            return rankings
        text = " ".join(w for w in WORD.findall(for_search(query.text))
                        if not set(split_compounds([w.lower()])) & naming)
        rankings.append([c for c, _ in self._index.bm25(" ".join(dict.fromkeys(focus)), CANDIDATES, doc_ids=named,
                                                         perspective=query.perspective)])
        if query.holds_asked is None:
            rankings.append([c for c, _ in self._index.knn(self._embedder.embed([text])[0], CANDIDATES,
                                                            doc_ids=named, perspective=query.perspective)])
        return rankings

    def _from_section_start(self, hits: list[Hit]) -> list[Hit]:
        """When two or more hits are in one section, the section is what the question is about: the first of them
        also gets the chunk before it in that section, where the section sets out its subject (Finnveden et al.
        2022, 2.1: "This is sometimes referred to as 'the 100 % rule'. The 100 % rule interpreted in this way,
        however, does not seem to be correct", before the two chunks a question about the rule retrieves)."""
        taken = {h.chunk.chunk_id for h in hits} | {c.chunk_id for h in hits for c in h.context}
        sections: dict[tuple[str, tuple[str, ...]], list[int]] = {}
        for i, h in enumerate(hits):
            if h.chunk.section_path:
                sections.setdefault((h.chunk.doc_id, h.chunk.section_path), []).append(i)
        out = list(hits)
        for members in sections.values():
            if len(members) < 2:
                continue
            first = min(members, key=lambda i: hits[i].chunk.ordinal)
            before = [c for c in self._index.neighbours(hits[first].chunk)
                      if c.ordinal == hits[first].chunk.ordinal - 1 and c.chunk_id not in taken]
            if before:
                out[first] = replace(hits[first], context=(*before, *hits[first].context))
                taken.add(before[0].chunk_id)
        return out

    def _graph_chunks(self, query: RetrievalQuery) -> list[Chunk]:
        """The chunks stating the question's graph facts that the query's filters allow, best fact first."""
        if not query.graph_chunks or query.perspective is not None:
            return []
        allowed = set(query.doc_ids) if query.doc_ids else None
        return [c for c in self._index.chunks(list(query.graph_chunks)) if allowed is None or c.doc_id in allowed]

    def _expand(self, chunk: Chunk) -> list[Chunk]:
        if chunk.kind == "table" or len(chunk.text) < FRAGMENT_CHARS:
            context = self._index.neighbours(chunk)
        elif chunk.text.rstrip(" \n•●▪\uf0b7\uf0a7").endswith(":"):  # it ends on a list's lead-in: the next chunk
            # holds the items
            context = [c for c in self._index.neighbours(chunk) if c.ordinal == chunk.ordinal + 1]
        else:
            context = []
        last = max([chunk, *context], key=lambda c: c.ordinal)
        items = list(_NUMBERED_ITEM.finditer(last.text))
        if items and not re.search(r"[.!?]\s", last.text[items[-1].end():].rstrip()):  # it ends on an item of a
            # numbered list: the next chunk holds the list's other items (Finnveden et al. 2022, p. 1: statements 4–6
            # of the six and the sentence calling them misunderstandings)
            context += [c for c in self._index.neighbours(last)
                        if c.ordinal == last.ordinal + 1 and _NUMBERED_ITEM.match(c.text.lstrip())]
        elif _BULLET_LINE.match(last.text.rsplit("\n\n", 1)[-1]):  # it ends inside a bulleted item: the next chunk
            # holds the list's further items (JRC ILCD compliance rules, p. 7: goal situation C after A and B)
            context += [c for c in self._index.neighbours(last)
                        if c.ordinal == last.ordinal + 1 and _BULLET_LINE.search(c.text)]
        return context


def defines_term(text: str, term: str) -> bool:
    """True when ``text`` holds a glossary entry for ``term``: a line opening with the term and a dash or colon
    ("Company-specific data – It refers to directly measured or collected data …", PEFCR guidance p. 16)."""
    return bool(term) and re.search(rf"(?im)^\s*{re.escape(term)}s?\s*(?:\([^()]*\)\s*)?[–—:-]\s", text) is not None


def heading_in_section(heading: str, number: str) -> bool:
    """The heading is section ``number``'s or one of its subsections' ("4 Entry-level requirements" for "4",
    "ANNEX B.2 …" for "B")."""
    return bool(number) and (heading == number or heading.startswith((f"{number} ", f"{number}."))
                             or heading.upper().startswith(f"ANNEX {number.upper()}"))


def in_section(chunk: Chunk, number: str) -> bool:
    """The chunk is in section ``number`` or one of its subsections: by its section path, or by the section's
    heading printed at the start of one of its lines ("7.2.1 Time period", Pathfinder Framework p. 33, is set in
    the body's type and read as text)."""
    if not number:
        return False
    return any(heading_in_section(h, number) for h in chunk.section_path) or re.search(
        rf"(?m)^{re.escape(number)}(?:\.\d+)*\.?\s+[A-Z]", chunk.text) is not None


def _title_match(terms: Sequence[str], chunk: Chunk) -> float:
    """Share of the question's content terms found in the chunk's own section title (its deepest heading)."""
    if not chunk.section_path or not terms:
        return 0.0
    return sum(1 for t in terms if term_present(t, chunk.section_path[-1])) / len(terms)


def parameter_terms(symbols: Sequence[str]) -> list[str]:
    """BM25 terms for formula parameters named by symbol: the symbol when it is more than a letter ("r1"), and the
    words documents name parameters with, whichever the question used ("the A parameter" is "the A factor")."""
    if not symbols:
        return []
    return [*(s.lower() for s in symbols if len(s) > 1), "factor", "value", "parameter"]


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = RRF_K,
                           weights: Sequence[float] | None = None) -> list[tuple[str, float]]:
    """Fuse ranked id lists: score(id) = Σ w / (k + rank), rank from 1, ``w`` the list's weight (default 1).
    Returns ids by descending score."""
    scores: dict[str, float] = {}
    for i, ranking in enumerate(rankings):
        w = weights[i] if weights else 1.0
        for rank, cid in enumerate(ranking, start=1):
            scores[cid] = scores.get(cid, 0.0) + w / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def mmr(vectors: np.ndarray, relevance: Sequence[float], k: int, lam: float = MMR_LAMBDA) -> list[int]:
    """Maximal marginal relevance (Carbonell & Goldstein 1998) over candidates.

    Args:
        vectors: unit vectors ``(n, d)`` of the candidates, in candidate order.
        relevance: fused relevance per candidate (scaled to [0, 1] inside).
        k: how many to pick.

    Returns:
        Indices into the candidates, in pick order.
    """
    n = len(relevance)
    if n == 0:
        return []
    rel = np.asarray(relevance, dtype=np.float64)
    rel = (rel - rel.min()) / (rel.max() - rel.min()) if rel.max() > rel.min() else np.ones(n)
    sim = vectors @ vectors.T
    picked: list[int] = []
    best_sim = np.full(n, -np.inf)
    for _ in range(min(k, n)):
        redundancy = np.where(np.isfinite(best_sim), best_sim, 0.0)
        score = lam * rel - (1 - lam) * redundancy
        score[picked] = -np.inf
        i = int(np.argmax(score))
        picked.append(i)
        best_sim = np.maximum(best_sim, sim[i])
    return picked
