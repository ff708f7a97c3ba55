"""`plainmcp check FILE[:OBJECT]`: lint a server the way every revision and every host sees it.

The module is imported in this process (check_import.py, stdout held so that what it prints at
import is reported, not mixed into the report). Every definition and every sample call goes
through the server's own connection, as a client of each revision would send it and with the
`clientInfo` name of each host profile, so the check sees exactly what that client would get.
The rules are in plainmcp.lint (no I/O there); this module drives the server and prints.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc

from plainmcp.cli.call import parse_arguments
from plainmcp.cli.check_ignores import config_ignores, ignores, is_ignored
from plainmcp.cli.check_import import import_cost, import_guarded
from plainmcp.cli.check_report import Report, Sample, human
from plainmcp.cli.target import split_target
from plainmcp.cli.usage import UsageError
from plainmcp.hosts.profiles import GENERIC, PROFILES, HostProfile
from plainmcp.lint.problems import Problem, merged

if TYPE_CHECKING:
    from plainmcp.lint.schemas import Checkers
    from plainmcp.server import Server

LISTS = (
    ("tools/list", "tools", "Tool", "tool", "name"),
    ("prompts/list", "prompts", "Prompt", "prompt", "name"),
    ("resources/list", "resources", "Resource", "resource", "uri"),
    (
        "resources/templates/list",
        "resourceTemplates",
        "ResourceTemplate",
        "template",
        "uriTemplate",
    ),
)
"""What the list methods return: method, result key, schema definition, noun, identifying key."""
CHECK_CLIENT = "plainmcp-check"
"""The clientInfo name of the sessions of a profile that no client name selects (generic)."""


# --- talking to the server -----------------------------------------------------------------


class _Wire:
    """One client session with the server in this process, speaking raw JSON-RPC: a handshake
    session, or 2026-07-28 requests that each carry the revision and client in `_meta`."""

    def __init__(self, server: Server, tasks: anyio.abc.TaskGroup, version: str, name: str):
        from plainmcp.wire.revisions import REVISIONS

        self.version = version
        self.handshake = REVISIONS[version].handshake
        self.client_info = {"name": name, "version": "0"}
        self._ids = itertools.count(1)
        self._replies: dict[int, dict[str, Any]] = {}
        self._arrived = anyio.Event()
        self.conn = server.connect(self._written)
        self.conn.bind(tasks)

    async def _written(self, data: bytes) -> None:
        message = json.loads(data)
        if isinstance(message, dict) and "method" not in message and "id" in message:
            self._replies[message["id"]] = message
            self._arrived.set()
            self._arrived = anyio.Event()

    async def request(self, method: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
        """The response (with `result` or `error`); TimeoutError when none comes in time."""
        from plainmcp.wire.meta import CLIENT_CAPABILITIES, CLIENT_INFO, PROTOCOL_VERSION

        if not self.handshake:
            params = {
                **params,
                "_meta": {
                    PROTOCOL_VERSION: self.version,
                    CLIENT_CAPABILITIES: {},
                    CLIENT_INFO: self.client_info,
                },
            }
        request_id = next(self._ids)
        line = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        await self.conn.receive(json.dumps(line).encode())
        with anyio.fail_after(timeout):
            while request_id not in self._replies:
                await self._arrived.wait()
        return self._replies.pop(request_id)

    async def open(self, timeout: float) -> None:
        if self.handshake:
            reply = await self.request(
                "initialize",
                {
                    "protocolVersion": self.version,
                    "capabilities": {},
                    "clientInfo": self.client_info,
                },
                timeout,
            )
            if "result" not in reply:
                raise RuntimeError(f"initialize at {self.version} failed: {reply.get('error')}")
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await self.conn.receive(json.dumps(note).encode())

    async def listing(self, method: str, key: str, timeout: float) -> list[dict[str, Any]] | None:
        """Every page of a list method; None where the server does not serve it."""
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while True:
            reply = await self.request(method, params, timeout)
            result = reply.get("result")
            if not isinstance(result, dict):
                return None
            items.extend(result.get(key) or [])
            cursor = result.get("nextCursor")
            if not isinstance(cursor, str):
                return items
            params = {"cursor": cursor}

    def close(self) -> None:
        self.conn.close()


# --- the checks ----------------------------------------------------------------------------


def _client_name(profile: HostProfile) -> str:
    return profile.client_names[0] if profile.client_names else CHECK_CLIENT


def _samples(server: Server, calls: Sequence[Sequence[str]]) -> list[Sample]:
    """The --call samples (checked against the server's tools), then each tool's examples."""
    out = []
    for call in calls:
        tool, pairs = call[0], call[1:]
        if tool not in server.tools:
            known = ", ".join(server.tools) or "none"
            raise UsageError(f"--call: no tool named {tool!r} (tools: {known})")
        out.append(Sample(tool, parse_arguments(pairs, None), "--call"))
    for name, definition in server.tools.items():
        for index, example in enumerate(definition.examples, 1):
            out.append(Sample(name, dict(example), f"example {index}"))
    return out


async def _check_session(
    wire: _Wire,
    profile: HostProfile,
    generic: dict[tuple[str, str], str],
    samples: Sequence[Sample],
    timeout: float,
    found: list[Problem],
    report: Report,
    checkers: Checkers,
) -> None:
    """Definitions and sample calls at one (revision, host). Definitions the host gets exactly
    as the generic client does are validated once, with the generic session."""
    from plainmcp.lint.definitions import tool_problems
    from plainmcp.lint.results import result_problems

    version = wire.version
    is_generic = profile is GENERIC
    hosts = () if is_generic else (profile.key,)
    await wire.open(timeout)
    for method, key, definition, noun, ident in LISTS:
        items = await wire.listing(method, key, timeout)
        if items is None:
            continue
        if is_generic:
            report.counts[key] = len(items)
        check = checkers(version, definition)
        for item in items:
            subject = f"{noun} {item.get(ident)}"
            rendered = json.dumps(item, sort_keys=True)
            if is_generic:
                generic[(version, subject)] = rendered
            elif generic.get((version, subject)) == rendered:
                continue
            for message in check(item):
                found.append(Problem("schema-invalid", subject, message, (version,), hosts))
            if noun == "tool" and is_generic and version == report.revisions[-1]:
                found.extend(tool_problems(item, report.server))
    for sample in samples:
        subject = sample.subject
        try:
            reply = await wire.request(
                "tools/call", {"name": sample.tool, "arguments": sample.arguments}, timeout
            )
        except TimeoutError:
            reply = {"timeout": timeout}
        rendered = json.dumps(reply.get("result", reply), sort_keys=True)
        if is_generic:
            generic[(version, subject)] = rendered
        same = not is_generic and generic.get((version, subject)) == rendered
        result = reply.get("result")
        if isinstance(result, dict) and result.get("resultType", "complete") == "complete":
            for problem in result_problems(result, profile, subject):
                found.append(dataclasses.replace(problem, revisions=(version,)))
        if not same:  # what does not depend on how the host reads it: once, unless it differs
            found.extend(_call_problems(sample, reply, version, hosts, checkers))


def _call_problems(
    sample: Sample,
    reply: dict[str, Any],
    version: str,
    hosts: tuple[str, ...],
    checkers: Checkers,
) -> list[Problem]:
    """A sample call that failed, or whose result is not schema-valid."""
    from plainmcp.tools import invalid_arguments
    from plainmcp.wire.meta import MISSING_REQUIRED_CLIENT_CAPABILITY as MISSING

    subject = sample.subject

    def problem(code: str, message: str) -> list[Problem]:
        return [Problem(code, subject, message, (version,), hosts)]

    if "timeout" in reply:
        return problem(
            "call-error",
            f"no answer within {reply['timeout']:g} s; make the tool answer sooner, or give it"
            " more time with --timeout SECONDS",
        )
    result = reply.get("result")
    asks = "check answers no questions: leave a tool that asks the client out of its samples"
    if not isinstance(result, dict):
        error = json.dumps(reply.get("error"), sort_keys=True)
        if isinstance(reply.get("error"), dict) and reply["error"].get("code") == MISSING:
            return problem("call-error", f"error {error}; {asks}")
        return problem(
            "call-error",
            f"error {error}; the server refused the call: fix what the error names (a failure"
            " the model should read is raised as ToolError, an isError result)",
        )
    if result.get("resultType", "complete") != "complete":
        kind = result.get("resultType")
        return problem(
            "call-error", f"the result is {kind!r} (it asks the client for input); {asks}"
        )
    blocks = result.get("content") or []
    first = blocks[0].get("text", "") if blocks and blocks[0].get("type") == "text" else ""
    if result.get("isError") and first.startswith(invalid_arguments(sample.tool)):
        said = " ".join(first.split())
        if sample.origin == "--call":
            return problem("call-error", f"{said}; fix the arguments given to --call")
        return problem(
            "example-invalid",
            f"{said}; fix {sample.origin} in @app.tool(examples=[...]) to match the parameters",
        )
    return [
        Problem("schema-invalid", subject, message, (version,), hosts)
        for message in checkers(version, "CallToolResult")(result)
    ]


async def _check_server(
    server: Server,
    report: Report,
    profiles: Sequence[HostProfile],
    samples: Sequence[Sample],
    timeout: float,
    checkers: Checkers,
) -> list[Problem]:
    from plainmcp.lifespan import running

    found: list[Problem] = []
    generic: dict[tuple[str, str], str] = {}
    ordered = sorted(profiles, key=lambda p: p is not GENERIC)  # generic first: the baseline
    if GENERIC not in ordered:
        ordered.insert(0, GENERIC)
    # What the server logs of the calls (a tool's refusal) is in the problems already.
    quiet = logging.getLogger("plainmcp")
    was, quiet.disabled = quiet.disabled, True
    try:
        async with running(server), anyio.create_task_group() as tasks:
            for profile, version in itertools.product(ordered, report.revisions):
                wire = _Wire(server, tasks, version, _client_name(profile))
                try:
                    await _check_session(
                        wire, profile, generic, samples, timeout, found, report, checkers
                    )
                finally:
                    wire.close()
            tasks.cancel_scope.cancel()
    finally:
        quiet.disabled = was
    keys = {p.key for p in profiles}
    return [p for p in found if not p.hosts or set(p.hosts) <= keys]


# --- the command ---------------------------------------------------------------------------


def _profiles(key: str | None) -> list[HostProfile]:
    if key is None:
        return list(PROFILES)
    for profile in PROFILES:
        if profile.key == key:
            return [profile]
    known = ", ".join(p.key for p in PROFILES)
    raise UsageError(f"--host: no host profile {key!r} (known: {known})")


def run_check(
    target: str,
    *,
    calls: Sequence[Sequence[str]] = (),
    ignore: Sequence[tuple[str, str | None]] = (),
    profiles: Sequence[HostProfile] = PROFILES,
    timeout: float = 30.0,
    cost: bool = True,
    schemas: Path | None = None,
    base_url: str | None = None,
) -> Report:
    """Everything `plainmcp check` finds (`profiles` chooses the hosts; tests make their own).
    A folder of schemas given (`schemas`, else $PLAINMCP_MCP_SCHEMAS) that cannot be read is a
    UsageError before the module is imported; when they could not be downloaded, or jsonschema
    is missing, every other rule runs and the report says why validation did not."""
    from plainmcp.cli.schemas import NotDownloaded, SchemasUnavailable, find_schemas
    from plainmcp.lint.schemas import Checkers, MissingValidator
    from plainmcp.wire.revisions import REVISIONS

    not_run = None
    try:
        checkers = Checkers(find_schemas(REVISIONS, schemas, base_url=base_url, timeout=timeout))
    except (NotDownloaded, MissingValidator) as exc:
        checkers, not_run = Checkers(None), str(exc)
    except SchemasUnavailable as exc:
        raise UsageError(str(exc)) from None
    report = Report(target, revisions=tuple(REVISIONS), hosts=tuple(p.key for p in profiles))
    report.validation_not_run = not_run
    report.counts = {key: 0 for _, key, *_ in LISTS}
    server, _, found = import_guarded(target)
    if server is not None:
        report.server = server.name
        report.samples = _samples(server, calls)
        found += anyio.run(
            _check_server, server, report, profiles, report.samples, timeout, checkers
        )
    problems = merged(found, report.revisions)
    report.problems = [p for p in problems if not is_ignored(p, ignore)]
    report.ignored = len(problems) - len(report.problems)
    if cost and server is not None:
        report.cost = import_cost(split_target(target)[0], timeout)
    return report


def cmd_check(args: argparse.Namespace) -> int:
    profiles = _profiles(args.host)
    given = [] if args.no_config else config_ignores(args.target)
    rules = ignores([*given, *(args.ignore or ())])
    began = time.monotonic()
    report = run_check(
        args.target,
        calls=args.call or (),
        ignore=rules,
        profiles=profiles,
        timeout=args.timeout,
        cost=not args.json or args.timings,
        schemas=args.schemas,
    )
    if args.json:
        print(json.dumps(report.as_json(args.timings), indent=2, sort_keys=True))
    else:
        for line in human(report):
            print(line)
        if args.timings:
            print(f"check took {time.monotonic() - began:.2f} s")
    return 1 if report.problems else 0


def add_arguments(parser: argparse.ArgumentParser, target_help: str) -> None:
    parser.add_argument("target", metavar="FILE[:OBJECT]", help=target_help)
    parser.add_argument(
        "--call",
        metavar="TOOL key=value",
        nargs="+",
        action="append",
        help="a sample call to render for every revision and host (repeatable); the tools'"
        " own examples (@app.tool(examples=[...])) are called too",
    )
    parser.add_argument(
        "--ignore",
        metavar="CODE[:SUBJECT]",
        action="append",
        help="leave out the problems of a code, or of a code about one subject and what is"
        " inside it (--ignore 'name-rejected:tool very_long_name'); repeatable",
    )
    parser.add_argument(
        "--no-config",
        action="store_true",
        help="leave out the ignore list of [tool.plainmcp.check] in the nearest pyproject.toml",
    )
    parser.add_argument("--host", metavar="KEY", help="check for one host profile only")
    parser.add_argument("--json", action="store_true", help="the report as JSON, for CI")
    parser.add_argument(
        "--timings",
        action="store_true",
        help="with --json, include the import time (left out by default: it varies run to run)",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per request")
    parser.add_argument(
        "--schemas",
        metavar="DIR",
        type=Path,
        help="a folder of the official MCP schemas, <revision>/schema.json (the schema/ folder"
        " of the specification repository); default: $PLAINMCP_MCP_SCHEMAS, else downloaded"
        " once at the pinned commit into the per-user cache (from the mirror"
        " $PLAINMCP_MCP_SCHEMAS_URL when set); offline, every other rule runs and the report"
        " says validation was not run",
    )
