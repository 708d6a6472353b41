"""The one place where implementations of the ports are chosen: the embedded defaults, or OpenSearch when
``LCABOT_OPENSEARCH_URL`` is set. Imports are lazy so that light entry points never load torch or cloud SDKs."""

from __future__ import annotations

from lcabot.config import Settings


def build_index(settings: Settings, dimension: int | None = None, create: bool = True):  # -> SearchIndex
    """OpenSearch when ``settings.opensearch_url`` is set, else the SQLite file under ``settings.home`` (with
    ``create=False``, for reading: not made when it does not exist)."""
    if settings.opensearch_url:
        from lcabot.adapters.opensearch import OpenSearchIndex

        return OpenSearchIndex(settings.opensearch_url, dimension, index_name=settings.opensearch_index,
                               service=settings.opensearch_service, region=settings.aws_region)
    from lcabot.adapters.sqlite_index import SqliteIndex

    return SqliteIndex(settings.index_path, dimension, create)


def build_embedder(settings: Settings):  # -> SentenceTransformerEmbedder
    from lcabot.adapters.embedder import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(settings.embedding_model)


def build_artifacts(settings: Settings):  # -> ObjectStore
    """The local artifacts folder (graph fragments and the merged graph) under ``settings.home``."""
    from lcabot.adapters.local_objects import LocalObjectStore

    return LocalObjectStore(settings.artifacts_path)


def build_graph_extractor(settings: Settings):  # -> OfflineExtractor | ClaudeExtractor
    """Claude (``settings.graph_model``) when ``ANTHROPIC_API_KEY`` is set, otherwise the alias-map extractor."""
    from lcabot.graph import ontology
    from lcabot.graph.extract import OfflineExtractor

    if settings.anthropic_api_key:
        from lcabot.answer.generators.claude import MessagesClient
        from lcabot.graph.claude_extract import ClaudeExtractor

        api = MessagesClient(settings.anthropic_api_key, settings.graph_model, settings.llm_timeout_s,
                             max_tokens=4000)
        return ClaudeExtractor(api, ontology.load())
    return OfflineExtractor(ontology.load())


def build_answerer(settings: Settings, index=None, embedder=None, artifacts=None):  # -> Answerer
    """Claude when ``ANTHROPIC_API_KEY`` is set, otherwise the offline extractive generator; the knowledge graph
    from ``artifacts`` (default: the local artifacts folder)."""
    from lcabot.answer.answerer import Answerer
    from lcabot.answer.generators.extractive import ExtractiveGenerator
    from lcabot.graph import ontology
    from lcabot.graph.query import GraphSource
    from lcabot.search.retrieval import HybridRetriever

    embedder = embedder or build_embedder(settings)
    index = index or build_index(settings, create=False)  # answering only reads
    extractive = ExtractiveGenerator(embedder)
    generator = extractive
    if settings.anthropic_api_key:
        from lcabot.answer.generators.claude import ClaudeGenerator

        generator = ClaudeGenerator(settings.anthropic_api_key, settings.anthropic_model, settings.llm_timeout_s,
                                    prompt_tokens=settings.prompt_tokens)
    graph = GraphSource(artifacts or build_artifacts(settings), ontology.load(), embedder)
    return Answerer(index, HybridRetriever(index, embedder), generator, extractive, settings.retrieval_mode, graph)
