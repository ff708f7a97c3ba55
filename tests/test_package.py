"""Package-level promises: what `import plainmcp` costs and exposes."""

from __future__ import annotations

import subprocess
import sys

import plainmcp

HTTP_STACKS = {
    "starlette",
    "uvicorn",
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "h11",
    "aiohttp",
    "fastapi",
    "sse_starlette",
}


def test_import_does_not_load_an_http_stack() -> None:
    code = (
        "import sys, plainmcp, plainmcp.server, plainmcp.transports.stdio;"
        # The ASGI app is plain code too: only serving it (uvicorn) needs the http extra.
        "import plainmcp.transports.http;"
        "print(','.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    loaded = set(out.split(","))
    assert loaded & HTTP_STACKS == set()
    assert "plainmcp" in loaded
    # Scopes on tools are core code; only the verifiers (plainmcp.auth) need the auth extra.
    assert loaded & {"jwt", "cryptography"} == set()


def test_import_does_not_load_jsonschema() -> None:
    code = "import sys, plainmcp; print('jsonschema' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


PUBLIC_NAMES = [
    "Annotations",
    "Audio",
    "BearerAuth",
    "BlobStore",
    "CallToolResult",
    "Client",
    "ClientCapabilityError",
    "ClientRequestError",
    "ContentBlock",
    "ContentError",
    "Contents",
    "Context",
    "ElicitResult",
    "EmbeddedResource",
    "File",
    "Header",
    "Icon",
    "Image",
    "McpError",
    "MemoryStore",
    "Message",
    "PayloadLimits",
    "Principal",
    "PromptError",
    "PromptResult",
    "ResourceError",
    "ResourceLink",
    "ResultOptions",
    "Root",
    "SampleResult",
    "Server",
    "StoredBlob",
    "Telemetry",
    "Text",
    "ToolError",
    "ToolInfo",
    "ToolResult",
    "safe_join",
]
"""Exactly what `from plainmcp import *` gives: a name added or removed is a decision, made here."""


def test_public_names() -> None:
    assert sorted(plainmcp.__all__) == sorted(PUBLIC_NAMES)
    for name in plainmcp.__all__:
        assert getattr(plainmcp, name) is not None
    star: dict[str, object] = {}
    exec("from plainmcp import *", star)  # the lazy names resolve through __getattr__
    assert sorted(k for k in star if k != "__builtins__") == sorted(PUBLIC_NAMES)


def test_a_server_process_loads_neither_the_client_nor_the_http_transport() -> None:
    code = (
        "import sys; from plainmcp import Server, Context, Image;"
        "print(sorted(m for m in sys.modules if m.startswith(('plainmcp.client',"
        " 'plainmcp.transports.http'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_lazy_names_resolve_and_unknown_names_fail() -> None:
    from plainmcp.client import Client
    from plainmcp.transports.http.security import BearerAuth

    assert plainmcp.Client is Client
    assert plainmcp.BearerAuth is BearerAuth
    try:
        plainmcp.NoSuchThing  # noqa: B018
    except AttributeError as exc:
        assert str(exc) == "module 'plainmcp' has no attribute 'NoSuchThing'"
    else:
        raise AssertionError("an unknown name must raise AttributeError")


def test_version_is_the_distributions_and_costs_no_metadata_lookup() -> None:
    from importlib.metadata import version

    code = "import sys, plainmcp; print(plainmcp.__version__, 'importlib.metadata' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == f"{version('plainmcp')} False\n"


def test_the_client_loads_its_http_stack_only_for_client_http() -> None:
    code = (
        "import sys; from plainmcp import Client; import plainmcp.client.session;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:])));"
        "import plainmcp.client.http;"
        "print('httpx2' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *HTTP_STACKS], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["[]", "True"]
