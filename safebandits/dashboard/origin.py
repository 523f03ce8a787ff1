"""Same-origin checks shared by the dashboard's pages and its JSON API."""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["same_origin"]


def same_origin(value: str, host_header: str) -> bool:
    """Whether ``value`` (an ``Origin`` or ``Referer`` header) names this server (its ``Host`` header)."""
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host_header.lower()
