"""Exception hierarchy of safebandits.

Every error raised at the public boundary derives from :class:`SafeBanditsError`.
Invalid arguments raise :class:`ConfigError`, a :class:`ValueError`, so callers that
catch ``ValueError`` keep working.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "InfeasibleInstanceError",
    "ProtocolError",
    "SafeBanditsError",
]


class SafeBanditsError(Exception):
    """Base class of every safebandits error."""


class ConfigError(SafeBanditsError, ValueError):
    """An argument, a config field or an input array is invalid."""


class InfeasibleInstanceError(ConfigError):
    """A problem instance has no feasible arm, so its constrained optimum is undefined."""


class ProtocolError(SafeBanditsError, RuntimeError):
    """The ask / tell protocol was misused (e.g. ``tell`` without a pending ``ask``)."""
