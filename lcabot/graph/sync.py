"""A local library's knowledge graph kept in step with its index (``lcabot ingest``, ``remove``, ``graph build``):
fragments extracted for documents that lack a current one, removed for documents no longer indexed, then merged."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lcabot.errors import ObjectNotFoundError
from lcabot.graph import ontology
from lcabot.graph.build import rebuild, valid_fragment, write_fragment
from lcabot.graph.fragments import FORMAT, FRAGMENT_PREFIX, fragment_key
from lcabot.ingest.chunking import chunk_document
from lcabot.ingest.pdf import ParsedDocument
from lcabot.ingest.pipeline import parse_document

if TYPE_CHECKING:
    from lcabot.graph.extract import GraphExtractor
    from lcabot.ports import Embedder, ObjectStore, SearchIndex


def sync_fragments(index: SearchIndex, store: ObjectStore, extractor: GraphExtractor, embedder: Embedder, *,
                   max_pdf_mb: float, max_pages: int, progress: Callable[[str], object] = print) -> dict[str, Any]:
    """Make the artifacts ``store`` match a local library's ``index``: a fragment for every indexed document that
    lacks a current one (re-parsing its file, within the ingest limits), none for documents no longer indexed, then
    the merged graph. A stopped build resumes where it stopped: documents whose fragment is current are skipped.

    Returns:
        ``{"extracted", "removed", "skipped_missing_file", "seconds", "rounds"}``.
    """
    started = time.perf_counter()
    onto = ontology.load()
    documents = index.documents()
    wanted = {fragment_key(d.source_key): d for d in documents}
    extracted = missing = 0
    for key, record in wanted.items():
        if _current(store, key, record.doc_id):
            continue
        path = Path(record.source_key)
        if not path.is_file():
            missing += 1
            progress(f"skipped {record.source}: its file {path} is gone (remove it with `lcabot remove`)")
            continue
        parsed = parse_document(path.read_bytes(), record.source, max_pdf_mb, max_pages)
        if isinstance(parsed, ParsedDocument):
            write_fragment(store, record, chunk_document(parsed, record.doc_id, record.source), extractor, onto)
            extracted += 1
            progress(f"graph fragment of {record.source}")
    removed = 0
    indexed = {fragment_key(d.source_key) for d in index.documents()}  # now: an ingest may have run meanwhile
    for key in store.keys(FRAGMENT_PREFIX):
        if key not in indexed:
            store.delete(key)
            removed += 1
    result = rebuild(store, onto, embedder)
    return {"extracted": extracted, "removed": removed, "skipped_missing_file": missing,
            "seconds": time.perf_counter() - started, "rounds": result.rounds}


def _current(store: ObjectStore, key: str, doc_id: str) -> bool:
    try:
        fragment = json.loads(store.get(key))
    except (ObjectNotFoundError, ValueError):  # missing, not JSON, not UTF-8: extract again
        return False
    return valid_fragment(fragment) and fragment["doc_id"] == doc_id and fragment["format"] == FORMAT
