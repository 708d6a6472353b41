"""A ``ReportJob`` through the real report queue: the study is fetched from the reports bucket (size limit checked
before download), the report pipeline runs, and the files reach the conversation through the platform client."""

from __future__ import annotations

from pathlib import Path

import pytest

from lcabot import messages
from lcabot.adapters.outbox import LocalOutbox
from lcabot.jobs import ConversationRef, FileRef, ReportJob
from tests.conftest import CORPUS

pytestmark = pytest.mark.corpus

COFFEE = CORPUS / "studies" / "nab-maslin-2020-coffee-carbon-footprint.pdf"


def send_report_job(stack, dedupe_key: str, key: str, name: str) -> None:
    bucket = stack.env["LCABOT_REPORTS_BUCKET"]
    job = ReportJob(dedupe_key, ConversationRef("local", "C-report", "1764460800.000500"), "U1",
                    FileRef(name, bucket, key))
    stack.sqs.send_message(QueueUrl=stack.env["LCABOT_REPORT_QUEUE_URL"], MessageBody=job.to_json())


def deliveries(stack, kind: str) -> list[dict]:
    return [e for e in LocalOutbox(stack.home / "outbox").read() if e["channel"] == "C-report" and e["kind"] == kind]


def test_a_report_job_delivers_markdown_docx_and_chart_once(stack):
    key = "uploads/T1/coffee study.pdf"
    stack.s3.put_object(Bucket=stack.env["LCABOT_REPORTS_BUCKET"], Key=key, Body=COFFEE.read_bytes())
    for _ in range(2):  # a duplicate delivery of the same job produces one report
        send_report_job(stack, "T1|C-report|1764460800.000600", key, "coffee study.pdf")
    handled, failed = stack.report()
    assert (handled, failed) == (2, 0)
    (delivered,) = deliveries(stack, "files")
    assert [Path(f).suffix for f in delivered["files"]] == [".md", ".docx", ".png"]
    assert delivered["text"] == messages.report_ready("coffee study.pdf")
    markdown = Path(delivered["files"][0]).read_text(encoding="utf-8")
    assert "| Exportation | 10.44 |" in markdown
    assert "Stated total 11.56 kg CO2e kg–1 green coffee; stages sum to 11.55 kg CO2e kg–1 green coffee" in markdown
    assert Path(delivered["files"][2]).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_a_study_above_the_size_limit_is_refused_with_a_notice(stack):
    key = "uploads/T1/big.pdf"
    stack.s3.put_object(Bucket=stack.env["LCABOT_REPORTS_BUCKET"], Key=key, Body=COFFEE.read_bytes())  # 2.3 MB
    with stack.using(max_pdf_mb=1.0):
        send_report_job(stack, "T1|C-report|1764460800.000700", key, "big.pdf")
        assert stack.report() == (1, 0)
    notice = deliveries(stack, "notice")[-1]["text"]
    assert notice == messages.report_refused("big.pdf: 2.3 MB is above the limit of 1 MB")


def test_a_report_job_for_a_missing_file_gets_a_notice_without_retries(stack):
    send_report_job(stack, "T1|C-report|1764460800.000800", "uploads/T1/never-uploaded.pdf", "never-uploaded.pdf")
    assert stack.report() == (1, 0)
    assert deliveries(stack, "notice")[-1]["text"] == messages.report_refused(
        "never-uploaded.pdf was not found (it may have been deleted); please share it again")
