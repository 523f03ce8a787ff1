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
    "StorageError",
]


class SafeBanditsError(Exception):
    """Base class of every safebandits error."""


class ConfigError(SafeBanditsError, ValueError):
    """An argument, a config field or an input array is invalid."""


class InfeasibleInstanceError(ConfigError):
    """A problem instance has no feasible arm, so its constrained optimum is undefined."""


class ProtocolError(SafeBanditsError, RuntimeError):
    """The ask / tell protocol was misused (e.g. ``tell`` without a pending ``ask``)."""


class StorageError(SafeBanditsError):
    """A database could not be read or written (disk full, busy, I/O error, server unreachable): not a
    problem of the input. The command line exits with status 1 for these (status 2 is refused input)."""

    exit_code = 1
