"""A scripted stand-in for the OpenAI Chat Completions API (`POST .../chat/completions`), the
API most hosts take an OpenAI-compatible base URL for (opencode, Kilo Code's CLI, Qwen Code,
Continue's CLI).

Each agent turn is answered from a `Script`: the results so far are the `role: "tool"` messages
of the request (reduced to `Part`s), the reply is the next call as one streamed `tool_calls`
delta, or a final text. A side request (a title, a summary: one that offers none of the tools
`is_turn` looks for) gets a short text. Every request body is kept, so the tool messages of the
last turn are exactly what the model would have received.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tests.hosts.scripts import Part, Script
from tests.hosts.stub_server import StubServer


def tool_messages(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every `role: "tool"` message of a request, in order."""
    return [m for m in body.get("messages", []) if m.get("role") == "tool"]


def offered(body: Mapping[str, Any]) -> list[str]:
    """The names of the function tools a request offers."""
    return [
        str(t.get("function", {}).get("name", ""))
        for t in body.get("tools", []) or []
        if isinstance(t, dict)
    ]


def _data_url(url: str) -> tuple[str, bytes]:
    head, _, data = url.partition(",")
    return head.removeprefix("data:").partition(";")[0], base64.b64decode(data)


def parts_of(content: Any) -> list[Part]:
    """A message's content as Parts: a string is one text part; of a list, text parts are text,
    image_url and input_audio parts keep their bytes, anything else is its JSON."""
    if isinstance(content, str):
        return [Part("text", text=content)]
    parts = []
    for item in content or []:
        kind = item.get("type")
        if kind == "text":
            parts.append(Part("text", text=item["text"]))
        elif kind == "image_url":
            media, data = _data_url(item["image_url"]["url"])
            parts.append(Part("image", media_type=media, data=data))
        elif kind == "input_audio":
            audio = item["input_audio"]
            data = base64.b64decode(audio["data"])
            parts.append(Part("audio", media_type=f"audio/{audio.get('format')}", data=data))
        else:
            parts.append(Part(str(kind), text=json.dumps(item)))
    return parts


def _sse(chunks: Sequence[dict[str, Any]]) -> bytes:
    lines = [f"data: {json.dumps(c)}\n\n" for c in chunks]
    return "".join([*lines, "data: [DONE]\n\n"]).encode()


def _chunk(turn: int, model: str, delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{turn}",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


class ChatStub(StubServer):
    """Chat Completions on 127.0.0.1, answering each agent turn from `script`; `results` turns a
    request's tool messages into the parts the script reads (default: each message's content)."""

    url_path = "/v1"

    def __init__(
        self,
        script: Script,
        is_turn: Callable[[Mapping[str, Any]], bool],
        results: Callable[[Mapping[str, Any]], list[list[Part]]] | None = None,
    ) -> None:
        super().__init__()
        self.script = script
        self.is_turn = is_turn
        self.results = results or (lambda b: [parts_of(m.get("content")) for m in tool_messages(b)])
        self.failures: list[str] = []

    @property
    def turns(self) -> list[dict[str, Any]]:
        """The bodies of the agent turns, in order."""
        return [r["body"] for r in self.requests if self.is_turn(r["body"])]

    def answer(self, path: str, body: Mapping[str, Any], turn: int) -> tuple[bytes, str]:
        model = str(body.get("model", "stub"))
        call = None
        if self.is_turn(body):
            try:
                call = self.script(self.results(body))
            except Exception as exc:
                # A broken script ends the run; the harness then fails with it.
                self.failures.append(repr(exc))
        if call is None:
            delta: dict[str, Any] = {"role": "assistant", "content": "done"}
            finish = "stop"
        else:
            function = {"name": call.name, "arguments": json.dumps(call.input)}
            tool_call = {"index": 0, "id": f"call_{turn}", "type": "function"}
            delta = {"role": "assistant", "tool_calls": [{**tool_call, "function": function}]}
            finish = "tool_calls"
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        if not body.get("stream"):
            message = {k: v for k, v in delta.items()}
            if "tool_calls" in message:
                message["tool_calls"] = [
                    {k: v for k, v in c.items() if k != "index"} for c in message["tool_calls"]
                ]
                message["content"] = None
            reply = {
                "id": f"chatcmpl-{turn}",
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            }
            return json.dumps(reply).encode(), "application/json"
        last = {**_chunk(turn, model, {}, finish), "usage": usage}
        return _sse([_chunk(turn, model, delta, None), last]), "text/event-stream"
