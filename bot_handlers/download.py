"""Fetching a PDF someone shared in chat, the same for Slack and Teams: the size limit checked before and while
downloading, the platform's "gone" answers turned into a clear reason, and what arrives checked to be a PDF."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Mapping

from lcabot import messages
from lcabot.errors import FileUnavailableError, NotAPdfError, TooLargeError
from lcabot.jobs import FileRef

TIMEOUT_S = 60


def fetch_pdf(file: FileRef, limit_bytes: int, *, platform: str, headers: Mapping[str, str] | None = None) -> bytes:
    """The bytes at ``file.url`` (a Slack ``url_private_download`` with the bot token in ``headers``, or a Teams
    pre-authenticated ``downloadUrl``), at most ``limit_bytes``.

    Raises:
        TooLargeError: ``file.size`` or the download is above ``limit_bytes``.
        FileUnavailableError: the platform answers 4xx (the file was deleted, unshared, or its link expired).
        NotAPdfError: what arrived is not a PDF (e.g. Slack's HTML login page when the token may not read files).
    """
    limit_mb = limit_bytes / 1048576
    if file.size is not None and file.size > limit_bytes:
        raise TooLargeError(file.name, messages.over_size_limit(file.size, limit_mb))
    request = urllib.request.Request(file.url, headers=dict(headers or {}))
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310 (the platform's https URL)
            data = response.read(limit_bytes + 1)
    except urllib.error.HTTPError as err:
        if 400 <= err.code < 500:
            raise FileUnavailableError(file.name, f"{platform} no longer has this file (deleted, no longer shared, "
                                                  "or the link expired); please share it again") from None
        raise
    if len(data) > limit_bytes:
        raise TooLargeError(file.name, messages.over_size_limit(None, limit_mb))
    if not data.startswith(b"%PDF-"):
        raise NotAPdfError(file.name, f"{platform} did not send a PDF (is it a PDF, and may the app read files?)")
    return data
