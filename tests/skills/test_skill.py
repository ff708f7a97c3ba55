"""plainmcp.skills.skill: digests, URIs by segment and the checks every skill passes."""

from __future__ import annotations

import pytest

from plainmcp.skills.frontmatter import SkillError
from plainmcp.skills.skill import SkillFile, digest, file_uri, make, segments


def test_a_digest_is_sha256_in_lowercase_hex() -> None:
    assert digest(b"") == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_uris_encode_every_segment_but_the_unreserved_characters() -> None:
    assert (
        file_uri(("acme", "refunds"), ("a b", "c:d?.md"))
        == "skill://acme/refunds/a%20b/c%3Ad%3F.md"
    )
    assert file_uri(("x",), ("A-Z_0.9~",)) == "skill://x/A-Z_0.9~"


@pytest.mark.parametrize("path", ["", "a//b", "./a", "a/..", "a\\b", "a\x00"])
def test_a_path_is_named_segments_only(path: str) -> None:
    with pytest.raises(SkillError) as refused:
        segments(path, "where")
    assert str(refused.value) == f"where: {path!r} is not a relative path of named segments"


def file(*path: str) -> SkillFile:
    return SkillFile(path, file_uri(("demo",), path), digest(b""), 0, "text/plain", lambda: b"")


def test_the_skill_md_comes_first_then_the_files_by_path() -> None:
    made = make(
        ("demo",),
        {"name": "demo", "description": "d"},
        [file("b"), file("SKILL.md"), file("a", "z")],
    )
    assert [f.path for f in made.files] == [("SKILL.md",), ("a", "z"), ("b",)]
    assert (made.name, made.uri, made.root) == ("demo", "skill://demo/SKILL.md", "skill://demo")


def test_a_skill_without_skill_md_is_refused() -> None:
    with pytest.raises(SkillError) as refused:
        make(("demo",), {"name": "demo", "description": "d"}, [file("a")])
    assert str(refused.value) == "demo: a skill needs a SKILL.md at its root"
