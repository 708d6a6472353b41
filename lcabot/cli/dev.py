"""``lcabot dev``: run the serverless stack on this machine, and talk to it from a second terminal.

* ``lcabot dev`` starts moto server (S3, SQS, DynamoDB) on loopback, creates the resources of ``template.yaml``
  (bucket → ingest-queue notification included) and feeds the queues to the ingest, answer and report Lambda
  handlers, against the embedded index in ``LCABOT_HOME`` (or OpenSearch when ``LCABOT_OPENSEARCH_URL`` is set).
* ``lcabot dev put FILE.pdf --perspective P`` uploads to ``library/P/FILE.pdf`` and waits for the ingest status.
* ``lcabot dev ask "QUESTION"`` enqueues an answer job for the ``local`` platform and prints the delivered reply.
* ``lcabot dev rm KEY`` deletes a library object (its chunks and graph fragment go with it).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from rich.console import Console
from rich.markup import escape

from lcabot.config import PERSPECTIVES, Settings
from lcabot.errors import ConfigurationError
from lcabot.wiring import Deps

if TYPE_CHECKING:
    from lcabot.dev.loop import QueuePoller

console = Console(soft_wrap=True)
DEFAULT_PORT = 5055
STOP_WAIT_S = 5  # Ctrl-C waits this long for each poller (a job still running is abandoned; SQS redelivers it)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    dev = sub.add_parser("dev", help="run the serverless stack locally (moto server + the Lambda handlers)")
    dev.add_argument("--port", type=port_number, default=DEFAULT_PORT,
                     help=f"moto server port (default {DEFAULT_PORT})")
    dev.add_argument("--template", type=Path, default=Path("template.yaml"))
    dev.set_defaults(func=cmd_serve)
    dev_sub = dev.add_subparsers(metavar="ACTION")
    put = dev_sub.add_parser("put", help="upload PDFs to the local library bucket and wait until indexed")
    put.add_argument("paths", nargs="+", type=Path, metavar="PDF")
    put.add_argument("--perspective", choices=PERSPECTIVES, default="general")
    put.add_argument("--timeout", type=float, default=600.0, help="seconds to wait per file")
    put.set_defaults(func=_guarded(cmd_put))
    ask = dev_sub.add_parser("ask", help="send a question through the answer queue and print the reply")
    ask.add_argument("question")
    ask.add_argument("--timeout", type=float, default=300.0)
    mode = ask.add_mutually_exclusive_group()
    mode.add_argument("--graph", dest="mode", action="store_const", const="rag+graph", help="use the knowledge graph")
    mode.add_argument("--rag", dest="mode", action="store_const", const="rag", help="passages only")
    ask.set_defaults(func=_guarded(cmd_ask), mode=None)
    rm = dev_sub.add_parser("rm", help="delete a library object (S3 key or file name)")
    rm.add_argument("key")
    rm.add_argument("--timeout", type=float, default=120.0)
    rm.set_defaults(func=_guarded(cmd_rm))


def _guarded(command: Callable[[argparse.Namespace, Settings], int]) -> Callable[[argparse.Namespace, Deps], int]:
    """The command, with a lost connection to the local stack (stopped mid-wait) as a one-line error."""

    def run(args: argparse.Namespace, deps: Deps) -> int:
        from botocore.exceptions import EndpointConnectionError

        try:
            return command(args, deps.settings)
        except EndpointConnectionError:
            raise ConfigurationError("the local stack stopped (restart it with `lcabot dev`)") from None

    return run


def port_number(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be between 1 and 65535, got {value}")
    return value


def cmd_serve(args: argparse.Namespace, deps: Deps) -> int:
    from lcabot.dev import loop as devloop
    from lcabot.dev import stack as devstack

    settings = deps.settings

    if not args.template.is_file():
        raise ConfigurationError(f"{args.template} not found: run `lcabot dev` from the repository root "
                                 "or pass --template")
    server = devloop.start_moto_server(args.port)
    endpoint = f"http://127.0.0.1:{args.port}"
    try:
        devloop.use_endpoint(endpoint)
        stack = devstack.create_stack(args.template, endpoint_url=endpoint)
        os.environ.update(stack.env())
        os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
        pollers = devloop.worker_pollers(stack.queues)
        devloop.write_state(settings.home, endpoint, stack.env())  # last: `dev put/ask` wait for this file
        index = "OpenSearch at " + settings.opensearch_url if settings.opensearch_url else str(settings.index_path)
        library = stack.env()["LCABOT_LIBRARY_BUCKET"]
        console.print(f"[bold]lcabot dev[/]: moto server at {endpoint}; index: {escape(index)}\n"
                      f"  drop PDFs:  lcabot dev put FILE.pdf --perspective academic   "
                      f"(or any S3 client: s3://{library}/library/<perspective>/…)\n"
                      f"  ask:        lcabot dev ask \"What cut-off does the PEF method allow?\"\n"
                      "Ctrl-C stops.")
        # Ctrl-C and SIGTERM stop the stack even when it was started with SIGINT ignored (a background job of a
        # shell without job control inherits SIG_IGN, and Python then leaves it so)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, _interrupt)
        stop = threading.Event()
        threads = [threading.Thread(target=_poll, args=(p, stop), name=p.function_name, daemon=True)
                   for p in pollers]  # one per queue: like Lambda, a long ingest never delays an answer
        for thread in threads:
            thread.start()
        try:
            while True:
                time.sleep(0.5)
        finally:  # the pollers stop asking the queues before the server they ask goes away
            stop.set()
            for thread in threads:
                thread.join(timeout=STOP_WAIT_S)
    except KeyboardInterrupt:
        console.print("stopped")
        return 0
    finally:
        server.stop()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _poll(poller: QueuePoller, stop: threading.Event) -> None:
    """Feed one queue to its handler until ``stop``; one line per batch on the console."""
    while not stop.is_set():
        try:
            handled, failed = poller.poll_once(wait_s=1)
        except Exception as err:  # the loop must survive anything a handler or moto raises
            console.print(f"[red]{poller.function_name}: {escape(type(err).__name__)}: {escape(str(err))}[/]")
            time.sleep(1)
            continue
        if failed:
            console.print(f"[red]{poller.function_name}: {failed} of {handled} record(s) failed; SQS retries them, "
                          "then moves them to the dead-letter queue[/]")
        elif handled:
            console.print(f"[dim]{poller.function_name}: {handled} record(s) done[/]")


def _connect(settings: Settings) -> dict[str, str]:
    from lcabot.dev import loop as devloop

    state = devloop.read_state(settings.home)
    endpoint = urlsplit(state["endpoint_url"])
    try:
        socket.create_connection((endpoint.hostname, endpoint.port), timeout=2).close()
    except OSError:
        raise ConfigurationError(f"the local stack at {state['endpoint_url']} is not running "
                                 "(start it with `lcabot dev`)") from None
    devloop.use_endpoint(state["endpoint_url"])
    env: dict[str, str] = state["env"]
    return env


def cmd_put(args: argparse.Namespace, settings: Settings) -> int:
    import boto3

    from lcabot.adapters.aws import DynamoStatusStore

    for path in args.paths:
        if not path.is_file() or path.suffix.lower() != ".pdf":
            reason = "is not a .pdf file" if path.is_file() else "does not exist or is not a file"
            console.print(f"[red]{escape(str(path))} {reason}; nothing uploaded[/]")
            return 2
    env = _connect(settings)
    s3 = boto3.client("s3")
    status = DynamoStatusStore(env["LCABOT_STATUS_TABLE"])
    failed = 0
    for path in args.paths:
        key = f"library/{args.perspective}/{path.name}"
        before = status.get(key)
        etag = s3.put_object(Bucket=env["LCABOT_LIBRARY_BUCKET"], Key=key, Body=path.read_bytes(),
                             ContentType="application/pdf")["ETag"].strip('"')
        with console.status(f"{key}: uploaded, waiting for the ingest Lambda…"):
            deadline = time.monotonic() + args.timeout
            while (current := status.get(key)) is None or current == before or current.etag != etag \
                    or current.status == "indexing":  # the ingest Lambda is at work: its outcome follows
                if time.monotonic() > deadline:
                    console.print(f"[red]{escape(key)}: no status after {args.timeout:.0f} s; is `lcabot dev` "
                                  "running?[/]")
                    return 1
                time.sleep(0.5)
        style = "red" if current.status == "failed" else "green"
        console.print(f"[{style}]{escape(current.message)}[/]")
        failed += current.status == "failed"
    return 1 if failed else 0


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    import boto3

    from lcabot.adapters.outbox import LocalOutbox
    from lcabot.jobs import AnswerJob, ConversationRef

    env = _connect(settings)
    channel = f"cli-{uuid.uuid4()}"  # its own conversation: the reply (answer or notice) is the one on this channel
    job = AnswerJob(channel, ConversationRef("local", channel), os.environ.get("USER", "cli"), args.question,
                    retrieval_mode=args.mode or settings.retrieval_mode)
    boto3.client("sqs").send_message(QueueUrl=env["LCABOT_ANSWER_QUEUE_URL"], MessageBody=job.to_json())
    outbox = LocalOutbox(settings.home / "outbox")
    with console.status("waiting for the answer Lambda…"):
        deadline = time.monotonic() + args.timeout
        while not (reply := [e for e in outbox.read() if e.get("channel") == channel]):
            if time.monotonic() > deadline:
                console.print(f"[red]no reply after {args.timeout:.0f} s; is `lcabot dev` running?[/]")
                return 1
            time.sleep(0.5)
    console.print(escape(reply[0]["text"]))
    return 0


def cmd_rm(args: argparse.Namespace, settings: Settings) -> int:
    import boto3

    from lcabot.adapters.aws import DynamoStatusStore

    env = _connect(settings)
    s3 = boto3.client("s3")
    bucket = env["LCABOT_LIBRARY_BUCKET"]
    keys = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix="library/")
            for o in page.get("Contents", [])]
    matches = [k for k in keys if args.key in (k, k.rsplit("/", 1)[-1])]
    if len(matches) != 1:
        console.print(f"[red]{'no' if not matches else len(matches)} library object(s) match "
                      f"{escape(args.key)}[/]: " + ", ".join(escape(k) for k in keys[:20]))
        return 1
    status = DynamoStatusStore(env["LCABOT_STATUS_TABLE"])
    before = status.get(matches[0])
    s3.delete_object(Bucket=bucket, Key=matches[0])
    deadline = time.monotonic() + args.timeout
    while (current := status.get(matches[0])) is None or current == before or current.status != "removed":
        if time.monotonic() > deadline:
            console.print(f"[red]{escape(matches[0])}: deleted, but no removal status after {args.timeout:.0f} s[/]")
            return 1
        time.sleep(0.5)
    console.print(escape(current.message))
    return 0
