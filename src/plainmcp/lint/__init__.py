"""Lint rules of `plainmcp check`, sans I/O."""
