"""The parser on the real corpus: tables, section paths, page labels, removed running text."""

from __future__ import annotations

import re

import pytest

from lcabot.ingest.chunking import chunk_document
from lcabot.ingest.normalize import match_key
from lcabot.ingest.pdf import parse_pdf
from tests.conftest import CORPUS

COFFEE = CORPUS / "studies" / "nab-maslin-2020-coffee-carbon-footprint.pdf"
PEFCR = CORPUS / "guidance" / "ec-pefcr-guidance-v6.3.pdf"
MORETTI = CORPUS / "studies" / "moretti-2020-uco-polypropylene-lca.pdf"
HEIJUNGS = CORPUS / "perspectives" / "academic" / "heijungs-2020-monte-carlo-runs.pdf"


@pytest.fixture(scope="module")
def coffee(parsed_pdf):
    return parsed_pdf(COFFEE)


@pytest.fixture(scope="module")
def pefcr(parsed_pdf):
    return parsed_pdf(PEFCR)


def _row(table: str, label: str) -> list[str]:
    """Cells of the first Markdown row whose first cell is ``label``."""
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == label:
            return cells
    raise AssertionError(f"no row {label!r} in table")


def test_coffee_table_2_keeps_its_numbers(coffee):
    tables = [b for b in coffee.blocks if b.kind == "table" and b.page == 11]
    assert len(tables) == 1
    table = tables[0].text
    # GIVEN Table 2 of Nab & Maslin (2020), PDF page 11: conventional Brazil | conventional Vietnam
    assert _row(table, "Fertiliser") == ["Fertiliser", "0.96", "95", "Fertiliser", "0.96", "92"]
    totals = [line for line in table.splitlines() if line.startswith("|Total|")]
    # growing, milling, exportation (conventional), then the sustainable scenario
    assert [t.split("|")[2] for t in totals[:3]] == ["1.01", "0.10", "10.44"]
    assert [t.split("|")[5] for t in totals[:3]] == ["1.04", "0.18", "11.77"]
    assert _row(table, "Airport to airport")[1] == "10.42"


def test_coffee_table_becomes_a_table_chunk_on_page_11(coffee):
    chunks = chunk_document(coffee, "doc", COFFEE.name)
    tables = [c for c in chunks if c.kind == "table" and c.page_start == 11]
    assert tables and "10.44" in tables[0].text and "|Airport to airport|10.42|100|" in tables[0].text


def test_pefcr_section_paths_reach_four_levels(pefcr):
    chunks = chunk_document(pefcr, "doc", PEFCR.name)
    on_123 = [c for c in chunks if c.page_start == 123 and c.section_path]
    paths = {c.section_path for c in on_123}
    expected = (
        "7 Technical specifications",
        "7.18 End-of-Life modelling",
        "7.18.12 How to apply the formula to intermediate products (cradle-to-gate studies)",
    )
    assert expected in paths
    deep = [c.section_path for c in chunks if len(c.section_path) == 4]
    assert any(p[-1].startswith("7.18.7.1 ") for p in deep)


def test_pefcr_line_numbers_and_running_footer_are_removed(pefcr):
    page = pefcr.page_texts[120]  # PDF page 121
    assert "The product design and composition will determine" in page
    assert "3278" not in page and "3280" not in page
    assert "Page | 121" not in page
    assert pefcr.page_labels[120] == "121"


def test_pefcr_table_of_contents_is_not_taken_for_headings(pefcr):
    headings = [b for b in pefcr.blocks if b.kind == "heading" and b.text.startswith("7.6 ")]
    assert [h.page for h in headings] == [61]


def test_printed_page_labels_differ_from_pdf_index(parsed_pdf):
    parsed = parsed_pdf(HEIJUNGS)
    assert parsed.page_labels == [str(n) for n in range(394, 403)]


def test_display_text_stays_faithful_while_search_text_is_normalised(pefcr):
    chunks = chunk_document(pefcr, "doc", PEFCR.name)
    with_sub = [c for c in chunks if re.search(r"CO\u2082", c.text)]
    for chunk in with_sub:
        assert "CO2" in chunk.search_text and "\u2082" not in chunk.search_text


def test_two_columns_under_full_width_tables_and_top_of_page_captions(parsed_pdf):
    """Moretti et al. 2020 p. 5 has two inventory tables above two columns of text: the columns are read one after
    the other, not interleaved line by line; p. 6 opens with the caption "Table 4", which is not a running header
    although "Table #" tops several pages."""
    parsed = parsed_pdf(MORETTI)
    page5 = match_key(parsed.page_texts[4])
    assert match_key("Considering the chemical formula of propylene C3H6, per kg PP, the biogenic carbon removal "
                     "corresponds to 3.14 kg CO2eq.") in page5
    assert match_key("only genic carbon removal") not in page5
    assert parsed.page_texts[5].startswith("Table 4\n")


def test_tight_leading_keeps_a_sentence_with_its_number_moretti_p7(parsed_pdf):
    """Moretti et al. 2020 set their lines closer than the type (line boxes overlap by 3 pt): each line used to be a
    paragraph, and the sentence about the hydrogen dataset ended before its value."""
    parsed = parsed_pdf(MORETTI)
    chunks = chunk_document(parsed, "moretti", MORETTI.name)
    from lcabot.answer.ledger import quotable_units

    units = [u.text for c in chunks for u in quotable_units(c) if c.page_start <= 7 <= c.page_end]
    assert ("According to the selected dataset (PlasticsEurope, 2005), the production of 1 kg of hydrogen "
            "generates 9.4 kg CO2eq.") in units
    assert "Used cooking oil (UCO) has received much attention as feedstock for the production of renewable fuels " \
           "and bio" in " ".join(parsed.page_texts[0].split())


def test_side_by_side_boxes_are_read_box_by_box_coffee_p1(coffee):
    """The abstract of Nab & Maslin (p. 1) sits beside a Correspondence/Funding sidebar; read line by line the two
    interleaved ("… demand is expected to tri-" / "Correspondence" / "ple by 2050")."""
    page = " ".join(coffee.page_texts[0].split())
    assert ("The average carbon footprint of Arabica coffee from both countries was calculated as 15.33 (±0.72) kg "
            "of carbon dioxide equivalent per 1 kg of green coffee") in page
    assert "demand is expected to triple by 2050" in page
    assert "Correspondence Mark Maslin Email: m.maslin@ucl.ac.uk" in page


def test_ligatures_are_written_out_in_display_text_burchart(parsed_pdf):
    burchart = CORPUS / "studies" / "burchart-2023-hydrogen-coal-gasification-lca.pdf"
    parsed = parsed_pdf(burchart)
    assert "\ufb01" not in "".join(parsed.page_texts)
    assert "Results of LCA of hydrogen production by Shell gasification" in " ".join(parsed.page_texts[11].split())


def test_table_7_row_reads_with_its_headers_and_unit_burchart_p12(parsed_pdf):
    from lcabot.answer.ledger import quotable_units

    burchart = CORPUS / "studies" / "burchart-2023-hydrogen-coal-gasification-lca.pdf"
    chunks = chunk_document(parsed_pdf(burchart), "b", burchart.name)
    readings = [u.reading for c in chunks if c.kind == "table" and c.page_start == 12 for u in quotable_units(c)]
    assert ("Greenhouse gases (GWP 100a): Total (H2 Non-Seq.) 34.8 kg CO2 eq; Total (H2 Seq.) 19.5 kg CO2 eq; "
            "Relative Change Seq. vs. Non-Seq. −44.1%") in readings


def test_pefcr_annex_b_pages_carry_the_annex_b_heading(pefcr):
    """A bold table cell "8.92" at the foot of Annex A's last table was taken for a section number and swallowed
    the "Annex B - PEFCR TEMPLATE" heading (p. 164), so the template's pages were labelled Annex A."""
    paths = {b.page: b.section_path for b in pefcr.blocks if b.kind == "text"}
    assert paths[170] == ("Annex B - PEFCR TEMPLATE",)
    assert paths[163][0].startswith("Annex A")
    assert paths[209] == ("ANNEX B.1 – List of EF normalisation and weighting factors",)


def test_footnotes_are_their_own_blocks_and_never_split_a_list_pefcr_p96(pefcr):
    """PEFCR guidance p. 96: footnote 59 ("as no EF-compliant dataset for van transport …", 10 pt under a raised
    "59") sat between "● 230 km by truck … utilisation ratio; and" and the list's next item on p. 97, and was read
    as the item's end."""
    notes = [b.text for b in pefcr.blocks if b.kind == "footnote" and b.page == 96]
    assert len(notes) == 2
    assert notes[0].startswith("59 as no EF-compliant dataset") and notes[1].startswith("60Calculated as the mass")
    chunks = chunk_document(pefcr, "doc", PEFCR.name)
    listed = next(c.text for c in chunks if "● 230 km by truck" in c.text)
    assert re.search(r"utilisation ratio; and\n+● 280 km by train \(average freight train", listed)
    assert "EF-compliant dataset for van" not in listed
    assert any(c.text.startswith("59 as no EF-compliant dataset") for c in chunks)  # still searchable, as a note


def test_a_footnote_at_a_column_foot_does_not_cut_its_sentence_moretti_p8(parsed_pdf):
    parsed = parsed_pdf(MORETTI)
    text = " ".join(" ".join(c.text.split()) for c in chunk_document(parsed, "m", MORETTI.name))
    assert ("the environmental impact would increase by 17%−58% and 10–28%, respectively. The second sensitivity is "
            "related to the multifunctionality of hydrotreatment and steam cracking.") in text


def test_table_headers_are_clean_text_moretti_tables_5_and_6_p8(parsed_pdf):
    """PyMuPDF runs Table 6's header words together ("Increase(%)(negativevaluesstandforadecrease)50/50Method")
    and reads Table 5's header above its box from the caption sliced at the column edges ("ariation of
    cradle-to-factory gate i methane. Impact Category")."""
    parsed = parsed_pdf(MORETTI)
    tables = [b.text for b in parsed.blocks if b.kind == "table" and b.page == 8]
    assert len(tables) == 2
    header_5, header_6 = (t.splitlines()[0] for t in tables)
    assert header_5 == ("|Impact Category|Increase of impact (%) shifting from UCO|Increase of impact (%) (negative "
                        "values stand for a decrease) changing from conventional|")
    assert header_6 == ("|Impact Category|Increase (%) (negative values stand for a decrease) 50/50 Method|Increase "
                        "(%) (negative values stand for a decrease) 50/50 method|")
    assert _row(tables[1], "Climate change") == ["Climate change", "17%", "58%"]
    assert _row(tables[0], "Climate change") == ["Climate change", "10%", "−42%"]


def test_stacked_rows_and_letters_lost_after_ligatures_moretti_tables_4_and_6(parsed_pdf):
    """Moretti et al. 2020, Table 4 (p. 6) draws no rule between some rows, so PyMuPDF reads two or three in one
    ("Photochemical ozone formation<br>Acidifcation"), and its cell reader drops the letter after a ligature."""
    parsed = parsed_pdf(MORETTI)
    table_4 = next(b.text for b in parsed.blocks if b.kind == "table" and b.page == 6)
    assert _row(table_4, "Acidification") == ["Acidification", "molc H+ eq", "2.1E-03", "5%"]
    assert _row(table_4, "Photochemical ozone formation") == ["Photochemical ozone formation", "kg NMVOC eq",
                                                              "1.9E-03", "6%"]
    assert _row(table_4, "Human toxicity, cancer effects") == ["Human toxicity, cancer effects", "CTUh", "5.5E-09",
                                                               "6%"]
    assert _row(table_4, "Land transformation") == ["Land transformation", "kg C deficit", "1.1", "2%"]
    table_6 = [b.text for b in parsed.blocks if b.kind == "table" and b.page == 8][1]
    assert _row(table_6, "Human toxicity, non-cancer effects") == ["Human toxicity, non-cancer effects", "−12%",
                                                                   "−3701%"]


def test_table_of_contents_pages_are_page_text_but_not_chunks(pefcr):
    """PEFCR guidance pp. 2–8 list sections and pages ("7.6 CUT-OFF 61"); as chunks they took retrieval places
    from the sections they name (7.4.1 for a question on the most relevant impact categories)."""
    assert "7.6 CUT-OFF 61" in " ".join(pefcr.page_texts[2].split())
    assert {b.page for b in pefcr.blocks if b.kind == "contents"} == {2, 3, 4, 5, 6, 7, 8}
    chunks = chunk_document(pefcr, "doc", PEFCR.name)
    assert not [c for c in chunks if 2 <= c.page_start <= 8]
    assert any(c.section_path[-1:] == ("7.6 Cut-Off",) for c in chunks)


def test_numbered_headings_the_outline_names_without_number_or_leaves_out(parsed_pdf):
    """Moretti et al. 2020: the outline says "Goal and scope definition" where p. 2 prints "2.1. Goal and scope
    definition"; the Pathfinder Framework's outline holds only its chapters, "3.2 Hierarchy of application" is
    printed in bold on p. 15. Both used to leave every chunk under the document title or the chapter."""
    moretti = chunk_document(parsed_pdf(MORETTI), "m", MORETTI.name)
    goal = [c for c in moretti if c.section_path[-2:] == ("2 Material and methods", "2.1 Goal and scope definition")]
    assert goal and {c.page_start for c in goal} <= {2, 3}
    pathfinder = CORPUS / "perspectives" / "industry" / "wbcsd-pathfinder-framework-v1.pdf"
    chunks = chunk_document(parsed_pdf(pathfinder), "p", pathfinder.name)
    prioritised = next(c for c in chunks if "their application shall always be prioritized" in " ".join(c.text.split()))
    assert prioritised.section_path == ("Existing methods and standards", "3.2 Hierarchy of application")
    assert prioritised.page_start == 15


def test_an_unnumbered_references_heading_ends_the_last_section_coffee_p17(coffee):
    """Nab & Maslin 2020 print "REFERENCES" (p. 17) and "ACKNOWLEDGEMENTS" (p. 16) unnumbered, in a bold face
    PyMuPDF does not flag; the reference list used to be read as part of "8 CONCLUSIONS"."""
    paths = {(b.page, b.section_path) for b in coffee.blocks if b.kind == "text"}
    assert (16, ("8 CONCLUSIONS",)) in paths
    assert (19, ("REFERENCES",)) in paths
    assert not {p for p in paths if p[0] >= 18 and p[1] != ("REFERENCES",)}
    smrke = next(b for b in coffee.blocks if "A science guide to coffee freshness" in b.text)
    assert (smrke.page, smrke.section_path) == (19, ("REFERENCES",))


def test_a_heading_run_into_its_text_names_the_sections_spans_pathfinder_p33(parsed_pdf):
    """"7.2.1 Time period" is set in the body's size and weight, so the parser reads it into the sentence after it."""
    from lcabot.answer.ledger import quotable_units

    pathfinder = CORPUS / "perspectives" / "industry" / "wbcsd-pathfinder-framework-v1.pdf"
    chunks = chunk_document(parsed_pdf(pathfinder), "p", pathfinder.name)
    units = [u for c in chunks if c.page_start == 33 for u in quotable_units(c)]
    annual = next(u for u in units if "on an annual basis" in u.text)
    assert annual.text == "Emissions shall be calculated and disclosed on an annual basis."
    assert annual.heading == "7.2.1 Time period"


def test_a_copys_provenance_box_page_stamp_and_placeholders_are_not_document_text():
    """The news items and Wikipedia extracts open with a shaded box about the copy ("Source: … Licence: …
    Retrieved: … Changes: …"), end each page with "….pdf · page 1 of 2" and write "[Image: …]" where a picture was:
    none of it is what the document states. The sentence the stamp interrupted on p. 1 reads whole."""
    second = parse_pdf((CORPUS / "perspectives" / "eu_funding" / "ec-2025-hydrogen-bank-second-auction-bids.pdf")
                       .read_bytes(), "second.pdf")
    page1 = second.page_texts[0]
    for copy_text in ("Stored copy used:", "Licence:", "Retrieved: 2026-11-29", "page 1 of 2",
                      "[Image: Hydrogen Auction Results 2025]"):
        assert copy_text not in page1
    assert "Over-subscribed European Hydrogen Bank auction receives 61" in page1
    chunks = chunk_document(second, "second", "ec-2025-hydrogen-bank-second-auction-bids.pdf")
    joined = " ".join(match_key(c.text) for c in chunks)
    assert match_key("which it aims to launch before the end of 2025") in joined  # pp. 1–2, no stamp between
    apple = parse_pdf((CORPUS / "perspectives" / "public" / "wikipedia-south-tyrolean-apple.pdf").read_bytes(),
                      "apple.pdf")
    assert "Source:" not in apple.page_texts[0] and "[Excerpt ends here" not in apple.page_texts[0]
    assert "With its 18,400 hectares South Tyrol is the largest" in " ".join(apple.page_texts[0].split())
    acts = parse_pdf((CORPUS / "perspectives" / "eu_funding" / "ec-2023-renewable-hydrogen-delegated-acts.pdf")
                     .read_bytes(), "acts.pdf")
    assert "©AdobeStock/scharfsinn86" not in acts.page_texts[0]  # the photo's credit, above the first sentence
    assert "Today, the Commission has formally published the two delegated acts" in acts.page_texts[0]


def test_a_table_without_caption_reads_row_by_row_hydrogen_bank_p2(parsed_pdf):
    """The pilot auction's bid table has no caption and PyMuPDF names none of its columns: its first text row is the
    header, each bid a row read under it; the Σ total row without a label is not a bid."""
    path = CORPUS / "perspectives" / "eu_funding" / "ec-2024-hydrogen-bank-pilot-auction-grants.pdf"
    parsed = parsed_pdf(path)
    [table] = [b.text for b in parsed.blocks if b.kind == "table" and b.page == 2]
    header = [c.replace("**", "").replace("<br>", " ") for c in _row(table, "**Project**<br>**acronym**")]
    assert header[:4] == ["Project acronym", "Project Coordinator", "Project location", "Bid price (EUR/kg)"]
    assert _row(table, "eNRG Lahti") == ["eNRG Lahti", "Nordic Ren-Gas<br>Oy", "Finland", "0.37", "122", "90", "836",
                                         "EUR 45,228,375"]
    assert _row(table, "MP2X")[3:] == ["0.48", "511", "500", "3494", "EUR 245,178,772"]
    assert "694,521,237" not in table and "Col1" not in table
    from lcabot.answer.ledger import quotable_units

    readings = [u.reading for c in chunk_document(parsed, "ehb", path.name) if c.kind == "table"
                for u in quotable_units(c)]
    assert readings[0] == ("eNRG Lahti Nordic Ren-Gas Oy Finland: Bid price (EUR/kg) 0.37; Bid volume (kt H2/10years) "
                           "122; Bid capacity (MWe) 90; Expected GHG abatement (ktCO2/10years) * 836; Total requested "
                           "funding (EUR) EUR 45,228,375")


def test_a_grid_whose_numbers_run_across_lines_is_not_a_table_pefcr_p88(pefcr):
    """PEFCR guidance p. 88 has no table caption; PyMuPDF's grid there splits "1.30" into "130<br>." — not a table
    to quote, the page's text stays prose."""
    assert not [b for b in pefcr.blocks if b.kind == "table" and b.page == 88]
    assert [b for b in pefcr.blocks if b.kind == "table" and b.page == 209]  # weighting factors without tox categories


def test_a_raised_footnote_mark_or_power_is_printed_raised_pefcr_p95_heijungs_p2(pefcr, coffee, parsed_pdf):
    """PEFCR guidance p. 95: "a default utilisation ratio of 64%" then footnote mark 58 in smaller raised type; read
    flat it becomes the number "64%58". Heijungs 2020 p. 2 prints M = 10 with a raised 6, flat "M = 106". Nab &
    Maslin p. 1 prints "kg CO2e kg" with a raised "−1", which stays in line."""
    page = pefcr.page_texts[94]
    assert "a default utilisation ratio of 64%⁵⁸ shall be used" in page
    assert "64%58" not in page
    assert "In Germany only, the average truck load is 64%." in page  # the footnote's own text, its number unraised
    heijungs = CORPUS / "perspectives" / "academic" / "heijungs-2020-monte-carlo-runs.pdf"
    assert "a value of M = 10⁶ can often" in parsed_pdf(heijungs).page_texts[1]
    assert "(kg CO2e kg−1)" in coffee.page_texts[0]


def test_a_sideways_table_does_not_swallow_the_column_beside_it_moretti_p4(parsed_pdf):
    """Moretti et al. 2020, p. 4: Table 1 (impact categories, normalisation and weighting factors) is printed turned
    in the left column; PyMuPDF read it with §2.2.2 Multifunctionality from the right column as one "table", so the
    section's sentences were cells ("|Col1|Col2|Col3|2.2.2. Multifunctionality …|") and no question about the
    allocation could quote them."""
    parsed = parsed_pdf(MORETTI)
    page4 = [b for b in parsed.blocks if b.page == 4]
    assert not [b for b in page4 if b.kind == "table"]
    text = " ".join(" ".join(b.text.split()) for b in page4 if b.kind == "text")
    assert ("In this LCA, the problem of how to assign the environmental impact to the multiple products of "
            "hydrotreatment has been solved through energy allocation.") in text


def test_an_italic_numbered_heading_is_not_run_into_its_text_burchart_p4_p5(parsed_pdf):
    """Burchart et al. 2023 set "2.1. Goal and Scope of the Study: System Boundaries and Functional Unit" (p. 4) and
    "2.2. Description of the System Examined: Life Cycle Inventory" (p. 5) in body-size italics: they were read into
    the sentence after them ("System Examined: Life Cycle Inventory The life cycle system boundary covers …"), and
    the functional unit's sentence sat under "2 Data and Methods" only."""
    burchart = CORPUS / "studies" / "burchart-2023-hydrogen-coal-gasification-lca.pdf"
    parsed = parsed_pdf(burchart)
    fu = next(b for b in parsed.blocks if "the FU is 1 kg of hydrogen at" in " ".join(b.text.split()))
    assert fu.section_path == ("2 Data and Methods",
                               "2.1 Goal and Scope of the Study: System Boundaries and Functional Unit")
    boundary = next(b for b in parsed.blocks if "The life cycle system boundary covers" in b.text)
    assert boundary.text.startswith("The life cycle system boundary covers the processes occurring during hard coal")
    assert boundary.section_path[-1] == "2.2 Description of the System Examined: Life Cycle Inventory"
    glossary = next(b for b in parsed.blocks if b.text.startswith("FCEV Fuel Cell Electric Vehicle"))
    assert (glossary.page, glossary.section_path) == (15, ("Abbreviations",))


def test_first_page_display_type_is_title_not_text_hydrogen_bank_p1(parsed_pdf):
    """The Hydrogen Bank pilot's copy opens with "European Commission news item (DG CLIMA, 7 October 2024)" in 15 pt
    display type (body 10 pt): it names the item, and was quoted as the first line of an answer about the funding."""
    news = CORPUS / "perspectives" / "eu_funding" / "ec-2024-hydrogen-bank-pilot-auction-grants.pdf"
    parsed = parsed_pdf(news)
    kinds = {" ".join(b.text.split()): b.kind for b in parsed.blocks if b.page == 1}
    assert kinds["European Commission news item (DG CLIMA, 7 October 2024)"] == "title"
    assert kinds["Six renewable hydrogen projects have signed their respective grant agreements, advancing them "
                 "towards implementation."] == "text"


def test_a_table_running_on_to_the_next_page_keeps_its_header_ilcd_tab_1_and_7(parsed_pdf):
    """JRC ILCD compliance rules, Tab. 1 (pp. 5–6): the caption and header are on p. 5, the Nomenclature, Data
    quality, Method and Review rows on p. 6, a page with neither caption nor numbers, whose lines were read across
    the three columns ("Use of reviewers from registry ILCD-registered, qualified "Independent"). Each row on p. 6 is
    read under p. 5's header, its cells with their spaces ("Terminology use not enforced", not
    "Terminologyusenotenforced"); header cells PyMuPDF ran together are read from the page ("ILCD Data Network -
    Entry-level"). The chapter title printed at the foot of pp. 16 and 17 is a running footer, not text; the heading
    at the top of p. 16 stays."""
    path = CORPUS / "structured" / "jrc-ilcd-data-network-compliance-v1.1.pdf"
    parsed = parsed_pdf(path)
    [table] = [b.text for b in parsed.blocks if b.kind == "table" and b.page == 6]
    assert table.splitlines()[0].startswith("|Compliance area|ILCD Data Network - Entry-level|ILCD -compliance")
    review = _row(table, "Review")
    assert review[1].startswith("\uf0a7 Use of reviewers from registry <br>not required")
    assert review[2].startswith("ILCD-registered, qualified \"Independent <br>external <br>reviewer\"")
    assert "Separate review report always required" in review[2]
    assert "Terminology use not enforced." in _row(table, "Nomenclature")[1]
    [tab_7] = [b.text for b in parsed.blocks if b.kind == "table" and b.page == 17]
    assert _row(tab_7, "Review")[1].startswith("\uf0a7 Use of reviewers from registry not required")
    footers = [b for b in parsed.blocks if b.page in (16, 17) and b.text.strip() == "4 Entry-level requirements"]
    assert [b.kind for b in footers] == ["heading"]


def test_a_displayed_equation_reads_as_typed_pefcr_equations_4_and_20(pefcr):
    """PEFCR guidance p. 130: Equation 20 is printed as "𝐷𝑄𝑅=" beside the numerator "𝑇𝑒𝑅+𝐺𝑅+𝑇𝑖𝑅+𝑃" over "4" (three
    lines in mathematical italic); p. 77: Equation 4 has the fraction Mmeat over Mmilk. Each is one line of plain
    letters with its label; p. 82's table of three equations sharing one denominator is left as printed."""
    def text_of(page: int) -> str:
        return "\n".join(b.text for b in pefcr.blocks if b.page == page)

    assert "DQR = (TeR+GR+TiR+P)/4 [Equation 20]" in text_of(130)
    assert "AF = 1 −6.04 ∗ Mmeat/Mmilk [Equation 4]" in text_of(77)
    assert "NEwool = (EVwool∙Productionwool)/365 [Equation 9]" in text_of(79)
    assert not any(0x1D400 <= ord(c) <= 0x1D7FF for c in text_of(130) + text_of(77))
    assert "= 2.52%" in text_of(82) and "% milk = [(NEwool)" not in text_of(82)


def test_a_section_number_at_the_page_top_is_no_page_number_coffee_p5(coffee):
    """Nab & Maslin 2020, p. 5 opens with "5 | LIFE CYCLE ASSESSMENTS": the "5" stands where a page number would and
    equals the page's, but it numbers the title beside it; the page's passages are under 5 and 5.1, not section 4."""
    paths = [b.section_path for b in coffee.blocks if b.page == 5 and b.kind == "text"
             and "Increasingly, roasters are importing fresher coffee" in b.text]
    assert paths == [("5 LIFE CYCLE ASSESSMENTS", "5.1 Life cycle stages of coffee")]
    assert coffee.page_labels[4] == "5"


def test_list_items_keep_their_bullets_and_lead_in_ilcd_p7_hydrogen_bank_p1(parsed_pdf):
    """JRC ILCD compliance rules, p. 7: each goal situation's bullet sits below the top of the item's first line,
    whose label is bold; it was read after that line, the item cut in two and left without its lead-in. The Hydrogen
    Bank pilot news, p. 1: "• Finland (eNRG Lahti);" and "• and Norway (Skiga)." are too short for a sentence, but
    are two of the four countries, and "The Innovation Fund will support these projects …" after them no item."""
    from lcabot.answer.ledger import quotable_units

    ilcd = CORPUS / "structured" / "jrc-ilcd-data-network-compliance-v1.1.pdf"
    parsed = parsed_pdf(ilcd)
    items = {u.text: u.context for c in chunk_document(parsed, "ilcd", ilcd.name) if c.page_start <= 7 <= c.page_end
             for u in quotable_units(c)}
    lead_in = ('The following goal situations are differentiated. These represent the most common types of LCA '
               'applications - details see Table 3 and chapter 5.3 in the separate document "ILCD Handbook - General '
               'guide for LCA":')
    assert items['• Situation A "Micro-level decision support": Decision support on micro-level, typically for '
                 'product-related questions.'] == lead_in
    assert items['• Situation B "Meso/macro-level decision support": Decision support at a strategic level (e.g. '
                 'raw materials strategies, technology scenarios, policy options, etc).'] == lead_in
    assert not any(t.strip() == "•" or "a • strategic" in t for t in items)

    news = CORPUS / "perspectives" / "eu_funding" / "ec-2024-hydrogen-bank-pilot-auction-grants.pdf"
    parsed = parsed_pdf(news)
    units = [u for c in chunk_document(parsed, "pilot", news.name) if c.page_start == 1 for u in quotable_units(c)]
    countries = {u.text: u.context for u in units if u.context}
    for item in ("•  Spain (Hysencia and Catalina);", "•  Portugal (Grey2green II and MP2X);",
                 "•  Finland (eNRG Lahti);", "•  and Norway (Skiga)."):
        assert countries[" ".join(item.split())].endswith("The selected projects are located in four European "
                                                          "countries:"), item
    assert all(u.context == "" for u in units if u.text.startswith("The Innovation Fund will support"))


def test_a_links_words_are_spaced_from_the_words_before_them_hydrogen_bank_2025_p1(parsed_pdf):
    """The second auction's news item, printed from a web page, sets its links in bold touching the words before
    them: "for athird auction", "(CINEA)evaluation", "Themore than €4.8 billion"."""
    news = CORPUS / "perspectives" / "eu_funding" / "ec-2025-hydrogen-bank-second-auction-bids.pdf"
    text = " ".join(parsed_pdf(news).page_texts[0].split())
    assert "the Terms & Conditions for a third auction for hydrogen" in text
    assert "Executive Agency (CINEA) evaluation results by the end of May 2025" in text
    assert "The more than €4.8 billion" in text and "athird" not in text
