"""Streamable HTTP: the ASGI app (`app.py`) and the rules it follows (sans-I/O modules)."""

from __future__ import annotations

from plainmcp.transports.http.app import HttpApp
from plainmcp.transports.http.security import BearerAuth, OriginPolicy, Principal

__all__ = ["BearerAuth", "HttpApp", "OriginPolicy", "Principal"]
