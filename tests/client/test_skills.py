"""client/skills.py: skill entries read strictly, and each check a file read must pass (size,
digest, frontmatter as plainmcp.skills reads YAML, listed), refused with its exact message."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
from typing import Any

import pytest

from plainmcp.client import McpError, SkillFileInfo, SkillInfo, SkillVerificationError
from plainmcp.client.skills import listed, parse_skill, raw_bytes, same, verify, verify_skill_md

URI = "skill://acme/refunds/SKILL.md"
SKILL_MD = "---\nname: refunds\ndescription: Refund a customer\nlicense: MIT\n---\n\nBody.\n"
FM = {"name": "refunds", "description": "Refund a customer", "license": "MIT"}


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def entry(text: str = SKILL_MD, frontmatter: dict[str, Any] | None = None) -> SkillInfo:
    data = text.encode()
    return parse_skill(
        {
            "uri": URI,
            "frontmatter": FM if frontmatter is None else frontmatter,
            "resources": [
                {"uri": URI, "digest": digest(data), "size": len(data)},
                {"uri": "skill://acme/refunds/a.md", "digest": digest(b"A"), "size": 1},
            ],
        }
    )


def test_an_entry_is_read_into_its_files_and_a_dynamic_one_keeps_the_word() -> None:
    info = entry()
    assert info == SkillInfo(
        URI,
        FM,
        (
            SkillFileInfo(URI, digest(SKILL_MD.encode()), len(SKILL_MD.encode())),
            SkillFileInfo("skill://acme/refunds/a.md", digest(b"A"), 1),
        ),
    )
    assert (info.name, info.description, info.root) == (
        "refunds",
        "Refund a customer",
        "skill://acme/refunds",
    )
    assert info.file("a.md") == info.file("skill://acme/refunds/a.md")
    dynamic = parse_skill({"uri": URI, "frontmatter": FM, "resources": "dynamic"})
    assert dynamic.resources == "dynamic"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], "a skill entry must be an object"),
        ({"uri": "skill://a/README.md"}, "a skill's uri must be the URI of its SKILL.md, not"),
        ({"uri": URI, "frontmatter": {"name": "refunds"}}, "frontmatter must be an object with"),
        ({"uri": URI, "frontmatter": FM}, "resources must be an array or 'dynamic', not None"),
        (
            {"uri": URI, "frontmatter": FM, "resources": [{"uri": "skill://other/x.md"}]},
            "resource 'skill://other/x.md' is not a file of the skill",
        ),
        (
            {"uri": URI, "frontmatter": FM, "resources": [{"uri": URI, "digest": "md5:00"}]},
            f"{URI} has digest 'md5:00', not sha256:<64 hex>",
        ),
        (
            {
                "uri": URI,
                "frontmatter": FM,
                "resources": [{"uri": URI, "digest": digest(b""), "size": True}],
            },
            f"{URI} has size True, not a byte count",
        ),
    ],
)
def test_an_entry_a_client_must_not_load_is_a_bad_reply(value: object, message: str) -> None:
    with pytest.raises(McpError) as caught:
        parse_skill(value)
    assert caught.value.message.startswith("Invalid response from server: ")
    assert message in caught.value.message


def test_the_size_is_checked_before_the_digest_and_each_names_both_values() -> None:
    record = SkillFileInfo("skill://acme/refunds/a.md", digest(b"A"), 1)
    verify(record, b"A")
    with pytest.raises(SkillVerificationError) as size:
        verify(record, b"AB")
    assert (str(size.value), size.value.check, size.value.uri) == (
        "skill://acme/refunds/a.md: read 2 bytes, the entry says 1",
        "size",
        "skill://acme/refunds/a.md",
    )
    with pytest.raises(SkillVerificationError) as wrong:
        verify(record, b"B")
    assert (str(wrong.value), wrong.value.check) == (
        f"skill://acme/refunds/a.md: read content of {digest(b'B')}, the entry says {digest(b'A')}",
        "digest",
    )


def test_a_skill_md_is_verified_then_split_into_frontmatter_and_body() -> None:
    loaded = verify_skill_md(entry(), SKILL_MD.encode())
    assert (loaded.text, loaded.frontmatter, loaded.body) == (SKILL_MD, FM, "\nBody.\n")


@pytest.mark.parametrize(
    ("frontmatter", "message"),
    [
        (
            {**FM, "description": "Exfiltrate credentials"},
            "frontmatter 'description' is 'Refund a customer', the entry says"
            " 'Exfiltrate credentials'",
        ),
        ({**FM, "version": "1"}, "frontmatter has no 'version', the entry has one"),
        ({"name": "refunds", "description": "Refund a customer"}, "frontmatter has 'license',"),
        ({**FM, "license": True}, "frontmatter 'license' is 'MIT', the entry says True"),
    ],
)
def test_a_frontmatter_differing_in_any_field_is_refused(
    frontmatter: dict[str, Any], message: str
) -> None:
    with pytest.raises(SkillVerificationError) as caught:
        verify_skill_md(entry(frontmatter=frontmatter), SKILL_MD.encode())
    assert caught.value.check == "frontmatter"
    assert str(caught.value).startswith(f"{URI}: {message}")


def test_yaml_reads_as_json_hosts_do_yaml_1_1_words_and_dates_stay_strings() -> None:
    text = (
        "---\nname: refunds\ndescription: Refund a customer\nlicense: MIT\nmetadata:\n"
        "  since: 2024-01-01\n  beta: yes\n  on: off\n  ratio: 1.0\n  retries: 0x10\n"
        "  strict: true\n  tags: [a, b]\n  owner: ~\n---\n"
    )
    fm = {
        **FM,
        "metadata": {
            "since": "2024-01-01",
            "beta": "yes",
            "on": "off",
            "ratio": 1,
            "retries": 16,
            "strict": True,
            "tags": ["a", "b"],
            "owner": None,
        },
    }
    assert verify_skill_md(entry(text, fm), text.encode()).frontmatter == fm


def test_json_equality_does_not_take_true_for_1() -> None:
    assert same(1, 1.0) and same({"a": [1]}, {"a": [1.0]})
    assert not same(True, 1) and not same([1], [1, 2]) and not same({"a": 1}, {"b": 1})
    assert not same("1", 1) and not same(None, False)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no frontmatter\n", "SKILL.md must begin with YAML frontmatter between --- lines"),
        ("---\n- a\n---\n", "the frontmatter must be a mapping of fields"),
        ("---\nname: [\n---\n", "the frontmatter is not valid YAML: while parsing a flow node"),
        ("---\nname: a\nname: b\n---\n", "the frontmatter has the key 'name' twice (line 2)"),
    ],
)
def test_a_skill_md_without_a_readable_frontmatter_is_refused(text: str, message: str) -> None:
    with pytest.raises(SkillVerificationError) as caught:
        verify_skill_md(entry(text), text.encode())
    assert caught.value.check == "frontmatter"
    assert str(caught.value).startswith(f"{URI}: {message}")


def test_a_file_the_entry_does_not_list_is_refused_and_a_dynamic_skill_keeps_to_its_root() -> None:
    with pytest.raises(SkillVerificationError) as caught:
        listed(entry(), "skill://acme/refunds/b.md")
    assert (str(caught.value), caught.value.check) == (
        f"skill://acme/refunds/b.md: is not listed in the entry of {URI}",
        "unlisted",
    )
    dynamic = parse_skill({"uri": URI, "frontmatter": FM, "resources": "dynamic"})
    assert listed(dynamic, "skill://acme/refunds/b.md") is None
    with pytest.raises(SkillVerificationError, match="is not a file of the skill"):
        listed(dynamic, "skill://acme/refundsX/b.md")


def test_the_bytes_of_a_read_are_its_text_as_utf8_or_its_blob() -> None:
    assert raw_bytes({"contents": [{"uri": URI, "text": "é"}]}, URI) == "é".encode()
    blob = base64.b64encode(b"\x00\xff").decode()
    assert raw_bytes({"contents": [{"uri": URI, "blob": blob}]}, URI) == b"\x00\xff"
    for result in ({"contents": []}, {"contents": [{"uri": URI, "blob": None}]}):
        with pytest.raises(McpError, match=f"resources/read of {URI} returned"):
            raw_bytes(result, URI)


def test_importing_the_client_does_not_import_yaml() -> None:
    code = "import sys, plainmcp, plainmcp.client; print('yaml' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "False\n")
