"""What the server may ask the client (elicitation, sampling, roots), answered by callbacks.

The same callbacks answer both forms a question takes: a server->client request in a handshake
session, and an entry of `inputRequests` in a 2026-07-28 input-required result. A callback is a
plain function or a coroutine function; it gets a small dataclass and may return a dataclass or
the plain value (see each `*Answer` type). The client declares exactly the capabilities it has
callbacks for. An elicitation's answer and a root are the types the server side's Context
gives its functions (`plainmcp.ElicitResult`, `plainmcp.Root`): one type for one thing.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypeVar

from plainmcp.client.results import parse_block
from plainmcp.context import ElicitResult, Root, SampleResult
from plainmcp.model.blocks import ContentBlock, Text
from plainmcp.wire import render
from plainmcp.wire.revisions import Revision

ELICIT = "elicitation/create"
SAMPLE = "sampling/createMessage"
ROOTS = "roots/list"

T = TypeVar("T")
MaybeAwaitable: TypeAlias = T | Awaitable[T]


# --- elicitation -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Elicitation:
    """An elicitation/create request. Form mode: `requested_schema` says what to fill in.
    URL mode: the user is sent to `url` (its outcome arrives out of band)."""

    message: str
    mode: Literal["form", "url"] = "form"
    requested_schema: dict[str, Any] | None = None
    url: str | None = None
    elicitation_id: str | None = None
    meta: dict[str, Any] | None = None


ElicitAnswer: TypeAlias = ElicitResult | Mapping[str, Any] | None
"""An ElicitResult; a mapping is the accepted form's content; None declines."""
ElicitCallback: TypeAlias = Callable[[Elicitation], MaybeAwaitable[ElicitAnswer]]


# --- sampling --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SamplingMessage:
    role: str
    content: list[ContentBlock]

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, Text))


@dataclass(frozen=True, slots=True)
class SamplingRequest:
    """A sampling/createMessage request; `raw` has every field, those not named here too."""

    messages: list[SamplingMessage]
    max_tokens: int
    system_prompt: str | None = None
    temperature: float | None = None
    stop_sequences: list[str] | None = None
    model_preferences: dict[str, Any] | None = None
    include_context: str | None = None
    metadata: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def prompt(self) -> str:
        """The text of the last message: what a one-question tool asks."""
        return self.messages[-1].text if self.messages else ""


@dataclass(frozen=True, slots=True)
class SamplingResult:
    content: str | ContentBlock
    model: str = "unknown"
    stop_reason: str | None = "endTurn"
    role: str = "assistant"


SampleAnswer: TypeAlias = SamplingResult | SampleResult | str | Mapping[str, Any]
"""A SamplingResult; a SampleResult (what `ctx.sample` gives a server function, content as the
wire has it); a str is the model's text; a mapping is the wire CreateMessageResult."""
SampleCallback: TypeAlias = Callable[[SamplingRequest], MaybeAwaitable[SampleAnswer]]


# --- roots -----------------------------------------------------------------------------------


RootItem: TypeAlias = Root | str | Mapping[str, Any]
RootsCallback: TypeAlias = Callable[[], MaybeAwaitable[Sequence[RootItem]]]
Roots: TypeAlias = Sequence[RootItem] | RootsCallback
"""The roots themselves (`["file:///work"]`), or a function returning them."""


class CallbackError(Exception):
    """A callback raised, or returned something that is not an answer."""


class MissingCallback(CallbackError):
    """The server asked for something the client has no callback for (so never declared)."""


async def _run(fn: Callable[..., Any], *args: Any) -> Any:
    value = fn(*args)
    if inspect.isawaitable(value):
        value = await value
    return value


def declared_extensions(
    extensions: Mapping[str, Mapping[str, Any]],
) -> dict[str, dict[str, Any]]:
    """The client's extensions as given (`Client(extensions={"vendor/name": {settings}})`),
    refused with ValueError when an id is not a prefixed name or its settings not an object."""
    declared: dict[str, dict[str, Any]] = {}
    for ident, settings in extensions.items():
        if not isinstance(ident, str) or "/" not in ident.strip("/"):
            raise ValueError(f"an extension id is a prefixed name (vendor/name), not {ident!r}")
        if not isinstance(settings, Mapping):
            raise ValueError(f"extension {ident!r}: its settings are an object, not {settings!r}")
        declared[ident] = dict(settings)
    return declared


class Callbacks:
    """A client's callbacks, the capabilities they declare, and the answers they give."""

    def __init__(
        self,
        elicit: ElicitCallback | None = None,
        sample: SampleCallback | None = None,
        roots: Roots | None = None,
        extensions: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.elicit = elicit
        self.sample = sample
        self.roots = roots
        self.extensions = declared_extensions(extensions or {})

    def capabilities(self, rev: Revision) -> dict[str, Any]:
        """What to declare: a capability for each callback the revision can ask for."""
        asked = rev.client_requests | rev.input_requests
        caps: dict[str, Any] = {}
        if self.elicit is not None and ELICIT in asked:
            caps["elicitation"] = {"form": {}, "url": {}}
        if self.sample is not None and SAMPLE in asked:
            caps["sampling"] = {}
        if self.roots is not None and ROOTS in asked:
            caps["roots"] = {}
        if self.extensions:
            # Sent at every revision: one without `extensions` in its schema allows the key and
            # ignores it, and a server offers an extension only at revisions it is in.
            caps["extensions"] = {name: dict(value) for name, value in self.extensions.items()}
        return caps

    def handles(self, method: str) -> bool:
        return {ELICIT: self.elicit, SAMPLE: self.sample, ROOTS: self.roots}.get(method) is not None

    async def answer(self, method: str, params: Mapping[str, Any], rev: Revision) -> dict[str, Any]:
        """The wire result answering `method`; CallbackError when there is none to give."""
        try:
            if method == ELICIT and self.elicit is not None:
                return elicit_result(await _run(self.elicit, elicitation(params)))
            if method == SAMPLE and self.sample is not None:
                return sample_result(await _run(self.sample, sampling_request(params)), rev)
            if method == ROOTS and self.roots is not None:
                roots = self.roots
                items = await _run(roots) if callable(roots) else roots
                return {"roots": [root_wire(r) for r in items]}
        except CallbackError:
            raise
        except Exception as exc:
            raise CallbackError(f"the {method} callback failed: {exc!r}") from exc
        raise MissingCallback(f"the client has no callback for {method}")


# --- wire <-> dataclasses --------------------------------------------------------------------


def _dict(value: object) -> dict[str, Any] | None:
    return dict(value) if isinstance(value, Mapping) else None


def elicitation(params: Mapping[str, Any]) -> Elicitation:
    mode: Literal["form", "url"] = "url" if params.get("mode") == "url" else "form"
    return Elicitation(
        message=str(params.get("message", "")),
        mode=mode,
        requested_schema=_dict(params.get("requestedSchema")),
        url=params.get("url") if isinstance(params.get("url"), str) else None,
        elicitation_id=(
            params.get("elicitationId") if isinstance(params.get("elicitationId"), str) else None
        ),
        meta=_dict(params.get("_meta")),
    )


def elicit_result(answer: object) -> dict[str, Any]:
    if answer is None:
        return {"action": "decline"}
    if isinstance(answer, ElicitResult):
        out: dict[str, Any] = {"action": answer.action}
        if answer.content is not None:
            out["content"] = dict(answer.content)
        return out
    if isinstance(answer, Mapping):
        return {"action": "accept", "content": dict(answer)}
    raise CallbackError(f"an elicit callback returned {type(answer).__name__}, not an answer")


def sampling_request(params: Mapping[str, Any]) -> SamplingRequest:
    messages: list[SamplingMessage] = []
    for m in params.get("messages") or []:
        if not isinstance(m, Mapping):
            continue
        content = m.get("content")
        blocks = content if isinstance(content, list) else [content]
        messages.append(SamplingMessage(str(m.get("role", "")), [parse_block(b) for b in blocks]))
    stop = params.get("stopSequences")
    temperature = params.get("temperature")
    return SamplingRequest(
        messages=messages,
        max_tokens=int(params.get("maxTokens", 0)),
        system_prompt=params.get("systemPrompt"),
        temperature=float(temperature) if isinstance(temperature, int | float) else None,
        stop_sequences=list(stop) if isinstance(stop, list) else None,
        model_preferences=_dict(params.get("modelPreferences")),
        include_context=params.get("includeContext"),
        metadata=_dict(params.get("metadata")),
        raw=dict(params),
    )


def sample_result(answer: object, rev: Revision) -> dict[str, Any]:
    if isinstance(answer, str):
        answer = SamplingResult(answer)
    if isinstance(answer, SamplingResult):
        block = Text(answer.content) if isinstance(answer.content, str) else answer.content
        out: dict[str, Any] = {
            "role": answer.role,
            "content": render.block(block, rev),
            "model": answer.model,
        }
        if answer.stop_reason is not None:
            out["stopReason"] = answer.stop_reason
        return out
    if isinstance(answer, SampleResult):
        wire = {"role": answer.role, "content": answer.content, "model": answer.model}
        if answer.stop_reason is not None:
            wire["stopReason"] = answer.stop_reason
        return wire
    if isinstance(answer, Mapping):
        return dict(answer)
    raise CallbackError(f"a sample callback returned {type(answer).__name__}, not an answer")


def root_wire(item: object) -> dict[str, Any]:
    if isinstance(item, str):
        return {"uri": item}
    if isinstance(item, Root):
        return {"uri": item.uri, **({"name": item.name} if item.name is not None else {})}
    if isinstance(item, Mapping):
        return dict(item)
    raise CallbackError(f"a root must be a Root, a URI or a mapping, not {type(item).__name__}")


# --- input-required results (2026-07-28) -----------------------------------------------------


def input_requests(rev: Revision | None, result: Mapping[str, Any]) -> dict[str, Any] | None:
    """The questions of an input-required result (None: the result is final)."""
    if rev is None or not rev.input_requests or result.get("resultType") != "input_required":
        return None
    asks = result.get("inputRequests")
    return dict(asks) if isinstance(asks, Mapping) else {}


def retry_params(
    params: Mapping[str, Any] | None, answers: Mapping[str, Any], state: object
) -> dict[str, Any]:
    """The retry of a request: the same params, every answer given so far (a server without
    requestState needs them all again) and the state echoed, when the server sent one."""
    out = dict(params or {})
    out["inputResponses"] = dict(answers)
    if isinstance(state, str):
        out["requestState"] = state
    return out
