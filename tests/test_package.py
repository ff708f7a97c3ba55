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
    "FileStore",
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


# What `import plainmcp` loads of its own, pinned so that an import added at the top of a
# module shows here: what a first tools/call does not need (prompt arguments, completion, URI
# templates, middleware) loads on first use. Every module is start-up time for each session a
# host spawns (docs/performance.md, "Sync tools and start-up").
IMPORTED_MODULES = [
    "plainmcp",
    *(
        f"plainmcp.{name}"
        for name in [
            "agreement",
            "asks",
            "batches",
            "components",
            "connection",
            "context",
            "continuation",
            "dispatch",
            "docstrings",
            "errors",
            "exchange",
            "extensions",
            "guards",
            "guards.blocks",
            "guards.follow",
            "guards.offload",
            "guards.structured",
            "handlers",
            "handlers.lifecycle",
            "handlers.tools",
            "hosts",
            "hosts.adapt",
            "hosts.budget",
            "hosts.profiles",
            "hosts.profiles.anthropic",
            "hosts.profiles.cells",
            "hosts.profiles.cli_agents",
            "hosts.profiles.frameworks",
            "hosts.profiles.ides",
            "hosts.profiles.lookup",
            "hosts.profiles.sdks",
            "inflight",
            "input_required",
            "invoke",
            "item_cuts",
            "lifespan",
            "model",
            "model.blocks",
            "model.blocks.annotations",
            "model.blocks.audio",
            "model.blocks.base",
            "model.blocks.image",
            "model.blocks.link",
            "model.blocks.media",
            "model.blocks.resource",
            "model.blocks.text",
            "model.encoding",
            "model.errors",
            "model.identity",
            "model.images",
            "model.mime",
            "model.options",
            "model.pydantic_check",
            "model.results",
            "model.summary",
            "model.truncate",
            "notify",
            "offers",
            "paging",
            "peer",
            "registry",
            "schema",
            "schema.errors",
            "schema.inputs",
            "schema.outputs",
            "schema.plain",
            "schema.refs",
            "schema.validation",
            "scopes",
            "server",
            "settings",
            "store",
            "tools",
            "transports",
            "transports.stdout",
            "version",
            "wire",
            "wire.cursor",
            "wire.definitions",
            "wire.envelope",
            "wire.extension_ids",  # the host profiles name the extensions hosts declare
            "wire.json",
            "wire.jsonrpc",
            "wire.meta",
            "wire.methods",
            "wire.param_headers",
            "wire.render",
            "wire.request_state",
            "wire.revisions",
            "wire.session",
            "workers",
        ]
    ),
]


def loaded_after(code: str) -> list[str]:
    """plainmcp's modules in sys.modules after `code` runs in a fresh interpreter."""
    names = "sorted(m for m in sys.modules if 'plainmcp' in m)"
    probe = f"{code}\nimport sys; print(' '.join({names}))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_import_loads_exactly_the_pinned_modules() -> None:
    assert loaded_after("import plainmcp") == IMPORTED_MODULES


def test_features_a_first_call_does_not_use_load_on_first_use() -> None:
    later = ["plainmcp.completion", "plainmcp.prompt_arguments", "plainmcp.uri_templates"]
    later += ["plainmcp.middleware", "plainmcp.middleware.base", "plainmcp.prompts"]
    later += ["plainmcp.resources", "plainmcp.resource_contents"]
    code = (
        "from plainmcp import Server\n"
        "from plainmcp.middleware import Timing\n"
        "app = Server('s', middleware=[Timing()])\n"
        "@app.prompt\n"
        "def greet(name: str) -> str:\n"
        "    return name\n"
        "@app.resource('notes://{key}', complete={'key': lambda value: [value]})\n"
        "def note(key: str) -> str:\n"
        "    return key\n"
        "app.prompts.completer('greet', 'name')\n"
    )
    loaded = loaded_after(code)
    assert [m for m in later if m in loaded] == later
    assert [m for m in later if m in IMPORTED_MODULES] == []


def test_prompt_argument_stays_importable_from_prompts() -> None:
    from plainmcp.prompt_arguments import PromptArgument
    from plainmcp.prompts import PromptArgument as from_prompts

    assert from_prompts is PromptArgument


def test_openapi_is_an_extra_loaded_only_when_used() -> None:
    """`import plainmcp` loads no part of plainmcp.openapi; importing that loads neither its
    validator nor httpx2 until a document is read and an API called."""
    code = (
        "import sys, plainmcp; before = sorted(m for m in sys.modules if 'openapi' in m);"
        "import plainmcp.openapi;"
        "print(before, sorted({m.split('.')[0] for m in sys.modules}"
        " & {'openapi_spec_validator', 'jsonschema_path', 'httpx2', 'fastapi'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] []"
