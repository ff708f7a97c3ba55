"""Tasks on the sessions' Redis: an app whose sessions are on Redis keeps its tasks there too.

`plainmcp run FILE --http --sessions redis://...` (or `http_app(sessions="redis://...")`) is
how a server is scaled out; its tasks must then be readable from every process as its sessions
are, or a task started on one process is unknown to the next. So at the app's start, a server
whose tasks are in this process's memory (the default, MemoryTaskStore) has them put on that
Redis instead (RedisTaskStore, keys under the sessions' prefix + "task:", the tasks' own clock).
A store given explicitly (any other TaskStore) is left as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from plainmcp.tasks.eras import EXTENSION_ID
from plainmcp.tasks.extension import Tasks
from plainmcp.tasks.memory import MemoryTaskStore

if TYPE_CHECKING:
    from plainmcp.served import Served
    from plainmcp.tasks.redis_store import RedisTaskStore
    from plainmcp.transports.http.sessions import Sessions

__all__ = ["tasks_on_redis"]


def tasks_on_redis(server: Served, sessions: Sessions) -> RedisTaskStore | None:
    """Move the server's in-memory tasks to the sessions' Redis; the store made (for the app
    to close at its end), or None when nothing moved."""
    from plainmcp.transports.http.redis_sessions import RedisSessions

    tasks = server.core.extension_ids.get(EXTENSION_ID)
    if not isinstance(sessions, RedisSessions) or not isinstance(tasks, Tasks):
        return None
    if type(tasks.store) is not MemoryTaskStore:
        return None
    from plainmcp.tasks.redis_store import RedisTaskStore

    store = RedisTaskStore(sessions.url, prefix=f"{sessions.prefix}task:", clock=tasks.clock)
    tasks.store = store
    return store
