"""plainmcp: plain Python functions in, exact MCP out."""
