"""A local stand-in for the Slack Web API: a threaded HTTP server on 127.0.0.1 that the real ``slack_sdk.WebClient``
(and so a Bolt app) talks to through ``base_url=stub.api_url``.

It speaks the wire protocol the SDK speaks: every call is a POST (or GET) to ``/api/<method>`` with the token in an
``Authorization: Bearer`` header or, for form bodies, a ``token`` parameter; arguments arrive form-encoded,
JSON-encoded (the SDK sends ``chat.*`` and ``views.*`` as JSON) or as multipart form data. Answers have Slack's
shapes (``{"ok": true, ...}`` / ``{"ok": false, "error": ...}`` with HTTP 200, 429 with ``Retry-After`` when rate
limited). It refuses what Slack refuses: a missing or wrong token, more than 50 blocks or a section text over 3000
characters (``invalid_blocks``), message text over 40 000 characters (``msg_too_long``), a JSON body on a method that
only reads form arguments (its arguments are then missing), a ``views.open`` without a trigger or with one already
used, editing a message the bot did not post, completing an upload whose bytes never arrived.

Messages posted by the bot, seeded with :meth:`SlackAPIStub.add_message` and shared by file uploads are kept per
channel, so ``conversations.replies`` shows a thread as Slack would. Files registered with
:meth:`SlackAPIStub.register_file` or uploaded through ``files.getUploadURLExternal`` + the upload URL +
``files.completeUploadExternal`` can be downloaded from their ``url_private(_download)`` with the bot token; without
it the stub answers 200 with an HTML sign-in page, as Slack does. Every request is recorded as a :class:`Call`.
"""

from __future__ import annotations

import base64
import copy
import json
import mimetypes
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

MAX_BLOCKS = 50  # per message; a modal takes 100
MAX_MODAL_BLOCKS = 100
MAX_TEXT = 40_000
MAX_SECTION_TEXT = 3000
MAX_REPLIES_PAGE = 1000
# Methods whose arguments Slack reads from the query string or a form body only: a JSON body is not looked at.
FORM_ONLY = frozenset({"auth.test", "conversations.replies", "files.info", "files.getUploadURLExternal",
                       "chat.getPermalink"})
DEFAULT_SCOPES = "app_mentions:read,channels:history,chat:write,commands,files:read,files:write,groups:history," \
                 "im:history,mpim:history,users:read"
SIGN_IN_PAGE = (b'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Sign in | Slack</title></head>'
                b'<body><main><h1>Sign in to your workspace</h1><form method="post" action="/signin">'
                b'<input type="email" name="email"><button type="submit">Continue</button></form></main></body></html>')
_TS = re.compile(r"\d+\.\d{6}")
_DOWNLOAD = re.compile(r"/files-pri/([A-Z0-9]+)-([A-Z0-9]+)/(download/)?([^/]+)")
_FILETYPES = {"txt": "text", "md": "markdown", "py": "python", "jpeg": "jpg", "htm": "html", "yml": "yaml"}


@dataclass(frozen=True)
class Call:
    method: str  # the API method ("chat.postMessage"), or the path of a download / upload request
    params: dict[str, Any]  # query + body arguments as sent (form values are strings, JSON keeps its types)
    headers: dict[str, str]  # lower-cased names
    status: int
    at: float  # time.monotonic() when the request arrived


class SlackError(Exception):
    """An ``{"ok": false, "error": ...}`` answer; ``messages`` go to ``response_metadata.messages``."""

    def __init__(self, error: str, messages: list[str] | None = None) -> None:
        super().__init__(error)
        self.error = error
        self.messages = messages or []

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"ok": False, "error": self.error}
        if self.messages:
            body["response_metadata"] = {"messages": self.messages}
        return body


@dataclass
class _Fault:
    error: str
    retry_after: int | None  # set: answer 429 ``ratelimited`` with this Retry-After
    times: int


@dataclass
class _File:
    obj: dict[str, Any]  # the Slack file object
    data: bytes | None
    length: int  # announced to files.getUploadURLExternal (registered files: their size)
    pending: bool  # an external upload not completed yet


@dataclass(frozen=True)
class _Reply:
    status: int
    body: bytes
    content_type: str = "application/json; charset=utf-8"
    headers: tuple[tuple[str, str], ...] = ()


# -- Block Kit checks (what Slack answers ``invalid_blocks`` for) ------------------------------------------------


def _text_problems(obj: Any, ptr: str, max_len: int, plain_only: bool = False) -> list[str]:
    kinds = ("plain_text",) if plain_only else ("plain_text", "mrkdwn")
    if not isinstance(obj, dict) or obj.get("type") not in kinds:
        return [f"[ERROR] must be a text object of type {' or '.join(kinds)} [json-pointer:{ptr}]"]
    text = obj.get("text")
    if not isinstance(text, str) or not text:
        return [f"[ERROR] must be more than 0 characters [json-pointer:{ptr}/text]"]
    if len(text) > max_len:
        return [f"[ERROR] must be less than {max_len + 1} characters [json-pointer:{ptr}/text]"]
    return []


def _count_problems(items: Any, ptr: str, most: int) -> list[str]:
    if not isinstance(items, list) or not items:
        return [f"[ERROR] must provide at least 1 item [json-pointer:{ptr}]"]
    return [f"[ERROR] no more than {most} items allowed [json-pointer:{ptr}]"] if len(items) > most else []


def _section(b: dict[str, Any], ptr: str) -> list[str]:
    if "text" not in b and "fields" not in b:
        return [f"[ERROR] must provide either text or fields [json-pointer:{ptr}]"]
    problems = _text_problems(b["text"], f"{ptr}/text", MAX_SECTION_TEXT) if "text" in b else []
    if "fields" in b:
        counted = _count_problems(b["fields"], f"{ptr}/fields", 10)
        problems += counted or [p for j, f in enumerate(b["fields"])
                                for p in _text_problems(f, f"{ptr}/fields/{j}", 2000)]
    return problems


def _image(b: dict[str, Any], ptr: str) -> list[str]:
    problems = [] if b.get("image_url") or b.get("slack_file") else [
        f"[ERROR] must provide either image_url or slack_file [json-pointer:{ptr}]"]
    alt = b.get("alt_text")
    if not isinstance(alt, str) or not 0 < len(alt) <= 2000:
        problems.append(f"[ERROR] alt_text must be 1 to 2000 characters [json-pointer:{ptr}/alt_text]")
    return problems


def _input(b: dict[str, Any], ptr: str) -> list[str]:
    problems = _text_problems(b.get("label"), f"{ptr}/label", 2000, plain_only=True)
    if not isinstance(b.get("element"), dict):
        problems.append(f"[ERROR] missing required field: element [json-pointer:{ptr}]")
    return problems


_BLOCK_CHECKS: dict[str, Callable[[dict[str, Any], str], list[str]]] = {
    "section": _section,
    "header": lambda b, ptr: _text_problems(b.get("text"), f"{ptr}/text", 150, plain_only=True),
    "context": lambda b, ptr: _count_problems(b.get("elements"), f"{ptr}/elements", 10),
    "actions": lambda b, ptr: _count_problems(b.get("elements"), f"{ptr}/elements", 25),
    "image": _image,
    "markdown": lambda b, ptr: [] if isinstance(b.get("text"), str) and b["text"] else [
        f"[ERROR] must be more than 0 characters [json-pointer:{ptr}/text]"],
    "input": _input,
    "divider": lambda b, ptr: [],
    "rich_text": lambda b, ptr: [],
    "file": lambda b, ptr: [],
    "video": lambda b, ptr: [],
}


def block_problems(blocks: Any, limit: int = MAX_BLOCKS) -> list[str]:
    """Why Slack would refuse these blocks (empty when it would not)."""
    if not isinstance(blocks, list):
        return ["[ERROR] must be an array [json-pointer:/blocks]"]
    if len(blocks) > limit:
        return [f"[ERROR] no more than {limit} items allowed [json-pointer:/blocks]"]
    problems: list[str] = []
    seen: set[str] = set()
    for i, block in enumerate(blocks):
        ptr = f"/blocks/{i}"
        kind = block.get("type") if isinstance(block, dict) else None
        if kind not in _BLOCK_CHECKS:
            problems.append(f"[ERROR] unsupported block type: {kind} [json-pointer:{ptr}/type]")
            continue
        block_id = block.get("block_id")
        if block_id is not None and (not isinstance(block_id, str) or not 0 < len(block_id) <= 255):
            problems.append(f"[ERROR] block_id must be 1 to 255 characters [json-pointer:{ptr}/block_id]")
        elif block_id is not None and block_id in seen:
            problems.append(f"[ERROR] duplicate block_id [json-pointer:{ptr}/block_id]")
        seen.add(block_id)
        problems += _BLOCK_CHECKS[kind](block, ptr)
    return problems


def _json_arg(value: Any, error: str) -> Any:
    """A structured argument: JSON bodies carry it as is, form bodies as a JSON string."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        raise SlackError(error) from None


def _micros(ts: str) -> int:
    seconds, _, fraction = ts.partition(".")
    return int(seconds) * 1_000_000 + int(fraction.ljust(6, "0")[:6])


def _multipart(content_type: str, raw: bytes) -> list[tuple[str, str | None, bytes]]:
    """(field name, file name or None, bytes) for each part of a multipart/form-data body."""
    message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
    if not message.is_multipart():
        return []
    return [(part.get_param("name", header="content-disposition") or "", part.get_filename(),
             part.get_payload(decode=True) or b"") for part in message.iter_parts()]


def _filetype(name: str) -> tuple[str, str]:
    ext = name.rsplit(".", 1)[1].lower() if "." in name else ""
    return _FILETYPES.get(ext, ext or "binary"), mimetypes.guess_type(name)[0] or "application/octet-stream"


# -- the server ------------------------------------------------------------------------------------------------


class SlackAPIStub:
    """Start with ``with SlackAPIStub() as stub:`` (or ``start()`` / ``stop()``); give ``stub.api_url`` to
    ``WebClient(base_url=...)``. Inspect ``calls``, :meth:`messages`, ``uploads``, ``ephemerals``, ``views``."""

    def __init__(self, bot_token: str = "xoxb-test-token", team_id: str = "T0TEST", bot_user_id: str = "U0BOT",
                 bot_id: str = "B0BOT", *, app_id: str = "A0TEST", team_domain: str = "lcabot-test",
                 scopes: str = DEFAULT_SCOPES) -> None:
        self.bot_token, self.team_id, self.bot_user_id, self.bot_id = bot_token, team_id, bot_user_id, bot_id
        self.app_id, self.team_domain, self.scopes = app_id, team_domain, scopes
        self.calls: list[Call] = []
        self.uploads: list[dict[str, Any]] = []  # one per completed file: file_id, filename, title, data, ...
        self._messages: dict[str, dict[str, dict[str, Any]]] = {}  # channel -> ts -> message
        self._ephemerals: list[dict[str, Any]] = []
        self._views: dict[str, dict[str, Any]] = {}
        self._files: dict[str, _File] = {}
        self._upload_tokens: dict[str, str] = {}  # upload URL token -> file id
        self._used_triggers: set[str] = set()
        self._faults: dict[str, deque[_Fault]] = {}
        self._clock = 1_764_000_000_000_000  # microseconds of the last ts handed out
        self._ids = 0
        self._lock = threading.RLock()
        self._methods: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "auth.test": self._auth_test, "chat.postMessage": self._post_message, "chat.update": self._update,
            "chat.delete": self._delete,
            "chat.postEphemeral": self._post_ephemeral, "chat.getPermalink": self._permalink,
            "views.open": self._views_open, "views.update": self._views_update, "files.info": self._files_info,
            "files.getUploadURLExternal": self._get_upload_url, "files.completeUploadExternal": self._complete_upload,
            "conversations.replies": self._replies,
        }
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="slack-stub",
                                        daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/"

    def start(self) -> SlackAPIStub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> SlackAPIStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- test hooks --------------------------------------------------------------------------------------------

    def rate_limit_next(self, method: str, retry_after: int = 1, times: int = 1) -> None:
        """The next ``times`` calls of ``method`` answer HTTP 429 ``ratelimited`` with ``Retry-After``."""
        with self._lock:
            self._faults.setdefault(method, deque()).append(_Fault("ratelimited", retry_after, times))

    def fail_next(self, method: str, error: str, times: int = 1) -> None:
        """The next ``times`` calls of ``method`` answer ``{"ok": false, "error": error}`` and change nothing."""
        with self._lock:
            self._faults.setdefault(method, deque()).append(_Fault(error, None, times))

    def add_message(self, channel: str, text: str, user: str = "U123", ts: str | None = None,
                    thread_ts: str | None = None, bot_id: str | None = None, subtype: str | None = None) -> str:
        """Seed a message someone posted (a reply when ``thread_ts`` names its root); returns its ts."""
        with self._lock:
            stored = self._messages.setdefault(channel, {})
            if ts is not None and (not _TS.fullmatch(ts) or ts in stored):
                raise ValueError(f"ts {ts!r} is malformed or already used in {channel}")
            if thread_ts is not None and thread_ts not in stored:
                raise ValueError(f"no thread root {thread_ts} in {channel}: seed the root first")
            if ts is not None:
                self._clock = max(self._clock, _micros(ts))
            msg: dict[str, Any] = {"type": "message", "user": user, "text": text, "ts": ts or self._next_ts(),
                                   "team": self.team_id}
            extra = {"thread_ts": self._thread_root(channel, thread_ts), "bot_id": bot_id, "subtype": subtype}
            msg.update({k: v for k, v in extra.items() if v is not None})
            stored[msg["ts"]] = msg
            return msg["ts"]

    def register_file(self, data: bytes, name: str, filetype: str = "pdf", mimetype: str = "application/pdf",
                      user: str = "U123") -> dict[str, Any]:
        """Make a file someone shared known to ``files.info`` and downloadable; returns its Slack file object."""
        with self._lock:
            fid = self._new_id("F")
            obj = self._file_object(fid, name, name, filetype, mimetype, len(data), user)
            self._files[fid] = _File(obj, bytes(data), len(data), pending=False)
            return copy.deepcopy(obj)

    def messages(self, channel: str, thread_ts: str | None = None) -> list[dict[str, Any]]:
        """Stored messages of a channel in ts order; with ``thread_ts``, that thread's root and replies."""
        with self._lock:
            if thread_ts is not None:
                return self._thread_messages(channel, self._thread_root(channel, thread_ts) or thread_ts)
            stored = self._messages.get(channel, {})
            return [copy.deepcopy(stored[ts]) for ts in sorted(stored, key=_micros)]

    @property
    def ephemerals(self) -> list[dict[str, Any]]:
        with self._lock:
            return copy.deepcopy(self._ephemerals)

    @property
    def views(self) -> list[dict[str, Any]]:
        with self._lock:
            return copy.deepcopy(list(self._views.values()))

    def calls_to(self, method: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method]

    def clear(self) -> None:
        """Forget the recorded calls (messages, files and planned faults stay)."""
        with self._lock:
            self.calls.clear()

    # -- dispatch ----------------------------------------------------------------------------------------------

    def handle(self, verb: str, raw_path: str, headers: dict[str, str], raw: bytes, at: float) -> _Reply:
        parts = urlsplit(raw_path)
        path, query = unquote(parts.path), dict(parse_qsl(parts.query, keep_blank_values=True))
        with self._lock:
            if path.startswith("/api/"):
                method, params, reply = self._api(path[len("/api/"):], query, headers, raw)
            elif verb == "POST" and path.startswith("/upload/v1/"):
                method, params, reply = path, {"length": len(raw)}, self._receive_upload(path, headers, raw)
            elif verb == "GET" and path.startswith("/files-pri/"):
                method, params, reply = path, query, self._download(path, headers)
            else:
                method, params, reply = path, query, _Reply(404, b"Not Found", "text/plain")
            self.calls.append(Call(method, params, headers, reply.status, at))
            return reply

    def _api(self, method: str, query: dict[str, str], headers: dict[str, str],
             raw: bytes) -> tuple[str, dict[str, Any], _Reply]:
        ctype = headers.get("content-type", "")
        kind = ctype.split(";")[0].strip().lower()
        sent: dict[str, Any] = dict(query)
        try:
            body = self._body(kind, ctype, raw)
            sent.update(body)
            if method not in self._methods:
                raise SlackError("unknown_method")
            token = headers.get("authorization", "")
            if token:
                scheme, _, token = token.partition(" ")
                token = token.strip() if scheme.lower() == "bearer" else "?"
            else:
                token = query.get("token") or ("" if kind == "application/json" else body.get("token", ""))
            if not token:
                raise SlackError("not_authed")
            if token != self.bot_token:
                raise SlackError("invalid_auth")
            fault = self._take_fault(method)
            if fault is not None and fault.retry_after is not None:
                data = json.dumps({"ok": False, "error": "ratelimited"}).encode()
                return method, sent, _Reply(429, data, headers=(("Retry-After", str(fault.retry_after)),))
            if fault is not None:
                raise SlackError(fault.error)
            args = dict(query) if kind == "application/json" and method in FORM_ONLY else sent
            answer = {"ok": True, **self._methods[method](args)}
            if kind == "application/json" and "charset" not in ctype.lower():
                answer.update(warning="missing_charset", response_metadata={
                    **answer.get("response_metadata", {}), "warnings": ["missing_charset"]})
        except SlackError as err:
            answer = err.body() if err.error != "unknown_method" else {**err.body(), "req_method": method}
        return method, sent, _Reply(200, json.dumps(answer).encode(), headers=(("x-oauth-scopes", self.scopes),))

    @staticmethod
    def _body(kind: str, ctype: str, raw: bytes) -> dict[str, Any]:
        if not raw:
            return {}
        if kind == "application/json":
            try:
                body = json.loads(raw)
            except ValueError:
                raise SlackError("invalid_json") from None
            if not isinstance(body, dict):
                raise SlackError("invalid_json")
            return body
        if kind == "multipart/form-data":
            return {name: data if filename else data.decode("utf-8", "replace")
                    for name, filename, data in _multipart(ctype, raw)}
        return dict(parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True))

    def _take_fault(self, method: str) -> _Fault | None:
        queue = self._faults.get(method)
        if not queue:
            return None
        fault = queue[0]
        fault.times -= 1
        if fault.times <= 0:
            queue.popleft()
        return fault

    # -- shared pieces -----------------------------------------------------------------------------------------

    def _next_ts(self) -> str:
        self._clock += 100
        return f"{self._clock // 1_000_000}.{self._clock % 1_000_000:06d}"

    def _new_id(self, prefix: str) -> str:
        self._ids += 1
        return f"{prefix}0{self._ids:08d}"

    def _thread_root(self, channel: str, thread_ts: str | None) -> str | None:
        """The root a reply to ``thread_ts`` lands under (replying to a reply joins its parent's thread)."""
        if not thread_ts:
            return None
        parent = self._messages.get(channel, {}).get(thread_ts)
        return parent.get("thread_ts", thread_ts) if parent else thread_ts

    def _thread_messages(self, channel: str, root_ts: str) -> list[dict[str, Any]]:
        stored = self._messages.get(channel, {})
        replies = sorted((copy.deepcopy(m) for m in stored.values() if m.get("thread_ts") == root_ts
                          and m["ts"] != root_ts), key=lambda m: _micros(m["ts"]))
        root = copy.deepcopy(stored.get(root_ts))
        if root is None:
            return replies
        for reply in replies:
            reply["parent_user_id"] = root.get("user")
        if replies:
            users = list(dict.fromkeys(r.get("user") for r in replies if r.get("user")))
            root.update(thread_ts=root_ts, reply_count=len(replies), reply_users=users[:5],
                        reply_users_count=len(users), latest_reply=replies[-1]["ts"])
        return [root, *replies]

    def _channel(self, p: dict[str, Any], name: str = "channel") -> str:
        channel = p.get(name)
        if not isinstance(channel, str) or not channel:
            raise SlackError("channel_not_found")
        return channel

    def _content(self, p: dict[str, Any]) -> tuple[str | None, list[dict[str, Any]] | None]:
        text = p.get("text")
        text = None if text is None else str(text)
        blocks = _json_arg(p.get("blocks"), "invalid_blocks_format")
        if blocks is not None:
            problems = block_problems(blocks)
            if problems:
                raise SlackError("invalid_blocks", problems)
        if text is not None and len(text) > MAX_TEXT:
            raise SlackError("msg_too_long")
        if not text and not blocks and not p.get("attachments"):
            raise SlackError("no_text")
        return text, blocks

    def _bot_message(self, channel: str, text: str, blocks: list[dict[str, Any]] | None, thread_ts: str | None,
                     **extra: Any) -> dict[str, Any]:
        if thread_ts and _TS.fullmatch(thread_ts):  # a reply comes after its root, seeded here or not
            self._clock = max(self._clock, _micros(thread_ts))
        msg: dict[str, Any] = {
            "type": "message", "user": self.bot_user_id, "bot_id": self.bot_id, "app_id": self.app_id, "text": text,
            "ts": self._next_ts(), "team": self.team_id,
            "bot_profile": {"id": self.bot_id, "app_id": self.app_id, "name": "lcabot", "team_id": self.team_id,
                            "deleted": False},
        }
        if blocks is not None:
            msg["blocks"] = blocks
        if thread_ts:
            msg["thread_ts"] = thread_ts
            root = self._messages.get(channel, {}).get(thread_ts)
            if root is not None:
                msg["parent_user_id"] = root.get("user")
        msg.update(extra)
        self._messages.setdefault(channel, {})[msg["ts"]] = msg
        return msg

    def _file_object(self, fid: str, name: str, title: str, filetype: str, mimetype: str, size: int,
                     user: str) -> dict[str, Any]:
        url = f"{self.base_url}/files-pri/{self.team_id}-{fid}"
        now = int(time.time())
        return {
            "id": fid, "created": now, "timestamp": now, "name": name, "title": title, "mimetype": mimetype,
            "filetype": filetype, "pretty_type": filetype.upper(), "user": user, "user_team": self.team_id,
            "editable": False, "size": size, "mode": "hosted", "is_external": False, "external_type": "",
            "is_public": False, "public_url_shared": False, "display_as_bot": False, "username": "",
            "url_private": f"{url}/{quote(name)}", "url_private_download": f"{url}/download/{quote(name)}",
            "permalink": f"https://{self.team_domain}.slack.com/files/{user}/{fid}/{quote(name)}",
            "channels": [], "groups": [], "ims": [], "shares": {}, "comments_count": 0, "file_access": "visible",
        }

    # -- methods -----------------------------------------------------------------------------------------------

    def _auth_test(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"url": f"https://{self.team_domain}.slack.com/", "team": "LCA Bot Test", "user": "lcabot",
                "team_id": self.team_id, "user_id": self.bot_user_id, "bot_id": self.bot_id,
                "is_enterprise_install": False}

    def _post_message(self, p: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(p)
        text, blocks = self._content(p)
        msg = self._bot_message(channel, text or "", blocks, self._thread_root(channel, p.get("thread_ts")))
        return {"channel": channel, "ts": msg["ts"], "message": copy.deepcopy(msg)}

    def _update(self, p: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(p)
        msg = self._messages.get(channel, {}).get(str(p.get("ts") or ""))
        if msg is None:
            raise SlackError("message_not_found")
        if msg.get("bot_id") != self.bot_id:
            raise SlackError("cant_update_message")
        text, blocks = self._content(p)
        if text is not None:
            msg["text"] = text
        if blocks:
            msg["blocks"] = blocks
        elif blocks is not None:  # an empty list removes the blocks; leaving them out keeps them
            msg.pop("blocks", None)
        msg["edited"] = {"user": self.bot_user_id, "ts": self._next_ts()}
        return {"channel": channel, "ts": msg["ts"], "text": msg["text"], "message": copy.deepcopy(msg)}

    def _delete(self, p: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(p)
        msg = self._messages.get(channel, {}).get(str(p.get("ts") or ""))
        if msg is None:
            raise SlackError("message_not_found")
        if msg.get("bot_id") != self.bot_id:
            raise SlackError("cant_delete_message")
        del self._messages[channel][msg["ts"]]
        return {"channel": channel, "ts": msg["ts"]}

    def _post_ephemeral(self, p: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(p)
        if not p.get("user"):
            raise SlackError("user_not_in_channel")
        text, blocks = self._content(p)
        ts = self._next_ts()
        self._ephemerals.append({"channel": channel, "user": p["user"], "text": text, "blocks": blocks,
                                 "thread_ts": p.get("thread_ts"), "message_ts": ts})
        return {"message_ts": ts}

    def _permalink(self, p: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(p)
        msg = self._messages.get(channel, {}).get(str(p.get("message_ts") or ""))
        if msg is None:
            raise SlackError("message_not_found")
        link = f"https://{self.team_domain}.slack.com/archives/{channel}/p{msg['ts'].replace('.', '')}"
        if msg.get("thread_ts") not in (None, msg["ts"]):
            link += f"?thread_ts={msg['thread_ts']}&cid={channel}"
        return {"channel": channel, "permalink": link}

    def _view_arg(self, p: dict[str, Any]) -> dict[str, Any]:
        view = _json_arg(p.get("view"), "invalid_arguments")
        if not isinstance(view, dict):
            raise SlackError("invalid_arguments", ["[ERROR] missing required field: view"])
        problems = [] if view.get("type") == "modal" else ["[ERROR] view type must be modal [json-pointer:/view/type]"]
        problems += _text_problems(view.get("title"), "/view/title", 24, plain_only=True)
        for key in ("submit", "close"):
            if key in view:
                problems += _text_problems(view[key], f"/view/{key}", 24, plain_only=True)
        problems += [m.replace("json-pointer:/blocks", "json-pointer:/view/blocks")
                     for m in block_problems(view.get("blocks"), MAX_MODAL_BLOCKS)]
        if len(str(view.get("private_metadata", ""))) > 3000:
            problems.append("[ERROR] must be less than 3001 characters [json-pointer:/view/private_metadata]")
        if problems:
            raise SlackError("invalid_arguments", problems)
        return view

    def _store_view(self, view: dict[str, Any], view_id: str, root_id: str) -> dict[str, Any]:
        stored = {
            "id": view_id, "team_id": self.team_id, "type": view["type"], "blocks": view["blocks"],
            "private_metadata": view.get("private_metadata", ""), "callback_id": view.get("callback_id", ""),
            "state": {"values": {}}, "hash": uuid.uuid4().hex[:20], "title": view["title"],
            "clear_on_close": bool(view.get("clear_on_close")), "notify_on_close": bool(view.get("notify_on_close")),
            "close": view.get("close"), "submit": view.get("submit"), "previous_view_id": None,
            "root_view_id": root_id, "app_id": self.app_id, "external_id": view.get("external_id", ""),
            "app_installed_team_id": self.team_id, "bot_id": self.bot_id,
        }
        self._views[view_id] = stored
        return copy.deepcopy(stored)

    def _views_open(self, p: dict[str, Any]) -> dict[str, Any]:
        trigger = p.get("trigger_id") or p.get("interactivity_pointer")
        if not trigger:
            raise SlackError("invalid_arguments", ["[ERROR] missing required field: trigger_id"])
        if trigger in self._used_triggers:
            raise SlackError("exchanged_trigger_id")
        view = self._view_arg(p)
        self._used_triggers.add(trigger)
        view_id = self._new_id("V")
        return {"view": self._store_view(view, view_id, view_id)}

    def _views_update(self, p: dict[str, Any]) -> dict[str, Any]:
        found = [v for v in self._views.values() if (p.get("view_id") and v["id"] == p["view_id"]) or
                 (p.get("external_id") and v["external_id"] == p["external_id"])]
        if not found:
            raise SlackError("not_found")
        if p.get("hash") and p["hash"] != found[0]["hash"]:
            raise SlackError("hash_conflict")
        return {"view": self._store_view(self._view_arg(p), found[0]["id"], found[0]["root_view_id"])}

    def _files_info(self, p: dict[str, Any]) -> dict[str, Any]:
        stored = self._files.get(str(p.get("file") or ""))
        if stored is None or stored.pending:
            raise SlackError("file_not_found")
        return {"file": copy.deepcopy(stored.obj), "comments": [], "response_metadata": {"next_cursor": ""}}

    def _get_upload_url(self, p: dict[str, Any]) -> dict[str, Any]:
        filename, length = p.get("filename"), str(p.get("length") or "")
        if not filename or not length.isdigit():
            raise SlackError("invalid_arguments", ["[ERROR] missing required field: filename or length"])
        if int(length) == 0:
            raise SlackError("missing_argument")
        fid, token = self._new_id("F"), uuid.uuid4().hex
        obj = self._file_object(fid, filename, filename, *_filetype(filename), int(length), self.bot_user_id)
        self._files[fid] = _File(obj, None, int(length), pending=True)
        self._upload_tokens[token] = fid
        return {"upload_url": f"{self.base_url}/upload/v1/{token}", "file_id": fid}

    def _receive_upload(self, path: str, headers: dict[str, str], raw: bytes) -> _Reply:
        fid = self._upload_tokens.get(path[len("/upload/v1/"):])
        if fid is None:
            return _Reply(404, b"Not Found", "text/plain")
        ctype = headers.get("content-type", "")
        if ctype.lower().startswith("multipart/form-data"):
            parts = _multipart(ctype, raw)
            raw = next((data for _, filename, data in parts if filename), parts[0][2] if parts else b"")
        stored = self._files[fid]
        if len(raw) != stored.length:
            text = f"length mismatch: {stored.length} bytes announced, {len(raw)} received"
            return _Reply(400, text.encode(), "text/plain")
        stored.data = raw
        return _Reply(200, f"OK - {len(raw)}".encode(), "text/plain; charset=utf-8")

    def _complete_upload(self, p: dict[str, Any]) -> dict[str, Any]:
        items = _json_arg(p.get("files"), "invalid_arguments")
        if not isinstance(items, list) or not items or not all(isinstance(i, dict) and i.get("id") for i in items):
            raise SlackError("invalid_arguments", ["[ERROR] files must be a non-empty array of {id, title}"])
        stored = [self._files.get(str(item["id"])) for item in items]
        if any(f is None or not f.pending or f.data is None for f in stored):
            raise SlackError("file_not_found")  # unknown, already completed, or its bytes never arrived
        targets = [p["channel_id"]] if p.get("channel_id") else [c for c in str(p.get("channels") or "").split(",")
                                                                  if c]
        thread_ts = p.get("thread_ts")
        if thread_ts and len(targets) != 1:
            raise SlackError("invalid_arguments", ["[ERROR] thread_ts needs exactly one channel"])
        comment = p.get("initial_comment")
        blocks = None if comment else _json_arg(p.get("blocks"), "invalid_blocks_format")
        files = [f for f in stored if f is not None]
        for item, f in zip(items, files, strict=True):
            f.pending = False
            f.obj["title"] = item.get("title") or f.obj["name"]
        for channel in targets:
            root = self._thread_root(channel, thread_ts)
            msg = self._bot_message(channel, comment or "", blocks, root, files=[f.obj for f in files], upload=True,
                                    display_as_bot=False)
            share = {"ts": msg["ts"], **({"thread_ts": root} if root else {})}
            for f in files:
                kind = {"C": "channels", "G": "groups", "D": "ims"}.get(channel[:1], "channels")
                f.obj[kind].append(channel)
                f.obj["shares"].setdefault("public" if kind == "channels" else "private", {}) \
                    .setdefault(channel, []).append(share)
            msg["files"] = copy.deepcopy(msg["files"])
        for f in files:
            self.uploads.append({"file_id": f.obj["id"], "filename": f.obj["name"], "title": f.obj["title"],
                                 "data": f.data, "length": len(f.data or b""), "mimetype": f.obj["mimetype"],
                                 "channel_id": p.get("channel_id"), "channels": targets, "thread_ts": thread_ts,
                                 "initial_comment": comment})
        return {"files": [copy.deepcopy(f.obj) for f in files]}

    def _replies(self, p: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(p)
        msg = self._messages.get(channel, {}).get(str(p.get("ts") or ""))
        root_ts = msg.get("thread_ts", msg["ts"]) if msg else None
        if root_ts is None or root_ts not in self._messages[channel]:
            raise SlackError("thread_not_found")
        thread = self._thread_messages(channel, root_ts)
        limit = str(p.get("limit") or "")
        size = min(max(int(limit), 1), MAX_REPLIES_PAGE) if limit.isdigit() else MAX_REPLIES_PAGE
        start = 0
        if p.get("cursor"):
            try:
                after = base64.b64decode(str(p["cursor"]), validate=True).decode().removeprefix("next_ts:")
                start = next(i for i, m in enumerate(thread) if m["ts"] == after)
            except (ValueError, StopIteration):
                raise SlackError("invalid_cursor") from None
        page, rest = thread[start:start + size], thread[start + size:]
        cursor = base64.b64encode(f"next_ts:{rest[0]['ts']}".encode()).decode() if rest else ""
        return {"messages": page, "has_more": bool(rest), "response_metadata": {"next_cursor": cursor}}

    # -- files-pri -----------------------------------------------------------------------------------------------

    def _download(self, path: str, headers: dict[str, str]) -> _Reply:
        if headers.get("authorization", "") != f"Bearer {self.bot_token}":
            return _Reply(200, SIGN_IN_PAGE, "text/html; charset=utf-8")  # what Slack serves a browser not signed in
        match = _DOWNLOAD.fullmatch(path)
        stored = self._files.get(match.group(2)) if match and match.group(1) == self.team_id else None
        if stored is None or stored.pending or stored.data is None or stored.obj["name"] != match.group(4):
            return _Reply(404, b"<!DOCTYPE html><html><body><h1>File not found</h1></body></html>", "text/html")
        disposition = "attachment" if match.group(3) else "inline"
        return _Reply(200, stored.data, stored.obj["mimetype"],
                      (("Content-Disposition", f'{disposition}; filename="{stored.obj["name"]}"'),))

    # -- HTTP --------------------------------------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                at = time.monotonic()
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                try:
                    reply = stub.handle(self.command, self.path, headers, raw, at)
                except Exception as exc:  # a stub bug must show up in the test, not as a dropped connection
                    reply = _Reply(500, json.dumps({"ok": False, "error": f"stub_bug: {exc!r}"}).encode())
                self.send_response(reply.status)
                self.send_header("content-type", reply.content_type)
                self.send_header("content-length", str(len(reply.body)))
                self.send_header("x-slack-req-id", uuid.uuid4().hex)
                for name, value in reply.headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(reply.body)

            do_GET = do_POST = _serve  # noqa: N815 (http.server's naming)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (base-class signature)
                pass

        return Handler
