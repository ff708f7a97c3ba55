"""RedisTaskStore: the TaskStore of many processes sharing one Redis (extra `plainmcp[redis]`).

A task started on one process is polled, answered, cancelled and read on any other: the record
lives in Redis (redis_scripts.py has the layout), a change is a compare-and-swap on its
version, and every change is published so that waiters anywhere read the record again.

Why pub/sub for the wake-ups, not a blocking list: a change must reach every waiter (the
process running the task waiting for a cancel or an answer, and any number of tasks/result
readers on other processes), which a list popped by one consumer does not, and the record is
the message: a waiter subscribes, then reads the record, and reads it again on every wake and
every lease period, so a publication lost while Redis reconnects costs a delay, never a state.

A process killed mid-task: the process that created a task holds its lease (a key expiring
after `lease` seconds) and refreshes it every `lease / 3` while it runs. A reader finding a
task not finished whose lease is gone fails it (the same compare-and-swap), so such a task
answers `failed` with a message saying why instead of `working` forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from plainmcp.redis_link import RedisUnavailable, redis_errors, safe_url, shared
from plainmcp.tasks import redis_scripts
from plainmcp.tasks.cursor import make_cursor, read_cursor
from plainmcp.tasks.record import TaskRecord
from plainmcp.tasks.store import TaskPage
from plainmcp.tasks.transitions import Cancel, Change, Fail, Finish, apply

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["LEASE_LOST", "RedisTaskStore"]

log = logging.getLogger("plainmcp")
T = TypeVar("T")

LEASE_LOST = "The process running this task stopped before the task finished."
"""The status message of a task failed because its runner's lease expired."""

LEASE_ERROR = "Internal error: the process running the task stopped"
"""The JSON-RPC error message of such a task."""

INTERNAL_ERROR = -32603
RECONNECT_DELAY = 1.0
"""Seconds between attempts to subscribe again after Redis was lost."""


class RedisTaskStore:
    """`Server(task_store=RedisTaskStore("redis://host:6379/0"))`, or given by `plainmcp run
    --http --sessions redis://...` (every process on that Redis shares the tasks).

    `lease`: seconds a task outlives the last heartbeat of the process running it (refreshed
    every `lease / 3`); a task whose runner stopped longer ago is failed by the next reader.
    `keep`: seconds a task without a TTL is kept (Redis holds nothing forever). `clock`: wall
    seconds (records' times, TTLs), shared by every process; tests inject it.
    """

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "plainmcp:task:",
        lease: float = 30.0,
        keep: float = 86_400.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if lease <= 0 or keep <= 0:
            raise ValueError("lease and keep must be positive")
        self.url = url
        self.prefix = prefix
        self.lease = lease
        self.keep = keep
        self.clock = clock
        self.name = secrets.token_hex(6)
        """This process's name, the value of the leases it holds."""
        self._running: set[str] = set()
        """Ids of the tasks this process created and has not seen end: it beats for them."""
        self._outcomes: dict[str, tuple[str | None, Change]] = {}
        """Ends of tasks run here that Redis did not take (it was down): retried by `beat`."""
        self._beating: asyncio.Task[None] | None = None
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._listener: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()

    # --- keys ------------------------------------------------------------------------------

    def rec_key(self, task_id: str) -> str:
        return f"{self.prefix}rec:{task_id}"

    def lease_key(self, task_id: str) -> str:
        return f"{self.prefix}lease:{task_id}"

    def owner_key(self, owner: str | None) -> str:
        """The owner's index; keyed by a digest, so an owner's key is never part of a key."""
        named = "-" if owner is None else hashlib.sha256(f"k:{owner}".encode()).hexdigest()[:32]
        return f"{self.prefix}owner:{named}"

    @property
    def channel(self) -> str:
        return f"{self.prefix}changed"

    def _redis(self) -> Redis:
        return shared(self.url)

    async def _call(self, pending: Awaitable[T]) -> T:
        """One Redis command (tried once more on a broken connection by redis_link); a Redis
        still unreachable becomes RedisUnavailable, naming the URL without its password."""
        try:
            return await pending
        except redis_errors() as exc:
            raise RedisUnavailable(f"Redis at {safe_url(self.url)} is unavailable: {exc}") from exc

    # --- the Protocol ----------------------------------------------------------------------

    async def create(self, record: TaskRecord) -> None:
        """Stores the record and takes its lease for this process (the one that runs it)."""
        expires = record.expires_at()
        left = self.keep if expires is None else expires - self.clock()
        keys = [self.rec_key(record.task_id), self.lease_key(record.task_id)]
        keys.append(self.owner_key(record.owner))
        args: list[str | int] = [
            _dumps(record),
            record.status,
            max(1, math.ceil(left * 1000)),
            max(1, math.ceil(self.lease * 1000)),
            self.name,
            record.task_id,
            repr(record.created_at),
        ]
        script = self._redis().register_script(redis_scripts.CREATE)
        if not await self._call(script(keys=keys, args=args)):
            raise ValueError("a task with this id exists")
        if not record.terminal:
            self._running.add(record.task_id)
            self._beat_soon()

    async def get(self, task_id: str, owner: str | None) -> TaskRecord | None:
        found = await self._read(task_id, owner)
        if found is None:
            return None
        record, leased = found
        if record.terminal or leased:
            return record
        return await self.change(task_id, owner, _lease_lost())

    async def change(self, task_id: str, owner: str | None, change: Change) -> TaskRecord | None:
        """A change that would end a task this process runs, made while Redis is unreachable,
        raises as any other but is kept and tried again by every heartbeat until Redis takes
        it: the outcome survives the outage (else the task would stay `working`, its lease
        renewed by a process that has nothing more to say about it)."""
        try:
            return await self._change(task_id, owner, change)
        except RedisUnavailable:
            if task_id in self._running and isinstance(change, Finish | Fail | Cancel):
                self._outcomes[task_id] = (owner, change)
            raise

    async def _change(self, task_id: str, owner: str | None, change: Change) -> TaskRecord | None:
        script = self._redis().register_script(redis_scripts.SWAP)
        while True:
            found = await self._read(task_id, owner)
            if found is None:
                return None
            record, leased = found
            after = record
            if not record.terminal and not leased:
                after = apply(after, _lease_lost(), self.clock())
            after = apply(after, change, self.clock())
            if after is record:
                return record
            keys = [self.rec_key(task_id), self.lease_key(task_id)]
            args: list[str | int] = [
                str(record.version),
                _dumps(after),
                str(after.version),
                after.status,
                "1" if after.terminal else "0",
                self.channel,
                f"{task_id} {after.version}",
            ]
            written = await self._call(script(keys=keys, args=args))
            if written == 1:
                if after.terminal:
                    self._running.discard(task_id)
                    self._outcomes.pop(task_id, None)
                return after
            if written == 0:
                return None
            # -1: another process changed it between our read and our write: read again.

    async def wait(
        self, task_id: str, owner: str | None, seen: int, timeout: float
    ) -> TaskRecord | None:
        """Wakes on a publication for this task, and at least every lease period (a runner
        that stopped publishes nothing: the read then finds its lease gone)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        event = asyncio.Event()
        self._waiters.setdefault(task_id, set()).add(event)
        try:
            await self._listening()
            while True:
                event.clear()  # before the read: a change published during it still wakes us
                record = await self.get(task_id, owner)
                left = deadline - loop.time()
                if record is None or record.version > seen or left <= 0:
                    return record
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), min(left, self.lease))
        finally:
            waiting = self._waiters.get(task_id)
            if waiting is not None:
                waiting.discard(event)
                if not waiting:
                    del self._waiters[task_id]
            if not self._waiters and self._listener is not None:
                self._listener.cancel()
                self._listener = None

    async def page(self, owner: str | None, cursor: str | None, limit: int) -> TaskPage:
        after = read_cursor(cursor) if cursor is not None else None
        limit = max(limit, 1)
        index = self.owner_key(owner)
        redis = self._redis()
        low = "-inf" if after is None else repr(after[0])
        taken: list[TaskRecord] = []
        offset = 0
        batch = limit + 1
        while len(taken) <= limit:
            rows: list[Any] = await self._call(
                redis.zrangebyscore(index, low, "+inf", start=offset, num=batch, withscores=True)
            )
            if not rows:
                break
            offset += len(rows)
            ids = [_text(member) for member, score in rows if _beyond(member, score, after)]
            found = await self._read_many(ids, owner)
            gone = [task_id for task_id, seen in zip(ids, found, strict=True) if seen is None]
            if gone:
                await self._call(redis.zrem(index, *gone))  # expired: forget their entries
            for seen in found:
                if seen is None:
                    continue
                record, leased = seen
                if not record.terminal and not leased:
                    record = await self.change(record.task_id, owner, _lease_lost()) or record
                taken.append(record)
                if len(taken) > limit:
                    break
        more = len(taken) > limit
        page = tuple(taken[:limit])
        last = page[-1] if more else None
        return TaskPage(page, make_cursor(last.created_at, last.task_id) if last else None)

    # --- reading ---------------------------------------------------------------------------

    async def _read(self, task_id: str, owner: str | None) -> tuple[TaskRecord, bool] | None:
        """The record (if it is the owner's and alive) and whether its lease is held, in one
        round trip."""
        return (await self._read_many([task_id], owner))[0]

    async def _read_many(
        self, ids: list[str], owner: str | None
    ) -> list[tuple[TaskRecord, bool] | None]:
        """`_read` of each id, all in one round trip."""
        if not ids:
            return []
        pipe = self._redis().pipeline(transaction=False)
        for task_id in ids:
            pipe.hget(self.rec_key(task_id), "r")
            pipe.exists(self.lease_key(task_id))
        replies = await self._call(pipe.execute())
        return [
            self._parse(task_id, raw, leased, owner)
            for task_id, raw, leased in zip(ids, replies[::2], replies[1::2], strict=True)
        ]

    def _parse(
        self, task_id: str, raw: Any, leased: Any, owner: str | None
    ) -> tuple[TaskRecord, bool] | None:
        if raw is None:
            return None
        try:
            record = TaskRecord.from_dict(orjson.loads(raw))
        except (ValueError, TypeError) as exc:
            log.warning("task %s: unreadable record in Redis (%s)", task_id, exc)
            return None
        if record.owner != owner or record.expired(self.clock()):
            return None
        return record, bool(leased)

    # --- the lease of the tasks this process runs ------------------------------------------

    def _beat_soon(self) -> None:
        if self._beating is None or self._beating.done():
            self._beating = asyncio.get_running_loop().create_task(self._beat())

    async def _beat(self) -> None:
        """Refreshes the leases of this process's running tasks every `lease / 3` seconds;
        ends when none is left (the next create starts it again)."""
        while self._running:
            await asyncio.sleep(self.lease / 3)
            try:
                await self.beat()
            except RedisUnavailable as exc:
                log.error("%s: the leases of %d tasks not renewed", exc, len(self._running))

    async def beat(self) -> None:
        """One heartbeat (tests call it instead of waiting for the period): the outcomes kept
        through an outage first, then the leases."""
        for task_id, (owner, change) in list(self._outcomes.items()):
            await self._change(task_id, owner, change)
            self._outcomes.pop(task_id, None)
            self._running.discard(task_id)
        ids = sorted(self._running)
        if not ids:
            return
        keys = [key for task_id in ids for key in (self.rec_key(task_id), self.lease_key(task_id))]
        script = self._redis().register_script(redis_scripts.BEAT)
        gone = await self._call(script(keys=keys, args=[max(1, math.ceil(self.lease * 1000))]))
        for position in gone:
            self._running.discard(ids[int(position) - 1])

    # --- wake-ups --------------------------------------------------------------------------

    async def _listening(self) -> None:
        if self._listener is None or self._listener.done():
            self._subscribed = asyncio.Event()
            self._listener = asyncio.get_running_loop().create_task(self._listen())
        await asyncio.wait_for(self._subscribed.wait(), 10)

    async def _listen(self) -> None:
        """Subscribed to the channel while anyone waits here; after a lost connection,
        subscribes again and wakes every waiter (a publication may have been missed)."""
        while True:
            pubsub = self._redis().pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
                self._wake_all()
                self._subscribed.set()
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        task_id = _text(message["data"]).partition(" ")[0]
                        for event in self._waiters.get(task_id, ()):
                            event.set()
            except redis_errors() as exc:
                log.error("lost the task channel of Redis at %s (%s)", safe_url(self.url), exc)
            finally:
                with contextlib.suppress(*redis_errors()):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
            self._subscribed.set()  # waiters poll every lease period until it is back
            await asyncio.sleep(RECONNECT_DELAY)

    def _wake_all(self) -> None:
        for events in self._waiters.values():
            for event in events:
                event.set()

    async def aclose(self) -> None:
        """Stop beating and listening (an app's shutdown); the leases then run out."""
        for task in (self._beating, self._listener):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._beating = self._listener = None


def _lease_lost() -> Fail:
    return Fail({"code": INTERNAL_ERROR, "message": LEASE_ERROR}, LEASE_LOST)


def _dumps(record: TaskRecord) -> str:
    return orjson.dumps(record.to_dict()).decode()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _beyond(member: Any, score: float, after: tuple[float, str] | None) -> bool:
    """After the cursor's position (created_at, then id), as the index orders them."""
    return after is None or (float(score), _text(member)) > after
