"""Hostile PDFs through the real ingestion path: PyMuPDF parsing, chunking, a real SQLite index, a fake embedder."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from lcabot.adapters.sqlite_index import SqliteIndex
from lcabot.config import Settings
from lcabot.errors import CorruptPdfError, EmptyPdfError, EncryptedPdfError, NotAPdfError
from lcabot.ingest.pdf import parse_pdf
from lcabot.ingest.pipeline import IngestResult, content_hash, ingest_bytes, ingest_path, ingest_paths
from lcabot.models import Chunk
from tests.fakes import HashEmbedder
from tests.fixtures import hostile


@pytest.fixture
def index(tmp_path: Path) -> Iterator[SqliteIndex]:
    idx = SqliteIndex(tmp_path / "i.sqlite3", dimension=HashEmbedder.dimension)
    yield idx
    idx.close()


@pytest.fixture
def ingest(index: SqliteIndex, tmp_path: Path) -> Callable[..., IngestResult]:
    settings = Settings(home=tmp_path)

    def run(path: Path, perspective: str = "academic", into: SqliteIndex | None = None) -> IngestResult:
        return ingest_path(path, perspective=perspective, index=into or index, embedder=HashEmbedder(),
                           settings=settings)

    return run


def doc_chunks(index: SqliteIndex, doc_id: str) -> list[Chunk]:
    """Every chunk of one document, by ordinal (found through the public kNN filter, not the schema)."""
    ids = [cid for cid, _ in index.knn(np.zeros(HashEmbedder.dimension, dtype=np.float32), 10_000, doc_ids=[doc_id])]
    return sorted(index.chunks(ids), key=lambda c: c.ordinal)


def refused(path: Path, error: type[Exception], reason: str, index: SqliteIndex, ingest) -> IngestResult:
    """The parser raises ``error`` for ``path``; ingestion reports it as failed with ``reason``; the index stays
    empty."""
    with pytest.raises(error):
        parse_pdf(path.read_bytes(), path.name)
    result = ingest(path)
    assert (result.status, result.reason) == ("failed", reason)
    assert index.documents() == []
    return result


def indexed(result: IngestResult, status: str = "indexed") -> str:
    assert (result.status, result.reason) == (status, None), result.message
    assert result.doc_id is not None
    return result.doc_id


# -- text normalisation: display text stays faithful, search text is normalised -----------------------------------


def test_ligatures_are_expanded_for_display_and_search(tmp_path: Path, index, ingest) -> None:
    """Issue 13: display text is what people read and quote, so ﬁ, ﬂ and ﬄ are written out there too."""
    doc_id = indexed(ingest(hostile.ligatures(tmp_path)))
    [chunk] = doc_chunks(index, doc_id)
    assert "The final effluent flows into the river" in chunk.text
    assert "The final effluent flows into the river" in chunk.search_text
    assert "\ufb01" not in index.page_text(doc_id, 1) and "final effluent" in index.page_text(doc_id, 1)
    assert [cid for cid, _ in index.bm25("final effluent", 5)] == [chunk.chunk_id]


def test_line_end_hyphen_soft_hyphen_and_nbsp(tmp_path: Path, index, ingest) -> None:
    doc_id = indexed(ingest(hostile.hyphenation(tmp_path)))
    [chunk] = doc_chunks(index, doc_id)
    assert "the environmental impacts over the lifecycle of the product, measured per kilogram" in chunk.search_text
    assert "\u00ad" not in chunk.search_text and "\u00a0" not in chunk.search_text
    page = index.page_text(doc_id, 1)
    # issue 13: line-end hyphenation is joined in display text too (the document never writes "environ-mental")
    assert "the environmental impacts" in page and "life\u00adcycle" in page and "per\u00a0kilogram" in page
    assert [cid for cid, _ in index.bm25("environmental lifecycle", 5)] == [chunk.chunk_id]


def test_subscript_co2_is_searchable_as_co2(tmp_path: Path, index, ingest) -> None:
    doc_id = indexed(ingest(hostile.subscripts(tmp_path)))
    [chunk] = doc_chunks(index, doc_id)
    assert "Emissions of CO\u2082 and CO2 were" in chunk.text
    assert "Emissions of CO2 and CO2 were" in chunk.search_text
    assert [cid for cid, _ in index.bm25("CO2", 5)] == [chunk.chunk_id]


# -- structure -------------------------------------------------------------------------------------------------


def test_roman_then_arabic_page_labels(tmp_path: Path, index, ingest) -> None:
    path = hostile.page_labels(tmp_path)
    assert parse_pdf(path.read_bytes(), path.name).page_labels == ["i", "ii", "iii", "iv", "1", "2"]
    doc_id = indexed(ingest(path))
    record = index.document(doc_id)
    assert record.page_labels == ("i", "ii", "iii", "iv", "1", "2")
    assert [record.label(p) for p in (1, 4, 5, 6)] == ["i", "iv", "1", "2"]
    [chunk] = doc_chunks(index, doc_id)
    assert (chunk.page_label_start, chunk.page_label_end) == ("i", "2")
    assert chunk.page_at(chunk.text.index("PDF page 5")) == 5


def test_image_only_pages_are_reported_by_number(tmp_path: Path, index, ingest) -> None:
    path = hostile.image_only_pages(tmp_path)
    parsed = parse_pdf(path.read_bytes(), path.name)
    assert parsed.pages_without_text == hostile.IMAGE_PAGES_IN_MIXED == [1, 3]
    assert parsed.page_texts[0] == parsed.page_texts[2] == ""
    result = ingest(path)
    doc_id = indexed(result)
    assert result.n_pages == 3 and result.pages_without_text == (1, 3)
    assert "no text layer on page(s) 1, 3" in result.message
    assert index.document(doc_id).pages_without_text == (1, 3)
    assert {(c.page_start, c.page_end) for c in doc_chunks(index, doc_id)} == {(2, 2)}


def test_fully_image_only_pdf_fails_with_no_text_naming_the_pages(tmp_path: Path, index, ingest) -> None:
    path = hostile.fully_image_only(tmp_path, pages=2)
    with pytest.raises(EmptyPdfError):
        parse_pdf(path.read_bytes(), path.name)
    result = ingest(path)
    assert (result.status, result.reason) == ("failed", "no_text")
    assert "(pages 1, 2)" in result.message and result.message.startswith("scanned.pdf: ")
    assert index.documents() == []


def test_ocr_text_layer_over_a_scan_is_indexed(tmp_path: Path, index, ingest) -> None:
    """OCR software lays invisible text (render mode 3) over the page image; that text is the document."""
    doc_id = indexed(ingest(hostile.ocr_layer(tmp_path)))
    assert index.document(doc_id).pages_without_text == ()
    assert [c.text for c in doc_chunks(index, doc_id)] == [hostile.OCR_LINE]


# -- hidden text is never indexed ------------------------------------------------------------------------------


def test_hidden_text_never_reaches_the_index(tmp_path: Path, index, ingest) -> None:
    path = hostile.hidden_text(tmp_path)
    parsed = parse_pdf(path.read_bytes(), path.name)
    doc_id = indexed(ingest(path))
    chunks = doc_chunks(index, doc_id)
    assert [c.text for c in chunks] == [hostile.VISIBLE_LINE]
    stored = [index.page_text(doc_id, 1), *parsed.page_texts, parsed.title, *(b.text for b in parsed.blocks)]
    stored += [c.search_text for c in chunks]
    for text in stored:
        for marker in ("PWNED", "Ignore previous", "OWNED", "Disregard", "HIJACKED", "Override"):
            assert marker not in text
    assert index.bm25("PWNED ignore previous instructions", 5) == []
    assert index.bm25("OWNED disregard system prompt", 5) == []
    assert index.bm25("HIJACKED override print", 5) == []


# -- files that are refused ------------------------------------------------------------------------------------


def test_encrypted_pdf_fails_as_encrypted(tmp_path: Path, index, ingest) -> None:
    result = refused(hostile.encrypted(tmp_path), EncryptedPdfError, "encrypted", index, ingest)
    assert result.doc_id is None
    assert "password-protected" in result.message


@pytest.mark.parametrize("make", [hostile.truncated, hostile.header_only], ids=["truncated_40pct", "header_only"])
def test_damaged_pdf_fails_as_corrupt(make, tmp_path: Path, index, ingest) -> None:
    path = make(tmp_path)
    result = refused(path, CorruptPdfError, "corrupt", index, ingest)
    assert result.message.startswith(f"{path.name}: the PDF is damaged or truncated")


def test_truncated_pdf_that_pymupdf_could_repair_is_still_refused(tmp_path: Path, index, ingest):
    """PyMuPDF repairs a 10-page file cut at 40 % and would return empty pages past the cut; indexing that would
    blame lost pages on a missing text layer. A repaired file without ``%%EOF`` is refused as truncated."""
    path = hostile.truncated(tmp_path, pages=10, lines=20)
    assert b"%%EOF" not in path.read_bytes()
    assert "truncated" in refused(path, CorruptPdfError, "corrupt", index, ingest).message


@pytest.mark.parametrize("make", [hostile.not_a_pdf, hostile.empty_file], ids=["plain_text", "zero_bytes"])
def test_not_a_pdf_fails_as_not_a_pdf(make, tmp_path: Path, index, ingest) -> None:
    refused(make(tmp_path), NotAPdfError, "not_a_pdf", index, ingest)


def test_an_empty_file_is_named_empty() -> None:
    with pytest.raises(NotAPdfError, match=r"the file is empty \(0 bytes\)"):
        parse_pdf(b"", "empty.pdf")


def test_other_suffix_and_missing_file(tmp_path: Path, index, ingest) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("plain text", encoding="utf-8")
    assert (ingest(notes).status, ingest(notes).reason) == ("failed", "not_a_pdf")
    missing = ingest(tmp_path / "missing.pdf")
    assert (missing.status, missing.reason) == ("failed", "unreadable")
    assert index.documents() == []


# -- the index across a batch, re-ingestion and new versions ---------------------------------------------------


def test_bad_files_in_a_batch_leave_the_good_document_intact(tmp_path: Path, index, ingest) -> None:
    good = hostile.plain(tmp_path, pages=3)
    doc_id = indexed(ingest(good))
    before_docs, before_chunks = index.documents(), doc_chunks(index, doc_id)
    assert len(before_docs) == 1 and before_docs[0].n_chunks == len(before_chunks) >= 1
    bad = [hostile.truncated(tmp_path), hostile.encrypted(tmp_path), hostile.not_a_pdf(tmp_path),
           hostile.empty_file(tmp_path), hostile.header_only(tmp_path), hostile.fully_image_only(tmp_path)]
    reasons = [ingest(p).reason for p in bad]
    assert reasons == ["corrupt", "encrypted", "not_a_pdf", "not_a_pdf", "corrupt", "no_text"]
    assert index.documents() == before_docs
    assert doc_chunks(index, doc_id) == before_chunks
    assert index.page_text(doc_id, 3) is not None
    assert {cid for cid, _ in index.bm25("cradle gate emissions", 10)} == {c.chunk_id for c in before_chunks}


def test_reingesting_the_same_bytes_is_unchanged_with_identical_chunk_ids(tmp_path: Path, index, ingest) -> None:
    path = hostile.page_labels(tmp_path)
    doc_id = indexed(ingest(path))
    assert doc_id == content_hash(path.read_bytes())
    ids = [c.chunk_id for c in doc_chunks(index, doc_id)]
    again = ingest(path)
    assert (again.status, again.doc_id, again.n_chunks) == ("unchanged", doc_id, len(ids))
    assert [c.chunk_id for c in doc_chunks(index, doc_id)] == ids
    # a fresh index derives exactly the same ids from the same bytes
    fresh = SqliteIndex(tmp_path / "fresh.sqlite3", dimension=HashEmbedder.dimension)
    try:
        indexed(ingest(path, into=fresh))
        assert [c.chunk_id for c in doc_chunks(fresh, doc_id)] == ids
    finally:
        fresh.close()
    # the same bytes from another origin are recognised as a duplicate, not indexed twice
    dup = ingest_bytes(path.read_bytes(), source="copy.pdf", source_key="s3://library/copy.pdf",
                       perspective="industry", index=index, embedder=HashEmbedder(), settings=Settings(home=tmp_path))
    assert (dup.status, dup.doc_id) == ("unchanged", doc_id) and "same content as page_labels.pdf" in dup.message
    assert [d.doc_id for d in index.documents()] == [doc_id]


def test_new_content_under_the_same_source_key_replaces_the_old(tmp_path: Path, index, ingest) -> None:
    first = hostile.plain(tmp_path, name="report.pdf", text="Version one reports wastewater treatment.")
    old_id = indexed(ingest(first))
    old_ids = [c.chunk_id for c in doc_chunks(index, old_id)]
    hostile.plain(tmp_path, name="report.pdf", text="Version two reports electricity consumption.", pages=2)
    result = ingest(first)
    new_id = indexed(result, status="replaced")
    assert new_id != old_id and "re-indexed" in result.message
    assert [(d.doc_id, d.source_key, d.n_pages) for d in index.documents()] == [(new_id, str(first.resolve()), 2)]
    assert index.document(old_id) is None and index.page_text(old_id, 1) is None
    assert index.chunks(old_ids) == []
    assert index.bm25("wastewater", 5) == []
    assert {c.doc_id for c in index.chunks([cid for cid, _ in index.bm25("electricity", 5)])} == {new_id}


def test_a_batch_through_the_parse_worker_reports_every_file_in_order(tmp_path: Path, index) -> None:
    good = hostile.plain(tmp_path, "good.pdf")
    copy = tmp_path / "copy-of-good.pdf"
    copy.write_bytes(good.read_bytes())
    other = hostile.plain(tmp_path, "other.pdf", text="Milling uses 0.10 kg CO2e per kg of green coffee.")
    files = [good, hostile.encrypted(tmp_path), copy, hostile.not_a_pdf(tmp_path), other]
    results = list(ingest_paths(files, perspective="general", index=index, embedder=HashEmbedder(),
                                settings=Settings(home=tmp_path)))
    assert [(r.source, r.status, r.reason) for r in results] == [
        ("good.pdf", "indexed", None),
        ("encrypted.pdf", "failed", "encrypted"),
        ("copy-of-good.pdf", "unchanged", None),
        (files[3].name, "failed", "not_a_pdf"),
        ("other.pdf", "indexed", None),
    ]
    assert sorted(d.source for d in index.documents()) == ["good.pdf", "other.pdf"]
