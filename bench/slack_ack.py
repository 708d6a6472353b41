"""Slack acknowledgement latency: signed ``app_mention`` requests through the real Slack Lambda handler
(``bot_handlers.slack.app.handler``, Bolt with signature verification), in process, against moto server (the
template's conversations table and queues) and the local Slack Web API server, with DynamoDB reached through a proxy
that holds every call for an injected latency (0, 100 and 500 ms by default). Each request claims the message
(remembering the thread and counting the rate limits in the same transaction), posts the placeholder, enqueues the
job and settles the claim: what happens before Slack gets its 200. Prints figures, asserts nothing.

Run: ``.venv/bin/python bench/slack_ack.py [--requests 100] [--latency-ms 0,100,500]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot_handlers.slack import app as slack_app  # noqa: E402
from lcabot.dev import loop as devloop  # noqa: E402
from lcabot.dev import stack as devstack  # noqa: E402
from tests import slack_events as ev  # noqa: E402
from tests.stack.conftest import free_port  # noqa: E402
from tests.stubs.faulty_proxy import FaultyProxy  # noqa: E402
from tests.stubs.slack_server import SlackAPIStub  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=100, help="warm requests per latency")
    parser.add_argument("--latency-ms", default="0,100,500", help="DynamoDB latencies to inject, comma-separated")
    args = parser.parse_args()
    latencies = [int(x) for x in args.latency_ms.split(",") if x.strip()]
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
                       "AWS_DEFAULT_REGION": "us-east-1"})
    port = free_port()
    server = devloop.start_moto_server(port)
    stub = SlackAPIStub(team_id=ev.TEAM).start()
    try:
        endpoint = f"http://127.0.0.1:{port}"
        devloop.use_endpoint(endpoint)
        resources = devstack.create_stack(ROOT / "template.yaml", endpoint_url=endpoint)
        os.environ.update(resources.env())
        os.environ.update({"LCABOT_SLACK_BOT_TOKEN": stub.bot_token, "LCABOT_SLACK_SIGNING_SECRET": ev.SIGNING_SECRET,
                           "LCABOT_SLACK_API_URL": stub.api_url})
        proxy = FaultyProxy(endpoint).start()
        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = proxy.url
        context = devloop.LambdaContext("SlackFunction", timeout_s=10)
        base, n = int(time.time()), 0
        print(f"{args.requests} warm requests per latency (Slack's limit: 3,000 ms)")
        for latency in latencies:
            proxy.delay_s = latency / 1000
            calls_before = proxy.count()
            timings = []
            for _ in range(args.requests + 1):
                n += 1
                # a different user and channel each time, so the per-user and per-channel limits never answer
                event = ev.event_callback(ev.mention("What is the functional unit of the coffee study?",
                                                     f"{base}.{n:06d}", user=f"U{n:06d}", channel=f"C{n:06d}"))
                start = time.perf_counter()
                response = slack_app.handler(event, context)
                timings.append(time.perf_counter() - start)
                if response["statusCode"] != 200:
                    raise SystemExit(f"request {n}: HTTP {response['statusCode']} {response['body']}")
            cold, warm = timings[0], sorted(timings[1:])
            p99 = warm[min(len(warm) - 1, round(0.99 * len(warm)) - 1)]
            calls = (proxy.count() - calls_before) / len(timings)
            print(f"DynamoDB +{latency:>3} ms: p50 {statistics.median(warm) * 1000:7.1f} ms, p99 {p99 * 1000:7.1f} ms, "
                  f"max {warm[-1] * 1000:7.1f} ms; {calls:.1f} DynamoDB calls per request"
                  + (f"; first request (builds the Bolt app, auth.test) {cold * 1000:.1f} ms" if n == 1 + args.requests
                     else ""))
        print(f"Slack Web API calls: {len(stub.calls_to('chat.postMessage'))} chat.postMessage, "
              f"{len(stub.calls_to('auth.test'))} auth.test")
        proxy.stop()
    finally:
        stub.stop()
        server.stop()


if __name__ == "__main__":
    main()
