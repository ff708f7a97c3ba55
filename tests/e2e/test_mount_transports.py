"""Mounting end to end: the hub of tests/e2e/servers/mounted.py as a real subprocess, over
stdio and over HTTP (uvicorn), driven by plainmcp's client: both mounted servers' clashing
names, a mounted tool's progress and log, a tool added at runtime and a resource update across
the mount, lifespans in order."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest

from plainmcp import Client, Text
from plainmcp.client import LogMessage, Progress
from tests.http_server import http_server

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).parent / "servers" / "mounted.py"
SRC = Path(__file__).resolve().parents[2] / "src"


async def test_a_hub_of_mounted_servers_over_stdio(tmp_path: Path) -> None:
    log = tmp_path / "mount.log"
    heard: list[object] = []
    changed, updated = anyio.Event(), anyio.Event()

    def on_list_changed(feature: str) -> None:
        heard.append(("list_changed", feature))
        changed.set()

    def on_resource_updated(uri: str) -> None:
        heard.append(("updated", uri))
        updated.set()

    def on_log(message: LogMessage) -> None:
        heard.append((message.level, message.data))

    def on_progress(progress: Progress) -> None:
        heard.append((progress.progress, progress.total, progress.message))

    env = {"MOUNT_LOG": str(log), "PYTHONPATH": os.pathsep.join([str(SRC), str(SRC.parent)])}
    with anyio.fail_after(30):
        async with Client.stdio(
            sys.executable,
            str(SERVER),
            env=env,
            on_list_changed=on_list_changed,
            on_resource_updated=on_resource_updated,
            on_log=on_log,
        ) as client:
            assert log.read_text() == "hub up\nweather up\nnews up\n"
            assert [t.name for t in await client.list_tools()] == [
                "grow",
                "touch",
                "weather_lookup",
                "news_lookup",
            ]
            await client.set_log_level("info")
            looked = await client.call_tool(
                "weather_lookup", {"city": "Oslo"}, on_progress=on_progress
            )
            assert looked.text == "sunny in Oslo (weather state)"
            news_said = await client.call_tool("news_lookup", {"city": "Oslo"})
            assert news_said.text == "headline of Oslo"
            assert heard == [(1, 1, "looked up"), ("info", "weather of Oslo")]
            assert (await client.read_resource("weather+data://today")).text == "weather: sunny"
            assert (await client.read_resource("news+data://city/Rome")).text == "news of Rome"
            got = await client.get_prompt("news_brief", {"city": "Rome"})
            assert [(m.role, m.content) for m in got.messages] == [
                ("user", Text("Brief me on the news in Rome."))
            ]

            heard.clear()
            assert (await client.call_tool("grow")).text == "grown"
            await changed.wait()
            assert "weather_alerts" in [t.name for t in await client.list_tools()]
            alerts = await client.call_tool("weather_alerts", {"region": "north"})
            assert alerts.text == "no alerts in north"

            await client.subscribe("weather+data://today")
            assert (await client.call_tool("touch")).text == "touched"
            await updated.wait()
            assert heard == [("list_changed", "tools"), ("updated", "weather+data://today")]
    assert log.read_text() == ("hub up\nweather up\nnews up\nnews down\nweather down\nhub down\n")


async def test_the_hub_over_http(tmp_path: Path) -> None:
    log = tmp_path / "mount.log"
    changed = anyio.Event()

    def on_list_changed(feature: str) -> None:
        if feature == "tools":
            changed.set()

    with http_server(SERVER, env={"MOUNT_LOG": str(log)}) as served:
        assert log.read_text() == "hub up\nweather up\nnews up\n"  # uvicorn's start-up
        with anyio.fail_after(30):
            async with Client.http(served.url, on_list_changed=on_list_changed) as client:
                looked = await client.call_tool("weather_lookup", {"city": "Oslo"})
                assert looked.text == "sunny in Oslo (weather state)"
                news_said = await client.call_tool("news_lookup", {"city": "Oslo"})
                assert news_said.text == "headline of Oslo"
                read = await client.read_resource("news+data://city/Rome")
                assert read.text == "news of Rome"
                assert (await client.call_tool("grow")).text == "grown"
                await changed.wait()
                alerts = await client.call_tool("weather_alerts", {"region": "north"})
                assert alerts.text == "no alerts in north"
