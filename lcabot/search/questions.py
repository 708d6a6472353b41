"""What a question asks for: its kind, its parts, whether it is about one document's own work, and the scenario
or condition it names. Read deterministically from the question's words (DESIGN.md §11)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lcabot.search.retrieval import content_terms, defines_term

KINDS = ("numeric", "definition", "comparison", "procedure", "list", "other")
MAX_PARTS = 4  # parts of a multi-part question answered one by one
IMPLIED_TERMS = 2  # a later part naming no more content words than this is about what the part before it names

_NUMERIC = re.compile(
    r"\bhow (?:much|many|big|large|high|long|far|often)\b|\bwhat (?:values?|share|percentage|proportion|amount|number|"
    r"threshold|factor|rate|ratio|distance|result|gwp|dqr|load factor|cut-off|footprint|emission factor|"
    r"(?:expected |annual |total )?(?:output|production|yield))\b|"
    r"\bwhat default\b|\bimpacts? (?:of|for|per)\b|\bwhat (?:(?:was|were|is|are) (?:the )?)?(?:[\w-]+ ){0,3}(?:prices?|"
    r"costs?)\b|"
    r"\b(?:acidification|eutrophication)(?:\s+(?:potential|index|rate))?\s+(?:of|for|per|with|without|in)\b|"
    r"\b(?:gwp\d*|kg co2|co2e?q?|percent|%|per kg|per cent|(?:maximum|minimum)(?!\s+(?:set|list)\b)|highest|lowest|"
    r"threshold|"
    r"default (?:split|value|transport)|distances?|(?<!to )(?<!must )(?<!shall )shares?|results?)\b|"
    r"\bwhat (?:(?:is|was|are|were) the )?(?:total|average|mean)\b|"
    r"\bwhat (?:[\w-]+ ){0,4}(?:reductions?|savings?|increases?|decreases?)\b|\bwhat range\b|\b(?:amount|budget)s?\b",
    re.I,
)
_COMPARISON = re.compile(r"\bcompare[sd]?\b|\bcompared (?:with|to)\b|\bversus\b|\bvs\.?\b|\bdifference between\b|"
                         r"\bwhat distinguish(?:es)?\b|\bhow (?:do|does) \w+(?: \w+){0,4} differ\b|"
                         r"\bdiffer\b[^?]*\bbetween\b|"
                         r"\b(?:lower|higher|more|less|better|worse) than\b|\bhow much (?:lower|higher|less|more)\b",
                         re.I)
_PROCEDURE = re.compile(r"^\s*how (?:do|does|did|is|are|should|can|to)\b|\bcalculated?\b|\bhandle[ds]?\b|"
                        r"\bprocedure\b|\bsteps?\b|\bpick\b", re.I)
# the effect of one thing on a result, which values answer: "How does CO2 sequestration change the acidification
# potential …?", "… Give both values."
_EFFECT = re.compile(r"^\s*how (?:do|does|did|would|will)\b.*(?<!climate )(?<!use )"
                     r"\b(?:change|affect|influence|alter)s?\b|"
                     r"\b(?:give|state|quote|report)\s+(?:both|each|all|the)\s+(?:values?|numbers?|figures?)\b", re.I)
_DEFINITION = re.compile(r"(?:^|,)\s*what (?:is|are|does|do|was|were)\b|\bstand for\b|\bdefin(?:e|ed|ition)\b|\bmean\b|"
                         r"\bfunctional unit\b|\bdeclared unit\b|\bso-called\b", re.I)
# a part asking where a value comes from, not for the value: "which source shall the 100-year GWP characterisation
# factors be derived from" (Pathfinder Framework: "the IPCC Assessment Report AR 5", p. 18)
# (words may stand before the noun: "which IPCC assessment report must the GWP characterization factors come from")
_SOURCE = re.compile(r"(?:^|,)\s*(?:and\s+)?(?:which\s+(?:[\w-]+\s+){0,2}?|what\s+(?-i:[A-Z][\w-]*\s+){0,2})"
                     r"(?:sources?|standards?|reports?|databases?|datasets?|references?|guidelines?)\b|"
                     # which set of values to use, not a value: "which GWP values do you have to use" (Pathfinder
                     # Framework p. 18: "… shall be derived from the IPCC Assessment Report AR 5")
                     r"\bwhich\s+(?:[\w-]+\s+)?(?:values|factors)\s+(?:do|does|should|shall|must|to|are)\b", re.I)
_LIST = re.compile(r"^\s*which\b|\blist\b|\bwhat (?:methods|categories|stages|standards|processes)\b", re.I)
# The question is about one document's own work ("Nab & Maslin", "the coffee paper", "this study", "they get")
_ABOUT_DOCUMENT = re.compile(
    r"\b(?:et al\.?|the (?:coffee|hydrogen|uco|pp|polypropylene|study|paper|article|authors?)|this (?:study|paper)|"
    r"their|they|[A-Z][a-z]+ (?:&|and) [A-Z][a-z]+|[A-Z][a-z]+'s?\s+\(?\d{4}\)?|\(\d{4}\))", re.I
)
# The question asks what a document argues or discusses ("What do Finnveden et al. say about truncation errors …?"),
# not for a value or a choice of its own study
_ASKS_VIEW = re.compile(r"\bwhat (?:do|does|did)\b.*\b(?:say|argue|conclude|discuss|suggest|write|claim)\b|"
                        r"\bhow (?:do|does|did)\b.*\b(?:discuss|view|see|argue)\b|"
                        r"\b(?:position|view|stance|argument)s? (?:on|about)\b|"
                        # "According to Finnveden et al. (2022), can system expansion and substitution be used …?"
                        r"^\s*according to\b[^,?]*,\s*(?:can|could|should|is|are|does|do|may|must)\b", re.I)
# a question about the statements a document argues against: "Which claims about attributional LCA does Finnveden
# reject?", "What misconceptions does the paper list?"
_ASKS_REJECTED = re.compile(r"\b(?:reject\w*|refut\w*|disput\w*|debunk\w*|disagree\w*|argues? against|"
                            r"misconceptions?|misunderstandings?|myths?|fallac\w+|debat\w+|controvers\w+|"
                            r"(?:which|what)\b.*\b(?:claims|statements|assertions|beliefs)\b|"
                            r"(?:calls?|consider\w*|deems?|finds?|shows?) (?:to be )?"
                            r"(?:wrong|false|incorrect|mistaken))\b", re.I)
# The term a definition question asks about: "How does the PEFCR guidance define company-specific data?", "What is
# meant by 'mandatory process'?", "What does DQR stand for?"
_DEFINED_TERM = (
    # (not what a thing is defined for: "which three data-quality levels are defined for process data sets")
    re.compile(r"\bdefin(?:e[sd]?|ition of)\s+(?:an?\s+|the\s+(?:term\s+|concept\s+)?)?"
               r"(?!(?:for|in|as|by|under|according|to|with|on)\b)[\"“'‘]?([\w][\w\s/-]*?)[\"”'’]?\s*"
               r"(?:\?|$|\b(?:in|for|as|under|according)\b)", re.I),
    re.compile(r"^\s*what (?:is|are) (?:meant by )?(?:an? |the )?[\"“'‘]?([\w][\w\s/-]*?)[\"”'’]?\s*"
               r"(?:\?|$|\b(?:in|for|according|under)\b)", re.I),
    re.compile(r"\bwhat (?:does|do) (?:the term )?[\"“'‘]?([\w][\w\s/-]*?)[\"”'’]? (?:mean|stand for)\b", re.I),
    # how a thing is to be picked is said where the document says what it is taken to be: "How does the PEFCR
    # guidance say the most relevant impact categories should be picked?" by "The most relevant impact categories
    # shall be identified as all impact categories that cumulatively contribute to at least 80% …" (p. 50)
    _SELECTED := re.compile(r"^\s*how (?:(?:do|does|did)\b.*?\b(?:say|state|require|recommend)s?\s+(?:that\s+)?|"
                            r"(?:should|shall|must|are|is|were|was|can)\s+)(?:the |an? )?([\w][\w\s/-]*?)\s+"
                            r"(?:(?:should|shall|must|are to|is to|can|may)\s+)?(?:be\s+)?"
                            r"(?:picked|chosen|selected|identified|determined)\b", re.I),
)
# Words that name a scenario or sensitivity case rather than the baseline
_SCENARIO = re.compile(
    r"\b(?:with(?:out)? (?:carbon capture|ccs|sequestration|biogenic carbon removal|bcr)|sequestered|"
    r"not sequestered|non-seq\w*|ccs|sustainable|conventional|"
    # a sensitivity case, not the topic of sensitivity analysis (Groen et al. 2016)
    r"sensitivity(?!\s+(?:analys[ie]s|methods?|ind(?:ex|ices)|measures?|coefficients?))|alternative|scenario\s+\w+|"
    r"globally sourced|cargo ship|air freight|freight flight|(?:inside|within|outside(?: of)?) europe)\b", re.I
)
# The section or clause a question names ("section 7.2.1 of Pathfinder", "clause 6.3.5", "Annex B.2")
_SECTION = re.compile(r"\b(?:section|clause|chapter|§|annex)\s*((?:[A-Z](?:\.\d+)*|\d+(?:\.\d+)*)\b)", re.I)
# The quantity a numeric question asks for, and the unit a value of it is printed with
QUANTITIES = (
    # ("how much of the total emissions does PAS 2050 require to be assessed": "at least 95%", Nab & Maslin 2020, p. 7)
    # ("what default emission fractions … for pesticides applied on the field": "90% emitted to the agricultural
    # soil compartment, 9% emitted to air and 1% emitted to water", PEFCR guidance p. 72)
    ("%", re.compile(r"\b(?:percent(?:age)?|per cent|(?<!to )(?<!must )(?<!shall )shares?|proportion|fractions?|"
                     r"contribut\w*)\b|\bhow much of (?!an?\b)|%", re.I),
     re.compile(r"\d\s*%")),
    ("duration", re.compile(r"\bhow long\b|\b(?:validity|valid|period)\b", re.I),
     re.compile(r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+(?:years?|months?|weeks?|days?)\b",
                re.I)),
    # a default transport scenario is a distance per transport mode ("130 km by truck", PEFCR guidance p. 97)
    ("distance", re.compile(r"\b(?:distances?|how far|(?:default )?transport scenarios?)\b", re.I),
     re.compile(r"\d\s*km\b", re.I)),
    # the acidification and eutrophication midpoints as Burchart et al. (Table 7: "kg SO2 eq", "kg PO4 3−eq"), Moretti
    # et al. (Table 4: "mol H+ eq", "kg P eq") and the PEFCR guidance (EF: "mol N eq") print them
    ("acidification", re.compile(r"\bacidification\b", re.I),
     re.compile(r"\bkg\s*(?:of\s*)?SO2[\s(-]*e(?:q|quivalents?)?\b|\bmolc?\s*H\+", re.I)),
    ("eutrophication", re.compile(r"\beutrophication\b", re.I),
     re.compile(r"\bkg\s*PO\s?[34]|\b(?:kg|molc?)\s*[NP]\s*eq\b", re.I)),
    ("CO2e", re.compile(r"\b(?:gwp\d*\w?|global warming|climate change|carbon footprints?|ghg|greenhouse gas\w*|"
                        r"co2-?e|co2-?eq|emissions?|kg co2)\b", re.I),
     # "34.8 kg CO2-eq", "60 kilograms of greenhouse gases (CO2-equivalents)" (OWID p. 1)
     re.compile(r"(?:\b(?:k?g|t|Mt|Gt)|\d\s*(?:kilo)?grams?|\d\s*(?:(?:thousand|million|billion)\s+)?tonnes?)\s*"
                r"(?:of\s+)?(?:greenhouse gas(?:es)?\s*)?[(‘'\"“]?"
                r"(?:CO2|CO₂|carbon dioxide)[\s-]*\(?(?:e\b|eq|equivalent)|"
                # a characterisation factor, in kg CO2 eq per kg of the gas: "for fossil methane a GWP of 36.75 shall
                # be used", "Methane (fossil) Air emission: GWP100 36.75" (PEFCR guidance, Table 13)
                r"\bGWP(?:\s?(?:100|20)a?)?(?:\s+of)?\s+(?!(?:19|20)\d\d\b)[-−]?\d+(?:[.,]\d+)?(?!\w)", re.I)),
    ("energy", re.compile(r"\b(?:energy|electricity|heat|fuel use)\b", re.I),
     re.compile(r"\d\s*(?:MJ|GJ|TJ|[kMGT]?Wh)\b")),
    # a price per unit ("the winning bid price per kg of hydrogen"): a sum of money (a budget, a grant total) is no
    # answer; the Hydrogen Bank pilot prints it in a column "Bid price (EUR/kg)" (p. 2)
    ("unit price", re.compile(r"\b(?:bid|unit|strike|clearing|premium) prices?\b|\bprices?\b.*\bper (?:kg|kilogram|"
                              r"tonne|t|unit|litre|MWh|kWh)\b|(?:EUR|€)\s*/\s*(?:kg|t|MWh|kWh)\b", re.I),
     re.compile(r"(?:EUR|€)\s*/\s*(?:kg|t|MWh|kWh)\b|(?:EUR|€)\s*\d[\d.,]*\s*(?:/|per)\s*(?:kg|kilogram|t\b|tonne|"
                r"MWh|kWh)", re.I)),
    ("money", re.compile(r"\b(?:money|funding|budget|grants?|support|costs?|prices?|revenue|request(?:ed|s)?|EUR|"
                         r"euros?)\b|€", re.I),
     re.compile(r"(?:EUR|€)\s*\d|\d\s*(?:EUR|euros?)\b", re.I)),
    # a limit: "the DQR score shall be ≤1.6" (PEFCR guidance p. 131), "cannot be higher than 3"
    # (not "the minimum set of data elements" to share, Pathfinder Framework 7.1, p. 33: a list)
    # (or a level a thing must reach: "what DQR must company-specific data for the mandatory processes reach")
    ("limit", re.compile(r"\b(?:maximum|max|minimum|min|at (?:most|least)|upper|lower|limit|highest|lowest)\b"
                         r"(?!\s+(?:set|list)\b)|\b(?:must|shall|should|needs? to|ha(?:s|ve) to)\s+(?:[\w-]+\s+){0,8}?"
                         r"(?:reach|achieve|attain|meet|not exceed)\b", re.I),
     re.compile(r"[≤≥<>]\s*\d|\b(?:not|never) (?:be )?(?:higher|greater|more|lower|less) than \d|"
                r"\bnot exceed \d|\b(?:maximum|minimum) (?:of )?\d|\bat (?:most|least) \d", re.I)),
)
# A parameter the question names by its symbol ("the A factor", "the R1 value"), as formulas print it
_PARAMETER = re.compile(r"(?<=\s)([A-Z]\d{0,2})(?:[\s-]+(?:factor|value|parameter)s?\b|"
                        r"(?=\s+(?:stands? for|means?|represents?)\b))")
# A code of a letter and a number ("situations C1 and C2", module "A3"); not an element's formula ("kg H2")
_CODE = re.compile(r"(?<![\w.\-/])(?!(?:H|N|O)2\b)([A-Z]\d{1,2})(?![\w.\-/])")
# A later part that refers back to the part before it ("… and what values is it allowed to take?")
_BACK_REFERENCE = re.compile(r"\b(?:it|its|they|them|their)\b", re.I)
# Statements before the question proper: up to the last sentence end followed by a question word
# the words a question opens with
_QUESTION_WORD = r"(?:what|which|how|why|when|where|who|is|are|was|were|do|does|did|can|could|should|would|will)\b"
_PREMISE = re.compile(rf"^(.*[a-z\d)][.!])\s+(?={_QUESTION_WORD})", re.I | re.S)
_PART_BREAK = re.compile(
    r"\?\s+|,?\s+and\s+(?=(?:(?:over|for|in|from|by|at|to|within|during|under|with|on|per)\s+)?"
    r"(?:what|which|how|why|when|where|who|do|does|did|is|are|can)\b)|"
    # a conditional part after a comma: "…, and if a dataset meets 'basic quality' can it also declare 'data estimate'"
    r",\s+and\s+(?=(?:if|whether)\b)", re.I
)
# a part asking for the reason of what the part before it asks, and a statement giving one
REASON_PART = re.compile(r"^\s*(?:and\s+)?(?:on what (?:justification|basis|grounds)|why\b|for what reasons?|"
                         r"with what justification|what (?:drives|explains|causes|justifies|is the reason)|"
                         # "what do the authors blame it on", "what do they attribute this to"
                         r"what (?:do|does|did) [^?]{0,40}?\b(?:blame|attribute)\b)", re.I)
GIVES_REASON = re.compile(r"\b(?:because|due to|since|as a result|such that|so that|therefore|thus|hence|owing to|"
                          r"driven by|(?:primary|main) (?:difference|reason|driver)|reasons?|justif\w*|assum\w*|"
                          r"according to|as recommended|in line with|not (?:possible|applicable|available)|"
                          # "The increase in environmental impact category indicators is related to the increased
                          # consumption of electricity for the compression and injection of carbon dioxide" (Burchart
                          # et al. 2023, p. 14)
                          r"(?:is|are|was|were)\s+(?:\w+ly\s+)?(?:related|attributable|attributed)\s+to|"
                          r"(?:caused|explained) by|stems? from)\b", re.I)
def reason_subject(part: str) -> list[str]:
    """The words naming the kind of thing ``part`` asks for (not a sort of thing), which a statement giving the reason
    for it names: "What allocation approach did Moretti et al. use for the steam cracking unit" → ``["allocation",
    "approach"]``; ``[]`` when the part names none."""
    return [t for t in content_terms(asked_noun(part)) if t not in SORT_NOUNS]


_COMMA_QUESTION = re.compile(r",\s+(?=(?:(?:for|in|of|on|at|by|with)\s+)?(?:how|what|when|where|why)\s+(?:much|many|"
                             r"big|large|long|far|often|is|are|was|were|do|does|did)\b)", re.I)
_QUESTION_START = re.compile(rf"^\s*{_QUESTION_WORD}", re.I)
# an instruction on how to answer the part before it: "Give both values.", "Quote the figures."
_GIVE = re.compile(r"^(?:please\s+)?(?:give|state|quote|provide|report|show|include)\s+"
                   r"(?:both|each|all|the|their|its)?\s*(?:values?|numbers?|figures?|results?|amounts?)\b[^?]*$", re.I)
# "… the total carbon footprint of conventional coffee from Vietnam and of sustainable coffee from Brazil": the same
# thing asked of a second case, which repeats the preposition
# a part asking as the one before it did, of its last word: "… which method was fastest and which slowest"
# (the question's closing phrase may follow it: "… and which slowest in Groen et al. 2016")
# (a part with a verb of its own is no ellipsis: "what share of the remaining impacts is allocated to propylene")
_ELLIPTIC = re.compile(r"^(?:which|what|who)\s+(?!(?:in|of|for|by|at|among)\b)([\w-]+)((?:\s+(?:in|of|for|by|among|"
                       r"according to)\b(?:(?!\b(?:is|are|was|were|did|does|do|has|have|can|shall|should)\b).)*)?)$",
                       re.I)
# a part asking as the one before it did, of another thing after the same preposition: "which allocation approach was
# used for the hydrotreatment step, and which for the steam cracking step" (Moretti et al. 2020, p. 4)
_ELLIPTIC_OF = re.compile(r"^(?:which|what)\s+((in|of|for|by|at)\s+.+)$", re.I)
_SIZE = r"(small|large|low|high|short|long|minor|major)"
_SIZES = re.compile(rf"\b(for|with|at|under)\s+{_SIZE}\s+(?:versus|vs\.?|and|or)\s+{_SIZE}\s+(?=[a-z])", re.I)
_SECOND_CASE = re.compile(r",?\s+and\s+(of|for)\s+(?=\S)", re.I)


@dataclass(frozen=True)
class QuestionFrame:
    """What a question asks for.

    Attributes:
        text: the question (a follow-up already joined to the question it continues).
        kind: one of :data:`KINDS` (``numeric`` covers table values too).
        parts: the parts of a multi-part question, in order (one element for a single question).
        about_document: the question is about one document's own work (an author, "the coffee paper", "they").
        scenario: the scenario or condition words the question names (``without sequestration``, ``sustainable``),
            lower case; empty for a question about the baseline.
        section: the section, clause or annex number the question names (``7.2.1``), else ``""``.
        quantity: for a numeric question, the :data:`QUANTITIES` name of what it asks for (``CO2e``, ``%``,
            ``duration``, ``distance``, ``energy``, ``unit price``, ``money``, ``acidification``, ``eutrophication``,
            ``limit``), else ``""``.
        parameters: the formula parameters the question names by symbol (``("A",)`` for "the A factor").
        codes: the letter-and-number codes the question names (``("C1", "C2")`` for "goal situations C1 and C2",
            life cycle modules such as ``A3``), not element formulas (``H2``).
        premise: the statements the question opens with before asking (see :func:`split_premise`), else ``""``;
            kind, parts and quantity are read from the question after it.
        defines: for a definition question, the term it asks to be defined (``company-specific data``), else
            ``""``.
        asks_view: the question asks what a document argues or discusses ("What do Finnveden et al. say about
            …?"): its discussion, citations and all, is what it says.
        asks_rejected: the question asks which statements a document argues against ("Which claims about ALCA does
            Finnveden reject?"): the statements it calls misunderstandings are the answer, quoted as such.
        sides: for a comparison "between A and B", ``(A, B)``, else ``()``.
    """

    text: str
    kind: str
    parts: tuple[str, ...]
    about_document: bool
    scenario: tuple[str, ...]
    section: str = ""
    quantity: str = ""
    parameters: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    premise: str = ""
    asks_view: bool = False
    defines: str = ""
    asks_rejected: bool = False
    sides: tuple[str, ...] = ()

    @property
    def asking(self) -> str:
        """The question without its premise."""
        return self.text[len(self.premise):].strip() if self.premise else self.text

    @property
    def terms(self) -> list[str]:
        return content_terms(self.text)


def split_premise(question: str) -> tuple[str, str]:
    """``(premise, asking)``: the statements a question opens with, and the question they lead to ("The PEFCR
    guidance says EF-compliant data must meet the ILCD entry level. What kind of review does that ask for?");
    ``("", question)`` when it opens with the question."""
    m = _PREMISE.match(question)
    return (m.group(1).strip(), question[m.end():].strip()) if m else ("", question)


def sub_questions(question: str) -> list[str]:
    """The parts of a multi-part question ("What functional unit …, and which standard …?" → two parts); a
    single question gives a one-element list."""
    parts = [p.strip(" ,?") for p in _PART_BREAK.split(question)]
    # a question after a comma ends a part that is a question itself: "How big is the South Tyrolean apple-growing
    # area, how many farms are there …" (not "In Nab and Maslin's coffee study, what is …")
    parts = [q.strip(" ,?") for p in parts for q in (_COMMA_QUESTION.split(p) if _QUESTION_START.match(p) else [p])]
    for i in range(1, len(parts)):  # "which method was fastest and which slowest": "which method was slowest"
        elliptic = _ELLIPTIC.match(parts[i])
        if elliptic and len(parts[i - 1].split()) >= 3:
            parts[i] = f"{parts[i - 1].rsplit(' ', 1)[0]} {elliptic.group(1)}{elliptic.group(2)}"
        elif (other := _ELLIPTIC_OF.match(parts[i])) and (at := parts[i - 1].lower().rfind(f" {other.group(2).lower()} "
                                                                                           )) > 0:
            parts[i] = f"{parts[i - 1][:at]} {other.group(1)}"
    parts = [p for p in parts if len(p.split()) >= 3 or (REASON_PART.match(p) and p is not parts[0])] or [question]
    for i in range(len(parts) - 1, 0, -1):  # "… ? Give both values." asks the part before for its values
        if _GIVE.match(parts[i]):
            parts[i - 1:i + 1] = [f"{parts[i - 1]}? {parts[i]}"]
    return [case for p in parts for item in _items(p) for case in _cases(item)][:MAX_PARTS]


_NOUN = r"(?!(?:with|without|of|from|in|for|per|to|by|on|and|or|is|are|was|were|did|does|do|has|have)\b)[\w-]+"
_PHRASE = rf"{_NOUN}(?:\s+{_NOUN}){{0,3}}?"
# "What functional unit, system boundary and geographic scope were used in …": things asked of one subject, each its
# own part
_ITEMS = re.compile(rf"^(?P<ask>.*?\b(?:what|which)\s+(?:(?:is|are|was|were)\s+the\s+)?)"
                    rf"(?P<items>{_PHRASE}(?:,\s*{_PHRASE})*,?\s+and\s+{_PHRASE})"
                    r"(?P<rest>\s+(?:were|was|is|are|did|does|do|has|have|of|for|per|in)\b.*)$", re.I | re.S)


_RESULT_HEAD = re.compile(r"(?:reductions?|savings?|increases?|decreases?|results?|values?|impacts?|shares?|"
                          r"contributions?|scores?)", re.I)


def _items(part: str) -> list[str]:
    """A part asking for several things of one subject, as one part per thing: "What functional unit, system
    boundary and geographic scope were used in the LCA of polypropylene …" → "What functional unit were used in the
    LCA of polypropylene …", "What system boundary were used …", "What geographic scope were used …"."""
    m = _ITEMS.match(part)
    if m is None:
        return [part]
    items = [i.strip() for i in re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group("items")) if i.strip()]
    head = items[-1].rsplit(" ", 1)[-1]
    if _RESULT_HEAD.fullmatch(head):  # "What climate change and fossil resource use reductions …": the reductions of
        # each (Moretti et al. 2020, p. 10)
        items = [i if _RESULT_HEAD.fullmatch(i.rsplit(" ", 1)[-1]) else f"{i} {head}" for i in items]
    return [f"{m.group('ask')}{item}{m.group('rest')}" for item in items] if len(items) > 1 else [part]


def _cases(part: str) -> list[str]:
    """A part asking the same thing of two cases, as two parts each asking it in full: "what is the total carbon
    footprint of conventional coffee from Vietnam and of sustainable coffee from Brazil" → "… of conventional coffee
    from Vietnam", "what is the total carbon footprint of sustainable coffee from Brazil"."""
    sizes = _SIZES.search(part)  # "for small versus large input uncertainties": "… for small input uncertainties",
    if sizes:  # "… for large input uncertainties" (Groen et al. 2016, p. 1)
        before, after = part[:sizes.start(2)], part[sizes.end(3):]
        return [f"{before}{sizes.group(2)}{after}", f"{before}{sizes.group(3)}{after}"]
    m = _SECOND_CASE.search(part)
    if m is None:
        return [part]
    first, second = part[:m.start()], part[m.end():]
    head = re.search(rf"^(.*)\b{m.group(1)}\s", first, re.I | re.S)
    if head is None:
        return [part]
    case = first[head.end():].split()
    if len(case) == 1 and len(second.split()) > 1:  # "for small and for large input uncertainties": the first case
        first = f"{first} {second.split(' ', 1)[1]}"  # is "small input uncertainties"
    return [first, f"{head.group(1)}{m.group(1)} {second}"]


def refers_back(part: str) -> bool:
    """The part names what it asks about by a pronoun ("… and what values is it allowed to take?")."""
    return _BACK_REFERENCE.search(part) is not None


def referent(parts: Sequence[str], i: int) -> str:
    """What part ``i`` of a multi-part question refers back to: the part before it, when part ``i`` refers to it with
    a pronoun ("what values is it allowed to take" after "What does the A factor … stand for") or names no more
    than :data:`IMPLIED_TERMS` things of its own and no kind of thing it asks for ("… with and without CO2
    sequestration, and what is the relative reduction?"), else ``""``."""
    if not 0 < i < len(parts):
        return ""
    # a part naming the kind of thing it asks for ("which method was fastest") asks it of its own
    implied = len(content_terms(parts[i])) <= IMPLIED_TERMS and not asked_noun(parts[i])
    return parts[i - 1] if implied or refers_back(parts[i]) else ""


def names_parameter(text: str, symbol: str) -> bool:
    """True when ``text`` uses the formula parameter ``symbol`` as one ("A: allocation factor …", "0.2 ≤ A ≤ 0.8",
    "the A factor"), not as a word ("A disadvantage …")."""
    s = re.escape(symbol)
    used = rf"(?<![\w.]){s}(?:[\s-]*(?:factor|value)s?\b|\s*[:=≤<>≥])|[=≤<>≥]\s*{s}(?![\w.])"
    return re.search(used, text) is not None


def without_section(question: str) -> str:
    """The question without the section it names ("section 3.2 of …"): the number locates the answer; as words
    it would favour the sentences that cite the section ("(see Section 3.2)") over the section's own."""
    return " ".join(_SECTION.sub(" ", question).split())


def parameters_of(question: str) -> tuple[str, ...]:
    """The formula parameters ``question`` names by symbol (:data:`_PARAMETER`): "the A factor", "what does B stand
    for". The last of codes joined by "and" is not one ("what do goal situations C1 and C2 mean" asks about both
    codes)."""
    joined = {m.group(1) for m in re.finditer(r"(?<![\w.\-/])[A-Z]\d{1,2},?\s+(?:and|or)\s+([A-Z]\d{1,2})(?![\w.\-/])",
                                              question)}
    return tuple(dict.fromkeys(p for p in _PARAMETER.findall(question) if p not in joined))


def names_code(text: str, code: str) -> bool:
    """True when ``text`` prints ``code`` as a word ("Situation C1 …"), not inside another ("C12", "PM2.5")."""
    return re.search(rf"(?<![\w.\-/]){re.escape(code)}(?![\w.\-/])", text) is not None


# what a question is about, set before it as a label: "PEFCR Guidance 6.3: how is the 1% cut-off rule applied"
_LABEL = re.compile(rf"^[^?:]{{1,80}}:\s+(?={_QUESTION_WORD})", re.I)


def kind_of(question: str) -> str:
    """The kind of one question (or part): comparison, procedure, numeric, definition, list, else other; a label
    before the question ("PEFCR Guidance 6.3: how is …") aside."""
    question = _LABEL.sub("", question)
    if _COMPARISON.search(question):
        return "comparison"
    if re.search(r"^\s*how (?:do|does|did)\b.*\bdefine\b", question, re.I) or _SELECTED.search(question):
        return "definition"  # "How does the guidance define …", "… say the most relevant … should be picked"
    if _EFFECT.search(question):  # "How does CO2 sequestration change the acidification potential …?"
        return "numeric"
    # ("what total carbon footprint was calculated for …" asks for the result, Nab & Maslin 2020, p. 12)
    if _PROCEDURE.search(question) and not re.search(
            r"\bhow (?:much|many|big|long)\b|\bwhat\b[^?]*\b(?:was|were|is|are)\s+calculated\b", question, re.I):
        return "procedure"
    # "what functional unit …" asks for one; "the GHG emissions per functional unit" for a value
    if re.search(r"(?<!per )(?<!per the )\b(?:functional|declared) unit\b|\bstand for\b|\bdefin(?:e|ed|ition)\b",
                 question, re.I):
        return "definition"
    # (a value in an aside only says which case is meant: "which performed best with large input uncertainties (cv
    # 30%)" asks which methods, Groen et al. 2016, p. 1)
    if _NUMERIC.search(re.sub(r"\([^()]*\d[^()]*\)", "", question)) and not _SOURCE.search(question):
        return "numeric"
    if _DEFINITION.search(question):
        return "definition"
    if _LIST.search(question):
        return "list"
    return "other"


# a change of a result, which a relative value answers too; "climate change" and "land use change" are not one
_CHANGE = re.compile(r"\bby how much\b|\bhow much (?:higher|lower|more|less)\b|"
                     r"\b(?:increase|decrease|reduction|reduce)s?\b|(?<!climate )(?<!use )\bchanges?\b", re.I)


def asks_change(question: str) -> bool:
    """True when ``question`` asks by how much a result changes ("by how much does the climate change result
    increase if …"), which a value in per cent answers as well as one in the result's unit."""
    return _CHANGE.search(question) is not None


_HOW_MANY_UNITS = re.compile(r"\bhow many (?:kg|kilo\w*|tonnes?|tons?|grams?|km|kilomet\w*|MJ|kWh|euros?|EUR|percent|"
                             r"per cent|years?|days?|months?)\b", re.I)
# a question asking for a number of things, and a sentence stating one
HOW_MANY = re.compile(r"\bhow many\b|\bwhat (?:is the )?(?:(?:minimum|maximum|smallest|largest|required) )?number\b",
                      re.I)
# a part asking the same of each of several things, and the words a document numbers them by
EACH = re.compile(r"\b(?:each of|both of|each|both)\s+(?:the|its|their|these|those)\s+(?:(?:two|three|four|\d)\s+)?"
                   r"(?:[\w-]+\s+){0,2}?([a-z]{3,}?)s\b", re.I)
ORDINALS = ("first", "second", "third", "fourth")
# (or with "each" after them: "What do the two EU renewable hydrogen (RFNBO) delegated acts formally adopted in June
# 2023 each cover", "What do the two EU delegated acts on renewable hydrogen (RFNBOs) adopted in 2023 each cover")
_EACH_AFTER = re.compile(r"\bthe\s+(?:two|three|four|\d)\s+(?:[\w()-]+\s+){0,6}?([a-z]{3,}?)s\b(?:\s+[\w()-]+){0,8}?"
                         r"\s+each\b", re.I)


def each_thing(part: str) -> str:
    """What ``part`` asks the same of each of ("what does each of the two acts cover" → ``act``), else ``""``."""
    m = EACH.search(part) or _EACH_AFTER.search(part)
    return m.group(1).lower() if m else ""


def names_each(text: str, ordinal: str, thing: str) -> bool:
    """``text`` speaks of the ``ordinal`` ``thing`` ("the second act", "the first delegated act")."""
    return re.search(rf"\b{ordinal}\s+(?:[\w-]+\s+)?{thing}\b", text, re.I) is not None


# a question asking how a value is worked out, and a span stating it as an equation: "how are they combined" (the
# DQR criteria) by "DQR = (TeR+GR+TiR+P)/4 [Equation 20]" (PEFCR guidance p. 130)
ASKS_FORMULA = re.compile(r"\bhow (?:is|are|was|were|should|shall|to|do|does)\b.*\b(?:calculat|comput|combin|aggregat|"
                          r"deriv|work(?:ed)? out)\w*|\b(?:formula|equation)\b", re.I)
STATES_EQUATION = re.compile(r"\[Equation [\w.]+\]|^\W*[\w%][\w% ]{0,20}\s=\s*[^=\s][^=]*[+\-−∗*/×∙]")


# a question asking whether a claim holds, and a sentence judging one: "Does the "100% rule" hold for attributional
# LCA according to Finnveden et al." by "The 100 % rule interpreted in this way, however, does not seem to be
# correct" (Finnveden et al. 2022, p. 2), not by "… the 100 % rule could be valid" for a company, nor by "if the 100 %
# rule is not valid, then …"
ASKS_VERDICT = re.compile(r"^\s*(?:does|do|is|are)\s+(?:the\s+)?[\"“'‘]?(.{3,40}?)[\"”'’]?\s+(?:still\s+)?"
                          r"(?:hold|apply|valid|correct|true|work)\b", re.I)
_VERDICT = re.compile(r"\b(?:is|are|was|were|seems? to be|appears? to be)(?:\s+(?:thus|therefore|then|also|however|"
                      r"in fact|not|generally))*\s+(?:correct|incorrect|valid|invalid|true|false|wrong|justified)\b|"
                      r"\bdo(?:es)? not (?:seem to |appear to )?(?:hold|apply|be (?:correct|valid|true|right))\b|"
                      r"\bdo(?:es)? not (?:seem|appear) to be (?:correct|valid|true|right)\b", re.I)
# an argument dismissed: "… if the 100 % rule is not valid, then this argument would not be relevant" (Finnveden et al.
# 2022, p. 3)
_DISMISSED = re.compile(r"\b(?:would|will|is|are|was|were) (?:not (?:be )?relevant|(?:be )?irrelevant)\b", re.I)


def judges(text: str, question: str) -> bool:
    """True when ``text`` gives a verdict on the claim ``question`` asks about (:data:`ASKS_VERDICT`): names it and
    says it is (not) correct, valid or true, outside a condition ("if the 100 % rule is not valid, …")."""
    asked = ASKS_VERDICT.match(question)
    if not asked:
        return False
    subject = [w for w in re.findall(r"[^\W_]+", asked.group(1).lower()) if len(w) > 2 or w.isdigit()]
    if not subject or not all(re.search(rf"(?<![^\W_]){re.escape(w)}", text.lower()) for w in subject):
        return False
    return states_verdict(text)


def states_verdict(text: str, argument: bool = False) -> bool:
    """True when ``text`` says something is (not) correct, valid or true, outside a condition: "The 100 % rule is
    thus not correct if defined as above" (Finnveden et al. 2022, p. 2), not "if the 100 % rule is not valid, …";
    with ``argument`` (asked why an argument is rejected), also that it is not relevant ("… then this argument would
    not be relevant", p. 3)."""
    found = [*_VERDICT.finditer(text), *(_DISMISSED.finditer(text) if argument else ())]
    return any(not re.search(r"\b(?:if|whether|unless)\b[^,.;]*$", text[:m.start()], re.I) for m in found)


# a question asking why a document rejects a claim: it is answered by the verdict and its reason, not by a case in which
# the claim could hold ("why do they reject the '100 % rule'", Finnveden et al. 2022, p. 2)
ASKS_WHY_REJECTED = re.compile(r"^\s*(?:and\s+)?why\b[^?]*\b(?:reject\w*|dismiss\w*|disagree\w*|critici[sz]\w*|"
                               r"disput\w*|(?:wrong|incorrect|invalid|flawed)\b)", re.I)


# a number of things: digits or a number word before a noun, not a year or a unit
COUNT = re.compile(r"(?<![\w.,])(?-i:(?<![A-Z] ))(?:\d{1,3}(?:,\d{3})+|\d+|one|two|three|four|five|six|seven|"
                   r"eight|nine|ten|eleven|twelve|dozens?|hundreds?|thousands?)(?:\s+(?:million|billion)(?=\s))?\s+"
                   r"(?!(?:kg|g|t|km|MJ|kWh|MW\w*|GW\w*|ha|hectares?|tonnes?|years?|months?|days?|hours?|times|per|"
                   r"percent|%|of|million|billion)\b)(?:[a-z-]+\s+){0,2}[a-z]{3,}s\b", re.I)


# an amount stated by what it may not exceed: "restrict the number of Monte Carlo runs to a number not greater than the
# sample sizes used for the input parameters" (Heijungs 2020, p. 394)
RELATIVE_AMOUNT = re.compile(r"\b(?:not|no) (?:greater|more|larger|higher|less|fewer|smaller|lower) than\b|"
                             r"\bat (?:most|least)\b|\bequal to\b|\bthe same as\b", re.I)
# a change stated as a fraction: "a reduction in the global warming impact of this technology by almost half" (Burchart
# et al. 2023, p. 12), "reduced by a third"
FRACTION = re.compile(r"\bby (?:almost |about |nearly |roughly |more than |over |less than )?(?:half|a third|"
                      r"a quarter|two[- ]thirds|three[- ]quarters)\b|\b(?:halved|doubled|tripled)\b", re.I)


def states_count(text: str, question: str) -> int:
    """How well ``text`` answers "how many …" in ``question``: 2 when it states or bounds a number of the things asked
    for ("Six renewable hydrogen projects have signed …" for "how many projects"), 1 a number of other things ("With
    around 8,000 family businesses" for "how many farms"), else 0."""
    counts = [m.group(0).lower() for m in COUNT.finditer(text)]
    # (the things are named by the first plural of their noun phrase: "how many Monte Carlo runs does …" asks for
    # runs, "the number of data points required" for points)
    asked = re.search(r"\b(?:how many|number of)\s+((?:[\w-]+\s+){0,3}[\w-]+)", question, re.I)
    words = asked.group(1).lower().split() if asked else []
    thing = next((w[:-1] for w in words if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is"))),
                 words[0] if words else "")
    if thing and (any(thing in c for c in counts)
                  # (or bounds the number of them: "we suggest to restrict the number of Monte Carlo runs to a number
                  # not greater than the sample sizes", Heijungs 2020, p. 394, not "more than 100 Monte Carlo
                  # iterations/second", p. 395)
                  or (RELATIVE_AMOUNT.search(text)
                      and re.search(rf"\bnumber of (?:[\w-]+ ){{0,3}}{thing}", text, re.I))):
        return 2
    return 1 if counts else 0


def quantity_of(question: str) -> str:
    """The name of the quantity a numeric question asks for (first of :data:`QUANTITIES` it names), else ``""``."""
    found = [(m.start(), name) for name, asked, _ in QUANTITIES if (m := asked.search(question))]
    count = HOW_MANY.search(question)
    if count and not _HOW_MANY_UNITS.search(question) and all(count.start() < at for at, _ in found):
        return ""  # "How many projects did the auction support" asks for a count, not money
    return found[0][1] if found else ""


# what a value is asked per: "(per kg green coffee)" → kg, green
_PER = re.compile(r"\bper\s+(?:1\s+|one\s+)?(?:(kg|kilograms?|g|grams?|t|tonnes?|MJ|kWh|l|litres?|ml|cups?|units?)"
                  r"(?![\w-]))?\s*(?:of\s+)?([a-z][a-z-]{2,})?", re.I)
_UNIT_NAMES = {"kilogram": "kg", "kilograms": "kg", "gram": "g", "grams": "g", "tonne": "t", "tonnes": "t",
               "litre": "l", "litres": "l"}


def per_unit(question: str) -> tuple[str, str]:
    """What ``question`` asks a value per: its unit and the first word of what it is of ("what is the average
    carbon footprint … (per kg green coffee)" → ``("kg", "green")``), else ``("", "")``."""
    m = _PER.search(question)
    if not m or not (m.group(1) or m.group(2)):
        return "", ""
    unit = (m.group(1) or "").lower()
    return _UNIT_NAMES.get(unit, unit), (m.group(2) or "").lower()


def states_per(text: str, per: tuple[str, str]) -> bool:
    """True when ``text`` prints a value per what :func:`per_unit` gives: "per 1 kg of green coffee", "kg CO2e kg−1
    green coffee", "/kg green" (Nab & Maslin 2020, p. 1), not "per espresso beverage"."""
    unit, word = per
    unit_re = rf"(?:{re.escape(unit)}|{'|'.join(k for k, v in _UNIT_NAMES.items() if v == unit) or re.escape(unit)})"
    of = rf"\s*(?:of\s+)?{re.escape(word)}" if word else r"\b"
    if unit:
        pattern = rf"\bper\s+(?:1\s+|one\s+)?{unit_re}\b{of}|\b{unit_re}\s*[-−–]\s*1\b{of}|/\s*{unit_re}\b{of}"
    else:
        pattern = rf"\bper\s+(?:1\s+|one\s+|a\s+)?{re.escape(word[:5])}"  # (tonne-kilometre, tonne kilometer)
    return re.search(pattern, text, re.I) is not None


def states_quantity(text: str, quantity: str) -> bool:
    """True when ``text`` prints a value of ``quantity`` with its unit ("34.8 kg CO2-eq./kg H2", "50.3%")."""
    return any(name == quantity and printed.search(text) for name, _, printed in QUANTITIES)


# who a question asks ("According to Hannah Ritchie (Our World in Data), what share …"): the source, not what the
# answer must state
ATTRIBUTION = re.compile(r"^\s*according to ([^,]{2,80}),\s*", re.I)


def attributed_source(question: str) -> str:
    """The source a question names as the one it asks ("According to Our World in Data, what share …" → ``Our World
    in Data``), else ``""``."""
    m = ATTRIBUTION.match(question)
    return m.group(1) if m else ""


def frame(question: str) -> QuestionFrame:
    """Classify ``question`` (see :class:`QuestionFrame`)."""
    premise, asking = split_premise(question)
    kind = kind_of(asking)
    section = _SECTION.search(question)
    return QuestionFrame(
        text=question,
        kind=kind,
        parts=tuple(sub_questions(asking)),
        about_document=_ABOUT_DOCUMENT.search(question) is not None,
        scenario=tuple(dict.fromkeys(m.group(0).lower() for m in _SCENARIO.finditer(question))),
        section=section.group(1) if section else "",
        quantity=quantity_of(asking) if kind in ("numeric", "comparison") else "",
        parameters=parameters_of(question),
        codes=tuple(dict.fromkeys(_CODE.findall(question))),
        premise=premise,
        asks_view=_ASKS_VIEW.search(asking) is not None,
        defines=defined_term(asking) if kind == "definition" else "",
        asks_rejected=_ASKS_REJECTED.search(asking) is not None,
        sides=comparison_sides(asking) if kind == "comparison" else (),
    )


_BETWEEN = re.compile(r"\bbetween\s+(?:the\s+)?(.+?)\s+and\s+(?:the\s+)?(.+?)\s*(?:[?.]|$)", re.I)


_COMPARED_WITH = re.compile(r"\b(?:for|of)\s+(?:the\s+)?(.+?)\s+(?:compare|differ)s?\s+(?:with|to|from)\s+"
                            r"(?:those|that|the ones?)\s+(?:for|of)\s+(?:the\s+)?(.+?)\s*(?:[?.]|$)", re.I)


def comparison_sides(question: str) -> tuple[str, str] | tuple[()]:
    """The two things a comparison sets against each other ("How do the review requirements … differ between the
    ILCD Data Network entry-level and full ILCD-compliance?" → ``("ILCD Data Network entry-level",
    "full ILCD-compliance")``), else ``()``."""
    m = _BETWEEN.search(question)
    if m:
        return m.group(1), m.group(2)
    # "How do the review requirements for ILCD Data Network entry-level data sets compare with those for full ILCD
    # compliance?" → ("ILCD Data Network entry-level data sets", "full ILCD compliance")
    m = _COMPARED_WITH.search(question)
    return (m.group(1), m.group(2)) if m else ()


# "which carbon footprint standard did … use", "what allocation method does … apply": the kind of thing asked for,
# the words before the verb (not a clause: "what default applies when none is listed" names no noun before "is")
_ASKED_NOUN = re.compile(r"\b(?:which|what)\s+(?:(?:two|three|four|five|six|seven|eight|nine|ten|\d+)\s+)?"
                         r"((?:(?!(?:when|if|where|whenever|unless|none|that)\s)[\w-]+\s+){0,3}?[a-z][\w-]+)\s+"
                         r"(?:did|does|do|was|were|is|are|has|"
                         r"have|had|can|could|should|must|may)\b", re.I)


# "What are the three data quality levels for process data sets …" → ``data quality levels`` (JRC ILCD compliance
# rules, p. 8: "High quality data", "Basic quality data", "Data estimate")
_ASKED_PLURAL = re.compile(r"(?:^|,)\s*(?:which|what)\s+(?:are|were)\s+the\s+(?:(?:two|three|four|five|six|seven|"
                           r"eight|nine|ten|\d+|main|key)\s+)?((?:[\w-]+\s+){0,3}?[a-z][\w-]*s)\b(?=\s+(?:for|of|in|under|that|"
                           r"used|set|defined|given|listed|named)\b|\s*[?,]|\s*$)", re.I)


# the head nouns that name only a sort of thing: "which emission sources" asks which emissions, "which GWP values" which
# GWP
SORT_NOUNS = frozenset({"sources", "source", "types", "type", "kinds", "kind", "sorts", "forms", "elements", "values",
                        "factors"})


def asked_noun(question: str) -> str:
    """The words naming the kind of thing ``question`` asks for ("Which carbon footprint standard did Nab and Maslin
    use?" → ``carbon footprint standard``; "What functional unit were used …" → ``functional unit``), lower case,
    else ``""``."""
    m = _ASKED_NOUN.search(question) or _ASKED_PLURAL.search(question)
    return m.group(1).lower() if m else ""


def defined_term(question: str) -> str:
    """The term a definition question asks about ("How does the PEFCR guidance define company-specific data?" →
    ``company-specific data``), else ``""``; a term of more than five words is no term."""
    for pattern in _DEFINED_TERM:
        m = pattern.search(question)
        if m and 1 <= len(m.group(1).split()) <= 5 and not _PRONOUN_TERM.fullmatch(m.group(1).strip()):
            return m.group(1).strip()
    return ""


# what names a thing only by referring back to it: "what does each one mean" asks what each of the values before
# it means (the A factor's 0.2, 0.8 and 0.5, PEFCR guidance p. 114), no term
_PRONOUN_TERM = re.compile(r"(?:each(?: one| of them)?|it|they|them|this|that|these|those|either|both)", re.I)


def asked_term(part: str) -> str:
    """The term a part asks to be told what it is ("…, and what is the functional unit?" → ``functional unit``), else
    ``""``; not a result it asks the value of ("and what is the relative reduction?", "and what is the default B
    value?")."""
    if kind_of(part) != "definition" or asks_change(part):
        return ""
    term = defined_term(part)
    per = re.search(r"\bper what ([\w ]+?)\s*\??$", part, re.I)  # "…, and per what functional unit?"
    if not term and per and per.group(1).lower() in DEFINED_BY_VALUE:
        return per.group(1).lower()
    if not term and asked_noun(part) in DEFINED_BY_VALUE:  # "what functional unit is used" asks what it is: "… for
        return asked_noun(part)  # one functional unit" uses it, "The functional unit defined for this study was 1 kg
        # of green Arabica coffee beans" says it (Nab & Maslin 2020, p. 7)
    # (a default, or a formula parameter's factor, is a value: "what is the default B factor" is answered by "the B
    # value shall be equal to 0 as default", PEFCR guidance p. 114)
    # (nor which thing ranks first: "what is the dominant contributor to GHG emissions" is answered by "The dominant
    # contribution, over 60%, to GHG here is direct CO2 emissions …", Burchart et al. 2023, p. 11)
    # (nor an amount: "what is the annual apple harvest there" is answered by "The annual harvest is around 950,000
    # tonnes", Wikipedia, South Tyrolean apple, p. 2)
    return "" if re.search(r"\bvalues?$|^default\b|\b[A-Z]\d{0,2} factors?$|^(?:dominant|main|largest|biggest|"
                           r"greatest|highest|lowest|smallest|primary|principal|leading|major|least|"
                           r"most(?! relevant))\b|^(?:annual|yearly|total|average)\b|\b(?:harvest|production|output|"
                           r"yield|consumption|demand|budget|capacity)$", term) else term


# the concepts a study sets by stating what they are ("the FU is 1 kg of hydrogen at 88 MPa")
DEFINED_BY_VALUE = frozenset({"functional unit", "declared unit", "reference flow"})


def _term_name(term: str) -> str:
    """A pattern for ``term`` or its acronym ("FU" for "functional unit")."""
    words = term.split()
    names = [re.escape(term)] + ([re.escape("".join(w[0] for w in words).upper())] if len(words) > 1 else [])
    return "(?:" + "|".join(names) + ")"


def states_term(text: str, term: str) -> bool:
    """True when ``text`` says what ``term`` is: a glossary entry, or the term (or its acronym, "FU" for "functional
    unit") as the subject of "is", "was", "are", "means", "refers to" or "is defined as", or defined as it."""
    name = _term_name(term)
    return defines_as(text, term) or re.search(
        rf"\b{name}s?\b(?:\s*\([^()]*\))?\s+(?:(?:is|was|are|were)\b|means?\b|refers?\b|(?:is |was )?defined\b|"
        rf"stands? for\b)"
        rf"|\b(?:defined|termed|called)\s+(?:as\s+)?(?:an?\s+|the\s+)?{name}s?\b", text, re.I) is not None


_RULE_HEAD = re.compile(r"\b(?:rules?|requirements?|criteri(?:on|a))$", re.I)
_PRESCRIBES = re.compile(r"\b(?:shall|must|should|may|(?:is|are) (?:required|allowed|permitted))\b", re.I)


def states_rule(text: str, term: str) -> bool:
    """True when ``term`` names a rule ("the cut-off rule") and ``text`` sets it out: a prescription naming the rest
    of the term with a number of its own ("In case processes are excluded from the model this shall be done based on
    a 1% cut-off for all impact categories …", PEFCR guidance p. 61), not a sentence only naming the rule ("In case
    the pilot decides to apply the cut-off rule, the PEFCR shall list the processes …")."""
    if not _RULE_HEAD.search(term) or not _PRESCRIBES.search(text):
        return False
    rest = [w for w in content_terms(_RULE_HEAD.sub("", term)) if not w.isdigit()]
    own = set(re.findall(r"\d+(?:[.,]\d+)?", text)) - set(re.findall(r"\d+(?:[.,]\d+)?", term))
    return bool(rest) and bool(own) and all(re.search(rf"\b{re.escape(w)}", text, re.I) for w in rest)


def defines_as(text: str, term: str) -> bool:
    """True when ``text`` is a definition of ``term``: its glossary entry, or the term (or its acronym) as the subject
    of "means", "refers to", "stands for" or "is defined / identified / understood as" ("The most relevant impact
    categories shall be identified as all impact categories that cumulatively contribute to at least 80% …", PEFCR
    guidance p. 50)."""
    return bool(term) and (defines_term(text, term) or re.search(  # (the term as a sentence's subject, not "The
        # list of mandatory company-specific data refers to the activity data …", p. 39)
        rf"(?:^|(?<=[.!?:])\s)\W*(?:(?:the|an?)\s+)?{_term_name(term)}s?\b(?:\s*\([^()]*\))?\s+"
        rf"(?:means?\b|refers?\b|stands? for\b|"
        rf"(?:is|are|was|were|(?:shall|should|must|can|may) be)\s+(?:defined|identified|understood)\s+as\b)",
        text, re.I) is not None)
