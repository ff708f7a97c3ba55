"""`plainmcp call --all`: a result whose guards cut or offloaded part of it, made whole.

Each marker names the call that returns the next part ("call the tool read_more with arguments
{...}.", continuation.py); following it until no part names another rebuilds the text, the
omitted blocks or the list exactly. A link to an offloaded payload that no marker covers (an
image too large for any result) is read with resources/read. The rebuilt result is a wire
result again, so `--json` and the terminal view print it as they print any other.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from plainmcp.continuation import SENTENCE
from plainmcp.guards.follow import PARTIAL

if TYPE_CHECKING:
    from plainmcp.client import Client

_SENTENCE = re.compile(SENTENCE)
_BLOB = re.compile(r"plainmcp://blob/[A-Za-z0-9._~-]*[A-Za-z0-9_~-]")
"""A blob link as store.blob_key takes it (RedisStore's keys hold a dot), not ending in a dot:
a marker's sentence may end right after one."""
CUT = "\n…[truncated: "
MARKERS = ("[partial: ", "[structuredContent left out: ", "[omitted: ")
"""How the guards' markers of a cut value, a left-out value and left-out blocks begin."""
MAX_PARTS = 10_000
"""Parts one marker may take before the server is taken to be looping."""


class FollowError(Exception):
    """A part could not be read (the call failed, or named itself again)."""


def next_call(text: str) -> tuple[str, dict[str, Any]] | None:
    found = _SENTENCE.findall(text)
    if not found:
        return None
    name, arguments = found[-1]
    parsed = json.loads(arguments)
    return (name, parsed) if isinstance(parsed, dict) else None


def _texts(raw: dict[str, Any]) -> list[str]:
    return [b["text"] for b in raw.get("content") or [] if b.get("type") == "text"]


async def _call(client: Client, call: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    result = await client.call_tool(*call)
    if result.is_error:
        raise FollowError(f"{call[0]} {json.dumps(call[1])} failed: {result.text}")
    return result.raw


async def _rest_of_text(client: Client, call: tuple[str, dict[str, Any]] | None) -> str:
    """Every part from `call` on: each result's first text block, in order."""
    rest: list[str] = []
    seen: set[str] = set()
    while call is not None:
        key = json.dumps(call, sort_keys=True)
        if key in seen or len(seen) >= MAX_PARTS:
            raise FollowError(f"the server named the part {key} twice")
        seen.add(key)
        texts = _texts(await _call(client, call))
        if not texts:
            raise FollowError(f"{call[0]} returned no text part")
        rest.append(texts[0])
        call = next_call(texts[1]) if len(texts) > 1 else None
    return "".join(rest)


async def _rest_of_items(client: Client, call: tuple[str, dict[str, Any]] | None) -> list[Any]:
    items: list[Any] = []
    seen: set[str] = set()
    while call is not None:
        key = json.dumps(call, sort_keys=True)
        if key in seen or len(seen) >= MAX_PARTS:
            raise FollowError(f"the server named the part {key} twice")
        seen.add(key)
        raw = await _call(client, call)
        part = raw.get("structuredContent")
        if not isinstance(part, dict) or not isinstance(part.get("items"), list):
            raise FollowError(f"{call[0]} returned no items")
        items.extend(part["items"])
        call = next((c for t in _texts(raw) if (c := next_call(t))), None)
    return items


def _list_at(value: Any, path: str) -> list[Any] | None:
    target = value if path == "" else value.get(path) if isinstance(value, dict) else None
    if isinstance(target, dict) and target.keys() == {"result"}:  # a list in an object revision
        target = target["result"]
    return target if isinstance(target, list) else None


async def follow_all(client: Client, raw: dict[str, Any]) -> dict[str, Any]:
    """`raw` (a tools/call result) with every cut part read back in, as one result."""
    whole = dict(raw)
    content: list[dict[str, Any]] = []
    covered: set[str] = set()
    structured = raw.get("structuredContent")
    partial = (raw.get("_meta") or {}).get(PARTIAL)
    items_done = False
    for block in raw.get("content") or []:
        text = block.get("text") if block.get("type") == "text" else None
        call = next_call(text) if isinstance(text, str) else None
        marker = text is not None and (text.startswith(MARKERS) or CUT in text)
        if text is None or call is None or not marker:  # a tool's own text stays as it is
            content.append(block)
            continue
        covered.update(_BLOB.findall(text))
        if text.startswith("[partial: "):
            if not isinstance(partial, dict) or items_done:
                raise FollowError(f'a cut list without its _meta["{PARTIAL}"]')
            path = partial.get("path", "")
            target = _list_at(structured, path if isinstance(path, str) else "")
            if target is None:
                raise FollowError("a partial result without the list it names")
            target.extend(await _rest_of_items(client, call))
            items_done = True
            continue
        if text.startswith("[structuredContent left out: "):
            whole["structuredContent"] = json.loads(await _rest_of_text(client, call))
            continue
        if text.startswith("[omitted: "):
            content.append({"type": "text", "text": await _rest_of_text(client, call)})
            continue
        kept = text[: text.rindex(CUT)]  # the kept text, then its marker
        content.append({"type": "text", "text": kept + await _rest_of_text(client, call)})
    if items_done:
        for index, block in enumerate(content):  # the JSON text of the first part, made whole
            if block.get("type") == "text":
                whole_json = json.dumps(structured, ensure_ascii=False)
                content[index] = {"type": "text", "text": whole_json}
                break
    final: list[dict[str, Any]] = []
    for block in content:
        uri = block.get("uri")
        if block.get("type") == "resource_link" and isinstance(uri, str) and _BLOB.fullmatch(uri):
            if uri in covered:
                continue
            final.extend(await _read(client, uri))
            continue
        final.append(block)
    whole["content"] = final
    meta = {k: v for k, v in (raw.get("_meta") or {}).items() if k != PARTIAL}
    if meta:
        whole["_meta"] = meta
    else:
        whole.pop("_meta", None)
    return whole


async def _read(client: Client, uri: str) -> list[dict[str, Any]]:
    """An offloaded payload as the block it was: text, an image or audio by its MIME type,
    else an embedded resource."""
    result = await client.request("resources/read", {"uri": uri})
    blocks: list[dict[str, Any]] = []
    for item in result.get("contents") or []:
        mime = item.get("mimeType") or ""
        if "text" in item:
            blocks.append({"type": "text", "text": item["text"]})
        elif mime.startswith(("image/", "audio/")) and "blob" in item:
            kind = mime.split("/")[0]
            blocks.append({"type": kind, "data": item["blob"], "mimeType": mime})
        else:
            blocks.append({"type": "resource", "resource": item})
    return blocks
