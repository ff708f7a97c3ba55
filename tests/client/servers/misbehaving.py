"""A stdio "server" that answers initialize and then misbehaves on tools/call as argv[1] says:
`garbage` (a line that is not JSON), `wrong-id` (a reply to an id nobody asked), `die` (exit 7
mid-call), `huge` (a 5000-byte line), `endless` (a line that never ends), `discover-silent`
(never answers server/discover, then behaves), `bad-log-level` (a log message at a level no
revision has, then the result). tools/list names one tool, `any`."""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1]


def send(message: object) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    method, ident = message.get("method"), message.get("id")
    if method == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": ident,
                "result": {
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "misbehaving", "version": "0"},
                },
            }
        )
    elif method == "server/discover":
        if MODE != "discover-silent":
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no"}})
    elif method == "tools/list":
        tool = {"name": "any", "inputSchema": {"type": "object"}}
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [tool]}})
    elif method == "tools/call":
        if MODE == "bad-log-level":
            note = {"level": "loud", "logger": "up", "data": "too loud"}
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": note})
        if MODE == "garbage":
            sys.stdout.write("this is not json\n")
        elif MODE == "wrong-id":
            send({"jsonrpc": "2.0", "id": 999, "result": {"content": []}})
        elif MODE == "die":
            sys.exit(7)
        elif MODE == "huge":
            text = "x" * 5000
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "result": {"content": [{"type": "text", "text": text}]},
                }
            )
        elif MODE == "endless":
            sys.stdout.write('{"jsonrpc": "2.0", "id": 2, "result": {"x": "' + "y" * 5000)
        else:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "result": {"content": [{"type": "text", "text": "ok"}]},
                }
            )
        sys.stdout.flush()
