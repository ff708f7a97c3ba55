"""The client: a session (session.py) on its transport-facing core (core.py; the transports:
stdio.py, memory.py, http.py), the revision it speaks (discover.py),
the callbacks answering the server's questions (callbacks.py), skills and their
verification (skills.py, frontmatter.py), its notifications
(notifications.py, listen.py, stream.py), typed results (results.py; structured values:
structured.py, hydrate.py), errors (errors.py) and tool calls run as tasks (task_calls.py,
tasks.py, task_wire.py)."""

from plainmcp.client.callbacks import (
    CallbackError,
    Elicitation,
    SamplingMessage,
    SamplingRequest,
    SamplingResult,
)
from plainmcp.client.errors import (
    CONNECTION_CLOSED,
    ConnectionClosed,
    McpError,
    ProtocolViolation,
    RequestTimeout,
    SessionExpired,
    TaskCancelled,
    TaskFailed,
    TaskNotFound,
)
from plainmcp.client.hydrate import plain
from plainmcp.client.notifications import LogMessage, Progress
from plainmcp.client.options import ClientOptions
from plainmcp.client.results import (
    CallToolResult,
    Completion,
    Page,
    PromptArgumentInfo,
    PromptInfo,
    ReadResourceResult,
    ResourceInfo,
    ResourceTemplateInfo,
    ServerInfo,
    ToolCallError,
    ToolInfo,
    UnknownContent,
    parse_block,
    parse_call_result,
    parse_tool,
)
from plainmcp.client.session import Client
from plainmcp.client.skills import (
    LoadedSkill,
    SkillFileInfo,
    SkillInfo,
    SkillVerificationError,
)
from plainmcp.client.stream import ToolCall
from plainmcp.client.task_wire import TaskState
from plainmcp.client.tasks import TaskHandle
from plainmcp.context import ElicitResult, Root  # the server side's own: one type each
from plainmcp.wire.extension_ids import SKILLS_EXTENSION, TASKS_EXTENSION

__all__ = [
    "CONNECTION_CLOSED",
    "SKILLS_EXTENSION",
    "TASKS_EXTENSION",
    "CallToolResult",
    "CallbackError",
    "Client",
    "ClientOptions",
    "Completion",
    "ConnectionClosed",
    "ElicitResult",
    "Elicitation",
    "LoadedSkill",
    "LogMessage",
    "McpError",
    "Page",
    "Progress",
    "PromptArgumentInfo",
    "PromptInfo",
    "ProtocolViolation",
    "ReadResourceResult",
    "RequestTimeout",
    "ResourceInfo",
    "ResourceTemplateInfo",
    "Root",
    "SamplingMessage",
    "SamplingRequest",
    "SamplingResult",
    "ServerInfo",
    "SessionExpired",
    "SkillFileInfo",
    "SkillInfo",
    "SkillVerificationError",
    "TaskCancelled",
    "TaskFailed",
    "TaskHandle",
    "TaskNotFound",
    "TaskState",
    "ToolCall",
    "ToolCallError",
    "ToolInfo",
    "UnknownContent",
    "parse_block",
    "parse_call_result",
    "parse_tool",
    "plain",
]
