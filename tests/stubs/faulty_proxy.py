"""A fault-injecting HTTP proxy in front of an AWS JSON-protocol endpoint (DynamoDB on moto server): point a client
at it with ``AWS_ENDPOINT_URL_DYNAMODB=proxy.url`` and every request is forwarded to ``upstream`` unchanged (the
signature stays valid: moto does not check the host it is signed for), after an optional delay.

Faults are armed per operation (the ``X-Amz-Target`` suffix, e.g. ``TransactWriteItems``):

- :meth:`FaultyProxy.lose_response` forwards the next such request, so it takes effect upstream, then closes the
  connection without answering, as when a response is lost on the network; the SDK retries the same request.
- :meth:`FaultyProxy.fail` answers the next such request with HTTP 500 ``InternalServerError`` without forwarding.
- ``delay_s`` holds every request that long before forwarding it (a slow DynamoDB).

Every request's operation is recorded in :attr:`FaultyProxy.calls`, in order (retries included).
"""

from __future__ import annotations

import http.client
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length"}


class FaultyProxy:
    def __init__(self, upstream: str, delay_s: float = 0.0) -> None:
        self.upstream = urlsplit(upstream)
        self.delay_s = delay_s
        self.calls: list[str] = []
        self._lose: Counter[str] = Counter()
        self._fail: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "start() first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def lose_response(self, operation: str, times: int = 1) -> None:
        with self._lock:
            self._lose[operation] += times

    def fail(self, operation: str, times: int = 1) -> None:
        with self._lock:
            self._fail[operation] += times

    def count(self, operation: str | None = None) -> int:
        with self._lock:
            return sum(1 for c in self.calls if operation is None or c == operation)

    def start(self) -> FaultyProxy:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                operation = (self.headers.get("X-Amz-Target") or "").rpartition(".")[2]
                with proxy._lock:
                    proxy.calls.append(operation)
                    fail = proxy._fail[operation] > 0
                    lose = not fail and proxy._lose[operation] > 0
                    if fail:
                        proxy._fail[operation] -= 1
                    if lose:
                        proxy._lose[operation] -= 1
                if proxy.delay_s:
                    time.sleep(proxy.delay_s)
                if fail:
                    payload = b'{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError",' \
                              b'"message":"Internal server error (injected)"}'
                    self.send_response(500)
                    self.send_header("Content-Type", "application/x-amz-json-1.0")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                upstream = http.client.HTTPConnection(proxy.upstream.hostname, proxy.upstream.port, timeout=30)
                try:
                    upstream.request("POST", self.path, body=body, headers={
                        k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP})
                    response = upstream.getresponse()
                    payload = response.read()
                finally:
                    upstream.close()
                if lose:  # it happened upstream; the caller never hears
                    self.close_connection = True
                    return
                self.send_response(response.status)
                for k, v in response.getheaders():
                    if k.lower() not in _HOP_BY_HOP:
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
