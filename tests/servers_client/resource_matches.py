"""A server of one scoped resource template. Run as a program it also counts the template
matches its reads make (every `UriTemplate.match`), which the tool `matches` reports."""

from __future__ import annotations

from typing import Any

from plainmcp import Server


def make_app() -> Server:
    app = Server("matching")

    @app.resource("notes://by-id/{note}", scopes=["notes:read"])
    def note(note: str) -> str:
        return f"note {note}"

    return app


def main() -> None:
    from plainmcp.uri_templates import UriTemplate

    seen: list[str] = []
    original = UriTemplate.match

    def counted(self: UriTemplate, uri: str) -> Any:
        seen.append(uri)
        return original(self, uri)

    UriTemplate.match = counted  # type: ignore[method-assign]
    app = make_app()

    @app.tool
    def matches() -> list[str]:
        """The URIs matched against a template so far, in order."""
        return seen

    app.run()


if __name__ == "__main__":
    main()
