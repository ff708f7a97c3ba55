"""plainmcp: plain Python functions in, exact MCP out."""

from typing import TYPE_CHECKING, Any

from plainmcp.context import (
    ClientCapabilityError,
    ClientRequestError,
    Context,
    ElicitResult,
    Root,
    SampleResult,
)
from plainmcp.errors import ResourceError
from plainmcp.model.blocks import (
    Annotations,
    Audio,
    ContentBlock,
    ContentError,
    EmbeddedResource,
    File,
    Icon,
    Image,
    ResourceLink,
    Text,
)
from plainmcp.model.options import PayloadLimits, ResultOptions
from plainmcp.model.results import ToolError, ToolResult
from plainmcp.server import Server
from plainmcp.transports.stdout import hold_stdout
from plainmcp.version import __version__ as __version__

hold_stdout()  # until this process serves stdio or shows it does not (transports/stdout.py)


if TYPE_CHECKING:
    from plainmcp.client import CallToolResult, Client, McpError, ToolInfo
    from plainmcp.file_store import FileStore
    from plainmcp.prompts import Message, PromptError, PromptResult
    from plainmcp.resource_contents import Contents, safe_join
    from plainmcp.store import BlobStore, MemoryStore, StoredBlob
    from plainmcp.telemetry import Telemetry
    from plainmcp.transports.http.security import BearerAuth, Principal
    from plainmcp.wire.param_headers import Header

_LAZY = {
    "CallToolResult": "plainmcp.client",
    "Client": "plainmcp.client",
    "McpError": "plainmcp.client",
    "ToolInfo": "plainmcp.client",
    "BearerAuth": "plainmcp.transports.http.security",
    "Principal": "plainmcp.transports.http.security",
    "Header": "plainmcp.wire.param_headers",
    "Message": "plainmcp.prompts",
    "PromptError": "plainmcp.prompts",
    "PromptResult": "plainmcp.prompts",
    "Contents": "plainmcp.resource_contents",
    "safe_join": "plainmcp.resource_contents",
    "BlobStore": "plainmcp.store",
    "FileStore": "plainmcp.file_store",
    "MemoryStore": "plainmcp.store",
    "StoredBlob": "plainmcp.store",
    "Telemetry": "plainmcp.telemetry",
}
"""Imported on first use: a server of tools over stdio needs neither the client, the HTTP
transport, prompts, resources nor telemetry, and every millisecond of import is start-up time
for each session a host spawns."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'plainmcp' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "Annotations",
    "Audio",
    "BearerAuth",
    "BlobStore",
    "CallToolResult",
    "Client",
    "ClientCapabilityError",
    "ClientRequestError",
    "ContentBlock",
    "ContentError",
    "Contents",
    "Context",
    "ElicitResult",
    "EmbeddedResource",
    "File",
    "FileStore",
    "Header",
    "Icon",
    "Image",
    "McpError",
    "MemoryStore",
    "Message",
    "PayloadLimits",
    "Principal",
    "PromptError",
    "PromptResult",
    "ResourceError",
    "ResourceLink",
    "ResultOptions",
    "Root",
    "SampleResult",
    "Server",
    "StoredBlob",
    "Telemetry",
    "Text",
    "ToolError",
    "ToolInfo",
    "ToolResult",
    "safe_join",
]
