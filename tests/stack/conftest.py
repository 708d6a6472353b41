"""The serverless stack on this machine: moto server with the resources of ``template.yaml``, the OpenSearch REST
stub, and the real Lambda handlers fed by :class:`lcabot.dev.loop.QueuePoller` exactly as in ``lcabot dev``."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import socket
from functools import partial
from pathlib import Path

import pytest

from bot_handlers import platforms
from lambdas.answer import app as answer_app
from lambdas.ingest import app as ingest_app
from lambdas.report import app as report_app
from lcabot.config import Settings
from lcabot.dev import loop as devloop
from lcabot.dev import stack as devstack
from lcabot.wiring import Deps
from tests.conftest import CORPUS, ROOT
from tests.stubs.opensearch_server import OpenSearchStub

TEMPLATE = ROOT / "template.yaml"
# the corpus documents and the question the stack tests share
COFFEE = CORPUS / "studies" / "nab-maslin-2020-coffee-carbon-footprint.pdf"
CHIC = CORPUS / "perspectives" / "eu_funding" / "cordis-chic-256848-objective.pdf"
COFFEE_KEY = "library/academic/Nab & Maslin coffee (2020).pdf"
TABLE_2_QUESTION = ("In Nab & Maslin's Table 2, what are the conventional Brazil emissions for growing, milling "
                    "and exportation in kg CO2e per kg green coffee?")


USER_LIMIT, CHANNEL_LIMIT = Settings().user_rate_limit, Settings().channel_rate_limit  # the deployed limits
# the stack tests ask many questions a minute as one user (more than ten on a fast machine); only the rate-limit
# tests put the deployed limits back
GENEROUS = {"user_rate_limit": 1000, "channel_rate_limit": 1000}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
        self.settings = dataclasses.replace(Settings.from_env(), **GENEROUS)
        self.deps = self.use()

    def use(self, **changes) -> Deps:
        """New dependencies for the handlers (as a new execution environment would build them), with ``changes`` to
        the settings; the embedding model stays loaded. Clients read ``AWS_ENDPOINT_URL_*`` when built."""
        self.settings = dataclasses.replace(self.settings, **changes)
        old = getattr(self, "deps", None)
        parts = {"embedder": old.embedder} if old is not None and "embedder" in old.__dict__ else {}
        self.deps = platforms.build(self.settings, **parts)
        return self.deps

    @contextlib.contextmanager
    def using(self, **changes):
        """The handlers run with ``changes`` to the settings inside the block, as before after it."""
        before = self.settings
        try:
            yield self.use(**changes)
        finally:
            self.settings = before
            self.use()

    def poller(self, logical_id: str, handler, batch_size: int = 1) -> devloop.QueuePoller:
        return devloop.QueuePoller(self.resources.queues[logical_id], handler, function_name=logical_id,
                                   batch_size=batch_size, visibility_timeout_s=1)

    def ingest_handler(self):
        """The ingest Lambda's ``handler(event, context)`` with these dependencies."""
        return partial(ingest_app.handle, deps=self.deps)

    def ingest(self, batch_size: int = 1) -> tuple[int, int]:
        return self.poller("IngestQueue", self.ingest_handler(), batch_size).drain(timeout_s=600)

    def answer(self) -> tuple[int, int]:
        return self.poller("AnswerQueue", partial(answer_app.handle, deps=self.deps), 5).drain(timeout_s=300)

    def report(self) -> tuple[int, int]:
        return self.poller("ReportQueue", partial(report_app.handle, deps=self.deps)).drain(timeout_s=600)

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
        yield Stack(endpoint, resources, home, opensearch)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        opensearch.stop()
        server.stop()
