"""The serverless stack on this machine: moto server with the resources of ``template.yaml``, the OpenSearch REST
stub, and the real Lambda handlers fed by :class:`lcabot.dev.loop.QueuePoller` exactly as in ``lcabot dev``."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from bot_handlers import state as bot_state
from lambdas import runtime
from lambdas.answer import app as answer_app
from lambdas.ingest import app as ingest_app
from lambdas.report import app as report_app
from lcabot.dev import loop as devloop
from lcabot.dev import stack as devstack
from tests.conftest import CORPUS, ROOT
from tests.stubs.opensearch_server import OpenSearchStub

TEMPLATE = ROOT / "template.yaml"
# the corpus documents and the question the stack tests share
COFFEE = CORPUS / "studies" / "nab-maslin-2020-coffee-carbon-footprint.pdf"
CHIC = CORPUS / "perspectives" / "eu_funding" / "cordis-chic-256848-objective.pdf"
COFFEE_KEY = "library/academic/Nab & Maslin coffee (2020).pdf"
TABLE_2_QUESTION = ("In Nab & Maslin's Table 2, what are the conventional Brazil emissions for growing, milling "
                    "and exportation in kg CO2e per kg green coffee?")


USER_LIMIT, CHANNEL_LIMIT = bot_state.USER_LIMIT, bot_state.CHANNEL_LIMIT  # the deployed limits


@pytest.fixture(autouse=True)
def generous_rate_limits(monkeypatch):
    """The stack tests ask many questions a minute as one user (more than ten on a fast machine); only the
    rate-limit test puts the deployed limits back."""
    monkeypatch.setattr(bot_state, "USER_LIMIT", 1000)
    monkeypatch.setattr(bot_state, "CHANNEL_LIMIT", 1000)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def reset_handlers() -> None:
    """Forget what the handlers built at 'cold start' so the next invocation reads the environment again."""
    for cached in (runtime.settings, runtime.idempotency, ingest_app.library, ingest_app._idempotent_apply,
                   ingest_app.status_store, ingest_app.documents,
                   answer_app.answerer, report_app.embedder):
        cached.cache_clear()
    answer_app.worker.reset()
    report_app.worker.reset()


class Stack:
    def __init__(self, endpoint: str, resources: devstack.StackResources, home: Path, opensearch: OpenSearchStub):
        import boto3

        self.endpoint = endpoint
        self.resources = resources
        self.env = resources.env()
        self.home = home
        self.opensearch = opensearch
        self.s3 = boto3.client("s3")
        self.sqs = boto3.client("sqs")
        self.dynamodb = boto3.resource("dynamodb")
        self.library_bucket = self.env["LCABOT_LIBRARY_BUCKET"]
        self.artifacts_bucket = self.env["LCABOT_ARTIFACTS_BUCKET"]

    def poller(self, logical_id: str, handler, batch_size: int = 1) -> devloop.QueuePoller:
        return devloop.QueuePoller(self.resources.queues[logical_id], handler, function_name=logical_id,
                                   batch_size=batch_size, visibility_timeout_s=1)

    def ingest(self, batch_size: int = 1) -> tuple[int, int]:
        return self.poller("IngestQueue", ingest_app.handler, batch_size).drain(timeout_s=600)

    def answer(self) -> tuple[int, int]:
        return self.poller("AnswerQueue", answer_app.handler, 5).drain(timeout_s=300)

    def report(self) -> tuple[int, int]:
        return self.poller("ReportQueue", report_app.handler).drain(timeout_s=600)

    def put(self, key: str, path_or_bytes: Path | bytes) -> str:
        body = path_or_bytes.read_bytes() if isinstance(path_or_bytes, Path) else path_or_bytes
        return self.s3.put_object(Bucket=self.library_bucket, Key=key, Body=body)["ETag"].strip('"')

    def status(self, key: str):
        from lcabot.adapters.aws import DynamoStatusStore

        return DynamoStatusStore(self.env["LCABOT_STATUS_TABLE"]).get(key)

    def dlq_depth(self, logical_id: str) -> int:
        attrs = self.sqs.get_queue_attributes(QueueUrl=self.resources.queues[logical_id],
                                              AttributeNames=["ApproximateNumberOfMessages"])["Attributes"]
        return int(attrs["ApproximateNumberOfMessages"])


@pytest.fixture(scope="package")
def stack(tmp_path_factory: pytest.TempPathFactory):
    saved = dict(os.environ)
    port = free_port()
    server = devloop.start_moto_server(port)
    opensearch = OpenSearchStub()
    opensearch.start()
    endpoint = f"http://127.0.0.1:{port}"
    home = tmp_path_factory.mktemp("stack-home")
    try:
        devloop.use_endpoint(endpoint)
        resources = devstack.create_stack(TEMPLATE, endpoint_url=endpoint)
        os.environ.update(resources.env())
        os.environ.update({"LCABOT_HOME": str(home), "LCABOT_OPENSEARCH_URL": opensearch.url,
                           "LCABOT_OPENSEARCH_INDEX": "lcabot-chunks", "POWERTOOLS_LOG_LEVEL": "WARNING"})
        os.environ.pop("ANTHROPIC_API_KEY", None)
        os.environ.pop("LCABOT_OPENSEARCH_SERVICE", None)
        reset_handlers()
        yield Stack(endpoint, resources, home, opensearch)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        reset_handlers()
        opensearch.stop()
        server.stop()
