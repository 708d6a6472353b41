"""Is a question supported by the library at all? The test behind abstention (DESIGN.md §6 rule 5).

A question is unsupported when (a) it names something — a capitalised name or an acronym such as "Pilkington",
"TRACI" or "WARM" — that occurs nowhere in the library, (b) three or more of its content words occur nowhere in
the library, or (c) the retrieved passages hold less than :data:`MIN_COVERAGE` of its IDF-weighted content words.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from lcabot.ingest.normalize import for_search

PLACES_PATH = resources.files("lcabot") / "data" / "places.json"
MIN_COVERAGE = 0.3
MAX_UNKNOWN_TERMS = 2
MEASURED_TYPES = ("impact_category",)  # ontology types naming what is measured (GWP: climate change), not what for
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")
_NAME = re.compile(r"[^\W_][\w&]*", re.UNICODE)


def _stem(term: str) -> str:
    if term.endswith(("ance", "ence")) and len(term) >= 9:  # "avoidance" is said by "avoiding", "difference" by
        return term[:-4]  # "differs"
    return term if len(term) <= 5 else term[: max(5, len(term) - 3)]


def term_present(term: str, text: str) -> bool:
    """True when ``term`` (or a word sharing its stem, e.g. capture/captured) occurs in ``text``, in British or
    American spelling ("characterisation factors" in "characterization factors", Pathfinder Framework p. 18), or a
    word of :data:`EQUIVALENT_STEMS` in its place ("are the use phase and end-of-life included" is answered by
    "… exclude downstream emissions related to the product use and end-of-life stages", p. 18)."""
    term = _MODIFIER.sub("", term)  # "pedigree-based distributions" are of the pedigree approach (Heijungs 2020)
    stem = _SPELLING.sub("i[sz]", re.escape(_stem(term)))
    stem = "(?:" + "|".join([stem, *EQUIVALENT_STEMS.get(_stem(term), ())]) + ")"
    return re.search(r"(?<![^\W_])" + stem, _FORMULA_SPACE.sub(r"\1\2", for_search(text)).lower()) is not None


# the second word of a compound that only qualifies its first: "pedigree-based", "process-related"
_MODIFIER = re.compile(r"(?<=\w)-(?:based|related|derived|driven|specific|oriented|dependent)$")


# a formula's digit printed apart from its letters ("CO 2 emissions", the Hydrogen Bank pilot news as scraped, p. 1)
_FORMULA_SPACE = re.compile(r"\b(CO|CH|SO|NO|PO|NH|N|H)\s+([2-4])\b")


# stems that answer for one another: a life cycle phase is a stage, an output what is produced, a saving what is
# avoided, a precedence a priority, a fossil product the petrochemical one; whether a stage is included is said by
# what is excluded, and what is left out or omitted by what is excluded or "not considered" ("The following were not
# considered in the analysis: construction of gasification plants, …", Burchart et al. 2023, p. 5)
_NOT_COUNTED = r"not (?:be(?:en)? )?(?:consider|includ|cover|taken into account)"
_LEFT_OUT = ("exclu", _NOT_COUNTED)
# a statement that something is out of a study, and the words a question asks what is out with
STATES_LEFT_OUT = re.compile(rf"\bexclu\w*|\b{_NOT_COUNTED}\w*|\bomit\w*|\bleft out\b|\boutside (?:of )?the\b|"
                             r"\bcut[- ]off\b", re.I)
LEFT_OUT_WORD = re.compile(r"leav\w*|left|omit\w*|exclu\w*")
EQUIVALENT_STEMS = {"phase": ("stage",), "stage": ("phase",), "inclu": ("exclu",), "exclu": ("inclu", *_LEFT_OUT[1:]),
                   "leave": _LEFT_OUT, "omit": _LEFT_OUT, "omitt": _LEFT_OUT,
                   # an output is what is produced: "the projects have the potential to produce up to 1.52 million
                   # tonnes of renewable hydrogen …" (Hydrogen Bank pilot news, p. 1) for "with what expected output"
                   "outpu": ("produc",),
                   # and a saving what is avoided: "… avoiding more than 10 million tonnes of CO 2 emissions" (p. 1)
                   "savin": ("avoid",),
                   # and what takes precedence is what is prioritised: "PEFCRs or PCRs shall be prioritized for the
                   # calculation and allocation of PCFs" (Pathfinder Framework, p. 13) for "which rules take precedence"
                   "preced": ("priorit",),
                   # and a fossil product the petrochemical one: "1 kg of petrochemical PP causes 1.65–1.78 kg CO2eq
                   # GHGs" (Moretti et al. 2020, p. 10) for "how does it compare with fossil PP"
                   "fossi": ("petro",)}


_SPELLING = re.compile(r"(?<=[a-z]{3})i[sz](?=at|e|ing)")


def split_compounds(terms: Sequence[str]) -> list[str]:
    """"brazil-to-uk" → "brazil", "uk"; hyphenated compounds are judged by their parts."""
    out: dict[str, None] = {}
    for term in terms:
        for part in term.split("-") if "-" in term else [term]:
            if len(part) > 1 and part not in ("to", "of", "and", "the", "a", "in"):
                out.setdefault(part, None)
    return list(out)


# words written in capitals that name nothing: "Is it OK to use substitution …"
_PLAIN_WORDS = frozenset({"ok", "okay", "fyi", "btw", "asap"})


def named_terms(question: str) -> list[str]:
    """Names and acronyms in a question: words with a capital after the first letter (TRACI, GWP100) or a
    capitalised word that does not start the sentence (Pilkington). Possessives and compounds are split off."""
    text = for_search(question).replace("'s ", " ").replace("’s ", " ")
    names: dict[str, None] = {}
    for sentence in _SENTENCE_END.split(text):  # a follow-up joined to its question starts a new sentence
        sentence_start = True
        for word in _NAME.findall(sentence):
            for part in (p for p in word.split("-") if p):
                named = any(c.isupper() for c in part[1:]) or (part[0].isupper() and not sentence_start)
                if len(part) > 1 and named and part.casefold() not in _PLAIN_WORDS:
                    names.setdefault(part, None)
                sentence_start = False
    return list(names)


@dataclass(frozen=True)
class Support:
    coverage: float  # IDF-weighted share of the question's terms found in the retrieved passages, in [0, 1]
    missing: tuple[str, ...]  # content terms the retrieved passages do not contain
    unknown: tuple[str, ...]  # content terms and names the whole library does not contain

    @property
    def supported(self) -> bool:
        names_unknown = any(t[:1].isupper() for t in self.unknown)
        words_unknown = sum(1 for t in self.unknown if not t[:1].isupper()) > MAX_UNKNOWN_TERMS
        return not names_unknown and not words_unknown and self.coverage >= MIN_COVERAGE


_AUTHOR = re.compile(r"\b([A-Z][a-z]{2,})(?:\s+et al\b|\s*(?:&|and)\s+[A-Z][a-z]{2,}\b|['’]s?\s)")
MAX_NAMED_DOCUMENTS = 2  # a name that more file names hold ("Hydrogen") names a topic, not a document
# a document called by its subject: "the coffee study", "the polypropylene paper"
_SUBJECT_NAME = re.compile(r"\bthe\s+([a-z][a-z-]{2,})\s+(?:study|paper|article|report|LCA)\b", re.I)


# a document called by what it is about: "the Commission's June 2023 news item on the renewable hydrogen delegated
# acts" (ec-2023-renewable-hydrogen-delegated-acts.pdf)
_ABOUT_NAME = re.compile(r"\b(?:news item|news|press release|article|paper|study|report|item|communication)\s+"
                         r"(?:on|about)\s+(?:the\s+)?((?:[\w-]+\s+){0,4}[\w-]+)", re.I)
_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|sixth)\b", re.I)


def named_documents(question: str, sources: dict[str, str], titles: dict[str, str] | None = None
                    ) -> tuple[str, ...]:
    """The documents a question names by a name or acronym of its file name ("Burchart et al." →
    burchart-2023-hydrogen-coal-gasification-lca.pdf, "Pathfinder", "ILCD", "PEFCR") or by the subject its file name
    holds ("the coffee study" → nab-maslin-2020-coffee-carbon-footprint.pdf); ``sources`` maps doc id → file
    name, ``titles`` doc id → title. Empty when the question names none, or when a name is in more than
    :data:`MAX_NAMED_DOCUMENTS` file names. Of the documents one name fits, those whose file names, with the ordinal
    their title names, hold most of the question's words are named ("the Hydrogen Bank pilot auction":
    ec-2024-hydrogen-bank-pilot-auction-grants.pdf, not the second auction's; "the first European Hydrogen Bank
    auction": the same item, titled "Winners of first EU-wide renewable hydrogen auction …")."""
    return tuple(dict.fromkeys(d for docs in document_names(question, sources, titles).values() for d in docs))


# a run of capitalised words, with the small words a name holds ("Our World in Data")
_NAME_RUN = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:(?:in|of|for|and|on|the)\s+)?[A-Z][\w'’-]*)+")


def document_names(question: str, sources: dict[str, str], titles: dict[str, str] | None = None
                   ) -> dict[str, tuple[str, ...]]:
    """The names in ``question`` that name documents (see :func:`named_documents`), each with the documents it
    names: ``{"Burchart": ("b",)}``."""
    words = {doc_id: set(re.findall(r"[^\W\d_]{3,}", source.rsplit(".", 1)[0].lower())) for doc_id, source in
             sources.items()}
    for doc_id, title in (titles or {}).items():  # the edition of a series its title names: "first" auction
        words.get(doc_id, set()).update(o.lower() for o in _ORDINAL.findall(title))
    named: dict[str, tuple[str, ...]] = {}
    # a word of a concept's name ("Circular Footprint Formula", "Monte Carlo") names the concept, not a document,
    # unless the concept is a standard or an organisation (PEFCR, Pathfinder Framework)
    concepts = " ".join(m.surface for m in _concepts_named(question) if m.type not in ("standard", "organisation"))
    authors = [m.group(1) for m in _AUTHOR.finditer(question)]  # "Groen et al." also at the start of a sentence
    subjects = [m.group(1) for m in _SUBJECT_NAME.finditer(question)]  # "the coffee study"
    asked = set(re.findall(r"[^\W\d_]{3,}", question.lower()))
    # a name spelled out whose initials a file name holds: "the Our World in Data article" is
    # owid-ritchie-2020-food-choice-vs-eating-local.pdf; its words name no other document ("Data" is not the JRC's
    # "ILCD Data Network")
    spelled: set[str] = set()
    for run in _NAME_RUN.finditer(question):
        words_of = re.findall(r"[^\W\d_][\w'’-]*", run.group(0))
        initials = {"".join(w[0] for w in words_of).lower(),
                    "".join(w[0] for w in words_of if w[0].isupper()).lower()}
        docs = [doc_id for doc_id, held in words.items() if any(len(i) >= 3 and i in held for i in initials)]
        if 0 < len(docs) <= MAX_NAMED_DOCUMENTS:
            named[run.group(0)] = tuple(docs)
            spelled.update(words_of)
    for about in _ABOUT_NAME.finditer(question):  # the file names holding most of its words (two at least)
        said = set(re.findall(r"[^\W\d_]{3,}", about.group(1).lower())) - {"the", "and", "for", "with", "its", "from"}
        held = {doc_id: len(said & words[doc_id]) for doc_id in words}
        most = max(held.values(), default=0)
        docs = [d for d, n in held.items() if n == most]
        if most >= min(2, len(said)) and most and len(docs) <= MAX_NAMED_DOCUMENTS:
            named[about.group(1)] = tuple(docs)
    for name in dict.fromkeys([*authors, *subjects, *(n for n in named_terms(question) if n not in concepts)]):
        if name in spelled:
            continue
        docs = [doc_id for doc_id, held in words.items() if name.lower() in held]
        if 0 < len(docs) <= MAX_NAMED_DOCUMENTS:
            held = {d: len(words[d] & asked) for d in docs}  # as written: "bid prices" is not "bids"
            named[name] = tuple(d for d in docs if held[d] == max(held.values()))
    return named


def support(terms: Sequence[str], unknown_names: Sequence[str], passages: Sequence[str], df: dict[str, int],
            n_chunks: int) -> Support:
    """Weigh each term by IDF = ln(1 + N / (1 + df)) and measure how much of it the passages hold.

    Args:
        terms: the question's content terms, lower-case (:func:`lcabot.search.retrieval.content_terms`).
        unknown_names: :func:`named_terms` of the question that occur nowhere in the library (case-sensitive).
        passages: search texts of the retrieved chunks.
        df: chunk frequency of each term in the library; n_chunks: library size in chunks.
    """
    joined = "\n".join(passages)
    weights = {t: math.log(1 + n_chunks / (1 + df.get(t, 0))) for t in terms}
    found = {t for t in terms if term_present(t, joined)}
    total = sum(weights.values()) or 1.0
    named = {n.lower() for n in unknown_names}  # "Pilkington" already covers the term "pilkington"
    unknown = (*unknown_names, *(t for t in terms if df.get(t, 0) == 0 and t not in named))
    coverage = sum(weights[t] for t in found) / total if terms else 0.0
    return Support(coverage, tuple(t for t in terms if t not in found), unknown)


_IDENTIFIER = re.compile(
    r"(?<![\w/:.])(?:\d{4}/\d{2,4}|\d{4,5}:\d{4}|(?:19|20)\d{2})(?![\w/:])|\b[vV]\d+(?:\.\d+)+\b|\bv\d+\b|"
    r"\b[Vv]ersion \d+(?:\.\d+)*\b")
_DATED = re.compile(r"\d[/:]\d")  # an act or a dated standard: 2021/2279, 14067:2018
_VERSION = re.compile(r"^(?:[Vv]ersion |[vV])(\d+(?:\.\d+)*)$")  # v7.0, Version 2.0
_REFERENCES = re.compile(r"^\s*(?:\d+\.?\s*)?(?:references|bibliography|literature cited|abbreviations)\s*$", re.I)


@cache
def place_aliases() -> dict[str, tuple[str, ...]]:
    """Other names of places and their adjectives (``lcabot/data/places.json``): "Dutch" → "Netherlands"."""
    data = json.loads(PLACES_PATH.read_text(encoding="utf-8"))
    return {k: tuple(v) for k, v in data["aliases"].items()}


def _concepts_named(question: str) -> list[Any]:
    """The ontology concepts ``question`` names (:meth:`Ontology.mentions`)."""
    from lcabot.graph.ontology import load, normalise  # imported here: the graph package imports this module's users

    return load().mentions(normalise(question))


# a unit's symbol is what a value is measured in, not a name ("Mt", "TWh", "MWe")
_UNIT_SYMBOL = re.compile(r"(?:k|M|G|T)?(?:t|Wh|We|W|J)|kg|MWh|GWh|TWh|ha|km")


def specific_terms(question: str) -> list[str]:
    """What pins a question to one thing: its names and acronyms (:func:`named_terms`) and its identifiers (a
    year, ``2021/2279``, ``14067:2018``, a version ``v7.0``). Impact category and indicator names (GWP, GWP100,
    PM2.5) name what is measured, not what it is measured for, and are left out."""
    identifiers = [m.group(0) for m in _IDENTIFIER.finditer(for_search(question))]
    # a word of a concept's name ("Data Quality Rating", "Circular Footprint Formula") names the concept; an impact
    # category (GWP) names what is measured, which a study may print as "GHG emissions … kg CO2-eq"
    named = _concepts_named(question)
    concepts = [m.surface for m in named if " " in m.surface or m.type in MEASURED_TYPES]
    names = [n for n in named_terms(question) if not (re.search(r"\d", n) and re.search(r"[^\W\d_]", n))
             and not _UNIT_SYMBOL.fullmatch(n)  # "10 Mt of RFNBOs" is printed "10 million tonnes"
             and not any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", c) for c in [*concepts, *identifiers])]
    return list(dict.fromkeys([*names, *identifiers]))


def absent_from_passages(question: str, passages: Sequence[str], in_library: Callable[[str], bool]) -> list[str]:
    """The question's specific terms that the library holds somewhere but none of the passages that would answer
    it (Robusta named in a reference list while every retrieved passage is about Arabica), and identifiers of a
    standard or act the passages do not hold (Recommendation 2021/2279 asked of a library holding the 2018
    guidance). A place may be written as its other name or its adjective (Dutch → Netherlands), an acronym spelled
    out (PEFCR). Other names the library never holds are judged by :func:`support` instead.

    Args:
        question: the question as asked (a follow-up joined to its question).
        passages: search texts of the retrieved chunks outside reference lists (they start with the document's
            title, authors and file name).
        in_library: whether a word occurs anywhere in the library (``SearchIndex.contains_text``).
    """
    joined = "\n".join(passages)
    spaced = _spaceless(joined)
    missing = []
    for term in specific_terms(question):
        if _VERSION.match(term):  # (named only as one still to come it is not held: "Data-sharing requirements for
            # end-of-life emissions will be further defined in Version 2 of the Pathfinder Framework", p. 45)
            mentions = [(p, m) for p in passages for m in _version_mentions(term, p)]
            if not any(not _to_come(p, m) and not _later_edition(term, p) for p, m in mentions):
                missing.append(f"{term} other than as one still to come" if mentions else term)
            continue
        forms = forms_of(term)
        if any(_word_in(form, joined) for form in forms) or _spelled_out(term, joined):
            continue
        if any(c.isdigit() for c in term) and _spaceless(term) in spaced:  # "14067:2018" = "14067: 2018"
            continue
        if in_library(term) or _DATED.search(term):  # an edition the library lacks
            missing.append(term)
    return missing


# one edition of a series: "the second auction under the European Hydrogen Bank", "first EU-wide renewable hydrogen
# auction", "the third call"
_EDITION = re.compile(r"\b(first|second|third|fourth|fifth|sixth|1st|2nd|3rd|4th)\s+(?:[\w-]+\s+){0,3}?"
                      r"(auction|call|round|edition|phase|cohort)s?\b", re.I)
# words naming an edition or a version as one still to come, before it ("… will be further defined in Version 2",
# "Further topics for inclusion in Version 2", "… prepare the Terms & Conditions for a third auction", "the Commission
# plans to launch the second auction") or after it ("Version 2 will be developed …", "Version 2 of the Pathfinder
# Framework may include these stages", "… for a third auction for hydrogen, which it aims to launch before the end of
# 2025")
_TO_COME_BEFORE = re.compile(r"(?:\b(?:will|may|might)\b[^.!?]{0,40}\b(?:in|of|for)\s+(?:the\s+|a\s+)?|"
                             r"\bfor inclusion in\s+|\bprepare the terms\b[^.!?]{0,30}|"
                             r"\b(?:plans?|aims?) to launch\s+(?:the\s+|a\s+)?|"
                             r"\b(?:upcoming|forthcoming|future|next)\s+(?:[\w-]+\s+){0,2})$", re.I)
_TO_COME_AFTER = re.compile(r"^[^.!?]{0,45}?\b(?:will (?:be (?:further )?)?(?:developed|launched|published|released|"
                            r"defined|opened|look)|may include|(?:which|that) (?:it|they|the \w+) aims? to launch|"
                            r"to be launched|is planned)\b", re.I)
_ORDINALS = {"1st": "first", "2nd": "second", "3rd": "third", "4th": "fourth"}


def editions(text: str, held: bool = False) -> dict[str, set[str]]:
    """The editions of a series ``text`` names, by series: ``{"auction": {"second"}}`` for "the second auction under
    the European Hydrogen Bank"; with ``held``, not those of sentences naming them as still to come ("… the Terms &
    Conditions for a third auction for hydrogen, which it aims to launch before the end of 2025", Hydrogen Bank second
    auction news, p. 1, says nothing of the third auction's results)."""
    named: dict[str, set[str]] = {}
    for m in _EDITION.finditer(text):
        if held and _to_come(text, m):
            continue
        ordinal = m.group(1).lower()
        named.setdefault(m.group(2).lower(), set()).add(_ORDINALS.get(ordinal, ordinal))
    return named


# a system boundary by its two ends: "cradle-to-grave", "cradle to factory gate", "well-to-wheel"
_BOUNDARY = re.compile(r"\b(cradle|gate|well|tank)[\s-]+to[\s-]+(?:(?:the|factory|farm)[\s-]+)?"
                       r"(grave|gate|cradle|wheels?|tank)\b", re.I)


# a boundary named as work not done: "The full biogenic carbon balances should be accounted for in a future cradle to
# grave LCA …" (Moretti et al. 2020, p. 11)
_NOT_DONE = re.compile(r"\b(?:future|further (?:research|work|studies)|not (?:included|considered|assessed|covered)|"
                       r"out of (?:the )?scope|beyond (?:the|its) scope)\b", re.I)


def boundaries(text: str, assessed: bool = False) -> set[str]:
    """The system boundaries ``text`` names by their ends: ``{"cradle-to-gate"}`` for "a cradle-to-factory gate scope"
    (Moretti et al. 2020, p. 2), ``{"cradle-to-grave"}`` for "cradle to grave"; with ``assessed``, only those of
    sentences not naming them as work not done ("… in a future cradle to grave LCA", p. 11)."""
    sentences = re.split(r"(?<=[.!?])\s+", text) if assessed else [text]
    return {f"{m.group(1).lower()}-to-{m.group(2).lower().rstrip('s')}" for s in sentences
            if not (assessed and _NOT_DONE.search(s)) for m in _BOUNDARY.finditer(s)}


def unaddressed_terms(question: str, answering: Sequence[str]) -> list[str]:
    """The question's specific terms (:func:`specific_terms`) and the words of the product its quantity is measured
    for (:func:`measured_product`) that none of ``answering`` (the search texts of the passages the answer quotes,
    headers included) names, in any of its forms: an answer about Brazil and Vietnam does not answer a question
    about Colombia, although the paper names Colombia on another page; the impacts of "1 kg of UCO-based PP"
    (Moretti et al. 2020, Table 4, p. 6) are no answer for "1 kg of polyethylene made from used cooking oil"; nor
    are passages naming no third auction (:func:`editions`) an answer about "the third European Hydrogen Bank
    auction"."""
    joined = "\n".join(answering)
    names = [term for term in specific_terms(question)
             if not term.isupper() and not any(c.isdigit() for c in term)  # names, not acronyms (GHG) or editions
             and not any(_word_in(form, joined) for form in forms_of(term))]
    concepts = {m.name for m in _concepts_named(joined)}
    product = [w for w in measured_product(question) if not term_present(w, joined)
               and not {m.name for m in _concepts_named(w)} & concepts]
    printed, to_come = editions(joined, held=True), editions(joined)
    unheld = [f"the {ordinal} {series}" + (" other than as one still to come" if ordinal in to_come.get(series, set())
                                           else "")
              for series, ordinals in editions(question).items()
              if not ordinals & printed.get(series, set()) for ordinal in sorted(ordinals)]
    return list(dict.fromkeys([*names, *product, *unheld]))


# what a quantity is measured for: "1 kg of polyethylene made from …", "per kg of green coffee", "per tonne of steel"
_MEASURED_FOR = re.compile(r"\b(?:\d+(?:[.,]\d+)?\s*|per\s+|an?\s+|one\s+)(?:kg|kilograms?|tonnes?|t|litres?|liters?|"
                           r"m2|m²|m3|m³|units?)\s+of\s+((?:[^\W\d_][\w-]*\s*){1,3})", re.I)
# what a value is given for: "What A-factor value does Annex C assign to aluminium beverage cans?", "Which A value
# applies to PET bottles?"
_GIVEN_FOR = re.compile(r"\b(?:assign(?:s|ed)?|attribute[sd]?|appl(?:y|ies|ied)|give[sn]?)\s+(?:[\w-]+\s+)?to\s+"
                        r"(?!(?:the|an?|this|that|these|those|it|them|all|each|every|any)\b)"
                        r"((?:[^\W\d_][\w-]*\s*){1,3})",
                        re.I)
# what a product is made from names the product before it: "… per kg does Moretti et al. report for polyethylene
# made from used cooking oil?"
_MADE_FROM = re.compile(r"\b(?:for|of|on)\s+((?:[^\W\d_][\w-]*\s+){1,3}?)(?:made|produced|derived|manufactured)\s+"
                        r"(?:from|out of)\b", re.I)
_PRODUCT_END = re.compile(r"\s(?:made|from|produced|based|grown|in|at|with|for|and|or|that|which|when|under|"
                          r"sold|delivered|exported|imported|by|on|to|as)\b.*$", re.I)


def measured_product(question: str) -> list[str]:
    """The content words (lower case) of the product a quantity in ``question`` is measured for: "What is the
    climate change impact of 1 kg of polyethylene made from used cooking oil?" → ``["polyethylene"]``, "per kg of
    green coffee" → ``["green", "coffee"]``, "for polyethylene made from …" → ``["polyethylene"]``; empty when it
    names none."""
    from lcabot.search.retrieval import content_terms  # imported here: retrieval imports this module

    words: list[str] = []
    for m in (*_MEASURED_FOR.finditer(for_search(question)), *_GIVEN_FOR.finditer(for_search(question)),
              *_MADE_FROM.finditer(for_search(question))):
        phrase = _PRODUCT_END.sub("", f" {m.group(1).strip()}").strip()
        words += [w for w in split_compounds(content_terms(phrase)) if not w.isdigit()]
    return list(dict.fromkeys(words))


def documents_naming(question: str, evidence: Sequence[Any]) -> set[str]:
    """The documents among ``evidence`` (ledger spans: ``doc_id``, ``source``, ``title``, ``context``, ``text``) of
    which some span, the title or the file name names one of the question's specific terms (:func:`specific_terms`):
    a question about what RFNBOs must achieve is about the delegated acts' news item, which names them, not about the
    polypropylene study whose kg CO2eq retrieval also brought. Empty when the question has no specific term."""
    terms = specific_terms(question)
    if not terms:
        return set()
    texts: dict[str, list[str]] = {}
    for e in evidence:
        texts.setdefault(e.doc_id, [e.source.replace("-", " "), e.title or ""]).append(f"{e.context} {e.text}")
    return {doc_id for doc_id, held in texts.items()
            if any(_word_in(form, part) or _spelled_out(term, part)
                   for term in terms for form in forms_of(term) for part in held)}


def forms_of(term: str) -> tuple[str, ...]:
    """``term``, its plural or singular ("RFNBO" is printed "RFNBOs", "Situations" asked as "Situation") and its
    other names and adjectives as a place ("Dutch" → "Netherlands")."""
    number = (term[:-1],) if term.endswith("s") and len(term) > 3 else (f"{term}s",)
    return (term, *number, *place_aliases().get(term, ()))


def _version_of(term: str) -> str:
    """The number of the version ``term`` names (its callers only ask of a version: ``_VERSION`` matched it)."""
    found = _VERSION.match(term)
    if found is None:
        raise ValueError(f"not a version: {term!r}")
    return found.group(1)


def _version_mentions(term: str, text: str) -> list[re.Match[str]]:
    """Where ``text`` names the version ``term`` names, however written: "Version 1.0", "Version 1", "v1", or as a
    file name's words ("ec pefcr guidance v6 3" for v6.3)."""
    number = r"[.\s_-]".join(re.sub(r"(?:\.0)+$", "", _version_of(term)).split("."))
    return list(re.finditer(rf"(?:\bversion\s*|\bv){number}(?:\.0)*(?![._-]?\d)", text, re.I))


# a document's own version, as its header (title | file name words) prints it: "wbcsd pathfinder framework v1",
# "ec pefcr guidance v6 3"
_OWN_VERSION = re.compile(r"\b(?:v|version\s*)(\d+(?:[. ]\d+)?)\b", re.I)


def _later_edition(term: str, passage: str) -> bool:
    """``term`` (a version) is later than the version of the document ``passage`` is from, which can speak of it only
    as one still to come: "Included in Framework Version 2", a roadmap figure of the Pathfinder Framework v1 (p. 8)."""
    own = _OWN_VERSION.search(passage[:160].split(" | ", 1)[-1])
    if own is None:
        return False
    def number(printed: str) -> tuple[int, ...]:  # 1.0 is 1
        return tuple(int(n) for n in re.sub(r"(?:[. ]0)+$", "", printed).split(".") if n) or (0,)
    return number(own.group(1).replace(" ", ".")) < number(_version_of(term))


def _to_come(text: str, mention: re.Match[str]) -> bool:
    """``mention`` names an edition or a version as one still to come: "… will be further defined in Version 2",
    "Further topics for inclusion in Version 2", "Version 2 of the Pathfinder Framework may include these stages"
    (Pathfinder Framework v1, pp. 8, 45, 48)."""
    return (_TO_COME_BEFORE.search(text[max(0, mention.start() - 60):mention.start()]) is not None
            or _TO_COME_AFTER.search(text[mention.end():mention.end() + 80]) is not None)


def _word_in(word: str, text: str) -> bool:
    """``word`` as a whole word of ``text``; a short acronym (CO, EF) in its own case, any other name in any case
    (the file name words in a passage's header are lower case: "nab maslin 2020 coffee", "wbcsd")."""
    flags = 0 if word.isupper() and len(word) <= 3 else re.I  # CO is not Co; WBCSD is "wbcsd" in a file name
    return re.search(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", text, flags) is not None


def _spelled_out(acronym: str, text: str) -> bool:
    """An acronym written out in ``text``: PEFCR as "Product Environmental Footprint Category Rules"."""
    if not (2 <= len(acronym) <= 8 and acronym.isalpha() and acronym.isupper()):
        return False
    words = r"\s+(?:(?:of|and|for|the|on)\s+)?".join(rf"{c}[\w-]*" for c in acronym)
    return re.search(rf"\b{words}", text) is not None


def _spaceless(text: str) -> str:
    return re.sub(r"\s+", "", text).casefold()


def is_reference_list(section_path: Sequence[str]) -> bool:
    """A chunk under a "References" heading: what other works are called, not what this one states; or under
    "Abbreviations": what its shorthand stands for ("FU Functional Unit", Burchart et al. 2023, p. 14), not what the
    functional unit is."""
    return bool(section_path) and _REFERENCES.match(section_path[-1]) is not None
