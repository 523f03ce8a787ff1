"""Exception hierarchy of safebandits.

Every error raised at the public boundary derives from :class:`SafeBanditsError`.
Invalid arguments raise :class:`ConfigError`, a :class:`ValueError`, so callers that
catch ``ValueError`` keep working.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CannotStartError",
    "ConfigError",
    "DefaultToleranceWarning",
    "Fix",
    "InfeasibleInstanceError",
    "ProtocolError",
    "SafeBanditsError",
    "StorageError",
    "TooLargeError",
]


class SafeBanditsError(Exception):
    """Base class of every safebandits error."""


class ConfigError(SafeBanditsError, ValueError):
    """An argument, a config field or an input array is invalid."""


#: Kinds of :class:`Fix`.
FIX_KINDS = ("option", "problem", "add_actions", "learner")


@dataclass(frozen=True, slots=True)
class Fix:
    """One change that would let a learner start on a problem (carried by :class:`CannotStartError`).

    Attributes
    ----------
    kind : {"option", "problem", "add_actions", "learner"}
        ``"option"``: set the learner option ``name`` to ``value``; ``"problem"``: set the problem's
        parameter ``name`` to ``value``; ``"add_actions"``: add the actions ``value`` (rows, in the
        coordinates of the problem information the learner was given); ``"learner"``: use the learner
        ``value`` instead.
    name : str
    value : Any
    text : str
        The change in the words and coordinates of the learner's problem information. A problem
        declaration restates it in its own coordinates
        (:func:`safebandits.algorithms.compatibility.start_check`).
    detail : str
        What the change is, without values in the learner's coordinates (for ``"add_actions"``: what the
        actions are), used when a declaration restates the fix.
    """

    kind: str
    name: str
    value: Any
    text: str
    detail: str = ""

    def __post_init__(self) -> None:
        if self.kind not in FIX_KINDS:
            raise ValueError(f"Fix kind must be one of {FIX_KINDS}; got {self.kind!r}.")


class CannotStartError(ConfigError):
    """A learner cannot start on the problem it was given; :attr:`fixes` are changes that would let it.

    The message states why and what to change; :attr:`reason` is the why alone.
    """

    def __init__(
        self, message: str, *, reason: str = "", fixes: Sequence[Fix] = (), notes: Sequence[str] = ()
    ) -> None:
        super().__init__(message)
        self.reason = reason or message
        self.fixes: tuple[Fix, ...] = tuple(fixes)
        self.notes: tuple[str, ...] = tuple(notes)

    @classmethod
    def build(
        cls, owner: str, reason: str, fixes: Sequence[Fix] = (), *, notes: Sequence[str] = ()
    ) -> CannotStartError:
        """``"{owner} cannot start: {reason}. Change one of: {fixes}; {notes}."``

        ``notes`` are changes only the user can judge (a smaller bound "if it is valid"): they are shown
        but, unlike the fixes, not applied by tools that try the fixes.
        """
        changes = [f.text for f in fixes] + list(notes)
        tail = f" Change one of: {'; '.join(changes)}." if changes else ""
        return cls(f"{owner} cannot start: {reason}.{tail}", reason=reason, fixes=fixes, notes=notes)


class TooLargeError(ConfigError):
    """A request is refused before anything is built: its estimated memory or work is above a limit
    (:mod:`safebandits._cost`). The command line exits with status 2, the JSON API answers 413.

    Attributes
    ----------
    limit : str
        The limit's name (its environment variable, e.g. ``"SAFEBANDITS_MAX_MEMORY"``).
    estimate, maximum : float
        The estimate and the limit's value (bytes or operations).
    """

    def __init__(self, message: str, *, limit: str = "", estimate: float = 0.0, maximum: float = 0.0):
        super().__init__(message)
        self.limit, self.estimate, self.maximum = limit, estimate, maximum

    def restate(self, message: str) -> TooLargeError:
        """The same refusal with another message (e.g. prefixed by the file it came from)."""
        return TooLargeError(message, limit=self.limit, estimate=self.estimate, maximum=self.maximum)


def restated(exc: ConfigError, message: str) -> ConfigError:
    """``exc`` with another message, a :class:`TooLargeError` kept as one (the API answers it 413)."""
    return exc.restate(message) if isinstance(exc, TooLargeError) else ConfigError(message)


class DefaultToleranceWarning(UserWarning):
    """A learner's guarantee is relaxed by a tolerance the user did not give (a documented default is
    used, e.g. a declared problem's ``epsilon``)."""


class InfeasibleInstanceError(ConfigError):
    """A problem instance has no feasible arm, so its constrained optimum is undefined."""


class ProtocolError(SafeBanditsError, RuntimeError):
    """The ask / tell protocol was misused (e.g. ``tell`` without a pending ``ask``)."""


class StorageError(SafeBanditsError):
    """A database could not be read or written (disk full, busy, I/O error, server unreachable): not a
    problem of the input. The command line exits with status 1 for these (status 2 is refused input)."""

    exit_code = 1


def user_stacklevel() -> int:
    """The ``stacklevel`` of :func:`warnings.warn` that names the first caller outside safebandits (so a
    warning points at the user's line, not at the library's internals), counted from the caller of this
    function."""
    import inspect
    import os

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame = inspect.currentframe()
    level = 1
    try:
        frame = frame.f_back if frame is not None else None  # (the function that warns: level 1)
        while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
            frame = frame.f_back
            level += 1
    finally:
        del frame
    return level
