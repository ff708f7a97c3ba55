"""What the commands print: tool results as terminal text (binary content written to files)
and tools with their parameters."""

from __future__ import annotations

import json
import mimetypes
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plainmcp.client import CallToolResult, ToolInfo
    from plainmcp.model.blocks import ContentBlock

_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "image/svg+xml": ".svg",
    "audio/wav": ".wav",
    "audio/mpeg": ".mp3",
    "audio/ogg": ".ogg",
    "audio/flac": ".flac",
    "application/gzip": ".gz",
    "application/pdf": ".pdf",
}


class Files:
    """Where binary content goes: a folder created on first use."""

    def __init__(self, folder: str | None) -> None:
        self._given = folder
        self.folder: Path | None = None

    def write(self, stem: str, mime_type: str | None, data: bytes) -> Path:
        if self.folder is None:
            if self._given is not None:
                self.folder = Path(self._given)
                self.folder.mkdir(parents=True, exist_ok=True)
            else:
                self.folder = Path(tempfile.mkdtemp(prefix="plainmcp-"))
        base = (mime_type or "").split(";")[0].strip().lower()
        ext = _EXTENSIONS.get(base) or mimetypes.guess_extension(base) or ".bin"
        path = self.folder / f"{stem}{ext}"
        path.write_bytes(data)
        return path


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


_NO_MATCH = object()


def _structured_match(text: str, structured: Any) -> Any:
    """The value to show when `text` is the JSON fallback of `structured`, else _NO_MATCH."""
    try:
        value = json.loads(text)
    except ValueError:
        return _NO_MATCH
    if value == structured:
        return structured
    wrapped = isinstance(structured, dict) and structured.keys() == {"result"}
    if wrapped and value == structured["result"]:
        return value
    return _NO_MATCH


def render_result(result: CallToolResult, files: Files, stem: str) -> str:
    """A result as terminal text; binary content is written through `files`."""
    from plainmcp.model.blocks import Text

    lines: list[str] = []
    has_structured = "structuredContent" in result.raw
    shown = False
    rest: list[ContentBlock] = []
    for block in result.content:
        if isinstance(block, Text) and has_structured and not shown:
            if result.structured == {"result": block.text}:  # a wrapped str, sent as itself
                rest.append(block)
                shown = True
                continue
            value = _structured_match(block.text, result.structured)
            if value is not _NO_MATCH:
                rest.append(Text(_pretty(value)))
                shown = True
                continue
        rest.append(block)
    text = render_blocks(rest, files, stem)
    if has_structured and not shown:
        lines.append("structured content:")
        lines.append(_pretty(result.structured))
    return "\n".join([text, *lines] if rest else lines)


def render_blocks(blocks: Sequence[ContentBlock], files: Files, stem: str) -> str:
    """Content blocks as terminal text; binary content is written through `files`."""
    from plainmcp.model.blocks import Audio, EmbeddedResource, Image, ResourceLink, Text

    lines: list[str] = []
    for index, block in enumerate(blocks, 1):
        name = f"{stem}-{index}"
        if isinstance(block, Text):
            lines.append(block.text)
        elif isinstance(block, Image | Audio):
            path = files.write(name, block.mime_type, block.data)
            lines.append(f"[{block.kind}] {path} ({block.mime_type}, {len(block.data)} bytes)")
        elif isinstance(block, EmbeddedResource):
            mime = block.mime_type or "no type"
            if block.blob is not None:
                path = files.write(name, block.mime_type, block.blob)
                lines.append(f"[resource] {block.uri} -> {path} ({mime}, {len(block.blob)} bytes)")
            else:
                lines.append(f"[resource] {block.uri} ({mime})")
                lines.append((block.text or "").rstrip("\n"))
        elif isinstance(block, ResourceLink):
            line = f"[resource link] {block.uri} {block.name}"
            if block.title:
                line += f" ({block.title})"
            details = [block.mime_type] if block.mime_type else []
            if block.size is not None:
                details.append(f"{block.size} bytes")
            if details:
                line += f" [{', '.join(details)}]"
            lines.append(line)
        else:
            lines.append(f"[{getattr(block, 'type', block.kind)}] {block!r}")
    return "\n".join(lines)


def summary_line(description: str | None) -> str:
    if not description:
        return ""
    return " ".join(description.strip().split("\n\n")[0].split())


def _schema_type(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "any"
    if "enum" in schema and isinstance(schema["enum"], list):
        return " | ".join(json.dumps(v) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array" and isinstance(schema.get("items"), dict) and schema["items"]:
        return f"array of {_schema_type(schema['items'])}"
    if isinstance(kind, str):
        return kind
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(_schema_type(s) for s in schema[key])
    return "any"


def describe_tool(tool: ToolInfo) -> str:
    """`plainmcp list` text for one tool: a header line, then one line per parameter."""
    head = tool.name + (f" ({tool.title})" if tool.title else "")
    summary = summary_line(tool.description)
    lines = [f"{head}: {summary}" if summary else head]
    properties = tool.input_schema.get("properties")
    required = tool.input_schema.get("required") or []
    if not isinstance(properties, dict) or not properties:
        lines.append("  (no parameters)")
        return "\n".join(lines)
    for name, schema in properties.items():
        schema = schema if isinstance(schema, dict) else {}
        facts = [_schema_type(schema)]
        if name in required:
            facts.append("required")
        elif "default" in schema:
            facts.append(f"default {json.dumps(schema['default'])}")
        else:
            facts.append("optional")
        line = f"  {name} ({', '.join(facts)})"
        if schema.get("description"):
            line += f": {' '.join(str(schema['description']).split())}"
        lines.append(line)
    return "\n".join(lines)
