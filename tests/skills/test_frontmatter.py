"""plainmcp.skills.frontmatter: SKILL.md frontmatter read as a YAML 1.2 host reads it, checked
against the Agent Skills rules, and written so that it parses back to exactly what was given."""

from __future__ import annotations

import pytest

from plainmcp.skills.frontmatter import SkillError, check, parse, split, write


def fm(yaml: str) -> str:
    return f"---\n{yaml}\n---\nbody\n"


def test_the_block_is_found_after_a_bom_and_the_body_follows_it() -> None:
    assert split("\ufeff---\r\nname: a\r\n---  \r\n# Body\n") == ("name: a", "# Body\n")
    assert split("---\nname: a\n---") == ("name: a", "")
    assert split("# no frontmatter\n---\nname: a\n---\n") is None


def test_only_yaml_1_2_core_types_are_implicit() -> None:
    text = fm(
        "name: demo\ndescription: d\nanswer: yes\nswitch: on\nday: 2024-01-01\ndecimal: 017\n"
        "octal: 0o17\nhex: 0x1F\nratio: 1.5\nbig: 1e3\ntilde: ~\nempty:\nflag: True\n"
        "quoted: '1'\nlist: [1, two]\nnested: {a: 1}\n<<: merge"
    )
    assert parse(text, "demo") == {
        "name": "demo",
        "description": "d",
        "answer": "yes",
        "switch": "on",
        "day": "2024-01-01",
        "decimal": 17,
        "octal": 15,
        "hex": 31,
        "ratio": 1.5,
        "big": 1000.0,
        "tilde": None,
        "empty": None,
        "flag": True,
        "quoted": "1",
        "list": [1, "two"],
        "nested": {"a": 1},
        "<<": "merge",
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# Title\n", "demo: SKILL.md must begin with YAML frontmatter between --- lines"),
        (fm("- a\n- b"), "demo: the frontmatter must be a mapping of fields"),
        (fm("name: a\nname: b"), "demo: the frontmatter has the key 'name' twice (line 2)"),
        (fm("1: a"), "demo: the frontmatter has a key that is not a string on line 1: 1"),
        (fm("x: .inf"), "demo: the frontmatter has a value JSON cannot carry on line 1"),
        (fm("x: .nan"), "demo: the frontmatter has a value JSON cannot carry on line 1"),
        (fm("x: !!binary aGk="), "demo: the frontmatter has a value JSON cannot carry on line 1"),
    ],
)
def test_what_json_cannot_carry_is_refused_with_its_place(text: str, message: str) -> None:
    with pytest.raises(SkillError) as refused:
        parse(text, "demo")
    assert str(refused.value) == message


def test_invalid_yaml_is_refused() -> None:
    with pytest.raises(SkillError) as refused:
        parse(fm("x: [unclosed"), "demo")
    assert str(refused.value).startswith("demo: the frontmatter is not valid YAML: ")


@pytest.mark.parametrize(
    ("frontmatter", "message"),
    [
        (
            {"description": "d"},
            "s: name must be 1-64 lowercase letters, digits and hyphens (no hyphen first, last"
            " or twice in a row), not None",
        ),
        *(
            (
                {"name": bad, "description": "d"},
                "s: name must be 1-64 lowercase letters, digits and hyphens (no hyphen first,"
                f" last or twice in a row), not {bad!r}",
            )
            for bad in ("Demo", "-demo", "demo-", "de--mo", "a" * 65, "de mo", "", 7)
        ),
        ({"name": "demo"}, "s: description must be a non-empty string"),
        ({"name": "demo", "description": "  "}, "s: description must be a non-empty string"),
        (
            {"name": "demo", "description": "x" * 1025},
            "s: description has 1025 characters, over 1024",
        ),
        (
            {"name": "demo", "description": "d", "metadata": {"io.modelcontextprotocol/a": 1}},
            "s: metadata keys under 'io.modelcontextprotocol/' are reserved for MCP extensions:"
            " io.modelcontextprotocol/a",
        ),
    ],
)
def test_name_description_and_metadata_follow_the_rules(
    frontmatter: dict[str, object], message: str
) -> None:
    with pytest.raises(SkillError) as refused:
        check(frontmatter, "s")
    assert str(refused.value) == message


def test_names_at_the_edges_of_the_rules_pass() -> None:
    for name in ("a", "a1", "pdf-processing", "x" * 64, "0-9"):
        check({"name": name, "description": "d" * 1024}, "s")


def test_written_frontmatter_is_plain_where_it_can_be_and_parses_back() -> None:
    given = {
        "name": "demo",
        "description": "Say hello: politely",
        "license": "MIT",
        "answer": "yes",
        "count": 3,
        "metadata": {"version": "1.0"},
        "tags": ["a", "b"],
    }
    text = write(given, "# Body\n", "demo")
    assert text == (
        '---\nname: demo\ndescription: "Say hello: politely"\nlicense: MIT\nanswer: "yes"\n'
        'count: 3\nmetadata: {"version": "1.0"}\ntags: ["a", "b"]\n---\n\n# Body\n'
    )
    assert parse(text, "demo") == given
    assert write({"name": "demo"}, "", "demo") == "---\nname: demo\n---\n"


@pytest.mark.parametrize(
    ("frontmatter", "message"),
    [
        ({"name": "demo", "bad key": 1}, "demo: frontmatter key 'bad key' is not a plain name"),
        ({"name": "demo", "x": float("nan")}, "demo: frontmatter value nan is not JSON: "),
        ({"name": "demo", "x": {1, 2}}, "demo: frontmatter value {1, 2} is not JSON: "),
    ],
)
def test_what_cannot_be_written_is_refused(frontmatter: dict[str, object], message: str) -> None:
    with pytest.raises(SkillError) as refused:
        write(frontmatter, "", "demo")
    assert str(refused.value).startswith(message)
