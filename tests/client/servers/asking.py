"""A server whose tools return exactly what `ctx.elicit`, `ctx.sample` and `ctx.list_roots`
gave them (their repr), so a test sees the answer as the function saw it."""

from __future__ import annotations

from plainmcp import Context, Server

app = Server("asking")

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}}


@app.tool
async def ask_name(ctx: Context) -> str:
    """What the user answered, as ctx.elicit returned it."""
    return repr(await ctx.elicit("Your name?", NAME_FORM))


@app.tool
async def ask_model(ctx: Context) -> str:
    """The client's model's answer, as ctx.sample returned it."""
    return repr(await ctx.sample("Say hi", max_tokens=5))


@app.tool
async def roots(ctx: Context) -> str:
    """The client's roots, as ctx.list_roots returned them."""
    return repr(await ctx.list_roots())


if __name__ == "__main__":
    app.run()
