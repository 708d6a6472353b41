"""The Bot Framework stub against the real libraries: botframework-connector's channel-token validation, msal's client
credentials flow inside ``MicrosoftAppCredentials``, the msrest ``ConnectorClient`` (sync and the aiohttp one botbuilder
uses), and ``BotFrameworkAdapter`` end to end. Nothing here patches library code; the validator is pointed at the stub
either through ``ChannelValidation.open_id_metadata_endpoint`` or, with no configuration at all, through the stub's
HTTPS proxy for login.botframework.com / login.microsoftonline.com (``stub.proxy_env()``)."""

from __future__ import annotations

import asyncio
import hashlib

import jwt
import msal
import pytest
import requests
from botbuilder.core import BotFrameworkAdapter, BotFrameworkAdapterSettings, TurnContext
from botbuilder.schema import Activity, ChannelAccount, ConversationAccount
from botframework.connector import ConnectorClient
from botframework.connector.aio import ConnectorClient as AsyncConnectorClient
from botframework.connector.auth import (
    AuthenticationConstants,
    ChannelValidation,
    ClaimsIdentity,
    JwtTokenValidation,
    MicrosoftAppCredentials,
    SimpleChannelProvider,
    SimpleCredentialProvider,
)
from botframework.connector.auth.jwt_token_extractor import JwtTokenExtractor
from botframework.connector.models import ErrorResponseException

from tests.stubs.botframework_server import DEFAULT_APP_ID, UPLOAD_FRAGMENT_MULTIPLE, BotFrameworkStub

CONVERSATION = "19:0f3a1c2b9d8e4f70a1b2c3d4e5f60718@thread.tacv2;messageid=1718000000000"
INCOMING_ID = "1718000000000"


@pytest.fixture
def stub():
    with BotFrameworkStub() as running:
        yield running


@pytest.fixture
def metadata_at_stub(stub, monkeypatch):
    """Production's explicit route: the class attribute the validator reads (BotFrameworkAdapterSettings'
    ``open_id_metadata`` and the ``BotOpenIdMetadata`` variable set the same attribute)."""
    monkeypatch.setattr(ChannelValidation, "open_id_metadata_endpoint", stub.openid_metadata_url)
    return stub


@pytest.fixture
def proxied(stub, monkeypatch):
    """The zero-configuration route: Microsoft's own URLs, answered by the stub through its proxy."""
    monkeypatch.setattr(ChannelValidation, "open_id_metadata_endpoint", None)
    for name, value in stub.proxy_env().items():
        monkeypatch.setenv(name, value)
    return stub


def teams_activity(service_url: str, channel_id: str = "msteams") -> Activity:
    return Activity(type="message", id=INCOMING_ID, channel_id=channel_id, service_url=service_url, text="hello",
                    from_property=ChannelAccount(id="29:1user", name="Ada", aad_object_id="aad-user-1"),
                    recipient=ChannelAccount(id="28:" + DEFAULT_APP_ID, name="lcabot"),
                    conversation=ConversationAccount(id=CONVERSATION, conversation_type="channel"))


def authenticate(stub: BotFrameworkStub, activity: Activity, header: str) -> ClaimsIdentity:
    credentials = SimpleCredentialProvider(stub.app_id, stub.app_password)
    return asyncio.run(JwtTokenValidation.authenticate_request(
        activity, header, credentials, channel_service_or_provider=SimpleChannelProvider()))


# ------------------------------------------------------------------------------------------------ channel side


def test_a_minted_channel_token_passes_the_real_validator(metadata_at_stub):
    stub = metadata_at_stub
    identity = authenticate(stub, teams_activity(stub.service_url), stub.channel_auth_header(stub.service_url))
    assert identity.is_authenticated
    assert identity.claims["aud"] == stub.app_id
    assert identity.claims["iss"] == "https://api.botframework.com"
    assert identity.claims["serviceurl"] == stub.service_url
    assert [(r.method, r.path) for r in stub.requests] == [
        ("GET", "/v1/.well-known/openidconfiguration"), ("GET", "/v1/.well-known/keys")]
    header = jwt.get_unverified_header(stub.mint_channel_token(stub.service_url))
    assert header["alg"] == "RS256" and header["kid"] == stub.signing_kid


def test_with_no_configuration_the_validator_reaches_the_stub_through_the_proxy(proxied):
    stub = proxied
    assert ChannelValidation.open_id_metadata_endpoint is None  # the library default: login.botframework.com
    identity = authenticate(stub, teams_activity(stub.service_url), stub.channel_auth_header(stub.service_url))
    assert identity.is_authenticated
    assert ("login.botframework.com", "/v1/.well-known/keys") in [(r.host, r.path) for r in stub.requests]


def test_the_metadata_and_jwks_have_the_channel_shape(stub):
    metadata = requests.get(stub.openid_metadata_url, timeout=5).json()
    assert metadata["issuer"] == "https://api.botframework.com"
    assert metadata["id_token_signing_alg_values_supported"] == ["RS256"]
    assert metadata["jwks_uri"] == stub.jwks_url
    (key,) = requests.get(metadata["jwks_uri"], timeout=5).json()["keys"]
    assert key["kid"] == stub.signing_kid and key["kty"] == "RSA" and key["use"] == "sig"
    assert {"msteams", "emulator"} <= set(key["endorsements"])
    assert stub.rogue_kid != stub.signing_kid


def test_keys_cached_by_the_library_are_dropped_when_a_stub_starts(metadata_at_stub):
    stub = metadata_at_stub
    authenticate(stub, teams_activity(stub.service_url), stub.channel_auth_header(stub.service_url))
    assert stub.openid_metadata_url in JwtTokenExtractor.metadataCache  # kept for a day by the library
    stub.forget_cached_keys()
    assert stub.openid_metadata_url not in JwtTokenExtractor.metadataCache


def test_a_token_expired_within_the_five_minute_clock_tolerance_still_passes(metadata_at_stub):
    stub = metadata_at_stub
    header = stub.channel_auth_header(stub.service_url, expires_in=-240, not_before_offset=-3600)
    assert authenticate(stub, teams_activity(stub.service_url), header).is_authenticated


REJECTIONS = {
    "wrong audience": (dict(audience="11111111-2222-3333-4444-555555555555"), PermissionError, "Invalid AppId"),
    "expired": (dict(expires_in=-600, not_before_offset=-3600), jwt.ExpiredSignatureError, "Signature has expired"),
    "not yet valid": (dict(not_before_offset=3600), jwt.ImmatureSignatureError, "not yet valid"),
    "wrong issuer": (dict(issuer="https://api.botframework.example"), PermissionError, "No valid identity"),
    "serviceUrl claim differs": (dict(service_url="https://smba.trafficmanager.net/amer/"), PermissionError,
                                 "service_url claim do not match"),
    # an unknown kid: _OpenIdMetadata._find indexes an empty match list (no refetch within the hour)
    "unknown signing key": (dict(rogue=True), IndexError, "list index out of range"),
    "forged signature under the published kid": (dict(forged=True), jwt.InvalidSignatureError, "verification failed"),
    "channel not endorsed by the key": (dict(channel_id="not-a-channel"), Exception, "Could not validate endorsement"),
}


@pytest.mark.parametrize("case", REJECTIONS, ids=list(REJECTIONS))
def test_the_real_validator_rejects(metadata_at_stub, case):
    stub = metadata_at_stub
    options, error, message = REJECTIONS[case]
    options = dict(options)
    activity = teams_activity(stub.service_url, channel_id=options.pop("channel_id", "msteams"))
    service_url = options.pop("service_url", stub.service_url)
    if options.pop("rogue", False):
        token = stub.mint_rogue_token(service_url, **options)
    elif options.pop("forged", False):
        token = stub.mint_channel_token(service_url, signing_key=stub.rogue_key, **options)
    else:
        token = stub.mint_channel_token(service_url, **options)
    with pytest.raises(error, match=message):
        authenticate(stub, activity, f"Bearer {token}")


def test_no_header_is_refused_when_the_bot_has_an_app_id(metadata_at_stub):
    with pytest.raises(PermissionError, match="Required Authorization token was not supplied"):
        authenticate(metadata_at_stub, teams_activity(metadata_at_stub.service_url), "")


# --------------------------------------------------------------------------------------- token and connector side


def test_msal_refuses_a_plain_http_authority(stub):
    with pytest.raises(ValueError, match="https url"):
        msal.ConfidentialClientApplication(stub.app_id, client_credential=stub.app_password,
                                           authority=stub.url + "/botframework.com")


def test_sync_connector_client_sends_with_a_token_the_stub_issued(proxied):
    stub = proxied
    client = ConnectorClient(MicrosoftAppCredentials(stub.app_id, stub.app_password), base_url=stub.service_url)
    response = client.conversations.send_to_conversation(CONVERSATION, Activity(type="message", text="Answer"))
    (posted,) = stub.activities
    assert posted["op"] == "send" and posted["id"] == response.id
    assert posted["conversation_id"] == CONVERSATION  # ':', '@' and ';messageid=' survive the URL encoding
    assert posted["body"] == {"type": "message", "text": "Answer"}
    token_request = next(r for r in stub.requests if r.path.endswith("/oauth2/v2.0/token"))
    assert token_request.host == "login.microsoftonline.com"
    assert b"grant_type=client_credentials" in token_request.body
    assert b"scope=https%3A%2F%2Fapi.botframework.com%2F.default" in token_request.body
    connector_request = next(r for r in stub.requests if r.path.startswith("/teams/"))
    assert connector_request.headers["authorization"] == f"Bearer {stub.issued_tokens[-1]}"


def test_async_connector_client_replies_updates_and_deletes(proxied):
    stub = proxied
    credentials = MicrosoftAppCredentials(stub.app_id, stub.app_password)

    async def converse():
        async with AsyncConnectorClient(credentials, base_url=stub.service_url) as client:
            reply = await client.conversations.reply_to_activity(
                CONVERSATION, INCOMING_ID, Activity(type="message", text="Working on it", reply_to_id=INCOMING_ID))
            await client.conversations.update_activity(
                CONVERSATION, reply.id, Activity(type="message", id=reply.id, text="The answer"))
            await client.conversations.delete_activity(CONVERSATION, reply.id)
            return reply

    reply = asyncio.run(converse())
    assert [(a["op"], a["method"], a["activity_id"]) for a in stub.activities] == [
        ("reply", "POST", INCOMING_ID), ("update", "PUT", reply.id), ("delete", "DELETE", reply.id)]
    assert stub.activities[0]["reply_to_id"] == INCOMING_ID
    assert stub.activities[1]["body"]["text"] == "The answer"
    assert len(stub.issued_tokens) == 1  # msal caches the token inside the credentials object


def test_the_connector_refuses_missing_foreign_and_unknown_tokens(stub):
    url = f"{stub.service_url}v3/conversations/{requests.utils.quote(CONVERSATION, safe='')}/activities"
    body = {"type": "message", "text": "x"}
    assert requests.post(url, json=body, timeout=5).status_code == 401
    foreign = jwt.encode({"aud": "https://api.botframework.com"}, stub.rogue_key, algorithm="RS256")
    assert requests.post(url, json=body, headers={"Authorization": f"Bearer {foreign}"}, timeout=5).status_code == 401
    other_app = stub.issue_access_token("99999999-0000-0000-0000-000000000000")
    refused = requests.post(url, json=body, headers={"Authorization": f"Bearer {other_app}"}, timeout=5)
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "Unauthorized"
    ok = requests.post(url, json=body, headers={"Authorization": f"Bearer {stub.issue_access_token()}"}, timeout=5)
    assert ok.status_code == 201 and ok.json()["id"]
    update_unknown = requests.put(f"{url}/424242", json=body, timeout=5,
                                  headers={"Authorization": f"Bearer {stub.issue_access_token()}"})
    assert update_unknown.status_code == 404


def test_a_wrong_app_password_fails_at_the_token_endpoint(proxied):
    credentials = MicrosoftAppCredentials(proxied.app_id, "not-the-password")
    with pytest.raises(PermissionError, match="invalid_client"):
        credentials.get_access_token()
    assert proxied.issued_tokens == []


def test_fail_next_answers_the_next_connector_call_with_an_error(proxied):
    stub = proxied
    stub.fail_next(503)
    client = ConnectorClient(MicrosoftAppCredentials(stub.app_id, stub.app_password), base_url=stub.service_url)
    with pytest.raises(ErrorResponseException):
        client.conversations.send_to_conversation(CONVERSATION, Activity(type="message", text="first"))
    client.conversations.send_to_conversation(CONVERSATION, Activity(type="message", text="second"))
    assert [a["body"]["text"] for a in stub.activities] == ["second"]


def test_an_oversized_activity_is_refused_like_teams_does(proxied):
    stub = proxied
    client = ConnectorClient(MicrosoftAppCredentials(stub.app_id, stub.app_password), base_url=stub.service_url)
    with pytest.raises(ErrorResponseException) as raised:
        client.conversations.send_to_conversation(CONVERSATION, Activity(type="message", text="x" * 40_000))
    assert raised.value.response.status_code == 413
    assert stub.activities == []


def test_bot_framework_adapter_authenticates_and_replies_end_to_end(proxied):
    stub = proxied
    adapter = BotFrameworkAdapter(BotFrameworkAdapterSettings(stub.app_id, stub.app_password))
    activity = teams_activity(stub.service_url)

    async def logic(context: TurnContext) -> None:
        await context.send_activity(f"You said: {context.activity.text}")

    asyncio.run(adapter.process_activity(activity, stub.channel_auth_header(stub.service_url), logic))
    (posted,) = stub.activities
    assert posted["op"] == "reply" and posted["reply_to_id"] == INCOMING_ID
    assert posted["body"]["text"] == "You said: hello"
    with pytest.raises(IndexError):  # not a PermissionError: the Lambda must map any validation error to 401
        asyncio.run(adapter.process_activity(activity, "Bearer " + stub.mint_rogue_token(stub.service_url), logic))
    assert ChannelValidation.open_id_metadata_endpoint is None
    assert AuthenticationConstants.TO_BOT_FROM_CHANNEL_OPENID_METADATA_URL.startswith("https://login.botframework.com")


# ------------------------------------------------------------------------------------------------------- files


def test_an_upload_in_one_put_returns_a_drive_item(stub):
    info = stub.upload_info("LCA report.docx")
    data = b"PK\x03\x04 report bytes"
    response = requests.put(info["uploadUrl"], data=data, timeout=5,
                            headers={"Content-Range": f"bytes 0-{len(data) - 1}/{len(data)}"})
    assert response.status_code == 201
    item = response.json()
    assert item["id"] == info["uniqueId"] and item["name"] == "LCA report.docx" and item["size"] == len(data)
    assert item["webUrl"] == info["contentUrl"]
    assert stub.uploads[0]["data"] == data
    assert requests.get(item["webUrl"], timeout=5).content == data
    assert requests.put(info["uploadUrl"], data=b"x", headers={"Content-Range": "bytes 0-0/1"}, timeout=5
                        ).status_code == 404  # the session is over


def test_a_chunked_upload_follows_the_upload_session_rules(stub):
    url = stub.upload_url("big.pdf")
    data = bytes(range(256)) * (UPLOAD_FRAGMENT_MULTIPLE // 256) + b"tail"
    first, rest = data[:UPLOAD_FRAGMENT_MULTIPLE], data[UPLOAD_FRAGMENT_MULTIPLE:]
    total = len(data)
    with_token = requests.put(url, data=first, headers={"Content-Range": f"bytes 0-{len(first) - 1}/{total}",
                                                        "Authorization": "Bearer x"}, timeout=5)
    assert with_token.status_code == 401
    assert requests.put(url, data=rest, timeout=5, headers={
        "Content-Range": f"bytes {len(first)}-{total - 1}/{total}"}).status_code == 416  # out of order
    partial = requests.put(url, data=first, headers={"Content-Range": f"bytes 0-{len(first) - 1}/{total}"}, timeout=5)
    assert partial.status_code == 202 and partial.json()["nextExpectedRanges"] == [f"{len(first)}-"]
    done = requests.put(url, data=rest, headers={"Content-Range": f"bytes {len(first)}-{total - 1}/{total}"},
                        timeout=5)
    assert done.status_code == 201 and done.json()["size"] == total
    assert done.json()["file"]["hashes"]["sha256Hash"] == hashlib.sha256(data).hexdigest().upper()
    assert stub.uploads[0]["data"] == data


def test_a_registered_download_url_returns_the_bytes(stub):
    url = stub.register_download(b"%PDF-1.7 fake", "EPD steel.pdf")
    response = requests.get(url, timeout=5)
    assert response.status_code == 200 and response.content == b"%PDF-1.7 fake"
    assert response.headers["Content-Type"] == "application/pdf"
    stub.fail_next(500, on="download")
    assert requests.get(url, timeout=5).status_code == 500
    assert requests.get(url + "-missing", timeout=5).status_code == 200  # the name part is cosmetic
    assert requests.get(stub.url + "/download/nope/x.pdf", timeout=5).status_code == 404
