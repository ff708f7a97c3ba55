"""A server that writes to stdout at import, between import and run(), and in a tool, each
time once without a flush and once flushed: all of it must reach stderr, in order."""

import os
import sys

from plainmcp import Server

print("import: print")
print("import: print flush=True", flush=True)

app = Server("prints", version="1.0.0")


@app.tool
def shout(text: str) -> str:
    """Upper-case the text."""
    print("tool: print")
    print("tool: print flush=True", flush=True)
    os.write(1, b"tool: os.write(1)\n")
    return text.upper()


if __name__ == "__main__":
    print("main: print")
    sys.stdout.buffer.write(b"main: sys.stdout.buffer\n")
    print("main: print flush=True", flush=True)
    app.run()
