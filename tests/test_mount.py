"""Mounting (issue 28, part 2: plainmcp.mount): two servers with clashing names under two
namespaces, clashes refused, resources, templates and prompts through the mount, the mounted
server's Context, lifespans composed, list_changed and resource updates across the mount.

Through the in-memory client, and through tests.conftest.Session where the exact messages the
parent writes matter (every one is validated against the revision's schema there)."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from plainmcp import Client, Context, Server, Text
from plainmcp.client import LogMessage, Progress
from plainmcp.lifespan import LifespanError
from plainmcp.mount import mount, namespaced_name, namespaced_uri, split_uri
from plainmcp.resources import ResourceTemplate
from plainmcp.testing import run_task
from tests.conftest import HANDSHAKE_REVISIONS, Session

pytestmark = pytest.mark.anyio


def weather(events: list[str] | None = None) -> Server:
    """A server whose names clash with `news`'s: a `lookup` tool, a `brief` prompt, the same
    resource URI and template."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Server) -> AsyncIterator[dict[str, str]]:
        if events is not None:
            events.append("weather up")
        yield {"unit": "celsius"}
        if events is not None:
            events.append("weather down")

    app = Server("weather", lifespan=lifespan)

    @app.tool
    def lookup(city: str) -> str:
        """Today's weather in a city."""
        return f"sunny in {city}"

    @app.tool
    async def forecast(city: str, ctx: Context) -> str:
        await ctx.report_progress(1, 2, "reading the sky")
        await ctx.info(f"forecasting {city}")
        await ctx.report_progress(2, 2)
        return f"{city}: 21 degrees {ctx.lifespan()['unit']}"

    @app.resource("data://today", mime_type="text/plain")
    def today() -> str:
        return "weather: sunny"

    @app.resource("data://city/{name}")
    def city(name: str) -> str:
        return f"weather of {name}"

    @app.prompt
    def brief(city: str) -> str:
        return f"Brief me on the weather in {city}."

    return app


def news(events: list[str] | None = None) -> Server:
    @contextlib.asynccontextmanager
    async def lifespan(app: Server) -> AsyncIterator[None]:
        if events is not None:
            events.append("news up")
        yield None
        if events is not None:
            events.append("news down")

    app = Server("news", lifespan=lifespan)

    @app.tool
    def lookup(city: str) -> str:
        """Today's headline in a city."""
        return f"headline of {city}"

    @app.resource("data://today")
    def today() -> str:
        return "news: quiet"

    @app.resource("data://city/{name}")
    def city(name: str) -> str:
        return f"news of {name}"

    @app.prompt
    def brief(city: str) -> str:
        return f"Brief me on the news in {city}."

    return app


def both(events: list[str] | None = None) -> Server:
    app = Server("hub")

    @app.tool
    def lookup(city: str) -> str:
        return f"the hub's {city}"

    app.mount(weather(events), namespace="weather")
    app.mount(news(events), namespace="news")
    return app


# --- names -----------------------------------------------------------------------------------


def test_names_and_uris_are_namespaced_reversibly() -> None:
    assert namespaced_name("weather", "lookup") == "weather_lookup"
    assert namespaced_name(None, "lookup") == "lookup"
    assert namespaced_uri("weather", "data://city/{name}") == "weather+data://city/{name}"
    assert namespaced_uri("my-ns", "urn:isbn:0451") == "my-ns+urn:isbn:0451"
    assert split_uri("weather+data://today") == ("weather", "data://today")
    assert split_uri("my-ns+urn:isbn:0451") == ("my-ns", "urn:isbn:0451")
    assert split_uri("data://today") is None
    assert split_uri("svn+ssh://host/repo") == ("svn", "ssh://host/repo")  # as any x+ scheme


@pytest.mark.parametrize("namespace", ["", "has_underscore", "a+b", "1st", "x" * 65, "dot.ted"])
def test_a_namespace_that_would_not_split_back_is_refused(namespace: str) -> None:
    with pytest.raises(ValueError) as caught:
        Server("hub").mount(weather(), namespace=namespace)
    assert str(caught.value) == (
        f"namespace {namespace!r}: a letter, then up to 63 letters, digits or '-' (no '_' nor"
        " '+': they separate it from a name or a URI)"
    )


# --- two servers with clashing names ---------------------------------------------------------


async def test_two_servers_with_clashing_names_are_both_callable() -> None:
    async with Client.memory(both()) as client:
        tools = await client.list_tools()
        assert [t.name for t in tools] == [
            "lookup",
            "weather_lookup",
            "weather_forecast",
            "news_lookup",
            "read_more",  # the parent's own continuation, which mounted tools' cut results name
        ]
        assert [t.description for t in tools if t.name.endswith("_lookup")] == [
            "Today's weather in a city.",
            "Today's headline in a city.",
        ]
        assert tools[1].input_schema == tools[3].input_schema
        assert (await client.call_tool("lookup", {"city": "Oslo"})).text == "the hub's Oslo"
        weather_said = await client.call_tool("weather_lookup", {"city": "Oslo"})
        assert weather_said.text == "sunny in Oslo"
        news_said = await client.call_tool("news_lookup", {"city": "Oslo"})
        assert news_said.text == "headline of Oslo"


async def test_a_mounted_tools_bad_arguments_are_named_as_mounted() -> None:
    async with Client.memory(both()) as client:
        result = await client.call_tool("news_lookup", {})
    assert result.is_error
    assert result.text == "Invalid arguments for tool 'news_lookup':\n- city: Field required"


def test_a_clash_is_refused_at_mount_time_naming_each() -> None:
    app = Server("hub")
    app.mount(weather())
    with pytest.raises(ValueError) as caught:
        app.mount(news())
    assert str(caught.value) == (
        "cannot mount server 'news': a tool named 'lookup' is already registered; a prompt"
        " named 'brief' is already registered; a resource with URI 'data://today' is already"
        " registered; a resource with URI 'data://city/{name}' is already registered"
    )
    assert list(app.tools) == ["lookup", "forecast"]  # nothing of news was registered


def test_a_clash_with_the_parents_own_names_and_after_namespacing() -> None:
    app = Server("hub")

    @app.tool(name="weather_lookup")
    def own() -> str:
        return "own"

    with pytest.raises(ValueError) as caught:
        app.mount(weather(), namespace="weather")
    assert str(caught.value) == (
        "cannot mount server 'weather': a tool named 'weather_lookup' is already registered"
    )
    with pytest.raises(ValueError) as caught:
        Server("hub", continuation="lookup").mount(weather())  # the built-in read_more's name
    assert "a tool named 'lookup' is already registered" in str(caught.value)


def test_without_a_namespace_a_server_without_clashes_mounts_as_it_is() -> None:
    app = Server("hub")
    app.mount(news())
    assert list(app.tools) == ["lookup"]
    assert [r.uri for r in app.resources.resources] == ["data://today"]
    assert [t.uri_template for t in app.resources.templates] == ["data://city/{name}"]
    assert [p.name for p in app.prompts] == ["brief"]


def test_a_server_is_not_mounted_in_itself() -> None:
    a, b = Server("a"), Server("b")
    a.mount(b, namespace="b")
    for parent, child in ((a, a), (b, a)):
        with pytest.raises(ValueError) as caught:
            parent.mount(child, namespace="x")
        assert str(caught.value) == (
            "cannot mount server 'a': the server would be mounted in itself"
        )


def task_server() -> Server:
    @contextlib.asynccontextmanager
    async def lifespan(app: Server) -> AsyncIterator[str]:
        yield "inner state"

    inner = Server("inner", lifespan=lifespan)

    @inner.tool(task="optional")
    async def build(target: str, ctx: Context) -> str:
        return f"built {target} with {ctx.lifespan()}"

    return inner


def test_a_mounted_task_tool_runs_as_a_task_of_the_parent() -> None:
    app = Server("hub")
    assert app.tasks is None
    app.mount(task_server(), namespace="inner")
    assert app.tasks is not None  # served with the defaults, as for a tool of its own
    run = run_task(app, "inner_build", {"target": "docs"})
    assert (run.statuses, run.result.text) == (
        ["working", "completed"],
        "built docs with inner state",
    )


def test_without_a_way_to_serve_tasks_a_task_tool_is_refused() -> None:
    with pytest.raises(ValueError) as caught:
        mount(Server("hub").core, task_server().core, "inner", "server 'inner'")
    assert str(caught.value) == (
        "cannot mount server 'inner': tool 'build' runs as a task, and this server serves no tasks"
    )


# --- resources, templates, prompts -----------------------------------------------------------


async def test_resources_templates_and_prompts_through_the_mount() -> None:
    async with Client.memory(both()) as client:
        resources = await client.list_resources()
        assert [(r.uri, r.name, r.mime_type) for r in resources] == [
            ("weather+data://today", "today", "text/plain"),
            ("news+data://today", "today", None),
        ]
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates] == [
            "weather+data://city/{name}",
            "news+data://city/{name}",
        ]
        read = await client.read_resource("weather+data://today")
        assert [(c.uri, c.text) for c in read.contents] == [
            ("weather+data://today", "weather: sunny")
        ]
        assert (await client.read_resource("news+data://today")).text == "news: quiet"
        assert (await client.read_resource("weather+data://city/Oslo")).text == "weather of Oslo"
        assert (await client.read_resource("news+data://city/Oslo")).text == "news of Oslo"
        assert [p.name for p in await client.list_prompts()] == ["weather_brief", "news_brief"]
        got = await client.get_prompt("news_brief", {"city": "Oslo"})
        assert [(m.role, m.content) for m in got.messages] == [
            ("user", Text("Brief me on the news in Oslo."))
        ]


async def test_a_mounted_templates_completers_complete_through_the_mount() -> None:
    inner = Server("inner")

    @inner.resource("notes://{key}", complete={"key": lambda value, arguments: ["alpha", "beta"]})
    def note(key: str) -> str:
        return key

    app = Server("hub")
    app.mount(inner, namespace="inner")
    async with Session(app) as s:
        await s.initialize()
        result = await s.result(
            "completion/complete",
            {
                "ref": {"type": "ref/resource", "uri": "inner+notes://{key}"},
                "argument": {"name": "key", "value": "a"},
            },
        )
    assert result == {"completion": {"values": ["alpha", "beta"], "total": 2, "hasMore": False}}
    inner.resources.remove("notes://{key}")
    assert (app.resources.templates, len(app.core.completers)) == ((), 0)  # its completer too


# --- the mounted server's Context ------------------------------------------------------------


async def test_progress_logs_and_lifespan_of_a_mounted_tool_reach_the_client() -> None:
    heard: list[Any] = []

    def on_progress(progress: Progress) -> None:
        heard.append((progress.progress, progress.total, progress.message))

    def on_log(message: LogMessage) -> None:
        heard.append((message.level, message.data))

    async with Client.memory(both(), on_log=on_log) as client:
        await client.set_log_level("info")
        result = await client.call_tool(
            "weather_forecast", {"city": "Oslo"}, on_progress=on_progress
        )
    assert result.text == "Oslo: 21 degrees celsius"  # the mounted server's lifespan state
    assert heard == [(1, 2, "reading the sky"), ("info", "forecasting Oslo"), (2, 2, None)]


async def test_lifespans_are_composed_in_order() -> None:
    events: list[str] = []
    app = both(events)
    async with Client.memory(app) as client:
        events.append("serving")
        assert (await client.call_tool("weather_forecast", {"city": "Rome"})).text == (
            "Rome: 21 degrees celsius"
        )
    assert events == ["weather up", "news up", "serving", "news down", "weather down"]


async def test_a_parent_lifespan_wraps_the_mounted_ones() -> None:
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: Server) -> AsyncIterator[str]:
        events.append("hub up")
        yield "hub state"
        events.append("hub down")

    app = Server("hub", lifespan=lifespan)

    @app.tool
    def state(ctx: Context) -> str:
        return str(ctx.lifespan())

    app.mount(weather(events), namespace="weather")
    async with Client.memory(app) as client:
        assert (await client.call_tool("state")).text == "hub state"
        forecast = await client.call_tool("weather_forecast", {"city": "Rome"})
        assert forecast.text == "Rome: 21 degrees celsius"
    assert events == ["hub up", "weather up", "weather down", "hub down"]


# --- changes across the mount ----------------------------------------------------------------


def changes(s: Session) -> list[Any]:
    return [
        m
        for m in s.messages
        if isinstance(m, dict) and str(m.get("method", "")).startswith("notifications/")
    ]


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_a_tool_added_to_the_mounted_server_is_announced_and_listed(version: str) -> None:
    inner = weather()
    app = Server("hub")
    app.mount(inner, namespace="weather")
    async with Session(app) as s:
        await s.initialize(version)

        @inner.tool
        def alerts(region: str) -> str:
            return f"no alerts in {region}"

        await s.wait_for(lambda m: m.get("method") == "notifications/tools/list_changed")
        listed = await s.result("tools/list")
        assert [t["name"] for t in listed["tools"]] == [
            "weather_lookup",
            "weather_forecast",
            "weather_alerts",
            "read_more",
        ]
        called = await s.call("weather_alerts", {"region": "north"})
        assert called["content"] == [{"type": "text", "text": "no alerts in north"}]

        inner.remove_tool("lookup")
        await s.settle()
        await s.drain()
        listed = await s.result("tools/list")
        assert [t["name"] for t in listed["tools"]] == [
            "weather_forecast",
            "weather_alerts",
            "read_more",
        ]
        assert changes(s) == [
            {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
            {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
        ]


async def test_a_prompt_and_a_resource_added_at_runtime_are_announced() -> None:
    inner = news()
    app = Server("hub")
    app.mount(inner, namespace="news")
    async with Session(app) as s:
        await s.initialize()
        inner.prompt(lambda: "hi", name="hello")
        inner.add_resource("late", "data://late")
        await s.drain()
        assert [m["method"] for m in changes(s)] == [
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
        ]
        read = await s.result("resources/read", {"uri": "news+data://late"})
        assert read["contents"][0]["text"] == "late"
        got = await s.result("prompts/get", {"name": "news_hello"})
        assert got["messages"][0]["content"] == {"type": "text", "text": "hi"}


def test_a_runtime_tool_that_would_clash_is_refused_by_name() -> None:
    inner = Server("inner")
    app = Server("hub")

    @app.tool(name="inner_late")
    def own() -> str:
        return "own"

    app.mount(inner, namespace="inner")
    with pytest.raises(ValueError) as caught:
        inner.add_tool(lambda: "late", name="late")
    assert str(caught.value) == (
        "cannot mount tool 'late' of server 'inner': a tool named 'inner_late' is already"
        " registered"
    )
    assert list(app.tools) == ["inner_late"]
    assert app.tools["inner_late"].fn is own
    inner.add_tool(lambda: "next", name="next")  # the refused one is not tried again
    assert list(app.tools) == ["inner_late", "inner_next"]
    inner.remove_tool("late")
    app.remove_tool("inner_late")
    inner.add_tool(lambda: "late again", name="late")  # a new tool: mounted
    assert list(app.tools) == ["inner_next", "inner_late"]


def test_a_runtime_prompt_or_resource_that_would_clash_is_refused_by_name() -> None:
    inner = Server("inner")
    app = Server("hub")
    app.prompt(lambda: "own", name="inner_hello")
    app.add_resource("own", "inner+data://late")
    app.mount(inner, namespace="inner")
    with pytest.raises(ValueError) as caught:
        inner.prompt(lambda: "hi", name="hello")
    assert str(caught.value) == (
        "cannot mount prompt 'hello' of server 'inner': a prompt named 'inner_hello' is already"
        " registered"
    )
    with pytest.raises(ValueError) as caught:
        inner.add_resource("late", "data://late")
    assert str(caught.value) == (
        "cannot mount resource 'data://late' of server 'inner': a resource with URI"
        " 'inner+data://late' is already registered"
    )
    assert [p.name for p in app.prompts] == ["inner_hello"]
    assert [r.uri for r in app.resources.resources] == ["inner+data://late"]


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_a_subscription_to_a_mounted_resource_hears_its_updates(version: str) -> None:
    inner = weather()
    app = Server("hub")
    app.mount(inner, namespace="weather")
    async with Session(app) as s:
        await s.initialize(version)
        assert await s.result("resources/subscribe", {"uri": "weather+data://today"}) == {}
        assert await s.result("resources/subscribe", {"uri": "weather+data://city/Oslo"}) == {}
        inner.notify_resource_updated("data://today")
        inner.notify_resource_updated("data://city/Oslo")
        inner.notify_resource_updated("data://city/Rome")  # nobody subscribed
        await s.drain()
        assert changes(s) == [
            {
                "jsonrpc": "2.0",
                "method": "notifications/resources/updated",
                "params": {"uri": "weather+data://today"},
            },
            {
                "jsonrpc": "2.0",
                "method": "notifications/resources/updated",
                "params": {"uri": "weather+data://city/Oslo"},
            },
        ]


async def test_the_in_memory_client_hears_changes_across_a_nested_mount() -> None:
    leaf = news()
    middle = Server("middle")
    middle.mount(leaf, namespace="news")
    app = Server("hub")
    app.mount(middle, namespace="middle")
    heard: list[str] = []
    arrived = anyio.Event()

    def on_resource_updated(uri: str) -> None:
        heard.append(uri)
        arrived.set()

    async with Client.memory(app, on_resource_updated=on_resource_updated) as client:
        assert (await client.call_tool("middle_news_lookup", {"city": "Oslo"})).text == (
            "headline of Oslo"
        )
        await client.subscribe("middle+news+data://today")
        assert (await client.read_resource("middle+news+data://today")).text == "news: quiet"
        leaf.notify_resource_updated("data://today")
        with anyio.fail_after(5):
            await arrived.wait()
    assert heard == ["middle+news+data://today"]


async def test_a_mounted_tool_elicits_from_the_client_of_the_request() -> None:
    inner = Server("inner")

    @inner.tool
    async def ask_name(ctx: Context) -> str:
        answer = await ctx.elicit(
            "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        return f"hello {answer.content['name']}" if answer.content else "no name"

    app = Server("hub")
    app.mount(inner, namespace="inner")
    async with Session(app) as s:
        await s.initialize("2025-11-25", capabilities={"elicitation": {}})
        call_id = await s.start("tools/call", {"name": "inner_ask_name"})
        asked = await s.wait_for(lambda m: m.get("method") == "elicitation/create")
        assert asked["params"] == {
            "message": "Your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
        }
        answer = {"action": "accept", "content": {"name": "Ada"}}
        await s.send({"jsonrpc": "2.0", "id": asked["id"], "result": answer})
        reply = await s.response(call_id)
    assert reply["result"]["content"] == [{"type": "text", "text": "hello Ada"}]


SUB = "io.modelcontextprotocol/subscriptionId"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


async def test_a_listen_stream_hears_the_mounted_servers_changes() -> None:
    inner = weather()
    app = Server("hub", continuation=None)
    app.mount(inner, namespace="weather")
    async with Session(app, revision_hint="2026-07-28") as s:
        wanted = {"toolsListChanged": True, "resourceSubscriptions": ["weather+data://today"]}
        await s.start("subscriptions/listen", {"_meta": META, "notifications": wanted}, id="L")
        ack = await s.wait_for(
            lambda m: m.get("method") == "notifications/subscriptions/acknowledged"
        )
        assert ack["params"] == {"_meta": {SUB: "L"}, "notifications": wanted}
        inner.add_tool(lambda: "late", name="late")
        inner.notify_resource_updated("data://today")
        listed = await s.request("tools/list", {"_meta": META})
        since_ack = s.upto(listed)[s.messages.index(ack) + 1 : -1]
        assert [(m["method"], m["params"]) for m in since_ack] == [
            ("notifications/tools/list_changed", {"_meta": {SUB: "L"}}),
            (
                "notifications/resources/updated",
                {"uri": "weather+data://today", "_meta": {SUB: "L"}},
            ),
        ]
        assert [t["name"] for t in listed["result"]["tools"]] == [
            "weather_lookup",
            "weather_forecast",
            "weather_late",
        ]


async def test_a_mounted_lifespan_that_fails_stops_the_parents_start_up() -> None:
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def hub_lifespan(app: Server) -> AsyncIterator[None]:
        events.append("hub up")
        try:
            yield None
        finally:  # the mounted server's start-up raises here
            events.append("hub down")

    @contextlib.asynccontextmanager
    async def broken(app: Server) -> AsyncIterator[None]:
        raise ConnectionError("database unreachable")
        yield None

    app = Server("hub", lifespan=hub_lifespan)
    app.mount(Server("inner", lifespan=broken), namespace="inner")
    with pytest.raises(LifespanError) as caught:
        async with app.lifespan_context():
            events.append("serving")
    assert str(caught.value) == (
        "the lifespan of server 'inner' failed to start: ConnectionError: database unreachable"
    )
    assert events == ["hub up", "hub down"]


def test_a_made_template_keeps_its_variables() -> None:
    inner = Server("inner")
    made = inner.add_resource(lambda key: key, "notes://{key}", name="note")
    assert isinstance(made, ResourceTemplate)
    with pytest.raises(ValueError) as caught:
        Server("hub").resources.add_made(dataclasses.replace(made, uri_template="notes://{k}"))
    assert str(caught.value) == "'notes://{k}' does not have the variables of 'note'"
