"""One shared `redis.asyncio` client per Redis URL and event loop (the extra `plainmcp[redis]`).

The session store, the routing between processes and the blob store each need Redis; they share
one client (one connection pool) per URL instead of opening their own. redis-py binds a client's
connections to the loop that first used them, so the cache is per loop. Nothing here is imported
by `import plainmcp`: the `redis` package is loaded when a URL is first opened.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import TYPE_CHECKING, Any

from plainmcp.wire.jsonrpc import StoreDown

if TYPE_CHECKING:
    from redis.asyncio import Redis

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Redis]] = (
    weakref.WeakKeyDictionary()
)


class RedisUnavailable(StoreDown):
    """Redis could not be reached (at start, or while serving); the message names the URL."""


def redis_errors() -> tuple[type[BaseException], ...]:
    """What redis-py raises when the server is gone or stops answering."""
    from redis.exceptions import ConnectionError, TimeoutError

    return (ConnectionError, TimeoutError, OSError)


def shared(url: str) -> Redis:
    """The running loop's client for `url` (made on first use)."""
    loop = asyncio.get_running_loop()
    by_url = _clients.setdefault(loop, {})
    client = by_url.get(url)
    if client is None:
        client = by_url[url] = open_client(url)
    return client


def open_client(url: str, **options: Any) -> Redis:
    """A new client for `url` whose commands are tried once more on a broken connection;
    raises ImportError naming the extra when redis is missing."""
    try:
        from redis.asyncio import Redis
    except ImportError:
        raise ImportError(
            "Redis sessions and stores need the redis package: pip install 'plainmcp[redis]'"
        ) from None
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff
    from redis.exceptions import ConnectionError

    # A client made from a URL retries nothing by default, and redis-py does not see that a
    # pooled connection broke (a Redis restart, a proxy's idle timeout) until it is used: once
    # more on a new connection, at once, and only for a broken connection (a timeout is not
    # retried, so an unreachable Redis costs one socket_connect_timeout, not several).
    options.setdefault("retry", Retry(NoBackoff(), 1, supported_errors=(ConnectionError,)))
    options.setdefault("socket_connect_timeout", 5)
    options.setdefault("health_check_interval", 30)
    return Redis.from_url(url, **options)


async def reachable(client: Redis, url: str) -> None:
    """PING once; a clear RedisUnavailable when nobody answers (the start-up check)."""
    try:
        await client.ping()
    except redis_errors() as exc:
        raise RedisUnavailable(f"Redis at {safe_url(url)} is unreachable: {exc}") from exc


def safe_url(url: str) -> str:
    """The URL without its password, for messages and logs."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    credentials, _, host = rest.rpartition("@")
    user = credentials.partition(":")[0]
    return f"{scheme}://{user + ':***@' if user else '***@'}{host}"


async def close_shared() -> None:
    """Close the running loop's clients (an app's shutdown)."""
    loop = asyncio.get_running_loop()
    for client in _clients.pop(loop, {}).values():
        await client.aclose()
