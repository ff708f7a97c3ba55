"""A scripted stand-in for the OpenAI Chat Completions API (`POST .../chat/completions`), the
API most hosts take an OpenAI-compatible base URL for (opencode, Kilo Code's CLI, Qwen Code,
Continue's CLI).

Each agent turn is answered from a `Script`: the results so far are the `role: "tool"` messages
of the request (reduced to `Part`s), each as the model got it in the turn right after its call
(Kilo Code's CLI later replaces old ones by "[Old tool result content cleared]"); the reply is
the next call as one streamed `tool_calls` delta, or a final text. A side request (a title, a
summary: one that offers none of the tools `is_turn` looks for) gets a short text. Every request
body is kept.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.hosts.claude_code import _group
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


def results_with_media(media: str) -> Callable[[Mapping[str, Any]], list[list[Part]]]:
    """A request's results for a host that hands a result's images on in a user message after
    it, starting with the text `media`: each tool message's content as parts, with the parts
    of such a message after it (the text `media` taken off)."""

    def results(body: Mapping[str, Any]) -> list[list[Part]]:
        found: list[list[Part]] = []
        for message in body.get("messages", []):
            content = message.get("content")
            if message.get("role") == "tool":
                found.append(parts_of(content))
            elif (
                message.get("role") == "user"
                and isinstance(content, list)
                and content
                and content[0].get("text") == media
                and found
            ):
                found[-1] += parts_of(content[1:])
        return found

    return results


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
        self.shown: list[list[Part]] = []
        """Each call's result as the model first got it, in order."""

    @property
    def turns(self) -> list[dict[str, Any]]:
        """The bodies of the agent turns, in order."""
        return [r["body"] for r in self.requests if self.is_turn(r["body"])]

    def answer(self, path: str, body: Mapping[str, Any], turn: int) -> tuple[bytes, str]:
        model = str(body.get("model", "stub"))
        call = None
        if self.is_turn(body):
            try:
                with self._lock:
                    self.shown += self.results(body)[len(self.shown) :]
                    shown = list(self.shown)
                call = self.script(shown)
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


@dataclass
class ChatRun:
    """What a host sent its model during one run."""

    turns: list[dict[str, Any]]
    """The agent turns' request bodies, in order (side requests left out)."""
    results: list[list[Part]]
    """What each call gave back to the model, in the turn after it."""
    output: str
    """The host's stdout."""
    saved: dict[str, bytes]
    """Files the host saved for its model under its throwaway HOME, by path."""

    @property
    def tools(self) -> list[str]:
        """The names of the tools offered in the first agent turn."""
        return offered(self.turns[0]) if self.turns else []


def clean_env(home: Path, prefixes: tuple[str, ...]) -> dict[str, str]:
    """This environment without the caller's settings of the host (`prefixes`) or of any model
    API, HOME and the XDG directories in the throwaway `home`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "ANTHROPIC_", "XDG_", *prefixes))
    }
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
    )
    return env


def run_host(
    name: str,
    command: Sequence[str],
    env: dict[str, str],
    cwd: Path,
    home: Path,
    stub: ChatStub,
    *,
    saved: str,
    timeout: float,
) -> ChatRun:
    """Run `command` (the host, pointed at `stub`, already entered) in its own process group
    to its end; `saved` is the glob under `home` of the files the host saves for its model."""
    with _group(list(command), env, cwd) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{name} did not end within {timeout} s") from None
    assert not stub.failures, stub.failures
    assert proc.returncode == 0, f"{name} exited {proc.returncode}:\n{out[-4000:]}\n{err[-4000:]}"
    files = {str(p): p.read_bytes() for p in home.glob(saved) if p.is_file()}
    return ChatRun(stub.turns, list(stub.shown), out, files)
