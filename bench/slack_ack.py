"""Slack acknowledgement latency: signed ``app_mention`` requests through the real Slack Lambda handler
(``bot_handlers.slack.app.handler``, Bolt with signature verification), in process, against moto server (the
template's conversations table and queues) and the local Slack Web API server. Each request claims the message,
counts the rate limit, posts the placeholder and enqueues the job: what happens before Slack gets its 200.
Prints figures, asserts nothing.

Run: ``.venv/bin/python bench/slack_ack.py [--requests 200]``
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
from lcabot import devloop, devstack  # noqa: E402
from tests import slack_events as ev  # noqa: E402
from tests.stack.conftest import free_port  # noqa: E402
from tests.stubs.slack_server import SlackAPIStub  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
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
        context = devloop.LambdaContext("SlackFunction", timeout_s=10)
        base = int(time.time())
        timings = []
        for i in range(args.requests + 1):
            # a different user and channel each time, so the per-user and per-channel limits never answer instead
            event = ev.event_callback(ev.mention("What is the functional unit of the coffee study?",
                                                 f"{base}.{i:06d}", user=f"U{i:06d}", channel=f"C{i:06d}"))
            start = time.perf_counter()
            response = slack_app.handler(event, context)
            timings.append(time.perf_counter() - start)
            if response["statusCode"] != 200:
                raise SystemExit(f"request {i}: HTTP {response['statusCode']} {response['body']}")
        cold, warm = timings[0], sorted(timings[1:])
        p99 = warm[min(len(warm) - 1, round(0.99 * len(warm)) - 1)]
        print(f"first request (builds the Bolt app, auth.test): {cold * 1000:7.1f} ms")
        print(f"{len(warm)} warm requests: p50 {statistics.median(warm) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
              f"max {warm[-1] * 1000:.1f} ms (Slack's limit: 3,000 ms)")
        print(f"Slack Web API calls: {len(stub.calls_to('chat.postMessage'))} chat.postMessage, "
              f"{len(stub.calls_to('auth.test'))} auth.test")
    finally:
        stub.stop()
        server.stop()


if __name__ == "__main__":
    main()
