"""One index of the whole corpus per test session, built with the real parser and the real MiniLM model."""

from __future__ import annotations

from pathlib import Path

import pytest

from lcabot import wiring
from lcabot.config import Settings
from lcabot.ingest.pipeline import discover_pdfs, ingest_path
from tests.conftest import CORPUS

PERSPECTIVE_DIRS = {"academic": "academic", "industry": "industry", "public": "public", "eu_funding": "eu_funding"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).parent.name == "corpus":
            item.add_marker(pytest.mark.corpus)


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(home=tmp_path_factory.mktemp("lcabot-home"))


@pytest.fixture(scope="session")
def embedder(settings: Settings):
    return wiring.build_embedder(settings)


@pytest.fixture(scope="session")
def ingested(settings: Settings, embedder) -> dict:
    """File name → the ingest result (record and chunks) of every corpus PDF, in one index."""
    index = wiring.build_index(settings)
    results = {}
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
