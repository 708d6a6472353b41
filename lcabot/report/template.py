"""The fixed report template, after the content ISO 14067:2018 asks of a CFP study report.

Clause numbers refer to ISO 14067:2018. Clause 7 is the CFP study report: 7.3 lists what the report contains,
7.2 which GHG values are reported separately (fossil and biogenic emissions and removals, direct land use change,
aircraft transport); clause 6 holds the methodology each item comes from (6.3 goal and scope, 6.4 life cycle
inventory, 6.5 impact assessment, 6.6 interpretation) and clause 8 the critical review. Fields cite these
clauses, not their subclauses. The ``requirement`` of each section says, in our own words, what the standard asks
for there.

Each field has a retrieval query (what the study is searched for) and a ``cue``: a pattern that a sentence must
match to fill the field. A field whose cue no retrieved sentence matches reads ``[Information not provided]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lcabot.report.units import GHG_UNIT


@dataclass(frozen=True)
class FieldSpec:
    """One field of the template.

    Attributes:
        key: stable identifier (``functional_unit``).
        label: the field's title in the report.
        clause: the ISO 14067:2018 clause(s) the field comes from.
        query: the retrieval query run against the study.
        cue: a sentence must match it to be quoted for this field.
        max_quotes: at most this many quotes fill the field.
        min_chars: shorter units are not considered (dates and funding lines are short).
        other_studies: quotes may report other studies' work (off for fields about this study's own method).
        exclude: units matching it are never quoted for this field.
        citing: units that cite other work (``[12]``, ``et al.``, ``(Author, 2019)``) may be quoted.
        tables: table rows may be quoted.
        prefer: units matching it rank higher (how a study typically states the item).
        literature: units of paragraphs that compare with other studies may be quoted.
    """

    key: str
    label: str
    clause: str
    query: str
    cue: re.Pattern[str]
    max_quotes: int = 2
    min_chars: int = 25
    other_studies: bool = False
    exclude: re.Pattern[str] | None = None
    citing: bool = True
    tables: bool = True
    prefer: re.Pattern[str] | None = None
    literature: bool = True


@dataclass(frozen=True)
class SectionSpec:
    key: str
    title: str
    clause: str
    requirement: str
    fields: tuple[FieldSpec, ...]


def _cue(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


# An amount of product or service, as a functional unit states it ("1 kg of", "one passenger-km", "1000 MJ"): a
# sentence that names the functional unit without one is about functional units, not this study's.
_QUANTITY = (r"(?:\b\d+(?:[.,]\d+)?|\bone)\s*(?:kg|g|t|tonnes?|kilograms?|MJ|GJ|kWh|MWh|m2|m²|m3|m³|l|litres?|"
             r"liters?|km|tkm|pkm|vkm|passenger[- ]km|pieces?|units?|items?|years?)\b")
# A sentence about greenhouse gases (stage shares of other impact categories, e.g. a weighted single score or
# resource depletion, are not stage results of a carbon footprint).
_CLIMATE_SENTENCE = (r"^(?=.*\b(?:GHGs?|greenhouse|CO2|CO₂|CO2e|carbon|climate|global warming|GWP\w*|emissions?|"
                     r"emitted)\b)")
# A result over all impact categories (a weighted single score), not the carbon footprint.
_OTHER_INDICATOR = re.compile(r"\b(?:overall|weighted|single[- ]score|normali[sz]ed|total) (?:environmental )?"
                              r"(?:footprint|score|impacts?)\b(?! of (?:the )?(?:climate|GHG|CO2))", re.I)
_GHG_NUMBER = rf"\d\s*(?:\(±[^)]*\)\s*)?(?:{GHG_UNIT.pattern})"

BASIC = SectionSpec("basic", "Basic information", "7.3",
    "The report identifies the product studied, who carried out or commissioned the study, when, and which "
    "standards and guidance it follows (7.3).", (
    FieldSpec("product", "Product studied", "7.3",
              "product studied in this life cycle assessment carbon footprint of",
              _cue(r"\b(?:this|the present|our) (?:study|paper|article|work|LCA|analysis)\b.{0,80}\b(?:of|on|for)\b|"
                   r"\b(?:assess|quantif|evaluat|analy[sz]|investigat)\w*\b.{0,60}\b(?:impact|footprint|emissions?)\b"
                   r".{0,20}\bof\b"), max_quotes=1),
    FieldSpec("producer", "Producer, commissioner or funder", "7.3",
              "funding commissioned by research council grant author affiliation",
              _cue(r"\bfund(?:ed|ing)\b|\bcommissioned\b|\bon behalf of\b|\bgrant\b|\bsponsor"), max_quotes=2,
              min_chars=15, exclude=_cue(r"funding acquisition|conceptuali[sz]ation|data curation")),
    FieldSpec("date", "Date of the study", "7.3",
              "received accepted published available online date",
              _cue(r"\b(?:received|accepted|published|available online)\b.{0,40}\b(?:19|20)\d\d\b"), max_quotes=2,
              min_chars=12),
    FieldSpec("standards", "Standards and guidance used", "7.3",
              "conducted according to ISO 14040 ISO 14044 ISO 14067 PAS 2050 standard guidance",
              _cue(r"\bISO\s?:?\s?140(?:40|44|67|25)\b|\bPAS\s?2050\b|GHG Protocol|\bPEFCR?\b|\bILCD\b|FC-Hy|"
                   r"EN\s?15804|Product Environmental Footprint")),
))

GOAL = SectionSpec("goal", "Goal of the study", "6.3, 7.3",
    "The report states why the study was done, its intended application and audience (6.3, 7.3).", (
    FieldSpec("goal", "Goal", "6.3",
              "the aim goal objective purpose of this study is to assess",
              _cue(r"\b(?:the|main|primary|second|this|our) (?:aim|goal|objective|purpose)s? (?:of|is|was)\b|"
                   r"\b(?:this|the present|our) (?:study|paper|work|article|LCA|analysis|research) "
                   r"(?:presents|assesses|investigates|evaluates|focuses|examines|aims|quantifies)"), max_quotes=2,
              prefer=_cue(r"\b(?:aim|goal|objective|purpose)s? of (?:this|the|our) (?:study|paper|work|article|LCA)\b|"
                          r"\bthe (?:main|primary) (?:aim|goal|objective)\b")),
    FieldSpec("application", "Intended application and audience", "6.3",
              "results are intended to be used by industry policy makers decision",
              _cue(r"\bintended (?:to be used|for|application|audience)|\b(?:results|findings) (?:are|will be|can be) "
                   r"used\b|\baudience\b"), max_quotes=1),
))

SCOPE = SectionSpec("scope", "Scope of the study", "6.3, 7.3",
    "The report gives the functional or declared unit and reference flow, the system boundary with the life "
    "cycle stages left out, the cut-off criteria and the time period the data represent (6.3, 7.3).", (
    FieldSpec("functional_unit", "Functional or declared unit and reference flow", "6.3",
              "the functional unit FU defined as 1 kg declared unit reference flow",
              _cue(rf"\b(?:(?:functional|declared) unit|FU)\b.{{0,60}}(?:\b(?:is|was|are|were|as|of|equall?ed|"
                   rf"equals)\b|:)\s*"
                   rf"(?:\w+\s+){{0,2}}{_QUANTITY}|{_QUANTITY}.{{0,60}}\b(?:as|is|was) (?:the|our) "
                   rf"(?:functional|declared) unit\b|\breference flows?\b"), max_quotes=2,
              citing=False, literature=False, exclude=_cue(r"\bthey (?:found|used|reported|defined|chose)\b")),
    FieldSpec("system_boundary", "System boundary", "6.3",
              "system boundary cradle-to-gate stages included life cycle covers processes from to",
              _cue(r"system boundar|\bcradle[- ]to[- ]\w+|\bwell[- ]to[- ](?:tank|wheel)|\bgate[- ]to[- ]gate|"
                   r"\bsupply chain is divided\b|\bfrom farm\b|\bboundar(?:y|ies) (?:covers?|includes?|takes)"),
              max_quotes=3,
              prefer=_cue(r"\b(?:scope|boundar\w*)\b.{0,60}\b(?:adopted|defined|covers?|includes?|divided|consists?|"
                          r"comprises?)\b|\b(?:is|are|was|were) (?:adopted|defined)\b")),
    FieldSpec("excluded", "Life cycle stages and processes excluded", "6.3",
              "not considered not included excluded from the analysis omitted outside the system boundary",
              _cue(r"\bnot (?:been )?(?:considered|included|taken into account|accounted for)\b|"
                   r"\bexclu(?:ded|sion|des?)\b|\bomit(?:ted|s)?\b|\boutside the (?:system )?boundar"), max_quotes=3),
    FieldSpec("cut_off", "Cut-off criteria", "6.3",
              "cut-off criteria threshold exclusion at least 95% of emissions assessed",
              _cue(r"cut[- ]?off (?:criteri|rules?|thresholds?|levels?)|\bat least \d+\s?% of (?:the )?total|"
                   r"exclusion of some elements|\bexcluded if\b|\bbelow \d+\s?%"), max_quotes=2),
    FieldSpec("time_period", "Time period", "6.3",
              "temporal scope time period reference year data represent",
              _cue(r"temporal (?:scope|boundar|coverage|representativeness)|"
                   r"time (?:period|horizon|frame|boundar\w*|coverage) (?:of|for) the "
                   r"(?:study|data|assessment|analysis)|"
                   r"reference (?:year|period)|\bdata (?:refer to|represent) the (?:years?|period)\b"), max_quotes=2,
              prefer=_cue(r"\b(?:19|20)\d\d\b")),
))

INVENTORY = SectionSpec("inventory", "Life cycle inventory", "6.4, 7.3",
    "The report names the primary (site-specific) and secondary data and their sources, the allocation "
    "procedures and the data quality (6.3, 6.4, 7.3).", (
    FieldSpec("primary_data", "Primary data sources", "6.3, 6.4",
              "primary data collected measured real industrial data own data site-specific",
              _cue(r"\bprimary data\b|\bsite[- ]specific\b|\breal (?:industrial |process )?data\b|\bown data\b|"
                   r"\bmeasured\b|\bdata (?:from|provided by) (?:the )?(?:company|producer|plant|operator)"),
              max_quotes=2),
    FieldSpec("secondary_data", "Secondary data sources", "6.3, 6.4",
              "secondary data database Ecoinvent literature emission factors DEFRA",
              _cue(r"\bsecondary data\b|\bdatabases?\b|\becoinvent\b|\bGaBi\b|\bagribalyse\b|\bgeneric data\b|"
                   r"\bconversion factors\b|\bemission factors\b|\bliterature\b|\bdatasets?\b"), max_quotes=3),
    FieldSpec("allocation", "Allocation", "6.4",
              "allocation co-products multifunctionality system expansion substitution energy allocation",
              _cue(r"\ballocat\w*|\bsystem expansion\b|\bmultifunctional|\bco-?products?\b.{0,60}"
                   r"\b(?:credit|substitut|partition)"), max_quotes=3),
    FieldSpec("data_quality", "Data quality", "6.3",
              "data quality uncertainty representativeness generic data limitations of the data",
              _cue(r"\bdata quality\b|\bquality (?:and quantity )?of (?:the )?data\b|\brepresentativ|\bpedigree\b|"
                   r"\bgeneric data\b|\bdata (?:are|were|is) (?:scarce|limited|generic|based)|\black of (?:real )?"
                   r"(?:farm )?data\b|\bbased largely on primary data\b"), max_quotes=2),
))

IMPACT = SectionSpec("impact", "Impact assessment", "6.5, 7.2, 7.3",
    "The report states the GHGs considered and the GWP100 characterisation factors with the IPCC report they "
    "come from (6.5), the CFP per functional unit, the results by life cycle stage, and reports separately "
    "fossil and biogenic emissions and removals, direct land use change and aircraft transport (7.2, 7.3).", (
    FieldSpec("ghgs", "Greenhouse gases considered", "6.5, 7.3",
              "greenhouse gases considered CO2 CH4 N2O methane nitrous oxide",
              _cue(r"\b(?:CO2|carbon dioxide)\b.{0,40}\b(?:CH4|methane)\b|\bN2O\b|\bnitrous oxide\b|"
                   r"\bgreenhouse gases? (?:considered|included)"), max_quotes=2),
    FieldSpec("gwp", "GWP100 and IPCC report used", "6.5",
              "global warming potential GWP 100 years IPCC characterisation factors",
              _cue(r"\bGWP\s?-?\s?100\w*|\bIPCC\b.{0,60}\b(?:GWP|global warming potential|characteri[sz]ation|AR\d|"
                   r"assessment report)|\bglobal warming potentials?\b.{0,60}\b(?:100|IPCC|characteri[sz]ation)|"
                   r"\bAR[456]\b|Fifth Assessment|Sixth Assessment"), max_quotes=2),
    FieldSpec("cfp", "Carbon footprint per functional unit", "7.3",
              "the carbon footprint GHG emissions per functional unit total kg CO2 equivalent results",
              _cue(rf"(?:carbon footprint|GHG|greenhouse|GWP|climate change|emissions?).*{_GHG_NUMBER}|"
                   rf"{_GHG_NUMBER}.*(?:carbon footprint|GHG|greenhouse|GWP|climate change|per FU|functional unit)"),
              max_quotes=3, citing=False, literature=False,
              prefer=_cue(r"\bFU\b|functional unit|per kg|\b(?:this|the present|our) (?:study|analysis|LCA)\b|"
                          r"\baverage\b|\btotal\b")),
    FieldSpec("stages", "Results by life cycle stage", "7.3",
              "contribution of each life cycle stage phase share of total emissions",
              _cue(rf"{_CLIMATE_SENTENCE}(?:.*\b(?:stage|phase|process|operation|contribut\w*)s?\b.{{0,80}}"
                   rf"\d+(?:\.\d+)?\s?%|.*\d+(?:\.\d+)?\s?%.{{0,80}}\b(?:stage|phase|process|operation|contribut))"),
              max_quotes=3, citing=False, tables=False, literature=False,
              # a process's share across a list of impact categories (Moretti et al. 2020, p. 6: "a significant
              # contribution (20–40%) in the following impact categories …: climate change, human toxicity, …") is
              # not a carbon footprint stage result
              exclude=_cue(r"\b(?:following|several|many|other|all(?: the)?|these) impact categories\b"),
              prefer=_cue(r"\bof (?:the )?total\b|\btotal (?:CO2e? |GHG )?emissions\b")),
    FieldSpec("biogenic", "Fossil and biogenic emissions and removals", "6.4, 7.2",
              "biogenic carbon removal uptake fossil carbon emissions reported separately",
              _cue(r"\bbiogenic\b|\bfossil (?:GHG|CO2|carbon|emissions?|origins?)\b|\bcarbon (?:removals?|uptake|"
                   r"storage|sequestration|credits?)\b"), max_quotes=2),
    FieldSpec("luc", "Direct land use change (dLUC)", "6.4, 7.2",
              "land use change emissions deforestation dLUC",
              _cue(r"\bland[- ]use change\b|\bdLUC\b|\bLUC\b|\bdeforestation\b"), max_quotes=2),
    FieldSpec("aircraft", "Aircraft transport", "6.4, 7.2",
              "air freight flight aircraft transport emissions",
              _cue(r"\baircraft\b|\bfreight flights?\b|\bair (?:freight|transport|cargo)\b|\bby air\b|\bflights?\b"),
              max_quotes=2),
))

INTERPRETATION = SectionSpec("interpretation", "Interpretation", "6.6, 7.3",
    "The report interprets the results, states the assumptions and limitations, the sensitivity and "
    "uncertainty analyses, and the options for improvement (6.6, 7.3).", (
    FieldSpec("conclusions", "Results and conclusions", "6.6",
              "results show conclusions main contributor hotspot largest source of emissions",
              _cue(r"\b(?:results?|analysis) (?:show|indicate|demonstrate)|\bconclu\w+|\bhotspots?\b|"
                   r"\blargest (?:contribut|source)|\bdominant\b|\bmajority of (?:the )?emissions\b|"
                   r"\d\s?% (?:lower|higher|less|more|reduction)\b"), max_quotes=3,
              exclude=_cue(r"\b(?:aims?|goals?|objectives?|purposes?) (?:of|is|was|are)\b|"
                           r"\bto (?:identify|assess) the\b"),
              prefer=_cue(r"\b(?:climate change|GHG|carbon footprint|CO2)\b.{0,80}\d\s?%|\d\s?%.{0,80}"
                          r"\b(?:climate change|GHG|carbon footprint|CO2)\b")),
    FieldSpec("assumptions", "Assumptions and limitations", "6.6",
              "it was assumed assumption limitations of this study",
              _cue(r"\bassum\w+|\blimitations?\b|\bnot (?:accounted|considered)\b"), max_quotes=3),
    FieldSpec("sensitivity", "Sensitivity and uncertainty", "6.6",
              "sensitivity analysis uncertainty scenarios variation of results",
              _cue(r"\bsensitivity (?:analys[ie]s|checks?|stud)|\buncertainty (?:analys[ie]s|ranges?|assessment|of "
                   r"the results)|\bdata uncertainty\b|\bMonte Carlo\b|\bscenario analys[ie]s\b"), max_quotes=3),
    FieldSpec("improvement", "Improvement options", "6.6",
              "reduce the carbon footprint recommendations further reductions could be made options",
              _cue(r"\b(?:could|can|would|may|might) (?:\w+ ){0,3}(?:reduc|mitigat|lower|decreas|improv|cut)\w*|"
                   r"\b(?:possible|able) to (?:further )?(?:reduc|mitigat|lower|cut)\w*|"
                   r"\bwe recommend|\bfurther reductions?\b|\breduction (?:potential|options?)|"
                   r"\bimprovement (?:options?|potential)|\bmitigation (?:potential|options?|measures?)"),
              max_quotes=3, exclude=_OTHER_INDICATOR),
))

REVIEW = SectionSpec("review", "Critical review", "8, 7.3",
    "The report says whether the study was critically reviewed, by whom and with what result (clause 8, 7.3).", (
    FieldSpec("critical_review", "Critical review", "8",
              "critical review panel independent third-party verification",
              _cue(r"critical review|critically reviewed|review panel|third[- ]party (?:review|verification)|"
                   r"independent(?:ly)? (?:review|verif)"), max_quotes=2),
))

TEMPLATE: tuple[SectionSpec, ...] = (BASIC, GOAL, SCOPE, INVENTORY, IMPACT, INTERPRETATION, REVIEW)


def field_specs() -> list[tuple[SectionSpec, FieldSpec]]:
    """Every field with its section, in template order."""
    return [(section, spec) for section in TEMPLATE for spec in section.fields]
