"""AWS Lambda behind the HTTP API (``POST /api/messages``): the Microsoft Teams bot.

The handler checks the Bot Framework JWT in ``Authorization`` with botframework-connector's validator (issuer,
audience = our app id, signing key from the channel's published keys, endorsement of the channel) before it reads the
body, then that the activity comes from ``msteams`` and names the ``serviceUrl`` the token's ``serviceurl`` claim
holds, and only then runs the activity through botbuilder's ``BotFrameworkAdapter`` and :class:`TeamsBot`; so a
``serviceUrl`` is trusted (replied to, stored in a job) only after validation. Status codes: 401 for any failure of
authentication (a missing header, a forged, expired or foreign token, an unreachable key endpoint, another channel or
``serviceUrl``), 400 for an event or body that is not a well-formed activity (:func:`malformed`), 500 when the bot
fails after authentication (Teams may retry: the dedupe claim is released), otherwise 200 (or an invoke's status).

:class:`TeamsBot` only decides what an activity asks for, claims it once (durable dedupe on conversation + activity
id in the conversations table) and enqueues a job; the worker Lambdas deliver through
:class:`bot_handlers.teams.client.TeamsClient`. It handles personal-chat messages and channel/group-chat @mentions
(questions with ``--rag``/``--graph``, ``mode [rag|graph]``, ``help``), a PDF attached in a personal chat (``report``
or no text → report, ``index [perspective]`` → library), the 👍/👎 ``Action.Submit`` of an answer card, and
``fileConsent/invoke`` (the user accepted or declined a report file offered with a FileConsentCard). Nothing here
imports torch or loads a model.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from bot_handlers.platforms import deployed
from bot_handlers.teams.bot import TeamsBot
from bot_handlers.teams.client import teams_credentials
from bot_handlers.teams.edge import Runtime, http_response, serve
from lcabot.wiring import Deps

logger = logging.getLogger("lcabot.teams")


def runtime(deps: Deps) -> Runtime:
    """The credentials and the bot for ``deps``, built at their first request."""
    def build() -> Runtime:
        creds = teams_credentials(deps)
        bucket = deps.settings.reports_bucket or ""
        bot = TeamsBot(deps.conversations, deps.queues, reports=deps.bucket(bucket) if bucket else None,
                       reports_bucket=bucket, default_mode=deps.settings.retrieval_mode)
        return Runtime(creds.app_id, creds.app_password, creds.app_credentials(), bot)

    return deps.once("teams:runtime", build)


def handler(event: dict, context: Any) -> dict:
    return handle(event, context, deployed())


def handle(event: dict, context: Any, deps: Deps) -> dict:
    """API Gateway (HTTP API, payload 2.0) event → ``{"statusCode", "headers", "body"}``: 401 before the body is read
    when the token is not the channel's, 400 for a body that is not a well-formed activity, 401 for an activity from
    another channel or ``serviceUrl`` than the token's."""
    if not isinstance(event, dict) or not isinstance(event.get("headers"), dict) or \
            not isinstance(event.get("body", ""), str | None):
        return http_response(400, "not an API Gateway HTTP event")
    headers = {str(k).lower(): v for k, v in event["headers"].items()}
    auth_header = headers.get("authorization")
    try:
        rt = runtime(deps)
    except Exception:  # no credentials: refuse every activity rather than run unauthenticated
        logger.exception("Teams bot is not configured")
        return http_response(500, "not configured")
    try:
        return asyncio.run(serve(event, auth_header if isinstance(auth_header, str) else "", rt))
    except Exception:  # a last line: logged, and a response rather than a raw Lambda error
        logger.exception("Teams request failed")
        return http_response(500, "internal error")
