"""What a running tool, resource or prompt function may use: a `ctx: Context` parameter.

The parameter is found by its annotation, hidden from schemas and filled in per request.
Everything a Context sends belongs to the request it was made for.
"""

from __future__ import annotations

import inspect
import math
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, overload

import anyio

from plainmcp.wire import render
from plainmcp.wire.jsonrpc import RequestId, RpcError
from plainmcp.wire.meta import LOG_LEVELS

if TYPE_CHECKING:
    from plainmcp.exchange import Exchange

T = TypeVar("T")

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


class NotRunning(RuntimeError):
    """`ctx.lifespan()` was read while no lifespan runs (none declared, or never entered)."""


class LifespanState(Protocol):
    """What `ctx.lifespan()` reads: the server's running lifespan (plainmcp.lifespan)."""

    def get(self, cls: type[Any] | None = None) -> Any: ...


class ClientCapabilityError(RuntimeError):
    """The client did not declare the capability a request to it needs (or its protocol
    revision cannot carry the request).

    `required` is set for a stateless (2026-07-28) request: uncaught, the server answers it
    with the spec's -32021 error naming the capability.
    """

    def __init__(self, message: str, required: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.required = required


class InputRequired(BaseException):
    """A stateless request needs the client's input first: the server answers with an
    input-required result, and the client's retry runs the function again with the answer.

    A BaseException, so `except Exception` in user code does not swallow it.
    """

    def __init__(self, requests: Mapping[str, Mapping[str, Any]]) -> None:
        super().__init__(", ".join(requests))
        self.requests = dict(requests)


class ClientRequestError(RuntimeError):
    """The client answered an elicitation, sampling or roots request with an error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


@dataclass(frozen=True, slots=True)
class ElicitResult:
    """The user's answer to an elicitation: action is "accept" (with the form's content),
    "decline" or "cancel". One type on both sides: what `ctx.elicit` returns, and what a
    client's elicit callback may return (`plainmcp.client.ElicitResult` is this class)."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class SampleResult:
    """The client's model's answer to a sampling request (content as the wire gives it)."""

    role: str
    content: Any
    model: str
    stop_reason: str | None

    @property
    def text(self) -> str | None:
        """The text of a text answer (None for images, audio or tool use)."""
        content = self.content
        if isinstance(content, dict) and content.get("type") == "text":
            text = content.get("text")
            return text if isinstance(text, str) else None
        return None


@dataclass(frozen=True, slots=True)
class Root:
    """One of the client's roots: what `ctx.list_roots` returns, and what a client's roots
    callback may give (`plainmcp.client.Root` is this class)."""

    uri: str
    name: str | None = None


class Context:
    """The request a function is serving, and what it may do while serving it."""

    def __init__(
        self,
        exchange: Exchange,
        *,
        client_timeout: float = 120.0,
        lifespan: LifespanState | None = None,
    ) -> None:
        """`lifespan`: the server's (what `lifespan()` reads), None when it declares none."""
        self._ex = exchange
        self._lifespan = lifespan
        self.request_id: RequestId = exchange.request.id
        self.meta: Mapping[str, Any] = exchange.meta
        self.progress_token: str | int | None = self.meta.get("progressToken")
        self._client_timeout = client_timeout
        self._last_progress = -math.inf
        self._scope = exchange.peer.cancel_scope(self.request_id)
        self._asked: dict[str, int] = {}

    # --- what the request is --------------------------------------------------------------

    @property
    def revision(self) -> str:
        return self._ex.revision.version

    @property
    def client_info(self) -> Mapping[str, Any]:
        return self._ex.client_info

    @property
    def client_capabilities(self) -> Mapping[str, Any]:
        return self._ex.client_capabilities

    @property
    def principal(self) -> Any:
        """Who the HTTP transport authenticated for this request (what the bearer-token
        verifier returned); None on stdio and when no auth is configured."""
        return self._ex.principal

    @overload
    def lifespan(self) -> Any: ...

    @overload
    def lifespan(self, cls: type[T]) -> T: ...

    def lifespan(self, cls: type[Any] | None = None) -> Any:
        """What the server's lifespan yielded; given its type, checked and typed as it
        (`ctx.lifespan(Resources).db`). RuntimeError if no lifespan runs."""
        lifespan = self._lifespan
        if lifespan is None:
            raise NotRunning("the server declares no lifespan: Server(..., lifespan=fn)")
        return lifespan.get(cls)

    @property
    def cancelled(self) -> bool:
        """The client cancelled this request: a sync tool's loop should check and stop, since
        a worker thread cannot be interrupted."""
        return self._scope is not None and self._scope.cancel_called

    def check_cancelled(self) -> None:
        """Raise the cancellation exception if the client cancelled this request."""
        if self.cancelled:
            raise anyio.get_cancelled_exc_class()()

    async def become_task(self) -> bool:
        """Run on as a task from here (docs/tasks.md): the client is answered with its task
        now, and the rest of the call's work is its result. Only a call of a tool declared
        `task=`, from a client that can take a task, can: False otherwise (the call goes on as
        it was). True also when it is a task already."""
        if self._ex.task_id is not None:
            return True
        become = getattr(self._ex.peer, "become_task", None)
        return bool(await become()) if become is not None else False

    def close_stream(self) -> bool:
        """Close this request's HTTP response stream now and keep running: the client waits the
        server's `retry` hint, reconnects with Last-Event-ID and gets what follows, the result
        included (the 2025-11-25 polling pattern, for calls that outlast a proxy's timeout).
        False where that is not possible (stdio, 2026-07-28, revisions before 2025-11-25)."""
        return self._ex.peer.close_stream(self.request_id)

    # --- progress and logging -------------------------------------------------------------

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Tell the client how far along the request is (only when it asked for progress).

        Progress must increase; a value that does not is not sent, as the spec requires.
        """
        if progress <= self._last_progress or (
            self.progress_token is None and self._ex.task_id is None  # a task's is its status
        ):
            return
        self._last_progress = progress
        token = self.progress_token if self.progress_token is not None else self._ex.task_id
        assert token is not None
        params = render.progress(self._ex.revision, token, progress, total, message)
        await self._ex.peer.notify("notifications/progress", params, related_to=self.request_id)

    async def log(self, level: LogLevel, data: Any, *, logger: str | None = None) -> None:
        """Send a log message to the client, if its logging/setLevel lets this level through."""
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        if not self._ex.logging_allowed:
            return
        threshold = self._ex.log_level
        if threshold is not None and LOG_LEVELS.index(level) < LOG_LEVELS.index(threshold):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self._ex.peer.notify("notifications/message", params, related_to=self.request_id)

    async def debug(self, data: Any, *, logger: str | None = None) -> None:
        await self.log("debug", data, logger=logger)

    async def info(self, data: Any, *, logger: str | None = None) -> None:
        await self.log("info", data, logger=logger)

    async def warning(self, data: Any, *, logger: str | None = None) -> None:
        await self.log("warning", data, logger=logger)

    async def error(self, data: Any, *, logger: str | None = None) -> None:
        await self.log("error", data, logger=logger)

    # --- asking the client ----------------------------------------------------------------

    def _require(self, capability: str, method: str) -> None:
        rev = self._ex.revision
        if method not in rev.client_requests and method not in rev.input_requests:
            raise ClientCapabilityError(f"protocol revision {rev.version} has no {method}")
        if capability not in self._ex.client_capabilities:
            raise ClientCapabilityError(
                f"the client did not declare the '{capability}' capability, so {method}"
                " cannot be sent to it",
                {capability: {}} if self._ex.stateless else None,
            )

    async def _ask(
        self, method: str, params: dict[str, Any], key: str | None = None
    ) -> dict[str, Any]:
        if self._ex.stateless and self._ex.task_id is None:
            return self._answer(method, params, key)
        try:
            return await self._ex.peer.ask(
                method, params, timeout=self._client_timeout, related_to=self.request_id
            )
        except RpcError as exc:
            raise ClientRequestError(exc.code, exc.message, exc.data) from None

    def _answer(self, method: str, params: dict[str, Any], key: str | None) -> dict[str, Any]:
        """The client's answer to this run's next `method` request, or InputRequired for it.

        A stateless request is re-run from the start on every retry, so the n-th request of a
        kind gets the same key each time (unless the caller names it) and finds its answer once
        the client has given it. An answer of the wrong shape is asked for again.
        """
        if key is None:
            kind = method.split("/", 1)[0]
            self._asked[kind] = self._asked.get(kind, 0) + 1
            key = f"{kind}-{self._asked[kind]}"
        answer = self._ex.answers.get(key)
        if isinstance(answer, dict) and _ANSWER_SHAPE[method](answer):
            return answer
        raise InputRequired({key: {"method": method, "params": params}})

    async def ask_all(self, *questions: Awaitable[T]) -> list[T]:
        """Ask several questions (un-awaited `ctx.elicit(...)`, `ctx.sample(...)`,
        `ctx.list_roots()` calls) at once: in a stateless request every unanswered one goes
        into one input-required result, instead of one round trip each. In a session they are
        asked one after another."""
        answers: list[T] = []
        pending: dict[str, Any] = {}
        waiting = list(questions)
        try:
            while waiting:
                try:
                    answers.append(await waiting.pop(0))
                except InputRequired as needed:
                    pending.update(needed.requests)
        finally:
            for question in waiting:  # an error ended the round: the rest are never asked
                if inspect.iscoroutine(question):
                    question.close()
        if pending:
            raise InputRequired(pending)
        return answers

    async def elicit(
        self, message: str, schema: Mapping[str, Any], *, key: str | None = None
    ) -> ElicitResult:
        """Ask the user for input through the client: a message and a flat JSON object schema.

        `key` names the input request of a stateless (2026-07-28) request; default
        "elicitation-1", "elicitation-2", ... in the order asked."""
        self._require("elicitation", "elicitation/create")
        rev = self._ex.revision
        if not rev.elicitation_multi_select and any(
            isinstance(p, Mapping) and p.get("type") == "array"
            for p in (schema.get("properties") or {}).values()
        ):
            raise ClientCapabilityError(
                f"protocol revision {rev.version} has no multi-select (array) elicitation fields"
            )
        result = await self._ask(
            "elicitation/create", {"message": message, "requestedSchema": dict(schema)}, key
        )
        action = result.get("action")
        if action not in ("accept", "decline", "cancel"):
            raise ValueError(f"the client answered elicitation with an unknown action {action!r}")
        content = result.get("content")
        return ElicitResult(action, content if isinstance(content, dict) else None)

    async def sample(
        self,
        messages: str | Sequence[Mapping[str, Any]],
        *,
        max_tokens: int,
        system_prompt: str | None = None,
        temperature: float | None = None,
        stop_sequences: Sequence[str] | None = None,
        model_preferences: Mapping[str, Any] | None = None,
        include_context: Literal["none", "thisServer", "allServers"] | None = None,
        key: str | None = None,
    ) -> SampleResult:
        """Ask the client's model for a completion (`messages` as a string is one user turn).

        `key` names the input request of a stateless request (default "sampling-N")."""
        self._require("sampling", "sampling/createMessage")
        if isinstance(messages, str):
            messages = [{"role": "user", "content": {"type": "text", "text": messages}}]
        params: dict[str, Any] = {"messages": [dict(m) for m in messages], "maxTokens": max_tokens}
        for field_name, value in (
            ("systemPrompt", system_prompt),
            ("temperature", temperature),
            ("stopSequences", list(stop_sequences) if stop_sequences is not None else None),
            ("modelPreferences", dict(model_preferences) if model_preferences else None),
            ("includeContext", include_context),
        ):
            if value is not None:
                params[field_name] = value
        result = await self._ask("sampling/createMessage", params, key)
        return SampleResult(
            role=str(result.get("role", "")),
            content=result.get("content"),
            model=str(result.get("model", "")),
            stop_reason=result.get("stopReason"),
        )

    async def list_roots(self, *, key: str | None = None) -> list[Root]:
        """The roots (folders, repositories) the client exposes (`key`: as for `elicit`)."""
        self._require("roots", "roots/list")
        result = await self._ask("roots/list", {}, key)
        roots = result.get("roots")
        if not isinstance(roots, list):
            return []
        return [
            Root(str(r["uri"]), r.get("name"))
            for r in roots
            if isinstance(r, dict) and isinstance(r.get("uri"), str)
        ]


_ANSWER_SHAPE: dict[str, Callable[[dict[str, Any]], bool]] = {
    "elicitation/create": lambda a: a.get("action") in ("accept", "decline", "cancel"),
    "sampling/createMessage": lambda a: "content" in a,
    "roots/list": lambda a: isinstance(a.get("roots"), list),
}
"""What an answer to each input request must look like to count as one."""


def context_params(fn: Callable[..., Any]) -> tuple[str, ...]:
    """Names of the parameters of `fn` annotated with Context (they are injected, not asked for)."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception:
        hints = {}
    names = []
    for name, param in inspect.signature(fn).parameters.items():
        annotation = hints.get(name, param.annotation)
        if isinstance(annotation, str):
            matched = annotation.rsplit(".", 1)[-1] == "Context"
        else:
            matched = _is_context(annotation)
        if matched:
            names.append(name)
    return tuple(names)


def _is_context(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, Context):
        return True
    return any(_is_context(arg) for arg in typing.get_args(annotation))
