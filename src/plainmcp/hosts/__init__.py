"""What each known MCP client hands its model from a tool result (profiles/), and how the
renderer adapts a result to it (adapt.py). Tool code never sees the host."""

from plainmcp.hosts.profiles import GENERIC, PROFILES, Cell, HostProfile, profile_for

__all__ = ["GENERIC", "PROFILES", "Cell", "HostProfile", "profile_for"]
