"""The ids of the protocol's own extensions (SEP-2133: negotiated under
`capabilities.extensions`), written once for the server, the client, the CLI and the host
profiles."""

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""Tasks at 2026-07-28 (SEP-2663; modelcontextprotocol/ext-tasks)."""
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
"""Skills (SEP-2640; modelcontextprotocol/ext-skills)."""
