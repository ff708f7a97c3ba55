"""Requests this server sends to one client (sampling, elicitation, roots) and their answers.

`Connection.ask` sends through here; the client's responses land here through
`Connection.accept`. A request not answered in time is cancelled towards the client.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

import anyio

from plainmcp.peer import Send
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import RequestId, Response, RpcError

log = logging.getLogger("plainmcp")


class Channel(Protocol):
    """What asking needs of a connection: where a request's messages go, and notifying."""

    def sender(self, related_to: RequestId | None) -> Send: ...

    async def notify(
        self, method: str, params: dict[str, Any], *, related_to: RequestId | None = None
    ) -> None: ...


class Asks:
    """One connection's requests to its client still waiting for an answer."""

    __slots__ = ("_asked", "_next_ask", "prefix")

    def __init__(self, prefix: str = "plainmcp-") -> None:
        self._asked: dict[RequestId, _Answer] = {}
        self._next_ask = 0
        self.prefix = prefix
        """What our request ids start with: processes sharing sessions put their own name in
        it, so that a client's response reaching another process can be sent on to this one."""

    async def ask(
        self,
        connection: Channel,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float,
        related_to: RequestId | None = None,
    ) -> dict[str, Any]:
        """See `Connection.ask`."""
        self._next_ask += 1
        request_id: RequestId = f"{self.prefix}{self._next_ask}"
        answer = _Answer()
        self._asked[request_id] = answer
        send = connection.sender(related_to)
        try:
            await send(jsonrpc.encode(jsonrpc.request_message(request_id, method, params)))
            with anyio.fail_after(timeout):
                response = await answer.wait()
        except BaseException as exc:
            if self._asked.pop(request_id, None) is not None:
                reason = "timed out" if isinstance(exc, TimeoutError) else "cancelled"
                with anyio.CancelScope(shield=True):
                    await connection.notify(
                        "notifications/cancelled",
                        {"requestId": request_id, "reason": reason},
                        related_to=related_to,
                    )
            if isinstance(exc, TimeoutError):
                raise TimeoutError(
                    f"the client did not answer {method} within {timeout:g} seconds"
                ) from None
            raise
        if response.error is not None:
            code = response.error.get("code")
            raise RpcError(
                code if isinstance(code, int) else -32603,
                str(response.error.get("message", "")),
                response.error.get("data"),
            )
        return response.result or {}

    def waits_for(self, request_id: RequestId) -> bool:
        return request_id in self._asked

    def answered(self, message: Response) -> None:
        """The client's response to one of our requests."""
        answer = self._asked.pop(message.id, None)
        if answer is None:
            log.warning("ignored a response to unknown request %r", message.id)
        else:
            answer.deliver(message)


class _Answer:
    """Where the client's response to one of our requests lands."""

    __slots__ = ("_event", "response")

    def __init__(self) -> None:
        self._event = anyio.Event()
        self.response: Response | None = None

    def deliver(self, response: Response) -> None:
        self.response = response
        self._event.set()

    async def wait(self) -> Response:
        await self._event.wait()
        assert self.response is not None
        return self.response
