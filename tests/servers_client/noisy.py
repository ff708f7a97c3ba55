"""A server that prints at import and in a tool: all of it must reach stderr, never stdout."""

import os

from plainmcp import Server

print(f"imported noisy ({os.environ.get('NOISY_GREETING')})")

app = Server("noisy")


@app.tool
def shout(text: str) -> str:
    """Upper-case the text."""
    print(f"shouting {text}")
    return text.upper()


if __name__ == "__main__":
    app.run()
