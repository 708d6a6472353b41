"""Answering: retrieval → evidence ledger → generation → verification, or an abstention that says what was
searched."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from lcabot import messages
from lcabot.answer.gates import reports_other_work
from lcabot.answer.generators.extractive import ExtractiveGenerator
from lcabot.answer.ledger import build_ledger, evidence_id, ledger_hash
from lcabot.answer.verify import Verified, verify
from lcabot.config import RETRIEVAL_MODES
from lcabot.errors import QuestionError
from lcabot.graph.ontology import load as load_ontology
from lcabot.graph.ontology import normalise
from lcabot.graph.query import Fact, GraphSource
from lcabot.ingest.normalize import for_search, match_key, split_sentences
from lcabot.jobs import MAX_QUESTION_CHARS
from lcabot.llm import model_else
from lcabot.models import Answer, Chunk, Claim, DocumentRecord, Evidence, GraphFact, Hit, Turn
from lcabot.ports import Generator, SearchIndex
from lcabot.search.abstention import (
    LEFT_OUT_WORD,
    STATES_LEFT_OUT,
    Support,
    absent_from_passages,
    boundaries,
    document_names,
    forms_of,
    is_reference_list,
    named_documents,
    named_terms,
    specific_terms,
    split_compounds,
    support,
    term_present,
    unaddressed_terms,
)
from lcabot.search.questions import (
    ASKS_FORMULA,
    ASKS_VERDICT,
    ASKS_WHY_REJECTED,
    ATTRIBUTION,
    COUNT,
    FRACTION,
    GIVES_REASON,
    HOW_MANY,
    ORDINALS,
    REASON_PART,
    RELATIVE_AMOUNT,
    SORT_NOUNS,
    STATES_EQUATION,
    QuestionFrame,
    asked_noun,
    asked_term,
    asks_change,
    attributed_source,
    each_thing,
    frame,
    judges,
    kind_of,
    names_code,
    names_each,
    names_parameter,
    quantity_of,
    reason_subject,
    referent,
    refers_back,
    states_quantity,
    states_rule,
    states_term,
    states_verdict,
)
from lcabot.search.retrieval import HybridRetriever, RetrievalQuery, content_terms, document_words

logger = logging.getLogger(__name__)
MAX_FACTS_SHOWN = 5
BOUNDARY_PASSAGES = 20  # of the quoted documents, searched for the system boundary a question names
TOP_UP_HITS = 2  # passages searched for each part of a question the first passages leave unanswered
GRAPH_FACT_MIN = 0.8  # fact score (specific concepts, stated often) for its passage to take a retrieval slot;
# re-tuned on the dev and multi-hop sets after the issue-13 parser fixes (0.5 let weak facts push out a fifth
# passage that answers: dev recall@5 0.78 against 0.83 at 0.8; multi-hop 0.7 at both)
_ONTOLOGY = load_ontology()
_MARKUP = re.compile(r"<[@!#][^>]{0,80}>|</?at>")
_CONTRACTION = re.compile(r"\b(what|which|where|who|how|that|it|there)['’]s\b", re.I)
_FOLLOWUP = re.compile(
    r"^\s*(and|but|also|what about|how about|then|so|or|same)\b|\b(it|that|this|those|these|they|them|its|there)\b",
    re.I,
)


def clean_question(question: str) -> str:
    """Remove chat-platform markup (``<@U123>``, ``<!channel>``, ``<at>Bot</at>``) and check the length.

    Raises:
        QuestionError: nothing is left, or more than :data:`MAX_QUESTION_CHARS` characters.
    """
    text = " ".join(_MARKUP.sub(" ", question).split())
    text = _CONTRACTION.sub(lambda m: f"{m.group(1)} is", text)  # "what's the GWP …" asks as "what is the GWP …"
    if not text:
        raise QuestionError(messages.empty_question())
    if len(text) > MAX_QUESTION_CHARS:
        raise QuestionError(messages.question_too_long(len(text), MAX_QUESTION_CHARS))
    return text


def resolve_followup(question: str, history: Sequence[Turn]) -> str:
    """Make a follow-up self-contained for retrieval: "And with carbon capture?" after a question about coal
    gasification becomes that question plus this one. Stand-alone questions are returned unchanged."""
    if not history:
        return question
    if len(content_terms(question)) <= 8 and _FOLLOWUP.search(question):
        return f"{history[-1].question} {question}"
    return question


class Answerer:
    """Answers one question against the index.

    Args:
        index: the search index (its page texts are the ground truth for quote verification).
        retriever: hybrid retrieval over ``index``.
        generator: Claude or the extractive generator.
        fallback: the extractive generator, used when ``generator`` fails or stops early.
        retrieval_mode: the default mode, ``rag`` or ``rag+graph`` (``LCABOT_RETRIEVAL_MODE``).
        graph: the knowledge graph for ``rag+graph``; ``None`` (or a source with no graph built) answers by passage
            retrieval, with a note saying so.
    """

    def __init__(self, index: SearchIndex, retriever: HybridRetriever, generator: Generator,
                 fallback: ExtractiveGenerator, retrieval_mode: str = "rag", graph: GraphSource | None = None) -> None:
        if retrieval_mode not in RETRIEVAL_MODES:
            raise ValueError(f"retrieval mode must be one of {', '.join(RETRIEVAL_MODES)}, got {retrieval_mode!r}")
        self._index = index
        self._retriever = retriever
        self._generator = generator
        self._fallback = fallback
        self._mode = retrieval_mode
        self._graph = graph

    def ask(self, question: str, *, history: Sequence[Turn] = (), k: int = 5, doc_ids: Sequence[str] | None = None,
            perspective: str | None = None, mode: str | None = None) -> Answer:
        """Answer ``question``; ``history`` holds earlier turns of the conversation (oldest first); ``mode`` is
        ``rag`` or ``rag+graph`` for this call (``None``: the default). In ``rag+graph`` the question's graph facts
        add the chunks that state them to the retrieval fusion, their statements join the evidence ledger, and the
        facts that pass verification are returned in ``Answer.facts``.

        Raises:
            QuestionError: the question is empty (after removing chat markup) or over :data:`MAX_QUESTION_CHARS`.
            ValueError: an unknown ``mode``.
        """
        question = clean_question(question)
        documents = {d.doc_id: d for d in self._index.documents()}
        query = resolve_followup(question, history)
        used, notes = self._effective_mode(mode)
        if not documents:
            return self._abstain(used, messages.abstain_empty_library(), "an empty library", (), "empty_library")
        hits, facts = self._retrieve(query, k, used, documents, doc_ids, perspective)
        searched = _searched(query, documents, hits)
        terms = split_compounds(content_terms(query))
        df, n_chunks = self._index.term_document_frequency(terms)
        # a name of a document's file name or title is known however its text spells it ("the OWID piece":
        # owid-ritchie-2020-food-choice-vs-eating-local.pdf, which prints "Our World in Data")
        names = document_names(query, {d: r.source for d, r in documents.items()},
                               {d: r.title for d, r in documents.items()})
        titled = {n.lower() for n in names}
        # (a place as the library spells it or as its adjective: "Vietnamese" is known when Vietnam is)
        unknown_names = [n for n in named_terms(query) if n.lower() not in titled
                         and not any(self._index.contains_text(f) for f in forms_of(n))]
        passages = [c.search_text for h in hits for c in (h.chunk, *h.context)]
        judged = support(terms, unknown_names, passages, df, n_chunks)
        if not hits or not judged.supported:
            return self._abstain(used, messages.abstain_no_evidence(searched, judged.unknown), searched, (),
                                 _reason(judged), notes)
        # (with the chunks around the two best hits: the paragraph a passage continues names what it is about, "the
        # average American household's food emissions …" before "Food transport accounted for only 5% of this",
        # Ritchie 2020, p. 2)
        around = [c for h in hits[:2] for c in self._index.neighbours(h.chunk)]
        answering = [c.search_text for h in hits for c in (h.chunk, *h.context, *around)
                     if not is_reference_list(c.section_path)]
        # (the words of a document's name need not be in its passages: "Our World in Data" names the OWID article)
        read = {h.chunk.doc_id for h in hits}
        naming = {w for n, docs in names.items() if read & set(docs) for w in n.lower().split()}
        absent = [t for t in absent_from_passages(query, answering, self._index.contains_text)
                  if t.lower() not in naming]
        if absent:
            return self._abstain(used, messages.abstain_not_in_passages(searched, absent), searched, (),
                                 "the closest passages never mention: " + ", ".join(absent), notes)
        asked = frame(query)
        ledger, verified, generator, generated_notes = self._compose(query, hits, facts, documents, history)
        missing = unanswered_parts(asked, verified.claims, ledger)
        extra = self._top_up(missing, query, documents, doc_ids, perspective, hits) if missing else []
        if extra:  # the parts the first passages leave unanswered, searched for on their own
            again = self._compose(query, [*hits, *extra], facts, documents, history)
            still = unanswered_parts(asked, again[1].claims, again[0])
            if len(still) < len(missing):
                hits, missing = [*hits, *extra], still
                ledger, verified, generator, generated_notes = again
        notes = (*notes, *generated_notes)
        if verified.dropped:
            notes = (*notes, messages.claims_dropped(verified.dropped))
        if not verified.claims:
            return self._abstain(used, messages.abstain_no_evidence(searched), searched, ledger,
                                 "no verifiable statement", notes)
        # (what a quoted passage says of another work names nothing this answer is about: "… for hydrogen from lignite
        # gasification with Texaco technology?" is not answered by Shell hard-coal values because the introduction
        # quoted beside them recalls the authors' earlier Texaco study "[44]", Burchart et al. 2023, p. 4)
        quoted = {e.chunk_id for c in verified.claims for e in ledger if e.evidence_id in c.evidence_ids}
        own_words: dict[str, list[str]] = {}
        for e in ledger:
            if not (e.other_work or reports_other_work(e.text)):
                own_words.setdefault(e.chunk_id, []).append(e.reading or e.text)
        unaddressed = [t for t in unaddressed_terms(query, [" ".join([_header(c), *own_words.get(c.chunk_id, ())])
                                                            for h in hits for c in (h.chunk, *h.context)
                                                            if c.chunk_id in quoted]) if t.lower() not in naming]
        if unaddressed:
            return self._abstain(used, messages.abstain_not_in_passages(searched, unaddressed), searched, ledger,
                                 "the quoted passages never mention: " + ", ".join(unaddressed), notes)
        # (a thing the quoted passages never name is said before a value they do not give: "the winning bid prices in
        # the third European Hydrogen Bank auction" is refused as an auction named only as one still to come)
        unit = unstated_value(asked, verified.claims, ledger,
                              {c.chunk_id: c.search_text for h in hits for c in (h.chunk, *h.context)})
        if unit:
            return self._abstain(used, messages.abstain_value_not_stated(searched, unit), searched, ledger,
                                 f"no quoted passage gives a value in {unit}", notes)
        # a boundary the documents quoted never name: "the cradle-to-grave carbon footprint of UCO-based polypropylene"
        # is not Moretti et al.'s cradle-to-factory gate result (2020, p. 2), whatever its passages share with it
        asked_boundary = boundaries(query)
        quoted_docs = sorted({e.doc_id for c in verified.claims for e in ledger if e.evidence_id in c.evidence_ids})
        if asked_boundary and not self._names_boundary(asked_boundary, quoted_docs):
            boundary = " or ".join(sorted(asked_boundary))
            titles = [messages.short_title(documents[d].title or "", documents[d].source) for d in quoted_docs]
            return self._abstain(used, messages.abstain_boundary_not_assessed(searched, boundary, titles), searched,
                                 ledger, f"the quoted documents never name a {boundary} boundary", notes)
        # who won is said by a statement of winning (or the winners' news item): "Which projects won the second
        # European Hydrogen Bank auction …?" is not answered by the bids it received (2025, p. 1)
        if _ASKS_WINNERS.search(query) and not any(
                _states_winners(f"{e.title}. {e.text}") for e in ledger if e.chunk_id in quoted):
            return self._abstain(used, messages.abstain_not_in_passages(searched, ["the winners"]), searched, ledger,
                                 "the quoted passages never name the winners", notes)
        notes = (*notes, *(messages.part_not_stated(p) for p in missing))
        return Answer(text=verified.text, abstained=False, citations=verified.citations, claims=verified.claims,
                      retrieval_mode=used, searched=searched, ledger_hash=ledger_hash(ledger),
                      generator=generator, notes=notes, facts=verified.facts, gate_failures=verified.gate_failures)

    def _compose(self, query: str, hits: list[Hit], facts: list[Fact], documents: dict[str, DocumentRecord],
                 history: Sequence[Turn]) -> tuple[list[Evidence], Verified, str, tuple[str, ...]]:
        """The evidence ledger of ``hits`` and ``facts``, the generated claims verified against it, the generator's
        name and its notes."""
        ledger = build_ledger(hits, documents)
        # each fact chunk's quotable spans, read once however many facts cite it
        spans = {c.chunk_id: build_ledger([Hit(c, 0.0, ())], documents) for c in self._index.chunks(list(
            dict.fromkeys(c["chunk_id"] for f in facts for c in f.citations if c.get("chunk_id"))))} if facts else {}
        fact_evidence = [(GraphFact(f.subject, f.relation, f.object), _fact_evidence(f, documents, spans))
                         for f in facts]
        known = {e.evidence_id for e in ledger}
        for _, evidence in fact_evidence:
            for e in evidence:
                if e.evidence_id not in known:
                    known.add(e.evidence_id)
                    ledger.append(e)
        claims, generator, notes = self._generate(query, ledger, history)
        return ledger, verify(claims, ledger, self._index, fact_evidence, MAX_FACTS_SHOWN, frame(query)), generator, \
            notes

    def _names_boundary(self, asked: set[str], doc_ids: Sequence[str]) -> bool:
        """Whether any of the documents ``doc_ids`` names one of the system boundaries ``asked`` (:func:`boundaries`)
        anywhere: their passages holding the boundary's end words, by BM25."""
        words = " ".join({w for b in asked for w in b.split("-to-")})
        found = self._index.bm25(words, BOUNDARY_PASSAGES, doc_ids=list(doc_ids)) if doc_ids else []
        return any(boundaries(c.text, assessed=True) & asked for c in self._index.chunks([cid for cid, _ in found]))

    def _top_up(self, parts: Sequence[str], query: str, documents: dict[str, DocumentRecord],
                doc_ids: Sequence[str] | None, perspective: str | None, hits: Sequence[Hit]) -> list[Hit]:
        """Up to :data:`TOP_UP_HITS` further passages for each part of ``query`` in ``parts``, searched for on its own
        (with the part it names by a pronoun, and without it) inside the documents the question names: "…, and what
        is the functional unit?" after Burchart et al.'s GHG results finds "the FU is 1 kg of hydrogen at 88 MPa"
        (pp. 4–5)."""
        asked = frame(query)
        named = named_documents(query, {d: r.source for d, r in documents.items()},
                                {d: r.title for d, r in documents.items()})
        within = [d for d in named if not doc_ids or d in doc_ids] or doc_ids
        taken = {h.chunk.chunk_id for h in hits}
        extra: list[Hit] = []
        for part in parts:
            about = referent(asked.parts, asked.parts.index(part)) if refers_back(part) or REASON_PART.match(part) \
                else ""
            # (and on its own, when its pronoun may name a person instead: "why do they reject the '100 % rule'" after
            # "Do Finnveden et al. consider system expansion …" finds 2.1 The 100 % rule, p. 2)
            found = [h for query in dict.fromkeys([f"{part} {about}".strip(), part])
                     for h in self._retrieve(query, TOP_UP_HITS, "rag", documents, within, perspective)[0]]
            for hit in found:  # (with BM25's best for the part, appended when not among them)
                if hit.chunk.chunk_id not in taken:
                    taken.add(hit.chunk.chunk_id)
                    extra.append(hit)
        return extra

    def _effective_mode(self, mode: str | None) -> tuple[str, tuple[str, ...]]:
        """The mode an answer uses, and a note when ``rag+graph`` was asked for but no graph is built (the
        default mode falls back silently)."""
        explicit = mode is not None
        mode = mode or self._mode
        if mode not in RETRIEVAL_MODES:
            raise ValueError(f"retrieval mode must be one of {', '.join(RETRIEVAL_MODES)}, got {mode!r}")
        if mode == "rag+graph" and (self._graph is None or self._graph.current() is None):
            return "rag", (messages.graph_unavailable(),) if explicit else ()
        return mode, ()

    def _retrieve(self, query: str, k: int, mode: str, documents: dict[str, DocumentRecord],
                  doc_ids: Sequence[str] | None = None, perspective: str | None = None) -> tuple[list[Hit], list[Fact]]:
        """Passages and, in ``rag+graph``, the graph facts whose statements are in documents of the library."""
        knowledge = self._graph.current() if self._graph and mode == "rag+graph" else None
        facts: list[Fact] = []
        graph_chunks: tuple[str, ...] = ()
        if knowledge is not None:
            try:
                facts = [f for f in knowledge.facts(knowledge.link(query))
                         if any(c["doc_id"] in documents for c in f.citations)]
                graph_chunks = tuple(dict.fromkeys(f.citations[0]["chunk_id"] for f in facts
                                                   if f.citations and f.score >= GRAPH_FACT_MIN))
            except (KeyError, TypeError, ValueError, AttributeError):  # a malformed artifact: passages only
                logger.exception("graph facts unavailable for this question")
                facts, graph_chunks = [], ()
        named = named_documents(query, {d: r.source for d, r in documents.items()},
                                {d: r.title for d, r in documents.items()})
        asked = frame(query)
        query_ = RetrievalQuery(query, k, tuple(doc_ids) if doc_ids else None, perspective, graph_chunks, named,
                                _holds_asked(asked), asked.parameters, asked.section, asked.defines, _view_of(asked))
        hits = self._retriever.retrieve(query_)
        # "According to Our World in Data, …" asks that source: the documents whose byline, title or file name
        # (every passage's search text begins with them) names it, when some of the passages found are theirs
        source = set(split_compounds(content_terms(attributed_source(query))))
        bylined = {h.chunk.doc_id for h in hits
                   if source and source <= set(split_compounds(content_terms(h.chunk.search_text)))}
        if bylined and any(h.chunk.doc_id not in bylined for h in hits):
            hits = self._retriever.retrieve(replace(query_, doc_ids=tuple(bylined)))
        return hits, facts

    def documents(self) -> list[DocumentRecord]:
        return self._index.documents()

    def retrieve(self, question: str, *, history: Sequence[Turn] = (), k: int = 5, mode: str | None = None
                 ) -> list[Hit]:
        """The passages :meth:`ask` would answer from (follow-ups resolved) in ``mode``, best first."""
        used, _ = self._effective_mode(mode)
        documents = {d.doc_id: d for d in self._index.documents()}
        return self._retrieve(resolve_followup(clean_question(question), history), k, used, documents)[0]

    def _generate(self, query: str, ledger: list[Evidence], history: Sequence[Turn]
                  ) -> tuple[list[Claim], str, tuple[str, ...]]:
        # (the fallback reads the best-ranked evidence only: over a ledger of hundreds of long passages it would run
        # past the answer's deadline, which the failed call has already used up)
        claims, note = model_else(lambda: self._generator.generate(query, ledger, history),
                                  lambda: self._fallback.generate(query, ledger[:MAX_FALLBACK_EVIDENCE], history))
        return (claims, self._generator.name, ()) if note is None else (claims, self._fallback.name, (note,))

    @staticmethod
    def _abstain(mode: str, text: str, searched: str, ledger: Sequence[Evidence], reason: str,
                 notes: tuple[str, ...] = ()) -> Answer:
        return Answer(text=text, abstained=True, citations=(), claims=(), retrieval_mode=mode,
                      searched=searched, ledger_hash=ledger_hash(ledger), generator="none", abstain_reason=reason,
                      notes=notes)


MAX_FALLBACK_EVIDENCE = 250  # quotable units (LCABOT_TOP_K=60 gives about 200 on the corpus; the default 5, 20-80)

# the quantities whose values are printed with a unit, and how the answer names that unit
VALUE_UNITS = {"CO2e": "kg CO2e", "distance": "km", "energy": "MJ or kWh", "money": "EUR", "unit price": "EUR per kg",
               "acidification": "kg SO2 eq or mol H+ eq", "eutrophication": "kg PO4 eq, kg P eq or kg N eq"}
# (and a share, for a question asking for one by name: "What minimum percentage GHG saving must RFNBOs achieve …";
# "how much does air freight contribute" is answered in kg CO2e too)
_ASKED_UNITS = {**VALUE_UNITS, "%": "%"}
_ASKS_SHARE = re.compile(r"\b(?:percentages?|per ?cent|shares?|proportions?)\b|%", re.I)


def unstated_value(asked: QuestionFrame, claims: Sequence[Claim], ledger: Sequence[Evidence],
                   passages: dict[str, str] | None = None) -> str:
    """The unit of the value a one-part question asks for, or compares by ("What is the carbon footprint per kg of
    South Tyrolean apples?": kg CO2e) when none of the answer's statements, read with their evidence, gives a value
    in it; else ``""``. Such an answer would quote what the library says about the subject (18,400 ha of orchards)
    as if it answered: the library does not state the value. A question asking by how much a result changes is
    also answered in per cent ("by how much does the climate change result increase if the used cooking oil is
    sourced globally?": "+10 %", Moretti et al. 2020, Table 5, p. 8).

    The value must be of what the question names specifically (its names other than the quantity's, as
    :func:`specific_terms` finds them): the statement giving it, its passage (``passages``: chunk id → text) or its
    document's name names one of them too.
    Burchart et al.'s "reduces GHG emissions by about 44 %" is no answer to what saving RFNBOs must achieve under
    the 2023 delegated act."""
    if asked.kind not in ("numeric", "comparison") or len(asked.parts) > 1 or asked.quantity not in _ASKED_UNITS \
            or (asked.quantity == "%" and not _ASKS_SHARE.search(asked.asking)):
        return ""
    by_id = {e.evidence_id: e for e in ledger}
    accepted = (asked.quantity, "%") if asks_change(asked.asking) else (asked.quantity,)
    names = [n for n in specific_terms(asked.asking) if not any(ch.isdigit() for ch in n) and not quantity_of(n)]
    # (a two-letter region is named too widely to say whose value it is when the question names more: "7% of the
    # EU's REPowerEU ambition", Hydrogen Bank second auction news, 2025, p. 1, is no saving RFNBOs must achieve)
    names = [n for n in names if len(n) > 2] or names
    for claim in claims:
        evidence = [by_id[i] for i in claim.evidence_ids if i in by_id]
        texts = [claim.text, *(f"{e.context} {e.reading or e.text}" for e in evidence)]
        if not any(states_quantity(t, q) for t in texts for q in accepted):
            continue
        about = " ".join([*texts, *((passages or {}).get(e.chunk_id, "") for e in evidence)])
        described = {w for e in evidence for w in document_words(e.source, e.title)}
        if not names or any(term_present(n.lower(), about) or n.lower() in described for n in names):
            return ""
    return _ASKED_UNITS[asked.quantity]


# the verbs a part asks with ("What system boundary does the Pathfinder Framework require …"): the quote answering it
# states the boundary, it need not say "require"
_ASKING_VERB = re.compile(r"requir(?:e[sd]?|ing)|prescribe[sd]?|allow(?:s|ed)?|recommend(?:s|ed)?|specif(?:y|ies|ied)|"
                          r"stat(?:e[sd]?)|gives?|applie[sd]|apply|report(?:s|ed)?|compare[sd]?|attribut(?:e[sd]?|ing)|"
                          # ("What do Finnveden et al. 2022 conclude?" after what it asks them of)
                          r"conclud(?:e[sd]?|ing)|argu(?:e[sd]?|ing)|suggest(?:s|ed)?|say(?:s)?|said")

# words of a part that say nothing of what it asks: "et al.", the tail of a compound ("pedigree-based uncertainty")
_NOT_ASKED = frozenset({"et", "al", "based", "related", "derived", "go", "goes", "went", "come", "comes", "came",
                        "get", "gets", "got", "article", "paper", "study", "none"})
_ASKS_LEFT_OUT = re.compile(r"\b(?:leaves?|left|leaving) out\b|\bexclu\w*|\bomit\w*|\bnot (?:includ|cover|consider)\w*",
                            re.I)
_VALUE_WORDS = frozenset({"value", "values", "amount", "figure", "figures", "number", "numbers", "result", "results",
                          "threshold", "thresholds", "limit", "limits"})
# a part asking whether a thing may be done, and the thing ("can substitution be used in an ALCA")
_MAY_IT = re.compile(r"^\s*(?:can|could|should|may|must)\s+(?:the\s+|an?\s+)?([a-z][\w-]{2,})\s+(?:\w+\s+)?be\b", re.I)
# the words of a part asking what caused something, and how many causes ("what two factors caused the reduction")
# a part asking for a given number of things ("Which five global sensitivity analysis methods …")
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _number_forms(number: str) -> tuple[str, ...]:
    """A small number as a word and in digits: "three" → ("three", "3"), "3" → ("3", "three")."""
    if number in _NUMBER_WORDS:
        return number, str(_NUMBER_WORDS.index(number))
    return (number, _NUMBER_WORDS[int(number)]) if number.isdigit() and int(number) <= 10 else (number,)


_WHICH_N = re.compile(r"^\s*(?:which|what)\s+(two|three|four|five|six|seven|eight|nine|ten|\d+)\s", re.I)
_CONDITION_WORD = re.compile(r"situations?|cases?|circumstances?|conditions?")
_STATES_CONDITION = re.compile(r"\b(?:when|whenever|if|unless|in case|where|provided that|only for)\b", re.I)
# a default is said by the case it holds for: "This value applies to all materials for which no A value is available
# in Annex C" (PEFCR guidance p. 114)
_STATES_FALLBACK = re.compile(r"\b(?:for which|where|when|if) no\b|\bin the absence of\b|\bunless\b|"
                              r"\bnot (?:available|listed|provided|given)\b", re.I)
_ASKS_CAUSE = re.compile(r"\b(?:caus(?:e[sd]?|ing)|drove|driv(?:e[sn]?|ing)|explain(?:s|ed)?|led to|reasons?)\b", re.I)
_CAUSE_WORD = re.compile(r"caus(?:e[sd]?|ing)|drove|driv(?:e[sn]?|ing)|explain(?:s|ed)?|factors?|reasons?|"
                         r"two|three|four|five|main|key")
# a part asking for an amount of what it names, not for which factors or standard to use ("which GWP
# characterization factors must be used": IPCC AR5, Pathfinder Framework p. 18)
_ASKS_AMOUNT = re.compile(r"\bhow (?:much|many)\b|\b(?:amount|values?|results?|emissions?|footprints?|impacts?|"
                          r"savings?|reductions?|totals?)\b", re.I)


def unanswered_parts(asked: QuestionFrame, claims: Sequence[Claim], ledger: Sequence[Evidence]) -> list[str]:  # noqa: C901
    """The parts of a multi-part question that no statement of the answer covers: no statement (with its evidence)
    holds half of the part's content terms, those of the quoted document's file name and title and the verbs it asks
    with aside ("Burchart et al. 2023", "hydrogen from coal gasification" name the paper; "require"), or, for a part
    asking for a value, none holds a number (for "how much" of a quantity, a value in its unit)."""
    if len(asked.parts) < 2:
        return []
    by_id = {e.evidence_id: e for e in ledger}
    texts, described, sections, paragraphs, documented, cited = [], [], [], [], [], []
    spans: dict[str, list[str]] = {}  # chunk id → its quotable spans in the ledger
    for e in ledger:
        spans.setdefault(e.chunk_id, []).append(e.text)
    stated: dict[str, list[str]] = {}  # document → the answer's statements from it
    for c in claims:
        for doc_id in {by_id[i].doc_id for i in c.evidence_ids if i in by_id}:
            stated.setdefault(doc_id, []).append(c.text)
    for c in claims:
        evidence = [by_id[i] for i in c.evidence_ids if i in by_id]
        paragraphs.append(" ".join(t for e in evidence for t in spans.get(e.chunk_id, ())))
        # what the answer quotes from its document ("The analysis includes hydrogen production through Shell coal
        # gasification technology …", Burchart et al. 2023, p. 4, says whose values p. 11 gives)
        documented.append(" ".join(t for d in {e.doc_id for e in evidence} for t in stated[d]))
        texts.append(" ".join([c.text, *(f"{e.context} {e.text}" for e in evidence)]))
        described.append({t for e in evidence for t in document_words(e.source, e.title)})
        sections.append(" ".join(e.section or "" for e in evidence))
        cited.append({e.doc_id for e in evidence})
    # the words naming a document ("the Our World in Data article" is owid-ritchie-2020-….pdf) are not asked for
    sources = {e.doc_id: e.source for e in ledger}
    titles = {e.doc_id: e.title for e in ledger}
    naming = {w.lower() for n in document_names(asked.text, sources, titles) for w in n.split()}
    # (and the year of a document the question names: "What do Finnveden et al. 2022 conclude?" asks nothing of
    # its own, but of what the part before it asks)
    naming |= {w for d in named_documents(asked.text, sources, titles) for w in document_words(sources[d], titles[d])
               if w.isdigit()}
    missing = []
    for number, part in enumerate(asked.parts):
        # a part naming a document is answered by that document's statements ("… does the Our World in Data article
        # attribute to transport" is not answered by Nab & Maslin's exportation share)
        own_docs = set(named_documents(part, sources, titles))
        terms = [t for t in split_compounds(content_terms(ATTRIBUTION.sub("", part))) if t not in _NOT_ASKED
                 and t not in naming and not _ASKING_VERB.fullmatch(t)]
        numeric = kind_of(part) == "numeric"
        quantity, symbols = frame(part).quantity, frame(part).parameters
        # a part asking for a value with a unit is answered by one in that unit ("EUR 245,178,772" for how much money,
        # "34.8 kg CO2-eq" for a GHG result), not by any number ("contribute approximately 30% to the GHG structure",
        # Burchart et al. 2023, p. 11); a change, in per cent too
        amount = quantity in VALUE_UNITS and _ASKS_AMOUNT.search(part) is not None
        accepted = (quantity, "%") if asks_change(part) else (quantity,)
        names = [n.lower() for n in specific_terms(part) if not any(c.isdigit() for c in n)]
        # a part asking what a term is, is answered by a statement of what it is ("the FU is 1 kg of hydrogen at
        # 88 MPa"), not by one using it ("the GHG emissions rate for the assumed functional unit")
        term = asked_term(part)
        # (its words but a head naming only a sort of thing: "which emission sources" asks which emissions)
        noun = [t for t in split_compounds(content_terms(asked_noun(part))) if t not in SORT_NOUNS]
        # a concept the part names is named where the concept or a kind of it is: "a cradle-to-factory gate scope"
        # names the system boundary (Moretti et al. 2020, p. 2)
        concepts = {m.name: content_terms(m.surface) for m in _ONTOLOGY.mentions(normalise(part))}
        cause = _ASKS_CAUSE.search(part)
        listed = _WHICH_N.match(part)
        # the part's most specific word (the one fewest of the ledger's spans hold) in a statement lets the statement's
        # paragraph hold the rest: "As a final note, when the input parameters are not estimated using samples, but
        # through a procedure, such as the popular pedigree approach, the Monte Carlo approach should not be used at
        # all" answers "what does he say about pedigree-based uncertainty distributions" in an abstract speaking of
        # "input distributions" (Heijungs 2020, p. 394)
        held_by = {t: sum(term_present(t, e.text) for e in ledger) for t in terms}
        rarest = min((t for t in terms if held_by[t]), key=held_by.__getitem__, default="")
        covered = False
        for text, known, title, around, docs, paragraph in zip(texts, described, sections, documented, cited,
                                                               paragraphs, strict=True):
            if own_docs and not own_docs & docs:
                continue
            # whether a thing can be done is said of it, not of its section's topic: "can substitution be used in an
            # ALCA" is not answered by "… system expansion in the narrow sense should be compatible with ALCA" under
            # "2.3 System expansion and substitution" (Finnveden et al. 2022, p. 3)
            if (modal := _MAY_IT.match(part)) and not term_present(modal.group(1).lower(), text):
                continue
            # why something is so is said by a statement giving a reason: "why do they reject the '100 % rule'" is
            # not answered by "Another example where the 100 % rule could be valid …" (Finnveden et al. 2022, p. 2)
            if REASON_PART.match(part) and not (states_verdict(text, argument=True) if ASKS_WHY_REJECTED.match(part)
                                                else GIVES_REASON.search(text)):
                continue
            # who won is said by a statement of winning (or its document's title: "Winners of first EU-wide renewable
            # hydrogen auction sign grant agreements …"): "which projects won the second … auction" is not answered by
            # the bids it received (Hydrogen Bank second auction news, 2025, p. 1)
            if _ASKS_WINNERS.search(part) and not _states_winners(" ".join([text, *(f"{titles[d]}." for d in docs)])):
                continue
            # whether a claim holds is said by a verdict on it, not by a case where it could (:func:`judges`)
            if ASKS_VERDICT.match(part):
                if judges(text, part):
                    covered = True
                    break
                continue
            # a part asking only of the document's subject ("How many Monte Carlo runs does Heijungs (2020)
            # recommend …", "On the number of Monte Carlo runs …") is judged on its words but the authors' and years
            own = [t for t in terms if t not in known] or [t for t in terms if not t.isdigit() and t not in names] \
                or terms
            kinds = {k for m in _ONTOLOGY.mentions(normalise(text)) for k in _ONTOLOGY.kinds(m.name)}
            held = {t for name, words in concepts.items() if name in kinds for t in words}
            if term:
                if states_term(text, term) or states_rule(text, term):
                    covered = True
                    break
                continue
            if symbols and not all(names_parameter(text, p) for p in symbols):
                continue  # "what is the default B value" is not answered by the default A values
            if listed and not any(term_present(n, text) for n in _number_forms(listed.group(1).lower())):
                continue  # "Which five … methods did Groen et al. compare" by "Five methods … were evaluated: …"
            # a term of art asked for ("what geographic scope") is named: "a cradle-to-factory gate scope" states a
            # boundary, not the geographic scope; in the statement or its section's title ("a default utilisation
            # ratio of 64%" under "7.14.1.1 Truck transport", PEFCR guidance p. 95, is the truck's)
            # (a value in the unit asked for names it: "34.8 kgCO2(eq)/FU" is a GWP per functional unit)
            # (a noun naming a value — "what cut-off threshold" — is named by a number: "a 1% cut-off", PEFCR
            # guidance p. 61)
            # (a word qualifying the head may be the document's subject: "what carbon-footprint standard" by "PAS
            # 2050:2011, a carbon standard …" in "… the carbon footprint of Arabica coffee", Nab & Maslin 2020, p. 7)
            valued = re.search(r"\d", text) or COUNT.search(text)
            if len(noun) > 1 and not (quantity and states_quantity(text, quantity)) and not all(
                    t in held or term_present(t, text) or term_present(t, title) or (t in _VALUE_WORDS and valued)
                    or (t in known and t != noun[-1]) for t in noun):
                continue
            # what a boundary leaves out is said by a statement of what is out ("The following were not considered
            # in the analysis: …", Burchart et al. 2023, p. 5), not by one of what it covers
            if _ASKS_LEFT_OUT.search(part):
                if not STATES_LEFT_OUT.search(text):
                    continue
                # (which is the answer when the rest of the part is named there or in its section's title: "2.2
                # Description of the System Examined: …")
                if any(term_present(t, text) or term_present(t, title) for t in own if not LEFT_OUT_WORD.fullmatch(t)):
                    covered = True
                    break
            # (a term may be named by the statement's section title: "how much hard coal goes in" to Burchart et
            # al.'s life cycle inventory is "Coal production: INPUT Amount 10.42 kg" under "2.2 Description of the
            # System Examined: Life Cycle Inventory", p. 10)
            # (a part's words asking for a number — "what is the minimum number" — are held by a count or value, and
            # its words asking for a cause — "what two factors caused" — by a statement giving one: "The 77% reduction
            # … was due to exportation of coffee beans via cargo ship …", Nab & Maslin 2020, p. 1)
            answering = {t for t in own if (t in _VALUE_WORDS and valued)
                         or (cause and _CAUSE_WORD.fullmatch(t) and GIVES_REASON.search(text))
                         # ("in what situation should Monte Carlo not be used" by one setting a condition: "when the
                         # input parameters are not estimated using samples …", Heijungs 2020, p. 394)
                         or (_CONDITION_WORD.fullmatch(t) and _STATES_CONDITION.search(text))
                         or (t in ("default", "defaults") and _STATES_FALLBACK.search(text))}
            read_with = paragraph if rarest in own and term_present(rarest, text) else ""
            holding = sum(t in held or t in answering or term_present(t, text) or term_present(t, title)
                          or term_present(t, read_with) for t in own)
            if (holding >= max(1, len(own) / 2)
                    and (not numeric or (any(states_quantity(text, q) for q in accepted) if amount
                                         else re.search(r"\d", text) or COUNT.search(text)
                                         or RELATIVE_AMOUNT.search(text)
                                         or (asks_change(part) and FRACTION.search(text))))) or (
                    # a value in the unit the part asks for (a duration for "how long": "up to 3 years", JRC ILCD
                    # compliance rules p. 10), of the thing the part names: "For the hydrogen produced
                    # by Shell technology, … 19.5 kg CO2-eq./kg H2 for seq. and 34.8 kg CO2-eq./kg H2 for non-seq."
                    # answers "Hydrogen from Shell coal gasification: what GWP per functional unit with vs without
                    # CO2 sequestration" (Burchart et al. p. 13)
                    bool(quantity) and states_quantity(text, quantity)
                    # (or in the answer's other statements from its document: "… reduces GHG emissions by about 44%
                    # from 34.8 kgCO2(eq)/FU …" is Burchart et al.'s Shell gasification result)
                    and (any(term_present(n, text) or n in known or term_present(n, around) for n in names) if names
                         # (a part naming nothing specific, by a third of its words, the document's too: a share of
                         # what the part asks, not any per cent — "exergy allocation leads to an increase of 35%" is
                         # no share "of the remaining impacts allocated to propylene", Moretti et al. 2020, p. 11;
                         # "up to 3 years" of "entry-level requirements" is how long they apply, ILCD rules p. 10)
                         else sum(term_present(t, text) or term_present(t, title) for t in terms)
                         >= max(1, len(terms) / 3))):
                covered = True
                break
        # a count of things the sentence names by another word answers when its paragraph names them: "With around
        # 8,000 family businesses, apple cultivation in South Tyrol is very small. The average farm size is …"
        # (South Tyrolean apple, p. 2) for "how many farms are there"
        if not covered and HOW_MANY.search(part) and terms:
            covered = any(COUNT.search(text) and all(term_present(t[:-1] if t.endswith("s") else t, around)
                                                      for t in terms)
                          for text, around in zip(texts, paragraphs, strict=True))
        # a part asking the same of each of several things is answered by statements on two of them at least: "The
        # first act defines …", "The second act provides a methodology …" (renewable hydrogen delegated acts, p. 1)
        if not covered and (each := each_thing(part)):
            covered = sum(any(names_each(text, o, each) for text in texts) for o in ORDINALS) > 1
        # a part asking for the reason of what the part before it asks ("…, and on what justification?") is
        # answered by a statement giving one: "… has been used for this purpose for at least 20 years, such that
        # emissions from land use change … can be excluded" (Nab & Maslin 2020, p. 7)
        # (of it: a reason naming what that part asks, or read right after a statement the answer quotes — "The
        # increase in environmental impact category indicators is related to …" after the AP and EP increases,
        # Burchart et al. 2023, p. 14 — not "The reaction is highly endothermic; therefore the feed is heated …" for
        # why the steam cracker's outputs are allocated as they are, Moretti et al. 2020, p. 3)
        if not covered and REASON_PART.match(part) and not ASKS_WHY_REJECTED.match(part):
            before = referent(asked.parts, number)
            subject = reason_subject(before) if before else []
            about = subject or [t for t in split_compounds(content_terms(before))
                                if t not in _NOT_ASKED and t not in naming]
            covered = any(GIVES_REASON.search(c.text) and (not about or any(term_present(t, c.text) for t in about)
                                                           or (not subject and _follows_quoted(c, claims, by_id,
                                                                                                 spans)))
                          for c in claims)
        # a part asking how a value is worked out is answered by its equation: "how are they combined" (the DQR
        # criteria) by "DQR = (TeR+GR+TiR+P)/4 [Equation 20]" (PEFCR guidance p. 130)
        if not covered and ASKS_FORMULA.search(part):
            covered = any(STATES_EQUATION.search(c.text) for c in claims)
        # a part asking only for the value of what the part before it names ("what is its value") is answered by a
        # statement with a number ("… calculated a carbon footprint of 3.05 kg CO2e kg–1 green coffee", p. 12)
        if not covered and terms and all(t in _VALUE_WORDS for t in terms):
            covered = any(re.search(r"\d", text) for text in texts)
        if (terms or REASON_PART.match(part)) and not covered:  # ("and why?" holds no term of its own)
            missing.append(part)
    return missing


def _follows_quoted(claim: Claim, claims: Sequence[Claim], by_id: dict[str, Evidence],
                   spans: dict[str, list[str]]) -> bool:
    """Whether ``claim`` quotes the span right after one another of ``claims`` quotes (its chunk's spans, in order,
    in ``spans``): the two are read together."""
    quoted = {by_id[i].text for c in claims if c is not claim for i in c.evidence_ids if i in by_id}
    for e in (by_id[i] for i in claim.evidence_ids if i in by_id):
        order = spans.get(e.chunk_id, [])
        at = order.index(e.text) if e.text in order else 0
        if at and order[at - 1] in quoted:
            return True
    return False


_ASKS_WINNERS = re.compile(r"\b(?:won|wins|winners?|winning)\b", re.I)
_WINNERS_WORD = re.compile(r"\b(?:won|wins|winners?|winning|awarded|selected|successful|signed)\b", re.I)
_FUTURE = re.compile(r"\b(?:will|expected to|aims? to|planned|plans to)\b", re.I)


def _states_winners(text: str) -> bool:
    """Whether ``text`` says who won, not who will ("successful applicants will be invited to prepare Grant
    Agreements", Hydrogen Bank second auction news, 2025, p. 2)."""
    return any(_WINNERS_WORD.search(s) and not _FUTURE.search(s) for _, s in split_sentences(text))


_VIEW_TOPIC = re.compile(r"\b(?:say|argue|conclude|suggest|write|claim|position|view|stance)s?\b[^?]*?\b(?:about|on|"
                         r"regarding|concerning)\s+([^?]+)", re.I)


def _view_of(asked: QuestionFrame) -> tuple[str, ...]:
    """The first two words of what a question asks a document's view on ("what do they say about the '100 % rule'"
    → ``("100", "rule")``), or ``()`` when it asks for none."""
    if not asked.asks_view:
        return ()
    m = _VIEW_TOPIC.search(asked.text)
    if m:
        return tuple(content_terms(m.group(1))[:2])
    # "According to Finnveden et al. (2022), can system expansion … be used …?" asks their view on system expansion
    return tuple(content_terms(ATTRIBUTION.sub("", asked.text))[:2]) if ATTRIBUTION.match(asked.text) else ()


def _holds_asked(asked: QuestionFrame) -> Callable[[str], bool] | None:
    """Whether a passage holds what ``asked`` specifically asks for: a value of the quantity it names, in its unit
    (or in per cent, for a question asking by how much a result changes), the formula parameter it names by
    symbol, every code it names ("goal situations C1 and C2"), both sides of a comparison as a table's columns, or
    what the term it asks about is; None when it asks for none of these."""
    # (not for a part searched with the part it refers back to: "what did they leave out … What functional unit did
    # Burchart et al. use …" asks what is left out)
    term = asked_term(asked.asking) if len(asked.parts) == 1 and not refers_back(asked.asking) else ""
    if not asked.quantity and not asked.parameters and not asked.codes and not asked.sides and not term:
        return None
    # a one-part question asking by how much a result changes is answered in per cent too (as in
    # :func:`unstated_value`); a part asking for "the relative reduction" after one asking for the GWP is not
    changes = asked.quantity and len(asked.parts) == 1 and asks_change(asked.asking)
    accepted = (asked.quantity, "%") if changes else (asked.quantity,)
    return lambda text: ((bool(asked.quantity) and any(states_quantity(text, q) for q in accepted))
                         or any(names_parameter(text, s) for s in asked.parameters)
                         or (bool(asked.codes) and all(names_code(text, c) for c in asked.codes))
                         or (bool(asked.sides) and _heads_both(text, asked.sides))
                         # (a passage saying what the term asked about is: "The functional unit defined for this study
                         # was 1 kg of green Arabica coffee beans", Nab & Maslin 2020, p. 7)
                         or (bool(term) and states_term(text, term)))


def _heads_both(text: str, sides: Sequence[str]) -> bool:
    """A table in ``text`` has a column for each side of a comparison: JRC ILCD compliance rules, Tab. 1 (pp. 5–6),
    "|Compliance area|ILCD Data Network - Entry-level|ILCD-compliance …|" for "… differ between the ILCD Data
    Network entry-level and full ILCD-compliance"."""
    words = [set(split_compounds(content_terms(side))) for side in sides]
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [set(split_compounds(content_terms(c))) for c in line.strip("|").split("|")]
            if all(any(len(w & cell) >= max(1, len(w) / 2) for cell in cells[1:]) for w in words if w):
                return True
            return False  # (the header row only)
    return False


def _fact_evidence(fact: Fact, documents: dict[str, DocumentRecord], spans: dict[str, list[Evidence]]
                   ) -> list[Evidence]:
    """The statements behind a graph fact as ledger evidence (only documents still in the library): the span of its
    chunk (``spans``: chunk id → the chunk's ledger) that holds the fact's quote, with its pages, list lead-in and
    context flags (Burchart et al. 2023: "… Therefore, for the present analysis, the FU is 1 kg of hydrogen at
    88 MPa …" runs from p. 4 to p. 5), else the quote as printed on the fact's page."""
    out = []
    for c in fact.citations:
        record = documents.get(str(c.get("doc_id")))
        if record is None or not c.get("quote") or not isinstance(c.get("page"), int) or not c.get("chunk_id"):
            continue
        key = match_key(c["quote"])
        held = next((e for e in spans.get(c["chunk_id"], ()) if key and key in match_key(e.text)), None)
        out.append(held or Evidence(
            evidence_id(c["doc_id"], c["page"], c["quote"]), c["doc_id"], record.source, record.title, c.get("section"),
            c["page"], record.label(c["page"]), c["quote"], c["chunk_id"]))
    return out


def _header(chunk: Chunk) -> str:
    """What a chunk's search text holds before its text (:func:`lcabot.ingest.chunking.document_header`): its document's
    title, authors and file-name words, and its section path."""
    text = for_search(chunk.text)
    return chunk.search_text[:-len(text)] if text and chunk.search_text.endswith(text) else ""


def _reason(judged: Support) -> str:
    if judged.unknown:
        return "the library never mentions: " + ", ".join(judged.unknown)
    return f"passages cover {judged.coverage:.0%} of the question; missing: {', '.join(judged.missing)}"


def _searched(query: str, documents: dict[str, Any], hits: Sequence[Hit]) -> str:
    n_chunks = sum(d.n_chunks for d in documents.values())
    closest = "; ".join(
        f"{documents[h.chunk.doc_id].source} p. {h.chunk.page_label_start}"
        for h in hits[:3] if h.chunk.doc_id in documents
    )
    text = f"{len(documents)} documents ({n_chunks} passages) for “{query}”"
    return text + (f"; closest passages: {closest}" if closest else "")
