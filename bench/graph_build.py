"""Knowledge-graph build time and figures on an existing index (offline extractor): extraction per document
(parse, chunk, extract, write the fragment), the merge with entity resolution, and the graph's statistics.
Prints figures, asserts nothing.

Run: ``.venv/bin/python bench/graph_build.py [--home .lcabot]``

The graph is built into a scratch artifacts folder (``--out``, default ``bench/out/graph``), so the home's own
graph is untouched. The index is only read; document files are re-parsed from their paths.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import time
from pathlib import Path

from lcabot import wiring
from lcabot.adapters.local_objects import LocalObjectStore
from lcabot.config import Settings
from lcabot.graph import ontology
from lcabot.graph.build import MERGED_KEY, load, rebuild, stats, write_fragment
from lcabot.graph.extract import OfflineExtractor
from lcabot.ingest.chunking import chunk_document
from lcabot.ingest.pdf import ParsedDocument
from lcabot.ingest.pipeline import parse_document

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, default=REPO / ".lcabot")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "graph")
    args = parser.parse_args()
    settings = dataclasses.replace(Settings.from_env(), home=args.home, anthropic_api_key=None)
    index = wiring.build_index(settings)
    documents = index.documents()
    if not documents:
        raise SystemExit(f"no documents in {args.home}; run `make demo` first")
    shutil.rmtree(args.out, ignore_errors=True)
    store = LocalObjectStore(args.out)
    onto = ontology.load()
    extractor = OfflineExtractor(onto)
    parse_s = extract_s = 0.0
    chunks_total = 0
    for record in documents:
        path = Path(record.source_key)
        if not path.is_file():
            print(f"skipped {record.source}: {path} is gone")
            continue
        t0 = time.perf_counter()
        parsed = parse_document(path.read_bytes(), record.source, settings.max_pdf_mb, settings.max_pages)
        if not isinstance(parsed, ParsedDocument):
            continue
        chunks = chunk_document(parsed, record.doc_id, record.source)
        t1 = time.perf_counter()
        write_fragment(store, record, chunks, extractor, onto)
        t2 = time.perf_counter()
        parse_s += t1 - t0
        extract_s += t2 - t1
        chunks_total += len(chunks)
    t0 = time.perf_counter()
    embedder = wiring.build_embedder(settings)
    embedder.embed(["warm-up"])
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = rebuild(store, onto, embedder)
    merge_s = time.perf_counter() - t0
    figures = stats(load(store))
    size_kb = len(store.get(MERGED_KEY)) / 1024
    print(f"documents: {len(documents)}, chunks: {chunks_total}")
    print(f"parse + chunk: {parse_s:.1f} s; offline extraction + fragments: {extract_s:.1f} s "
          f"({chunks_total / max(extract_s, 1e-9):.0f} chunks/s)")
    print(f"merge + entity resolution + write: {merge_s:.1f} s ({result.rounds} round); model load {load_s:.1f} s")
    print(f"artifact: {size_kb:.0f} KiB at {args.out / MERGED_KEY}")
    print(json.dumps(figures, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
