"""The deployables' composition: the chat platforms' ``PlatformClient`` factories given to
:func:`lcabot.wiring.build`, and the dependencies of this execution environment."""

from __future__ import annotations

from functools import cache
from typing import Any

from lcabot import wiring
from lcabot.config import Settings
from lcabot.wiring import Deps


def _slack(deps: Deps) -> Any:
    from bot_handlers.slack.client import slack_client

    return slack_client(deps)


def _teams(deps: Deps) -> Any:
    from bot_handlers.teams.client import teams_client

    return teams_client(deps)


PLATFORMS = {"slack": _slack, "teams": _teams}


def build(settings: Settings, **parts: Any) -> Deps:
    """The dependencies for ``settings``, with the Slack and Teams clients (``parts``: see
    :class:`lcabot.wiring.Deps`)."""
    return wiring.build(settings, PLATFORMS, **parts)


@cache
def deployed() -> Deps:
    """The dependencies of this execution environment, from its environment (``template.yaml``), built at its
    first invocation (the cold start) and kept for the next ones. Tests pass their own ``Deps`` to ``handle``."""
    return build(Settings.from_env())
