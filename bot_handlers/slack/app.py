"""AWS Lambda behind the HTTP API (``POST /slack/events``): the Slack Bolt app.

Bolt verifies the request signature (``X-Slack-Signature``, timestamps older than five minutes refused) and answers
``url_verification``. The listeners only decide what a message asks for, claim it once (durable dedupe on team +
channel + message ts in the conversations table, with a request token and a short lease, so that Slack's retries and
duplicate deliveries act once and a retry after an invocation stopped midway still acts), post a placeholder into
the thread and enqueue a job, with at most two DynamoDB calls before Slack gets its 200; the worker Lambdas do the
rest and update the placeholder. Nothing here imports torch or loads a model, so the acknowledgement stays well
inside Slack's 3 seconds.

Handled: ``app_mention``; ``message`` in direct messages, in threads the bot answers in, and PDF shares in library
channels (``LCABOT_SLACK_LIBRARY_CHANNELS``, comma-separated channel ids); ``/lca-report`` (a modal with a PDF
``file_input``); ``/lca-mode`` (the channel's retrieval mode); 👍/👎 buttons. The bot's own messages, other bots,
edits and other message subtypes are ignored; ``file_shared`` is acknowledged (the message sharing the file is acted
on).
"""

from __future__ import annotations

from typing import Any

from slack_bolt.adapter.aws_lambda import SlackRequestHandler

from bot_handlers.platforms import deployed
from bot_handlers.slack import edge
from bot_handlers.slack.client import SlackCredentials, slack_credentials
from bot_handlers.slack.listeners import SlackBot, build_app
from lcabot.wiring import Deps


def credentials(deps: Deps) -> SlackCredentials:
    return deps.once("slack:credentials", lambda: slack_credentials(deps))


def request_handler(deps: Deps) -> SlackRequestHandler:
    """Bolt's Lambda adapter for ``deps``, built at their first request."""
    def build() -> SlackRequestHandler:
        creds = credentials(deps)
        bot = SlackBot(deps.conversations, deps.queues, deps.settings.slack_library_channels,
                       deps.settings.retrieval_mode)
        return SlackRequestHandler(build_app(bot, token=creds.bot_token, signing_secret=creds.signing_secret,
                                             api_url=deps.settings.slack_api_url))

    return deps.once("slack:handler", build)


def handler(event: dict, context: Any) -> dict:
    return handle(event, context, deployed())


def handle(event: dict, context: Any, deps: Deps) -> dict:
    """API Gateway (HTTP API, payload 2.0) event → ``{"statusCode", "body", "headers"}``: refused (401, 400) by
    :func:`bot_handlers.slack.edge.admit` before Bolt reads it; an event no listener acts on gets 200 (a 404 would
    make Slack retry it). Nothing raises."""
    try:
        event = edge.admit(event, lambda: credentials(deps).signing_secret)
    except edge.Refused as refused:
        return refused.response
    response = request_handler(deps).handle(event, context)
    if response.get("statusCode") == 404:  # no listener for it: acknowledged, not retried
        return {**response, "statusCode": 200, "body": ""}
    return response
