"""The Anthropic Messages API: one deadline for the whole call, and structured output read one way — a forced tool
call whose ``tool_use`` input is validated against the tool's JSON Schema. Answers, graph relations and report
fields all go through :meth:`MessagesClient.structured`.

The ``anthropic`` SDK is imported when a client is made, not with this module."""

from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from lcabot.errors import GenerationError, IncompleteGenerationError, PromptTooLongError

RETRIES = 2


@dataclass(frozen=True)
class Tool:
    """A tool the model is made to call, and the reader of its reply.

    Args:
        name: the tool's name (forced with ``tool_choice``).
        description: what the tool takes, for the model.
        input_schema: the JSON Schema (draft 2020-12) of the tool's input; it must be a valid schema.
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    _validator: Draft202012Validator = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        Draft202012Validator.check_schema(self.input_schema)
        object.__setattr__(self, "_validator", Draft202012Validator(self.input_schema))

    def spec(self) -> dict[str, Any]:
        """The tool as the Messages API's ``tools`` list takes it: ``{"name", "description", "input_schema"}``."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}

    def read(self, response: Any) -> dict[str, Any]:
        """The input of the reply's ``tool_use`` block calling this tool, valid under :attr:`input_schema`.

        Raises:
            GenerationError: no such block, or its input does not fit the schema (the reason is short and quotes
                none of the model's text).
        """
        for block in getattr(response, "content", None) or ():
            if getattr(block, "type", None) == "tool_use" and getattr(block, "name", None) == self.name:
                data = getattr(block, "input", None)
                error = best_match(self._validator.iter_errors(data))
                if error is not None:
                    where = "/".join(str(p) for p in error.path) or "the top"
                    raise GenerationError(f"Claude's {self.name} input did not fit its schema "
                                          f"(at {where}: {error.validator})")
                if not isinstance(data, dict):  # (every tool's schema asks for an object)
                    raise GenerationError(f"Claude's {self.name} input is not an object")
                return data
        raise GenerationError(f"Claude's reply did not call the {self.name} tool")


class MessagesClient:
    """The Anthropic Messages API with one deadline for the whole call: 408/409/429/5xx/529 and connection errors
    are retried up to twice with backoff (or the API's ``retry-after``) only while the deadline has not passed, and
    so is a reply that is not a complete message or not the tool call asked for. The SDK's own retries are off:
    they would give every attempt the full timeout.

    Args:
        api_key: Anthropic API key (from ``ANTHROPIC_API_KEY``), sent as ``x-api-key``.
        model: model id, e.g. ``claude-sonnet-4-5`` (``LCABOT_ANTHROPIC_MODEL``).
        timeout_s: deadline for one :meth:`structured`, retries included.
        base_url: API base URL; ``None`` lets the SDK read ``ANTHROPIC_BASE_URL`` or use its default.
        max_tokens: output budget per call.
    """

    def __init__(self, api_key: str, model: str, timeout_s: float = 60.0, base_url: str | None = None,
                 max_tokens: int = 1500) -> None:
        import anthropic

        self._anthropic = anthropic
        # anthropic 2.x sends ``api_key`` as "Authorization: Bearer", which the Messages API rejects for API keys
        # (it wants ``x-api-key``); send the key only where the API documents it.
        self._client = anthropic.Anthropic(
            api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0,
            # the SDK removes a default header given as ``omit`` (its annotation admits only str)
            default_headers={"x-api-key": api_key, "Authorization": anthropic.omit},  # type: ignore[dict-item]
        )
        self.model = model
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s

    def structured(self, system: str, messages: list[dict[str, Any]], tool: Tool, deadline: float | None = None
                   ) -> dict[str, Any]:
        """One Messages API call forcing ``tool`` (``tool_choice`` ``{"type": "tool", "name": tool.name}``) by
        ``deadline`` (``time.monotonic()``; default: ``timeout_s`` from now); returns the ``tool_use`` block's
        input, valid under the tool's schema. A reply that is not a complete message (an error object sent with
        HTTP 200, an event stream, a missing ``content``), has no ``tool_use`` block for the tool, or whose input
        does not fit the schema is retried like a transient error.

        Raises:
            IncompleteGenerationError: the reply hit ``max_tokens`` (not retried).
            PromptTooLongError: the API refused the prompt as too long for the model.
            GenerationError: an error that is not retried, the last retry failed, or the deadline passed.
        """
        deadline = deadline if deadline is not None else time.monotonic() + self.timeout_s
        for attempt in range(RETRIES + 1):
            try:
                # plain dicts, as the Messages API takes them (the SDK's overloads want its TypedDicts)
                response = self._within(deadline, lambda: self._client.messages.create(  # type: ignore[call-overload]
                    model=self.model, max_tokens=self.max_tokens, system=system, messages=messages,
                    tools=[tool.spec()], tool_choice={"type": "tool", "name": tool.name},
                    timeout=max(deadline - time.monotonic(), 0.001),
                ))
            except TimeoutError as err:
                raise GenerationError("Claude did not respond in time") from err
            except ValueError as err:  # a 200 whose body is not JSON (empty, cut short, not UTF-8): the SDK's error
                problem = f"Claude's reply was not a complete message ({type(err).__name__})"
            except self._anthropic.APIError as err:
                wait = self._retry_delay(err, attempt)
                if wait is None or attempt == RETRIES or time.monotonic() + wait >= deadline:
                    if getattr(err, "status_code", None) == 400 and "prompt is too long" in str(err).lower():
                        raise PromptTooLongError(f"{_describe(err)}: the prompt is too long") from err
                    raise GenerationError(_describe(err)) from err
                time.sleep(wait)
                continue
            else:
                problem = incomplete(response)
                if not problem:
                    if response.stop_reason == "max_tokens":
                        raise IncompleteGenerationError("the reply hit the max_tokens limit")
                    try:
                        return tool.read(response)
                    except GenerationError as err:
                        problem = str(err)
            wait = _backoff(attempt)
            if attempt == RETRIES or time.monotonic() + wait >= deadline:
                raise GenerationError(problem)
            time.sleep(wait)
        raise AssertionError("unreachable")

    @staticmethod
    def _within(deadline: float, call: Any) -> Any:
        """``call()``, given up at ``deadline``: the SDK's timeout bounds each read, not the whole reply (a server
        sending a byte every few seconds holds it for minutes). The abandoned call ends in its own thread.

        Raises:
            TimeoutError: the deadline passed first.
        """
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                outcome["value"] = call()
            except BaseException as err:  # handed to the caller
                outcome["error"] = err

        worker = threading.Thread(target=run, name="claude-call", daemon=True)
        worker.start()
        worker.join(max(deadline - time.monotonic(), 0.0) + 0.5)  # the SDK's own timeout fires first, normally
        if worker.is_alive():
            raise TimeoutError
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]

    def _retry_delay(self, err: Exception, attempt: int) -> float | None:
        """Seconds to wait before retrying ``err`` (``retry-after`` when the API gives one), or None: don't retry."""
        backoff = _backoff(attempt)
        if not isinstance(err, self._anthropic.APIStatusError):
            return backoff if isinstance(err, self._anthropic.APIConnectionError) else None
        verdict = err.response.headers.get("x-should-retry")  # the API's own say, honoured as the SDK does
        transient = err.status_code >= 500 or err.status_code in (408, 409, 429)
        if verdict == "false" or (verdict != "true" and not transient):
            return None
        try:
            wait = float(err.response.headers.get("retry-after", ""))
        except ValueError:
            return backoff
        return max(wait, 0.0) if math.isfinite(wait) else backoff


def incomplete(response: Any) -> str:
    """What makes a Messages API reply other than a complete message, else ``""``: an error object (sent with HTTP
    200), something that is not a message (an event stream read as one), no ``content`` list or no
    ``stop_reason``."""
    if getattr(response, "type", None) == "error":
        error = getattr(response, "error", None)
        kind = error.get("type") if isinstance(error, dict) else None
        return f"Claude replied with an error ({kind or 'unknown'})"
    if getattr(response, "type", None) != "message" or not isinstance(getattr(response, "content", None), list):
        return "Claude's reply was not a complete message"
    if not isinstance(getattr(response, "stop_reason", None), str):
        return "Claude's reply was not a complete message (no stop_reason)"
    return ""


def _backoff(attempt: int) -> float:
    return float(0.5 * 2**attempt * (1 - 0.25 * random.random()))


def _describe(err: Exception) -> str:
    status = getattr(err, "status_code", None)
    if status == 529:
        return "Claude is overloaded (HTTP 529)"
    if status is not None:
        return f"Claude API error HTTP {status}"
    return "Claude did not respond in time" if "timeout" in type(err).__name__.lower() else "Claude is unreachable"
