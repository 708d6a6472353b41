"""The evidence ledger: every quotable span (a sentence or a table row on one page) of the retrieved chunks."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

from lcabot.answer.gates import OWN_STEP, reports_other_work
from lcabot.ingest.normalize import BULLET_GLYPHS, CASE_BACK, LIST_ITEM, PLACEHOLDER_CELL, collapse, split_sentences
from lcabot.models import Chunk, DocumentRecord, Evidence, Hit
from lcabot.report.units import OWN_STUDY

_MIN_CHARS = 25
_PARAGRAPH_AFTER_LIST = re.compile(rf"\n\n(?!\s*(?:[{BULLET_GLYPHS}*–-]|o)\s)\s*\S")  # one that is no item
_NAVIGATION = re.compile(r"^(?:more information|related (?:links|content|articles|news)|useful links|see also|"
                         r"further reading|read more)\s*:?$", re.I)
_SHORT_ITEM = re.compile(rf"^[{BULLET_GLYPHS}*–-]\s+.*[A-Za-z]{{3}}")  # a bulleted item naming something
# a short list item stating a value under its label is quotable on its own ("• Budget: €195,000,000", "• Deadline:
# April 18, 2023", Clean Hydrogen JU topic HORIZON-JTI-CLEANH2-2023-03-01, p. 1)
_LABELLED_VALUE = re.compile(rf"^\s*[{BULLET_GLYPHS}–-]\s+[^\W\d_][^:]{{1,40}}:\s*\S*\d")
# A numbered heading run into the text that follows it, the parser not having set it apart (Pathfinder Framework
# p. 33: "7.2 Details on the required data elements 7.2.1 Time period Emissions shall be calculated …")
_INLINE_HEADING = re.compile(
    r"^(\d{1,2}(?:\.\d{1,3}){1,4})\.?\s+([A-Z][\w’'()-]*(?:\s+(?:[a-z][\w’'()-]*|[A-Z]{2,}\w*))*?)"
    r"\s+(?=\d{1,2}\.\d|[A-Z][a-z])")
# The run-in labels of a structured abstract, printed before its first sentence (Heijungs 2020, p. 394:
# "Abstract" / "Introduction The Monte Carlo technique …"; "Discussion and conclusions Apart from …")
_RUN_IN_LABEL = re.compile(
    r"^(?:Abstract\s+)?(?:Introduction|Background|Purpose|Aims?|Objectives?|Methods|Materials and methods|Results"
    r"(?: and discussion)?|Discussion(?: and conclusions?)?|Conclusions?|Recommendations(?: and perspectives)?)"
    r"\s+(?=[A-Z][a-z])|^Abstract\s+(?=[A-Z][a-z])")
_NUMBER_CELL = re.compile(r"^[-−–]?\d+(?:[.,]\d+)*\s*%?$")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
NAME_RUN_SHARE = 0.75  # of a span's words capitalised, with no number and no sentence end: names, not a statement


def is_name_run(text: str) -> bool:
    """A span that names things and states nothing: six or more words, three in four of them capitalised, no number
    and no sentence end. Headings and affiliations run together ("European Commission Joint Research Centre
    Institute for Environment and Sustainability"), an acronym list, a scraped row of link anchors ("The Innovation
    FundEU Emissions Trading System The European Hydrogen Bank The first renewable hydrogen auctionEuropean Climate,
    …", ec-2024-hydrogen-bank-pilot-auction-grants.pdf p. 2)."""
    if re.search(r"\d", text) or re.search(r"[.?!:;]\W*$", text.rstrip()):
        return False
    words = _WORD.findall(text)
    return len(words) >= 6 and sum(w[0].isupper() for w in words) >= NAME_RUN_SHARE * len(words)


def evidence_id(doc_id: str, page: int, text: str) -> str:
    """Stable id of a quotable span: hash of document, page and the span's text."""
    return "E" + hashlib.sha256(f"{doc_id}\x00{page}\x00{collapse(text)}".encode()).hexdigest()[:10]


class QuotableUnit(NamedTuple):
    """One quotable span of a chunk.

    Attributes:
        offset: character offset into ``Chunk.text``.
        text: the span as printed (a sentence, a list item, or a Markdown table row ``|a|b|``).
        context: what the span is read under: for a table row the caption, panel and row group; for a list item
            the sentence that introduces the list. Used to rank and to read the span, never shown as a quote.
        last_page: the PDF page holding the span's end (a sentence continued across a page break spans two).
        reading: a table row written out with its column headers and units ("Greenhouse gases (GWP 100a):
            Total (H2 Non-Seq.) 34.8 kg CO2 eq; …"); empty for prose.
        refuted: the document lists the statement as one it calls wrong (a misconception, a misunderstanding).
        other_work: the sentence goes on reporting another work's result, cited in the sentence before it in the
            same paragraph ("LCAs presented by [84] indicate … The GHG emissions for each technology were 0.46;
            1.17 and 11.51 kg CO2-eq./kg H2, respectively.", Burchart et al. 2023, p. 13).
        heading: the numbered heading printed into the text before the span, when the parser did not take it for
            one ("7.2.1 Time period", Pathfinder Framework p. 33): the span's section; empty otherwise.
    """

    offset: int
    text: str
    context: str
    last_page: int
    reading: str = ""
    refuted: bool = False
    other_work: bool = False
    heading: str = ""


def build_ledger(hits: Sequence[Hit], documents: dict[str, DocumentRecord]) -> list[Evidence]:
    """Split each hit (and its context chunks) into quotable units bound to the page that holds them.

    Text becomes sentences (those under 25 characters, such as headings and stray labels, are left out); a table
    becomes its data rows, each carrying the caption and the panel and group labels above it as ``context`` and its
    column headers and units in ``reading``. Duplicates are left out (a list item keeps the lead-in any chunk holding
    it shows); order follows the hits' rank.
    """
    ledger: dict[str, Evidence] = {}
    # (document, ordinal) → the lead-in its chunk ends with, and whether it ends with one of its items
    ends: dict[tuple[str, int], tuple[str, bool]] = {}
    headed: dict[tuple[str, int], tuple[tuple[str, ...], str]] = {}  # → (section path, run-in heading) at its end
    for hit in hits:
        for chunk in sorted((hit.chunk, *hit.context), key=lambda c: c.ordinal):
            record = documents.get(chunk.doc_id)
            if record is None:
                continue
            path, heading = headed.get((chunk.doc_id, chunk.ordinal - 1), ((), ""))
            lead_in, in_items = ends.get((chunk.doc_id, chunk.ordinal - 1), ("", False))
            units = quotable_units(chunk, lead_in, heading if path == chunk.section_path else "", in_items)
            if units and units[-1].text.endswith(":") and not units[-1].reading:
                ends[(chunk.doc_id, chunk.ordinal)] = (units[-1].text, False)
            elif (last := next((u for u in reversed(units) if u.context and not u.reading
                                and LIST_ITEM.match(u.text)), None)) and not _PARAGRAPH_AFTER_LIST.search(
                    chunk.text[last.offset:]):  # it ends inside a list, in an item or a sentence of one: the next
                # chunk's items are under the same lead-in (Finnveden et al. 2022, p. 1: statements 4–6; JRC ILCD
                # compliance rules, p. 7: "• Situation C …" after the sentences of Situation B)
                ends[(chunk.doc_id, chunk.ordinal)] = (last.context, True)
            if units and units[-1].heading:
                headed[(chunk.doc_id, chunk.ordinal)] = (chunk.section_path, units[-1].heading)
            for unit in units:
                page = chunk.page_at(unit.offset)
                eid = evidence_id(chunk.doc_id, page, unit.text)
                last_page = unit.last_page
                label = record.label(page) if last_page == page else f"{record.label(page)}–{record.label(last_page)}"
                ledger.setdefault(eid, Evidence(
                    evidence_id=eid, doc_id=chunk.doc_id, source=record.source, title=record.title,
                    section=unit.heading or (chunk.section_path[-1] if chunk.section_path else None), page=page,
                    page_label=label, text=unit.text, chunk_id=chunk.chunk_id, context=unit.context,
                    last_page=last_page, reading=unit.reading, refuted=unit.refuted, other_work=unit.other_work,
                    place=(chunk.ordinal, unit.offset),
                ))
                if unit.other_work or unit.refuted:  # a flag seen in any chunk holding the span (chunks overlap)
                    ledger[eid] = replace(ledger[eid], other_work=ledger[eid].other_work or unit.other_work,
                                          refuted=ledger[eid].refuted or unit.refuted)
                if unit.context and not ledger[eid].context:  # a list item read where its lead-in is in view
                    ledger[eid] = replace(ledger[eid], context=unit.context)
    # a sentence a chunk ends with is read in the next chunk joined to the one it goes on with: that reading only
    # ("It is recommended to avoid … in attributional studies." + "The only exceptional cases are …", Moretti et al.
    # 2020, p. 11, chunks 72–73)
    joined: dict[tuple[str, int], list[str]] = {(e.doc_id, e.page): [] for e in ledger.values()}
    for e in ledger.values():
        joined[(e.doc_id, e.page)].append(e.text)
    return [e for e in ledger.values() if e.reading or not any(
        t.startswith(f"{e.text} ") for t in joined[(e.doc_id, e.page)])]


def quotable_units(chunk: Chunk, lead_in: str = "", heading: str = "", in_items: bool = False  # noqa: C901
                   ) -> list[QuotableUnit]:
    """The quotable units of a chunk in reading order (see :class:`QuotableUnit`); ``lead_in`` is the sentence the
    chunk before it ended with when that introduces a list the chunk goes on with (JRC ILCD compliance rules,
    pp. 7–8: "… three levels of data quality are differentiated …:" | "High quality data …"), or the lead-in of the
    list whose items it ended with (``in_items``: then only a bulleted line goes on with the list, "The Innovation
    Fund will support these projects …" after "• and Norway (Skiga)." is no item, Hydrogen Bank pilot news, p. 1),
    ``heading`` the run-in heading the chunk before it was under."""
    pieces = _join_short([(offset, collapse(s), chunk.page_at(offset + len(s.rstrip()) - 1))
                          for offset, s in split_sentences(chunk.text)], chunk.text)
    units: list[QuotableUnit] = []
    panel = group = ""
    links = False  # inside a list of links
    data_seen = False
    header_rows: list[list[str]] = []
    for i, (offset, text, last_page) in enumerate(pieces):
        if run_in_label := _RUN_IN_LABEL.match(text):  # "Abstract Introduction The Monte Carlo technique …": not its
            offset, text = offset + run_in_label.end(), text[run_in_label.end():]  # words
        while run_in := _INLINE_HEADING.match(text):  # "7.2 Details on … 7.2.1 Time period Emissions shall …"
            heading = f"{run_in.group(1)} {run_in.group(2)}"
            offset, text = offset + run_in.end(), text[run_in.end():]
        if not text.startswith("|"):
            if _NAVIGATION.match(text):  # a web page's list of links: no statement of the document's (Hydrogen
                # Bank pilot news, p. 2: "More Information • … • European Hydrogen Bank auction provides EUR 720
                # million …" names another news item, not what the winners got)
                links = True
                continue
            if links and (LIST_ITEM.match(text) or not chunk.text[:offset].rstrip(" ").endswith("\n\n")):
                continue
            links = False
            after_lead_in = bool(units) and units[-1].text == lead_in or (not units and bool(lead_in) and not in_items)
            if LIST_ITEM.match(text) or (after_lead_in and not text.rstrip().endswith(":")):
                # an item, bulleted or the unbulleted line right after its lead-in ("High quality data …")
                context = lead_in
                if text.rstrip().endswith(":"):  # an item introducing sub-items ("▪ "Qualified reviewer" required:")
                    lead_in = text
            elif text.rstrip().endswith(":"):
                context, lead_in = "", text
            else:  # a sentence inside a list item keeps the list open; a new paragraph closes it
                context = ""
                if (offset == 0 and not in_items) or chunk.text[:offset].rstrip(" ").endswith("\n\n"):
                    lead_in = ""
            # (an item under a lead-in is quoted however short: "• Finland (eNRG Lahti);" of the countries the
            # Hydrogen Bank pilot's projects are in, p. 1)
            if (len(text) >= _MIN_CHARS or _LABELLED_VALUE.match(text) or (context and _SHORT_ITEM.match(text))) \
                    and not is_name_run(text):
                units.append(QuotableUnit(offset, text, context, last_page, heading=heading))
            continue
        cells = row_cells(text)
        filled = [c for c in cells if clean_cell(c)]  # PyMuPDF's placeholder headers (Col2) are empty cells
        if not filled or _SEPARATOR.match(text):
            continue
        headed = i + 1 < len(pieces) and _SEPARATOR.match(pieces[i + 1][1]) is not None
        if headed and not data_seen and not header_rows and len(set(filled)) > 1:
            # the row Markdown sets above its rule is the table's header, numbers or not ("|Stream Number|1|2|3|…",
            # Burchart et al. 2023, Table 3: the streams are the columns)
            header_rows = [cells]
            continue
        if any(_NUMBER_CELL.match(c) for c in filled):
            context = " ".join(p for p in (_caption(chunk), panel, group) if p)
            reading = row_reading(cells, header_rows)
            where = ", ".join(p for p in (panel, group) if p)  # "Sustainable, Milling": which total this is
            if reading and where:
                reading = f"({where}) {reading}"
            units.append(QuotableUnit(offset, text, context, last_page, reading))
            data_seen = True
            continue
        label = filled[0] if len(set(filled)) == 1 and re.search(r"[^\W\d_]", filled[0]) else None
        if label is None and header_rows and not data_seen and re.match(r"^\s*\|\s*\|", text):
            # a row with no label of its own before any data goes on with the headers above it ("|Impact
            # Category|Increase of impact (%) shifting from UCO|…" + "||locally sourced to sourced globally|…",
            # Moretti et al. 2020, Table 5, p. 8)
            row = text.strip().removeprefix("|").removesuffix("|")  # its empty first cell kept: the columns align
            header_rows = [*header_rows, [c.strip() for c in row.split("|")]]
            continue
        if label is None and header_rows and any(len(c) > TEXT_CELL for c in filled):
            # a row of sentences under the headers is data too (a decision table: PEFCR guidance Table 34, p. 139)
            reading = text_row_reading(cells, header_rows)
            if reading:
                context = " ".join(p for p in (_caption(chunk), panel, group) if p)
                units.append(QuotableUnit(offset, text, context, last_page, reading))
                data_seen = True
                continue
        nxt = pieces[i + 1][1] if i + 1 < len(pieces) else ""
        above_data = any(_NUMBER_CELL.match(c.strip()) for c in nxt.strip("|").split("|"))
        if label is None or (header_rows and not data_seen and not above_data):
            # a label among the header rows heads its column in each sub-table ("CO2 emission" over Brazil's and
            # Vietnam's values, Nab & Maslin 2020, Table 2): a header row, not a panel
            header_rows = [*header_rows, cells] if not data_seen else [cells]
            continue
        if above_data:
            group = label  # "|Exportation|||Exportation|||" directly above its rows
        else:  # "|Conventional|…" above header rows: a panel of the table (labels in a row accumulate)
            panel, group = (label if data_seen else f"{panel} {label}".strip()), ""
            data_seen = False
            header_rows = []
    return _mark_other_work(_mark_refuted(units), chunk.text)


# A sentence that names its subject only by a pronoun: it is quoted with the sentence before it, which names it
_REFERS_BACK = re.compile(r"^(?:[A-Z][^,;:]{0,60},\s+)?(?:it|they|its|their|these|those|It|They|Its|Their|These|"
                          r"Those|Such|This(?!\s+(?:study|paper|article|work|report|guidance|document|section|chapter|"
                          r"annex|table|figure|framework|standard)\b))\b"
                          r"(?!\s+is\s+(?:also\s+)?(?:important|necessary|possible|recommended|assumed|noted|clear|"
                          r"worth)\b|\s+(?:is|has(?:\s+also)?\s+been)\s+(?:also\s+|often\s+|sometimes\s+|commonly\s+|frequently\s+|"
                          r"widely\s+)?(?:claimed|argued|suggested|said|believed)\s+that\b|"
                          r"(?<=[Ii]t)\s+(?:can|could|should|must|may|might|will|would)\s+(?:also\s+)?be\b|"
                          r"\s+(?:also\s+)?(?:seems|appears)\b)")
# (an impersonal "it": "It is important to note …", "From these results, it can be concluded …", "It seems strange
# not to accept …", "It is often claimed that …", "It has also been suggested that …", a claim the document reports
# and may go on to reject: Finnveden et al. 2022, pp. 3–4)
# a sentence drawing its point from the one before it ("… sold in mass units. Therefore, for the present analysis,
# the FU is 1 kg of hydrogen at 88 MPa", Burchart et al. 2023, p. 5); not from a cited work's result, which the
# document's own conclusion answers on its own
_PLURAL_BACK = re.compile(r"^(?:[A-Z][^,;:]{0,60},\s+)?(?:these|those|they|their|such)\b", re.I)
_FOLLOWS_FROM = re.compile(r"^(?:Therefore|However|Hence),\s|"
                           # the other case of the sentence before ("… they would save 0.3 tCO2eq." + "If they
                           # replaced it with plant-based alternatives they would save 0.46 tCO2eq", Ritchie 2020, p. 2)
                           r"^If (?:they|it|so|not)\b|"
                           # the exception to the rule before it ("It is recommended to avoid the use of system
                           # expansion followed by substitution in attributional studies. The only exceptional cases
                           # are …", Moretti et al. 2020, p. 11)
                           r"^(?:The only|One|An|The)\s+exception(?:al cases?|s)?\b|^Exceptions?\s+(?:is|are|to)\b|"
                           # the way or the two the sentence before sets out ("When hydrogen is burned in air, …
                           # nitrogen oxides … In this way, the combustion process is much like other high
                           # temperature combustion fuels …", hydrogen vehicles extracts p. 4; "The incompatibility of
                           # the two has … not been recognized before", Heijungs 2020, p. 401)
                           r"^In (?:this|that|such a) (?:way|manner),\s|^The (?:\w+ (?:of|between) )?the (?:two|former|"
                           r"latter)\b|"
                           # (a case of what the sentence before says, not of its own clause: "For most foods, this is
                           # not the case.", Ritchie 2020, p. 1, after "Eating locally would only have a significant
                           # impact if transport was responsible for a large share …"; not "If the data is more than
                           # five years old, this shall be flagged")
                           r"^(?:For|In|Among|Across|With)\s[^,;:]{1,60},\s+this\s+(?:is|was|does|did|has)\b")
# a comparison that leaves its other side to the sentence before ("… conventional coffee from Vietnam … (16.04 kg
# CO2e kg–1 green coffee) … Sustainable coffee from Vietnam (3.64 …) and sustainable coffee from Brazil (3.37 …)
# were much lower", Nab & Maslin 2020, p. 12)
_COMPARES_BACK = re.compile(r"^(?!.*\bthan\b).*\b(?:is|are|was|were)\s+(?:much\s+|far\s+|considerably\s+|"
                            r"significantly\s+|slightly\s+)?(?:lower|higher|smaller|larger|greater)\b", re.S)
MAX_JOINED_CHARS = 450  # a sentence and the one it refers back to, together at most this long
MAX_COMPARED_CHARS = 650  # a comparison and the sentence stating its other side
# a sentence referring back to limit what it says ("This is, however, a special case and not a general aspect of
# ALCA.", Finnveden et al. 2022, p. 2, after the case where "the 100 % rule can be valid"): joined whatever the length
# of the one before it, up to the longest span quoted
_LIMITS_BACK = re.compile(r"^(?:This|That|These|Those|It|They)\b[^.;]{0,20}\bhowever\b[^.;]{0,80}[.;]?$")
MAX_LIMITED_CHARS = 900


# a chunk opening with the end of a sentence begun before it (in the chunk before the tables between them)
_TAIL = re.compile(r"^[a-z][^.!?]*[.!?][\"”’)]*$")


def _join_short(pieces: list[tuple[int, str, int]], text: str) -> list[tuple[int, str, int]]:
    """Sentence pieces with a piece too short to quote joined to its neighbour in the same paragraph: a list item's
    label to the item ("● A=0.2." + "Low offer of recyclable materials …"), a short lead-in to the sentence before
    it ("The driver … is the analysis of the market situation." + "This means:"; PEFCR guidance p. 114). A sentence
    whose subject is a pronoun joins the sentence before it ("Transport is a small contributor to emissions. For
    most food products, it accounts for less than 10% …"; Ritchie 2020, p. 2)."""
    out: list[tuple[int, str, int]] = []
    carry: tuple[int, str] | None = None
    for offset, piece, page in pieces:
        joined = (carry is not None and "\n\n" not in text[carry[0]:offset] and not piece.startswith("|")
                  and len(piece) >= _MIN_CHARS  # a run of short pieces (a keyword list) stays unquotable
                  and not (LIST_ITEM.match(carry[1]) and LIST_ITEM.match(piece)))  # so does each item of a list
        if carry is not None and joined:
            offset, piece = carry[0], f"{carry[1]} {piece}"
        elif carry is not None:
            out.append((carry[0], carry[1], page))
        carry = None
        short = len(piece) < _MIN_CHARS and not piece.startswith("|") and not _LABELLED_VALUE.match(piece)
        if short and piece.endswith(":") and out and not out[-1][1].startswith("|") \
                and "\n\n" not in text[out[-1][0]:offset] and not LIST_ITEM.match(out[-1][1]):
            previous = out.pop()
            out.append((previous[0], f"{previous[1]} {piece}", page))
        elif short and not piece.endswith(":") and not (not out and not text[:offset].strip()
                                                          and _TAIL.match(piece)):
            carry = (offset, piece)
        elif short and not piece.endswith(":"):  # the end of a sentence another chunk began ("guidance)." after
            continue  # Table 3, Moretti et al. 2020, p. 5): not the start of the sentence after it
        elif (out and not out[-1][1].startswith("|") and not LIST_ITEM.match(piece)
              # (a sentence after a list naming its subject in the plural speaks of the whole list, not its last
              # item: "6) There is a clear boundary …" + "In the article, these statements are discussed, and it is
              # argued that they are either misunderstandings …", Finnveden et al. 2022, p. 1)
              and not ((LIST_ITEM.match(out[-1][1]) or _STATEMENT_ITEM.match(out[-1][1])) and _PLURAL_BACK.match(piece))
              and "\n\n" not in text[out[-1][0]:offset]
              and (((_REFERS_BACK.match(piece) or _FOLLOWS_FROM.match(piece))
                    and len(out[-1][1]) + len(piece) < (MAX_LIMITED_CHARS if _LIMITS_BACK.search(piece)
                                                        else MAX_JOINED_CHARS))
                   or ((_COMPARES_BACK.match(piece) or CASE_BACK.match(piece))
                       and len(out[-1][1]) + len(piece) < MAX_COMPARED_CHARS))):
            previous = out.pop()  # "Transport is a small contributor to emissions." + "For most food products, it …"
            out.append((previous[0], f"{previous[1]} {piece}", page))
        else:
            out.append((offset, piece, page))
    if carry is not None:
        out.append((carry[0], carry[1], pieces[-1][2]))
    return out


_SEPARATOR = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+\s*$")
_CAMEL = re.compile(r"(?<=[a-z]{2})(?=[A-Z][a-z]{2})|(?<=[A-Z]{2})(?=[A-Z][a-z]{2})")  # "ImpactCategory", "ILCDData"
_EMPHASIS = re.compile(r"(?<![\w_])_+(?=\S)|(?<=\S)_+(?![\w_])")  # "_Methodological_ _ILCD-compliance_"
_UNIT_CELL = re.compile(
    r"^(?:%|(?:k?g|t|mg|µg|mol|molc|kBq|MJ|kWh|m3|m2|m³|m²|CTU[eh]|km|tkm|kg\s?\w+)\b.*|.*\beq\.?$|"
    r".*\bCO2e?q?\b.*)$", re.I)
# the sentence calling a list's statements wrong ("In the article, these statements are discussed, and it is argued
# that they are either misunderstandings or sometimes incorrect", Finnveden et al. 2022, p. 1): the numbered
# statements before it are refuted, not rules
REFUTES = re.compile(
    r"\b(?:these|such|the (?:above|following|six|five|four|three)) (?:statements|claims|assertions|beliefs|views|"
    r"myths|misconceptions)\b.{0,120}?\b(?:misunderstand\w*|misconceptions?|incorrect|not correct|wrong|false|"
    r"myths?|mistaken)\b|\b(?:common|widespread|potential) (?:misconceptions?|misunderstandings?|myths?)\b", re.I)
_STATEMENT_ITEM = re.compile(r"^\s*(?:\d{1,2}\)|\(\d{1,2}\)|\([a-z]\)|[a-z]\))\s")


def clean_cell(cell: str) -> str:
    """A table cell as readable text: ``<br>`` line breaks as spaces, PyMuPDF's placeholder headers (``Col6``)
    dropped, words the layout ran together split (``ImpactCategory`` → ``Impact Category``), emphasis marks
    around signs and words removed (``2.38_·_104``, ``_Methodological_``), and a subscript printed below its
    formula moved back (``Total (H Non-Seq.)<br>2`` → ``Total (H2 Non-Seq.)``)."""
    text = cell.strip()
    if PLACEHOLDER_CELL.match(text):
        return ""
    sub = re.match(r"^(.*?)<br>(\d)$", text, re.S)
    if sub and re.search(r"\b(?:H|CO|CH|SO|NO|N|O)(?=[\s)])", sub.group(1)):
        text = re.sub(r"\b(H|CO|CH|SO|NO|N|O)(?=[\s)])", rf"\g<1>{sub.group(2)}", sub.group(1), count=1)
    text = re.sub(r"_(?=[·×−–-])|(?<=[·×−–-])_", "", text.replace("<br>", " ").replace("**", ""))
    text = _EMPHASIS.sub("", text)
    return " ".join(_CAMEL.sub(" ", text).split())


def row_cells(row: str) -> list[str]:
    """The cells of a Markdown table row (``"|Water use|m3|7.4E-01|11%|"`` → ``["Water use", "m3", …]``)."""
    return [c.strip() for c in row.strip().strip("|").split("|")]


def row_reading(cells: list[str], header_rows: Sequence[Sequence[str]]) -> str:
    """A table row written out with its headers and units: its label, then each value with the header of its
    column and its unit ("Greenhouse gases (GWP 100a): Total (H2 Non-Seq.) 34.8 kg CO2 eq; …"). A unit comes from
    the row's own unit cell, else from its column header (``kg CO2e kg–1 green coffee``, ``%``). Sub-tables side by
    side (``|Fertiliser|0.96|95|Fertiliser|0.96|92|``) are read one after the other, each named by the header above
    its label (``Brazil``, ``Vietnam``)."""
    merged = _merged_rows(cells)
    if len(merged) > 1:
        return " · ".join(reading for row in merged if (reading := row_reading(row, header_rows)))
    headers = [" ".join(dict.fromkeys(h for row in header_rows if j < len(row) and (h := clean_cell(row[j]))))
               for j in range(len(cells))]
    clean = [clean_cell(c) for c in _split_merged(cells)]
    unit_cols = [j for j, h in enumerate(headers) if h.lower() in ("unit", "units")]
    numeric = [bool(_VALUE_CELL.match(c)) for c in clean]
    segments: list[tuple[int, str, list[str]]] = []  # (column of the label, label, values)
    for j, cell in enumerate(clean):
        if not cell or j in unit_cols:
            continue
        if numeric[j]:
            if not segments:
                segments.append((j, "", []))
            header = headers[j] if j < len(headers) else ""
            name, unit = _header_unit(header)
            # the row's unit is in the unit column nearest the value (each side of an INPUT | OUTPUT table has one)
            near = min((u for u in unit_cols if u < len(clean)), key=lambda u: (abs(u - j), u < j), default=None)
            row_unit = clean[near] if near is not None else ""
            unit = unit or row_unit or (header if _UNIT_CELL.match(header) else "")
            name = "" if header == unit else name
            shown = cell if cell.endswith("%") or not unit else (f"{cell}%" if unit == "%" else f"{cell} {unit}")
            segments[-1][2].append(f"{name} {shown}".strip())
        elif not segments or (segments[-1][2] and any(numeric[j + 1:])):
            segments.append((j, cell, []))
        elif segments[-1][2]:  # a text value after the values ("Not applicable")
            header = headers[j] if j < len(headers) else ""
            segments[-1][2].append(f"{header} {cell}".strip())
        elif cell != segments[-1][1]:  # a merged label repeated across cells is read once
            segments[-1] = (segments[-1][0], f"{segments[-1][1]} {cell}".strip(), segments[-1][2])
    segments = [seg for seg in segments if seg[2]]
    if not segments:
        return ""
    # sub-tables side by side are named by the header cells above their labels that differ ("Brazil", "Vietnam";
    # not the "Emission source" both print)
    columns = [j for j, _, _ in segments]
    differing = [[clean_cell(row[c]) if c < len(row) else "" for c in columns] for row in header_rows]
    differing = [row for row in differing if len(set(row)) > 1]
    names = {j: " ".join(row[n] for row in differing if row[n]) for n, j in enumerate(columns)}
    named = len(set(names.values())) == len(segments) > 1
    parts = []
    for j, label, values in segments:
        name = f"{label} ({names[j]})" if named and names[j] and label else label
        parts.append(f"{name}: " + "; ".join(values) if name else "; ".join(values))
    return " | ".join(parts)


def text_row_reading(cells: list[str], header_rows: Sequence[Sequence[str]]) -> str:
    """A table row of text written out with its column headers: the cells before the first headed column name the
    row, each other cell follows its header ("Situation 1: process run by the company … Option 1 | Most relevant
    process: Provide company-specific data … (DQR≤1.6) …")."""
    merged = _merged_rows(cells)
    if len(merged) > 1:
        return " · ".join(reading for row in merged if (reading := row_reading(row, header_rows)))
    headers = [" ".join(dict.fromkeys(h for row in header_rows if j < len(row) and (h := clean_cell(row[j]))))
               for j in range(len(cells))]
    clean = [clean_cell(c) for c in cells]
    filled = [c for c in clean if c]
    if 2 * sum(len(c.split()) > 3 for c in filled) < len(filled) or 2 * len(set(filled)) < len(filled):
        return ""  # mostly short or repeated: the broken lines of a wrapped row ("developed | dataset"), Yes/No marks
    label = " ".join(dict.fromkeys(c for j, c in enumerate(clean) if c and not headers[j]))
    parts = [f"{headers[j]}: {c}" for j, c in enumerate(clean)
             if c and headers[j] and c != headers[j] and c not in label]  # a merged cell is read once
    if not parts:
        return ""
    return " | ".join([label, *parts] if label else parts)


def _merged_rows(cells: list[str]) -> list[list[str]]:
    """Rows PyMuPDF read as one, each cell holding one line per row ("|Ozone depletion<br>Human toxicity, non-cancer
    effects<br>Human toxicity, cancer effects|11%<br>22%<br>7%|−86%<br>−44%<br>2%|", Moretti et al. 2020, Table 5,
    p. 8), as those rows; else ``[cells]``. Every filled cell holds the same number of lines, and every line
    after the label is a value."""
    parts = [c.split("<br>") for c in cells]
    filled = [p for c, p in zip(cells, parts, strict=True) if c.strip()]
    n = len(filled[0]) if filled else 0
    if n < 2 or any(len(p) != n for p in filled) or not all(
            _VALUE_CELL.match(v.strip()) for c, p in zip(cells[1:], parts[1:], strict=True) if c.strip() for v in p):
        return [cells]
    return [[p[i] if c.strip() else "" for c, p in zip(cells, parts, strict=True)] for i in range(n)]


def _split_merged(cells: list[str]) -> list[str]:
    """Undo a label and its value that PyMuPDF ran into one cell and repeated in the next
    (``|Coal transport (rail)<br>100|Coal transport (rail)<br>100|km|`` → ``|Coal transport (rail)|100|km|``,
    Burchart et al. 2023, Table 6)."""
    out = list(cells)
    for j in range(len(out) - 1):
        m = re.match(r"^(.*\S)\s*<br>\s*([-−–]?\d[\d.,]*)$", out[j].strip(), re.S)
        if m and out[j + 1].strip() == out[j].strip():
            out[j], out[j + 1] = m.group(1), m.group(2)
    return out


def _header_unit(header: str) -> tuple[str, str]:
    """A column header split into its name and the unit it prints in brackets: "Contribution (%)" → ("Contribution",
    "%"), "Hydrogen yield rate [kg H2/GJ]" → ("Hydrogen yield rate", "kg H2/GJ"); else (header, "")."""
    m = re.match(r"^(.*?)\s*[(\[]([^()\[\]]+)[)\]]$", header)
    if m and _UNIT_CELL.match(m.group(2).strip()):
        return m.group(1).strip(), m.group(2).strip()
    return header, ""


_VALUE_CELL = re.compile(r"^[-−–]?\d+(?:[.,]\d+)*(?:\s*[·×x]\s*10\s*[-−–]?\s*\d+|E[-+−]?\d+)?\s*%?$", re.I)


TEXT_CELL = 40  # characters: a row holding a longer cell is a row of text, not a second header row
FOLLOWING_OTHER_WORK = 2  # sentences after a citing one that can still report the cited work


# a sentence drawing the document's own conclusion from what it cited: "With a drink containing approximately 18 g
# of green coffee (Starbucks Coffee Company, 2019) … Thus, the carbon footprint found in the LCA is on average 0.28 and
# 0.06 kg CO2e per espresso beverage …" (Nab & Maslin 2020, p. 12)
_DRAWS_OWN_CONCLUSION = re.compile(r"^(?:Thus|Hence|Therefore|Consequently|Overall|In summary|In conclusion|To "
                                   r"conclude),")
# the document's own counterpoint to what it cited, giving no value of its own: "It may, however, be the other way
# around, that this is a larger problem for CLCA." (Finnveden et al. 2022, 2.4, p. 4, after "… decision [6].")
_OWN_COUNTERPOINT = re.compile(r"^(?:[\w'’]+,?\s+){0,3}however\b(?!.*\d)", re.I)
# the document's own judgement of what it cited: "Unless restrictions on … are introduced, it seems clear that system
# expansion in the narrow sense should be compatible with ALCA." (Finnveden et al. 2022, 2.3, p. 3)
# (or "The 100 % rule interpreted in this way, however, does not seem to be correct …", 2.1, p. 2, after "… the world
# [9]. This is sometimes referred to as “the 100 % rule”.")
_OWN_JUDGEMENT = re.compile(r"\bit (?:also )?(?:seems|appears) (?:\w+ )?(?:clear|reasonable|strange|odd|logical|"
                            r"natural|justified|unjustified|inconsistent|consistent|difficult|likely|unlikely)\b|"
                            r"\b(?:does|do) not (?:seem|appear) to be (?:correct|valid|right|true|justified)\b", re.I)
# a sentence presenting the document's own table or figure: "Table 5 shows the variation of the environmental impact
# when the 50/50 method is applied to UCO" (Moretti et al. 2020, p. 8, after a sentence citing Schrijvers et al.)
_PRESENTS_OWN_EXHIBIT = re.compile(r"^(?:As (?:shown|seen) in |In )?(?:Table|Fig\.|Figure)\s*[A-Z]?\d+[a-z]?\b"
                                   r"(?! of (?:the|their|its)\b)")


def _mark_other_work(units: list[QuotableUnit], text: str) -> list[QuotableUnit]:
    """Flag the sentences that go on reporting the work cited just before them in the same paragraph: up to
    :data:`FOLLOWING_OTHER_WORK` of them, until one speaks of the document's own work ("in this study") or draws
    its own conclusion ("Thus, …", "Overall, …"), presents its own table or figure ("Table 5 shows …"), sets
    its own counterpoint against it, with no value ("It may, however, be the other way around, …") or judges it
    ("… it seems clear that …")."""
    out = list(units)
    for i, unit in enumerate(units):
        if unit.reading or not reports_other_work(unit.text):
            continue
        for j in range(i + 1, min(i + 1 + FOLLOWING_OTHER_WORK, len(units))):
            nxt = units[j]
            new_paragraph = "\n\n" in text[units[j - 1].offset:nxt.offset]
            if (nxt.reading or new_paragraph or OWN_STUDY.search(nxt.text) or OWN_STEP.search(nxt.text)
                    or LIST_ITEM.match(nxt.text)
                    or _DRAWS_OWN_CONCLUSION.match(nxt.text) or _PRESENTS_OWN_EXHIBIT.match(nxt.text)
                    or _OWN_COUNTERPOINT.match(nxt.text) or _OWN_JUDGEMENT.search(nxt.text)):
                break
            out[j] = nxt._replace(other_work=True)
    return out


def _mark_refuted(units: list[QuotableUnit]) -> list[QuotableUnit]:
    """Flag the enumerated statements that a following (or preceding) sentence calls misconceptions."""
    out = list(units)
    for i, unit in enumerate(units):
        if unit.reading or not REFUTES.search(unit.text):
            continue
        for j in (*range(i - 1, max(i - 12, -1), -1), *range(i + 1, min(i + 12, len(units)))):
            if not _STATEMENT_ITEM.match(units[j].text):
                if j < i:
                    continue
                break
            out[j] = units[j]._replace(refuted=True)
    return out


def _caption(chunk: Chunk) -> str:
    """The text before a table's first row (its caption), or its section title."""
    head = chunk.text.split("\n|", 1)[0] if not chunk.text.startswith("|") else ""
    return collapse(head) or (chunk.section_path[-1] if chunk.section_path else "")


def ledger_hash(evidence: Sequence[Evidence]) -> str:
    """A fingerprint of the frozen ledger an answer was written from."""
    return hashlib.sha256("\n".join(e.evidence_id for e in evidence).encode()).hexdigest()[:16]
