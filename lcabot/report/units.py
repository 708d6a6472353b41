"""Numbers and greenhouse-gas units as studies print them, and the study's quotable units (sentences and table
rows) with the page that holds them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from lcabot.ingest.normalize import for_search, split_sentences

# "kg CO2e", "kg CO2-eq", "kg CO2 eq", "kgCO2(eq)", "kg CO2eq", "kg of carbon dioxide equivalent", "t CO2e"
GHG_UNIT = re.compile(
    r"(?<![\w.])(?:k?g|t|Mg|Mt|Gt|tonnes?|kilograms?)\s*(?:of\s+)?(?:CO2|CO₂|carbon dioxide)"
    r"(?:\s*-\s*|\s*)(?:eq\b\.?|e\b|\(eq\)|equivalents?\b|equiv\b\.?)",
    re.I,
)
# What the amount is per, as printed right after the unit: "kg–1 green coffee", "/FU", "/kg H2", "per kg of PP",
# "per espresso beverage". Up to four words; a function word or punctuation ends it.
_STOP = r"(?:and|or|for|from|in|the|respectively|which|with|to|at|was|were|is|are|per|by|not|than|as|on|of)\b"
_WORDS = rf"(?:\s+(?!{_STOP})[^\W\d_][\w₂-]*){{0,4}}"
PER_UNIT = re.compile(
    rf"\s*(?:/|\bper\s+)\s*(?:1\s*)?(?:FU\b|functional unit\b|(?:kg|t|MJ|kWh|[^\W\d_][\w₂-]*)(?:\s+of\b)?{_WORDS})|"
    rf"\s+(?:kg|t|MJ|kWh|l)\s*[–−-]\s*1\b{_WORDS}"
)
_UNIT_AS_PRINTED = re.compile(rf"(?:{GHG_UNIT.pattern})(?:{PER_UNIT.pattern})?", re.I)
NUMBER = r"[-−–]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-−–]?\d+(?:\.\d+)?"
_NUMBER_CELL = re.compile(rf"^\s*({NUMBER})\s*$")
# "11.56 and 12.99 kg CO2e", "15.33 (±0.72) kg CO2e", "0.05, 0.08 and 0.19 kg CO2e"
_ONE = rf"(?:{NUMBER})(?:\s*\(±\s*(?:{NUMBER})\))?"
NUMBER_LIST_WITH_UNIT = re.compile(
    rf"(?<![\w.])((?:{_ONE})(?:\s*(?:,\s*and|,|and)\s*(?:{_ONE}))*)\s*((?:{GHG_UNIT.pattern})(?:{PER_UNIT.pattern})?)",
    re.I,
)
_LIST_ITEM = re.compile(rf"(?<![±\w.])({NUMBER})(?!\s*\))")
_CITES_OTHER_START = re.compile(
    r"^´?(?:\[\d+(?:[,–-]\s*\d+)*\]|According to \[|In \[\d+|"
    r"[^\W\d_´'][\w´'’-]+(?:\s+et al\.|\s+and\s+[A-Z][\w-]+)?\s*(?:\[\d+(?:[,–-]\s*\d+)*\]|\((?:19|20)\d\d[a-z]?\))|"
    r"(?:An?|The) (?:LCA|study|analysis|assessment|report|carbon footprint analysis) (?:by|of|from) [A-Za-z]+ "
    r"(?:[A-Z]|et al|\(|\[)|"
    r"(?:Previous|Other|Earlier|Several|Many|Most|Some|These|Those) (?:LCAs?|studies|authors|works|assessments)|"
    r"Studies have|"
    r"Their (?:study|analysis|results|LCA|work|findings))"
)
_CONTINUES_OTHER = re.compile(
    r"^(?:The (?:analysis|authors|study|work|results|findings)|They|Their|These authors|It)\b")
_OTHER_ANYWHERE = re.compile(r"\b(?:the cited work|the compared (?:LCA|studies|methods)|literature review)\b", re.I)
OWN_STUDY = re.compile(
    r"\b(?:this|the present|our|current) (?:study|analysis|LCA|work|paper|article|assessment|research)\b|"
    r"\b(?:we|our)\b|\bhere\b", re.I
)
_REFERENCES = re.compile(r"^\s*(?:references|bibliography|literature cited)\s*$", re.I)
_BOILERPLATE = re.compile(
    r"creative\s?commons|open access article|all rights reserved|licensee|how to cite|©|"
    r"https?://|doi\.org|\bdoi:|wileyonlinelibrary|sciencedirect|journal homepage", re.I
)
# "1 BIOSPRI (Bioeconomy …) project funded by …" below a column: a footnote, not the sentence's continuation
_FOOTNOTE = re.compile(r"\d{1,2}\s+[A-Z]")
_SENTENCE_END = re.compile(r"[.!?:;][\"'”’)]*$")
_MIN_LINE = 40  # a shorter line ending without punctuation is a label (a sidebar's "Accepted: 21 December 2022")
# Text that gives instructions to a reader or an AI system ("Ignore all previous instructions …"): document text is
# never an instruction, so such a sentence is not quoted (and is counted in the report's notes).
INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:instructions?|template|prompt|above|previous|rules|"
    r"guidelines)\b|\bsystem prompt\b|\b(?:you|the (?:assistant|model|AI)) (?:must|should|shall) (?:now |instead )?"
    r"(?:write|say|report|answer|state|output)\b|"
    r"(?:^|[.:;]\s*)(?:SYSTEM|ASSISTANT|USER|DEVELOPER)\s*:|<\|im_(?:start|end)\|>|\[/?INST\]|<</?SYS>>|"
    r"\byou are now\b|\b(?:note|message|instructions?) (?:to|for) (?:the )?(?:reporting tool|assistant|AI|"
    r"model|LLM|bot|language model|system)\b|"
    r"^(?:Assistant|AI|Model|Bot|Claude|ChatGPT|GPT)\s*[,:]|"
    r"^(?:please\s+)?(?:report|write|say|output|print|reply|respond|answer)\s+(?:0|zero|that|only|with)\b", re.I)
# "[84]", "et al.", "(DEFRA and BSI, 2011)", and a name cited in the running text ("by PCF Pilotprojekt Deutschland
# (2008) calculated …", Nab & Maslin p. 12)
CITATION = re.compile(r"\[\d+(?:[,–-]\s*\d+)*\]|\bet al\.|\([A-Z][^()]{1,60}?,? (?:19|20)\d\d[a-z]?\)|"
                      r"\b[A-Z][\w'’-]+ \((?:19|20)\d\d[a-z]?\)")


def parse_number(text: str) -> Decimal | None:
    """``"10.44"`` → ``Decimal("10.44")``, ``"−2.51"`` → ``Decimal("-2.51")``, ``"9,353.39"`` → 9353.39;
    ``None`` for anything that is not a plain number (``"28%"``, ``"2.38_·_104"``)."""
    m = _NUMBER_CELL.match(text)
    if not m:
        return None
    try:
        return Decimal(m.group(1).replace(",", "").replace("−", "-").replace("–", "-"))
    except InvalidOperation:
        return None


def printed_unit(text: str) -> str:
    """The greenhouse-gas unit in ``text`` with what it is per, as printed: ``"kg CO2e kg–1 green coffee"``,
    ``"kgCO2(eq)/FU"``, ``"kg CO2eq"``. Whitespace is collapsed; ``text`` itself when it holds no GHG unit."""
    m = _UNIT_AS_PRINTED.search(text)
    return " ".join(m.group(0).split()) if m else text


def per_what(unit: str) -> str:
    """What a printed unit is per (``"kg CO2e kg–1 green coffee"`` → ``"kg–1 green coffee"``), ``""`` if nothing."""
    m = GHG_UNIT.search(unit)
    return unit[m.end():].strip(" /") if m else ""


def number_lists(text: str) -> list[tuple[list[str], str]]:
    """Each list of numbers followed by a greenhouse-gas unit: ``([printed numbers], unit as printed)``, the unit
    with what it is per (``"kg CO2e kg–1 green coffee"``, see :func:`printed_unit`). Uncertainty ranges in
    parentheses (``15.33 (±0.72)``) are not numbers of the list."""
    return [(numbers, unit) for _, _, numbers, unit in located_number_lists(text)]


def located_number_lists(text: str) -> list[tuple[int, int, list[str], str]]:
    """:func:`number_lists` with where each list starts and ends in ``text``: ``(start, end, numbers, unit)``."""
    out = []
    for m in NUMBER_LIST_WITH_UNIT.finditer(text):
        numbers = [n.group(1) for n in _LIST_ITEM.finditer(m.group(1))]
        out.append((m.start(), m.end(), numbers, " ".join(m.group(2).split())))
    return out


@dataclass(frozen=True)
class Unit:
    """A quotable unit of the study: a sentence (fragments of one paragraph joined) or a table row.

    Attributes:
        text: display text (ligatures and line-end hyphens resolved); verbatim on ``page`` under
            :func:`lcabot.ingest.normalize.match_key`.
        page: 1-based PDF page.
        kind: ``text`` (a sentence), ``table`` (a table row) or ``cell`` (a sentence or entry of a long table
            cell).
        section: the deepest heading above it, if any.
        context: for table rows, the table's caption.
        order: position in the document (reading order).
        cites_other: the sentence reports another study's work (literature review), not this study's.
        in_references: it lies in the reference list.
        literature: it lies in a paragraph that cites other work at least twice and does not itself speak of this
            study (a comparison with the literature).
    """

    text: str
    page: int
    kind: str
    section: str | None
    context: str
    order: int
    cites_other: bool = False
    in_references: bool = False
    literature: bool = False

    @property
    def usable(self) -> bool:
        """Not in the references, not publisher boilerplate, not a bare heading in capitals, not an instruction."""
        heading = len(self.text) < 40 and self.text.isupper()
        return not (self.in_references or heading or _BOILERPLATE.search(self.text) or self.instruction)

    @property
    def instruction(self) -> bool:
        """It addresses instructions to the reader or an AI system (see :data:`INSTRUCTION`)."""
        return INSTRUCTION.search(self.text) is not None

    @property
    def fragment(self) -> bool:
        """A sentence that does not end like one or starts in lower case (a line the parser cut off)."""
        return self.kind == "text" and (not _SENTENCE_END.search(self.text) or self.text[:1].islower())


def paragraphs(blocks: list[str]) -> list[str]:
    """Join fragments of one paragraph that the parser split into blocks (one line per block in some two-column
    layouts): a block that does not end a sentence continues into the next when that starts in lower case, with a
    digit or a bracket, unless the block is a short label (a sidebar line) or a footnote (``1 BIOSPRI …``). Only
    adjacent blocks are joined, so the result stays contiguous on the page."""
    out: list[str] = []
    for block in blocks:
        text = block.strip()
        if not text:
            continue
        last_line = out[-1].rsplit("\n", 1)[-1] if out else ""
        if out and not _SENTENCE_END.search(out[-1]) and re.match(r"[a-z0-9(\[±−–-]", text) \
                and not _FOOTNOTE.match(text) \
                and (len(last_line) >= _MIN_LINE or last_line.endswith("-")) \
                and not out[-1].startswith("|") and not text.startswith("|"):
            out[-1] = f"{out[-1]}\n{text}"
        else:
            out.append(text)
    return out


def sentences(paragraph: str) -> list[str]:
    """Display sentences of a paragraph (normalised for reading: ligatures, line-end hyphens, whitespace)."""
    return [text for _, s in split_sentences(paragraph) if (text := for_search(s))]


def mark_other_studies(texts: list[str]) -> list[bool]:
    """Per sentence of one paragraph: does it report another study (it starts by citing one, continues a
    sentence that did, or speaks of "the cited work") rather than this study?"""
    flags: list[bool] = []
    for text in texts:
        own = OWN_STUDY.search(text) is not None
        starts = _CITES_OTHER_START.match(text) is not None
        continues = bool(flags) and flags[-1] and _CONTINUES_OTHER.match(text) is not None
        flags.append(_OTHER_ANYWHERE.search(text) is not None or ((starts or continues) and not own))
    return flags


def literature_paragraph(texts: list[str]) -> list[bool]:
    """Per sentence of one paragraph: is it literature context (the paragraph cites other work twice or more and
    the sentence does not speak of this study)?"""
    citing = sum(len(CITATION.findall(t)) for t in texts) >= 2
    return [citing and OWN_STUDY.search(t) is None for t in texts]


def is_references_heading(text: str) -> bool:
    return _REFERENCES.match(text) is not None
