"""Where `plainmcp check` gets the official schemas: a folder, the per-user cache, or a download
from the specification repository (here a local HTTP server) checked against the pinned hashes;
and each way it can fail, with the message that names the fix."""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from plainmcp.cli import main
from plainmcp.cli import schemas as finder
from plainmcp.cli.schemas import COMMIT, FIX, SHA256, SchemasUnavailable, cache_dir, find_schemas
from plainmcp.wire.revisions import REVISIONS
from tests.lint.test_schemas import official
from tests.mcp_schemas import schemas_dir

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "examples" / "demo_server.py")
EVERY = list(REVISIONS)


def raw(revision: str) -> bytes:
    return (schemas_dir() / revision / "schema.json").read_bytes()


def path_of(revision: str) -> str:
    return f"/{COMMIT}/schema/{revision}/schema.json"


class Spec:
    """The raw files of the specification repository over HTTP on 127.0.0.1, with the paths
    asked for in order."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.requests: list[str] = []
        spec = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                spec.requests.append(self.path)
                body = spec.files.get(self.path)
                self.send_response(404 if body is None else 200)
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@contextlib.contextmanager
def serving(files: dict[str, bytes]) -> Iterator[Spec]:
    spec = Spec(files)  # bound and listening once constructed: no wait needed
    thread = threading.Thread(target=spec.server.serve_forever)
    thread.start()
    try:
        yield spec
    finally:
        spec.server.shutdown()
        thread.join()
        spec.server.server_close()


@contextlib.contextmanager
def refusing() -> Iterator[str]:
    """A base URL whose port is bound but not listening: every connection is refused."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{bound.getsockname()[1]}"


def official_files() -> dict[str, bytes]:
    return {path_of(r): raw(r) for r in REVISIONS}


def test_the_pinned_hashes_are_those_of_the_official_files() -> None:
    assert list(SHA256) == EVERY
    assert {r: hashlib.sha256(raw(r)).hexdigest() for r in REVISIONS} == SHA256
    readme = (schemas_dir() / "README.md").read_text(encoding="utf-8")
    assert f"at commit {COMMIT} " in " ".join(readme.split())


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("linux", {}, "/home/ada/.cache"),
        ("linux", {"XDG_CACHE_HOME": "/var/cache/ada"}, "/var/cache/ada"),
        ("darwin", {"XDG_CACHE_HOME": "/elsewhere"}, "/home/ada/Library/Caches"),
        ("win32", {"LOCALAPPDATA": "/Users/ada/AppData/Local"}, "/Users/ada/AppData/Local"),
        ("win32", {}, "/home/ada/AppData/Local"),
    ],
)
def test_the_cache_is_where_each_platform_keeps_caches(
    platform: str, environ: dict[str, str], expected: str
) -> None:
    assert cache_dir(environ, platform, Path("/home/ada")) == (
        Path(expected) / "plainmcp" / "mcp-schemas" / COMMIT
    )


def test_schemas_are_downloaded_once_then_read_from_the_cache(tmp_path: Path) -> None:
    environ = {"XDG_CACHE_HOME": str(tmp_path)}
    cache = tmp_path / "plainmcp" / "mcp-schemas" / COMMIT
    with serving(official_files()) as spec:
        first = find_schemas(REVISIONS, environ=environ, base_url=spec.url, platform="linux")
        assert spec.requests == [path_of(r) for r in REVISIONS]
        assert sorted(p.name for p in cache.iterdir()) == [f"{r}.json" for r in REVISIONS]
        assert all((cache / f"{r}.json").read_bytes() == raw(r) for r in REVISIONS)
        again = find_schemas(REVISIONS, environ=environ, base_url=spec.url, platform="linux")
        assert len(spec.requests) == len(EVERY)
    assert first == again == official()


def test_a_cached_file_that_is_not_the_pinned_one_is_downloaded_again(tmp_path: Path) -> None:
    cache = tmp_path / "plainmcp" / "mcp-schemas" / COMMIT
    cache.mkdir(parents=True)
    for revision in REVISIONS:
        (cache / f"{revision}.json").write_bytes(raw(revision))
    (cache / "2025-06-18.json").write_bytes(b"{}")
    environ = {"XDG_CACHE_HOME": str(tmp_path)}
    with serving(official_files()) as spec:
        found = find_schemas(REVISIONS, environ=environ, base_url=spec.url, platform="linux")
    assert spec.requests == [path_of("2025-06-18")]
    assert (cache / "2025-06-18.json").read_bytes() == raw("2025-06-18")
    assert found == official()


def test_a_download_that_is_not_the_pinned_file_is_refused_and_not_cached(tmp_path: Path) -> None:
    files = official_files()
    tampered = raw("2025-06-18").replace(b'"Tool"', b'"Tool "', 1)
    files[path_of("2025-06-18")] = tampered
    environ = {"XDG_CACHE_HOME": str(tmp_path)}
    cache = tmp_path / "plainmcp" / "mcp-schemas" / COMMIT
    with serving(files) as spec, pytest.raises(SchemasUnavailable) as refused:
        find_schemas(REVISIONS, environ=environ, base_url=spec.url, platform="linux")
    assert str(refused.value) == (
        f"the MCP schema of 2025-06-18 downloaded from {spec.url}{path_of('2025-06-18')} is not"
        f" the official file (sha256 {hashlib.sha256(tampered).hexdigest()}, pinned"
        f" {SHA256['2025-06-18']}); {FIX}"
    )
    assert sorted(p.name for p in cache.iterdir()) == ["2024-11-05.json", "2025-03-26.json"]


def test_an_http_error_names_the_status_and_the_fix(tmp_path: Path) -> None:
    environ = {"XDG_CACHE_HOME": str(tmp_path)}
    with serving({}) as spec, pytest.raises(SchemasUnavailable) as failed:
        find_schemas(REVISIONS, environ=environ, base_url=spec.url, platform="linux")
    assert str(failed.value) == (
        f"the MCP schema of 2024-11-05 could not be downloaded from"
        f" {spec.url}{path_of('2024-11-05')} (HTTP 404); {FIX}"
    )


def offline_reason(url: str) -> str:
    return (
        f"the MCP schema of 2024-11-05 could not be downloaded from"
        f" {url}{path_of('2024-11-05')} (ConnectError: [Errno 111] Connection refused); {FIX}"
    )


def test_offline_check_runs_every_other_rule_and_exits_by_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("PLAINMCP_MCP_SCHEMAS")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with refusing() as url:
        monkeypatch.setattr(finder, "BASE_URL", url)
        code = main(["check", DEMO, "--json", "--host", "generic", "--no-config"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    found = json.loads(out)
    assert (found["ok"], found["problems"], found["counts"]["tools"]) == (True, [], 12)
    assert found["schema_validation"] == {"run": False, "why": offline_reason(url)}
    assert not (tmp_path / "plainmcp").exists()


def test_offline_the_plain_report_says_validation_was_not_run_and_how_to_give_the_schemas(
    tmp_path: Path,
) -> None:
    """A subprocess, as a user runs it: the download goes to the mirror $PLAINMCP_MCP_SCHEMAS_URL
    names, here a port that refuses; the planted server still fails by the other rules."""
    planted = str(ROOT / "tests" / "cli" / "fixtures" / "planted_server.py")
    env = {k: v for k, v in os.environ.items() if k != "PLAINMCP_MCP_SCHEMAS"}
    with refusing() as url:
        done = subprocess.run(
            [sys.executable, "-m", "plainmcp", "check", planted, "--host=generic", "--no-config"],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            env={**env, "XDG_CACHE_HOME": str(tmp_path), "PLAINMCP_MCP_SCHEMAS_URL": url},
        )
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[3] == f"schema validation: not run: {offline_reason(url)}"
    assert FIX == (
        "give a folder of them with --schemas DIR or $PLAINMCP_MCP_SCHEMAS (the schema/ folder of"
        " a checkout of github.com/modelcontextprotocol/modelcontextprotocol), or run check once"
        " with network access (the download is cached)"
    )
    codes = [line.split(":")[0] for line in lines[6:] if not line.startswith(" ")]
    assert codes == [  # every rule but validation found its own (schema-invalid needs a schema)
        "never-run",
        "stdout-at-import",
        "call-error",
        "example-invalid",
        "schema-ref",
        "rest-lost",
        "untyped-parameter",
        "name-rejected",
        "name-rejected",
        "missing-description",
        "missing-description",
        "schema-ref",
        "missing-description",
    ]


def test_validation_is_reported_as_run_when_it_was(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", DEMO, "--json", "--host", "generic", "--no-config"]) == 0
    assert json.loads(capsys.readouterr().out)["schema_validation"] == {"run": True}


def test_the_option_comes_before_the_variable(tmp_path: Path) -> None:
    other = tmp_path / "other"
    for revision in REVISIONS:
        (other / revision).mkdir(parents=True)
        (other / revision / "schema.json").write_text(json.dumps({"title": revision}))
    environ = {"PLAINMCP_MCP_SCHEMAS": str(other)}
    assert find_schemas(["2025-06-18"], environ=environ) == {"2025-06-18": {"title": "2025-06-18"}}
    assert find_schemas(REVISIONS, schemas_dir(), environ=environ) == official()


def test_an_unreadable_folder_names_the_file_and_the_layout(tmp_path: Path) -> None:
    (tmp_path / "2024-11-05").mkdir()
    (tmp_path / "2024-11-05" / "schema.json").write_text("{not json")
    with pytest.raises(SchemasUnavailable) as bad:
        find_schemas(REVISIONS, tmp_path)
    assert str(bad.value) == (
        f"--schemas {tmp_path}: {tmp_path / '2024-11-05' / 'schema.json'} is not JSON (Expecting"
        " property name enclosed in double quotes: line 1 column 2 (char 1))"
    )
    environ = {"PLAINMCP_MCP_SCHEMAS": str(tmp_path / "nowhere")}
    with pytest.raises(SchemasUnavailable) as missing:
        find_schemas(REVISIONS, environ=environ)
    assert str(missing.value) == (
        f"$PLAINMCP_MCP_SCHEMAS {tmp_path / 'nowhere'}:"
        f" {tmp_path / 'nowhere' / '2024-11-05' / 'schema.json'}: No such file or directory;"
        " the folder must hold <revision>/schema.json for each MCP revision (the schema/ folder"
        " of a checkout of github.com/modelcontextprotocol/modelcontextprotocol)"
    )
