"""The Teams bot end to end on this machine: Bot Framework activities, signed by the channel keys of a local Bot
Framework stand-in (``tests/stubs/botframework_server.py``) and wrapped in the API Gateway event shape, reach the
real webhook Lambda (``bot_handlers.teams.app.handler``), which validates the JWT with botframework-connector's
unmodified validator and enqueues jobs on the template's queues in moto; the real answer and report Lambdas answer
from the real corpus and deliver through ``TeamsClient`` to the stub's Bot Connector, which records every activity.
msal and the key fetch reach the stub through its HTTPS proxy (``stub.proxy_env()``): no production code is pointed
anywhere special."""

from __future__ import annotations

import base64
import itertools
import json
import time
import urllib.request

import pytest

from bot_handlers.teams import app as teams_app
from bot_handlers.teams import client as teams_client
from lcabot import messages
from lcabot.dev.loop import LambdaContext
from lcabot.jobs import ConversationRef, FileRef, ReportJob
from tests.events import http_post
from tests.stack.conftest import CHIC, COFFEE, COFFEE_KEY
from tests.stack.conftest import TABLE_2_QUESTION as TABLE_2
from tests.stubs.botframework_server import LOGIN_HOST, BotFrameworkStub, _json

pytestmark = pytest.mark.corpus

TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"
PERSONAL = "a:1lcabot-personal-chat-alice"
CHANNEL = "19:5e1f3c2b9d8e4f70a1b2c3d4e5f60718@thread.tacv2"
TEAM_ID = "19:9a8b7c6d5e4f30211a2b3c4d5e6f7081@thread.tacv2"
ADAPTIVE = "application/vnd.microsoft.card.adaptive"
_ids = itertools.count(int(time.time() * 1000) * 10)


_stack: list = []  # the stack the module's fixture set up: handle() invokes the handler with its dependencies


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.fixture(scope="module")
def teams(stack, monkeypatch_module):
    stub = BotFrameworkStub().start()
    for name, value in stub.proxy_env().items():  # the SDKs' own settings: Microsoft's endpoints reach the stub
        monkeypatch_module.setenv(name, value)
    with stack.using(teams_app_id=stub.app_id, teams_app_password=stub.app_password, teams_secret_arn=None):
        stack.put(COFFEE_KEY, COFFEE)
        stack.ingest()
        stack.bf = stub
        _stack[:] = [stack]
        yield stack
    stub.stop()


def handle(event: dict, context=None) -> dict:
    """The Teams function's invocation with the stack's current dependencies."""
    return teams_app.handle(event, context, _stack[0].deps)


# ---------------------------------------------------------------- what the channel sends


def new_id() -> str:
    return str(next(_ids))


def activity(stub: BotFrameworkStub, text: str = "", *, conversation: str = PERSONAL, kind: str = "personal",
             activity_id: str | None = None, **fields) -> dict:
    """A Teams message activity as the channel POSTs it (personal chat unless ``kind="channel"``)."""
    bot = {"id": f"28:{stub.app_id}", "name": "lcabot"}
    body = {
        "type": "message", "id": activity_id or new_id(), "timestamp": "2024-06-10T09:15:02.123Z",
        "localTimestamp": "2024-06-10T11:15:02.123+02:00", "serviceUrl": stub.service_url, "channelId": "msteams",
        "from": {"id": "29:1alice-teams-id", "name": "Alice Example", "aadObjectId": "aad-alice"},
        "conversation": {"conversationType": kind, "tenantId": TENANT, "id": conversation},
        "recipient": bot, "textFormat": "plain", "locale": "en-US", "text": text,
        "entities": [{"type": "clientInfo", "locale": "en-US", "country": "US", "platform": "Web",
                      "timezone": "Europe/Berlin"}],
        "channelData": {"tenant": {"id": TENANT}},
    }
    if kind == "channel":
        body["conversation"]["isGroup"] = True
        body["text"] = f"<at>lcabot</at> {text}"
        body["entities"].append({"type": "mention", "text": "<at>lcabot</at>", "mentioned": bot})
        body["channelData"].update({"teamsChannelId": CHANNEL, "teamsTeamId": TEAM_ID, "channel": {"id": CHANNEL},
                                    "team": {"id": TEAM_ID}})
    body.update(fields)
    return body


def api_event(body: dict, authorization: str | None) -> dict:
    """The HTTP API (payload 2.0) event for ``POST /api/messages`` (API Gateway base64-encodes nothing here)."""
    headers = {"content-type": "application/json; charset=utf-8", "user-agent": "Microsoft-SkypeBotApi"}
    if authorization is not None:
        headers["authorization"] = authorization
    return http_post("/api/messages", json.dumps(body), headers)


def post(stub: BotFrameworkStub, body: dict, authorization: str | None = "mint") -> dict:
    if authorization == "mint":
        authorization = stub.channel_auth_header(stub.service_url)
    return handle(api_event(body, authorization), LambdaContext("TeamsFunction", timeout_s=15))


# ---------------------------------------------------------------- what the bot sent


def sent(stub: BotFrameworkStub, conversation: str, *, op: str | None = None, kind: str = "message") -> list[dict]:
    return [a for a in stub.activities if a["conversation_id"] == conversation and a["body"]["type"] == kind
            and (op is None or a["op"] == op)]


def replies_to(stub: BotFrameworkStub, activity_id: str, kind: str = "message") -> list[dict]:
    return [a for a in stub.activities if a["reply_to_id"] == activity_id and a["body"]["type"] == kind]


def card_text(posted: dict) -> str:
    (attachment,) = posted["body"]["attachments"]
    assert attachment["contentType"] == ADAPTIVE
    texts = []
    for item in attachment["content"]["body"]:
        texts += [i["text"] for i in item.get("items", [])] if item["type"] == "Container" else [item["text"]]
    return "\n".join(texts)


def answer_queue_depth(stack) -> int:
    attributes = stack.sqs.get_queue_attributes(QueueUrl=stack.env["LCABOT_ANSWER_QUEUE_URL"], AttributeNames=[
        "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
    return sum(int(v) for v in attributes.values())


# ---------------------------------------------------------------- 1. authentication


@pytest.mark.parametrize("case", ["forged (key not published)", "wrong audience", "expired", "no Authorization"])
def test_an_unauthenticated_activity_gets_401_and_nothing_is_enqueued_or_sent(teams, case):
    stub = teams.bf
    service_url = stub.service_url
    authorization = {
        "forged (key not published)": "Bearer " + stub.mint_rogue_token(service_url),
        "wrong audience": stub.channel_auth_header(service_url, audience="11111111-2222-3333-4444-555555555555"),
        "expired": stub.channel_auth_header(service_url, expires_in=-600, not_before_offset=-3600),
        "no Authorization": None,
    }[case]
    before = len(stub.activities)

    response = post(stub, activity(stub, "What is GWP100?"), authorization)

    assert response["statusCode"] == 401
    assert answer_queue_depth(teams) == 0
    assert len(stub.activities) == before


def test_a_token_for_another_service_url_is_refused(teams):
    stub = teams.bf
    body = activity(stub, "What is GWP100?", serviceUrl="http://127.0.0.1:9/evil/")
    assert post(stub, body, stub.channel_auth_header(stub.service_url))["statusCode"] == 401
    assert answer_queue_depth(teams) == 0


def test_the_bots_own_connector_token_is_not_accepted_as_a_channel_token(teams, monkeypatch):
    """An AAD-issued token (what the bot sends to the Bot Connector, and the Emulator's shape) passes
    ``JwtTokenValidation`` without any serviceurl check; the webhook accepts channel tokens only, so a replayed
    token cannot make the bot send a fresh one to another serviceUrl."""
    stub = teams.bf
    original = stub._aad

    def aad_with_published_keys(method, path, headers, raw):  # as real AAD publishes them
        if path == "/common/v2.0/.well-known/openid-configuration":
            return _json(200, {"issuer": "https://login.microsoftonline.com/{tenantid}/v2.0",
                               "jwks_uri": f"https://{LOGIN_HOST}/common/discovery/v2.0/keys"})
        if path == "/common/discovery/v2.0/keys":
            return _json(200, {"keys": [stub._keys.aad.jwk]})
        return original(method, path, headers, raw)

    monkeypatch.setattr(stub, "_aad", aad_with_published_keys)
    before = len(stub.requests)
    body = activity(stub, "What is GWP100?", serviceUrl="http://127.0.0.1:9/elsewhere/")
    assert post(stub, body, "Bearer " + stub.issue_access_token())["statusCode"] == 401
    assert answer_queue_depth(teams) == 0
    assert not [r for r in stub.requests[before:] if "/teams/" in r.path or "elsewhere" in r.path]


@pytest.mark.parametrize("channel_id", ["webchat", "emulator", "directline", ""])
def test_activities_from_other_channels_than_teams_are_refused(teams, channel_id):
    stub = teams.bf
    assert post(stub, activity(stub, "What is GWP100?", channelId=channel_id))["statusCode"] == 401
    assert answer_queue_depth(teams) == 0


def test_a_newly_published_channel_key_is_accepted_after_the_keys_were_cached(teams, monkeypatch):
    stub = teams.bf
    assert post(stub, activity(stub, "help"))["statusCode"] == 200  # the key set is now cached in this process
    rolled = {**stub._keys.rogue.jwk, "endorsements": list(stub.endorsements)}
    monkeypatch.setattr(stub, "jwks", lambda: {"keys": [
        {**stub._keys.channel.jwk, "endorsements": list(stub.endorsements)}, rolled]})
    assert post(stub, activity(stub, "help"), "Bearer " + stub.mint_rogue_token(stub.service_url))["statusCode"] == 200


def test_a_malformed_body_gets_400(teams):
    event = api_event(activity(teams.bf, "x"), teams.bf.channel_auth_header(teams.bf.service_url))
    event["body"] = "{not json"
    assert handle(event)["statusCode"] == 400
    event["body"], event["isBase64Encoded"] = base64.b64encode(b'{"type": "message"}').decode(), True
    assert handle(event)["statusCode"] == 400  # decoded, but no conversation


# ---------------------------------------------------------------- 2. questions


def test_a_personal_question_is_answered_with_a_cited_adaptive_card(teams):
    stub = teams.bf
    question = activity(stub, TABLE_2)

    assert post(stub, question)["statusCode"] == 200
    assert [a["body"]["type"] for a in replies_to(stub, question["id"], "typing")] == ["typing"]
    assert teams.answer() == (1, 0)

    (reply,) = replies_to(stub, question["id"])
    assert reply["op"] == "reply" and reply["conversation_id"] == PERSONAL
    text = card_text(reply)
    assert "10.44" in text and "p. 11" in text
    assert "Nab & Maslin coffee \\(2020\\).pdf" in text  # the library file name, escaped
    up, down = reply["body"]["attachments"][0]["content"]["actions"]
    assert (up["data"]["feedback"], down["data"]["feedback"], up["data"]["q"]) == ("up", "down", TABLE_2)
    assert 0 < len(up["data"]["a"]) <= teams_client.FEEDBACK_ANSWER_CHARS and "Table 2" in up["data"]["a"]


def test_the_same_activity_delivered_twice_is_answered_once(teams):
    stub = teams.bf
    question = activity(stub, "What is the functional unit of the coffee study?")

    assert [post(stub, question)["statusCode"] for _ in range(2)] == [200, 200]
    assert teams.answer() == (1, 0)

    (reply,) = replies_to(stub, question["id"])
    assert "green coffee" in card_text(reply).lower()


def test_a_channel_mention_is_answered_in_its_reply_chain(teams):
    stub = teams.bf
    root = new_id()
    in_thread = f"{CHANNEL};messageid={root}"
    question = activity(stub, TABLE_2, conversation=in_thread, kind="channel")

    assert post(stub, question)["statusCode"] == 200
    assert teams.answer() == (1, 0)

    (reply,) = replies_to(stub, question["id"])
    assert reply["conversation_id"] == in_thread  # same channel, same reply chain
    assert "10.44" in card_text(reply)


def test_a_feedback_click_on_the_card_is_recorded(teams):
    stub = teams.bf
    question = activity(stub, TABLE_2)
    post(stub, question)
    teams.answer()
    (reply,) = replies_to(stub, question["id"])
    down = reply["body"]["attachments"][0]["content"]["actions"][1]["data"]
    click = activity(stub, "", replyToId=reply["id"], value=down)
    del click["text"]

    assert post(stub, click)["statusCode"] == 200

    (vote,) = [v for v in teams.deps.conversations.feedback("teams", TENANT, PERSONAL)
               if v["sk"] == f"{reply['id']}#aad-alice"]
    assert (vote["vote"], vote["question"], vote["answer"]) == ("down", TABLE_2, down["a"])
    assert replies_to(stub, click["id"])[-1]["body"]["text"] == messages.feedback_thanks("down")


# ---------------------------------------------------------------- 3. reports


def test_a_pdf_in_a_personal_chat_becomes_a_report_offered_with_file_consent_cards_and_uploaded_on_accept(teams):
    stub = teams.bf
    url = stub.register_download(COFFEE.read_bytes(), "coffee study.pdf")
    shared = activity(stub, "", attachments=[
        {"contentType": "application/vnd.microsoft.teams.file.download.info", "name": "coffee study.pdf",
         "contentUrl": "https://contoso-my.sharepoint.com/personal/alice/Documents/coffee%20study.pdf",
         "content": {"downloadUrl": url, "uniqueId": "5F1C0B7E-3D22-4B1A-9C41-0D2B9E1A7F11", "fileType": "pdf"}}])

    assert post(stub, shared)["statusCode"] == 200
    (progress,) = replies_to(stub, shared["id"])
    assert progress["body"]["text"] == messages.report_started("coffee study.pdf")
    assert teams.report() == (1, 0)

    updates = [a for a in sent(stub, PERSONAL, op="update") if a["activity_id"] == progress["id"]]
    assert messages.report_ready("coffee study.pdf") in updates[-1]["body"]["text"]
    consents = [a["body"]["attachments"][0] for a in replies_to(stub, shared["id"])
                if a["body"].get("attachments")]
    assert {c["contentType"] for c in consents} == {teams_client.FILE_CONSENT}
    assert sorted(c["name"].rsplit(".", 1)[1] for c in consents) == ["docx", "md", "png"]
    (md,) = [c for c in consents if c["name"].endswith(".md")]
    assert md["content"]["sizeInBytes"] > 0 and md["content"]["acceptContext"]["key"].startswith("teams/")

    info = stub.upload_info(md["name"])
    accept = activity(stub, "", type="invoke", name="fileConsent/invoke", replyToId=new_id(), value={
        "type": "fileUpload", "action": "accept", "context": md["content"]["acceptContext"], "uploadInfo": info})
    del accept["text"]
    response = post(stub, accept)

    assert response["statusCode"] == 200
    (upload,) = [u for u in stub.uploads if u["name"] == md["name"]]
    assert "| Exportation | 10.44 |" in upload["data"].decode()
    assert len(upload["data"]) == md["content"]["sizeInBytes"]
    (shown,) = [a["body"]["attachments"][0] for a in replies_to(stub, accept["id"])]
    assert shown["contentType"] == "application/vnd.microsoft.teams.card.file.info"
    assert (shown["name"], shown["contentUrl"], shown["content"]["uniqueId"]) == (
        md["name"], info["contentUrl"], info["uniqueId"])


def test_a_report_for_a_channel_comes_back_as_expiring_links_to_the_reports_bucket(teams):
    """Teams gives bots no file in channels (files there need Microsoft Graph), so the report job is queued as the
    webhook would for a channel conversation; the delivery side is what is under test."""
    stub = teams.bf
    root = new_id()
    in_thread = f"{CHANNEL};messageid={root}"
    reference = {"activityId": root, "bot": {"id": f"28:{stub.app_id}", "name": "lcabot"}, "channelId": "msteams",
                 "conversation": {"conversationType": "channel", "id": in_thread, "isGroup": True,
                                  "tenantId": TENANT},
                 "serviceUrl": stub.service_url, "user": {"id": "29:1alice-teams-id", "aadObjectId": "aad-alice"}}
    conversation = ConversationRef("teams", in_thread, root, TENANT, reference)
    study = FileRef("coffee channel.pdf", url=stub.register_download(COFFEE.read_bytes(), "coffee channel.pdf"))
    job = ReportJob(f"teams:{in_thread}:{root}", conversation, "aad-alice", study)
    teams.sqs.send_message(QueueUrl=teams.env["LCABOT_REPORT_QUEUE_URL"], MessageBody=job.to_json())

    assert teams.report() == (1, 0)

    (links,) = [a for a in replies_to(stub, root) if a["body"].get("attachments")]
    assert links["conversation_id"] == in_thread
    card = links["body"]["attachments"][0]["content"]
    assert card["body"][-1]["text"] == messages.links_expire(24)
    urls = {}
    for block in card["body"]:
        if block["text"].startswith("[") and "](" in block["text"]:
            label, _, rest = block["text"][1:].partition("](")
            urls[label.replace("\\", "")] = rest[:-1]
    assert sorted(name.rsplit(".", 1)[1] for name in urls) == ["docx", "md", "png"]
    (md_url,) = [u for name, u in urls.items() if name.endswith(".md")]
    assert md_url.startswith(teams.endpoint + "/") and "X-Amz-Expires=86400" in md_url
    with urllib.request.urlopen(md_url, timeout=10) as response:  # noqa: S310 (the moto server)
        assert "| Exportation | 10.44 |" in response.read().decode()


# ---------------------------------------------------------------- 4. indexing from Teams


def test_a_pdf_shared_with_index_is_added_to_the_library_and_the_progress_message_says_when_searchable(teams):
    stub = teams.bf
    url = stub.register_download(CHIC.read_bytes(), "CHIC from Teams.pdf")
    shared = activity(stub, "index eu", attachments=[
        {"contentType": "application/vnd.microsoft.teams.file.download.info", "name": "CHIC from Teams.pdf",
         "content": {"downloadUrl": url, "uniqueId": "7A0C4E55-1B2D-4C3E-8F90-112233445566", "fileType": "pdf"}}])

    assert post(stub, shared)["statusCode"] == 200
    (progress,) = replies_to(stub, shared["id"])
    assert progress["body"]["text"] == messages.index_started("CHIC from Teams.pdf", "eu_funding")
    assert teams.report() == (1, 0)
    key = "library/eu_funding/CHIC from Teams.pdf"
    head = teams.s3.head_object(Bucket=teams.library_bucket, Key=key)
    assert json.loads(head["Metadata"]["lcabot-conversation"])["reference"]["serviceUrl"] == stub.service_url
    teams.ingest()

    updates = [a["body"]["text"] for a in sent(stub, PERSONAL, op="update") if a["activity_id"] == progress["id"]]
    assert updates == [messages.index_waiting("CHIC from Teams.pdf"), messages.index_done(teams.status(key))]


def test_a_throttled_bot_connector_is_retried_in_process_and_the_answer_arrives(teams):
    stub = teams.bf
    question = activity(stub, "What is the functional unit of the coffee study?")
    post(stub, question)
    stub.fail_next(429)  # the reply: Retry-After 1
    assert teams.answer() == (1, 0)  # no SQS redelivery (which waits the 900 s visibility timeout)
    (reply,) = replies_to(stub, question["id"])
    assert "green coffee" in card_text(reply).lower()


def test_file_names_in_webhook_replies_are_plain_text(teams):
    stub = teams.bf
    url = stub.register_download(COFFEE.read_bytes(), "x.pdf")
    name = "[Verify your account](https://evil.example/login) **urgent**.pdf"
    body = activity(stub, "what is this", attachments=[{
        "contentType": teams_client.FILE_DOWNLOAD_INFO, "name": name,
        "content": {"downloadUrl": url, "uniqueId": "u-1", "fileType": "pdf"}}])
    assert post(stub, body)["statusCode"] == 200
    (reply,) = replies_to(stub, body["id"])
    assert reply["body"]["textFormat"] == "plain" and reply["body"]["text"] == messages.pdf_needs_intent(name)


def test_a_follow_up_in_a_personal_chat_carries_the_earlier_turns(teams):
    stub = teams.bf
    chat = "a:1lcabot-personal-chat-bob"
    first = activity(stub, TABLE_2, conversation=chat)
    post(stub, first)
    assert teams.answer() == (1, 0)
    follow = activity(stub, "And for the organic farms?", conversation=chat)
    post(stub, follow)
    assert teams.answer() == (1, 0)
    turns = teams.deps.conversations.turns("teams", chat)
    assert [t.question for t in turns] == [TABLE_2, "And for the organic farms?"]
    assert "10.44" in turns[0].answer
    (reply,) = replies_to(stub, follow["id"])
    text = card_text(reply)
    assert "abstained" not in text and "organic" in text.lower() and "Nab & Maslin coffee \\(2020\\).pdf" in text


# ---------------------------------------------------------------- hostile and malformed activities


@pytest.mark.parametrize("case", ["adaptiveCard/action with an empty value", "tenant as a string",
                                  "a message value that is a list", "an invoke no handler takes",
                                  "adaptiveCard/action with an empty action", "an attachment that is null",
                                  "an activity id of 5,000 characters", "a file consent neither accepted nor declined",
                                  "a lone surrogate in the sender's id"])
def test_activities_with_missing_or_mistyped_fields_get_4xx_and_nothing_is_enqueued(teams, case):
    """They raised ``TypeError`` (an ``adaptiveCard/action`` invoke with an empty value; an empty action: an invoke
    response botbuilder could not serialise, out of the handler), ``AttributeError`` (``channelData.tenant`` not an
    object, a null attachment: 500), a DynamoDB ``ValidationException`` (a 5,000-character id: 500) or got
    botbuilder's 501."""
    stub = teams.bf
    body = {
        "adaptiveCard/action with an empty value": activity(stub, "", type="invoke", name="adaptiveCard/action",
                                                            value=None),
        "tenant as a string": activity(stub, "What is GWP100?", channelData={"tenant": TENANT}),
        "a message value that is a list": activity(stub, "", value=["feedback", "up"]),
        "an invoke no handler takes": activity(stub, "", type="invoke", name="composeExtension/query",
                                               value={"commandId": 5, "parameters": "x"}),
        "adaptiveCard/action with an empty action": activity(stub, "", type="invoke", name="adaptiveCard/action",
                                                             value={"action": {}}),
        "an attachment that is null": activity(stub, "What is GWP100?", attachments=[None]),
        "an activity id of 5,000 characters": activity(stub, "What is GWP100?", activity_id="1" * 5000),
        "a file consent neither accepted nor declined": activity(
            stub, "", type="invoke", name="fileConsent/invoke",
            value={"type": "fileUpload", "action": "bogus", "context": {}}),
        "a lone surrogate in the sender's id": activity(stub, "What is GWP100?",
                                                        **{"from": {"id": "29:\ud800", "name": "X"}}),
    }[case]
    before = len(stub.activities)
    assert post(stub, body)["statusCode"] == 400
    assert answer_queue_depth(teams) == 0 and len(stub.activities) == before


def _fuzzed_activities(stub: BotFrameworkStub, n: int) -> list[str]:
    """``n`` bodies: real activity shapes (a personal question, a channel mention, a 👍 submit, an
    ``adaptiveCard/action`` and a ``fileConsent/invoke`` invoke, a ``conversationUpdate``, a reaction) with a field
    deleted, retyped or truncated, nested fields included, plus bodies that are not activities at all."""
    import random

    rng = random.Random(14)
    junk = [None, 0, -1, 1.5, True, "", "x" * 3000, [], [1, "a"], {}, {"id": 7}, "<at>all</at>", "\u0000"]

    def mutate(value, depth=0):
        if isinstance(value, dict) and value and depth < 4:
            value = dict(value)
            key = rng.choice(sorted(value))
            choice = rng.random()
            if choice < 0.3:
                del value[key]
            elif choice < 0.65:
                value[key] = rng.choice(junk)
            else:
                value[key] = mutate(value[key], depth + 1)
        elif isinstance(value, list) and value and depth < 4:
            value = list(value)
            i = rng.randrange(len(value))
            value[i] = mutate(value[i], depth + 1) if rng.random() < 0.7 else rng.choice(junk)
        return value

    def invoke(name: str, value) -> dict:
        body = activity(stub, "", type="invoke", name=name, value=value)
        del body["text"], body["textFormat"]
        return body

    shapes = [
        lambda: activity(stub, "What is GWP100?"),
        lambda: activity(stub, "What is GWP100?", conversation=f"{CHANNEL};messageid={new_id()}", kind="channel"),
        lambda: activity(stub, "", value={"feedback": "up", "q": "What is GWP100?", "h": "abc", "a": "answer"},
                         replyToId=new_id()),
        lambda: invoke("adaptiveCard/action", {"action": {"type": "Action.Execute", "verb": "feedback",
                                                          "data": {"feedback": "down"}}, "trigger": "manual"}),
        lambda: invoke("fileConsent/invoke", {"type": "fileUpload", "action": "decline",
                                              "context": {"key": "reports/x/report.docx"},
                                              "uploadInfo": {"name": "report.docx", "uploadUrl": "https://x/y"}}),
        lambda: {**activity(stub, ""), "type": "conversationUpdate",
                 "membersAdded": [{"id": f"28:{stub.app_id}"}, {"id": "29:1alice-teams-id"}]},
        lambda: {**activity(stub, ""), "type": "messageReaction", "reactionsAdded": [{"type": "like"}],
                 "replyToId": new_id()},
    ]
    bodies = []
    for i in range(n):
        kind = i % (len(shapes) + 1)
        if kind < len(shapes):
            bodies.append(json.dumps(mutate(shapes[kind]())))
        else:
            whole = json.dumps(shapes[0]())
            bodies.append(rng.choice([whole[: rng.randrange(len(whole))], "[1, 2, 3]", "null", '"message"',
                                      json.dumps({"type": "message"}), json.dumps({"type": 7}), "{" * 5000, ""]))
    return bodies


def test_fuzzed_activities_never_raise_or_get_a_5xx_and_unauthenticated_ones_get_401(teams):
    """Issue 14: 500 bodies, each sent without a token and with a valid channel token. The token is checked before
    the body is read, so every unauthenticated one gets 401; an authenticated one that is not a well-formed
    activity gets 400 (or 401 when its serviceUrl or channel is not the token's); none raises or gets a 5xx, which
    the channel would retry."""
    stub = teams.bf
    statuses: dict[int, int] = {}
    auth = stub.channel_auth_header(stub.service_url)
    for body in _fuzzed_activities(stub, 500):
        event = api_event({}, None)
        event["body"] = body
        assert handle(event)["statusCode"] == 401, body[:200]
        event["headers"]["authorization"] = auth
        response = handle(event, LambdaContext("TeamsFunction", timeout_s=15))
        assert response["statusCode"] < 500, (response, body[:300])
        statuses[response["statusCode"]] = statuses.get(response["statusCode"], 0) + 1
    assert set(statuses) <= {200, 400, 401} and statuses.get(400, 0) >= 100 and statuses.get(200, 0) >= 150, statuses
    for queue in ("LCABOT_ANSWER_QUEUE_URL", "LCABOT_REPORT_QUEUE_URL"):  # the well-formed ones' jobs, dropped
        url = teams.env[queue]
        while batch := teams.sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages"):
            teams.sqs.delete_message_batch(QueueUrl=url, Entries=[
                {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(batch)])


@pytest.mark.parametrize("quote", ["Exportation 10.44 " * 30, "中文碳足迹生命周期评价" * 30, "😀🌍🔥" * 100],
                         ids=["ascii", "cjk", "emoji"])
def test_a_long_answer_with_sixty_sources_arrives_as_cards_teams_accepts_with_every_source(teams, quote):
    """Teams counts a message's size in UTF-16 (an ASCII card of 22,000 characters is 44,000 bytes); cards were
    sized in UTF-8 characters, so the stub, counting as Teams does, refused this answer with 413. Now the sources
    that do not fit on the answer card follow in more cards, each accepted. The SDK sends non-ASCII characters as
    ``\\uXXXX`` escapes (a CJK character is 12 bytes, an emoji 24): cards with such quotes were refused too."""
    from lcabot.jobs import AnswerJob
    from lcabot.models import Answer, Citation

    stub = teams.bf
    root = new_id()
    in_thread = f"{CHANNEL};messageid={root}"
    reference = {"activityId": root, "bot": {"id": f"28:{stub.app_id}", "name": "lcabot"}, "channelId": "msteams",
                 "conversation": {"conversationType": "channel", "id": in_thread, "isGroup": True,
                                  "tenantId": TENANT},
                 "serviceUrl": stub.service_url, "user": {"id": "29:1alice-teams-id", "aadObjectId": "aad-alice"}}
    sentence = "The cradle-to-gate GWP100 of green coffee is 10.44 kg CO2e per kg at exportation [1]. "
    citations = tuple(Citation(i, f"E{i:010d}", "coffee.pdf", "Carbon footprint of green coffee",
                               "6.2 Carbon footprint calculation", 11, "11", quote)
                      for i in range(1, 61))
    answer = Answer(text=sentence * 100, abstained=False, citations=citations, claims=(), retrieval_mode="rag",
                    searched="the library", ledger_hash="ab12", generator="extractive")
    job = AnswerJob(f"teams:{in_thread}:{root}", ConversationRef("teams", in_thread, root, TENANT, reference),
                    "aad-alice", "What is the GWP100 of green coffee at exportation?")
    before = len(stub.activities)
    teams.deps.platform("teams").post_answer(job, answer)
    posted = [a for a in stub.activities[before:] if a["body"].get("attachments")]
    assert len(posted) >= 2
    shown = [line for p in posted for line in card_text(p).splitlines() if line.startswith("\\[")]
    assert [int(line[2:line.index("\\]")]) for line in shown] == list(range(1, 61))
    assert "follow in the next message" in card_text(posted[0])
