"""List cursors of tasks: a position (created_at, task_id) in an owner's tasks, opaque to clients.

A position, not an offset, so that a page is stable while tasks expire or are added, and so
that a store shared by processes (a sorted set by creation time) resumes from it.
"""

from __future__ import annotations

import base64
import binascii
import json

from plainmcp.tasks.store import BadCursor

__all__ = ["make_cursor", "read_cursor"]


def make_cursor(created_at: float, task_id: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([created_at, task_id]).encode()).decode()


def read_cursor(cursor: str) -> tuple[float, str]:
    """The position after which the next page starts (BadCursor if `cursor` names none)."""
    try:
        created_at, task_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        if not isinstance(created_at, int | float) or not isinstance(task_id, str):
            raise ValueError
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise BadCursor("unknown cursor") from None
    return float(created_at), task_id
