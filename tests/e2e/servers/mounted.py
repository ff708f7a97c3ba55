"""A hub serving two mounted servers over stdio, for tests/e2e/test_mount_transports.py.

MOUNT_LOG names the file the three lifespans write their entries and exits to. `hub_grow`
adds a tool to the mounted weather server at runtime; `hub_touch` has it announce a change
of one of its resources.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

from plainmcp import Context, Server


def note(event: str) -> None:
    with open(os.environ["MOUNT_LOG"], "a") as log:
        log.write(event + "\n")


def lifespan_of(name: str) -> object:
    @contextlib.asynccontextmanager
    async def lifespan(app: Server) -> AsyncIterator[str]:
        note(f"{name} up")
        try:
            yield f"{name} state"
        finally:
            note(f"{name} down")

    return lifespan


weather = Server("weather", lifespan=lifespan_of("weather"))  # type: ignore[arg-type]
news = Server("news", lifespan=lifespan_of("news"))  # type: ignore[arg-type]
app = Server("hub", lifespan=lifespan_of("hub"), continuation=None)  # type: ignore[arg-type]


@weather.tool
async def lookup(city: str, ctx: Context) -> str:
    await ctx.report_progress(1, 1, "looked up")
    await ctx.info(f"weather of {city}")
    return f"sunny in {city} ({ctx.lifespan()})"


@news.tool(name="lookup")
def headline(city: str) -> str:
    return f"headline of {city}"


@weather.resource("data://today")
def today() -> str:
    return "weather: sunny"


@news.resource("data://city/{name}")
def city(name: str) -> str:
    return f"news of {name}"


@news.prompt
def brief(city: str) -> str:
    return f"Brief me on the news in {city}."


@app.tool
def grow() -> str:
    weather.add_tool(lambda region: f"no alerts in {region}", name="alerts")
    return "grown"


@app.tool
def touch() -> str:
    weather.notify_resource_updated("data://today")
    return "touched"


app.mount(weather, namespace="weather")
app.mount(news, namespace="news")

if __name__ == "__main__":
    app.run()
