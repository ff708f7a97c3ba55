"""What prompts/get, completion/complete and resources/read answer, as data: `wire.render`
writes each for one revision; prompts.py, completion.py and resource_contents.py make them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from plainmcp.model.blocks import ContentBlock, Role, Text

__all__ = ["CompletionResult", "Contents", "Message", "PromptResult", "messages_of"]


# --- prompts/get -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, init=False)
class Message:
    """One prompt message: who says it, and one content block (a str becomes a Text block)."""

    role: Role
    content: ContentBlock

    def __init__(self, role: Role, content: str | ContentBlock) -> None:
        if role not in ("user", "assistant"):
            raise ValueError(f"a message role is 'user' or 'assistant', not {role!r}")
        if isinstance(content, str):
            content = Text(content)
        elif not isinstance(content, ContentBlock):
            raise TypeError(
                f"message content is a str or one content block, not {type(content).__name__}"
            )
        object.__setattr__(self, "role", role)
        object.__setattr__(self, "content", content)


@dataclass(frozen=True, slots=True)
class PromptResult:
    """What prompts/get answers; a prompt function may also return one to set `meta`."""

    messages: tuple[Message, ...]
    description: str | None = None
    meta: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "messages", messages_of(self.messages))


def _message(item: Any) -> Message:
    if isinstance(item, Message):
        return item
    if isinstance(item, str | ContentBlock):
        return Message("user", item)
    if isinstance(item, Mapping) and set(item) == {"role", "content"}:
        content = item["content"]
        if (
            isinstance(content, Mapping)
            and content.get("type") == "text"
            and isinstance(content.get("text"), str)
        ):
            content = content["text"]
        return Message(item["role"], content)
    raise TypeError(
        "a prompt returns a str, a Message, a content block, a {'role', 'content'} dict, a list"
        f" of these, or a PromptResult; got {type(item).__name__}"
    )


def messages_of(value: Any) -> tuple[Message, ...]:
    if isinstance(value, list | tuple):
        return tuple(_message(item) for item in value)
    return (_message(value),)


# --- completion/complete ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompletionResult:
    """At most 100 values; `total` counts every match, `has_more` says some were cut."""

    values: list[str]
    total: int
    has_more: bool


# --- resources/read -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Contents:
    """One item of a read result: the text or bytes of `uri`, with its MIME type."""

    uri: str
    text: str | None = None
    blob: bytes | None = None
    mime_type: str | None = None
    meta: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not self.uri or not isinstance(self.uri, str):
            raise ValueError("Contents needs a uri")
        if (self.text is None) == (self.blob is None):
            raise ValueError("Contents needs exactly one of text= or blob=")
        if self.text is not None and not isinstance(self.text, str):
            raise TypeError(f"text must be str, not {type(self.text).__name__}")
        if self.blob is not None and not isinstance(self.blob, bytes):
            raise TypeError(f"blob must be bytes, not {type(self.blob).__name__}")

    def __repr__(self) -> str:
        body = f"<{len(self.blob)} bytes>" if self.blob is not None else repr(self.text)[:60]
        return f"Contents(uri={self.uri!r}, {body}, mime_type={self.mime_type!r})"
