"""The stack on this machine: moto server with the template's buckets, queues and tables, and a poller that
feeds SQS messages to the same Lambda handlers AWS would invoke (``lcabot dev``).

The poller builds the event exactly as the Lambda SQS event source mapping does (``Records`` with ``messageId``,
``receiptHandle``, ``body``, ``attributes.ApproximateReceiveCount``, ``eventSource: aws:sqs`` …), deletes the
records the handler did not report in ``batchItemFailures``, and leaves the others to reappear after the
visibility timeout; moto moves a message to its dead-letter queue after ``maxReceiveCount`` deliveries, as SQS does.
Imported only by ``lcabot dev`` and the tests (it needs boto3 and moto).
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3

Handler = Callable[[dict[str, Any], Any], Mapping[str, Any]]
STATE_FILE = "dev.json"  # in LCABOT_HOME: where `lcabot dev put/ask` find the running stack


@dataclass
class LambdaContext:
    """The attributes of the Lambda context object that handlers and powertools read."""

    function_name: str
    timeout_s: float = 900.0
    memory_limit_in_mb: int = 3008
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    _deadline: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        self._deadline = time.monotonic() + self.timeout_s

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:us-east-1:123456789012:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class QueuePoller:
    """Receives up to ``batch_size`` messages from one queue and invokes ``handler`` with them as a Lambda would.

    Args:
        visibility_timeout_s: how long a failed record stays invisible before its next delivery.
        timeout_s: the function's timeout, as its context's remaining time tells it.
    """

    def __init__(self, queue_url: str, handler: Handler, *, function_name: str, batch_size: int = 1,
                 visibility_timeout_s: int = 2, region: str = "us-east-1", sqs: Any = None,
                 timeout_s: float = 900.0) -> None:
        self.queue_url = queue_url
        self.timeout_s = timeout_s
        self.handler = handler
        self.function_name = function_name
        self.batch_size = batch_size
        self.visibility_timeout_s = visibility_timeout_s
        self.region = region
        self._sqs = sqs or boto3.client("sqs", region_name=region)
        attrs = self._sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]
        self.queue_arn = attrs["QueueArn"]

    def poll_once(self, wait_s: int = 0) -> tuple[int, int]:
        """One receive + invoke. Returns (records handled, records reported as failed)."""
        got = self._sqs.receive_message(
            QueueUrl=self.queue_url, MaxNumberOfMessages=self.batch_size, WaitTimeSeconds=wait_s,
            VisibilityTimeout=self.visibility_timeout_s, MessageSystemAttributeNames=["All"],
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        if not got:
            return 0, 0
        event = {"Records": [self._record(m) for m in got]}
        response = self.handler(event, LambdaContext(self.function_name, self.timeout_s)) or {}
        failed = {f["itemIdentifier"] for f in response.get("batchItemFailures", [])}
        done = [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)
                if m["MessageId"] not in failed]
        if done:
            self._sqs.delete_message_batch(QueueUrl=self.queue_url, Entries=done)
        return len(got), len(failed)

    def drain(self, *, timeout_s: float = 600.0) -> tuple[int, int]:
        """Poll until the queue has no visible or in-flight message (retries included) or ``timeout_s`` passes.
        Returns the totals of :meth:`poll_once`."""
        handled = failed = 0
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            n, f = self.poll_once(wait_s=1)
            handled, failed = handled + n, failed + f
            if n == 0 and self.depth() == 0:
                break
        return handled, failed

    def depth(self) -> int:
        """Visible plus in-flight messages."""
        attrs = self._sqs.get_queue_attributes(QueueUrl=self.queue_url, AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
        return int(attrs["ApproximateNumberOfMessages"]) + int(attrs["ApproximateNumberOfMessagesNotVisible"])

    def _record(self, m: dict[str, Any]) -> dict[str, Any]:
        return {
            "messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
            "attributes": m.get("Attributes", {}), "messageAttributes": m.get("MessageAttributes", {}),
            "md5OfBody": m["MD5OfBody"], "eventSource": "aws:sqs", "eventSourceARN": self.queue_arn,
            "awsRegion": self.region,
        }


def worker_pollers(queues: dict[str, str], region: str = "us-east-1") -> list[QueuePoller]:
    """Pollers for the three worker queues with the template's handlers and batch sizes."""
    from lambdas.answer.app import handler as answer_handler
    from lambdas.ingest.app import handler as ingest_handler
    from lambdas.report.app import handler as report_handler

    return [
        QueuePoller(queues["IngestQueue"], ingest_handler, function_name="IngestFunction", region=region),
        QueuePoller(queues["AnswerQueue"], answer_handler, function_name="AnswerFunction", batch_size=5,
                    region=region),
        QueuePoller(queues["ReportQueue"], report_handler, function_name="ReportFunction", region=region),
    ]


_DYNAMODB_LOCK = threading.Lock()


def _serialise_dynamodb() -> None:
    """DynamoDB applies a conditional write atomically; moto server runs each request in a thread of its own and
    checks a condition, then writes, with no lock, so two conditional puts racing on one item can both succeed (the
    claim that makes a Slack message act once let two of eight concurrent deliveries act on a loaded machine). Here
    DynamoDB requests run one at a time, as atomic as DynamoDB's; S3 and SQS keep their threads."""
    from moto.dynamodb.responses import DynamoHandler

    original = DynamoHandler.call_action
    if getattr(original, "serialised", False):
        return

    def call_action(self: DynamoHandler) -> Any:
        with _DYNAMODB_LOCK:
            return original(self)

    call_action.serialised = True  # type: ignore[attr-defined]
    DynamoHandler.call_action = call_action


def start_moto_server(port: int) -> Any:
    """moto server (S3, SQS, DynamoDB, Secrets Manager …) on ``127.0.0.1:port``, started, without its
    per-request access log. Returns the ``ThreadedMotoServer``; ``stop()`` ends it."""
    import logging
    import socket

    from moto.server import ThreadedMotoServer

    from lcabot.errors import ConfigurationError

    with socket.socket() as probe:  # moto's own start would wait forever on a taken port
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            raise ConfigurationError(f"port {port} on 127.0.0.1 is in use (another `lcabot dev`?); "
                                     "stop it or pass --port") from None
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    _serialise_dynamodb()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    return server


def use_endpoint(endpoint_url: str, region: str = "us-east-1") -> None:
    """Point every boto3 client of this process at ``endpoint_url`` (moto server) with dummy credentials."""
    os.environ["AWS_ENDPOINT_URL"] = endpoint_url
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "dev")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "dev")
    os.environ["AWS_DEFAULT_REGION"] = region
    os.environ["AWS_REGION"] = region


def write_state(home: Path, endpoint_url: str, env: dict[str, str]) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / STATE_FILE
    path.write_text(json.dumps({"endpoint_url": endpoint_url, "pid": os.getpid(), "env": env}, indent=2))
    return path


def read_state(home: Path) -> dict[str, Any]:
    """The running stack's endpoint and resource names.

    Raises:
        lcabot.errors.ConfigurationError: no ``lcabot dev`` has run with this ``LCABOT_HOME``.
    """
    from lcabot.errors import ConfigurationError

    try:
        state: dict[str, Any] = json.loads((home / STATE_FILE).read_text())
        return state
    except (OSError, json.JSONDecodeError):
        raise ConfigurationError(f"no local stack found in {home} (start one with `lcabot dev` first)") from None
