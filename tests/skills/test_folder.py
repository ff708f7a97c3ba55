"""plainmcp.skills.folder: skills loaded from disk (nested folders and nested skills, prefixes,
limits refused at load, links that leave the folder refused) and read back only as loaded."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from plainmcp.skills.folder import load, mime_type
from plainmcp.skills.frontmatter import SkillError


def skill_md(name: str, description: str = "Does things") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n"


def tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(content)
    return root


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def test_every_folder_with_a_skill_md_is_a_skill_with_every_file_beneath(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {
            "pdf/SKILL.md": skill_md("pdf"),
            "pdf/templates/regional/eu.md": "EU\n",
            "pdf/scripts/run.py": "print(1)\n",
            "pdf/forms/SKILL.md": skill_md("forms"),
            "acme/billing/refunds/SKILL.md": skill_md("refunds"),
            "acme/billing/refunds/.hidden": "x",
            "acme/billing/refunds/__pycache__/a.pyc": b"\x00",
            "README.txt": "not in any skill",
        },
    )
    skills = load(tmp_path)
    assert [(s.uri, [f.uri for f in s.files]) for s in skills] == [
        ("skill://acme/billing/refunds/SKILL.md", ["skill://acme/billing/refunds/SKILL.md"]),
        (
            "skill://pdf/SKILL.md",
            [
                "skill://pdf/SKILL.md",
                "skill://pdf/forms/SKILL.md",
                "skill://pdf/scripts/run.py",
                "skill://pdf/templates/regional/eu.md",
            ],
        ),
        ("skill://pdf/forms/SKILL.md", ["skill://pdf/forms/SKILL.md"]),
    ]
    pdf = skills[1]
    data = (tmp_path / "pdf" / "SKILL.md").read_bytes()
    assert pdf.entry() == {
        "uri": "skill://pdf/SKILL.md",
        "frontmatter": {"name": "pdf", "description": "Does things"},
        "resources": [
            {"uri": f.uri, "digest": sha(f.read()), "size": len(f.read())} for f in pdf.files
        ],
    }
    assert pdf.entry()["resources"][0] == {
        "uri": "skill://pdf/SKILL.md",
        "digest": sha(data),
        "size": len(data),
    }


def test_a_prefix_and_a_folder_that_is_itself_a_skill(tmp_path: Path) -> None:
    home = tree(
        tmp_path / "notes", {"SKILL.md": skill_md("notes"), "inner/SKILL.md": skill_md("inner")}
    )
    assert [s.uri for s in load(home, ("team", "docs"))] == [
        "skill://team/docs/notes/SKILL.md",
        "skill://team/docs/notes/inner/SKILL.md",
    ]


def test_names_outside_the_unreserved_characters_are_percent_encoded(tmp_path: Path) -> None:
    tree(tmp_path, {"demo/SKILL.md": skill_md("demo"), "demo/my notes:1.md": "x"})
    [skill] = load(tmp_path)
    assert [f.uri for f in skill.files] == [
        "skill://demo/SKILL.md",
        "skill://demo/my%20notes%3A1.md",
    ]
    assert skill.files[1].path == ("my notes:1.md",)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {"Demo/SKILL.md": skill_md("demo")},
            "Demo: the frontmatter names the skill 'demo', not 'Demo'",
        ),
        (
            {"demo/SKILL.md": skill_md("other")},
            "demo: the frontmatter names the skill 'other', not 'demo'",
        ),
        (
            {"demo/SKILL.md": "# no frontmatter\n"},
            "demo: SKILL.md must begin with YAML frontmatter between --- lines",
        ),
        ({"demo/SKILL.md": b"---\nname: demo\xff\n---\n"}, "demo: SKILL.md is not UTF-8 text"),
        (
            {"demo/SKILL.md": "---\nname: demo\n---\n"},
            "demo: description must be a non-empty string",
        ),
    ],
)
def test_a_bad_skill_md_is_refused_naming_the_skill(
    tmp_path: Path, files: dict[str, str | bytes], message: str
) -> None:
    tree(tmp_path, files)
    with pytest.raises(SkillError) as refused:
        load(tmp_path)
    assert str(refused.value) == message


def test_a_folder_without_skills_or_no_folder_is_refused(tmp_path: Path) -> None:
    tree(tmp_path, {"notes.md": "x"})
    with pytest.raises(SkillError) as refused:
        load(tmp_path)
    assert (
        str(refused.value)
        == f"{tmp_path}: no skills found (a skill is a folder holding a SKILL.md)"
    )
    with pytest.raises(SkillError) as missing:
        load(tmp_path / "nope")
    assert str(missing.value) == f"{tmp_path / 'nope'}: not a folder"


def test_over_512_files_is_refused_before_reading(tmp_path: Path) -> None:
    tree(tmp_path, {"big/SKILL.md": skill_md("big"), **{f"big/f{i}.txt": "" for i in range(512)}})
    with pytest.raises(SkillError) as refused:
        load(tmp_path)
    assert str(refused.value) == "big: 513 files, over the 512 a skill may have"


def test_512_files_and_16_mib_exactly_are_served(tmp_path: Path) -> None:
    md = skill_md("big").encode()
    tree(tmp_path, {"big/SKILL.md": md, **{f"big/f{i:03}.txt": "" for i in range(510)}})
    with open(tmp_path / "big" / "blob.bin", "wb") as blob:
        blob.truncate(16 * 1024 * 1024 - len(md))
    [skill] = load(tmp_path)
    assert (len(skill.files), sum(f.size for f in skill.files)) == (512, 16 * 1024 * 1024)


def test_over_16_mib_is_refused(tmp_path: Path) -> None:
    md = skill_md("big").encode()
    tree(tmp_path, {"big/SKILL.md": md})
    with open(tmp_path / "big" / "blob.bin", "wb") as blob:
        blob.truncate(16 * 1024 * 1024 - len(md) + 1)
    with pytest.raises(SkillError) as refused:
        load(tmp_path)
    assert str(refused.value) == "big: 16777217 bytes of files, over the 16777216 (16 MiB) allowed"


def test_a_link_out_of_the_folder_is_refused_and_one_inside_is_served(tmp_path: Path) -> None:
    outside = tree(tmp_path / "outside", {"secret.txt": "secret"})
    root = tree(tmp_path / "skills", {"demo/SKILL.md": skill_md("demo"), "shared.md": "shared\n"})
    (root / "demo" / "shared.md").symlink_to(root / "shared.md")
    [skill] = load(root)
    assert [(f.uri, f.read()) for f in skill.files[1:]] == [("skill://demo/shared.md", b"shared\n")]
    (root / "demo" / "leak.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(SkillError) as refused:
        load(root)
    resolved = (outside / "secret.txt").resolve()
    assert (
        str(refused.value)
        == f"{root.resolve()}: demo/leak.txt links outside the folder, to {resolved}"
    )
    (root / "demo" / "leak.txt").unlink()
    (root / "demo" / "up").symlink_to(root)
    with pytest.raises(SkillError) as looped:
        load(root)
    assert (
        str(looped.value)
        == f"{root.resolve()}: demo/up links to a folder; skills hold real folders"
    )


def test_a_read_serves_only_the_loaded_bytes(tmp_path: Path) -> None:
    tree(tmp_path, {"demo/SKILL.md": skill_md("demo"), "demo/ref/a.md": "A\n"})
    [skill] = load(tmp_path)
    ref = skill.files[1]
    assert ref.read() == b"A\n"
    (tmp_path / "demo" / "ref" / "a.md").write_text("B\n")
    with pytest.raises(SkillError) as changed:
        ref.read()
    assert str(changed.value) == (
        "demo/ref/a.md changed on disk after the server loaded it; the server serves only the"
        " bytes its skills/list entry names (restart it to serve the new ones)"
    )
    (tmp_path / "demo" / "ref" / "a.md").unlink()
    with pytest.raises(FileNotFoundError):
        ref.read()


def test_a_folder_swapped_for_a_link_out_is_never_read(tmp_path: Path) -> None:
    root = tree(tmp_path / "skills", {"demo/SKILL.md": skill_md("demo"), "demo/ref/a.md": "A\n"})
    tree(tmp_path / "elsewhere", {"a.md": "A\n"})  # the very same bytes
    [skill] = load(root)
    os.rename(root / "demo" / "ref", tmp_path / "moved")
    (root / "demo" / "ref").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(SkillError) as refused:
        skill.files[1].read()
    assert str(refused.value) == "demo/ref/a.md is no longer inside the skills folder"


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("SKILL.md", b"# x", "text/markdown"),
        ("notes.MARKDOWN", b"x", "text/markdown"),
        ("data.json", b"{}", "application/json"),
        ("logo.png", b"\x89PNG\r\n\x1a\n", "image/png"),
        ("noext", b"\x89PNG\r\n\x1a\n", "image/png"),
        ("noext", b"plain words", "text/plain"),
        ("noext", b"\x00\x80\x81", "application/octet-stream"),
    ],
)
def test_mime_types(name: str, data: bytes, expected: str) -> None:
    assert mime_type(name, data) == expected
