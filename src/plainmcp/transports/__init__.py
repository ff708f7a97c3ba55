"""Transports move bytes; everything else is in Server and wire/."""
