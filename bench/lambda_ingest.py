"""Per-document ingest time through the Lambda path: each PDF is put into the library bucket of a local stack
(moto server with the resources of ``template.yaml``), travels through the real S3 → SQS notification, and is
handled by ``lambdas.ingest.app.handler`` (powertools batch + idempotency on DynamoDB, S3 reads, status record,
graph fragment), exactly as ``lcabot dev`` runs it. Prints figures, asserts nothing.

Run: ``.venv/bin/python bench/lambda_ingest.py [CORPUS] [--limit N]``

The index is the embedded SQLite file in a temporary ``LCABOT_HOME`` (set ``LCABOT_OPENSEARCH_URL`` to measure an
OpenSearch cluster instead). The first document's time includes the embedding model's load (the cold start).
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
PERSPECTIVE_DIRS = ("academic", "industry", "public", "eu_funding")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int, default=0, help="only the first N PDFs (0: all)")
    args = parser.parse_args()
    pdfs = sorted(args.corpus.rglob("*.pdf"))[: args.limit or None]
    if not pdfs:
        sys.exit(f"no PDF under {args.corpus}")

    import boto3

    from lcabot.adapters.aws import DynamoStatusStore
    from lcabot.dev import loop as devloop
    from lcabot.dev import stack as devstack

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = devloop.start_moto_server(port)
    home = tempfile.mkdtemp(prefix="lambda-ingest-")
    try:
        endpoint = f"http://127.0.0.1:{port}"
        devloop.use_endpoint(endpoint)
        stack = devstack.create_stack(REPO / "template.yaml", endpoint_url=endpoint)
        os.environ.update(stack.env())
        os.environ.update({"LCABOT_HOME": home, "POWERTOOLS_LOG_LEVEL": "ERROR"})
        from lambdas.ingest.app import handler

        poller = devloop.QueuePoller(stack.queues["IngestQueue"], handler, function_name="IngestFunction")
        poller.drain(timeout_s=30)  # the s3:TestEvent sent when the notification was configured
        s3 = boto3.client("s3")
        status = DynamoStatusStore(stack.env()["LCABOT_STATUS_TABLE"])
        print(f"{'document':58} {'pages':>5} {'chunks':>6} {'seconds':>8} {'pages/s':>8}  status")
        total_pages, total_s = 0, 0.0
        for i, pdf in enumerate(pdfs):
            perspective = pdf.parent.name if pdf.parent.name in PERSPECTIVE_DIRS else "general"
            key = f"library/{perspective}/{pdf.name}"
            start = time.perf_counter()
            s3.put_object(Bucket=stack.env()["LCABOT_LIBRARY_BUCKET"], Key=key, Body=pdf.read_bytes())
            poller.drain(timeout_s=900)
            seconds = time.perf_counter() - start
            result = status.get(key)
            note = " (includes model load: cold start)" if i == 0 else ""
            print(f"{pdf.name[:58]:58} {result.n_pages:5d} {result.n_chunks:6d} {seconds:8.1f} "
                  f"{result.n_pages / seconds:8.1f}  {result.status}{note}")
            if i:
                total_pages, total_s = total_pages + result.n_pages, total_s + seconds
        if total_s:
            print(f"warm documents: {total_pages} pages in {total_s:.1f} s = {total_pages / total_s:.1f} pages/s")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS of this process (handler + moto server): {peak:.0f} MB")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
