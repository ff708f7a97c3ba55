"""Input-required results (2026-07-28): what a retry's answers are, and the result that asks.

A stateless request that needs the client's input is answered with the questions and a signed
requestState; the client's retry carries the state back with its answers. The state is bound to
the method, its target (the table's `Method.target`), the arguments and the principal, so any
process holding the secret can continue the request and none can be led to use it elsewhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plainmcp.context import InputRequired
from plainmcp.model.identity import identity
from plainmcp.wire.jsonrpc import INVALID_PARAMS, Request, RpcError
from plainmcp.wire.methods import Method, Target
from plainmcp.wire.request_state import StateError, StateSigner

if TYPE_CHECKING:
    from plainmcp.exchange import Exchange


def answers(
    signer: StateSigner, request: Request, method: Method, principal: Any
) -> dict[str, Any]:
    """The answers a retry carries: those signed into requestState, plus this round's
    inputResponses for the keys that state asked (others are ignored, as the spec says).
    Without a state, inputResponses are taken as given."""
    if method.target is None:
        return {}
    token = request.params.get("requestState")
    if token is None:
        # Answers given up front (no round trip yet): the client's own answers, so as good as
        # answers to a question; the function reads the keys it asks, others are ignored.
        given = request.params.get("inputResponses")
        return dict(given) if isinstance(given, dict) else {}
    target, arguments = _target(request, method.target)
    try:
        state = signer.verify(
            token,
            method=method.name,
            target=target,
            arguments=arguments,
            principal=subject(principal),
        )
    except StateError as exc:
        raise RpcError(INVALID_PARAMS, str(exc)) from None
    given = request.params.get("inputResponses")
    fresh = given if isinstance(given, dict) else {}
    return {**state.answers, **{k: v for k, v in fresh.items() if k in state.asked}}


def result(
    signer: StateSigner, ex: Exchange, method: Method, needed: InputRequired
) -> dict[str, Any]:
    """The input-required result asking `needed`, with the state its retry brings back."""
    if method.target is None:
        raise RpcError(INVALID_PARAMS, f"{method.name} cannot ask the client for input") from None
    target, arguments = _target(ex.request, method.target)
    token = signer.issue(
        method=method.name,
        target=target,
        arguments=arguments,
        answers=dict(ex.answers),
        principal=subject(ex.principal),
        asked=tuple(needed.requests),
    )
    return {
        "resultType": "input_required",
        "inputRequests": needed.requests,
        "requestState": token,
    }


def _target(request: Request, target: Target) -> tuple[str, Any]:
    """What a request is about (tool, prompt or resource) and its arguments, which a
    requestState is bound to."""
    named = request.params.get(target.param)
    return str(named), request.params.get("arguments") if target.arguments else None


def subject(principal: Any) -> str | None:
    """Who a requestState is bound to: the authenticated principal (HTTP bearer auth), as a
    session is; None where the transport authenticates nobody (stdio)."""
    return identity(principal)
