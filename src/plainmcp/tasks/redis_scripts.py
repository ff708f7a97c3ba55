"""The Lua scripts of RedisTaskStore (redis_store.py): each one round trip, atomic in Redis.

The status rules stay in Python (transitions.py); Redis only compares and swaps: a change is
written when the record's version is still the one it was computed from (`SWAP`), so of two
processes changing one task (a cancel racing a completion) the second recomputes from what
the first wrote, and a terminal state, once written, is final.

The data layout (`<p>` is the store's prefix, "plainmcp:task:" by default):
- `<p>rec:<id>`: a hash, `r` the record as JSON, `v` its version, `s` its status; the key
  expires with the task's TTL (Redis expiry, relative to the store's clock at creation).
- `<p>lease:<id>`: the running process's name, expiring after the lease; refreshed by that
  process while the task runs (`BEAT`), deleted when the task ends. A non-terminal task
  without it was left by a process that stopped: the next reader fails it.
- `<p>owner:<hash of the owner>`: a sorted set of the owner's task ids by creation time (ties
  by id, as Redis orders equal scores), for tasks/list; its TTL is the latest of its tasks'.
- channel `<p>changed`: `<id> <version>` after every change, waking every waiter anywhere.
"""

from __future__ import annotations

CREATE = """
-- KEYS: rec, lease, owner index; ARGV: json, status, ttl ms, lease ms, runner, id, created_at
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'r', ARGV[1], 'v', '0', 's', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[7], ARGV[6])
local left = redis.call('PTTL', KEYS[3])
if left < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[3], ARGV[3]) end
return 1
"""
"""1: created; 0: a task with this id exists."""

SWAP = """
-- KEYS: rec, lease; ARGV: expected version, json, version, status, terminal, channel, message
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return 0 end
if v ~= ARGV[1] then return -1 end
redis.call('HSET', KEYS[1], 'r', ARGV[2], 'v', ARGV[3], 's', ARGV[4])
if ARGV[5] == '1' then redis.call('DEL', KEYS[2]) end
redis.call('PUBLISH', ARGV[6], ARGV[7])
return 1
"""
"""1: written; 0: the task is gone; -1: another process changed it first (read again)."""

BEAT = """
-- KEYS: pairs of rec, lease; ARGV: lease ms. Returns the ids' positions no longer running.
local gone = {}
for i = 1, #KEYS, 2 do
  local s = redis.call('HGET', KEYS[i], 's')
  local running = s == 'working' or s == 'input_required'
  if running and redis.call('PEXPIRE', KEYS[i + 1], ARGV[1]) == 1 then
  else
    gone[#gone + 1] = (i + 1) / 2
  end
end
return gone
"""
"""Refreshes the leases of the tasks this process runs; those ended, gone, or whose lease
already expired (PEXPIRE of a missing key does nothing: an expired lease stays expired) are
returned by position (1-based) for the process to stop beating."""
