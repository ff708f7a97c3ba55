"""Content blocks: built from paths and bytes, checked at build time, rendered for each revision."""

from __future__ import annotations

import base64
import io
import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import matplotlib
import orjson
import pytest
from matplotlib.figure import Figure
from PIL import Image as PILImage

from plainmcp import (
    Annotations,
    Audio,
    ContentError,
    EmbeddedResource,
    File,
    Icon,
    Image,
    ResourceLink,
    Text,
)
from plainmcp.model.blocks import content_uri
from plainmcp.wire import render
from plainmcp.wire.revisions import REVISIONS
from tests.mcp_schemas import validate_definition
from tests.test_mime import (
    SVG,
    flac_bytes,
    gif_bytes,
    jpeg_bytes,
    mp3_frame_bytes,
    mp3_id3_bytes,
    ogg_bytes,
    pdf_bytes,
    png_bytes,
    wav_bytes,
    webp_bytes,
)

matplotlib.use("Agg")

PNG = png_bytes()
WAV = wav_bytes()


def wire(block: Any, revision: str = "2025-11-25") -> dict[str, Any]:
    """The block as a client of `revision` receives it, checked against that revision's schema."""
    out: dict[str, Any] = json.loads(orjson.dumps(render.block(block, REVISIONS[revision])))
    validate_definition(out, revision, "ContentBlock" if revision >= "2025-06-18" else _old(block))
    return out


def _old(block: Any) -> str:
    return {
        "text": "TextContent",
        "image": "ImageContent",
        "audio": "AudioContent",
        "resource": "EmbeddedResource",
    }[block.kind]


# --- Image and Audio from bytes and from paths ----------------------------------------------


@pytest.mark.parametrize(
    ("data", "mime_type"),
    [
        (PNG, "image/png"),
        (jpeg_bytes(), "image/jpeg"),
        (gif_bytes(), "image/gif"),
        (webp_bytes(), "image/webp"),
        (SVG, "image/svg+xml"),
    ],
    ids=["png", "jpeg", "gif", "webp", "svg"],
)
def test_image_from_bytes(data: bytes, mime_type: str) -> None:
    image = Image(data)
    assert (image.data, image.mime_type) == (data, mime_type)
    assert wire(image) == {
        "type": "image",
        "data": base64.b64encode(data).decode(),
        "mimeType": mime_type,
    }


@pytest.mark.parametrize(
    ("data", "mime_type"),
    [
        (WAV, "audio/wav"),
        (mp3_id3_bytes(), "audio/mpeg"),
        (mp3_frame_bytes(), "audio/mpeg"),
        (ogg_bytes(), "audio/ogg"),
        (flac_bytes(), "audio/flac"),
    ],
    ids=["wav", "mp3-id3", "mp3-frame", "ogg", "flac"],
)
def test_audio_from_bytes(data: bytes, mime_type: str) -> None:
    audio = Audio(data)
    assert audio.mime_type == mime_type
    assert wire(audio) == {
        "type": "audio",
        "data": base64.b64encode(data).decode(),
        "mimeType": mime_type,
    }


def test_image_and_audio_from_path(tmp_path: Path) -> None:
    (tmp_path / "chart.png").write_bytes(PNG)
    (tmp_path / "clip.wav").write_bytes(WAV)
    image = Image(path=tmp_path / "chart.png")
    audio = Audio(path=str(tmp_path / "clip.wav"))
    assert (image.data, image.mime_type) == (PNG, "image/png")
    assert (audio.data, audio.mime_type) == (WAV, "audio/wav")
    assert wire(image)["data"] == base64.b64encode(PNG).decode()


def test_the_bytes_win_over_the_file_name(tmp_path: Path) -> None:
    """A PNG saved as .jpg is sent as image/png: the magic number is the truth."""
    (tmp_path / "photo.jpg").write_bytes(PNG)
    assert Image(path=tmp_path / "photo.jpg").mime_type == "image/png"


def test_file_name_is_the_fallback_when_bytes_say_nothing(tmp_path: Path) -> None:
    (tmp_path / "pic.bmp").write_bytes(b"\x00\x01\x02")
    assert Image(path=tmp_path / "pic.bmp").mime_type == "image/bmp"


def test_given_mime_type_and_aliases() -> None:
    assert Image(PNG, mime_type="IMAGE/PNG").mime_type == "image/png"
    assert Image(jpeg_bytes(), mime_type="image/jpg").mime_type == "image/jpg"
    assert Audio(WAV, mime_type="audio/x-wav").mime_type == "audio/x-wav"
    # Bytes with no magic number are taken at the caller's word.
    assert Image(b"raw pixels", mime_type="image/x-custom").mime_type == "image/x-custom"


def test_image_from_base64() -> None:
    encoded = base64.b64encode(PNG).decode()
    image = Image.from_base64(encoded)
    assert (image.data, image.mime_type) == (PNG, "image/png")
    assert image.base64 == encoded
    # Line-wrapped base64, as MIME and many APIs send it, decodes too.
    wrapped = "\n".join(encoded[i : i + 20] for i in range(0, len(encoded), 20))
    assert Image.from_base64(wrapped).data == PNG
    assert Audio.from_base64(base64.b64encode(WAV).decode()).mime_type == "audio/wav"


def test_image_from_a_pil_image_or_a_matplotlib_figure() -> None:
    image = Image(PILImage.new("RGB", (2, 1), "blue"), annotations=Annotations(priority=0.5))
    assert image.mime_type == "image/png"
    assert image.annotations == Annotations(priority=0.5)
    with PILImage.open(io.BytesIO(image.data)) as back:
        assert (back.format, back.size, back.getpixel((1, 0))) == ("PNG", (2, 1), (0, 0, 255))
    fig = Figure(figsize=(1, 1), dpi=30)
    fig.subplots().bar(["a", "b"], [1, 2])
    for source in (fig, fig.axes[0]):
        drawn = Image(data=source)
        assert drawn.mime_type == "image/png"
        with PILImage.open(io.BytesIO(drawn.data)) as back:
            assert (back.format, back.size) == ("PNG", (30, 30))


class Unsaveable:
    mode = "RGB"
    size = (1, 1)

    def save(self, fp: Any, format: str | None = None) -> None:
        raise OSError("disk full")


Unsaveable.__module__ = "PIL.Image"


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Image(WAV), "the data is audio/wav, not an image"),
        (lambda: Audio(PNG), "the data is image/png, not audio"),
        (lambda: Image(pdf_bytes()), "the data is application/pdf, not an image"),
        (
            lambda: Image(PNG, mime_type="image/jpeg"),
            "mime_type 'image/jpeg' does not match the data, which is image/png",
        ),
        (
            lambda: Image(PNG, mime_type="text/plain"),
            "Image needs an image/* MIME type, not 'text/plain'",
        ),
        (
            lambda: Audio(WAV, mime_type="image/png"),
            "Audio needs an audio/* MIME type, not 'image/png'",
        ),
        (
            lambda: Image(b"\x01\x02\x03"),
            "cannot tell the type of this image data (3 bytes); pass mime_type='image/...'",
        ),
        (
            lambda: Audio(b"\x01\x02"),
            "cannot tell the type of this audio data (2 bytes); pass mime_type='audio/...'",
        ),
        (lambda: Image(b""), "Image data is empty"),
        (lambda: Audio(b""), "Audio data is empty"),
        (lambda: Image(PNG, path="chart.png"), "give exactly one of data= or path="),
        (lambda: Image(), "give exactly one of data= or path="),
        (lambda: Image("iVBOR"), "data must be bytes; for base64 text use from_base64()"),  # type: ignore[arg-type]
        (lambda: Image(12), "data must be bytes, not int"),  # type: ignore[arg-type]
        (lambda: Image.from_base64("not base64!"), "not valid base64: "),
        (
            lambda: Image(Unsaveable()),
            "cannot draw this Unsaveable as a PNG: disk full",
        ),
        (
            lambda: Image(PILImage.new("L", (1, 1)), mime_type="image/jpeg"),
            "mime_type 'image/jpeg' does not match the data, which is image/png",
        ),
        (lambda: Audio(PILImage.new("L", (1, 1))), "data must be bytes, not Image"),  # type: ignore[arg-type]
    ],
    ids=[
        "image-from-wav",
        "audio-from-png",
        "image-from-pdf",
        "jpeg-claimed-on-png",
        "non-image-mime",
        "non-audio-mime",
        "unknown-image-bytes",
        "unknown-audio-bytes",
        "empty-image",
        "empty-audio",
        "data-and-path",
        "neither",
        "str-data",
        "int-data",
        "bad-base64",
        "image-object-that-fails-to-save",
        "image-object-claimed-jpeg",
        "audio-from-image-object",
    ],
)
def test_wrong_input_fails_at_build_time(build: Any, message: str) -> None:
    with pytest.raises(ContentError) as caught:
        build()
    assert str(caught.value).startswith(message)


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "gone.png"
    with pytest.raises(ContentError, match=f"cannot read {missing}: No such file or directory"):
        Image(path=missing)


def test_media_blocks_are_immutable_and_compare_by_value() -> None:
    image = Image(PNG)
    with pytest.raises(AttributeError):
        image.data = b""  # type: ignore[misc]
    assert image == Image(PNG)
    assert image != Image(gif_bytes())
    assert hash(image) == hash(Image(PNG))
    assert repr(image) == f"Image(<{len(PNG)} bytes>, mime_type='image/png')"


# --- Text, annotations, meta ----------------------------------------------------------------


def test_text() -> None:
    assert wire(Text("hello")) == {"type": "text", "text": "hello"}
    with pytest.raises(ContentError, match="Text needs a str, not int"):
        Text(5)  # type: ignore[arg-type]


def test_annotations_and_meta_on_each_revision() -> None:
    block = Text(
        "hi",
        annotations=Annotations(
            audience="user", priority=0.5, last_modified="2025-01-02T03:04:05Z"
        ),
        meta={"example.com/id": 7},
    )
    assert wire(block) == {
        "type": "text",
        "text": "hi",
        "annotations": {
            "audience": ["user"],
            "priority": 0.5,
            "lastModified": "2025-01-02T03:04:05Z",
        },
        "_meta": {"example.com/id": 7},
    }
    # 2025-03-26 knows neither lastModified nor block _meta.
    assert wire(block, "2025-03-26") == {
        "type": "text",
        "text": "hi",
        "annotations": {"audience": ["user"], "priority": 0.5},
    }


def test_annotations_values() -> None:
    assert Annotations(audience=["user", "assistant"]).audience == ("user", "assistant")
    assert Annotations(audience="assistant").audience == ("assistant",)
    assert Annotations(priority=0).priority == 0
    assert Annotations(priority=1).priority == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"priority": 1.5}, "priority must be a number between 0 and 1, not 1.5"),
        ({"priority": -0.1}, "priority must be a number between 0 and 1, not -0.1"),
        ({"priority": True}, "priority must be a number between 0 and 1, not True"),
        ({"priority": "high"}, "priority must be a number between 0 and 1, not 'high'"),
        ({"audience": "model"}, "audience must be 'user' or 'assistant', not 'model'"),
        ({"audience": ["user", "bot"]}, "audience must be 'user' or 'assistant', not 'bot'"),
    ],
)
def test_annotations_validation(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ContentError) as caught:
        Annotations(**kwargs)
    assert str(caught.value) == message


def test_last_modified_datetime_is_iso_with_offset() -> None:
    aware = datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2)))
    assert Annotations(last_modified=aware).last_modified == "2025-01-02T03:04:05+02:00"
    assert (
        Annotations(last_modified=datetime(2025, 1, 2, tzinfo=UTC)).last_modified
        == "2025-01-02T00:00:00+00:00"
    )
    naive = datetime(2025, 1, 2, 3, 4, 5)
    assert Annotations(last_modified=naive).last_modified == naive.astimezone().isoformat()


# --- File and EmbeddedResource --------------------------------------------------------------


def test_file_text_types_become_text_resources(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Notes\nünïcode\n", encoding="utf-8")
    resource = File(path=path)
    assert wire(resource) == {
        "type": "resource",
        "resource": {
            "uri": path.resolve().as_uri(),
            "mimeType": "text/markdown",
            "text": "# Notes\nünïcode\n",
        },
    }


def test_file_from_bytes_with_type_and_uri() -> None:
    resource = File(b'{"a": 1}', mime_type="application/json", uri="file:///data/a.json")
    assert wire(resource) == {
        "type": "resource",
        "resource": {
            "uri": "file:///data/a.json",
            "mimeType": "application/json",
            "text": '{"a": 1}',
        },
    }


def test_file_binary_types_become_blobs(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf_bytes())
    assert wire(File(path=path)) == {
        "type": "resource",
        "resource": {
            "uri": path.resolve().as_uri(),
            "mimeType": "application/pdf",
            "blob": base64.b64encode(pdf_bytes()).decode(),
        },
    }


def test_file_text_type_that_is_not_utf8_is_a_blob() -> None:
    raw = "café".encode("latin-1")
    resource = File(raw, mime_type="text/plain")
    assert (resource.text, resource.blob, resource.mime_type) == (None, raw, "text/plain")
    assert resource.uri == content_uri(raw)


def test_file_without_any_type_is_octet_stream() -> None:
    resource = File(b"\x00\x01")
    assert resource.mime_type == "application/octet-stream"
    assert resource.blob == b"\x00\x01"
    assert resource.uri.startswith("urn:plainmcp:sha256:")


def test_file_svg_is_text() -> None:
    resource = File(SVG)
    assert (resource.mime_type, resource.text) == ("image/svg+xml", SVG.decode())


def test_embedded_resource_validation() -> None:
    with pytest.raises(ContentError, match="exactly one of text= or blob="):
        EmbeddedResource(uri="file:///a")
    with pytest.raises(ContentError, match="exactly one of text= or blob="):
        EmbeddedResource(uri="file:///a", text="x", blob=b"x")
    with pytest.raises(ContentError, match="needs a uri"):
        EmbeddedResource(uri="", text="x")
    with pytest.raises(ContentError, match="blob must be bytes, not str"):
        EmbeddedResource(uri="file:///a", blob="eA==")  # type: ignore[arg-type]


def test_resource_meta_goes_on_the_contents() -> None:
    resource = EmbeddedResource(
        uri="file:///a.txt", text="a", meta={"block": 1}, resource_meta={"contents": 2}
    )
    assert wire(resource) == {
        "type": "resource",
        "resource": {"uri": "file:///a.txt", "text": "a", "_meta": {"contents": 2}},
        "_meta": {"block": 1},
    }


# --- ResourceLink ---------------------------------------------------------------------------


def test_resource_link_full() -> None:
    link = ResourceLink(
        uri="file:///srv/report.pdf",
        name="report.pdf",
        title="Q1 report",
        description="Sales by region",
        mime_type="application/pdf",
        size=1234,
        icons=(Icon(src="https://example.com/pdf.png", mime_type="image/png", sizes=("48x48",)),),
    )
    assert wire(link) == {
        "type": "resource_link",
        "uri": "file:///srv/report.pdf",
        "name": "report.pdf",
        "title": "Q1 report",
        "description": "Sales by region",
        "mimeType": "application/pdf",
        "size": 1234,
        "icons": [
            {"src": "https://example.com/pdf.png", "mimeType": "image/png", "sizes": ["48x48"]}
        ],
    }
    # 2025-06-18 has resource links but no icons on them.
    assert "icons" not in wire(link, "2025-06-18")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"uri": "", "name": "a"}, "ResourceLink needs a uri"),
        ({"uri": "file:///a", "name": ""}, "ResourceLink needs a name"),
        ({"uri": "file:///a", "name": "a", "size": -1}, "size must be a non-negative int, not -1"),
        (
            {"uri": "file:///a", "name": "a", "size": 1.5},
            "size must be a non-negative int, not 1.5",
        ),
    ],
)
def test_resource_link_validation(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ContentError) as caught:
        ResourceLink(**kwargs)
    assert str(caught.value) == message
