"""The local Slack Web API stub driven by the real ``slack_sdk.WebClient``: what the SDK sends is what the stub
understands, and the stub refuses and answers as Slack does."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from tests.stubs.slack_server import SlackAPIStub

CHANNEL = "C0LCA"


@pytest.fixture
def stub() -> Iterator[SlackAPIStub]:
    with SlackAPIStub() as running:
        yield running


@pytest.fixture
def client(stub: SlackAPIStub) -> WebClient:
    return WebClient(token=stub.bot_token, base_url=stub.api_url, timeout=5)


def section(text: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def test_auth_test_names_the_bot_and_needs_the_token(stub: SlackAPIStub, client: WebClient) -> None:
    result = client.auth_test()

    assert result.data == {"ok": True, "url": "https://lcabot-test.slack.com/", "team": "LCA Bot Test",
                           "user": "lcabot", "team_id": "T0TEST", "user_id": "U0BOT", "bot_id": "B0BOT",
                           "is_enterprise_install": False}
    assert stub.calls_to("auth.test")[0].headers["authorization"] == "Bearer xoxb-test-token"
    with pytest.raises(SlackApiError) as missing:
        WebClient(base_url=stub.api_url).auth_test()
    with pytest.raises(SlackApiError) as wrong:
        WebClient(token="xoxb-someone-else", base_url=stub.api_url).auth_test()
    assert (missing.value.response["error"], wrong.value.response["error"]) == ("not_authed", "invalid_auth")


def test_post_update_then_replies_show_the_thread_in_order(stub: SlackAPIStub, client: WebClient) -> None:
    root = stub.add_message(CHANNEL, "What is the functional unit?", user="U123", ts="1764000000.000100")

    first = client.chat_postMessage(channel=CHANNEL, text="Searching the library…", thread_ts=root)
    second = client.chat_postMessage(channel=CHANNEL, text="Sources", blocks=[section("*Sources*")], thread_ts=root)
    client.chat_update(channel=CHANNEL, ts=first["ts"], text="1 kg of green coffee [1]")
    replies = client.conversations_replies(channel=CHANNEL, ts=root)

    assert (first["ts"], second["ts"]) == ("1764000000.000200", "1764000000.000300")
    assert [(m["ts"], m["user"], m["text"]) for m in replies["messages"]] == [
        (root, "U123", "What is the functional unit?"),
        (first["ts"], "U0BOT", "1 kg of green coffee [1]"),
        (second["ts"], "U0BOT", "Sources"),
    ]
    assert replies["messages"][0]["reply_count"] == 2
    assert replies["messages"][1]["edited"]["user"] == "U0BOT"
    assert replies["messages"][2]["blocks"] == [section("*Sources*")]
    assert (replies["has_more"], replies["response_metadata"]) == (False, {"next_cursor": ""})
    assert stub.calls_to("chat.postMessage")[0].headers["content-type"] == "application/json;charset=utf-8"
    assert stub.calls_to("conversations.replies")[0].params == {"channel": CHANNEL, "ts": root}
    with pytest.raises(SlackApiError) as unknown:
        client.chat_update(channel=CHANNEL, ts="1764000099.000100", text="x")
    assert unknown.value.response["error"] == "message_not_found"


def test_files_upload_v2_ends_with_the_bytes_in_uploads(stub: SlackAPIStub, client: WebClient,
                                                         tmp_path: Path) -> None:
    root = stub.add_message(CHANNEL, "Report please", user="U123")
    report = tmp_path / "lca-report.docx"
    report.write_bytes(b"PK\x03\x04" + bytes(range(256)) * 4)

    result = client.files_upload_v2(channel=CHANNEL, thread_ts=root, file=str(report), title="LCA report",
                                    initial_comment="Here is the report")

    assert [c.method.split("/v1/")[0] for c in stub.calls] == [
        "files.getUploadURLExternal", "/upload", "files.completeUploadExternal"]
    upload = stub.uploads[0]
    assert upload["data"] == report.read_bytes()
    assert (upload["filename"], upload["title"], upload["channel_id"], upload["thread_ts"],
            upload["initial_comment"]) == ("lca-report.docx", "LCA report", CHANNEL, root, "Here is the report")
    assert result["file"]["id"] == upload["file_id"]
    shared = stub.messages(CHANNEL, thread_ts=root)[-1]
    assert (shared["text"], shared["files"][0]["id"], shared["thread_ts"]) == ("Here is the report",
                                                                               upload["file_id"], root)


def test_rate_limited_call_is_retried_after_retry_after(stub: SlackAPIStub, client: WebClient) -> None:
    client.retry_handlers.append(RateLimitErrorRetryHandler(max_retry_count=1))
    stub.rate_limit_next("chat.postMessage", retry_after=1)

    result = client.chat_postMessage(channel=CHANNEL, text="after the wait")

    limited, retried = stub.calls_to("chat.postMessage")
    assert (limited.status, retried.status, result["ok"]) == (429, 200, True)
    assert retried.at - limited.at >= 1.0
    assert [m["text"] for m in stub.messages(CHANNEL)] == ["after the wait"]


def test_more_than_50_blocks_are_refused_as_invalid_blocks(stub: SlackAPIStub, client: WebClient) -> None:
    client.chat_postMessage(channel=CHANNEL, text="fifty", blocks=[section(f"row {i}") for i in range(50)])

    with pytest.raises(SlackApiError) as refused:
        client.chat_postMessage(channel=CHANNEL, text="too many", blocks=[section(f"row {i}") for i in range(51)])

    assert refused.value.response["error"] == "invalid_blocks"
    assert refused.value.response["response_metadata"]["messages"] == [
        "[ERROR] no more than 50 items allowed [json-pointer:/blocks]"]
    assert [m["text"] for m in stub.messages(CHANNEL)] == ["fifty"]


def test_download_without_the_token_gets_the_sign_in_page(stub: SlackAPIStub, client: WebClient) -> None:
    pdf = b"%PDF-1.7\n1 0 obj<<>>endobj\n%%EOF\n"
    shared = stub.register_file(pdf, "coffee.pdf")
    url = client.files_info(file=shared["id"])["file"]["url_private_download"]

    with urllib.request.urlopen(urllib.request.Request(url, headers={"Authorization": "Bearer xoxb-test-token"}),
                                timeout=5) as signed_in:
        assert (signed_in.status, signed_in.headers["content-type"], signed_in.read()) == (200, "application/pdf",
                                                                                             pdf)
    with urllib.request.urlopen(url, timeout=5) as anonymous:
        body = anonymous.read()
        assert (anonymous.status, anonymous.headers["content-type"]) == (200, "text/html; charset=utf-8")
    assert body.startswith(b"<!DOCTYPE html>") and b"Sign in" in body
    assert url == f"{stub.base_url}/files-pri/T0TEST-{shared['id']}/download/coffee.pdf"


def test_fail_next_answers_the_error_once_and_changes_nothing(stub: SlackAPIStub, client: WebClient) -> None:
    stub.fail_next("chat.postMessage", "channel_not_found")

    with pytest.raises(SlackApiError) as failed:
        client.chat_postMessage(channel=CHANNEL, text="lost")
    client.chat_postMessage(channel=CHANNEL, text="kept")

    assert failed.value.response.data == {"ok": False, "error": "channel_not_found"}
    assert [c.status for c in stub.calls_to("chat.postMessage")] == [200, 200]
    assert [m["text"] for m in stub.messages(CHANNEL)] == ["kept"]


def test_views_open_needs_a_fresh_trigger(stub: SlackAPIStub, client: WebClient) -> None:
    modal = {"type": "modal", "title": {"type": "plain_text", "text": "Ask the library"}, "blocks": [section("Hi")]}

    opened = client.views_open(trigger_id="13345224609.738474920.8088930838d88f008e0", view=modal)
    errors = []
    for trigger in (None, "13345224609.738474920.8088930838d88f008e0"):
        with pytest.raises(SlackApiError) as refused:
            client.views_open(trigger_id=trigger, view=modal)
        errors.append(refused.value.response["error"])

    assert errors == ["invalid_arguments", "exchanged_trigger_id"]
    assert [v["id"] for v in stub.views] == [opened["view"]["id"]]
    assert stub.views[0]["title"]["text"] == "Ask the library"
