"""Packages discovered through entry points: the papers (group ``safebandits.papers``) and the packages
of learners (group ``safebandits.learners``, the built-in ones included).

One loader for every layer that needs them: the experiment engine (a paper's experiments and claims) and
the instance registry (a paper may register its instances in its own package, so ``make_instance`` of a
paper's instance works whichever of the two is asked first). Each entry point is imported once; a failure
is a :class:`~safebandits.exceptions.ConfigError` naming the entry point. A thread that asks while another
imports the group waits for it (as it would wait on an ``import``), so it never sees half a group.
"""

from __future__ import annotations

import threading
from importlib.metadata import entry_points

from safebandits.exceptions import ConfigError

__all__ = ["PAPERS_GROUP", "load_group"]

#: The entry-point group of paper packages.
PAPERS_GROUP = "safebandits.papers"

_DONE: set[str] = set()
_LOADING: set[str] = set()
_LOCKS: dict[str, threading.RLock] = {}  # (one per group: loading one group may load another)
_GUARD = threading.Lock()


def _lock(group: str) -> threading.RLock:
    with _GUARD:
        return _LOCKS.setdefault(group, threading.RLock())


def load_group(group: str = PAPERS_GROUP) -> None:
    """Import every package named in the entry-point ``group`` (once per process; a call made while the
    group is being imported, by one of its packages, returns at once; a call from another thread waits
    until the group is imported)."""
    if group in _DONE:
        return
    with _lock(group):  # (re-entrant: the thread that is importing the group passes, the others wait)
        if group in _DONE or group in _LOADING:
            return
        _LOADING.add(group)
        try:
            for ep in sorted(entry_points(group=group), key=lambda e: e.name):
                try:
                    ep.load()
                except Exception as exc:
                    what = "paper package" if group == PAPERS_GROUP else "package"
                    raise ConfigError(
                        f"The {what} {ep.name!r} (entry point {ep.value!r} of group {group!r}) failed to "
                        f"import: {type(exc).__name__}: {exc}"
                    ) from exc
            _DONE.add(group)
        finally:
            _LOADING.discard(group)
