"""Context gates: deterministic tests that a quote supports a statement in the answer to *this* question
(DESIGN.md §11). They run on every claim of either generator, and the offline generator never picks evidence
that fails one.

A quote fails when it is an entry of a reference list; when it reports another work's result and the question is
about one document's own work ("(DEFRA and BSI, 2011)", "[84]", "previous studies found"); when it is one of the
statements its document calls wrong; when it is a fragment (it starts mid-sentence or ends on a word no sentence
ends with); when it gives a baseline value and the question names a scenario or sensitivity case; when it comes from
a section trying other choices than the study's own (a sensitivity analysis) and the question asks of none; when it
addresses instructions to a reader or an AI system. A number with a unit in a claim must occur in its evidence with
the same unit.
"""

from __future__ import annotations

import re
from functools import cache

from lcabot.ingest.normalize import CASE_BACK, ENDS_SENTENCE, LIST_ITEM, match_key
from lcabot.models import Evidence
from lcabot.report.units import CITATION, INSTRUCTION, OWN_STUDY
from lcabot.search.abstention import editions, is_reference_list
from lcabot.search.questions import QuestionFrame, frame, states_quantity

GATES = ("instruction", "reference", "other_work", "refuted", "fragment", "baseline", "edition", "sensitivity")
_CITES_OTHER = re.compile(
    r"^(?:Previous|Other|Earlier|Several|Many|Most|Some) (?:LCAs?|studies|authors|works|assessments)\b|"
    r"^Studies have\b|^The authors of (?:the|that) (?:study|work|paper|analysis)\b|"
    # a view the document sets out to answer: "Others would suggest that system expansion, in a narrow sense, can be
    # used for ALCA, but substitution should not be used" (Finnveden et al. 2022, p. 3)
    r"^(?:Others|Some(?: authors| practitioners)?) (?:would |might |may |could )?(?:suggest|argue|claim|say|state|"
    r"hold)s?\b|^It is (?:often|commonly|sometimes|frequently) (?:claimed|said|argued|suggested|stated)\b|"
    r"\b(?:previous|earlier|other) (?:studies|work|LCAs) (?:found|showed|reported|estimated)\b|"
    # "The GHG emission factors available in the literature for hydrogen production …" (Burchart et al. p. 12)
    r"\b(?:available|reported|found|published) in the literature\b|"
    r"^According to (?:\[|[A-Z][\w-]+ (?:et al\.|\(|and))|^[A-Z][\w'’-]+(?: et al\.| and [A-Z][\w-]+)? \(\d{4}\)|"
    # another work's recommendation, which the study may go on to depart from ("According to the FC-Hy Guide, the
    # functional unit should be the MJ … However, … the FU is 1 kg of hydrogen", Burchart et al. 2023, p. 4)
    r"^According to the (?:[A-Z][\w-]* )+(?:Guide|Handbook|Guidelines?|Protocol|Standard)\b",
    re.I,
)
_ASKS_ASSUMPTION = re.compile(r"\b(?:assumed?|assumes|assumptions?|data sources?|taken from|comes? from|"
                               r"sourced from|where (?:do|does|did) (?:they|the|it)\b)", re.I)
_OWN_SOURCE = re.compile(r"\b(?:the|our|its|this) source (?:study|studies|data ?sets?)\b", re.I)
_OPEN_END = re.compile(
    r"\b(?:the|a|an|of|at|to|in|on|by|for|from|with|as|and|or|was|were|is|are|be|than|per|into|while|whereas|"
    r"concerned with|such as)\s*$", re.I)
_CAPTION = re.compile(r"^\s*(?:Equation|Eq\.|Figure|Fig\.|Table|Box)\s*[A-Z]?\d+[a-z]?\s*[–—:.\-]", re.I)
# the operators of an equation as a math font prints them in extracted text: þ for +, ¼ for = ("g ¼ BA−1 f")
# a caption with the text printed beside it run into it: "Fig. 8 Overview of the best performing methods … seemed
# less relevant as even the slowest performing methods took less than an hour" (Groen et al. 2016, p. 11)
_CAPTION_RUN = re.compile(r"^\s*(?:Figure|Fig\.|Table)\s*[A-Z]?\d+[a-z]?\s+[A-Z][a-z]+\s+(?:of|for|in|on|by|and)\s")
_CLAUSE_ONLY = re.compile(r"^(?:If|When|Although|Though|Because|Unless|Whereas)\b[^,;:.]{0,150}\.(?:\s|$)")
_SPLICED = re.compile(r"\b(?:of|to|in|for|with|by|an|the)\s+(?:The|This|These|Those)\s")
_PLACEHOLDER = re.compile(r"\[[^\]\d][^\]]{20,}\]")  # a bracketed instruction, not a citation ("[84]")
_RULE = re.compile(r"\b(?:shall|must)\b")
_FORMULA_GLYPH = re.compile(r"\wþ|þ\w|\d ?þ|þ ?\d|(?<!\w)\w ¼ |\s¼ \w(?!\w)")
# the title of a section trying other choices than the study's own, and a question asking about such cases
_SENSITIVITY_SECTION = re.compile(r"^\s*(?:[A-Z]?\d+(?:\.\d+)*\.?\s+)?(?:sensitivity analys[ie]s|sensitivit(?:y|ies)"
                                  r"(?=\s*(?:$|:|and\b|to\b))|model uncertainty|scenario analys[ie]s|uncertainty "
                                  r"analys[ie]s|alternative scenarios?)", re.I)
_ASKS_SENSITIVITY = re.compile(r"\b(?:sensitiv\w*|uncertaint\w*|scenarios?|alternatives?|robust\w*|what if|"
                               r"instead)\b|\bif\b", re.I)
_BOTH_WAYS = re.compile(r"\bwith\s*(?:and|or|/)\s*without\b|\bwithout\s*(?:and|or|/)\s*with\b", re.I)
_BASELINE = re.compile(r"\b(?:baseline|base case|base scenario|reference scenario|default scenario)\b", re.I)
_CONTRASTED = re.compile(r"\b(?:compared (?:to|with)|unlike|differently|differs?|different from|instead|rather than|"
                         r"whereas|than (?:in )?the)\b", re.I)
_NUMBER_UNIT = re.compile(
    r"(?<![\w.])([-−–]?\d+(?:[.,]\d+)*)\s*(%|kg\s?CO2\s?e?q?\.?|kg CO2e|g\s?CO2\s?e?q?|t\s?CO2\s?e?q?|kg|g|t|km|MJ|kWh|"
    r"years?|days?|tonnes?)(?![\w])", re.I)


def failed_gate(evidence: Evidence, question: QuestionFrame) -> str | None:
    """The first gate of :data:`GATES` that ``evidence`` fails as support for an answer to ``question``, else
    ``None``. Table rows are judged by their reading, never as fragments."""
    text = evidence.text
    if INSTRUCTION.search(text):
        return "instruction"
    if evidence.section and is_reference_list((evidence.section,)):
        return "reference"  # an entry of a reference list names another work; it states nothing of its own
    if evidence.refuted and not question.asks_rejected:  # (asked which statements it rejects, they are the answer,
        # quoted under the lead-in and with the sentence that rejects them)
        return "refuted"
    if not evidence.reading and not evidence.context and is_fragment(text):
        return "fragment"  # an item under its lead-in need not be a sentence ("High quality data")
    cites_other = evidence.other_work or reports_other_work(text)
    # another work's value is not the answer to a question asking for a value ("… to as high as 18.00 kg CO2-eq/kg
    # H2 for UCG technologies … [83]", Burchart et al. p. 12, for a question on Shell gasification's GWP)
    gives_value = any(states_quantity(evidence.reading or text, q) for q in asked_quantities(question.text))
    # a question on what the document argues is answered by its discussion, which cites as it goes ("It can be
    # argued that this will be a greater problem for ALCA than CLCA … [6]", Finnveden et al. 2022, p. 4); a value
    # it cites is still another work's
    own_argument = question.asks_view and not _NUMBER_UNIT.search(evidence.reading or text)
    # what a study assumes it often takes from another work: "What did the coffee paper assume for the processing
    # phase?" is answered by "An LCA on coffee processing by PCF Pilotprojekt Deutschland (2008) calculated a carbon
    # footprint of 3.05 kg CO2e kg–1 green coffee …" (Nab & Maslin 2020, p. 12)
    borrowed = _ASKS_ASSUMPTION.search(question.text) is not None
    if cites_other and not borrowed and ((question.about_document and not own_argument)
                                         or _CITES_OTHER.search(text) or gives_value):
        return "other_work"
    # (a question asking with and without a measure asks the baseline too: "with and without biogenic carbon
    # removal, and how does it compare with fossil PP" is answered by "Hence, UCO-based PP (baseline) has a 62% lower
    # impact on climate change …", Moretti et al. 2020, p. 10)
    # (so does one asking only without a measure: "(without biogenic carbon removal) …, and how much lower is it than
    # petrochemical PP", the same 62%)
    if question.scenario and _BASELINE.search(text) and not any(w in text.lower() for w in question.scenario) \
            and not _BOTH_WAYS.search(question.text) \
            and not all(w.lower().startswith("without ") for w in question.scenario):
        return "baseline"
    # what the span is read under decides on its own: an item under "For all suppliers located outside Europe:" is
    # that case's, whatever it adds; so is a row in the panel "(Sustainable, Exportation) …"
    if other_edition(f"{evidence.context} {evidence.reading or text}", evidence.title or "", question.text):
        return "edition"
    where = re.match(r"^\(([^()]*)\) ", evidence.reading)
    read_under = (evidence.context, where.group(1) if where else "", f"{evidence.context} {evidence.reading or text}")
    if any(other_scenario(t, question) for t in read_under if t.strip()):
        return "baseline"
    if (_SENSITIVITY_SECTION.search(evidence.section or "") and not _ASKS_SENSITIVITY.search(question.text)
            and not (_BASELINE.search(text) and not _CONTRASTED.search(text))):  # (a sentence recalling the
        # study's own choice is no case of it: "In the baseline calculations, energy allocation was used for
        # hydrotreatment …", p. 8; one setting a case against it is: "Compared to the baseline, … exergy allocation")
        return "sensitivity"  # a case the study tried instead of its own choice: "we allocate 50% of the impact of
        # the primary production of vegetable oil to UCO" (Moretti et al. 2020, 4.2 Model uncertainty, p. 8) is no
        # answer to how the study handled multifunctionality (UCO enters free of burden, p. 2)
    return None


def other_edition(text: str, title: str, question: str) -> bool:
    """The span is about another edition of the series the question asks about: "In its first auction in 2023 €694
    million in grants to support six projects" (the second auction's news item, p. 2) for a question on the
    second auction's winners. A span naming no edition is read under its document's title ("Winners of first EU-wide
    renewable hydrogen auction …")."""
    asked = editions(question)
    if not asked:
        return False
    named = editions(text)
    for series, ordinals in asked.items():
        printed = named.get(series) or editions(title).get(series)
        if printed and not printed & ordinals:
            return True
    return False


# Scenario words and the words of the scenario they stand against (Nab & Maslin: sustainable vs conventional;
# Burchart et al.: sequestration vs none)
_OPPOSITES = (
    (re.compile(r"\bsustainabl[ey]\b", re.I), re.compile(r"\bconventional(?:ly)?\b", re.I)),
    (re.compile(r"\bconventional(?:ly)?\b", re.I), re.compile(r"\bsustainabl[ey]\b", re.I)),
    (re.compile(r"\bnot sequestered\b|\bwithout (?:sequestration|ccs|carbon capture)\b|\bnon-seq", re.I),
     re.compile(r"(?<!non-)\bseq\.|\bwith (?:sequestration|ccs|carbon capture)\b|\bH2 seq\b", re.I)),
    (re.compile(r"(?<!not )\bsequestered\b|\bwith (?:sequestration|ccs|carbon capture)\b|(?<!non-)\bseq\.", re.I),
     re.compile(r"\bnot sequestered\b|\bwithout (?:sequestration|ccs|carbon capture)\b|\bnon-seq", re.I)),
    (re.compile(r"\b(?:inside|within) europe\b", re.I), re.compile(r"\boutside (?:of )?europe\b", re.I)),
    (re.compile(r"\boutside (?:of )?europe\b", re.I), re.compile(r"\b(?:inside|within) europe\b", re.I)),
)


def scenario_share(text: str, question: QuestionFrame) -> float:
    """Share of the question's scenario words that ``text`` names, in any of their printed forms ("not
    sequestered" is named by "non-seq."): 0.0 when the question names no scenario."""
    if not question.scenario:
        return 0.0
    lower = text.lower()
    named = sum(1 for word in question.scenario
                if word in lower or any(p.search(word) and p.search(text) for p, _ in _OPPOSITES))
    return named / len(question.scenario)


def other_scenario(text: str, question: QuestionFrame) -> bool:
    """The span speaks only of the scenario the question sets against the one it names (conventional coffee for a
    question about sustainable coffee; a sequestration case for one without)."""
    asked = " ".join(question.scenario)
    for named, opposite in _OPPOSITES:
        if opposite.search(asked):
            continue  # the question names both sides (a comparison, or a follow-up joined to its question)
        if named.search(asked) and opposite.search(text) and not named.search(text):
            return True
    return False


@cache
def asked_quantities(question: str) -> tuple[str, ...]:
    """The quantities ``question`` or any of its parts asks a value of: "Burchart coal-to-H2: GWP with vs without CO2
    sequestration, and what happens to acidification …" asks for CO2e and acidification values (the whole question
    names acidification first)."""
    asked = frame(question)
    return tuple(dict.fromkeys(q for q in (asked.quantity, *(frame(p).quantity for p in asked.parts)) if q))


_OWN_CHOICE = re.compile(r"\b(?:has|have) been (?:chosen|adopted|applied|selected)\b|"
                         r"\b(?:is|are) not applied because\b", re.I)
# a step of the document's own method, citing the data or tool it used: "The coffee farm locations were placed at
# random points in Sao Paulo (Brazil) and Buôn Ma Thuột (Vietnam), the biggest coffee producing regions … (ICO,
# 2019)", "The nearest ports … were then identified using sea-distances.org (2019) and Google Maps (2019)" (Nab &
# Maslin 2020, p. 8), after which "… the sustainable case studies varied from the conventional ones in three ways"
# is the study's own design
OWN_STEP = re.compile(r"^(?:The|These|Each|All)\b[^.;]{0,120}?\b(?:were|was) (?:then |also |first |randomly )?"
                      r"(?:placed|identified|estimated|calculated|obtained|derived|determined|collected|modell?ed|"
                      r"computed|selected|chosen|converted|allocated)\b")
_BY_OTHERS = re.compile(r"\bby\s+(?:\[\d|[A-Z][\w'’-]+(?:\s+et al\.|\s+and\s+[A-Z][\w'’-]+|\s+\(\d{4}))")  # "… by Smith
# et al. (2019)": a step of theirs
_CLOSING_SOURCE = re.compile(r"\s*\([^()]*\b(?:19|20)\d\d[a-z]?\)(?=\s*[.;]|\s*$)")


def reports_other_work(text: str) -> bool:
    """The sentence reports another work ("(Killian et al., 2013)", "[84]", "previous studies found") and does
    not speak of its own document's work ("this study", "we", "our")."""
    if OWN_STUDY.search(text):
        return False
    # what the document calls its source study is where its own data come from: "The source study found that a main
    # emission driver is the preparation of coffee using an automatic coffee machine, which generates an estimated
    # 60.27 g CO2e per cup …" (Nab & Maslin 2020, p. 15, whose processing phase is that study's 3.05 kg CO2e)
    if _OWN_SOURCE.search(text) or (OWN_STEP.search(text) and not _CITES_OTHER.search(text)
                                    and not _BY_OTHERS.search(text)):
        return False
    # a choice of its own, citing at its sentence's end the source it follows: "Among the possible remaining
    # allocation methods, energy has been chosen according to RED recommendations when dealing with transportation
    # fuels (European Commission, 2009; European Commission, 2016)." (Moretti et al. 2020, p. 4)
    body = _CLOSING_SOURCE.sub("", text)
    if body != text and _OWN_CHOICE.search(body) and not CITATION.search(body) and not _CITES_OTHER.search(body):
        return False
    return CITATION.search(text) is not None or _CITES_OTHER.search(text) is not None


def is_fragment(text: str) -> bool:
    """A span that is not a whole sentence: a caption ("Equation 19 – …", "Table 33: …"), one an equation runs into, a
    span that starts in lower case (continued from a text the parser cut), or ends on a word no sentence ends with
    ("… was", "… concerned with"), or, not being a list item, ends with no sentence end at all."""
    text = text.strip()
    if not text:
        return True
    if _CAPTION.match(text) and (len(text) < 160 or re.match(r"\s*(?:Figure|Fig\.)", text)):
        return True  # "Equation 19 – Modular form of the Circular Footprint Formula (CFF-M)" labels, it states nothing;
        # so does a figure's caption of any length ("Fig. 2. Breakdown of cradle-to-factory gate environmental impact
        # of UCO-based PP per key-unit process (…)", Moretti et al. 2020, p. 7)
    if _CAPTION_RUN.match(text) or _CLAUSE_ONLY.match(text):
        return True  # (a clause that never reaches its main one: "If large-scale Monte Carlo simulations. This is an
        # important take-home message …", Heijungs 2020, p. 401, where the parser lost the equation between them)
    if sum(len(m) for m in _PLACEHOLDER.findall(text) if not _RULE.search(m)) > len(text) / 2:
        return True  # a form's blank to fill in: "Boundary, including life cycle stages and [Life cycle stages
        # accounted for in the PCF …]" (Pathfinder Framework, Appendix B: PCF Questionnaire, p. 42); not one stating
        # a rule: "[Global warming potential factors, which shall be derived from the IPCC Assessment Report AR 5]"
    if _SPLICED.search(text):  # a sentence cut off by a caption printed into it: "In an LCA of The contribution of
        return True  # each phase to the total carbon footprint …" (Nab & Maslin 2020, p. 12, Figure 5)
    if _FORMULA_GLYPH.search(text):  # an equation the parser ran into the sentence: "… are incompatible with lnX 1
        return True  # 2 þ 4þsinX 2." (Heijungs 2020, p. 401, for "… with large-scale Monte Carlo simulations")
    if CASE_BACK.match(text):  # the case it speaks of is in a sentence not quoted with it
        return True
    if text.endswith("?"):  # a question states nothing: "Which foods are air-freighted?" (Ritchie 2020, p. 2, a
        return True  # heading set as text)
    if LIST_ITEM.match(text) or text.startswith("|"):
        return False  # a list item may end "…; and" before the next one
    if text[0].islower() or _OPEN_END.search(text.rstrip(",;")):
        return True
    return not ENDS_SENTENCE.search(text)


def units_supported(claim_text: str, cited: list[Evidence]) -> bool:
    """Every number written with a unit in ``claim_text`` occurs in the cited evidence with the same unit: next
    to it in prose, or in the same table row (whose unit cell or column header holds the unit)."""
    for m in _NUMBER_UNIT.finditer(claim_text):
        number, unit = match_key(m.group(1)), match_key(m.group(2))
        if not any(_has(e, number, unit) for e in cited):
            return False
    return True


def _has(evidence: Evidence, number: str, unit: str) -> bool:
    if evidence.reading or evidence.text.startswith("|"):
        row = match_key(f"{evidence.text} {evidence.reading} {evidence.context}")
        return number in row and unit[:5] in row
    text = match_key(f"{evidence.text} {evidence.context}")
    return any(text[m.end():].startswith(unit[:5]) for m in re.finditer(re.escape(number), text))
