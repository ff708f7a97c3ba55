"""One state secret for every process of an endpoint that keeps its state on Redis.

The continuation's refs and input-required's requestState are signed with the server's secret
(wire/request_state.py). Without one given (`state_secret=`, `PLAINMCP_STATE_SECRET`) each
process would make its own, and a ref one process gave out would be "unknown" to the others.
An app whose sessions (or, failing those, whose blob store) are on Redis is served by several
processes, so they share one instead: the first process to start stores a random secret at
`plainmcp:state-secret` (SET NX, no expiry: a ref must verify on every process for as long as
what it points to is stored), and every process, later ones included, signs with what that key
holds. It is never logged. Rotating it: delete the key and restart every process (refs and
requestStates given out before then stop verifying), or set `PLAINMCP_STATE_SECRET`, which is
then used instead and keeps the secret out of Redis.
"""

from __future__ import annotations

import logging
import secrets
from typing import TYPE_CHECKING

from plainmcp.redis_link import safe_url, shared
from plainmcp.wire.request_state import ENV_SECRET

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from plainmcp.transports.http.endpoint import Endpoint

log = logging.getLogger("plainmcp")

KEY = "state-secret"
"""After the sessions' prefix (`plainmcp:`), or the blob store's Redis at `plainmcp:`."""


def kept_on(app: Endpoint) -> tuple[str, str] | None:
    """The Redis URL and key of the secret the app's processes share, None when the app keeps
    nothing on Redis (its sessions first, else its blob store)."""
    from plainmcp.redis_store import RedisStore
    from plainmcp.transports.http.redis_sessions import RedisSessions

    if isinstance(app.sessions, RedisSessions):
        return app.sessions.url, app.sessions.prefix + KEY
    store = app.server.blob_store
    if isinstance(store, RedisStore):
        return store.url, "plainmcp:" + KEY
    return None


async def share(app: Endpoint) -> None:
    """Adopt the endpoint's shared secret when this process would use a random one and the app
    keeps its state on Redis (called at start-up, before anything is served)."""
    signer = app.server.state_signer
    place = kept_on(app)
    if not signer.ephemeral or place is None:
        return
    url, key = place
    secret, made = await _get_or_make(shared(url), key)
    where = f"Redis key {key} at {safe_url(url)}"
    try:
        signer.adopt(secret, where)
    except ValueError as exc:
        fix = f"delete the key for a new one to be made, or set {ENV_SECRET}"
        raise ValueError(f"{exc}: {fix}") from None
    if made:
        log.warning(
            "%s is not set: made a state secret for read_more refs and requestState and stored"
            " it at %s, which every process of this endpoint signs with (set %s to keep it out"
            " of Redis)",
            ENV_SECRET,
            where,
            ENV_SECRET,
        )
    else:
        log.info("signing read_more refs and requestState with the state secret at %s", where)


async def _get_or_make(client: Redis, key: str) -> tuple[bytes, bool]:
    """What `key` holds, storing a new random secret there first when it holds nothing; and
    whether this process made it. Two processes starting at once agree: one SET NX wins."""
    for _ in range(3):  # the key may be deleted (a rotation) between the SET and the GET
        made = secrets.token_urlsafe(32).encode()
        if await client.set(key, made, nx=True):
            return made, True
        found = await client.get(key)
        if found is not None:
            return found.encode() if isinstance(found, str) else found, False
    raise RuntimeError(f"the state secret at Redis key {key} keeps disappearing")
