"""The one place where implementations of the ports are chosen (the composition root): the embedded defaults, or
the deployment's S3 buckets, DynamoDB tables, SQS queues and OpenSearch when :class:`lcabot.config.Settings` names
them. Imports are lazy so that light entry points never load torch or cloud SDKs.

Every entry point builds one :class:`Deps` (``build(settings)``) and passes it down: the Lambda and chat handlers
once per execution environment (``handler(event, context)`` → ``handle(event, context, deps)``), the CLI once per
command; tests pass their own.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar, cast

from lcabot.config import Settings
from lcabot.errors import ConfigurationError

if TYPE_CHECKING:  # the implementations are imported where they are built (torch, boto3 and the like load late)
    from lcabot.adapters.aws import S3ObjectStore
    from lcabot.adapters.conversations import ConversationState
    from lcabot.adapters.embedder import SentenceTransformerEmbedder
    from lcabot.adapters.local_objects import LocalObjectStore
    from lcabot.adapters.queues import JobQueues
    from lcabot.answer.answerer import Answerer
    from lcabot.graph.extract import GraphExtractor
    from lcabot.ingest.library import Library
    from lcabot.ports import Embedder, Generator, ObjectStore, PlatformClient, SearchIndex, StatusStore

T = TypeVar("T")


class Deps:
    """The dependencies of one process, each built on first use and kept: the index and embedder, the object
    stores, the status and conversation stores, the job queues, the platform clients, the answerer and the graph
    extractor. Secrets named by ARN are read from Secrets Manager only when a part needing them is built.

    Args:
        settings: what to build (:meth:`lcabot.config.Settings.from_env` in the deployables).
        platforms: ``PlatformClient`` factories by platform name (``slack``, ``teams``), each given these
            ``Deps``; the ``local`` outbox under ``settings.home`` is always there. The chat adapters provide
            theirs (``bot_handlers.platforms.PLATFORMS``): the core never imports them.
        parts: parts given rather than built, by name (``embedder=…``, ``index=…``): an embedder already loaded,
            a test's fakes.

    Raises:
        TypeError: a part is not one of these dependencies.
        ConfigurationError: (on first use of a part) the setting it needs is not set (e.g. ``LCABOT_STATUS_TABLE``).
    """

    def __init__(self, settings: Settings, platforms: Mapping[str, Callable[[Deps], PlatformClient]] | None = None,
                 **parts: Any) -> None:
        self.settings = settings
        self._platforms = dict(platforms or {})
        self._built: dict[str, Any] = {}
        self._lock = threading.RLock()  # a part may be built of other parts
        for name, part in parts.items():
            if not isinstance(getattr(type(self), name, None), cached_property):
                raise TypeError(f"{name!r} is not a part of Deps")
            self.__dict__[name] = part

    def once(self, name: str, build: Callable[[], T]) -> T:
        """``build()`` the first time ``name`` is asked for, the same object after (an entry point's own parts,
        such as its idempotency layer, live as long as these ``Deps``)."""
        with self._lock:
            if name not in self._built:
                self._built[name] = build()
            return cast(T, self._built[name])

    def required(self, value: str | None, env: str) -> str:
        if not value:
            raise ConfigurationError(f"{env} is not set (the function's environment in template.yaml sets it)")
        return value

    # ---------------------------------------------------------------- secrets
    def secret(self, arn: str, name: str, *, required: bool = True) -> str | None:
        """Field ``name`` of the JSON secret ``arn`` (Secrets Manager), read once."""
        from lcabot.adapters.aws import secret_field

        return self.once(f"secret:{arn}:{name}", lambda: secret_field(arn, name, required=required))

    @cached_property
    def model_settings(self) -> Settings:
        """The settings with the Anthropic key read from ``anthropic_secret_arn`` when it is not set directly (an
        empty ``api_key`` there means the offline answerer)."""
        s = self.settings
        if s.anthropic_secret_arn and not s.anthropic_api_key:
            return dataclasses.replace(s, anthropic_api_key=self.secret(s.anthropic_secret_arn, "api_key",
                                                                        required=False))
        return s

    # ---------------------------------------------------------------- the library
    @cached_property
    def embedder(self) -> Embedder:
        return build_embedder(self.settings)

    @cached_property
    def index(self) -> SearchIndex:
        """The library index for writing (made when missing, with the embedder's dimension)."""
        return build_index(self.settings, self.embedder.dimension)

    @cached_property
    def search_index(self) -> SearchIndex:
        """The library index for reading: never made (a library never made reads as empty) and opened without
        loading the embedding model."""
        if "index" in self.__dict__:
            return self.index
        return build_index(self.settings, create=False)

    def bucket(self, name: str) -> S3ObjectStore:
        """The S3 bucket ``name`` as an ``ObjectStore`` (a job's file names its own bucket)."""
        from lcabot.adapters.aws import S3ObjectStore

        return self.once(f"bucket:{name}", lambda: S3ObjectStore(name))

    @cached_property
    def documents(self) -> S3ObjectStore:
        """The library bucket (``library/<perspective>/<name>.pdf``)."""
        return self.bucket(self.required(self.settings.library_bucket, "LCABOT_LIBRARY_BUCKET"))

    @cached_property
    def artifacts(self) -> ObjectStore:
        """The artifacts bucket (graph fragments and the merged graph), else the local artifacts folder."""
        if self.settings.artifacts_bucket:
            return self.bucket(self.settings.artifacts_bucket)
        return build_artifacts(self.settings)

    @cached_property
    def status(self) -> StatusStore:
        from lcabot.adapters.aws import DynamoStatusStore

        return DynamoStatusStore(self.required(self.settings.status_table, "LCABOT_STATUS_TABLE"))

    @cached_property
    def library(self) -> Library:
        """The ingest use case: on the library bucket with its status table when the settings name them (the ingest
        Lambda), else on local files (``lcabot ingest``)."""
        from lcabot.ingest.library import Library

        s = self.settings
        return Library(documents=self.documents if s.library_bucket else None, artifacts=self.artifacts,
                       index=self.index, embedder=self.embedder, status=self.status if s.status_table else None,
                       settings=self.model_settings, extractor=self.graph_extractor)

    @cached_property
    def graph_extractor(self) -> GraphExtractor:
        return build_graph_extractor(self.model_settings)

    @cached_property
    def answerer(self) -> Answerer:
        return build_answerer(self.model_settings, self.search_index, self.embedder, self.artifacts)

    # ---------------------------------------------------------------- chat
    @cached_property
    def conversations(self) -> ConversationState:
        from lcabot.adapters.conversations import ConversationState

        s = self.settings
        return ConversationState(self.required(s.conversations_table, "LCABOT_CONVERSATIONS_TABLE"),
                                 user_limit=s.user_rate_limit, channel_limit=s.channel_rate_limit)

    @cached_property
    def queues(self) -> JobQueues:
        from lcabot.adapters.queues import JobQueues

        s = self.settings
        return JobQueues(self.required(s.answer_queue_url, "LCABOT_ANSWER_QUEUE_URL"),
                         self.required(s.report_queue_url, "LCABOT_REPORT_QUEUE_URL"))

    def platform(self, name: str) -> PlatformClient:
        """The client delivering into a ``name`` conversation (``slack``, ``teams``; anything else: the local
        outbox under ``settings.home``)."""
        if name in self._platforms:
            return self.once(f"platform:{name}", lambda: self._platforms[name](self))
        from lcabot.adapters.outbox import LocalOutbox

        return self.once("platform:local", lambda: LocalOutbox(self.settings.home / "outbox"))


def build(settings: Settings, platforms: Mapping[str, Callable[[Deps], PlatformClient]] | None = None,
          **parts: Any) -> Deps:
    """The dependencies for ``settings`` (nothing is built until first used); see :class:`Deps`."""
    return Deps(settings, platforms, **parts)


def build_index(settings: Settings, dimension: int | None = None, create: bool = True) -> SearchIndex:
    """OpenSearch when ``settings.opensearch_url`` is set, else the SQLite file under ``settings.home`` (with
    ``create=False``, for reading: not made when it does not exist)."""
    if settings.opensearch_url:
        from lcabot.adapters.opensearch import OpenSearchIndex

        return OpenSearchIndex(settings.opensearch_url, dimension, index_name=settings.opensearch_index,
                               service=settings.opensearch_service, region=settings.aws_region)
    from lcabot.adapters.sqlite_index import SqliteIndex

    return SqliteIndex(settings.index_path, dimension, create)


def build_embedder(settings: Settings) -> SentenceTransformerEmbedder:
    from lcabot.adapters.embedder import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(settings.embedding_model)


def build_artifacts(settings: Settings) -> LocalObjectStore:
    """The local artifacts folder (graph fragments and the merged graph) under ``settings.home``."""
    from lcabot.adapters.local_objects import LocalObjectStore

    return LocalObjectStore(settings.artifacts_path)


def build_graph_extractor(settings: Settings) -> GraphExtractor:
    """Claude (``settings.graph_model``) when ``ANTHROPIC_API_KEY`` is set, otherwise the alias-map extractor."""
    from lcabot.graph import ontology
    from lcabot.graph.extract import OfflineExtractor

    if settings.anthropic_api_key:
        from lcabot.adapters.anthropic_client import MessagesClient
        from lcabot.graph.claude_extract import ClaudeExtractor

        api = MessagesClient(settings.anthropic_api_key, settings.graph_model, settings.llm_timeout_s,
                             max_tokens=4000)
        return ClaudeExtractor(api, ontology.load())
    return OfflineExtractor(ontology.load())


def build_answerer(settings: Settings, index: SearchIndex | None = None, embedder: Embedder | None = None,
                   artifacts: ObjectStore | None = None) -> Answerer:
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
    generator: Generator = extractive
    if settings.anthropic_api_key:
        from lcabot.answer.generators.claude import ClaudeGenerator

        generator = ClaudeGenerator(settings.anthropic_api_key, settings.anthropic_model, settings.llm_timeout_s,
                                    prompt_tokens=settings.prompt_tokens)
    graph = GraphSource(artifacts or build_artifacts(settings), ontology.load(), embedder)
    return Answerer(index, HybridRetriever(index, embedder), generator, extractive, settings.retrieval_mode, graph)
