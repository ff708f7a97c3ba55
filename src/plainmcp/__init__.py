"""plainmcp: plain Python functions in, exact MCP out."""

from plainmcp.client import CallToolResult, Client, McpError, ToolInfo
from plainmcp.content import (
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
from plainmcp.context import (
    ClientCapabilityError,
    ClientRequestError,
    Context,
    ElicitResult,
    Root,
    SampleResult,
)
from plainmcp.headers import Header
from plainmcp.options import PayloadLimits, ResultOptions
from plainmcp.prompts import Message, PromptError, PromptResult
from plainmcp.resources import Contents, ResourceError, safe_join
from plainmcp.results import ToolError, ToolResult
from plainmcp.server import Server
from plainmcp.store import BlobStore, MemoryStore, StoredBlob
from plainmcp.transports.http.security import BearerAuth, Principal

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
    "Text",
    "ToolError",
    "ToolInfo",
    "ToolResult",
    "safe_join",
]
