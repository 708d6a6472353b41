"""Recorded event JSON (API Gateway HTTP API payload 2.0, SQS, S3 notifications), loaded as powertools' tests do:
:func:`load_event` gives a fresh copy that a test then fills in (body, headers, keys)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def load_event(name: str) -> dict[str, Any]:
    """The event ``tests/events/<name>.json`` as a new dict (changing it never changes the next test's copy).

    Raises:
        FileNotFoundError: there is no such recorded event.
    """
    return json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))


def http_post(path: str, body: str | None, headers: dict[str, str] | None = None, **fields: Any) -> dict[str, Any]:
    """The recorded HTTP API (payload 2.0) ``POST`` event routed to ``path`` (``/slack/events``,
    ``/api/messages``), carrying ``body`` with ``headers`` added to the recorded ones (``fields``: top-level
    fields to replace, e.g. ``isBase64Encoded``)."""
    event = load_event("apigw_http_v2_post")
    event["routeKey"] = event["requestContext"]["routeKey"] = f"POST {path}"
    event["rawPath"] = event["requestContext"]["http"]["path"] = path
    event["headers"].update({"content-length": str(len((body or "").encode())), **(headers or {})})
    event["body"] = body
    return {**event, **fields}


def sqs_event(*bodies: str, receive_count: int = 1) -> dict[str, Any]:
    """The recorded SQS event with one record per body (fresh message ids), delivered ``receive_count`` times."""
    records = []
    for body in bodies:
        record = load_event("sqs_one_record")["Records"][0]
        record.update({"messageId": str(uuid.uuid4()), "receiptHandle": str(uuid.uuid4()), "body": body})
        record["attributes"]["ApproximateReceiveCount"] = str(receive_count)
        records.append(record)
    return {"Records": records}


def s3_notification(key: str, *, name: str = "ObjectCreated:Put", bucket: str = "lcabot-library",
                    etag: str | None = "abc123", sequencer: str = "0065A1B2C3", size: int = 1234) -> str:
    """The recorded S3 event notification (as the ingest queue's message body) for ``key`` (already URL-encoded as
    S3 sends it); ``etag=None`` leaves it out, as S3 does for a removal."""
    event = load_event("s3_object_created")
    record = event["Records"][0]
    record["eventName"] = name
    record["s3"]["bucket"].update({"name": bucket, "arn": f"arn:aws:s3:::{bucket}"})
    record["s3"]["object"] = {"key": key, "size": size, "sequencer": sequencer, **({"eTag": etag} if etag else {})}
    return json.dumps(event)
