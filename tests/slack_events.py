"""Slack requests as they reach the Slack Lambda: signed with the app's signing secret (``v0=`` HMAC-SHA256 over
``v0:<timestamp>:<body>``) and wrapped in the API Gateway HTTP API (payload 2.0) event shape."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
from typing import Any
from urllib.parse import urlencode

from tests.events import http_post

TEAM = "T0TEST"
SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
_event_ids = itertools.count(1)


def api_gateway_event(body: str, content_type: str, *, secret: str = SIGNING_SECRET, timestamp: int | None = None,
                      signature: str | None = None, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """An HTTP API payload 2.0 event for ``POST /slack/events`` carrying ``body``, signed unless ``signature``."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    if signature is None:
        digest = hmac.new(secret.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
        signature = f"v0={digest}"
    return http_post("/slack/events", body, {"content-type": content_type, "x-slack-request-timestamp": ts,
                                             "x-slack-signature": signature, **(headers or {})})


def event_callback(event: dict[str, Any], *, event_id: str | None = None, **kwargs: Any) -> dict[str, Any]:
    """An Events API ``event_callback`` envelope around ``event``, signed."""
    envelope = {"token": "legacy-verification-token", "team_id": TEAM, "api_app_id": "A0TEST", "event": event,
                "type": "event_callback", "event_id": event_id or f"Ev{next(_event_ids):08d}",
                "event_time": int(time.time()), "authorizations": [
                    {"team_id": TEAM, "user_id": "U0BOT", "is_bot": True, "is_enterprise_install": False}]}
    return api_gateway_event(json.dumps(envelope), "application/json", **kwargs)


def mention(text: str, ts: str, *, channel: str = "C0LCA", user: str = "U0ALICE", thread_ts: str | None = None,
            files: list[dict] | None = None) -> dict[str, Any]:
    event = {"type": "app_mention", "user": user, "text": f"<@U0BOT> {text}", "ts": ts, "channel": channel,
             "event_ts": ts}
    if thread_ts:
        event["thread_ts"] = thread_ts
    if files:
        event["files"] = files
    return event


def message(text: str, ts: str, *, channel: str = "D0ALICE", user: str | None = "U0ALICE",
            channel_type: str = "im", thread_ts: str | None = None, files: list[dict] | None = None,
            **extra: Any) -> dict[str, Any]:
    event = {"type": "message", "text": text, "ts": ts, "channel": channel, "channel_type": channel_type,
             "event_ts": ts, **extra}
    if user:
        event["user"] = user
    if thread_ts:
        event["thread_ts"] = thread_ts
    if files:
        event["files"] = files
        event.setdefault("subtype", "file_share")
    return event


def slash_command(command: str, text: str = "", *, channel: str = "C0LCA", user: str = "U0ALICE",
                  trigger_id: str = "13345224609.738474920.8088930838d88f008e0") -> dict[str, Any]:
    body = urlencode({"token": "legacy", "team_id": TEAM, "team_domain": "lca", "channel_id": channel,
                      "channel_name": "lca", "user_id": user, "user_name": "alice", "command": command,
                      "text": text, "api_app_id": "A0TEST", "response_url": "http://127.0.0.1:9/commands/1",
                      "trigger_id": trigger_id})
    return api_gateway_event(body, "application/x-www-form-urlencoded")


def interaction(payload: dict[str, Any]) -> dict[str, Any]:
    """An interactivity request (``block_actions``, ``view_submission``): form-encoded ``payload=<json>``."""
    base = {"team": {"id": TEAM, "domain": "lca"}, "api_app_id": "A0TEST", "token": "legacy"}
    return api_gateway_event(urlencode({"payload": json.dumps({**base, **payload})}),
                             "application/x-www-form-urlencoded")
