"""Skills (SEP-2640): folders of SKILL.md and skills defined in Python, served as `skills/list`,
`skills/get`, `resources/directory/read` and `skill://` resources (docs/skills.md)."""

from plainmcp.skills.extension import Skills
from plainmcp.skills.frontmatter import SkillError
from plainmcp.skills.skill import Skill, SkillFile

__all__ = ["Skill", "SkillError", "SkillFile", "Skills"]
