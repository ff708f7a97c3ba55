"""The session limits on Redis, kept by Lua scripts so that every process counts the same.

Beside each session's state (`<prefix>session:<id>`, whose TTL is the idle timeout):
- `<prefix>active`: a sorted set of every session id, scored by its last use (wall-clock
  seconds): the least recently used come first.
- `<prefix>owner`: a hash, session id -> the client it counts against (`client_key`).
- `<prefix>client:<client>`: the set of that client's session ids.

A script runs alone in Redis, so two processes admitting sessions of one client at once cannot
both take its last place. `ADMIT` makes room as sessions.py says (the client's own oldest idle
session first, then anyone's) and takes the place; `TOUCH` reads a session's state, renews its
TTL and records its use, in the one round trip a request costs. A session is idle when its last
use is older than `idle_since` (now - session_evict_after): each process records the use of
the sessions it has in use (a running call, an open GET stream) every third of that time, in
the pipeline that renews their TTLs. The entries of sessions that expired are forgotten as
admissions come across them, so they stay within `max_sessions`.
"""

from __future__ import annotations

from plainmcp.transports.http.sessions import Refusal

ADMIT = """
local active, owners, mine = KEYS[1], KEYS[2], KEYS[3]
local prefix, id, owner = ARGV[1], ARGV[2], ARGV[3]
local now, per_client, limit = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local idle_since = tonumber(ARGV[7])
local evicted = {}

local function forget(sid)
  local who = redis.call('HGET', owners, sid)
  if who then redis.call('SREM', prefix .. 'client:' .. who, sid) end
  redis.call('HDEL', owners, sid)
  redis.call('ZREM', active, sid)
end

local function evict(sid)
  if redis.call('DEL', prefix .. 'session:' .. sid) == 1 then
    evicted[#evicted + 1] = sid
    redis.call('PUBLISH', prefix .. 'all', cjson.encode({kind = 'ended', session = sid}))
  end
  forget(sid)
end

-- The oldest entry, when its session has expired: forgotten (two at most each time).
for _ = 1, 2 do
  local oldest = redis.call('ZRANGE', active, 0, 0, 'WITHSCORES')
  if #oldest == 0 or tonumber(oldest[2]) > idle_since
      or redis.call('EXISTS', prefix .. 'session:' .. oldest[1]) == 1 then
    break
  end
  forget(oldest[1])
end

-- The client's sessions: those that expired are forgotten, the oldest idle one is evicted
-- if that leaves no room.
if redis.call('SCARD', mine) >= per_client then
  local victim, at = nil, nil
  for _, sid in ipairs(redis.call('SMEMBERS', mine)) do
    local score = tonumber(redis.call('ZSCORE', active, sid))
    if not score then
      forget(sid)
    elseif score <= idle_since then
      if redis.call('EXISTS', prefix .. 'session:' .. sid) == 0 then
        forget(sid)
      elseif not at or score < at then
        victim, at = sid, score
      end
    end
  end
  if redis.call('SCARD', mine) >= per_client then
    if not victim then return {1} end
    evict(victim)
  end
end

while redis.call('ZCARD', active) >= limit do
  local oldest = redis.call('ZRANGE', active, 0, 0, 'WITHSCORES')
  if tonumber(oldest[2]) > idle_since then return {2, unpack(evicted)} end
  evict(oldest[1])
end

redis.call('ZADD', active, now, id)
redis.call('HSET', owners, id, owner)
redis.call('SADD', mine, id)
return {0, unpack(evicted)}
"""
"""KEYS: active, owner, client:<client>. ARGV: prefix, the new id, its client, now,
per_client, limit, idle_since. Returns [0 admitted / 1 the client is at its limit / 2 the store
is full, the ids of the evicted sessions...]."""

TOUCH = """
local raw = redis.call('GETEX', KEYS[1], 'EX', ARGV[1])
if raw then redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3]) end
return raw
"""
"""KEYS: session:<id>, active. ARGV: ttl, now, id. Returns the state, or nil."""

REFUSALS: dict[int, Refusal] = {1: "client", 2: "full"}
