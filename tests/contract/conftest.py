"""One moto server for the contract tests of the AWS adapters (S3, DynamoDB), started once per session when a test
asks for it. Clients are built against its endpoint explicitly: no ``AWS_*`` variable of the process is changed."""

from __future__ import annotations

import itertools
import socket
import uuid
from dataclasses import dataclass

import pytest

from lcabot.dev import loop as devloop
from lcabot.dev import stack as devstack
from tests.conftest import ROOT

TEMPLATE = ROOT / "template.yaml"
REGION = "us-east-1"
_names = itertools.count()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class Moto:
    """A running moto server: ``session`` builds clients against it; :meth:`bucket` and :meth:`table` make fresh,
    empty resources (a table with the shape ``template.yaml`` gives its logical id)."""

    endpoint: str

    @property
    def session(self):
        import boto3

        return boto3.session.Session(aws_access_key_id="contract", aws_secret_access_key="contract",
                                     region_name=REGION)

    def client(self, service: str, **kwargs):
        return self.session.client(service, endpoint_url=self.endpoint, **kwargs)

    def resource(self, service: str):
        return self.session.resource(service, endpoint_url=self.endpoint)

    def bucket(self) -> str:
        name = f"contract-{next(_names)}-{uuid.uuid4().hex[:8]}"
        self.client("s3").create_bucket(Bucket=name)
        return name

    def table(self, logical_id: str) -> str:
        """A new table shaped as ``logical_id`` in ``template.yaml`` (keys, TTL, ...), through
        :func:`lcabot.dev.stack.table_calls` as ``lcabot dev`` creates it."""
        template = devstack.load_template(TEMPLATE)
        resolver = devstack.Resolver(template, stack_name="contract", region=REGION,
                                     account_id=devstack.MOTO_ACCOUNT_ID)
        properties = resolver.resolve(template["Resources"][logical_id]["Properties"])
        name = f"contract-{logical_id}-{next(_names)}-{uuid.uuid4().hex[:8]}"
        create, updates = devstack.table_calls(logical_id, name, properties)
        dynamodb = self.client("dynamodb")
        dynamodb.create_table(**create)
        for operation, arguments in updates:
            getattr(dynamodb, operation)(**arguments)
        return name


@pytest.fixture(scope="session")
def moto() -> Moto:
    port = _free_port()
    server = devloop.start_moto_server(port)
    try:
        yield Moto(f"http://127.0.0.1:{port}")
    finally:
        server.stop()
