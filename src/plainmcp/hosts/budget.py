"""What one host can take of a result, as PayloadLimits and a way of counting.

The payload guards keep a result within the server's PayloadLimits. A host may take less: past
its own limit it cuts the middle out (Codex, Gemini CLI) or saves the result to a file and shows
a preview (Copilot CLI), and either way the marker that says where the rest is can be lost. So
for a host with a known limit, every result and every read_more part is kept within a margin of
that limit too, counted in the host's own unit.
"""

from __future__ import annotations

import dataclasses
import functools

from plainmcp.hosts.profiles import GENERIC, HostProfile, known
from plainmcp.model.options import PayloadLimits
from plainmcp.model.truncate import PLAIN, Counting

MARGIN = 0.9
"""The share of a host's limit a result may use: room for what the host adds around it (a
header line, per-block rounding) and for counting the blocks apart."""


def room(profile: HostProfile) -> int | None:
    """How much of one result the host takes whole (in its unit), with the margin; None: no
    known limit."""
    limit = known(profile, "limit")
    return None if limit is None else int(limit * MARGIN)


@functools.lru_cache(maxsize=256)
def limits_for(limits: PayloadLimits, profile: HostProfile) -> PayloadLimits:
    """`limits` lowered to what `profile`'s host takes (the same object when it takes more);
    a limit the server turned off stays off."""
    host = room(profile)
    if host is None:
        return limits

    def lower(value: int | None) -> int | None:
        # A limit the server turned off (None) stays off: that is the server's choice.
        return host if value is not None and value > host else value

    text_block, text_result = lower(limits.text_block), lower(limits.text_result)
    structured = lower(limits.structured)
    if (text_block, text_result, structured) == (
        limits.text_block,
        limits.text_result,
        limits.structured,
    ):
        return limits
    return dataclasses.replace(
        limits, text_block=text_block, text_result=text_result, structured=structured
    )


@functools.lru_cache(maxsize=64)
def counting(profile: HostProfile) -> Counting:
    """How the guards count a result for `profile`'s host: in its unit, and the structured
    value in the text's budget: plainmcp sends every known host the value as text too
    (hosts/adapt.py). A host with no limit of its own is held to the server's limits only."""
    if profile is GENERIC or room(profile) is None:
        return PLAIN
    return Counting(known(profile, "limit_unit"), shared=True)
