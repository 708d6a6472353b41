"""Reading order and structure on generated layouts: two columns, numbered headings without an outline."""

from __future__ import annotations

import pymupdf

from lcabot.chunking import chunk_document
from lcabot.pdf import parse_pdf


def _two_column_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()  # 595 x 842
    page.insert_text((50, 60), "A two-column study of allocation in dairy systems", fontsize=14)
    for i in range(12):
        y = 100 + i * 14
        page.insert_text((50, y), f"Left column line {i + 1} about allocation.", fontsize=10)
        page.insert_text((320, y), f"Right column line {i + 1} about system expansion.", fontsize=10)
    return doc.tobytes()


def test_two_columns_are_read_column_by_column():
    parsed = parse_pdf(_two_column_pdf(), "two-columns.pdf")
    text = parsed.page_texts[0]
    assert text.index("A two-column study") < text.index("Left column line 1 ")
    assert text.index("Left column line 12 ") < text.index("Right column line 1 ")
    order = [int(w) for w in text.replace(".", " ").split() if w.isdigit()]
    assert order == list(range(1, 13)) * 2


def _table_over_two_columns_pdf() -> bytes:
    """A full-width table (most of the page's text) above two columns of prose, as on Moretti et al. 2020 p. 5."""
    doc = pymupdf.open()
    page = doc.new_page()  # 595 x 842
    for i in range(30):
        page.insert_text((40, 60 + i * 12), f"Flow {i + 1} | 28.0 g | Ecoinvent market process for chemical input "
                                            f"number {i + 1} | APOS", fontsize=8)
    for i in range(14):
        y = 450 + i * 13
        page.insert_text((40, y), f"Left prose line {i + 1} of the biogenic carbon text, set as wide", fontsize=9)
        page.insert_text((310, y), f"Right prose line {i + 1} of the removal argument, as wide too", fontsize=9)
    return doc.tobytes()


def test_two_columns_below_a_full_width_table_are_still_read_column_by_column():
    text = parse_pdf(_table_over_two_columns_pdf(), "table-and-columns.pdf").page_texts[0]
    assert text.index("Left prose line 14 ") < text.index("Right prose line 1 ")
    assert text.index("Right prose line 13 ") < text.index("Right prose line 14 ")


def test_numbered_headings_build_the_section_path_without_an_outline():
    doc = pymupdf.open()
    page = doc.new_page()
    lines = [
        ("7 Technical specifications", 14, "hebo"), ("Body text about the method in general terms.", 10, "helv"),
        ("7.1 End-of-Life modelling", 12, "hebo"), ("The Circular Footprint Formula is used.", 10, "helv"),
        ("7.1.1 Recycled content (R1)", 11, "hebo"), ("R1 is the proportion of recycled input.", 10, "helv"),
        ("7.1.1.1 Relation with the Data Needs Matrix", 11, "hebo"), ("Company-specific values apply.", 10, "helv"),
        ("12.4 Out-of-sequence bold line that is no heading", 11, "hebo"), ("Still in 7.1.1.1.", 10, "helv"),
    ]
    for i, (text, size, font) in enumerate(lines):
        page.insert_text((72, 80 + i * 30), text, fontsize=size, fontname=font)
    parsed = parse_pdf(doc.tobytes(), "headings.pdf")
    chunks = chunk_document(parsed, "doc", "headings.pdf")
    by_text = {c.text.split("\n")[0]: c.section_path for c in chunks}
    deepest = (
        "7 Technical specifications", "7.1 End-of-Life modelling", "7.1.1 Recycled content (R1)",
        "7.1.1.1 Relation with the Data Needs Matrix",
    )
    assert by_text["Company-specific values apply."] == deepest
    assert "Still in 7.1.1.1." in chunks[-1].text and chunks[-1].section_path == deepest
    assert by_text["The Circular Footprint Formula is used."] == ("7 Technical specifications",
                                                                  "7.1 End-of-Life modelling")
