"""The Slack webhook's edge: what a request must be before Bolt reads it. The signature is checked before anything
is parsed; then the body must be one Bolt can route (fields of the types Slack sends, ids of sane length); a slash
command holding the word "payload" is re-signed so Bolt does not take it for an interaction."""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from slack_sdk.signature import SignatureVerifier

from bot_handlers.keys import storable

logger = logging.getLogger("lcabot.slack")


class Refused(Exception):
    """A request refused before Bolt sees it; ``response`` is the HTTP response to return."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.response = {"statusCode": status, "body": reason, "headers": {}}


# the type each field Bolt's routing and our listeners read must have where it is present (Events API envelope and
# event, slash command form, interactivity payload and its view); anything else is a malformed request
_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    **dict.fromkeys(("type", "team_id", "api_app_id", "token", "event_id", "user_id", "channel_id", "command",
                     "text", "trigger_id", "callback_id", "id", "ts", "thread_ts", "channel", "user", "subtype",
                     "channel_type", "bot_id", "private_metadata", "action_id", "value", "enterprise_id"),
                    (str, type(None))),
    **dict.fromkeys(("event", "view", "state", "values", "container", "message", "enterprise"), (dict, type(None))),
    **dict.fromkeys(("actions", "authorizations", "files"), list),
}
_OBJECTS = ("event", "team", "user", "channel", "view", "state", "container", "message", "enterprise")
# fields holding a Slack id or timestamp (a DynamoDB key part: at most 2,048 bytes there); Slack's are short
_ID_FIELDS = ("team_id", "api_app_id", "event_id", "user_id", "channel_id", "trigger_id", "id", "ts", "thread_ts",
              "channel", "user", "team", "enterprise_id")
MAX_ID_CHARS = 255


def _mistyped(value: dict, depth: int = 0) -> str:
    """The first field of ``value`` (and of the objects it holds) whose type is not the one Bolt and the listeners
    read it as, else ``""``. ``user``, ``channel`` and ``team`` are ids in events and messages, objects in
    interactions."""
    for key, field in value.items():
        if key == "team" and not isinstance(field, str | dict | None):
            return key
        if key in ("user", "channel", "team") and isinstance(field, dict):
            if not isinstance(field.get("id", ""), str) or len(field.get("id", "")) > MAX_ID_CHARS:
                return f"{key}.id"
            continue
        wanted = _FIELD_TYPES.get(key)
        if wanted is not None and not isinstance(field, wanted):
            return key
        if key in _ID_FIELDS and isinstance(field, str) and not storable(field, MAX_ID_CHARS):
            return key
        if key in ("actions", "authorizations") and not all(isinstance(item, dict) for item in field):
            return key
        if key == "actions" and (not field or any(not isinstance(a.get("action_id"), str)
                                                   or not isinstance(a.get("value", ""), str) for a in field)):
            return "actions.action_id"  # Bolt reads the first action's id (block_actions), and our buttons' value
        if key == "files" and any(isinstance(f, dict) and not isinstance(f.get("id", ""), str) for f in field):
            return "files.id"
        if depth < 3 and key in _OBJECTS and isinstance(field, dict):
            if found := _mistyped(field, depth + 1):
                return f"{key}.{found}"
    return ""


def _hides_payload(body: str, content_type: str) -> bool:
    """A form body (a slash command) that holds the word "payload" but no ``payload`` field."""
    if content_type.startswith("application/json") or body.startswith("{") or "payload" not in body:
        return False
    return "payload" not in dict(parse_qsl(body, keep_blank_values=True))


def _malformed(body: str, content_type: str) -> str:
    """Why a signed body is not a Slack request Bolt can route (its reading of it, ``parse_body``, or its routing
    would raise), or ``""``: a JSON body or an interaction's ``payload`` must be an object whose fields have the types
    Slack sends (:data:`_FIELD_TYPES`), an ``event_callback`` must carry an event object."""
    if not body:
        return ""
    try:
        if content_type.startswith("application/json") or body.startswith("{"):
            parsed = json.loads(body)
        elif "payload" in dict(parse_qsl(body, keep_blank_values=True)):  # an interaction: Bolt routes it by type
            parsed = json.loads(dict(parse_qsl(body, keep_blank_values=True)).get("payload") or "{}")
            if isinstance(parsed, dict) and not (isinstance(parsed.get("type"), str) and parsed["type"]):
                return "an interaction payload without a type"
            if isinstance(parsed, dict) and isinstance(parsed.get("view"), dict) and \
                    not isinstance(parsed["view"].get("type"), str):
                return "a view without a type"
            if isinstance(parsed, dict) and any(not isinstance(parsed.get(k), dict | None)
                                                for k in ("team", "user", "channel")):
                return "an interaction's team, user or channel is not an object"
        else:  # a slash command: its form fields are strings
            fields = dict(parse_qsl(body, keep_blank_values=True))
            field = next((k for k in _ID_FIELDS if len(fields.get(k, "")) > MAX_ID_CHARS), "")
            return f"field {field} is too long" if field else ""
    except (ValueError, RecursionError):
        return "the body is not valid JSON"
    if not isinstance(parsed, dict):
        return "the body is not a JSON object"
    if parsed.get("type") == "event_callback" and not isinstance(parsed.get("event"), dict):
        return "event_callback without an event object"
    field = _mistyped(parsed)
    return f"field {field} has the wrong type" if field else ""


def admit(event: Any, signing_secret: Callable[[], str]) -> dict:
    """The API Gateway (HTTP API, payload 2.0) ``event`` as Bolt may read it. Before anything is parsed the
    request's signature is checked (``X-Slack-Signature`` over ``v0:<timestamp>:<body>`` with the signing secret,
    timestamps older than five minutes refused).

    Raises:
        Refused: 401 for a missing, stale or wrong signature; 400 for a request that is not an HTTP API event, a body
            that is not base64-encoded UTF-8 when it says it is, or a signed body Bolt cannot read.
    """
    if not isinstance(event, dict) or not isinstance(event.get("headers"), dict) or \
            not isinstance(event.get("body", ""), str | None):
        raise Refused(400, "not an API Gateway HTTP event")
    event = {**event, "body": event.get("body") or "", "isBase64Encoded": bool(event.get("isBase64Encoded"))}
    body = event["body"]
    if event["isBase64Encoded"]:
        try:
            body = base64.b64decode(body, validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            raise Refused(400, "body is not base64-encoded UTF-8") from None
    headers = {str(k).lower(): v for k, v in event["headers"].items()}
    timestamp, signature = headers.get("x-slack-request-timestamp"), headers.get("x-slack-signature")
    if not isinstance(timestamp, str) or not timestamp.isdigit() or len(timestamp) > 12 or \
            not isinstance(signature, str) or not SignatureVerifier(
                signing_secret()).is_valid(body, timestamp, signature):
        raise Refused(401, "invalid request signature")
    content_type = str(headers.get("content-type") or "")
    reason = _malformed(body, content_type)
    if reason:
        logger.warning("malformed Slack request refused: %s", reason)
        raise Refused(400, reason)
    if _hides_payload(body, content_type):
        # Bolt takes any form body holding the word "payload" for an interaction and, finding no payload field,
        # reads it as empty: a slash command typed in #payload-team, or with "payload" in its text, would be
        # lost. The same fields with that word percent-encoded read the same and are not mistaken.
        # (signed again, as Bolt checks the signature of what it reads)
        body = body.replace("payload", "p%61yload")
        resigned = SignatureVerifier(signing_secret()).generate_signature(
            timestamp=timestamp, body=body)
        event = {**event, "body": body, "isBase64Encoded": False, "headers": {
            **{k: v for k, v in event["headers"].items() if str(k).lower() != "x-slack-signature"},
            "x-slack-signature": resigned}}
    return event
