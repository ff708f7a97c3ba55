"""The demo server, as a file to run: its tools live in src/plainmcp/demo.py (shipped in the
package, so that `plainmcp demo` works from an installed wheel).

`python examples/demo_server.py` or `plainmcp run examples/demo_server.py` serves it over stdio;
`plainmcp call examples/demo_server.py add a=2 b=3` tries one tool.
"""

from plainmcp.demo import app

if __name__ == "__main__":
    app.run()
