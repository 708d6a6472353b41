"""S3 and DynamoDB adapters of the ``ObjectStore`` and ``StatusStore`` ports, and secrets from Secrets Manager.

Clients come from boto3's default chain (``AWS_ENDPOINT_URL`` points them at moto server in ``lcabot dev`` and the
tests). Imported only by the Lambda entry points and ``lcabot dev``, never by the core.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import asdict, fields
from typing import Any

import boto3
from boto3.dynamodb.conditions import Attr
from botocore.exceptions import ClientError

from lcabot.errors import ConfigurationError, ObjectExistsError, ObjectNotFoundError
from lcabot.models import DocumentStatus
from lcabot.ports import ObjectInfo

_MISSING = ("404", "NoSuchKey", "NotFound", "NoSuchBucket")


class S3ObjectStore:
    """``ObjectStore`` over one S3 bucket. ``get``/``head`` map 404 to ``ObjectNotFoundError``/``None``."""

    def __init__(self, bucket: str, client: Any = None) -> None:
        self.bucket = bucket
        self._s3 = client or boto3.client("s3")

    def get(self, key: str) -> bytes:
        try:
            data: bytes = self._s3.get_object(Bucket=self.bucket, Key=key)["Body"].read()
            return data
        except ClientError as err:
            if err.response["Error"]["Code"] in _MISSING:
                raise ObjectNotFoundError(f"no object {key!r} in s3://{self.bucket}") from None
            raise

    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream",
            metadata: Mapping[str, str] | None = None, *, if_absent: bool = False) -> None:
        """Write ``data`` under ``key``; ``metadata`` becomes S3 user metadata (ASCII values, 2 KB in all).

        Raises:
            ObjectExistsError: ``if_absent`` and the key exists (S3 conditional write, ``If-None-Match: *``).
        """
        extra = {"IfNoneMatch": "*"} if if_absent else {}
        try:
            self._s3.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType=content_type,
                                Metadata=dict(metadata or {}), **extra)
        except ClientError as err:
            if if_absent and err.response["Error"]["Code"] in ("PreconditionFailed", "ConditionalRequestConflict"):
                raise ObjectExistsError(f"s3://{self.bucket}/{key} exists") from None
            raise

    def delete(self, key: str) -> None:
        self._s3.delete_object(Bucket=self.bucket, Key=key)

    def head(self, key: str) -> ObjectInfo | None:
        try:
            meta = self._s3.head_object(Bucket=self.bucket, Key=key)
        except ClientError as err:
            if err.response["Error"]["Code"] in _MISSING:
                return None
            raise
        return ObjectInfo(key, int(meta["ContentLength"]), meta["ETag"].strip('"'), meta.get("Metadata") or {})

    def keys(self, prefix: str = "") -> list[str]:
        pages = self._s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix)
        return sorted(o["Key"] for page in pages for o in page.get("Contents", []))


class DynamoStatusStore:
    """``StatusStore`` over a DynamoDB table whose partition key is ``source_key`` (string)."""

    def __init__(self, table: str, resource: Any = None) -> None:
        self._table = (resource or boto3.resource("dynamodb")).Table(table)

    def put(self, status: DocumentStatus) -> None:
        item = {k: v for k, v in asdict(status).items() if v is not None}
        item["pages_without_text"] = list(status.pages_without_text)
        self._table.put_item(Item=item)

    def put_if_unchanged(self, status: DocumentStatus, since: DocumentStatus) -> bool:
        """Write ``status`` only if the key's status is still ``since`` (same status, message, ETag and time): a
        status written meanwhile (the outcome) is never overwritten. ``False`` when it was not written."""
        item = {k: v for k, v in asdict(status).items() if v is not None}
        item["pages_without_text"] = list(status.pages_without_text)
        values = {":s": since.status, ":m": since.message, ":t": since.updated_at}
        if since.etag is None:  # put writes no attribute for None: "etag = ''" would never hold
            etag = "attribute_not_exists(etag)"
        else:
            etag, values[":e"] = "etag = :e", since.etag
        try:
            self._table.put_item(
                Item=item, ConditionExpression=f"#s = :s AND message = :m AND {etag} AND updated_at = :t",
                ExpressionAttributeNames={"#s": "status"}, ExpressionAttributeValues=values)
        except ClientError as err:
            if err.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            return False
        return True

    def get(self, source_key: str) -> DocumentStatus | None:
        item = self._table.get_item(Key={"source_key": source_key}, ConsistentRead=True).get("Item")
        return None if item is None else _status(item)

    def with_doc_id(self, doc_id: str) -> list[DocumentStatus]:
        """Every key whose last status names ``doc_id`` (a scan: fine for a library of thousands of documents)."""
        items, kwargs = [], {"FilterExpression": Attr("doc_id").eq(doc_id), "ConsistentRead": True}
        while True:
            page = self._table.scan(**kwargs)
            items += page.get("Items", [])
            if "LastEvaluatedKey" not in page:
                return sorted((_status(i) for i in items), key=lambda s: s.source_key)
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _status(item: dict[str, Any]) -> DocumentStatus:
    known = {f.name for f in fields(DocumentStatus)}
    values = {k: v for k, v in item.items() if k in known}
    for name in ("n_pages", "n_chunks"):
        values[name] = int(values.get(name, 0))
    values["pages_without_text"] = tuple(int(p) for p in values.get("pages_without_text", ()))
    return DocumentStatus(**values)


# SDK loggers that print what goes over the wire at DEBUG: botocore logs every response body ("Response body: …",
# for GetSecretValue the secret itself), msal and msrest the Bot Framework token exchange
_WIRE_LOGGERS = ("botocore", "boto3", "s3transfer", "urllib3", "msal", "msrest")


def quiet_wire_logging() -> None:
    """Cap the SDK wire loggers at INFO whatever the function's ``LogLevel`` (the Lambda runtime sets the root
    logger to DEBUG for ``LogLevel=DEBUG``), so no secret is ever logged: our own loggers keep their level."""
    for name in _WIRE_LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(max(logging.INFO, logger.level))


def secret_field(secret_arn: str, name: str, client: Any = None, *, required: bool = True) -> str | None:
    """One field of a JSON secret in Secrets Manager (e.g. ``api_key`` of the Anthropic secret); with
    ``required=False`` an empty or missing field gives ``None`` (the template's placeholder Anthropic key is empty,
    which means "answer offline").

    Raises:
        ConfigurationError: the secret cannot be read or is not a JSON object, or (``required``) lacks a non-empty
            ``name``. The message names the secret and field, never the value; no log at any level holds it
            (:func:`quiet_wire_logging`).
    """
    quiet_wire_logging()
    try:
        raw = (client or boto3.client("secretsmanager")).get_secret_value(SecretId=secret_arn)["SecretString"]
        value = json.loads(raw).get(name)
    except (ClientError, json.JSONDecodeError, AttributeError, KeyError) as err:
        raise ConfigurationError(f"secret {secret_arn}: cannot read field {name!r} ({type(err).__name__})") from None
    if not isinstance(value, str) or not value:
        if not required:
            return None
        raise ConfigurationError(f"secret {secret_arn}: field {name!r} is missing or empty")
    return value
