"""Opaque pagination cursors shared by every paginated list (tools, resources, templates, prompts).

A cursor encodes an offset into the list; it is base64 so that clients treat it as opaque and do
not build their own. A cursor that does not decode, or points past the end, is invalid params.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import TypeVar

from plainmcp.wire.jsonrpc import INVALID_PARAMS, RpcError

T = TypeVar("T")


def make_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode()


def read_cursor(cursor: object, total: int) -> int:
    """The offset a cursor names (0 for no cursor); RpcError(INVALID_PARAMS) if it names none."""
    if cursor is None:
        return 0
    try:
        if not isinstance(cursor, str):
            raise ValueError
        text = base64.urlsafe_b64decode(cursor.encode()).decode()
        if not text.startswith("o:"):
            raise ValueError
        offset = int(text[2:])
        if not 0 <= offset <= total:
            raise ValueError
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise RpcError(INVALID_PARAMS, "Invalid params: unknown cursor") from None
    return offset


def page(items: Sequence[T], cursor: object, size: int) -> tuple[Sequence[T], str | None]:
    """One page of `items` and the cursor of the next page (None on the last one)."""
    start = read_cursor(cursor, len(items))
    end = start + size
    return items[start:end], (make_cursor(end) if end < len(items) else None)
