"""The dev server (moto, as `lcabot dev` and the stack tests run it) keeps DynamoDB's atomic conditional writes."""

from __future__ import annotations

import threading

import boto3
import pytest

from lcabot.dev import loop
from tests.stack.conftest import free_port


@pytest.fixture
def server(monkeypatch):
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    port = free_port()
    running = loop.start_moto_server(port)
    yield f"http://127.0.0.1:{port}"
    running.stop()


def test_dynamodb_requests_run_one_at_a_time_so_conditional_writes_stay_atomic(server):
    """moto checks a condition and then writes with no lock between, in a thread per request: on a loaded machine
    two of eight concurrent claims of one Slack message both won (a transaction raced 9 times in 150 here under
    load). A DynamoDB request now waits while another runs; S3 does not."""
    dynamodb = boto3.client("dynamodb", endpoint_url=server)
    s3 = boto3.client("s3", endpoint_url=server)
    dynamodb.create_table(TableName="t", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                          BillingMode="PAY_PER_REQUEST")
    done = threading.Event()

    def put() -> None:
        dynamodb.put_item(TableName="t", Item={"pk": {"S": "claim"}}, ConditionExpression="attribute_not_exists(pk)")
        done.set()

    with loop._DYNAMODB_LOCK:  # another DynamoDB request is running
        writer = threading.Thread(target=put)
        writer.start()
        assert not done.wait(1.0)  # this one waits for it
        s3.create_bucket(Bucket="not-held")  # other services are not held
    assert done.wait(10.0)
    writer.join()
    assert dynamodb.get_item(TableName="t", Key={"pk": {"S": "claim"}})["Item"] == {"pk": {"S": "claim"}}
