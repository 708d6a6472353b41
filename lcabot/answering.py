"""Answering: retrieval → evidence ledger → generation → verification, or an abstention that says what was
searched."""

from __future__ import annotations

import re
from collections.abc import Sequence

from lcabot import messages
from lcabot.errors import GenerationError, IncompleteGenerationError, QuestionError
from lcabot.generation.extractive import ExtractiveGenerator
from lcabot.ledger import build_ledger, ledger_hash
from lcabot.models import Answer, Claim, DocumentRecord, Evidence, Hit, Turn
from lcabot.ports import Generator, SearchIndex
from lcabot.retrieval import HybridRetriever, RetrievalQuery, content_terms
from lcabot.support import Support, named_terms, split_compounds, support
from lcabot.verify import verify

MAX_QUESTION_CHARS = 2000
_MARKUP = re.compile(r"<[@!#][^>]{0,80}>|</?at>")
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
        retrieval_mode: reported in answers (``rag``).
    """

    def __init__(self, index: SearchIndex, retriever: HybridRetriever, generator: Generator,
                 fallback: ExtractiveGenerator, retrieval_mode: str = "rag") -> None:
        self._index = index
        self._retriever = retriever
        self._generator = generator
        self._fallback = fallback
        self._mode = retrieval_mode

    def ask(self, question: str, *, history: Sequence[Turn] = (), k: int = 5, doc_ids: Sequence[str] | None = None,
            perspective: str | None = None) -> Answer:
        """Answer ``question``; ``history`` holds earlier turns of the conversation (oldest first).

        Raises:
            QuestionError: the question is empty (after removing chat markup) or over :data:`MAX_QUESTION_CHARS`.
        """
        question = clean_question(question)
        documents = {d.doc_id: d for d in self._index.documents()}
        query = resolve_followup(question, history)
        if not documents:
            return self._abstain(messages.abstain_empty_library(), "an empty library", (), "empty_library")
        hits = self._retriever.retrieve(RetrievalQuery(query, k, tuple(doc_ids) if doc_ids else None, perspective))
        searched = _searched(query, documents, hits)
        terms = split_compounds(content_terms(query))
        df, n_chunks = self._index.term_document_frequency(terms)
        unknown_names = [n for n in named_terms(query) if not self._index.contains_text(n)]
        passages = [c.search_text for h in hits for c in (h.chunk, *h.context)]
        judged = support(terms, unknown_names, passages, df, n_chunks)
        if not hits or not judged.supported:
            return self._abstain(messages.abstain_no_evidence(searched, judged.unknown), searched, (),
                                 _reason(judged))
        ledger = build_ledger(hits, documents)
        claims, generator, notes = self._generate(query, ledger, history)
        verified = verify(claims, ledger, self._index)
        if verified.dropped:
            notes = (*notes, messages.claims_dropped(verified.dropped))
        if not verified.claims:
            return self._abstain(messages.abstain_no_evidence(searched), searched, ledger,
                                 "no verifiable statement", notes)
        return Answer(text=verified.text, abstained=False, citations=verified.citations, claims=verified.claims,
                      retrieval_mode=self._mode, searched=searched, ledger_hash=ledger_hash(ledger),
                      generator=generator, notes=notes)

    def documents(self) -> list[DocumentRecord]:
        return self._index.documents()

    def retrieve(self, question: str, *, history: Sequence[Turn] = (), k: int = 5) -> list[Hit]:
        """The passages :meth:`ask` would answer from (follow-ups resolved), best first."""
        return self._retriever.retrieve(RetrievalQuery(resolve_followup(clean_question(question), history), k))

    def _generate(self, query: str, ledger: list[Evidence], history: Sequence[Turn]
                  ) -> tuple[list[Claim], str, tuple[str, ...]]:
        try:
            return self._generator.generate(query, ledger, history), self._generator.name, ()
        except IncompleteGenerationError:
            note = messages.llm_incomplete()
        except GenerationError as err:
            note = messages.llm_failed(str(err))
        return self._fallback.generate(query, ledger, history), self._fallback.name, (note,)

    def _abstain(self, text: str, searched: str, ledger: Sequence[Evidence], reason: str,
                 notes: tuple[str, ...] = ()) -> Answer:
        return Answer(text=text, abstained=True, citations=(), claims=(), retrieval_mode=self._mode,
                      searched=searched, ledger_hash=ledger_hash(ledger), generator="none", abstain_reason=reason,
                      notes=notes)


def _reason(judged: Support) -> str:
    if judged.unknown:
        return "the library never mentions: " + ", ".join(judged.unknown)
    return f"passages cover {judged.coverage:.0%} of the question; missing: {', '.join(judged.missing)}"


def _searched(query: str, documents: dict, hits: Sequence[Hit]) -> str:
    n_chunks = sum(d.n_chunks for d in documents.values())
    closest = "; ".join(
        f"{documents[h.chunk.doc_id].source} p. {h.chunk.page_label_start}"
        for h in hits[:3] if h.chunk.doc_id in documents
    )
    text = f"{len(documents)} documents ({n_chunks} passages) for “{query}”"
    return text + (f"; closest passages: {closest}" if closest else "")
