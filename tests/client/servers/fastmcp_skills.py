"""A FastMCP server of the skills under a folder (its SkillsDirectoryProvider, SEP-2640):
`python fastmcp_skills.py FOLDER`, over stdio. FastMCP offers skills at 2026-07-28 only."""

from __future__ import annotations

import sys

from fastmcp import FastMCP
from fastmcp.skills.provider import SkillsDirectoryProvider

server = FastMCP("fastmcp-skills", version="4.0.0")
server.add_provider(SkillsDirectoryProvider(sys.argv[1]))

if __name__ == "__main__":
    server.run(transport="stdio", show_banner=False)
