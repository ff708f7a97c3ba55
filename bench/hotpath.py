"""Where plainmcp's time goes on the hot path: `bash bench/run profile`.

Scenarios of the benchmark against a fresh plainmcp fixture after a warm-up. Over stdio
(sequential `add`, `add` with 64 in flight, the same with the 2026-07-28 envelope, the 10,000-row
result) each runs twice: with py-spy attached (sampling whichever thread holds the GIL, without
pausing the server: shares of the samples by kind of work and by function), and under cProfile
switched on in the event-loop thread for the measured calls only (calls and microseconds per
request). Over HTTP (`plainmcp run --http`, 4 clients calling `add`, with sessions and
2026-07-28 stateless) it runs with py-spy. The report goes to bench/results/profile/profile.md.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import os
import pstats
import runpy
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rpc
from harness import SERVER_ENV, snapshot_source

HERE = Path(__file__).resolve().parent
PY = sys.executable
FIXTURE = str(HERE / "servers" / "plainmcp_server.py")
PYSPY = str(Path(PY).parent / "py-spy")


@dataclass
class Scenario:
    label: str
    make: Callable[[int], bytes]
    check: Callable[[int, Any], str | None]
    window: int
    stateless: bool = False


SCENARIOS = {
    "seq": Scenario("sequential add", rpc.add_maker(False), rpc.check_add, 1),
    "tput": Scenario("add, 64 in flight", rpc.add_maker(False), rpc.check_add, 64),
    "tput26": Scenario(
        "2026-07-28 add, 64 in flight", rpc.add_maker(True), rpc.check_add, 64, stateless=True
    ),
    "rows": Scenario(
        "many_rows(10000), sequential",
        lambda rid: rpc.call_bytes(rid, "many_rows", {"n": 10_000}),
        rpc.check_rows(10_000),
        1,
    ),
}


def drive(
    peer: rpc.StdioPeer, scenario: Scenario, seconds: float, start: Callable[[], Any]
) -> dict[str, float]:
    """Warm up, call `start` (which starts the profiler), then run the scenario for `seconds`."""
    if not scenario.stateless:
        peer.initialize()
    peer.run_calls(scenario.make, scenario.check, 20 if scenario.window == 1 else 300, 1, 60)
    stop = start()
    run = peer.run_calls(scenario.make, scenario.check, 10**9, scenario.window, seconds)
    stop()
    if run["failures"]:
        raise rpc.BenchError(f"calls failed: {run['failures']}")
    return {"calls": run["done"], "per_s": run["done"] / run["wall"]}


def with_pyspy(pid: int, raw: Path) -> Callable[[], Callable[[], None]]:
    """Attach py-spy to the fixture: samples of whichever thread holds the GIL, not pausing it."""

    def start() -> Callable[[], None]:
        argv = [PYSPY, "record", "--pid", str(pid), "--format", "raw", "--rate", "499"]
        argv += ["--gil", "--nonblocking", "-o", str(raw)]
        sampler = rpc.start(argv, raw.with_suffix(".log"), pipes=False)
        time.sleep(1.0)  # let it attach

        def stop() -> None:
            sampler.send_signal(signal.SIGINT)  # py-spy writes its file on Ctrl-C
            sampler.wait(timeout=60)
            rpc.stop(sampler)

        return stop

    return start


def with_cprofile(peer: rpc.StdioPeer, stats: Path) -> Callable[[], Callable[[], None]]:
    """SIGUSR1 turns cProfile on in the fixture's event-loop thread, SIGUSR2 off (and writes)."""

    def start() -> Callable[[], None]:
        os.kill(peer.pid, signal.SIGUSR1)
        time.sleep(0.2)

        def stop() -> None:
            os.kill(peer.pid, signal.SIGUSR2)
            for _ in range(100):
                if stats.exists():
                    return
                time.sleep(0.1)

        return stop

    return start


# Run as `python hotpath.py --serve STATS FIXTURE`: the fixture under a cProfile that the
# signals above switch.
def serve_profiled(stats: str, fixture: str) -> None:
    profiler = cProfile.Profile()

    def on(*_: Any) -> None:
        profiler.enable()

    def off(*_: Any) -> None:
        profiler.disable()
        profiler.dump_stats(stats)

    signal.signal(signal.SIGUSR1, on)
    signal.signal(signal.SIGUSR2, off)
    sys.argv = [fixture]
    runpy.run_path(fixture, run_name="__main__")


def short(frame: str) -> str:
    """`func (path/to/module.py:12)` → `func (module.py)`; lines dropped, so a function is one
    entry however many lines of it were sampled."""
    name, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    parts = Path(path).parts
    if "plainmcp" in parts:
        path = "/".join(parts[parts.index("plainmcp") :])
    elif "site-packages" in parts:
        path = "/".join(parts[parts.index("site-packages") + 1 :])
    elif "lib" in parts:
        path = "/".join(parts[parts.index("lib") + 2 :])
    return f"{name} ({path})"


def finish(peer: rpc.StdioPeer) -> None:
    """End the fixture through EOF, as a host would, so the profiler writes its file."""
    assert peer.proc.stdin is not None
    peer.proc.stdin.close()
    try:
        peer.proc.wait(timeout=60)
    finally:
        peer.close()


# Where a sample's innermost frame lies, by (substring of the location, substring of the name).
# The first matching rule wins; orjson and other C code count towards the Python frame calling it.
BUCKETS = [
    (
        "thread hand-offs (sync tools run in anyio worker threads)",
        [
            ("threading.py", ""),
            ("queue.py", ""),
            ("concurrent/futures", ""),
            ("anyio/from_thread.py", ""),
            ("anyio/to_thread.py", ""),
            ("anyio/_backends", "WorkerThread"),
            ("anyio/_backends", "worker_thread"),
            ("anyio/_backends", "from_thread"),
            ("asyncio/futures.py", "_chain_future"),
            ("asyncio/futures.py", "_set_concurrent_future_state"),
            ("asyncio/tasks.py", "run_coroutine_threadsafe"),
            ("asyncio/selector_events.py", "_self"),
        ],
    ),
    (
        "uvicorn, h11 and httptools (HTTP/1.1)",
        [("uvicorn/", ""), ("h11/", ""), ("httptools/", "")],
    ),
    ("asyncio event loop (select, callbacks, tasks)", [("asyncio/", ""), ("selectors.py", "")]),
    ("anyio tasks, cancel scopes, memory streams", [("anyio/", "")]),
    ("plainmcp transport and connection", [("plainmcp/transports", ""), ("connection.py", "")]),
    ("plainmcp JSON-RPC parsing", [("plainmcp/wire/jsonrpc", ""), ("plainmcp/wire/envelope", "")]),
    ("pydantic (argument and output validation)", [("pydantic", "")]),
    ("the tool itself (the fixture's code)", [("fixtures.py", ""), ("_server.py", "")]),
    ("plainmcp dispatch, tools, results, rendering", [("plainmcp/", "")]),
    ("dataclass __init__ (generated code)", [("<string>", "")]),
]


def bucket(frame: str) -> str:
    name, _, where = frame.partition(" (")
    for label, rules in BUCKETS:
        if any(place in where and part in name for place, part in rules):
            return label
    return "other"


SCAFFOLDING = (
    "<module>",
    "Runner.run",
    "run_forever",
    "run_until_complete",
    "Server.run",
    "run (plainmcp/transports/stdio.py)",
    "run (anyio/_core/_eventloop.py)",
    "AsyncIOBackend.run (",
    "Thread._bootstrap",
)


def summarize_pyspy(raw: Path, top: int) -> str:
    """Self and inclusive shares of each function in py-spy's collapsed stacks."""
    own: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    buckets: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n = int(count)
        frames = [short(f) for f in stack.split(";")]
        if frames and frames[0].startswith("process "):
            frames = frames[1:]
        if frames and frames[0].startswith("thread "):
            frames = frames[1:]
        if not frames:
            continue
        total += n
        own[frames[-1]] += n
        buckets[bucket(frames[-1])] += n
        for frame in set(frames):
            inclusive[frame] += n
    if not total:
        return "no samples\n"
    out = [f"{total} samples of the thread holding the GIL", "", "by kind of work:", ""]
    out += [f"  {100 * n / total:5.1f} %  {label}" for label, n in buckets.most_common()]
    out += ["", "own time by function:", ""]
    out += [f"  {100 * n / total:5.1f} %  {f}" for f, n in own.most_common(top)]
    out += ["", "inclusive (the function and what it calls):", ""]
    shown = [(f, n) for f, n in inclusive.most_common() if not f.startswith(SCAFFOLDING)]
    out += [f"  {100 * n / total:5.1f} %  {f}" for f, n in shown[: top * 2]]
    return "\n".join(out) + "\n"


def summarize_cprofile(stats_file: Path, calls: int, top: int) -> str:
    """Own and cumulative time per request by function; waiting in epoll is left out of the
    shares (it is idle time, which cProfile counts like any C call)."""
    stats = pstats.Stats(str(stats_file))
    rows = []
    waiting = 0.0
    entries = stats.stats  # type: ignore[attr-defined]
    for (path, line, name), (_, ncalls, tottime, cumtime, _) in entries.items():
        if name == "<method 'poll' of 'select.epoll' objects>":
            waiting += tottime
            continue
        rows.append((tottime, ncalls, cumtime, short(f"{name} ({path}:{line})")))
    total = sum(r[0] for r in rows)
    rows.sort(reverse=True)
    out = [
        f"{calls} calls: {total / calls * 1e6:.0f} µs of profiled work per call in the event-loop"
        f" thread (and {waiting / calls * 1e6:.0f} µs waiting in epoll)",
        "",
        "  own %   calls/req   own µs/req   cum µs/req  function",
    ]
    for tottime, ncalls, cumtime, where in rows[:top]:
        out.append(
            f"  {100 * tottime / total:5.1f}   {ncalls / calls:9.1f}   "
            f"{tottime / calls * 1e6:10.1f}   {cumtime / calls * 1e6:10.1f}  {where}"
        )
    return "\n".join(out) + "\n"


def profile_http(key: str, fixture: str, out: Path, seconds: float, top: int) -> list[str]:
    """`plainmcp run FIXTURE --http` under 4 clients calling `add`, with py-spy attached."""
    stateless = key == "http26"
    port = rpc.free_port()
    argv = [PY, "-m", "plainmcp", "run", fixture, "--http", "--port", str(port)]
    env = dict(SERVER_ENV, BENCH_WATCHDOG="1")
    proc = rpc.start(argv, out / f"{key}.log", pipes=False, env=env)
    raw = out / f"{key}.pyspy.txt"
    raw.unlink(missing_ok=True)
    try:
        rpc.run_async(rpc.http_ready(port, proc, 45))
        rpc.run_async(rpc.http_load(port, proc.pid, 4, 2000, 5, stateless=stateless))  # warm-up
        stop = with_pyspy(proc.pid, raw)()
        run = rpc.run_async(rpc.http_load(port, proc.pid, 4, 10**9, seconds, stateless=stateless))
        stop()
    finally:
        rpc.stop(proc)
    label = "HTTP, 2026-07-28 stateless" if stateless else "HTTP, sessions"
    rate = run["done"] / run["wall"]
    head = f"## {label}, 4 clients calling add: py-spy ({rate:,.0f} calls/s while sampled)"
    return [head, "", "```", summarize_pyspy(raw, top).rstrip(), "```", ""]


def main() -> int:
    if sys.argv[1:2] == ["--serve"]:
        serve_profiled(sys.argv[2], sys.argv[3])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per run")
    parser.add_argument("--top", type=int, default=25, help="functions listed per table")
    parser.add_argument(
        "--scenarios",
        default="seq,tput,tput26,rows,http,http26",
        help="comma-separated subset of seq,tput,tput26,rows,http,http26",
    )
    parser.add_argument("--out", default=str(HERE / "results" / "profile"))
    parser.add_argument(
        "--fixture", default=FIXTURE, help="another plainmcp server file with the same tools"
    )
    args = parser.parse_args()
    fixture = str(Path(args.fixture).resolve())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    source = snapshot_source()
    report = [
        "# Where plainmcp's time goes",
        "",
        f"`bash bench/run profile {' '.join(sys.argv[1:])}`".replace(" `", "`")
        + f", plainmcp at {source}",
        "",
    ]
    for key in args.scenarios.split(","):
        if key in ("http", "http26"):
            report += profile_http(key, fixture, out, args.seconds, args.top)
            print(f"profiled: {key}", file=sys.stderr)
            continue
        scenario = SCENARIOS[key]
        raw = out / f"{key}.pyspy.txt"
        raw.unlink(missing_ok=True)
        peer = rpc.StdioPeer("plainmcp", [PY, fixture], out / f"{key}.log", SERVER_ENV)
        try:
            got = drive(peer, scenario, args.seconds, with_pyspy(peer.pid, raw))
        finally:
            finish(peer)
        report += [f"## {scenario.label}: py-spy ({got['per_s']:,.0f} calls/s while sampled)", ""]
        report += ["```", summarize_pyspy(raw, args.top).rstrip(), "```", ""]

        stats = out / f"{key}.cprofile"
        stats.unlink(missing_ok=True)
        argv = [PY, str(Path(__file__).resolve()), "--serve", str(stats), fixture]
        peer = rpc.StdioPeer("plainmcp", argv, out / f"{key}.log", SERVER_ENV)
        try:
            got = drive(peer, scenario, args.seconds, with_cprofile(peer, stats))
        finally:
            finish(peer)
        report += [
            f"## {scenario.label}: cProfile, event-loop thread only "
            f"({got['per_s']:,.0f} calls/s under cProfile)",
            "",
        ]
        table = summarize_cprofile(stats, int(got["calls"]), args.top)
        report += ["```", table.rstrip(), "```", ""]
        print(f"profiled: {scenario.label}", file=sys.stderr)
    text = "\n".join(report)
    (out / "profile.md").write_text(text)
    print(text)
    print(f"(written to {out / 'profile.md'})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
