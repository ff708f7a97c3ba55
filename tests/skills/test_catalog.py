"""plainmcp.skills.catalog: the skills of one server by URI, in pages of whole entries, and
their folders as directory resources; what cannot be served side by side is refused."""

from __future__ import annotations

import pytest

from plainmcp.skills.catalog import Catalog
from plainmcp.skills.defined import define
from plainmcp.skills.frontmatter import SkillError


def catalog() -> Catalog:
    made = Catalog()
    made.add(
        [
            define("a", description="d", body="", files={"x/y.md": "y", "z.txt": "z"}),
            define("b", description="d", body="", prefix=("org",)),
        ]
    )
    return made


def test_skills_are_found_by_the_uri_of_their_skill_md_and_paged_whole() -> None:
    made = catalog()
    assert sorted(made.by_uri) == ["skill://a/SKILL.md", "skill://org/b/SKILL.md"]
    first, cursor = made.page(None, 1)
    assert [s.uri for s in first] == ["skill://a/SKILL.md"]
    rest, end = made.page(cursor, 1)
    assert ([s.uri for s in rest], end) == (["skill://org/b/SKILL.md"], None)


def test_every_folder_above_a_file_is_a_directory_with_its_children_in_order() -> None:
    made = catalog()
    assert made.folders == {
        "skill://a": ["skill://a/SKILL.md", "skill://a/x", "skill://a/z.txt"],
        "skill://a/x": ["skill://a/x/y.md"],
        "skill://org": ["skill://org/b"],
        "skill://org/b": ["skill://org/b/SKILL.md"],
    }
    page, cursor = made.children("skill://a", None, 2)
    assert page == [
        {"uri": "skill://a/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown", "size": 31},
        {"uri": "skill://a/x", "name": "x", "mimeType": "inode/directory"},
    ]
    assert made.children("skill://a", cursor, 2) == (
        [{"uri": "skill://a/z.txt", "name": "z.txt", "mimeType": "text/plain", "size": 1}],
        None,
    )
    with pytest.raises(KeyError):
        made.children("skill://a/z.txt", None, 2)


def test_adding_returns_only_the_files_not_served_before_and_is_all_or_nothing() -> None:
    made = catalog()
    fresh = made.add([define("c", description="d", body="")])
    assert [f.uri for f in fresh] == ["skill://c/SKILL.md"]
    with pytest.raises(SkillError) as twice:
        made.add([define("e", description="d", body=""), define("c", description="d", body="")])
    assert str(twice.value) == "two skills are served at skill://c/SKILL.md"
    assert "skill://e/SKILL.md" not in made.by_uri
    assert "skill://e" not in made.folders


def test_a_skill_inside_another_that_is_not_one_of_its_files_is_refused() -> None:
    made = catalog()
    with pytest.raises(SkillError) as inside:
        made.add([define("x", description="d", body="", prefix=("a",))])
    assert (
        str(inside.value)
        == "skill://a/x/SKILL.md is inside the skill skill://a/SKILL.md but not one of its files"
    )
