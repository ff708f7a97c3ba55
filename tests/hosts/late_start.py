"""Start a command only when told: `python late_start.py PORT COMMAND...` connects to PORT on
127.0.0.1, waits for one byte, then becomes COMMAND. A test gates a stdio server on an event of
its own (tests/hosts/test_codex_cli.py: a server that is not up before the host's first turn,
however fast or slow the machine)."""

from __future__ import annotations

import os
import socket
import sys

port, *command = sys.argv[1:]
with socket.create_connection(("127.0.0.1", int(port))) as gate:
    gate.recv(1)
os.execv(command[0], command)
