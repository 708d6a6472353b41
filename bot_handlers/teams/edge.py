"""The Teams webhook's edge: the Bot Framework JWT checked before the body is read, the body read as a well-formed
activity, the sender checked against the token, then the activity run through botbuilder's adapter and the bot."""

from __future__ import annotations

import base64
import binascii
import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from botbuilder.core import BotFrameworkAdapter, BotFrameworkAdapterSettings
from botbuilder.schema import Activity
from botframework.connector.auth import (
    AuthenticationConfiguration,
    ChannelValidation,
    ClaimsIdentity,
    MicrosoftAppCredentials,
    SimpleCredentialProvider,
)
from botframework.connector.auth.jwt_token_extractor import JwtTokenExtractor

from bot_handlers.keys import storable

if TYPE_CHECKING:
    from bot_handlers.teams.bot import TeamsBot

logger = logging.getLogger("lcabot.teams")


@dataclass(frozen=True)
class Runtime:
    """What one execution environment keeps between invocations: the app's credentials (msal caches the
    connector token inside them) and the bot."""

    app_id: str
    app_password: str
    credentials: MicrosoftAppCredentials
    bot: TeamsBot


class _Adapter(BotFrameworkAdapter):
    """A ``BotFrameworkAdapter`` for one invocation: its aiohttp connector sessions belong to that invocation's
    event loop, so they are closed at its end (:meth:`close`)."""

    def __init__(self, settings: BotFrameworkAdapterSettings) -> None:
        super().__init__(settings)
        self._opened: list[Any] = []

    async def create_connector_client(self, service_url: str, identity: Any = None,
                                      audience: str | None = None) -> Any:
        client = await super().create_connector_client(service_url, identity, audience)
        self._opened.append(client)
        return client

    async def close(self) -> None:
        for client in {id(c): c for c in self._opened}.values():
            await client.__aexit__(None, None, None)


def http_response(status: int, body: Any = None) -> dict:
    if hasattr(body, "serialize"):  # a botbuilder model (an invoke's response)
        body = body.serialize()
    if body is None:
        return {"statusCode": status, "headers": {}, "body": ""}
    if isinstance(body, str):
        return {"statusCode": status, "headers": {"content-type": "text/plain; charset=utf-8"}, "body": body}
    return {"statusCode": status, "headers": {"content-type": "application/json"}, "body": json.dumps(body)}


def parse_body(event: dict) -> Activity:
    """The activity in an HTTP API (payload 2.0) event's body, read only after its token was checked.

    Raises:
        ValueError: a body that is not base64/UTF-8/JSON, not an activity with a type and a conversation, or one
            whose fields the bot reads have the wrong type (:func:`malformed`).
    """
    body = event.get("body") or ""
    if event.get("isBase64Encoded"):
        try:
            body = base64.b64decode(body, validate=True).decode("utf-8")
        except (binascii.Error, ValueError) as err:
            raise ValueError("body is not base64-encoded UTF-8") from err
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, RecursionError) as err:
        raise ValueError("body is not JSON") from err
    if not isinstance(data, dict) or not isinstance(data.get("type"), str) or not data["type"]:
        raise ValueError("body is not an activity with a type")
    if reason := malformed(data):
        raise ValueError(reason)
    try:
        activity = Activity().deserialize(data)
    except Exception as err:  # msrest raises DeserializationError and others for mistyped fields
        raise ValueError(f"body is not an activity ({type(err).__name__})") from err
    if activity.conversation is None or not activity.conversation.id:
        raise ValueError("activity has no conversation")
    return activity


# the objects of an activity the bot or botbuilder reads by key (msrest types the rest), and their fields that must
# be strings where present
_OBJECT_FIELDS = {"channelData": ("tenant", "team", "channel", "settings", "meeting"),
                  "from": (), "conversation": (), "recipient": ()}
_ID_OBJECTS = ("tenant", "team", "channel")
MAX_ID_CHARS = 1000  # a Teams id (a DynamoDB key part, 1,024 bytes at most there); Teams' are far shorter


def malformed(data: dict) -> str:
    """Why an activity's JSON cannot be read as Teams sends it, else ``""``: ``channelData``, ``from``,
    ``conversation`` and ``recipient`` must be objects, and ``channelData``'s ``tenant``, ``team`` and ``channel``
    objects with a string ``id``; the ids the bot keeps (activity, conversation, tenant, sender, recipient, reply-to)
    strings of at most :data:`MAX_ID_CHARS` valid characters; ``attachments`` objects with a string
    ``contentType``; an invoke a ``fileConsent/invoke`` (the only one this bot's cards and manifest make) accepting
    or declining; a message's ``value`` (a card's submit) an object."""
    for key, inner in _OBJECT_FIELDS.items():
        if key in data and not isinstance(data[key], dict | None):
            return f"{key} is not an object"
        for name in inner:
            field = (data.get(key) or {}).get(name)
            if field is not None and not isinstance(field, dict):
                return f"{key}.{name} is not an object"
            if name in _ID_OBJECTS and field is not None and not isinstance(field.get("id", ""), str):
                return f"{key}.{name}.id is not a string"
    for key, name in (("id", ""), ("conversation", "id"), ("conversation", "tenantId"), ("from", "id"),
                      ("from", "aadObjectId"), ("recipient", "id"), ("replyToId", "")):
        field = data.get(key) if not name else (data.get(key) or {}).get(name)
        if field is not None and (not isinstance(field, str) or not storable(field, MAX_ID_CHARS)):
            return f"{key}{'.' + name if name else ''} is not an id"
    attachments = data.get("attachments")
    if attachments is not None and (not isinstance(attachments, list) or not all(
            isinstance(a, dict) and isinstance(a.get("contentType", ""), str) for a in attachments)):
        return "attachments are not objects with a contentType"
    value = data.get("value")
    if data["type"] == "invoke":
        if data.get("name") != "fileConsent/invoke":  # the only invoke this bot's cards and manifest make
            return "an invoke this bot does not handle"
        if not isinstance(value, dict) or value.get("action") not in ("accept", "decline") or \
                not isinstance(value.get("uploadInfo") or {}, dict):
            return "a fileConsent/invoke without an accept or decline"
    elif data["type"] == "message" and value is not None and not isinstance(value, dict):
        return "a message's value is not an object"
    return ""


async def authenticate(auth_header: str, rt: Runtime) -> ClaimsIdentity:
    """The Bot Framework channel token in ``Authorization``, checked before the body is read, by
    botframework-connector's ``ChannelValidation`` only: issuer ``https://api.botframework.com``, audience our app
    id, a signing key the channel's OpenID metadata publishes and endorses for ``msteams``. Emulator and AAD-issued
    tokens (which ``JwtTokenValidation`` would also accept, without the ``serviceurl`` check of
    :func:`check_sender`) are refused. An unknown key id makes the cached keys be fetched again, once (keys roll
    over; the library would otherwise keep refusing for a day).

    Raises:
        PermissionError: the token is missing or not valid (any validator error).
    """
    if not auth_header:
        raise PermissionError("no Authorization header")
    credentials = SimpleCredentialProvider(rt.app_id, rt.app_password)
    for attempt in range(2):
        try:
            identity = await ChannelValidation.authenticate_channel_token(
                auth_header, credentials, "msteams", AuthenticationConfiguration())
        except IndexError as err:  # the cached key set lacks the token's key id
            if attempt:
                raise PermissionError("unknown signing key") from err
            JwtTokenExtractor.metadataCache.clear()
            continue
        except Exception as err:  # PermissionError, jwt errors, plain Exception for endorsements …
            raise PermissionError(f"{type(err).__name__}: {err}") from err
        if identity is None or not identity.is_authenticated:
            raise PermissionError("not authenticated")
        return identity
    raise PermissionError("unknown signing key")


def check_sender(activity: Activity, identity: ClaimsIdentity) -> None:
    """The activity comes from Teams and names the ``serviceUrl`` its token was issued for (a reply goes there).

    Raises:
        PermissionError: another channel, or a ``serviceUrl`` other than the token's ``serviceurl`` claim.
    """
    if activity.channel_id != "msteams":
        raise PermissionError(f"channel {activity.channel_id!r} is not msteams")
    if identity.get_claim_value(ChannelValidation.SERVICE_URL_CLAIM) != activity.service_url:
        raise PermissionError("the serviceUrl is not the one the token was issued for")


async def serve(event: dict, auth_header: str, rt: Runtime) -> dict:
    """Authenticate, read the body, check the sender, then run the activity through the adapter and the bot; the
    HTTP response."""
    try:
        identity = await authenticate(auth_header, rt)
    except PermissionError as err:
        logger.warning("activity refused: %s", err)
        return http_response(401, "unauthorized")
    try:
        activity = parse_body(event)
    except ValueError as err:
        logger.warning("malformed activity refused: %s", err)
        return http_response(400, str(err))
    try:
        check_sender(activity, identity)
    except PermissionError as err:
        logger.warning("activity refused: %s", err)
        return http_response(401, "unauthorized")
    adapter = _Adapter(BotFrameworkAdapterSettings(rt.app_id, rt.app_password, app_credentials=rt.credentials))
    try:
        invoke = await adapter.process_activity_with_identity(activity, identity, rt.bot.on_turn)
    except Exception:
        logger.exception("activity failed: %s %s", activity.type, activity.id)
        return http_response(500, "internal error")
    finally:
        await adapter.close()
    if invoke is not None:
        return http_response(int(invoke.status), invoke.body)
    return http_response(200)
