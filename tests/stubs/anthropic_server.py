"""A local stand-in for the Anthropic Messages API: a threaded HTTP server on 127.0.0.1 that speaks the wire
protocol of ``POST /v1/messages``, rejects request shapes the real API rejects, records every request, and answers
from a scripted queue (a reply can be computed from the request body, e.g. from the evidence it carries)."""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_EVIDENCE = re.compile(r"<evidence>\n(.*?)\n</evidence>", re.S)


@dataclass(frozen=True)
class Reply:
    status: int
    body: dict[str, Any]
    delay_s: float = 0.0  # sleep before answering (to provoke client timeouts)
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None  # sent instead of ``body`` as JSON (e.g. an event stream)
    content_type: str = "application/json"
    drip_s: float = 0.0  # send the body a byte at a time, this long apart (each read is quick; the reply is not)


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any


Script = Reply | Callable[[dict[str, Any]], Reply]


def message(text: str, *, stop_reason: str = "end_turn", model: str = "claude-test", delay_s: float = 0.0,
            drip_s: float = 0.0) -> Reply:
    """A successful Messages API response holding one text block."""
    body = {
        "id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": text}], "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": 812, "output_tokens": max(1, len(text) // 4)},
    }
    return Reply(200, body, delay_s, drip_s=drip_s)


def tool_use(name: str, tool_input: Any, *, stop_reason: str = "tool_use", model: str = "claude-test",
             text: str | None = None, delay_s: float = 0.0, drip_s: float = 0.0) -> Reply:
    """A successful Messages API response calling the tool ``name`` with ``tool_input`` (a ``tool_use`` block with
    ``id``, ``name`` and ``input``; ``stop_reason`` "tool_use"), after a text block when ``text`` is given."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text is not None else []
    content.append({"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:24]}", "name": name, "input": tool_input})
    body = {
        "id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": 812, "output_tokens": max(1, len(json.dumps(tool_input)) // 4)},
    }
    return Reply(200, body, delay_s, drip_s=drip_s)


def error(status: int, kind: str, text: str, *, headers: dict[str, str] | None = None) -> Reply:
    """An error response in the API's shape, e.g. ``error(529, "overloaded_error", "Overloaded")``."""
    body = {"type": "error", "error": {"type": kind, "message": text}, "request_id": f"req_{uuid.uuid4().hex[:24]}"}
    return Reply(status, body, headers=headers or {})


def evidence_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The evidence objects (one JSON object a line) inside ``<evidence>…</evidence>`` of the last user message."""
    content = body["messages"][-1]["content"]
    match = _EVIDENCE.search(content if isinstance(content, str) else "")
    return [json.loads(line) for line in match.group(1).splitlines()] if match else []


def _invalid(body: Any) -> str | None:
    """What the real API would reject in a request body with 400 ``invalid_request_error``."""
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    for name in ("model", "max_tokens", "messages"):
        if name not in body:
            return f"{name}: Field required"
    if not isinstance(body["model"], str) or not body["model"]:
        return "model: Input should be a valid string"
    if not isinstance(body["max_tokens"], int) or body["max_tokens"] < 1:
        return "max_tokens: Input should be greater than or equal to 1"
    messages = body["messages"]
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant") or not msg.get("content"):
            return f"messages.{i}: each message needs a role (user|assistant) and non-empty content"
    if "system" in body and not isinstance(body["system"], str | list):
        return "system: Input should be a valid string or list"
    tools = body.get("tools", [])
    if not isinstance(tools, list) or not all(
            isinstance(t, dict) and isinstance(t.get("name"), str) and isinstance(t.get("input_schema"), dict)
            and t["input_schema"].get("type") == "object" for t in tools):
        return "tools: each tool needs a name and an input_schema of type object"
    choice = body.get("tool_choice")
    if choice is not None:
        if not isinstance(choice, dict) or choice.get("type") not in ("auto", "any", "tool", "none"):
            return "tool_choice: Input should be auto, any, tool or none"
        if choice["type"] == "tool" and choice.get("name") not in {t["name"] for t in tools}:
            return f"tool_choice: tool {choice.get('name')!r} is not in tools"
    return None


class AnthropicStub:
    """Start with ``with AnthropicStub() as stub:``; point the SDK at ``stub.url``.

    ``stub.script(...)`` queues replies (consumed one per request); ``stub.always(...)`` answers every request
    once the queue is empty. With neither, the stub answers 500 so a missing script shows up as a failure.
    """

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self._queue: deque[Script] = deque()
        self._default: Script | None = None
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="anthropic-stub",
                                        daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, *replies: Script) -> None:
        with self._lock:
            self._queue.extend(replies)

    def always(self, reply: Script) -> None:
        self._default = reply

    def __enter__(self) -> AnthropicStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()  # wakes handlers sleeping in a delay
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            item = self._queue.popleft() if self._queue else self._default
        if item is None:
            return error(500, "api_error", "stub: no scripted reply left")
        try:
            return item(body) if callable(item) else item
        except Exception as exc:  # a broken script must fail the test, not hang the client
            return error(500, "api_error", f"stub: the scripted reply failed: {exc!r}")

    def _respond(self, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = None
        self.requests.append(Received(path, headers, body))
        if path != "/v1/messages":
            return error(404, "not_found_error", f"Not found: {path}")
        if not headers.get("x-api-key"):
            return error(401, "authentication_error", "x-api-key header is required")
        if not headers.get("anthropic-version"):
            return error(400, "invalid_request_error", "anthropic-version: header is required")
        problem = _invalid(body)
        return error(400, "invalid_request_error", problem) if problem else self._next(body)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                reply = stub._respond(self.path, headers, raw)
                if reply.delay_s and stub._stopping.wait(reply.delay_s):
                    self.close_connection = True
                    return
                data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", reply.content_type)
                    self.send_header("content-length", str(len(data)))
                    self.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    if reply.drip_s:
                        for i in range(len(data)):
                            if stub._stopping.wait(reply.drip_s):
                                break
                            self.wfile.write(data[i:i + 1])
                            self.wfile.flush()
                    else:
                        self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up (timeout) before the delayed reply

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (base-class signature)
                pass

        return Handler
