"""The ``JobQueue`` on SQS: ``AnswerJob``s to the answer queue; ``ReportJob``s and ``IndexJob``s (file jobs) to the
report queue (``Settings.answer_queue_url``, ``Settings.report_queue_url``)."""

from __future__ import annotations

from typing import Any

import boto3

from lcabot.jobs import AnswerJob, IndexJob, ReportJob


class JobQueues:
    """Sends jobs, each to its queue, as the job's JSON (:meth:`lcabot.jobs.AnswerJob.to_json`).

    Raises (``send``):
        botocore.exceptions.ClientError: SQS refused the message (the caller releases its claim and fails the
            request, so the platform retries).
    """

    def __init__(self, answer_url: str, report_url: str, client: Any = None) -> None:
        self._urls = {AnswerJob: answer_url, ReportJob: report_url, IndexJob: report_url}
        self._sqs = client or boto3.client("sqs")

    def send(self, job: AnswerJob | ReportJob | IndexJob) -> None:
        self._sqs.send_message(QueueUrl=self._urls[type(job)], MessageBody=job.to_json())
