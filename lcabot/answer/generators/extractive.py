"""The offline generator: a lead statement that gives the asked-for fact, then the best verbatim supporting quotes
of the evidence ledger (DESIGN.md §11)."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from lcabot import messages
from lcabot.answer.gates import failed_gate, scenario_share
from lcabot.answer.ledger import REFUTES, row_cells
from lcabot.graph.ontology import load as load_ontology
from lcabot.graph.ontology import normalise
from lcabot.ingest.normalize import for_search
from lcabot.models import Claim, Evidence, Turn
from lcabot.ports import Embedder
from lcabot.report.units import OWN_STUDY
from lcabot.search.abstention import (
    LEFT_OUT_WORD,
    document_names,
    documents_naming,
    specific_terms,
    split_compounds,
    term_present,
)
from lcabot.search.questions import (
    ASKS_FORMULA,
    ASKS_WHY_REJECTED,
    DEFINED_BY_VALUE,
    GIVES_REASON,
    HOW_MANY,
    ORDINALS,
    QUANTITIES,
    REASON_PART,
    RELATIVE_AMOUNT,
    SORT_NOUNS,
    STATES_EQUATION,
    QuestionFrame,
    asked_noun,
    asked_term,
    asks_change,
    attributed_source,
    defines_as,
    each_thing,
    frame,
    judges,
    names_each,
    names_parameter,
    per_unit,
    reason_subject,
    referent,
    states_count,
    states_per,
    states_quantity,
    states_rule,
    states_term,
    states_verdict,
    without_section,
)
from lcabot.search.retrieval import (
    ASKING_DEFINITION,
    STOPWORDS,
    WORD,
    content_terms,
    document_words,
    heading_in_section,
)

WEIGHTS = (0.5, 0.3, 0.2)  # cosine to the question, share of question terms, rank of the passage it comes from
PHRASE_WEIGHT = 0.1  # times the share of the question's word pairs the span holds (0.2 lost D002 on the dev set)
ABOUT_WEIGHT = 0.5  # of a term only in what the question refers back to (the part before it, its premise)
TITLE_WEIGHT = 0.4  # times the share of the question's terms in the span's section title: a sentence of "2.4 Truncation
# and aggregation errors" is about truncation errors, although it says "this" (dev set: the first line states a key
# fact 0.63 / 0.66 / 0.68 / 0.68 at 0.1 / 0.25 / 0.4 / 0.6; key facts 0.76 at each)
KIND_BONUS = 0.15  # for evidence of the kind asked for: a value with its unit, a definition, this study's own words
TYPE_WEIGHT = 3.0  # times the IDF weight of the noun naming the kind of thing asked for ("which … standard")
MAX_PER_PAGE = 3
MAX_LIST_ITEMS = 6  # items of one list quoted together under their lead-in
ROW_MARGIN = 0.1  # a table's further rows are read with its best row when they score at most this much less or
# their label holds a word of the question (Moretti et al. 2020, Table 4: the climate change rows, not water use)
MAX_SPAN_CHARS = 900  # longer sentences are run-together text, not quotable statements
MAX_ROW_CHARS = 1600  # a table row of text cells, both sides of a comparison (JRC ILCD compliance rules, Tab. 1, p. 6)
# one of a numbered series a part names: "the second renewable hydrogen delegated act" → second, act
_NTH = re.compile(r"\bthe\s+(first|second|third|fourth)\s+(?:[\w-]+\s+){0,3}?([a-z]{3,}?)s?\b(?=\s+(?:of|in|on|for|"
                  r"cover|does|did|is|was|under|and|,|\?)|\s*[,?]|$)", re.I)
# a choice stated as one (not "the selected study sites", Nab & Maslin 2020, p. 7)
_CHOSEN = re.compile(r"\b(?:has|have|had|was|were|is|are) (?:been )?(?:chosen|selected|preferred)\b|"
                     r"\b(?:we|they|the authors) (?:chose|selected)\b|\bopted for\b", re.I)
# a step of a procedure: "To calculate a 1% cut-off order the processes …", "First, …", "Step 2: …"
_STATES_STEP = re.compile(r"^\W*(?:to (?:calculate|determine|identify|apply|select|derive|obtain|perform|carry out)\b|"
                          r"(?:first(?:ly)?|second(?:ly)?|then|next|finally),|step \d)", re.I)
# a part asking which of several ranks first or last: "which … methods performed best" is not answered by the list of
# the methods (Groen et al. 2016, p. 1)
_ASKS_SUPERLATIVE = re.compile(r"\b(?:best|worst|fastest|slowest|highest|lowest|largest|smallest|most|least)\b",
                               re.I)
# a part asking which things have a property: "which life cycle stages are excluded from the PCF boundary"
_ASKS_PROPERTY = re.compile(r"\bwhich\b(?:\s+[\w-]+){1,5}?\s+(?:are|is|were|was)\b", re.I)
# a question asking how something is done: "how are the most relevant impact categories identified" → ("most relevant
# impact categories", "identified")
_ASKS_HOW_DONE = re.compile(r"\bhow\s+(?:is|are|was|were|should|shall|must)\s+(?:the\s+|a\s+|an\s+)?"
                            r"((?:[\w-]+\s+){0,4}?[\w-]+)\s+([a-z]{4,}ed)\b", re.I)
# a yes/no question on two things together: "Can system expansion and substitution be used in attributional LCA"
_ASKS_BOTH = re.compile(r"^\s*(?:can|could|may|should|must|is|are|does|do)\s+(?:[\w-]+\s+)??([\w-]+)\s+and\s+"
                        r"([\w-]+)\b", re.I)
# a part asking which row of a table has the extreme value of one column: "which project had the lowest bid price"
_ASKS_EXTREME = re.compile(r"\b(?:(low|small|cheap|short)est|(high|larg|great|bigg|long)est|(least|fewest)|(most))\s+"
                           r"((?:[\w-]+\s+){0,3}?[\w-]+)\s*(?:[?,.;]|$|\b(?:and|of|in|among|for|per)\b)", re.I)
# one value of a table row's reading, after its column's name: "Bid price (EUR/kg) 0.37", "Total requested funding
# (EUR) EUR 45,228,375", "Climate change 0.63 kg CO2eq"
_READ_VALUE = re.compile(r"^(?P<name>.+?)\s+\*?\s*(?:EUR\s+|€\s*)?(?P<value>[-−]?\d[\d,]*(?:\.\d+)?)(?![\w/.,])"
                         r"(?:\s.*)?$")
_BIO_BASED = re.compile(r"\b(?:UCO|used cooking oil|bio-?based|renewable)\b", re.I)
_FOSSIL_WORD = re.compile(r"\b(?:petrochemical|fossil|conventional|virgin)\b", re.I)
_FOSSIL_PRODUCT = re.compile(r"\b(?:petrochemical|fossil(?:-based)?)\s+(?:PP|PE|polypropylene|polyethylene|plastics?|"
                             r"polymers?|propylene|naphtha)\b", re.I)
LEAD_WINDOW = 5  # best spans searched for one stating a value, to lead a numeric answer (3 and 8: same dev figures)
_BOILERPLATE = re.compile(
    r"how to cite this article|all rights reserved|creativecommons\.org|^\s*(?:doi|https?|citation):|"
    r"^\s*•[^.;:]*\s•\s[^.;:]*$", re.I  # the last: a row of links or labels ("• Innovation Fund • European …")
)
_VALUE = re.compile(r"(?<![\w.])[-−–]?\d+(?:[.,]\d+)*\s*(?:(?:thousand|million|billion)\s+)?(?:%|kg|g\b|t\b|tonnes?\b|"
                    r"km|MJ|kWh|years?|mol|CTU|m3|m²|m2|hectares?\b|ha\b)|"
                    r"(?:EUR|€)\s*\d", re.I)
# (not a consequence: "This means legal certainty for both producers and consumers …", renewable hydrogen delegated
# acts news, p. 1)
_DEFINES = re.compile(r"\b(?:is|was|are|were) defined as\b|\bdefined for this study\b|\brefers? to\b|"
                      r"(?<!\bthis )(?<!\bwhich )(?<!\bthat )(?<!\bit )\bmeans\b|"
                      r"\bstands? for\b|\bis (?:called|termed)\b|\b(?:functional unit|FU)(?: \(FU\))? (?:is|was)\b|"
                      r"^\s*[A-Z]\d{0,2}\s*:\s|"  # a formula's list of parameters ("A: allocation …")
                      # "The most relevant life cycle stages are the life cycle stages which …" (PEFCR guidance p. 50)
                      r"^(?:the\s+|an?\s+)?(?:[a-z][\w-]*\s+){1,5}(?:is|are)\s+(?:the|those|any)\s+(?:[\w-]+\s+){0,4}"
                      r"(?:which|that|where|whose)\b", re.I)
# a claim reported as others', which the document may go on to reject
_REPORTED_CLAIM = re.compile(r"\bit (?:is|has been) (?:often |sometimes |commonly |frequently |widely )?"
                             r"(?:claimed|argued|suggested|assumed|believed|said) that\b|"
                             # common practice a paper goes on to question: "Typically, 1000 or 10,000 runs are done,
                             # but a clear argument for that number is not available" (Heijungs 2020, p. 394)
                             r"^(?:Typically|Usually|Commonly|Traditionally),", re.I)
# a question asking for a total: in words, or how much a group got ("How much money did the winners of the first
# European Hydrogen Bank auction get": "The total amount of support comes to EUR 694 521 237", p. 1)
_TOTAL = re.compile(r"\b(?:in total|total|altogether|combined|all together|overall|sum of)\b|"
                    r"\bhow much\b[^?]*\b(?:did|do|does|will|have|has)\s+(?:the|all|these|those)\s+[^?,]{0,80}?"
                    r"\b(?:winners|projects|companies|countries|members|participants|beneficiaries|bidders|applicants)\b|"
                    # "How much support did the first … auction grant": the sum of it
                    r"\bhow much (?:support|funding|money|grants?|aid|subsid(?:y|ies)|financing)\b", re.I)
_TOTAL_LABEL = re.compile(r"^\s*(?:Σ|∑|total|sum|overall|all\b|grand total)", re.I)
_ONTOLOGY = load_ontology()
_SUPERLATIVE = re.compile(r"(?:fast|slow|high|low|larg|small|great|bigg|cheap|short|long|strong|weak|heavi|easi|"
                          r"earli|lat|clos|near)est|best|worst")
_CONTRAST = re.compile(r"\bwhereas\b|\bin contrast\b", re.I)
# a sentence announcing the points the next sentences make ("… mainly as a result of two sustainability measures."),
# the first and further of them ("First, the use of cargo ships …")
_ANNOUNCES = re.compile(r"\b(?:two|three|four|five|several|following)\s+(?:[\w-]+\s+){0,2}[\w-]+s\s*[.:]$", re.I)
_FIRST_POINT = re.compile(r"^(?:First(?:ly)?|In the first place)\b")
_NEXT_POINT = re.compile(r"^(?:Second(?:ly)?|Third(?:ly)?|Fourth(?:ly)?|Finally|Lastly)\b")
_TABLE_NAME = re.compile(r"^\s*((?:table|tab\.)\s*[A-Z]?\d+)", re.I)


class ExtractiveGenerator:
    """Answers from the ledger alone: the lead statement gives the best evidence for the first part of the question
    (a table row written out with its column headers and units, or a verbatim sentence; a list item brings the other
    items of its list), then the best evidence for each further part, then the best of the rest, up to
    ``max_sentences`` and at most :data:`MAX_PER_PAGE` from one page. Evidence that fails a context gate
    (:mod:`lcabot.answer.gates`) is never picked.

    A sentence scores by cosine similarity to the question, by the share of the question's content terms it holds
    (IDF-weighted over the ledger; a term of an ontology concept counts under any of the concept's names, "LCI" for
    "life cycle inventory") and by the retrieval rank of its passage (weights :data:`WEIGHTS`), by the share of the
    question's word pairs it holds (:data:`PHRASE_WEIGHT`), plus :data:`KIND_BONUS`, scaled by that share of terms,
    when it is what the question's kind asks for (a value for "how much", twice when in the unit of the quantity
    asked for; a definition for "what is"; the study's own words for a question about one study), a share of it for
    each scenario word of the question it names (in any printed form: "non-seq." for "not sequestered"), and the
    whole bonus when it is in the section the question names. For a question asking for a value, the best of the
    first :data:`LEAD_WINDOW` spans that states one leads.
    """

    name = "extractive"

    def __init__(self, embedder: Embedder, max_sentences: int = 4) -> None:
        self._embedder = embedder
        self._max = max_sentences

    def generate(self, question: str, evidence: Sequence[Evidence], history: Sequence[Turn]) -> list[Claim]:  # noqa: C901
        asked = frame(question)
        lead_ins = {e.context for e in evidence if e.context}  # quoted with each of its items, never alone
        candidates = [e for e in evidence if len(e.text) <= (MAX_ROW_CHARS if e.reading else MAX_SPAN_CHARS)
                      and not _BOILERPLATE.search(e.text)
                      and e.text not in lead_ins and failed_gate(e, asked) is None]
        names = document_names(question, {e.doc_id: e.source for e in evidence},
                               {e.doc_id: e.title for e in evidence})
        named = {d for docs in names.values() for d in docs}
        naming: frozenset[str] = frozenset()
        subject: frozenset[str] = frozenset()
        if any(e.doc_id in named for e in evidence):  # "What functional unit does Burchart et al. use?": theirs
            # and only theirs: when none of its spans answers, another document's words do not either (the PEFCR
            # guidance's use stage rules are no answer to "What system boundary does the coffee study use?")
            candidates = [e for e in candidates if e.doc_id in named]
            # the name that chose the document tells nothing among its own sentences: "section 3.2 of the Pathfinder
            # Framework" asks what 3.2 says, not for the sentences that name the Framework
            # the words of its file name and title describe the document: "the first European Hydrogen Bank auction"
            # is which item, "how much support in total" what it is asked
            subject = frozenset(t for e in candidates for t in document_words(e.source, e.title))
            # so do "et al." and the year of its file name: "Groen et al. 2016" is which paper
            naming = frozenset({n.lower() for n in names} | {t for t in content_terms(question) if t == "al" or (
                t.isdigit() and t in subject)} | _name_run(question, names, {
                    t for e in candidates for t in document_words(e.source, None)}))
        else:  # no document named: the documents naming what the question names specifically (RFNBOs, Colombia)
            naming_docs = documents_naming(question, candidates)
            if naming_docs:
                candidates = [e for e in candidates if e.doc_id in naming_docs]
            # the source a question asks ("According to Our World in Data, what share …") is whose sentences to
            # quote, found by the document's byline; its words are not what a sentence must say
            naming = frozenset(content_terms(attributed_source(question)))
        if not candidates:
            return []
        parts = asked.parts if len(asked.parts) > 1 else ()
        # the best evidence for each part of a multi-part question first, then the best overall
        # the passages were ranked for the whole question, which its first part leads: their rank says nothing of
        # which answers a later part ("…, and which source shall the 100-year GWP characterisation factors be derived
        # from?": the Pathfinder Framework's p. 18, retrieved sixth for the boundary the question asks first)
        # (for a part, the named document's subject weighs as little as what the part refers back to: "How was used
        # cooking oil treated in the baseline of the Moretti UCO-PP study" asks how it was treated, "Accordingly, UCO
        # has been treated with a cut-off approach in the baseline calculations", Moretti et al. 2020, p. 7)
        # (the spans are embedded once for all the parts: only the part's own words change between them)
        spans = self._embedder.embed([_span_text(e) for e in candidates])
        scores = [self.score(part, candidates, asked, about=referent(parts, i) or asked.premise, naming=naming,
                             subject=subject if i < len(parts) else frozenset(),
                             by_rank=i == 0 or i == len(parts), vectors=spans)
                  for i, part in enumerate([*parts, asked.asking])]
        rankings = [np.argsort(-s, kind="stable") for s in scores]
        overall = scores[-1]
        asked_terms = [t for t in content_terms(asked.asking) if t not in naming | subject]

        def relevant(row: int, best: int) -> bool:  # a further row of the table of row ``best``: close to it in
            # score, or labelled with a word of the question ("Climate change, with biogenic carbon removal (BCR)")
            label = next((c for c in row_cells(candidates[row].text) if c), "")
            return overall[row] >= overall[best] - ROW_MARGIN or any(term_present(t, label) for t in asked_terms)
        leads = _part_leads(parts, rankings, candidates, naming | subject)
        # then each part's next best (Ritchie 2020, p. 2: after "less than 1% of beef's GHG emissions", "For most food
        # products, it accounts for less than 10%" for "what share of food's GHG emissions … comes from transport"),
        # then the rest by their score for the whole question
        seconds = [next((int(i) for i in ranking if int(i) not in leads), None) for ranking in rankings[:-1]]
        answers_part = {*leads, *(i for i in seconds if i is not None)}
        order = list(dict.fromkeys([*leads, *(i for i in seconds if i is not None), *(int(i) for i in rankings[-1])]))
        first = frame(parts[0]) if parts else asked
        # (the first part's value among its own best spans too: "What is the GWP of hydrogen from Shell coal
        # gasification per functional unit, with and without CO2 sequestration, and what is the functional unit?" is
        # led by "… from 34.8 kgCO2(eq)/FU to only 19.5 kgCO2(eq)/FU", Burchart et al. 2023, p. 11, sixth for the
        # first part, below the whole question's best)
        own_best = [int(i) for i in rankings[0][:2 * LEAD_WINDOW]] if parts else []
        valued = _value_first(order, candidates, first, naming | subject, own_best)
        if parts and leads and valued[0] != order[0] and order[0] == leads[0] and leads[0] not in leads[1:]:
            # the first part's value in place of its lead: the lead it replaces follows the other parts' leads ("…
            # we suggest to restrict the number of Monte Carlo runs to a number not greater than the sample sizes
            # …", then "… such as the popular pedigree approach, the Monte Carlo approach should not be used at all"
            # for "…, and what does he say about pedigree-based uncertainty distributions?", Heijungs 2020, p. 394)
            valued.remove(leads[0])
            valued.insert(max((valued.index(i) for i in leads[1:] if i in valued), default=0) + 1, leads[0])
        order = _definition_first(valued, candidates, first)
        order = _claim_not_first(order, candidates)
        how = _ASKS_HOW_DONE.search(parts[0] if parts else asked.asking)
        if how:  # "how are the most relevant impact categories identified" is led by the span saying how they are:
            # "The most relevant impact categories shall be identified as all impact categories that cumulatively
            # contribute to at least 80% …" (PEFCR guidance p. 50), not by "… excluded from the procedure to identify
            # the most relevant impact categories …" (p. 47)
            done = re.compile(rf"\b{re.escape(how.group(1))}\s+(?:(?:shall|should|must|can|may|will|are|is|were|was)"
                              rf"\s+)?(?:\w+\s+)?(?:be\s+)?{re.escape(how.group(2))}\b", re.I)
            pool = [int(i) for i in rankings[0][:LEAD_WINDOW]] if parts else order[:LEAD_WINDOW]
            lead = next((i for i in pool if done.search(candidates[i].text)), None)
            if lead is not None:
                order = [lead, *(i for i in order if i != lead)]
        both = _ASKS_BOTH.match(asked.asking) if not parts else None
        sides = [[t for t in content_terms(both.group(k)) if t not in naming | subject] for k in (1, 2)] if both else []
        if sides and all(sides):  # a yes/no question on two things together is led by a span naming both ("Can
            # system expansion and substitution be used in attributional LCA": "As discussed above, it seems reasonable
            # that system expansion and substitution can be compatible with ALCA", Finnveden et al. 2022, p. 4, not
            # the verdict on system expansion alone, p. 3)
            order = _lead_with(order, lambda i: all(term_present(t, candidates[i].reading or candidates[i].text)
                                                    for side in sides for t in side)
                               and not candidates[i].refuted and not _REPORTED_CLAIM.search(candidates[i].text))
        extreme = _extreme_rows(parts or (asked.asking,), candidates, naming | subject)
        if extreme:  # the row a part asks for by its extreme value takes its table's place, first for the first part
            label, rows, part_index = extreme
            where = 0 if part_index == 0 else next((n for n, i in enumerate(order) if candidates[i].reading
                                                    and candidates[i].doc_id == candidates[rows[0]].doc_id), 0)
            order = [*order[:where], rows[0], *(i for i in order[where:] if i != rows[0])]
        if order and candidates[order[0]].refuted and not first.asks_rejected:  # (a statement the document rejects
            # leads only a question asking what it rejects: "Do Finnveden et al. consider system expansion … acceptable
            # …, and why do they reject the '100 % rule'?" is led by its verdict on system expansion, p. 3, not by the
            # six statements of p. 1)
            order = _lead_with(order, lambda i: not candidates[i].refuted)
        picked: list[list[Evidence]] = []
        quoted: list[Evidence] = []  # what each statement is quoted by: its best-ranked span
        used: set[str] = set()
        per_page: dict[tuple[str, int], int] = {}
        tables: dict[tuple[str, int, str], tuple[int, int]] = {}  # a table → its place in the answer, its first row
        labels: dict[int, str] = {}  # a place in the answer → the extreme its rows are quoted for
        for i in order:
            e = candidates[i]
            if e.evidence_id in used or e.text in used:
                continue  # a sentence printed twice (a rule and its template copy) is quoted once
            if any(e.text in q.text or q.text in e.text for q in quoted if q.doc_id == e.doc_id and not q.reading):
                continue  # a sentence quoted with the one it refers back to is not quoted again on its own
            table = (e.doc_id, e.page, e.context)
            if extreme and e.reading and e.doc_id == candidates[extreme[1][0]].doc_id and i not in extreme[1]:
                continue  # the table a part asks the extreme of is read for that row only
            if e.reading and table in tables:  # a second row of a table: the table's rows about the question are
                # read together (Moretti et al. 2020, Table 4: both climate change rows, not water use)
                place, first_row = tables[table]
                # (a row leading a part is read with them whatever its score: JRC ILCD compliance rules Tab. 1, p. 6,
                # "Data quality" for "which three data-quality levels …" beside "Method" for another part)
                if not relevant(i, first_row) and i not in leads:
                    continue
                def keep(j: int, first: int = first_row) -> bool:
                    return relevant(j, first) or j in leads

                table_rows = _rows_of(e, order, candidates, keep)
                picked[place] = table_rows
                used.update(r.evidence_id for r in table_rows)
                continue
            if per_page.get((e.doc_id, e.page), 0) >= MAX_PER_PAGE and i not in answers_part:
                continue  # a part's best spans are quoted however many others their page gave: all four parts of
                # "What functional unit, system boundary, LCA approach and geographic scope …" are on Moretti et al.
                # p. 2
            if extreme and i == extreme[1][0]:  # (tied rows read together)
                tables[table] = (len(picked), i)
                labels[len(picked)] = extreme[0]
                group = [candidates[j] for j in extreme[1]]
            elif e.reading:  # a row is read with the table's further rows about the question, wherever they rank
                tables[table] = (len(picked), i)
                group = _rows_of(e, order, candidates, partial(relevant, best=i))
            else:
                group = _list_of(e, order, candidates) if e.context else _enumerated(i, candidates) or [e]
            # the statements a document rejects (asked for as such) are followed by the sentence rejecting them
            rejecting = [candidates[j] for j in order if candidates[j].doc_id == e.doc_id
                         and abs(candidates[j].page - e.page) <= 1 and REFUTES.search(candidates[j].text)
                         and candidates[j].text not in used][:1] \
                if any(g.refuted for g in group) and len(picked) < self._max - 1 else []
            for best, shown in ((e, group), *((r, [r]) for r in rejecting)):
                picked.append(shown)
                quoted.append(best)
                used.update(g.evidence_id for g in shown)
                used.update(g.text for g in shown)
                per_page[(best.doc_id, best.page)] = per_page.get((best.doc_id, best.page), 0) + 1
            if len(picked) >= self._max:
                break
        return [Claim(messages.extreme_statement(labels[n], statement(*group)) if n in labels else statement(*group),
                      tuple(dict.fromkeys([best.evidence_id, *(g.evidence_id for g in group)])), best.text)
                for n, (group, best) in enumerate(zip(picked, quoted, strict=True))]

    def score(self, question: str, evidence: Sequence[Evidence], asked: QuestionFrame | None = None,
              about: str = "", naming: frozenset[str] = frozenset(), by_rank: bool = True,
              subject: frozenset[str] = frozenset(), vectors: np.ndarray | None = None) -> np.ndarray:
        """Relevance of each evidence span to ``question`` (a whole question or one part of ``asked``, read with
        ``about``, the part its pronoun refers to), shape ``(len(evidence),)``. ``evidence`` is in ledger order,
        i.e. grouped by the rank of its passage; ``naming`` holds the names (lower case) by which the question named
        the documents of ``evidence``: they are not among its terms; ``by_rank``: the rank of a span's passage
        counts (not for a later part of a question, which the ranking was not made for); ``vectors``: the spans'
        embeddings when already computed (one row per span of ``evidence``)."""
        asked = asked or frame(question)
        part = frame(question) if question not in (asked.text, asked.asking) else asked
        question = without_section(question) if asked.section else question
        own = set(content_terms(question))
        question = f"{question} ({about})" if about else question
        texts = [_span_text(e) for e in evidence]
        if vectors is None:
            embedded = self._embedder.embed([question, *texts])
            cosine = embedded[1:] @ embedded[0]
        else:
            cosine = vectors @ self._embedder.embed([question])[0]
        terms = [t for t in content_terms(question) if t not in naming
                 and not (asked.defines and ASKING_DEFINITION.fullmatch(t))
                 and not (t in SORT_NOUNS and t in asked_noun(question).split())]  # "which GWP values": GWP
        # a term of a concept the question names is present where the concept is, under any of its names
        # ("life cycle inventory" in "the LCI stage", "hydrogen" in "kg H2") or a kind of it ("system boundary" in "a
        # cradle-to-factory gate scope")
        concepts, concept_words = _concepts_of(question)
        named = [{k for m in _ONTOLOGY.mentions(normalise(text)) for k in _ONTOLOGY.kinds(m.name)} for text in texts
                 ] if concepts else []
        present = {t: [term_present(t, text) or (t in concepts and bool(concepts[t] & named[i])) for i, text in
                       enumerate(texts)] for t in terms}
        # IDF inside the ledger: a term most sentences share (the study's subject) says little about which answers;
        # the rows of one table count once, as its headers are printed once (each row of the Hydrogen Bank pilot's
        # bid table, p. 2, reads "Total requested funding (EUR) …": "total" is no commoner for that)
        units = [(e.doc_id, e.page, e.context) if e.reading else e.evidence_id for e in evidence]
        weight = {t: math.log(1 + len(set(units)) / (1 + len({u for u, hit in zip(units, hits, strict=True) if hit})))
                  * (1.0 if t in own else ABOUT_WEIGHT) * (ABOUT_WEIGHT if t in subject else 1.0)
                  for t, hits in present.items()}
        for t, words in concept_words.items():  # a concept weighs as one term, however long its name
            if t in weight:
                weight[t] /= words
        # (the noun before a head naming only a sort of thing: "which GWP values" asks which GWP)
        kind = next((w for w in reversed(asked_noun(question).split()) if w not in SORT_NOUNS), "")
        if kind in weight:  # "which carbon footprint standard": a standard is what is asked for
            weight[kind] *= TYPE_WEIGHT
        for term in weight:  # "which method was fastest": of the methods, the fastest is what is asked for; "what
            # did they leave out of the system boundary": what is left out ("The following were not considered …")
            if _SUPERLATIVE.fullmatch(term) or LEFT_OUT_WORD.fullmatch(term):
                weight[term] *= TYPE_WEIGHT
        for symbol in asked.parameters:  # "the A factor in the CFF" asks about A: it weighs as the rest together
            terms.append(symbol)
            present[symbol] = [names_parameter(text, symbol) for text in texts]
            weight[symbol] = sum(weight.values()) / len(asked.parameters)
        total = sum(weight.values()) or 1.0
        overlap = np.array([sum(weight[t] for t in terms if present[t][i]) for i in range(len(evidence))]) / total
        pairs = _word_pairs(question)
        if pairs:
            spans = [f" {' '.join(WORD.findall(for_search(text).lower()))} " for text in texts]
            phrase = np.array([sum(1 for p in pairs if f" {p} " in span) for span in spans]) / len(pairs)
        else:
            phrase = np.zeros(len(evidence))
        ranks: dict[str, int] = {}
        for e in evidence:
            ranks.setdefault(e.chunk_id, len(ranks))
        rank = np.array([1.0 / (1 + ranks[e.chunk_id]) for e in evidence]) if by_rank else np.full(len(evidence), 0.5)
        # the kind bonus scales with the share of the question's terms the span holds: a value with a unit from an
        # unrelated table row earns nothing
        bonus = np.array([_kind_bonus(e, text, part, asked) for e, text in zip(evidence, texts, strict=True)])
        bonus = bonus * np.minimum(1.0, 2 * overlap)
        if kind.endswith("s") and _ASKS_WHICH.match(question):  # "Which … methods did Groen et al. compare": the
            # sentence listing them ("Five methods that quantify the contribution to output variance were evaluated:
            # squared standardized regression coefficient, …", p. 1), however few of the question's words it holds
            bonus += np.array([2 * KIND_BONUS * _lists_kind(text, kind) for text in texts])
        if asked.section:  # the question names the section: its own text is what it asks about, and a span
            # pointing to it ("• Time period and geography of the data (see Sections 7.2.1 and 7.2.2)") is not
            bonus += np.array([KIND_BONUS * (_in_section(e, asked.section) - _points_to(e, asked.section))
                               for e in evidence])
        if asked.sides:  # a comparison of a table's columns: the row it asks about is the one its label names
            # ("Review" for "How do the review requirements … differ between the ILCD Data Network entry-level and
            # full ILCD-compliance?", JRC ILCD compliance rules, Tab. 1, p. 6), every row names both columns
            sided = set(split_compounds(content_terms(" ".join(asked.sides))))
            asked_of = [t for t in own if not set(split_compounds([t])) <= sided]
            bonus += np.array([KIND_BONUS * bool(e.reading and any(term_present(t, next(
                (c for c in row_cells(e.text) if c.strip()), "").lower()) for t in asked_of)) for e in evidence])
            # (and a row giving both columns before one giving one: Tab. 7, p. 17, sets out the entry-level only)
            bonus += np.array([KIND_BONUS * _gives_both(e.reading, asked.sides) for e in evidence])
        # the question's words in the span's section title ("From supplier to factory" for a question about
        # transport from a supplier to the factory, not the lists of "From factory to final client")
        titled = np.array([sum(weight[t] for t in terms if t in own and term_present(t, e.section or ""))
                           for e in evidence]) / total
        w_cos, w_terms, w_rank = WEIGHTS
        scores: np.ndarray = (w_cos * cosine + w_terms * overlap + w_rank * rank + PHRASE_WEIGHT * phrase
                              + TITLE_WEIGHT * titled + bonus)
        return scores


def _part_leads(parts: Sequence[str], rankings: Sequence[np.ndarray], candidates: Sequence[Evidence],  # noqa: C901
                naming: frozenset[str]) -> list[int]:
    """The lead of each part of a multi-part question (none for a one-part question, or a part an earlier lead
    answers too), in the parts' order: its best span that no earlier part took, read as :func:`_value_first` and
    :func:`_definition_first` read a question's; for a part asking what a term is, its best span saying what it is.
    "What functional unit and which carbon footprint standard …?" leads with the FU, then PAS 2050:2011, not the FU
    sentence again; "…, and what is the functional unit?" with "the FU is 1 kg of hydrogen at 88 MPa", not "the GHG
    emissions rate for the assumed functional unit"."""
    leads: list[int] = []
    words = [set(content_terms(p)) - naming - SORT_NOUNS for p in parts]
    # the words only one part asks with ("large" of "… performed best for small and for large input uncertainties")
    distinct = [w.difference(*(v for m, v in enumerate(words) if m != n)) for n, w in enumerate(words)]
    for n, (part, ranking) in enumerate(zip(parts, rankings[:-1], strict=True)):
        asked = frame(part)
        ranked = [int(i) for i in ranking]
        if n:  # the first part's lead is read so over the whole order (:meth:`ExtractiveGenerator.generate`)
            ranked = _definition_first(_value_first(ranked, candidates, asked, naming), candidates, asked)
        # (a statement the document rejects answers only a part asking what it rejects)
        free = [i for i in ranked if i not in leads and (asked.asks_rejected or not candidates[i].refuted)] \
            or ranked[:1]
        if n and ASKS_WHY_REJECTED.match(part):  # "…, and why do they reject the '100 % rule'?": of its own best
            # spans, a verdict on the claim, one giving its reason first ("The 100 % rule is thus not correct if
            # defined as above", Finnveden et al. 2022, p. 2), not a case where it could hold
            reasons = sorted((i for i in free[:2 * LEAD_WINDOW] if states_verdict(candidates[i].text, argument=True)),
                             key=lambda i: GIVES_REASON.search(candidates[i].text) is None)
            if reasons:
                leads.append(reasons[0])
                continue
        elif n and REASON_PART.match(part):  # "…, and why?": of the spans best for the part it asks the reason of, the
            # first giving one ("Among the possible remaining allocation methods, energy has been chosen according
            # to RED recommendations …", Moretti et al. 2020, p. 4)
            reasons = [int(i) for i in rankings[n - 1][:2 * LEAD_WINDOW] if int(i) not in leads
                       and GIVES_REASON.search(candidates[int(i)].text)]
            # (the sentence after the value the part before asks, when it gives the reason: "The 77% reduction in
            # carbon footprint for sustainable coffee production in comparison to conventional production was due to
            # exportation of coffee beans via cargo ship …" after the two averages, Nab & Maslin 2020, p. 1)
            # (or after another of its best: "The increase in environmental impact category indicators is related to
            # the increased consumption of electricity …" after the sentence giving the increases, Burchart et al.
            # 2023, p. 14)
            anchor = _value_first([int(i) for i in rankings[n - 1]], candidates, frame(parts[n - 1]), naming)[0]
            after = next((i + 1 for i in dict.fromkeys([anchor, *(int(i) for i in rankings[n - 1][:LEAD_WINDOW])])
                          if i + 1 < len(candidates) and i + 1 not in leads
                          and candidates[i + 1].chunk_id == candidates[i].chunk_id
                          and GIVES_REASON.search(candidates[i + 1].text)), None)
            if after is not None:
                reasons.insert(0, after)
            # (the reason for a choice is the sentence saying why it was chosen: "Among the possible remaining
            # allocation methods, energy has been chosen according to RED recommendations …", Moretti et al. 2020,
            # p. 4, before "the allocation is not avoided due to the inapplicability of subdivision")
            # (in the section saying what was chosen, wherever it ranks)
            chosen = candidates[anchor]
            reasons = [*(i for i, c in enumerate(candidates)
                         if (c.doc_id, c.section) == (chosen.doc_id, chosen.section) and abs(c.page - chosen.page) <= 1
                         and i not in leads and i not in reasons and GIVES_REASON.search(c.text)
                         and _CHOSEN.search(c.text)), *reasons]
            reasons.sort(key=lambda i: _CHOSEN.search(candidates[i].text) is None)
            # (a reason for the kind of thing the part before asks for names it: "The reaction is highly endothermic;
            # therefore the feed is heated …" says nothing of the steam cracker's allocation approach, Moretti et al.
            # 2020, p. 3; "Direct substitution has been therefore applied to the net production of high pressure (HP)
            # steam as … it may represent physical causality better than other arbitrary allocations" does, p. 4)
            subject = reason_subject(parts[n - 1])
            reasons.sort(key=lambda i: bool(subject) and not any(term_present(t, candidates[i].text)
                                                                 for t in subject))
            if reasons:
                leads.append(reasons[0])
                continue
        each = each_thing(part)
        if each:  # "what does each of the two delegated acts cover": the sentence on each of them ("The first act
            # defines …", "The second act provides a methodology …", renewable hydrogen delegated acts news, p. 1)
            ordinals = [next((i for i in sorted(free, key=lambda i: not re.match(
                rf"(?:the\s+)?{o}\b", candidates[i].text, re.I)) if names_each(candidates[i].text, o, each)),
                None) for o in ORDINALS]  # (one saying so first: "The first act defines …", not "… the first act
            # clarifies …")
            found = [i for i in ordinals if i is not None]
            if len(found) > 1:
                leads.extend(found)
                continue
        # (the word naming the quantity asked aside: a share is printed as its value, "43%")
        named = [t for t in distinct[n] if not any(name == asked.quantity and words.search(t)
                                                   for name, words, _ in QUANTITIES)]
        if n and len(named) > 1 and any(all(term_present(t, candidates[i].reading or candidates[i].text)
                                            for t in named)
                                        and (asked.kind != "numeric" or _states_value(candidates[i]))
                                        for i in leads):
            continue  # an earlier part's lead answers it too, in every word only it asks with: "… used in oil
            # refining (43% in 2021) and industry (57%) …" gives the shares of "…, and what shares go to oil refining
            # and to industry?" (Wikipedia, Hydrogen economy, p. 1); another span would be filler
        term = asked_term(part)
        noun = asked_noun(part)
        # of the best spans, one holding more of the part's own words than of another part's comes first (Groen et
        # al. 2016, p. 1: "For large input uncertainties, Spearman correlation coefficients and the Sobol' indices
        # performed best", not "… especially for relatively small input uncertainties"), then one naming the kind
        # of thing asked for ("which carbon footprint standard": "… defined using PAS 2050:2011, a carbon standard
        # …", Nab & Maslin 2020, p. 7); a part and the part it refers back to ask of one thing, not of two
        if distinct[n]:
            theirs = set().union(*(d for m, d in enumerate(distinct) if m != n and not (
                (m == n - 1 and referent(parts, n)) or (m == n + 1 and referent(parts, m)))))
            head = next((w for w in reversed(noun.split()) if w not in SORT_NOUNS), "")

            # (a part asking for a value in a unit is answered by a span stating one before a span naming its head
            # noun: "what GHG result did they get with and without CO2 sequestration" by "… reduces GHG emissions by
            # about 44% from 34.8 kgCO2(eq)/FU to only 19.5 kgCO2(eq)/FU", Burchart et al. 2023, p. 11, not by "…
            # sequestration in hydrogen production results in a reduction …")
            # (and a count "how many farms": "With around 8,000 family businesses …", South Tyrolean apple, p. 2, not
            # "… apple trees were planted around the farmstead …")
            # (the first part's value is chosen over the whole order, :func:`_value_first`)
            quantity = asked.quantity if n and asked.kind in ("numeric", "comparison") else ""
            count = part if n and not quantity and HOW_MANY.search(part) else ""
            ratio = asked.kind == "comparison"  # "how much more … than boat": "50 times more CO2eq than boat"
            # (a value of no named unit, printed with one: "with what expected output" by "… the potential to produce
            # up to 1.52 million tonnes of renewable hydrogen …", Hydrogen Bank pilot news, p. 1)
            unnamed = bool(n) and asked.kind == "numeric" and not quantity and not count
            # (of two holding as many of a later part's words, one holding its most specific word, the one fewest spans
            # hold: "what does he say about pedigree-based uncertainty distributions" by "… such as the popular
            # pedigree approach, the Monte Carlo approach should not be used at all", not by "Uncertainty in LCA is
            # pervasive …", Heijungs 2020, p. 394)
            spread = {t: sum(term_present(t, c.reading or c.text) for c in candidates) for t in distinct[n]}
            rarest = min((t for t in spread if spread[t]), key=lambda t: (spread[t], t), default="") if n else ""

            def tier(i: int, own: set[str] = distinct[n], theirs: set[str] = theirs, head: str = head,
                     quantity: str = quantity, count: str = count, ratio: bool = ratio,
                     unnamed: bool = unnamed, rarest: str = rarest) -> tuple[int, int, bool, bool]:
                text = candidates[i].reading or candidates[i].text
                held = sum(term_present(t, text) for t in own)
                others = sum(term_present(t, text) for t in theirs)
                # one sentence setting the two against each other answers both: "Key issue analysis … was fastest,
                # whereas the Sobol' method … was slowest" (Groen et al. 2016, p. 1)
                contrasted = held and others and _CONTRAST.search(text) is not None
                valued = (states_quantity(text, quantity) or (ratio and _RATIO.search(text) is not None)
                          if quantity else states_count(text, count) if count
                          else _states_value(candidates[i]) if unnamed else 1)
                # (or holds every one of several words only this part asks with, whatever else it answers: "Virtually
                # all of the 100 million tonnes of hydrogen produced each year is used in oil refining (43% in 2021)
                # and industry (57%) …" for "How much hydrogen is produced each year, and what shares go to oil
                # refining and to industry?", Wikipedia, Hydrogen economy, p. 1, not "On a yearly basis, this would
                # cover 7% of the EU's REPowerEU ambition for domestic renewable hydrogen production …")
                whole = len(own) > 1 and held == len(own)
                return (-valued, -1 if contrasted else 0 if held > others or whole else 1 if held else 2,
                        bool(head) and not term_present(head, text), bool(rarest) and not term_present(rarest, text))
            # (one holding every word only this part asks with is searched further down: "Accordingly, UCO has been
            # treated with a cut-off approach in the baseline calculations", Moretti et al. 2020, p. 7, for "How was
            # used cooking oil treated in the baseline …", seventh for the part)
            # (its words naming the document's subject aside: "UCO-PP")
            key = [t for t in distinct[n] if not set(split_compounds([t])) & naming]
            whole = [i for i in free[LEAD_WINDOW:2 * LEAD_WINDOW] if len(key) > 1 and all(
                term_present(t, candidates[i].reading or candidates[i].text) for t in key)]
            if whole and not any(all(term_present(t, candidates[i].reading or candidates[i].text) for t in key)
                                 for i in free[:LEAD_WINDOW]):
                free = [whole[0], *(i for i in free if i != whole[0])]
            free = [*sorted(free[:LEAD_WINDOW], key=tier), *free[LEAD_WINDOW:]]
        if not n and REASON_PART.match(part):  # "Why does Heijungs think running many thousands of Monte Carlo
            # iterations … is a problem": of the best, one giving a reason ("… thus pointing out a fundamental flaw",
            # Heijungs 2020, p. 394), not "The solution of taking a small number of Monte Carlo runs …" (p. 401)
            free = [*sorted(free[:LEAD_WINDOW], key=lambda i: GIVES_REASON.search(candidates[i].text) is None),
                    *free[LEAD_WINDOW:]]
        kinds = _kinds_of(noun, part)
        if kinds and any(_names_kind(candidates[i].reading or candidates[i].text, kinds) and (not distinct[n] or any(
                term_present(t, candidates[i].reading or candidates[i].text) for t in distinct[n])) for i in leads):
            continue  # an earlier part's lead answers it too: "A cradle-to-factory gate scope and an attributional
            # approach are adopted" gives Moretti et al.'s boundary and their LCA approach (not when it is of another
            # thing: the hydrotreatment's energy allocation says nothing of the steam cracker's, p. 4)
        plural = next((w for w in reversed(noun.split()) if w not in SORT_NOUNS), "")
        # (not which of them ranks first: "which … methods performed best for small input uncertainties" is not
        # answered by the five methods evaluated, Groen et al. 2016, p. 1)
        lists = plural.endswith("s") and _ASKS_WHICH.match(part) is not None and not _ASKS_SUPERLATIVE.search(part)
        # (a list answers which of its kind have a property only when it or its lead-in names the property: "which
        # life cycle stages are excluded from the PCF boundary" is not answered by the five stages, Pathfinder
        # Framework p. 18, "The life cycle of a product is composed of five stages: …")
        # (what the study did to them is no property: "which … methods did Groen et al. compare" is answered by "Five
        # methods … were evaluated: …", Groen et al. 2016, p. 1)
        qualifiers = distinct[n] - set(content_terms(noun)) if _ASKS_PROPERTY.search(part) else set()
        formula = ASKS_FORMULA.search(part) is not None  # "how are they combined": its equation, "DQR = (TeR+GR+TiR+
        # P)/4 [Equation 20]" (PEFCR guidance p. 130)
        stating = [i for i in free[:LEAD_WINDOW] if formula and STATES_EQUATION.search(candidates[i].text)] or [
            i for i in free if term and states_term(candidates[i].reading or candidates[i].text, term)] or [
            i for i in free if kinds and _names_kind(candidates[i].reading or candidates[i].text, kinds)] or [
            i for i in free[:LEAD_WINDOW] if lists and (_lists_kind(candidates[i].text, plural)
                                                         or _item_of_kind(candidates[i], plural))
            and (not qualifiers or any(term_present(t, f"{candidates[i].context or ''} {candidates[i].text}")
                                       for t in qualifiers))] or [
            i for i in free[:LEAD_WINDOW] if noun and states_term(candidates[i].reading or candidates[i].text, noun)
            # and holds what this part asks distinctly: "which method was slowest" is not answered by "The
            # comparison of the sensitivity methods was based on four aspects" (Groen et al. 2016, p. 1)
            and (not distinct[n] or any(term_present(t, candidates[i].reading or candidates[i].text)
                                        for t in distinct[n]))]
        lead = (stating or free)[0]
        # (a part asking the value of a formula's parameter, by a span naming it with a value: "what is the default B
        # value" by "In PEF studies and benchmark calculations the B value shall be equal to 0 as default", PEFCR
        # guidance p. 114, not by the default values of A, R1 and R2, p. 213; not by a template's bracketed
        # instruction, "Within this table, the B value shall be equal to 0 as default.]", p. 203)
        symbols = tuple(p for p in asked.parameters if re.search(  # (its default: what it is, "What is the A
            # factor", is its definition, "A: allocation factor of burdens and credits …", p. 113)
            rf"\bdefault\s+{re.escape(p)}[\s-]+(?:values?|factors?)\b", part))
        if symbols and not _values_parameters(candidates[lead], symbols):
            lead = next((i for i in free if _values_parameters(candidates[i], symbols)
                         and not re.search(r"[\[\]]", candidates[i].text)), lead)
        leads.append(lead)
    return list(dict.fromkeys(leads))


def _values_parameters(evidence: Evidence, symbols: Sequence[str]) -> bool:
    """``evidence`` names each formula parameter of ``symbols`` ("B") and holds a number ("the B value shall be equal
    to 0 as default", PEFCR guidance p. 114)."""
    text = evidence.reading or evidence.text
    return re.search(r"\d", text) is not None and all(names_parameter(text, p) for p in symbols)


def _kinds_of(noun: str, part: str) -> frozenset[str]:
    """The ontology's kinds of the concept ``noun`` (as :func:`asked_noun` gives it, lower case, from ``part``)
    names ("system boundary" → cradle-to-gate, cradle-to-grave, gate-to-gate; "LCA approach" → attributional and
    consequential LCA), else empty."""
    named = {m.name for m in _ONTOLOGY.mentions(normalise(part)) if m.surface.lower() in noun} if noun else set()
    return frozenset(n for n, broader in _ONTOLOGY.broader.items() if broader & named)


def _names_kind(text: str, kinds: frozenset[str]) -> bool:
    """``text`` names one of ``kinds``: "A cradle-to-factory gate scope and an attributional approach are adopted"
    says which system boundary and which LCA approach Moretti et al. (2020, p. 2) chose."""
    return any(m.name in kinds for m in _ONTOLOGY.mentions(normalise(text)))


# a statement of a position: what should or should not be done, what is (not) correct
_STANCE = re.compile(r"\b(?:should|must|shall|(?:we|authors|paper|study) (?:recommend|suggest|conclude|argue)s?|"
                     r"(?:is|are) not correct|cannot|can(?: also)? be used)\b", re.I)
_ASKS_WHICH = re.compile(r"^\s*(?:[^,?]{0,80},\s*)?(?:which|what)\b", re.I)  # ("In the ILCD …, what are …")
_ENUMERATES = re.compile(r":\s*[^:;.]{3,}(?:,[^,;:.]{3,}){2,}")  # "…were evaluated: a, b, c and d"
_STATES_CHANGE = re.compile(r"\b(?:reduc|increas|decreas|lower|cut|sav|ris|fall|fell|drop)\w*\b[^.;]{0,60}?\bby\s+"
                            r"(?:about\s+|around\s+|approximately\s+|almost\s+|over\s+|some\s+)?[-−]?\d|"
                            r"\bfrom\s+[-−]?\d[\d.,]*\s*[^\s\d]*\s+to\s+(?:only\s+|just\s+)?[-−]?\d", re.I)
_SHARE_OF_WHOLE = re.compile(r"\b(?:share|percentage|proportion|fraction)\s+of\b", re.I)
_PERCENT_OF = re.compile(r"%\s+of\s+(?:the\s+|its\s+|their\s+)?((?:[A-Za-z][A-Za-z-]*(?:['’]s)?\s?){1,3})")


def _share_of_another(text: str, question: str) -> bool:
    """``text`` gives a share of another whole than the one ``question`` asks a share of: "less than 1% of beef's
    GHG emissions" (of one food) or "only 0.16% of food miles" (of distance) for "what share of food's greenhouse gas
    emissions typically comes from transport" (Ritchie 2020, pp. 2–3): the possessor or the head noun after "% of"
    is not in the question."""
    for m in _PERCENT_OF.finditer(text):
        words = list(itertools.takewhile(lambda w: w.lower() not in STOPWORDS, m.group(1).split()))
        whose = [w for w in words if re.search(r"['’]s$", w)]
        if any(not term_present(re.sub(r"['’]s$", "", w).lower(), question) for w in whose) or (
                words and not term_present(words[-1].lower(), question)):
            return True
    return False
_RATIO = re.compile(r"\b\d+(?:[.,]\d+)?(?:\s*times|-fold)\s+(?:more|less|higher|lower|greater|smaller)\b", re.I)


def _value_first(order: list[int], candidates: Sequence[Evidence], asked: QuestionFrame,
                 naming: frozenset[str] = frozenset(), also: Sequence[int] = ()) -> list[int]:
    """For a question asking for a value, the best of the first :data:`LEAD_WINDOW` spans that states one (in the
    unit of the quantity asked for, when it names one) leads: the answer's first line is the asked-for fact.
    ``also``: further spans searched after those (the best for the first part of a multi-part question)."""
    if asked.kind not in ("numeric", "comparison") or (asked.kind == "comparison" and not asked.quantity) \
            or REASON_PART.match(asked.asking):
        return order  # "the difference between situations C1 and C2" asks for no value, "why is it so much lower"
        # for the reason (Nab & Maslin 2020, p. 14), not the values
    asks_unit = bool(asked_term(asked.asking))  # "what functional unit …": its statement is the answer

    def states(e: Evidence) -> bool:
        text = e.reading or e.text
        # "how much more CO2eq per tonne-kilometre does air freight emit than boat" is answered by a ratio: "it emits
        # 50 times more CO2eq than boat per tonne kilometer" (Ritchie 2020, p. 2)
        if asked.kind == "comparison" and _RATIO.search(text):
            return True
        # (a functional unit is the reference results are given per, not a result: "The functional unit defined for
        # this study was 1 kg of green Arabica coffee beans, such that the resulting carbon footprint results are
        # presented as kilograms of carbon dioxide equivalent per 1 kg …", Nab & Maslin 2020, p. 7)
        if not asks_unit and any(states_term(text, u) for u in DEFINED_BY_VALUE):
            return False
        if not asked.quantity and HOW_MANY.search(asked.asking):  # a count: "With around 8,000 family businesses"
            return states_count(text, asked.asking) > 0 or RELATIVE_AMOUNT.search(text) is not None  # (South
            # Tyrolean apple, p. 2), "Six renewable … projects", "a number not greater than the sample sizes"
        return states_quantity(text, asked.quantity) if asked.quantity else _states_value(e, asked)
    # a question asking for a total is not answered by one item's row, which is not searched as a lead at all
    total = _TOTAL.search(asked.asking) is not None
    window = [i for i in order if not (total and candidates[i].reading and not _one_of_all(candidates[i], asked))]
    searched = list(dict.fromkeys([*window[:LEAD_WINDOW], *(i for i in also if i in window)]))
    stating = [i for i in searched if states(candidates[i])]
    if not asked.quantity and HOW_MANY.search(asked.asking):  # a number of the things asked for first, wherever it
        # ranks ("Six renewable hydrogen projects have signed …", Hydrogen Bank pilot p. 1, for "how many projects")
        stating = [i for i in window if states_count(candidates[i].text, asked.asking) == 2][:1] or stating
        stating.sort(key=lambda i: -states_count(candidates[i].text, asked.asking))
    if total:  # (a total is what a sentence says it states, wherever it ranks: when none of the best does, any
        # total; a total of the thing the question asks the total of first: "The total amount of support comes to
        # EUR 694 521 237", Hydrogen Bank pilot p. 1, for "what total support", not the next auction's "increased
        # budget of EUR 1.2 billion", p. 2; not "the total amount of coffee produced" for a total carbon footprint)
        totals = [i for i in window if not candidates[i].reading and states(candidates[i])
                  and _TOTAL.search(candidates[i].text) and not failed_gate(candidates[i], asked)]
        of = re.search(r"\b(?:total|how much)\s+(?:amount\s+of\s+)?([a-z]{3,})", asked.asking, re.I)
        stating = [i for i in totals if of and re.search(rf"\btotal\s+(?:[\w-]+\s+){{0,2}}{of.group(1)}",
                                                          candidates[i].text, re.I)] or stating or totals
    if not stating:
        return order
    # a question asking by how much a result changes is answered by a span stating the change ("… which reduces GHG
    # emissions by about 44% from 34.8 kgCO2(eq)/FU to only 19.5 kgCO2(eq)/FU", Burchart et al. 2023, p. 11), not by
    # one comparing the result with another study's ("… one sees emission differences of 1.7 kg CO2eq. to the
    # disadvantage of the Shell technology", p. 13)
    if asks_change(asked.asking):
        stating = [i for i in stating if _STATES_CHANGE.search(candidates[i].reading or candidates[i].text)] \
            or stating
    # the first of those holding a word of the question's own (not one that only names the document): "How much
    # support in total …" is answered by "The total amount of support comes to EUR 694 521 237", not by the next
    # auction's budget of EUR 1.2 billion, which ranks higher for being about the auction
    # of those, the ones naming what the question names specifically: "Hydrogen from Shell coal gasification: what
    # GWP …" is answered by "For the hydrogen produced by Shell technology, … 34.8 kg CO2-eq./kg H2 for non-seq."
    # (Burchart et al. p. 13), not by the totals of the SCG and UCG study it cites
    names = [t for t in specific_terms(asked.asking) if not any(c.isdigit() for c in t) and not t.isupper()
             and t.lower() not in naming]  # names, not acronyms ("EF study")
    stating = [i for i in stating if any(term_present(n.lower(), f"{candidates[i].context} {candidates[i].text}")
                                         for n in names)] or stating
    # (and a value per what the question asks it per: "(per kg green coffee)" is answered by "15.33 (±0.72) kg of
    # carbon dioxide equivalent per 1 kg of green coffee", Nab & Maslin 2020, p. 1, not "0.28 … kg CO2e per espresso
    # beverage", p. 12)
    # (of the product the question names, not its fossil counterpart: "… for polypropylene made from used cooking
    # oil" is answered by Table 4's 0.63 kg CO2eq, not by "1 kg of petrochemical PP causes 1.65–1.78 kg CO2eq GHGs",
    # Moretti et al. 2020, pp. 6 and 10)
    if _BIO_BASED.search(asked.text) and not _FOSSIL_WORD.search(asked.text):
        stating = [i for i in stating if not _FOSSIL_PRODUCT.search(candidates[i].reading or candidates[i].text)] \
            or stating
    # (a share of the whole the question names, not of one of its kinds: "what share of food's greenhouse gas
    # emissions … comes from transport" by "For most food products, it accounts for less than 10%", not by "less than
    # 1% of beef's GHG emissions", Ritchie 2020, p. 2)
    if _SHARE_OF_WHOLE.search(asked.asking):
        stating = [i for i in stating if not _share_of_another(candidates[i].text, asked.asking)] or stating
    per = per_unit(asked.asking)
    if any(per):
        stating = [i for i in stating if states_per(candidates[i].reading or candidates[i].text, per)] or stating
    terms = [t for t in content_terms(asked.asking) if t not in naming]
    lead = next((i for i in stating if any(term_present(t, candidates[i].reading or candidates[i].text)
                                           for t in terms)), stating[0])
    return [lead, *(i for i in order if i != lead)]


def _name_run(question: str, names: dict[str, tuple[str, ...]], filed: set[str]) -> frozenset[str]:
    """The words around a document's name in ``question`` that its file name holds too (``filed``): "the ILCD Data
    Network compliance document" names jrc-ilcd-data-network-compliance-v1.1.pdf by all four words, so none of them
    is asked for (the entry-level table's "ILCD Data Network - Entry-level" column is no answer to "What does chapter
    4 … introduce?")."""
    words = [w.lower() for w in re.findall(r"[^\W_][\w-]*", question)]
    named = {w.lower() for n in names for w in re.findall(r"[^\W_][\w-]*", n)}
    run: set[str] = set()
    for i, w in enumerate(words):
        if w not in named:
            continue
        j, k = i, i
        while j > 0 and words[j - 1] in filed:
            j -= 1
        while k + 1 < len(words) and words[k + 1] in filed:
            k += 1
        run.update(words[j:k + 1])
    return frozenset(run)


def _gives_both(reading: str, sides: Sequence[str]) -> bool:
    """A table row's reading gives a value under a column header for each side of a comparison, in two different
    columns ("… | ILCD Data Network - Entry-level: … | ILCD -compliance (details see Tab 6) .: …")."""
    headers = [set(split_compounds(content_terms(cell.split(":", 1)[0]))) for cell in reading.split(" | ")[1:]
               if ":" in cell] if reading else []
    columns = [{i for i, h in enumerate(headers) if len(h & w) >= max(1, len(w) / 2)}
               for w in (set(split_compounds(content_terms(side))) for side in sides)]
    return len(columns) == 2 and bool(columns[0]) and bool(columns[1]) and len(columns[0] | columns[1]) > 1


def _one_of_all(row: Evidence, asked: QuestionFrame) -> bool:
    """Whether a table row can state the total a question asks for: a row labelled as the total ("Total", "Sum",
    "Σ") or one the question names by its label. The Hydrogen Bank pilot's bid table (p. 2) gives each project's
    "Total requested funding (EUR)"; "How much support in total did the six projects … receive?" is answered by "The
    total amount of support comes to EUR 694 521 237" (p. 1), not by eNRG Lahti's EUR 45,228,375."""
    label = next((c for c in row_cells(row.text) if c), "")
    return bool(_TOTAL_LABEL.match(label)) or term_present(label.lower(), asked.asking.lower())


def _states_value(evidence: Evidence, asked: QuestionFrame | None = None) -> bool:
    """A table row, prose printing a number with a unit, or a value of a parameter the question names by symbol
    ("In PEF studies the A factor values shall be in the range 0.2 ≤ A ≤ 0.8", PEFCR guidance p. 114)."""
    if evidence.reading or _VALUE.search(evidence.text):
        return True
    return asked is not None and any(re.search(rf"(?<![\w.]){re.escape(p)}\s*[=≤<≥>]\s*\d|\d\s*[=≤<≥>]\s*"
                                               rf"{re.escape(p)}(?![\w.])", evidence.text) for p in asked.parameters)


def _list_of(item: Evidence, order: list[int], candidates: Sequence[Evidence]) -> list[Evidence]:
    """A list item with the other items under its lead-in, in document order (at most :data:`MAX_LIST_ITEMS`, the
    best ranked): a rule set out as a list is read whole, so its exceptions stay with it (PEFCR guidance 7.6,
    p. 61: the 1 % cut-off, then the toxicity categories it ignores). Any other span stands alone."""
    if not item.context or item.reading:
        return [item]
    items = {candidates[i].text: i for i in reversed(order) if candidates[i].doc_id == item.doc_id
             and candidates[i].context == item.context and abs(candidates[i].page - item.page) <= 1
             and not candidates[i].reading}  # one of each text, the best ranked
    best = sorted(items.values(), key=order.index)[:MAX_LIST_ITEMS]
    return [candidates[i] for i in sorted(best, key=lambda i: (candidates[i].page, candidates[i].place, i))]


def _enumerated(i: int, candidates: Sequence[Evidence]) -> list[Evidence]:
    """The sentence announcing points and the sentences making them ("First, …", "Second, …"), when candidate ``i``
    is either, in document order (at most :data:`MAX_LIST_ITEMS`): "The sustainable case studies … had an estimated
    77% lower carbon footprint …, mainly as a result of two sustainability measures. First, the use of cargo ships
    …" (Nab & Maslin 2020, p. 14) is quoted with the measures it announces; else empty."""
    start = i - 1 if i and _FIRST_POINT.match(candidates[i].text) else i
    if not _ANNOUNCES.search(candidates[start].text):
        return []
    points = [candidates[start]]
    for j in range(start + 1, min(len(candidates), start + 1 + MAX_LIST_ITEMS)):
        e = candidates[j]
        if e.doc_id != points[0].doc_id or e.reading or e.context or not (
                _FIRST_POINT if len(points) == 1 else _NEXT_POINT).match(e.text):
            break
        points.append(e)
    return points if len(points) > 1 else []


def _rows_of(row: Evidence, order: list[int], candidates: Sequence[Evidence],
             relevant: Callable[[int], bool] = lambda _: True) -> list[Evidence]:
    """The ``relevant`` rows of ``row``'s table among the candidates (at most :data:`MAX_LIST_ITEMS`, the best
    ranked), in the table's order: when two rows of one table answer, the reader sees the table (PEFCR guidance
    Table 6, p. 54: the five life cycle stages and their shares, not three of them)."""
    same = [i for i in order if candidates[i].reading and candidates[i].doc_id == row.doc_id
            and candidates[i].page == row.page and candidates[i].context == row.context and relevant(i)]
    return [candidates[i] for i in sorted(same[:MAX_LIST_ITEMS])]


def _column_values(reading: str) -> dict[str, float]:
    """A table row's values by the name of their column, from its reading (:func:`lcabot.answer.ledger.row_reading`):
    ``{"Bid price (EUR/kg)": 0.37, …}`` for "eNRG Lahti Nordic Ren-Gas Oy Finland: Bid price (EUR/kg) 0.37; Bid volume
    (kt H2/10years) 122; …" (Hydrogen Bank pilot auction news, p. 2); a row of sub-tables side by side has none."""
    if " | " in reading or " · " in reading or ": " not in reading:
        return {}
    values = {}
    for segment in reading.split(": ", 1)[1].split("; "):
        m = _READ_VALUE.match(segment)
        if m:
            values[m.group("name").strip()] = float(m.group("value").replace(",", "").replace("−", "-"))
    return values


def _extreme_rows(parts: Sequence[str], candidates: Sequence[Evidence], naming: frozenset[str]
                  ) -> tuple[str, list[int], int] | None:
    """For the first part asking which row of a table has the lowest or highest value of a column ("which project
    had the lowest bid price"), the label of that extreme ("Lowest “Bid price (EUR/kg)”"), the rows holding it (in
    the table's order; several when tied) and the part's index; ``None`` when no part asks one or no table of the
    candidates has a column naming it. The extreme is over every row of the document's tables printing the column:
    "eNRG Lahti … Bid price (EUR/kg) 0.37" of the six winning bids (Hydrogen Bank pilot auction news, p. 2)."""
    for n, part in enumerate(parts):
        asked = _ASKS_EXTREME.search(part)
        if asked is None:
            continue
        lowest = bool(asked.group(1) or asked.group(3))
        words = [t for t in content_terms(asked.group(5)) if t not in naming]
        rows = {i: _column_values(e.reading) for i, e in enumerate(candidates) if e.reading}
        named = {name for values in rows.values() for name in values}
        held = {name: sum(term_present(t, name) for t in words) for name in named}
        best = max(held.values(), default=0)
        chosen = [name for name, k in held.items() if k == best]
        if not words or best < len(words) or len(chosen) != 1:  # (a column naming every word asked)
            continue
        name = chosen[0]
        docs = {candidates[i].doc_id for i, values in rows.items() if name in values}
        if len(docs) != 1:
            continue
        column = {i: values[name] for i, values in rows.items() if name in values}
        if len(column) < 2 or len(set(column.values())) < 2:
            continue
        edge = min(column.values()) if lowest else max(column.values())
        label = f"{'Lowest' if lowest else 'Highest'} “{name}”"
        return label, sorted(i for i, v in column.items() if v == edge), n
    return None


def _claim_not_first(order: list[int], candidates: Sequence[Evidence]) -> list[int]:
    """A claim the document reports as others' ("It is often claimed that system expansion … should not be used
    for ALCA", Finnveden et al. 2022, p. 3, which the paper goes on to reject) does not lead the answer: the best of
    the first :data:`LEAD_WINDOW` spans that is not one does."""
    if not order or not _REPORTED_CLAIM.search(candidates[order[0]].text):
        return order
    return _lead_with(order, lambda i: not _REPORTED_CLAIM.search(candidates[i].text))


def _definition_first(order: list[int], candidates: Sequence[Evidence], asked: QuestionFrame) -> list[int]:
    """For a question asking what a study's functional unit, system boundary or other concept of the ontology is,
    the best of the first :data:`LEAD_WINDOW` spans that defines it (:data:`_DEFINES`) and names it, under any of its
    names, leads (a glossary entry for the term asked about leads, wherever it ranks): "What functional unit did
    Burchart et al. 2023 use …?" is answered by "the FU is 1 kg of hydrogen at 88 MPa" (p. 5), not by "In Table 6,
    input and output data are presented per kg of hydrogen", which ranks higher for its passage's rank."""
    # a code the question asks about is answered by where the document sets out what it is ("o Situation C1
    # "Accounting including external benefits": Includes …", JRC ILCD compliance rules p. 7), wherever that ranks:
    # p. 9's table of compliance data sets only names C1 and C2, with more of the question's words
    if asked.codes and asked.kind in ("definition", "comparison"):
        setting_out = [next((i for i in order if _defines_code(candidates[i].text, c)), None) for c in asked.codes]
        lead = list(dict.fromkeys(i for i in setting_out if i is not None))
        if lead:
            return [*lead, *(i for i in order if i not in lead)]
    if asked.kind != "definition" or each_thing(asked.asking):  # ("what does each of the two acts cover": the
        return order  # sentence on each, :func:`_part_leads`)
    glossary = next((i for i in order if defines_as(candidates[i].text, asked.defines)), None)
    if glossary is not None:  # the document's own entry for the term asked about ("Company-specific data – It
        # refers to …", PEFCR guidance p. 16) or its sentence defining it ("The most relevant impact categories shall
        # be identified as …", p. 50), wherever it ranks: a sentence using the term is no definition of it
        return [glossary, *(i for i in order if i != glossary)]
    # a rule is set out where the document prescribes it with its threshold (:func:`states_rule`)
    if any(states_rule(candidates[i].text, asked.defines) for i in order[:LEAD_WINDOW]):
        return _lead_with(order, lambda i: states_rule(candidates[i].text, asked.defines))
    # the concepts of what it asks for ("What functional unit were used in the LCA of polypropylene …": the
    # functional unit, not polypropylene, which "the geographic scope is defined as the Netherlands" names too)
    noun = asked_noun(asked.asking)
    concepts = {m.name for m in _ONTOLOGY.mentions(normalise(noun))} if noun else set()
    concepts = concepts or {m.name for m in _ONTOLOGY.mentions(normalise(asked.asking))}
    if not concepts:
        return order
    return _lead_with(order, lambda i: _DEFINES.search(candidates[i].text) is not None
                      and bool(concepts & {m.name for m in _ONTOLOGY.mentions(normalise(candidates[i].text))}))


def _lead_with(order: list[int], fits: Callable[[int], bool]) -> list[int]:
    """``order`` with the first of its first :data:`LEAD_WINDOW` that ``fits`` moved to the front (unchanged when
    none does)."""
    lead = next((i for i in order[:LEAD_WINDOW] if fits(i)), None)
    return order if lead is None else [lead, *(i for i in order if i != lead)]


def _lists_kind(text: str, kind: str) -> bool:
    """``text`` lists things of ``kind`` (a plural noun) after a colon naming them: "Five methods … were evaluated:
    squared standardized regression coefficient, …", not "The comparison of the sensitivity methods was based on four
    aspects: (I) …, (II) …", which lists aspects (Groen et al. 2016, p. 1)."""
    m = _ENUMERATES.search(text)
    return m is not None and _announces_kind(text[:m.start()], kind)


def _item_of_kind(evidence: Evidence, kind: str) -> bool:
    """``evidence`` is an item of a list whose lead-in announces things of ``kind``: "• Situation A …" under "The
    following goal situations are differentiated. … "ILCD Handbook - General guide for LCA":" (JRC ILCD compliance
    rules, p. 7), not "High quality data …" under "… three levels of data quality are differentiated for each of the
    above goal situations …:" (p. 8), which lists levels."""
    return (bool(evidence.context) and not evidence.reading and evidence.context.rstrip().endswith(":")
            and _announces_kind(evidence.context, kind))


def _announces_kind(before: str, kind: str) -> bool:
    """``before`` (the words before a list) names ``kind`` and does not end naming another plural, or counts them
    ("three levels of data quality are differentiated for each of the above goal situations; …:", JRC ILCD compliance
    rules, p. 8)."""
    last = (re.findall(r"[^\W\d_]+", before) or [""])[-1].lower()
    counted = re.search(rf"\b(?:two|three|four|five|six|seven|eight|nine|ten|\d+|following)\s+(?:[\w-]+\s+)?"
                        rf"{re.escape(kind)}\b", before, re.I)
    return term_present(kind, before) and (last.endswith(kind) or not last.endswith("s") or counted is not None)


def _kind_bonus(evidence: Evidence, text: str, part: QuestionFrame, asked: QuestionFrame) -> float:
    """The bonus for being what ``part`` (of the question ``asked``) asks for: a value (twice when printed in the
    unit of the quantity asked for), a definition (or of a code the question names), the study's own words, the
    scenario named."""
    bonus = 0.0
    shown = evidence.reading or evidence.text
    if part.kind in ("numeric", "comparison"):
        if part.quantity and states_quantity(shown, part.quantity):
            bonus += 2 * KIND_BONUS
        elif not part.quantity and HOW_MANY.search(part.text) and (counted := states_count(shown, part.text)):
            bonus += counted * KIND_BONUS  # "how many projects": "Six renewable hydrogen
            # projects have signed …" (Hydrogen Bank pilot, p. 1), a number of other things half as much
        elif _states_value(evidence, asked):
            bonus += KIND_BONUS
    if part.kind == "definition" and _DEFINES.search(evidence.text):
        bonus += KIND_BONUS
    elif part.kind == "procedure" and _STATES_STEP.search(evidence.text):
        bonus += KIND_BONUS  # "how is the 1% cut-off rule applied": "To calculate a 1% cut-off order the processes
        # starting from the less relevant to the most relevant one." (PEFCR guidance p. 61)
    elif asked.codes and any(_defines_code(evidence.text, c) for c in asked.codes):
        bonus += KIND_BONUS  # "o Situation C1 "Accounting including external benefits": Includes existing …"
    if asked.about_document and OWN_STUDY.search(evidence.text):
        bonus += KIND_BONUS / 2
    if part.asks_view and _STANCE.search(evidence.text):
        bonus += KIND_BONUS  # "what does he say about pedigree-based uncertainty": "… such as the popular pedigree
        # approach, the Monte Carlo approach should not be used at all" (Heijungs 2020, p. 394)
    if REASON_PART.match(part.text) and GIVES_REASON.search(evidence.text):
        bonus += KIND_BONUS  # "…, and why?": "Among the possible remaining allocation methods, energy has been chosen
        # according to RED recommendations …" (Moretti et al. 2020, p. 4)
    if judges(evidence.text, part.text):
        bonus += KIND_BONUS  # "Does the "100% rule" hold …": "The 100 % rule … does not seem to be correct" (Finnveden
        # et al. 2022, p. 2)
    if ASKS_FORMULA.search(part.text) and STATES_EQUATION.search(evidence.text):
        bonus += 2 * KIND_BONUS  # "how are they combined": "DQR = (TeR+GR+TiR+P)/4 [Equation 20]" (PEFCR p. 130)
    if (nth := _NTH.search(part.text)) and names_each(evidence.text, nth.group(1).lower(), nth.group(2)):
        bonus += KIND_BONUS  # "the second renewable hydrogen delegated act": "… the second act takes into
        # consideration, emissions associated with taking electricity from the grid, …" (delegated acts news, p. 1)
    return bonus + KIND_BONUS * scenario_share(text, asked)


def _defines_code(text: str, code: str) -> bool:
    """The span sets out what ``code`` is: the code, a short name, then a colon and its description ("Situation C1
    "Accounting including external benefits": Includes existing benefits outside the analysed system", JRC ILCD
    compliance rules, p. 7), not a mention of it in a list of data sets ("ILCD-compliance - Situation C1 - …")."""
    return re.search(rf"(?<![\w.\-/]){re.escape(code)}(?![\w.\-/])[^.:;\n]{{0,60}}:\s+[A-Z]", text) is not None


def _word_pairs(question: str) -> list[str]:
    """Adjacent word pairs of ``question`` that name something ("air freight", "validation statement", "A factor"):
    neither word a stop word, unless it is a capital letter naming a parameter."""
    words = WORD.findall(for_search(question))
    keep = [(w.isupper() and len(w) == 1) or (w.lower() not in STOPWORDS and len(w) > 1) for w in words]
    return list(dict.fromkeys(f"{words[i].lower()} {words[i + 1].lower()}" for i in range(len(words) - 1)
                              if keep[i] and keep[i + 1]))


def _in_section(evidence: Evidence, number: str) -> bool:
    """The span is in section ``number`` (by its section label, or a heading run into its text)."""
    if heading_in_section(evidence.section or "", number):
        return True
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d.])\s+[A-Z]", evidence.text) is not None


def _points_to(evidence: Evidence, number: str) -> bool:
    """The span refers the reader to section ``number`` ("see Sections 7.2.1 and 7.2.2")."""
    return re.search(rf"\bsee\s+(?:sections?|clauses?|chapters?)\s+(?:[\w.]+(?:,|\s+and|\s+or)?\s+)*?"
                     rf"{re.escape(number)}(?![\d.])", evidence.text, re.I) is not None


def _concepts_of(question: str) -> tuple[dict[str, set[str]], dict[str, int]]:
    """For each content term of ``question`` inside an ontology concept's name: the concepts whose name holds it,
    and the number of content words of the longest such name."""
    names: dict[str, set[str]] = {}
    words: dict[str, int] = {}
    for mention in _ONTOLOGY.mentions(normalise(question)):
        terms = content_terms(mention.surface)
        for term in terms:
            names.setdefault(term, set()).add(mention.name)
            words[term] = max(words.get(term, 1), len(terms))
    return names, words


def statement(evidence: Evidence, *items: Evidence) -> str:
    """How the answer states one piece of evidence: a table row written out with its headers and units under the
    table's name, list items (``evidence`` and the other ``items`` of its list) under the sentence that introduces
    them, else the verbatim sentence in quotes."""
    if evidence.reading:
        m = _TABLE_NAME.match(evidence.context)  # "TABLE 2" as the caption prints it is named "Table 2"
        return messages.table_statement(m.group(1).capitalize() if m else "",
                                        [evidence.reading, *(e.reading for e in items)])
    if evidence.context:
        return messages.list_statement(evidence.context, [evidence.text, *(e.text for e in items)])
    return messages.quote_statement(" ".join(e.text for e in (evidence, *items)))  # (points it announces, in order)


def _span_text(evidence: Evidence) -> str:
    """What a span is scored by: its lead-in (a list item's) and its reading (a table row's) or text."""
    return " ".join(p for p in (evidence.context, evidence.reading or evidence.text) if p)
