"""plainmcp.skills.defined: skills defined in Python, their SKILL.md written from the fields
given and their files served from memory."""

from __future__ import annotations

import hashlib

import pytest

from plainmcp.skills.defined import define
from plainmcp.skills.frontmatter import SkillError, parse


def test_the_skill_md_is_the_frontmatter_then_the_body() -> None:
    skill = define(
        "release",
        description="Cut a release",
        body="# Release\n\nTag it.\n",
        files={"references/CHECKLIST.md": "- tests\n", "assets/icon.png": b"\x89PNG\r\n\x1a\n"},
        frontmatter={"license": "MIT", "metadata": {"owner": "ops"}},
        prefix=("team",),
    )
    text = (
        "---\nname: release\ndescription: Cut a release\nlicense: MIT\n"
        'metadata: {"owner": "ops"}\n---\n\n# Release\n\nTag it.\n'
    )
    assert skill.files[0].read() == text.encode()
    assert parse(text, "release") == skill.frontmatter
    assert [(f.uri, f.mime_type, f.size) for f in skill.files] == [
        ("skill://team/release/SKILL.md", "text/markdown", len(text)),
        ("skill://team/release/assets/icon.png", "image/png", 8),
        ("skill://team/release/references/CHECKLIST.md", "text/markdown", 8),
    ]
    assert skill.files[2].digest == "sha256:" + hashlib.sha256(b"- tests\n").hexdigest()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"name": "Bad Name"}, "Bad Name: name must be 1-64 lowercase letters, digits and hyphens"),
        ({"description": ""}, "demo: description must be a non-empty string"),
        ({"frontmatter": {"name": "x"}}, "demo: give name as its own argument, not in frontmatter"),
        ({"files": {"SKILL.md": "x"}}, "demo: SKILL.md is written from body=, not given in files"),
        ({"files": {"../escape.md": "x"}}, "demo: file: '../escape.md' is not a relative path"),
        ({"files": {"/etc/passwd": "x"}}, "demo: file: '/etc/passwd' is not a relative path"),
        ({"files": {"a\\b": "x"}}, "demo: file: 'a\\\\b' is not a relative path"),
        ({"files": {"a": "x", "a/b": "y"}}, "demo: 'a/b' is inside a file, not a folder"),
        ({"files": {"a": 3}}, "demo: file 'a' must be str or bytes"),
        ({"body": None}, "demo: body must be a str"),
    ],
)
def test_what_cannot_be_served_is_refused(arguments: dict[str, object], message: str) -> None:
    given: dict[str, object] = {"name": "demo", "description": "d", "body": "", **arguments}
    with pytest.raises(SkillError) as refused:
        define(**given)  # type: ignore[arg-type]
    assert str(refused.value).startswith(message)


def test_over_the_limits_is_refused() -> None:
    with pytest.raises(SkillError) as many:
        define("many", description="d", body="", files={f"f{i}": "" for i in range(512)})
    assert str(many.value) == "many: 513 files, over the 512 a skill may have (SEP-2640)"
    with pytest.raises(SkillError) as large:
        define("large", description="d", body="", files={"blob": bytes(16 * 1024 * 1024)})
    assert str(large.value).startswith("large: 16777")
    assert str(large.value).endswith(
        " bytes of files, over the 16777216 (16 MiB) a skill may have (SEP-2640)"
    )
