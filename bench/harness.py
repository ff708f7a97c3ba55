"""plainmcp's benchmark: every scenario against plainmcp, the official SDK, FastMCP and a
hand-written ceiling, in one run, interleaved. Start it with `bash bench/run` (README.md).

Each repetition runs every scenario for every server back to back, the server order rotating
from one repetition to the next, so a noisy machine's drift hits all servers alike. The table
shows medians over repetitions and, for plainmcp, the median of its per-repetition ratios to each
other server; the issue 6 targets are judged on those ratios.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import datetime
import importlib.metadata
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rpc
from rpc import BenchError

import tasks

sys.path.insert(0, str(Path(__file__).resolve().parent / "servers"))
import fixtures  # what the servers return (the continuation's text)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.append(str(REPO))  # tests.cluster: how the scale-out tests start redis-server and nginx
SERVERS_DIR = HERE / "servers"
PY = sys.executable
# Servers run with bytecode caching on, as an installed package does (this workplace sets
# PYTHONDONTWRITEBYTECODE, which would make every start compile from source), and with the
# caches in the venv rather than beside the sources.
SERVER_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
SERVER_ENV["PYTHONPYCACHEPREFIX"] = str(HERE / ".venv" / "pycache")
IMAGE_BYTES = 4 * 1024 * 1024
ROWS = 10_000
WINDOW = 64


@dataclass
class Server:
    name: str
    label: str
    stdio: list[str]
    http: list[list[str]]
    """Commands that serve Streamable HTTP at 127.0.0.1:{port}/mcp, tried in order."""
    imports: str
    """The import statement whose -X importtime cost is the library's import."""


def fixture(name: str) -> str:
    return str(SERVERS_DIR / f"{name}_server.py")


SERVERS = [
    Server(
        "plainmcp",
        "plainmcp",
        [PY, fixture("plainmcp")],
        [
            [PY, "-m", "plainmcp", "run", fixture("plainmcp"), "--http", "--port", "{port}"],
            [PY, fixture("plainmcp"), "--http", "{port}"],
        ],
        "from plainmcp import Server",
    ),
    Server(
        "sdk",
        "official SDK",
        [PY, fixture("sdk")],
        [[PY, fixture("sdk"), "--http", "{port}"]],
        "from mcp.server import MCPServer",
    ),
    Server(
        "fastmcp",
        "FastMCP",
        [PY, fixture("fastmcp")],
        [[PY, fixture("fastmcp"), "--http", "{port}"]],
        "from fastmcp import FastMCP",
    ),
    Server(
        "ceiling",
        "ceiling",
        [PY, fixture("ceiling")],
        [[PY, fixture("ceiling"), "--http", "{port}"]],
        "import asyncio, base64, orjson",
    ),
]


@dataclass
class Feature:
    """A variant of the plainmcp fixture with one of issue 18's features on."""

    key: str
    label: str
    env: dict[str, str] = field(default_factory=dict)
    client: str | None = None
    """The clientInfo name to send (None: the harness's own, which no host profile knows)."""


FEATURES = [
    Feature("plain", "none of them (unknown client, no middleware, telemetry off)"),
    Feature("noop", "a no-op middleware (both hooks)", {"PLAINMCP_BENCH_MIDDLEWARE": "noop"}),
    Feature("timing", "the built-in Timing middleware", {"PLAINMCP_BENCH_MIDDLEWARE": "timing"}),
    Feature("telemetry", "telemetry on (no SDK set up)", {"PLAINMCP_BENCH_TELEMETRY": "1"}),
    Feature("claude-code", 'host profile: clientInfo "claude-code"', client="claude-code"),
    Feature(
        "mount", "the tools served through app.mount (issue 28)", {"PLAINMCP_BENCH_MOUNT": "1"}
    ),
]
"""The first is the row the others are compared with."""


@dataclass
class Metric:
    key: str
    label: str
    unit: str
    lower_is_better: bool
    digits: int = 0


METRICS = [
    Metric("cold", "cold start: spawn → initialize response", "ms", True),
    Metric("cold_call", "cold start: spawn → first tools/call result", "ms", True),
    Metric("import", "import time (`-X importtime`, the library's import)", "ms", True),
    Metric("rss_idle", "idle RSS (after initialize and 200 calls)", "MiB", True, 1),
    Metric("seq_p50", "sequential `add`: p50 latency", "µs", True),
    Metric("seq_p99", "sequential `add`: p99 latency", "µs", True),
    Metric("tput", "64 in flight: `add` throughput", "calls/s", False),
    Metric("tput_cpu", "64 in flight: server CPU per call", "µs", True),
    Metric("seq_async_p50", "sequential `add_async` (async def): p50 latency", "µs", True),
    Metric("tput_async", "64 in flight: `add_async` (async def) throughput", "calls/s", False),
    Metric(
        "seq_inline_p50",
        "sequential `add_inline` (plainmcp's def with inline=True; the others' cell is their"
        " `add`, measured again in the same turn): p50 latency",
        "µs",
        True,
    ),
    Metric(
        "tput_inline",
        "64 in flight: `add_inline` (plainmcp's def with inline=True; the others' cell is their"
        " `add`, measured again in the same turn) throughput",
        "calls/s",
        False,
    ),
    Metric(
        "pin_p50",
        "sequential `add` p50, the harness and the server on one CPU",
        "µs",
        True,
    ),
    Metric(
        "pin_async_p50",
        "sequential `add_async` (async def) p50, on one CPU",
        "µs",
        True,
    ),
    Metric(
        "pin_inline_p50",
        "sequential `add_inline` p50, on one CPU (the others' cell is their `add`)",
        "µs",
        True,
    ),
    Metric("seq26_p50", "2026-07-28 stateless `add`: sequential p50", "µs", True),
    Metric("tput26", "2026-07-28 stateless `add`: 64 in flight", "calls/s", False),
    Metric(
        "tput26_async",
        "2026-07-28 stateless `add_async` (async def): 64 in flight",
        "calls/s",
        False,
    ),
    Metric("image", "4 MiB image result: sequential", "calls/s", False, 1),
    Metric("image_ms", "4 MiB image result: time per call", "ms", True, 1),
    Metric("image_cpu", "4 MiB image result: server CPU per call", "ms", True, 1),
    Metric("rows", "10,000-row structured result: sequential", "calls/s", False, 2),
    Metric("rss_peak", "peak RSS (after the stdio scenarios)", "MiB", True, 1),
    Metric("http", "HTTP, sessions, {c} clients: `add` throughput", "calls/s", False),
    Metric("http_p50", "HTTP, sessions: p50 latency", "µs", True),
    Metric("http_p99", "HTTP, sessions: p99 latency", "µs", True),
    Metric("http_cpu", "HTTP, sessions: server CPU per call", "µs", True),
    Metric("http26", "HTTP, 2026-07-28 stateless, {c} clients: throughput", "calls/s", False),
    Metric(
        "cluster",
        "HTTP, sessions on Redis, 3 processes behind nginx, {c} clients: `add` throughput",
        "calls/s",
        False,
    ),
    Metric("cluster_p50", "HTTP, sessions on Redis, 3 processes: p50 latency", "µs", True),
    Metric("cluster_p99", "HTTP, sessions on Redis, 3 processes: p99 latency", "µs", True),
    Metric("cluster_redis", "HTTP, sessions on Redis: Redis commands per call", "", True, 2),
]
BY_KEY = {m.key: m for m in METRICS}


@dataclass
class Target:
    text: str
    key: str
    against: str
    at_most: float | None = None
    at_least: float | None = None


TARGETS = [
    Target("cold start to first response ≤ 1/6 of the SDK's", "cold", "sdk", at_most=1 / 6),
    Target("sequential latency p50 ≤ 1/10 of the SDK's", "seq_p50", "sdk", at_most=1 / 10),
    Target("64 in flight (handshake) ≥ 30× the SDK", "tput", "sdk", at_least=30),
    Target("64 in flight (handshake) ≥ 25 % of the ceiling", "tput", "ceiling", at_least=0.25),
    Target(
        "sequential latency p50 ≤ 1/10 of the SDK's, `async def` tool",
        "seq_async_p50",
        "sdk",
        at_most=1 / 10,
    ),
    Target("64 in flight ≥ 30× the SDK, `async def` tool", "tput_async", "sdk", at_least=30),
    Target(
        "64 in flight ≥ 25 % of the ceiling, `async def` tool",
        "tput_async",
        "ceiling",
        at_least=0.25,
    ),
    Target("64 in flight (2026-07-28) ≥ 30× the SDK", "tput26", "sdk", at_least=30),
    Target("64 in flight (2026-07-28) ≥ 25 % of the ceiling", "tput26", "ceiling", at_least=0.25),
    Target(
        "64 in flight (2026-07-28) ≥ 30× the SDK, `async def` tool",
        "tput26_async",
        "sdk",
        at_least=30,
    ),
    Target(
        "64 in flight (2026-07-28) ≥ 25 % of the ceiling, `async def` tool",
        "tput26_async",
        "ceiling",
        at_least=0.25,
    ),
    Target("10,000-row structured result ≥ 8× the SDK", "rows", "sdk", at_least=8),
    Target("4 MB image: ≤ 10 % slower than the ceiling", "image_ms", "ceiling", at_most=1.10),
    Target("HTTP throughput ≥ 3× the SDK", "http", "sdk", at_least=3),
    Target("HTTP throughput ≥ 70 % of the ceiling", "http", "ceiling", at_least=0.70),
    Target("HTTP 2026-07-28 throughput ≥ 3× the SDK", "http26", "sdk", at_least=3),
    Target("HTTP 2026-07-28 throughput ≥ 70 % of the ceiling", "http26", "ceiling", at_least=0.70),
    Target("idle RSS ≤ 1/2 of the SDK's", "rss_idle", "sdk", at_most=1 / 2),
]


TARGETS_18 = [
    Target("`def` tool: sequential p50 ≤ ×0.12 of the SDK's", "seq_p50", "sdk", at_most=0.12),
    Target(
        "`def` tool, 2026-07-28: sequential p50 ≤ ×0.12 of the SDK's",
        "seq26_p50",
        "sdk",
        at_most=0.12,
    ),
    Target("`def` tool: 64 in flight ≥ 20× the SDK", "tput", "sdk", at_least=20),
    Target(
        "`def` tool with inline=True: sequential p50 ≤ ×0.12 of the SDK's `def`",
        "seq_inline_p50",
        "sdk",
        at_most=0.12,
    ),
    Target(
        "`def` tool: sequential p50 ≤ ×0.12 of the SDK's, on one CPU",
        "pin_p50",
        "sdk",
        at_most=0.12,
    ),
    Target(
        "`def` tool with inline=True: sequential p50 ≤ ×0.12 of the SDK's `def`, on one CPU",
        "pin_inline_p50",
        "sdk",
        at_most=0.12,
    ),
    Target("`def` tool, 2026-07-28: 64 in flight ≥ 20× the SDK", "tput26", "sdk", at_least=20),
    Target("spawn → first tools/call ≤ 1/5 of the SDK's", "cold_call", "sdk", at_most=1 / 5),
    Target("spawn → first tools/call ≤ 2× the ceiling's", "cold_call", "ceiling", at_most=2),
    Target("idle RSS ≤ 1/2 of the SDK's", "rss_idle", "sdk", at_most=1 / 2),
]
"""Issue 18's (the second round's) targets, judged on the same ratios."""


@contextlib.contextmanager
def on_one_cpu(pid: int) -> Iterator[None]:
    """The harness and every thread of process `pid` on one CPU (the last one) inside the
    block; each thread's own CPUs again after it (threads started inside it inherit the CPU of
    the thread that starts them, and are freed too)."""
    cpu = {max(os.sched_getaffinity(0))}
    saved: dict[int, set[int]] = {}
    for tid in [0, *_threads(pid)]:
        with contextlib.suppress(OSError):  # a thread that just ended
            saved[tid] = os.sched_getaffinity(tid)
            os.sched_setaffinity(tid, cpu)
    try:
        yield
    finally:
        mine = saved.get(0, cpu)
        for tid in [0, *_threads(pid)]:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(tid, saved.get(tid, mine))


def _threads(pid: int) -> list[int]:
    try:
        return [int(name) for name in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return []


@dataclass
class Plan:
    reps: int
    cold_spawns: int
    warmup: int
    seq: int
    tput: int
    tput26: int
    seq26: int
    image: int
    rows: int
    http: int
    http_clients: int
    cap: float
    wait_quiet: float
    retries: int

    @classmethod
    def full(cls) -> Plan:
        return cls(3, 3, 200, 2000, 30_000, 30_000, 1000, 20, 6, 20_000, 4, 6.0, 120.0, 2)

    @classmethod
    def quick(cls) -> Plan:
        return cls(1, 2, 100, 300, 3000, 3000, 200, 4, 2, 1500, 4, 2.0, 0.0, 0)


@dataclass
class Results:
    servers: list[str]
    values: dict[str, dict[str, list[float | None]]] = field(default_factory=dict)
    notes: dict[str, list[str]] = field(default_factory=dict)
    raw: list[dict[str, Any]] = field(default_factory=list)

    def put(self, key: str, server: str, rep: int, value: float | None) -> None:
        row = self.values.setdefault(key, {}).setdefault(server, [])
        row.extend([None] * (rep + 1 - len(row)))
        row[rep] = value

    def note(self, server: str, text: str) -> None:
        if text not in self.notes.setdefault(server, []):
            self.notes[server].append(text)

    def median(self, key: str, server: str) -> float | None:
        got = [v for v in self.values.get(key, {}).get(server, []) if v is not None]
        return statistics.median(got) if got else None

    def ratio(self, key: str, server: str, other: str) -> float | None:
        """Median over repetitions of server/other, repetitions where both have a value."""
        mine = self.values.get(key, {}).get(server, [])
        theirs = self.values.get(key, {}).get(other, [])
        pairs = [a / b for a, b in zip(mine, theirs, strict=False) if a is not None and b]
        return statistics.median(pairs) if pairs else None


QUIET = 0.10
"""Before a scenario group, the CPUs must be less busy than this (share of all CPUs)."""
DISTURBED = 0.10
"""A group during which other processes took more than this share of the CPUs runs again."""


def cpu_seconds_all() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    total = sum(fields)
    return (total - fields[3] - fields[4]) / rpc.TICKS, total / rpc.TICKS


def own_cpu_seconds() -> float:
    """CPU seconds of the harness and of its children that have ended (all have, between
    scenario groups)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def busy_share(seconds: float) -> float:
    """How busy all CPUs were over the next `seconds` (0 to 1)."""
    busy0, all0 = cpu_seconds_all()
    time.sleep(seconds)
    busy1, all1 = cpu_seconds_all()
    return (busy1 - busy0) / max(1e-9, all1 - all0)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


class Bench:
    def __init__(self, plan: Plan, servers: list[Server], scenarios: set[str], logs: Path) -> None:
        self.plan = plan
        self.servers = servers
        self.scenarios = scenarios
        self.logs = logs
        self.res = Results([s.name for s in servers])
        self.began = time.perf_counter()
        self.http_broken: dict[str, str] = {}

    def say(self, text: str) -> None:
        print(f"[{time.perf_counter() - self.began:6.1f} s] {text}", file=sys.stderr, flush=True)

    def order(self, rep: int) -> list[Server]:
        k = rep % len(self.servers)
        return self.servers[k:] + self.servers[:k]

    def log(self, server: Server, what: str) -> Path:
        return self.logs / f"{server.name}.{what}.log"

    def record(self, server: Server, rep: int, scenario: str, run: dict[str, Any]) -> bool:
        """Keep the raw figures; False (and a note) when the run failed or had errors."""
        self.res.raw.append(
            {"rep": rep, "server": server.name, "scenario": scenario}
            | {k: v for k, v in run.items() if k != "latencies"}
        )
        for why, n in run["failures"].items():
            self.res.note(server.name, f"{scenario}: {n} × {why}")
        return run["done"] > 0 and not run["failures"]

    def at(self, key: str, server: Server, rep: int) -> float | None:
        """The value `key` got for `server` in repetition `rep` (None if it got none)."""
        row = self.res.values.get(key, {}).get(server.name, [])
        return row[rep] if rep < len(row) else None

    def harness_note(self, server: Server, rep: int, scenario: str, run: dict[str, Any]) -> None:
        """How busy the harness itself was while the ceiling ran: near 100 % means the ceiling
        measured the harness."""
        if rep == 0 and server.name == "ceiling":
            busy = 100 * run["harness_cpu"] / run["wall"]
            self.res.note(server.name, f"harness CPU {busy:.0f} % of a core in {scenario}")

    # --- cold start -------------------------------------------------------------------------

    def cold_once(self, server: Server) -> tuple[float, float]:
        peer = rpc.StdioPeer(server.name, server.stdio, self.log(server, "cold"), SERVER_ENV)
        try:
            peer.initialize(timeout=60)
            to_init = (time.perf_counter() - peer.spawned) * 1000
            rid = peer.take_id()
            reply = peer.request(rpc.call_bytes(rid, "add", {"a": rid, "b": 2}), rid)
            to_call = (time.perf_counter() - peer.spawned) * 1000
            why = rpc.check_add(rid, reply)
            if why:
                raise BenchError(f"first call: {why}")
            return to_init, to_call
        finally:
            peer.close()

    def import_ms(self, server: Server) -> tuple[float, list[tuple[float, str]]]:
        """Sum of the top-level cumulative times that `-X importtime` reports for the import."""
        mark = "import sys; sys.stderr.write('@bench-import\\n'); sys.stderr.flush()"
        code = f"{mark}; {server.imports}"
        out = subprocess.run(
            [PY, "-X", "importtime", "-c", code],
            capture_output=True,
            text=True,
            timeout=120,
            env=SERVER_ENV,
        )
        if out.returncode != 0:
            raise BenchError(f"import failed: {out.stderr.strip().splitlines()[-1:]}")
        lines = out.stderr.split("@bench-import\n", 1)[1].splitlines()
        total, tops = 0.0, []
        for line in lines:
            parts = line.split("|")
            if (
                not line.startswith("import time:")
                or len(parts) < 3
                or not parts[1].strip().isdigit()
            ):
                continue
            if parts[2].startswith(" ") and not parts[2].startswith("  "):
                total += int(parts[1]) / 1000
            depth = len(parts[2]) - len(parts[2].lstrip())
            if 3 <= depth <= 5:  # what the imported packages import, two levels down
                tops.append((int(parts[1]) / 1000, parts[2].strip()))
        return total, sorted(tops, reverse=True)[:8]

    def scenario_cold(self, rep: int) -> None:
        to_init: dict[str, list[float]] = {s.name: [] for s in self.servers}
        to_call: dict[str, list[float]] = {s.name: [] for s in self.servers}
        for spawn in range(self.plan.cold_spawns):
            for server in self.order(rep + spawn):
                try:
                    a, b = self.cold_once(server)
                    to_init[server.name].append(a)
                    to_call[server.name].append(b)
                except BenchError as exc:
                    self.res.note(server.name, f"cold start failed: {exc}")
        for server in self.servers:
            for key, got in (("cold", to_init), ("cold_call", to_call)):
                values = got[server.name]
                self.res.put(key, server.name, rep, statistics.median(values) if values else None)
        for server in self.order(rep):
            try:
                ms, tops = self.import_ms(server)
                self.res.put("import", server.name, rep, ms)
                if rep == 0:
                    heavy = ", ".join(f"{name} {t:.0f} ms" for t, name in tops)
                    self.res.note(server.name, f"heaviest nested imports (cumulative): {heavy}")
            except (BenchError, subprocess.TimeoutExpired) as exc:
                self.res.note(server.name, f"import time failed: {exc}")
        self.say(
            "cold   "
            + "  ".join(
                f"{s.name} {statistics.median(to_init[s.name]):.0f} ms"
                for s in self.servers
                if to_init[s.name]
            )
        )

    # --- stdio --------------------------------------------------------------------------------

    def calls(
        self,
        peer: rpc.StdioPeer,
        tool: str,
        args_of: Any,
        check: Any,
        count: int,
        window: int,
        stateless: bool = False,
        cap: float | None = None,
        lazy: bool = False,
    ) -> dict[str, Any]:
        if tool == "add":
            make = rpc.add_maker(stateless)
        else:

            def make(rid: int) -> bytes:
                return rpc.call_bytes(rid, tool, args_of(rid), stateless=stateless)

        return peer.run_calls(make, check, count, window, cap or self.plan.cap, lazy=lazy)

    def scenario_stdio(self, rep: int) -> None:
        plan = self.plan
        peers: dict[str, rpc.StdioPeer] = {}
        add_args = lambda rid: {"a": rid, "b": 2}  # noqa: E731
        try:
            for server in self.order(rep):
                try:
                    peer = rpc.StdioPeer(
                        server.name, server.stdio, self.log(server, "stdio"), SERVER_ENV
                    )
                    peers[server.name] = peer
                    peer.initialize(timeout=60)
                    warm = self.calls(peer, "add", add_args, rpc.check_add, plan.warmup, 1, cap=120)
                    if not self.record(server, rep, "warm-up", warm):
                        raise BenchError("warm-up calls failed")
                    mem = rpc.memory_kib(peer.pid)
                    self.res.put("rss_idle", server.name, rep, mem.get("VmRSS", 0) / 1024 or None)
                except BenchError as exc:
                    self.res.note(server.name, f"stdio session failed: {exc}")
                    peers.pop(server.name, None)

            def each(scenario: str, run_one: Any) -> None:
                for server in self.order(rep):
                    peer = peers.get(server.name)
                    if peer is None:
                        continue
                    try:
                        run_one(server, peer)
                    except BenchError as exc:
                        self.res.note(server.name, f"{scenario} failed: {exc}")
                        peers.pop(server.name).close()

            if "seq" in self.scenarios:

                def seq(server: Server, peer: rpc.StdioPeer) -> None:
                    run = self.calls(peer, "add", add_args, rpc.check_add, plan.seq, 1)
                    if self.record(server, rep, "seq", run):
                        lat = [ns / 1000 for ns in run["latencies"]]
                        self.res.put("seq_p50", server.name, rep, percentile(lat, 50))
                        self.res.put("seq_p99", server.name, rep, percentile(lat, 99))
                    run = self.calls(peer, "add_async", add_args, rpc.check_add, plan.seq, 1)
                    if self.record(server, rep, "seq_async", run):
                        lat = [ns / 1000 for ns in run["latencies"]]
                        self.res.put("seq_async_p50", server.name, rep, percentile(lat, 50))
                    # The others run a def tool on their loop already: their cell is `add`,
                    # measured again here, third, as add_inline is (sequential latency moves
                    # with where the scheduler puts the two processes, and so with the turn).
                    inline = "add_inline" if server.name == "plainmcp" else "add"
                    run = self.calls(peer, inline, add_args, rpc.check_add, plan.seq, 1)
                    if self.record(server, rep, "seq_inline", run):
                        lat = [ns / 1000 for ns in run["latencies"]]
                        self.res.put("seq_inline_p50", server.name, rep, percentile(lat, 50))

                each("seq", seq)
                self.say_metric("seq    ", "seq_p50", rep, "µs")

                def pinned(server: Server, peer: rpc.StdioPeer) -> None:
                    # The same calls with the harness and every thread of the server on one
                    # CPU: one call at a time, the p50 above is as much where the scheduler puts
                    # the two processes (a wake-up across this VM's vCPUs costs about 13 µs each
                    # way) as the servers' own work; here every server gets the same placement.
                    inline = "add_inline" if server.name == "plainmcp" else "add"
                    with on_one_cpu(peer.pid):
                        for tool, key in (
                            ("add", "pin_p50"),
                            ("add_async", "pin_async_p50"),
                            (inline, "pin_inline_p50"),
                        ):
                            run = self.calls(peer, tool, add_args, rpc.check_add, plan.seq, 1)
                            if self.record(server, rep, key, run):
                                lat = [ns / 1000 for ns in run["latencies"]]
                                self.res.put(key, server.name, rep, percentile(lat, 50))

                if hasattr(os, "sched_setaffinity"):
                    each("seq", pinned)
                    self.say_metric("seq 1cpu", "pin_p50", rep, "µs")

            if "tput" in self.scenarios:

                def tput(server: Server, peer: rpc.StdioPeer) -> None:
                    run = self.calls(peer, "add", add_args, rpc.check_add, plan.tput, WINDOW)
                    if self.record(server, rep, "tput", run):
                        self.res.put("tput", server.name, rep, run["done"] / run["wall"])
                        self.harness_note(server, rep, "tput", run)
                        if run["cpu"] is not None:
                            self.res.put(
                                "tput_cpu", server.name, rep, run["cpu"] / run["done"] * 1e6
                            )
                    run = self.calls(peer, "add_async", add_args, rpc.check_add, plan.tput, WINDOW)
                    if self.record(server, rep, "tput_async", run):
                        self.res.put("tput_async", server.name, rep, run["done"] / run["wall"])
                    inline = "add_inline" if server.name == "plainmcp" else "add"
                    run = self.calls(peer, inline, add_args, rpc.check_add, plan.tput, WINDOW)
                    if self.record(server, rep, "tput_inline", run):
                        self.res.put("tput_inline", server.name, rep, run["done"] / run["wall"])

                each("tput", tput)
                self.say_metric("tput   ", "tput", rep, "calls/s")

            if "image" in self.scenarios:

                def image(server: Server, peer: rpc.StdioPeer) -> None:
                    # The first call builds the fixture's PNG; it is not timed.
                    self.calls(
                        peer, "big_image", lambda rid: {}, rpc.check_image(IMAGE_BYTES), 1, 1
                    )
                    run = self.calls(
                        peer,
                        "big_image",
                        lambda rid: {},
                        rpc.check_image(IMAGE_BYTES),
                        plan.image,
                        1,
                        lazy=True,
                    )
                    if self.record(server, rep, "image", run):
                        self.res.put("image", server.name, rep, run["done"] / run["wall"])
                        self.res.put("image_ms", server.name, rep, run["wall"] / run["done"] * 1000)
                        if run["cpu"] is not None:
                            self.res.put(
                                "image_cpu", server.name, rep, run["cpu"] / run["done"] * 1000
                            )

                each("image", image)
                self.say_metric("image  ", "image", rep, "calls/s")

            if "rows" in self.scenarios:

                def rows(server: Server, peer: rpc.StdioPeer) -> None:
                    run = self.calls(
                        peer,
                        "many_rows",
                        lambda rid: {"n": ROWS},
                        rpc.check_rows(ROWS),
                        plan.rows,
                        1,
                    )
                    if self.record(server, rep, "rows", run):
                        self.res.put("rows", server.name, rep, run["done"] / run["wall"])

                each("rows", rows)
                self.say_metric("rows   ", "rows", rep, "calls/s")

            for name, peer in peers.items():
                mem = rpc.memory_kib(peer.pid)
                self.res.put("rss_peak", name, rep, mem.get("VmHWM", 0) / 1024 or None)
                if peer.server_requests:
                    self.res.note(name, f"sent {peer.server_requests} requests to the client")
        finally:
            for peer in peers.values():
                peer.close()

    def scenario_stateless(self, rep: int) -> None:
        """2026-07-28: a fresh process, no initialize; every request carries the _meta envelope."""
        plan = self.plan
        add_args = lambda rid: {"a": rid, "b": 2}  # noqa: E731
        peers: dict[str, rpc.StdioPeer] = {}
        try:
            for server in self.order(rep):
                peer = rpc.StdioPeer(
                    server.name, server.stdio, self.log(server, "stateless"), SERVER_ENV
                )
                peers[server.name] = peer
                try:
                    warm = self.calls(
                        peer, "add", add_args, rpc.check_add, plan.warmup, 1, True, cap=120
                    )
                    if not self.record(server, rep, "2026 warm-up", warm):
                        raise BenchError("stateless warm-up calls failed")
                except BenchError as exc:
                    self.res.note(server.name, f"2026-07-28 session failed: {exc}")
                    peers.pop(server.name).close()
            for server in self.order(rep):
                peer = peers.get(server.name)
                if peer is None:
                    continue
                try:
                    run = self.calls(peer, "add", add_args, rpc.check_add, plan.seq26, 1, True)
                    if self.record(server, rep, "seq26", run):
                        lat = [ns / 1000 for ns in run["latencies"]]
                        self.res.put("seq26_p50", server.name, rep, percentile(lat, 50))
                except BenchError as exc:
                    self.res.note(server.name, f"seq26 failed: {exc}")
            for tool, key, title in (
                ("add", "tput26", "tput26 "),
                ("add_async", "tput26_async", "tput26a"),
            ):
                for server in self.order(rep):
                    peer = peers.get(server.name)
                    if peer is None:
                        continue
                    try:
                        run = self.calls(
                            peer, tool, add_args, rpc.check_add, plan.tput26, WINDOW, True
                        )
                        if self.record(server, rep, key, run):
                            self.res.put(key, server.name, rep, run["done"] / run["wall"])
                    except BenchError as exc:
                        self.res.note(server.name, f"{key} failed: {exc}")
                self.say_metric(title, key, rep, "calls/s")
        finally:
            for peer in peers.values():
                peer.close()

    # --- HTTP ---------------------------------------------------------------------------------

    def start_http(self, server: Server) -> tuple[Any, int, str]:
        """Start the server's first HTTP command that comes up; raise with every reason if none."""
        reasons = []
        env = dict(SERVER_ENV, BENCH_WATCHDOG="1")
        for argv in server.http:
            port = rpc.free_port()
            command = [part.replace("{port}", str(port)) for part in argv]
            log = self.log(server, "http")
            size = log.stat().st_size if log.exists() else 0
            proc = rpc.start(command, log, pipes=False, env=env)
            shown = " ".join(["python", *command[1:]]).replace(str(REPO) + "/", "")
            try:
                rpc.run_async(rpc.http_ready(port, proc, timeout=45))
                return proc, port, shown.replace(str(port), "PORT")
            except BenchError as exc:
                rpc.stop(proc)
                tail = log.read_bytes()[size:].decode(errors="replace").strip().splitlines()[-2:]
                reasons.append(f"`{shown}`: {exc}" + (f" — {' / '.join(tail)}" if tail else ""))
        raise BenchError("; ".join(reasons))

    def scenario_http(self, rep: int) -> None:
        plan = self.plan
        for server in self.order(rep):
            if server.name in self.http_broken:
                continue
            try:
                proc, port, command = self.start_http(server)
                if rep == 0:
                    self.res.note(server.name, f"HTTP served by `{command}`")
            except BenchError as exc:
                self.http_broken[server.name] = str(exc)
                self.res.note(server.name, f"HTTP skipped: {exc}")
                continue
            try:
                for key, stateless in (("http", False), ("http26", True)):
                    try:
                        run = rpc.run_async(
                            rpc.http_load(
                                port,
                                proc.pid,
                                plan.http_clients,
                                plan.http,
                                plan.cap,
                                stateless=stateless,
                            )
                        )
                    except (TimeoutError, BenchError, OSError) as exc:
                        self.res.note(server.name, f"{key} failed: {exc!r}")
                        continue
                    if self.record(server, rep, key, run):
                        self.res.put(key, server.name, rep, run["done"] / run["wall"])
                        self.harness_note(server, rep, key, run)
                        if key == "http":
                            lat = [ns / 1000 for ns in run["latencies"]]
                            self.res.put("http_p50", server.name, rep, percentile(lat, 50))
                            self.res.put("http_p99", server.name, rep, percentile(lat, 99))
                            if run["cpu"] is not None:
                                self.res.put(
                                    "http_cpu", server.name, rep, run["cpu"] / run["done"] * 1e6
                                )
            finally:
                rpc.stop(proc)
        self.say_metric("http   ", "http", rep, "calls/s")

    def scenario_cluster(self, rep: int) -> None:
        """plainmcp only: three `plainmcp run --http --sessions redis://...` processes behind
        nginx (round robin, not sticky), started with tests/cluster.py's redis-server and nginx;
        the same load as the `http` scenario's sessions, then the Redis commands of one session's
        sequential calls (INFO commandstats)."""
        from tests.cluster import find, nginx, redis_server

        missing = [tool for tool in ("redis-server", "nginx") if find(tool) is None]
        if "plainmcp" not in {s.name for s in self.servers} or missing:
            if missing:
                self.res.note("plainmcp", f"cluster skipped: {', '.join(missing)} not installed")
            return
        plan = self.plan
        procs: list[Any] = []
        env = dict(SERVER_ENV, BENCH_WATCHDOG="1")
        log = self.logs / "plainmcp.cluster.log"
        try:
            with redis_server() as redis:
                ports = []
                for _ in range(3):
                    port = rpc.free_port()
                    command = [PY, "-m", "plainmcp", "run", fixture("plainmcp"), "--http"]
                    command += ["--port", str(port), "--sessions", redis.url]
                    procs.append(rpc.start(command, log, pipes=False, env=env))
                    ports.append(port)
                for port, proc in zip(ports, procs, strict=True):
                    rpc.run_async(rpc.http_ready(port, proc, timeout=45))
                with nginx(ports) as lb:
                    run = rpc.run_async(
                        rpc.http_load(
                            lb.port,
                            procs[0].pid,
                            plan.http_clients,
                            plan.http,
                            plan.cap,
                            stateless=False,
                        )
                    )
                    if self.record(self.servers[0], rep, "cluster", run):
                        self.res.put("cluster", "plainmcp", rep, run["done"] / run["wall"])
                        lat = [ns / 1000 for ns in run["latencies"]]
                        self.res.put("cluster_p50", "plainmcp", rep, percentile(lat, 50))
                        self.res.put("cluster_p99", "plainmcp", rep, percentile(lat, 99))
                    calls, counted = rpc.run_async(rpc.redis_commands_per_call(lb.port, redis.port))
                    self.res.put("cluster_redis", "plainmcp", rep, sum(counted.values()) / calls)
                    if rep == 0:
                        each = ", ".join(f"{n} {c / calls:.2f}" for n, c in sorted(counted.items()))
                        self.res.note("plainmcp", f"Redis commands per sequential call: {each}")
        except (TimeoutError, BenchError, OSError, RuntimeError) as exc:
            self.res.note("plainmcp", f"cluster failed: {exc!r}")
        finally:
            for proc in procs:
                rpc.stop(proc)
        self.say_metric("cluster ", "cluster", rep, "calls/s")

    def scenario_tasks(self, rep: int) -> None:
        """plainmcp only: `add` as a plain call beside `add_task` run as a task (created, then
        tasks/get until completed), 2026-07-28 over HTTP, alternating call by call (tasks.py);
        on one process with its tasks in memory, then on one with `--sessions redis://...`
        (the tasks on Redis too), redis-server started as the scale-out tests start it."""
        from tests.cluster import find, redis_server

        if "plainmcp" not in {s.name for s in self.servers}:
            return
        stores: list[tuple[str, list[str]]] = [("memory", [])]
        with contextlib.ExitStack() as stack:
            if find("redis-server") is None:
                self.res.note("plainmcp", "tasks on Redis skipped: redis-server not installed")
            else:
                redis = stack.enter_context(redis_server())
                stores.append(("redis", ["--sessions", redis.url]))
            for store, flags in stores:
                port = rpc.free_port()
                command = [PY, "-m", "plainmcp", "run", fixture("plainmcp"), "--http"]
                command += ["--port", str(port), *flags]
                env = dict(SERVER_ENV, BENCH_WATCHDOG="1")
                proc = rpc.start(
                    command, self.logs / f"plainmcp.tasks-{store}.log", pipes=False, env=env
                )
                try:
                    rpc.run_async(rpc.http_ready(port, proc, timeout=45))
                    run = rpc.run_async(
                        tasks.task_beside_plain(port, self.plan.seq26, self.plan.cap)
                    )
                except (TimeoutError, BenchError, OSError) as exc:
                    self.res.note("plainmcp", f"tasks ({store}) failed: {exc!r}")
                    continue
                finally:
                    rpc.stop(proc)
                for kind in ("plain", "task", "created"):
                    lat = [ns / 1000 for ns in run[kind]]
                    self.res.put(f"tk_{kind}:{store}", "plainmcp", rep, percentile(lat, 50))
                self.res.put(f"tk_gets:{store}", "plainmcp", rep, statistics.mean(run["gets"]))
        self.say_metric("tasks  ", "tk_task:memory", rep, "µs")

    # --- issue 18's features, each beside the same calls without it ---------------------------

    def scenario_features(self, rep: int) -> None:
        """plainmcp only: one stdio process per variant of the fixture (FEATURES), all open
        together; sequential and 64-in-flight `add` on each in turn, the order rotating; then the
        150,000-character text read whole, inline and through read_more."""
        if "plainmcp" not in {s.name for s in self.servers}:
            return
        plan = self.plan
        server = next(s for s in self.servers if s.name == "plainmcp")
        add_args = lambda rid: {"a": rid, "b": 2}  # noqa: E731
        peers: dict[str, rpc.StdioPeer] = {}
        k = rep % len(FEATURES)
        order = FEATURES[k:] + FEATURES[:k]
        try:
            for feature in order:
                env = dict(SERVER_ENV, PLAINMCP_BENCH_LONG_TEXT="1", **feature.env)
                log = self.logs / f"plainmcp.features-{feature.key}.log"
                peer = rpc.StdioPeer(f"plainmcp ({feature.key})", server.stdio, log, env)
                peers[feature.key] = peer
                peer.initialize(timeout=60, client=feature.client)
                warm = self.calls(peer, "add", add_args, rpc.check_add, plan.warmup, 1, cap=120)
                if not self.record(server, rep, f"features {feature.key} warm-up", warm):
                    raise BenchError(f"{feature.key}: warm-up calls failed")
            for feature in order:
                run = self.calls(peers[feature.key], "add", add_args, rpc.check_add, plan.seq, 1)
                if self.record(server, rep, f"features {feature.key} seq", run):
                    lat = [ns / 1000 for ns in run["latencies"]]
                    self.res.put(f"f_seq:{feature.key}", "plainmcp", rep, percentile(lat, 50))
            for feature in order:
                peer = peers[feature.key]
                run = self.calls(peer, "add", add_args, rpc.check_add, plan.tput, WINDOW)
                if self.record(server, rep, f"features {feature.key} tput", run):
                    self.res.put(
                        f"f_tput:{feature.key}", "plainmcp", rep, run["done"] / run["wall"]
                    )
                    if run["cpu"] is not None:
                        cpu = run["cpu"] / run["done"] * 1e6
                        self.res.put(f"f_cpu:{feature.key}", "plainmcp", rep, cpu)
            self.long_text(rep, peers[FEATURES[0].key])
        except BenchError as exc:
            self.res.note("plainmcp", f"features failed: {exc}")
        finally:
            for peer in peers.values():
                peer.close()
        self.say_metric("feat   ", "f_tput:plain", rep, "calls/s")

    def long_text(self, rep: int, peer: rpc.StdioPeer) -> None:
        """The same 150,000 characters inline (one call) and cut to the default limits, read
        back through read_more until whole: ms per whole text, checked against the fixture."""
        want = fixtures.long(fixtures.LONG_TEXT)
        for tool, key in (("long_text", "f_long:inline"), ("long_text_cut", "f_long:read_more")):
            rpc.read_whole(peer, tool)  # untimed: builds the text once
            began = time.perf_counter()
            for _ in range(plan_reads := 20):
                text, calls = rpc.read_whole(peer, tool)
                if text != want:
                    raise BenchError(f"{tool}: the text read back differs from the fixture's")
            ms = (time.perf_counter() - began) / plan_reads * 1000
            self.res.put(key, "plainmcp", rep, ms)
            self.res.put(key.replace("f_long", "f_calls"), "plainmcp", rep, calls)

    def say_metric(self, title: str, key: str, rep: int, unit: str) -> None:
        parts = []
        for server in self.servers:
            got = self.res.values.get(key, {}).get(server.name, [])
            if len(got) > rep and got[rep] is not None:
                parts.append(f"{server.name} {got[rep]:,.0f} {unit}")
        self.say(title + "  ".join(parts))

    def wait_until_quiet(self) -> None:
        """Wait (up to --wait-quiet seconds) while other processes keep the CPUs busy."""
        deadline = time.perf_counter() + self.plan.wait_quiet
        announced = False
        while time.perf_counter() < deadline:
            busy = busy_share(1.0)
            if busy < QUIET:
                return
            if not announced:
                self.say(f"other processes keep the CPUs {100 * busy:.0f} % busy; waiting")
                announced = True
            time.sleep(4.0)

    def guarded(self, rep: int, name: str, scenario: Callable[[int], None]) -> None:
        """Run one scenario group; run it again (up to --retries times) when other processes took
        more than a tenth of the CPUs meanwhile, as the machine's counters minus ours show."""
        kept = copy.deepcopy((self.res.values, self.res.notes, self.res.raw))
        for attempt in range(self.plan.retries + 1):
            if attempt:  # forget what the disturbed attempt recorded
                self.res.values, self.res.notes, self.res.raw = copy.deepcopy(kept)
            self.wait_until_quiet()
            busy0, all0 = cpu_seconds_all()
            own0 = own_cpu_seconds()
            scenario(rep)
            busy1, all1 = cpu_seconds_all()
            foreign = max(0.0, busy1 - busy0 - (own_cpu_seconds() - own0)) / max(1e-9, all1 - all0)
            if foreign <= DISTURBED:
                return
            if attempt < self.plan.retries:
                self.say(f"{name}: other processes took {100 * foreign:.0f} % of the CPUs; again")
        self.res.note(
            "*",
            f"repetition {rep + 1}, {name}: other processes took {100 * foreign:.0f} % of the CPUs"
            f" (kept after {self.plan.retries + 1} tries)",
        )

    def prime(self) -> None:
        """One untimed start of each server, so bytecode caches and the page cache are warm."""
        for server in self.servers:
            try:
                self.cold_once(server)
            except BenchError as exc:
                self.res.note(server.name, f"first start failed: {exc}")

    def run(self) -> Results:
        self.prime()
        for rep in range(self.plan.reps):
            self.say(
                f"repetition {rep + 1} of {self.plan.reps}: "
                + ", ".join(s.name for s in self.order(rep))
            )
            if "cold" in self.scenarios:
                self.guarded(rep, "cold", self.scenario_cold)
            if self.scenarios & {"seq", "tput", "image", "rows"}:
                self.guarded(rep, "stdio", self.scenario_stdio)
            if "stateless" in self.scenarios:
                self.guarded(rep, "stateless", self.scenario_stateless)
            if "http" in self.scenarios:
                self.guarded(rep, "http", self.scenario_http)
            if "cluster" in self.scenarios:
                self.guarded(rep, "cluster", self.scenario_cluster)
            if "tasks" in self.scenarios:
                self.guarded(rep, "tasks", self.scenario_tasks)
            if "features" in self.scenarios:
                self.guarded(rep, "features", self.scenario_features)
        return self.res


# --- the report ---------------------------------------------------------------------------------


def number(value: float | None, digits: int) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}"


def times(value: float | None) -> str:
    if value is None:
        return "—"
    return f"×{value:.3f}" if value < 0.1 else f"×{value:.2f}" if value < 10 else f"×{value:.1f}"


def versions() -> str:
    names = [
        "plainmcp",
        "mcp",
        "mcp-types",
        "fastmcp",
        "pydantic",
        "pydantic-core",
        "anyio",
        "orjson",
        "starlette",
        "uvicorn",
        "h11",
        "httptools",
        "uvloop",
    ]
    found = []
    for name in names:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    return ", ".join(found)


def git_state() -> str:
    """The commit plainmcp's source is at, and whether src/ differs from it."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
        return done.stdout.strip()

    head = git("rev-parse", "--short", "HEAD")
    dirty = git("status", "--porcelain", "--", "src")
    return f"{head}" + (" with uncommitted changes under src/" if dirty else "")


def snapshot_source() -> str:
    """Copy src/plainmcp aside and put the copy first on the servers' path, so one run measures
    one version even while the checkout changes (the venv's editable install would follow it).
    Returns what the copy was taken from."""
    state = git_state()
    target = HERE / ".venv" / "snapshot"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(
        REPO / "src" / "plainmcp", target / "plainmcp", ignore=shutil.ignore_patterns("__pycache__")
    )
    path = [str(target), *filter(None, [SERVER_ENV.get("PYTHONPATH")])]
    SERVER_ENV["PYTHONPATH"] = os.pathsep.join(path)
    return state


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem = Path("/proc/meminfo").read_text().split()[1]
        memory = f"{int(mem) / 1024 / 1024:.0f} GiB"
    except OSError:
        memory = "?"
    return f"{os.cpu_count()} × {model}, {memory} RAM, {platform.system()} {platform.release()}"


def report(
    res: Results, servers: list[Server], plan: Plan, argv: list[str], meta: dict[str, str]
) -> str:
    names = [s.name for s in servers]
    labels = {s.name: s.label for s in servers}
    others = [n for n in names if n != "plainmcp"] if "plainmcp" in names else []
    out = ["# plainmcp benchmark", ""]
    out += [
        f"- started {meta['date']}, wall time {meta['wall']}",
        f"- machine: {machine()}; load average at start {meta['load0']}, at end {meta['load1']}",
        f"- Python {platform.python_version()} ({sys.executable})",
        f"- packages: {versions()}",
        f"- plainmcp source: {meta['source']}, copied aside when the run began",
        f"- command: `bash bench/run {' '.join(argv)}`".replace("run  ", "run "),
        f"- plan: {plan.reps} repetitions, {plan.cold_spawns} cold spawns per server each; "
        f"sequential {plan.seq} calls, 64-in-flight {plan.tput} (2026-07-28: {plan.tput26}), "
        f"image {plan.image}, rows {plan.rows}, HTTP {plan.http} calls over {plan.http_clients} "
        f"clients; a measured run ends at its call count or after {plan.cap:g} s, whichever"
        f" comes first; a scenario group that other processes disturbed (over 10 % of the CPUs)"
        f" ran again, up to {plan.retries} times",
        "",
        "Cells are medians over repetitions. The ratio columns are plainmcp ÷ that server, the "
        "median of the per-repetition ratios: below 1 is better for ms, µs and MiB, above 1 for "
        "calls/s.",
        "",
    ]
    head = ["metric", "unit", *[labels[n] for n in names]]
    head += [f"plainmcp ÷ {labels[o]}" for o in others]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * 2 + "---:|" * (len(head) - 2))
    for metric in METRICS:
        if metric.key not in res.values:
            continue
        label = metric.label.replace("{c}", str(plan.http_clients))
        cells = [label, metric.unit]
        cells += [number(res.median(metric.key, n), metric.digits) for n in names]
        cells += [times(res.ratio(metric.key, "plainmcp", o)) for o in others]
        out.append("| " + " | ".join(cells) + " |")
    for title, targets in (("Issue 6 targets", TARGETS), ("Issue 18 targets", TARGETS_18)):
        if "plainmcp" in names and any(t.against in names for t in targets):
            out += targets_report(res, names, title, targets)
    out += features_report(res)
    out += tasks_report(res)
    if any(res.notes.values()):
        out += ["", "## Notes", ""]
        out += [f"- {text}" for text in res.notes.get("*", [])]
        for name in names:
            for text in res.notes.get(name, []):
                out.append(f"- {labels[name]}: {text}")
    return "\n".join(out) + "\n"


def targets_report(res: Results, names: list[str], title: str, targets: list[Target]) -> list[str]:
    out = ["", f"## {title}", "", "| target | needs | measured | |", "|---|---:|---:|---|"]
    for target in targets:
        if target.against not in names:
            continue
        got = res.ratio(target.key, "plainmcp", target.against)
        if target.at_most is not None:
            needs = f"≤ {times(target.at_most)}"
            ok = got is not None and got <= target.at_most
        else:
            needs = f"≥ {times(target.at_least)}"
            ok = got is not None and got >= (target.at_least or 0)
        verdict = "n/a" if got is None else "pass" if ok else "**miss**"
        out.append(f"| {target.text} | {needs} | {times(got)} | {verdict} |")
    return out


def within(res: Results, key: str, base: str) -> float | None:
    """Median over repetitions of plainmcp's `key` ÷ its `base`, two rows of one server."""
    mine = res.values.get(key, {}).get("plainmcp", [])
    theirs = res.values.get(base, {}).get("plainmcp", [])
    pairs = [a / b for a, b in zip(mine, theirs, strict=False) if a is not None and b]
    return statistics.median(pairs) if pairs else None


def features_report(res: Results) -> list[str]:
    """Issue 18's features beside the same scenario without them (the first FEATURES row)."""
    if not any(key.startswith("f_") for key in res.values):
        return []
    base = FEATURES[0].key
    out = [
        "",
        "## Issue 18 features (plainmcp only, stdio, `add`)",
        "",
        "One process per variant, all open together; the ÷ columns are the variant ÷ the first"
        " row, the median of per-repetition ratios.",
        "",
        "| feature on | sequential p50 µs | ÷ | 64 in flight calls/s | ÷ | server CPU per call µs"
        " | ÷ |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for feature in FEATURES:
        cells = [feature.label]
        for kind, digits in (("f_seq", 0), ("f_tput", 0), ("f_cpu", 0)):
            key = f"{kind}:{feature.key}"
            cells.append(number(res.median(key, "plainmcp"), digits))
            cells.append(times(within(res, key, f"{kind}:{base}")))
        out.append("| " + " | ".join(cells) + " |")
    if "f_long:inline" in res.values:
        inline, cut = (
            res.median("f_long:inline", "plainmcp"),
            res.median("f_long:read_more", "plainmcp"),
        )
        calls = res.median("f_calls:read_more", "plainmcp")
        out += [
            "",
            f"150,000 characters read whole: inline (guards off) {number(inline, 2)} ms in one"
            f" call; cut to the default limits and read back through read_more"
            f" {number(cut, 2)} ms in {number(calls, 0)} calls"
            f" ({times(within(res, 'f_long:read_more', 'f_long:inline'))}).",
        ]
    return out


def tasks_report(res: Results) -> list[str]:
    """A call run as a task beside the same call made plainly, per task store."""
    stores = [s for s in ("memory", "redis") if f"tk_task:{s}" in res.values]
    if not stores:
        return []
    out = [
        "",
        "## Tasks (plainmcp only, HTTP 2026-07-28, one call at a time)",
        "",
        '`add` beside `add_task` (the same tool, `task="required"`), alternating: the task\'s'
        " time runs from its tools/call to the tasks/get that returns it completed; ÷ is the"
        " median of per-repetition ratios.",
        "",
        "| tasks in | plain call p50 µs | task: created p50 µs | task: to its result p50 µs"
        " | ÷ plain | tasks/get per task |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for store in stores:
        cells = [
            {"memory": "memory (one process)", "redis": "Redis (`--sessions redis://...`)"}[store],
            number(res.median(f"tk_plain:{store}", "plainmcp"), 0),
            number(res.median(f"tk_created:{store}", "plainmcp"), 0),
            number(res.median(f"tk_task:{store}", "plainmcp"), 0),
            times(within(res, f"tk_task:{store}", f"tk_plain:{store}")),
            number(res.median(f"tk_gets:{store}", "plainmcp"), 2),
        ]
        out.append("| " + " | ".join(cells) + " |")
    if len(stores) == 2:
        ratio = within(res, "tk_task:redis", "tk_task:memory")
        out += ["", f"A task on Redis ÷ in memory, to its result: {times(ratio)}."]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one short repetition (a smoke test)")
    parser.add_argument("--reps", type=int, help="repetitions (default 3; --quick: 1)")
    parser.add_argument("--cap", type=float, help="seconds any one measured run may take")
    parser.add_argument("--http-clients", type=int, help="concurrent HTTP clients (default 4)")
    parser.add_argument(
        "--wait-quiet",
        type=float,
        help="before each scenario group, wait up to this many seconds for other processes to"
        " leave the CPUs 90 %% idle (default 120; --quick: 0)",
    )
    parser.add_argument(
        "--retries",
        type=int,
        help="run a scenario group again, up to this many times, when other processes took"
        " over 10 %% of the CPUs during it (default 2; --quick: 0)",
    )
    parser.add_argument(
        "--servers", default="plainmcp,sdk,fastmcp,ceiling", help="comma-separated subset"
    )
    parser.add_argument(
        "--scenarios",
        default="cold,seq,tput,image,rows,stateless,http,cluster,features,tasks",
        help=(
            "comma-separated subset of cold,seq,tput,image,rows,stateless,http,cluster,features,"
            "tasks"
        ),
    )
    parser.add_argument("--out", default=str(HERE / "results"), help="where the report goes")
    args = parser.parse_args()

    plan = Plan.quick() if args.quick else Plan.full()
    if args.reps:
        plan.reps = args.reps
    if args.cap:
        plan.cap = args.cap
    if args.http_clients:
        plan.http_clients = args.http_clients
    if args.wait_quiet is not None:
        plan.wait_quiet = args.wait_quiet
    if args.retries is not None:
        plan.retries = args.retries
    wanted = args.servers.split(",")
    servers = [s for s in SERVERS if s.name in wanted]
    scenarios = set(args.scenarios.split(","))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    logs = out / "logs"
    logs.mkdir(exist_ok=True)
    for old in logs.glob("*.log"):
        old.unlink()

    load0 = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    started = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    source = snapshot_source()
    began = time.perf_counter()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers on the way out
    bench = Bench(plan, servers, scenarios, logs)
    try:
        res = bench.run()
    finally:
        rpc.stop_all()
    wall = time.perf_counter() - began
    meta = {
        "date": started,
        "source": source,
        "wall": f"{wall / 60:.1f} min",
        "load0": load0,
        "load1": " ".join(Path("/proc/loadavg").read_text().split()[:3]),
    }
    text = report(res, servers, plan, sys.argv[1:], meta)
    name = "quick" if args.quick else "full"
    (out / f"{name}.md").write_text(text)
    (out / f"{name}.json").write_text(
        json.dumps({"values": res.values, "notes": res.notes, "runs": res.raw, **meta}, indent=1)
    )
    print(text)
    print(f"(written to {out / (name + '.md')}; server logs in {logs})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
