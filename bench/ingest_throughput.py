"""Ingest throughput: pages/s and chunks/s for a corpus folder, end to end (model load included), through the same
code as ``lcabot ingest`` (``lcabot.ingest.pipeline.ingest_paths``, which parses in a worker process while
embedding, with the ports from ``lcabot.wiring``). Prints figures, asserts nothing.

Run: ``.venv/bin/python bench/ingest_throughput.py [CORPUS] [--home DIR] [--skip-parse]``

CORPUS defaults to ``../shared/corpus``; its ``perspectives/<name>/`` folders get their perspective, everything else
``general`` (as ``make demo`` does). The index goes to a fresh temporary directory, deleted afterwards, unless
``--home DIR`` names a directory without an index, which is kept (``make bench`` reuses it for the query benches).
A second pass times parsing alone (PyMuPDF + structure, then chunking) in this process, for comparison.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from lcabot import wiring
from lcabot.config import PERSPECTIVES, Settings
from lcabot.ingest.pipeline import discover_pdfs, ingest_paths

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"


class TimedEmbedder:
    """Passes calls to the real embedder and adds up the time spent in ``embed``."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.seconds = 0.0

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts, **kwargs):
        start = time.perf_counter()
        try:
            return self.inner.embed(texts, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start


def perspective_of(path: Path, corpus: Path) -> str:
    """``perspectives/<name>/…`` gives ``<name>``; anything else is ``general``."""
    parts = path.relative_to(corpus).parts
    if len(parts) > 2 and parts[0] == "perspectives" and parts[1] in PERSPECTIVES:
        return parts[1]
    return "general"


def run_ingest(files: list[Path], corpus: Path, settings: Settings) -> dict[str, float]:
    """One ``ingest_paths`` call per perspective, as ``lcabot ingest … --perspective P`` (what ``make demo`` runs)."""
    start = time.perf_counter()
    embedder = TimedEmbedder(wiring.build_embedder(settings))
    index = wiring.build_index(settings)
    load_start = time.perf_counter()
    _ = embedder.dimension  # import + model load, which the first embed call would otherwise pay
    load_s = time.perf_counter() - load_start
    groups: dict[str, list[Path]] = {}
    for path in files:
        groups.setdefault(perspective_of(path, corpus), []).append(path)
    pages = chunks = failed = 0
    for perspective, paths in groups.items():
        last = time.perf_counter()
        for result in ingest_paths(paths, perspective=perspective, index=index, embedder=embedder,
                                   settings=settings):
            now = time.perf_counter()
            print(f"  {now - last:6.1f} s  {result.status:>9}  {result.n_pages:4d} pages {result.n_chunks:5d} chunks  "
                  f"{perspective:<10} {result.source}", file=sys.stderr, flush=True)
            last = now
            if result.status == "failed":
                failed += 1
                print(f"  failed: {result.message}", file=sys.stderr)
            pages += result.n_pages
            chunks += result.n_chunks
    total = time.perf_counter() - start
    return {"pages": pages, "chunks": chunks, "failed": failed, "total_s": total, "load_s": load_s,
            "embed_s": embedder.seconds}


def run_parse_only(files: list[Path], settings: Settings) -> tuple[float, float]:
    """Seconds spent parsing all files in this process, and parsing + chunking (no embedding, no index)."""
    from lcabot.errors import DocumentError
    from lcabot.ingest.chunking import chunk_document
    from lcabot.ingest.pipeline import content_hash, parse_document

    parse_s = chunk_s = 0.0
    for path in files:
        data = path.read_bytes()
        start = time.perf_counter()
        parsed = parse_document(data, path.name, settings.max_pdf_mb, settings.max_pages)
        parse_s += time.perf_counter() - start
        if isinstance(parsed, DocumentError):  # reported by the ingest pass
            continue
        start = time.perf_counter()
        chunk_document(parsed, content_hash(data), path.name)
        chunk_s += time.perf_counter() - start
    return parse_s, parse_s + chunk_s


def rate(n: float, seconds: float) -> str:
    return f"{n / seconds:.1f}" if seconds > 0 else "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Ingest throughput benchmark.")
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--home", type=Path, default=None, help="keep the index here (must not hold one yet)")
    parser.add_argument("--skip-parse", action="store_true", help="skip the parse-only pass")
    args = parser.parse_args(argv)
    corpus = args.corpus.resolve()
    files = discover_pdfs([corpus])
    if not corpus.is_dir() or not files:
        print(f"no PDFs under {corpus}", file=sys.stderr)
        return 2
    if args.home is not None and (args.home / "index.sqlite3").exists():
        print(f"{args.home} already holds an index; the benchmark needs a fresh one", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="lcabot-bench-") as tmp:
        home = args.home or Path(tmp)
        settings = dataclasses.replace(Settings.from_env(), home=home)
        print(f"corpus: {corpus} ({len(files)} PDFs, {sum(f.stat().st_size for f in files) / 1048576:.1f} MiB)")
        print(f"index:  {home / 'index.sqlite3'}{'' if args.home else ' (temporary)'}")
        r = run_ingest(files, corpus, settings)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    total = r["total_s"]
    print(f"pages: {r['pages']}  chunks: {r['chunks']}  failed files: {r['failed']}")
    print(f"end to end (model load included): {total:.1f} s -> {rate(r['pages'], total)} pages/s, "
          f"{rate(r['chunks'], total)} chunks/s")
    print(f"  model import + load: {r['load_s']:.1f} s; embedding: {r['embed_s']:.1f} s "
          f"({rate(r['chunks'], r['embed_s'])} chunks/s); the rest (chunking, index writes, waiting for the "
          f"parse worker): {total - r['load_s'] - r['embed_s']:.1f} s")
    warm = total - r["load_s"]
    print(f"  without model load: {rate(r['pages'], warm)} pages/s, {rate(r['chunks'], warm)} chunks/s")
    if not args.skip_parse:
        parse_s, parse_chunk_s = run_parse_only(files, settings)
        print(f"parse only: {parse_s:.1f} s ({rate(r['pages'], parse_s)} pages/s); "
              f"parse + chunk: {parse_chunk_s:.1f} s ({rate(r['pages'], parse_chunk_s)} pages/s)")
    # The parse worker is left out: RUSAGE_CHILDREN would report this process's size when it was started.
    print(f"peak RSS of this process during ingest: {rss_mb:.0f} MB; {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
