"""One index of the whole corpus per test session, built with the real parser and the real MiniLM model; each
corpus PDF is parsed once per session (:class:`ParseCache`)."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from lcabot import wiring
from lcabot.config import Settings
from lcabot.ingest import pipeline
from lcabot.ingest.pdf import ParsedDocument, parse_pdf
from lcabot.ingest.pipeline import discover_pdfs, ingest_path
from tests.conftest import CORPUS

PERSPECTIVE_DIRS = {"academic": "academic", "industry": "industry", "public": "public", "eu_funding": "eu_funding"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).parent.name == "corpus":
            item.add_marker(pytest.mark.corpus)


class ParseCache:
    """:func:`lcabot.ingest.pdf.parse_pdf` remembered by (content hash, file name) for one session: the parser is a
    pure function of those (its page limit only refuses a longer PDF), and the slowest step of the corpus tests
    (PyMuPDF's table finding: most of a minute for the PEFCR guidance), while the same PDFs are read by the ingest,
    the parsing tests, the reports and the graph build. Each call returns its own deep copy, so no caller sees
    another's changes; a failure, or a PDF above a call's page limit, is parsed again (and so raised as before)."""

    def __init__(self) -> None:
        self._parsed: dict[tuple[bytes, str], ParsedDocument] = {}

    def parse_pdf(self, data: bytes, source: str, *, max_pages: int = 2000) -> ParsedDocument:
        key = (hashlib.sha256(data).digest(), source)
        if key not in self._parsed or len(self._parsed[key].page_texts) > max_pages:
            self._parsed[key] = parse_pdf(data, source, max_pages=max_pages)  # (above the limit: raises)
        return copy.deepcopy(self._parsed[key])

    def __call__(self, path: Path) -> ParsedDocument:
        """The parse of the file at ``path``, as ``parse_pdf(path.read_bytes(), path.name)``."""
        return self.parse_pdf(path.read_bytes(), path.name)


@pytest.fixture(scope="session")
def parsed_pdf() -> ParseCache:
    return ParseCache()


@pytest.fixture(scope="package", autouse=True)
def _parse_once(parsed_pdf: ParseCache) -> Iterator[None]:
    """In the corpus tests, ingestion, reports and graph builds parse through the session's :class:`ParseCache`."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "parse_pdf", parsed_pdf.parse_pdf)
        yield


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(home=tmp_path_factory.mktemp("lcabot-home"))


@pytest.fixture(scope="session")
def embedder(settings: Settings):
    return wiring.build_embedder(settings)


@pytest.fixture(scope="session")
def ingested(settings: Settings, embedder, parsed_pdf: ParseCache) -> dict:
    """File name → the ingest result (record and chunks) of every corpus PDF, in one index."""
    index = wiring.build_index(settings)
    results = {}
    with pytest.MonkeyPatch.context() as patch:  # (a session fixture: set up before the package's ``_parse_once``)
        patch.setattr(pipeline, "parse_pdf", parsed_pdf.parse_pdf)
        for path in discover_pdfs([CORPUS]):
            perspective = PERSPECTIVE_DIRS.get(path.parent.name, "general")
            result = ingest_path(path, perspective=perspective, index=index, embedder=embedder, settings=settings)
            assert result.status == "indexed", result.message
            results[path.name] = result
    results["__index__"] = index
    return results


@pytest.fixture(scope="session")
def corpus_index(ingested):
    return ingested["__index__"]


@pytest.fixture(scope="session")
def corpus_graph(settings: Settings, ingested, embedder):
    """The knowledge graph of the whole corpus (offline extractor) in the session's local artifacts store."""
    from lcabot.graph import ontology
    from lcabot.graph.build import load, rebuild, write_fragment
    from lcabot.graph.extract import OfflineExtractor

    store = wiring.build_artifacts(settings)
    onto = ontology.load()
    for name, result in ingested.items():
        if name != "__index__":
            write_fragment(store, result.record, result.chunks, OfflineExtractor(onto), onto)
    rebuild(store, onto, embedder)
    return load(store)


@pytest.fixture(scope="session")
def answerer(settings: Settings, corpus_index, embedder, corpus_graph):
    return wiring.build_answerer(settings, index=corpus_index, embedder=embedder)


@pytest.fixture(scope="session")
def sources(corpus_index) -> dict[str, str]:
    """File name → doc id."""
    return {d.source: d.doc_id for d in corpus_index.documents()}
