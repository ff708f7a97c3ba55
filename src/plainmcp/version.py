"""The package version, in a module of its own: the client, telemetry and the CLI name it
without importing the package's face (plainmcp/__init__.py imports the Server)."""

__version__ = "0.1.0"
"""pyproject.toml reads it from here (hatch's version source)."""
