"""One validation of study names, query ids and answer values, applied before any backend sees them.

SQLite would store almost anything (a name of 10,000 characters, a NUL byte, an integer of 2**70 as
text); PostgreSQL refuses some of it with raw driver errors. Checking here first gives every backend the
same rules, so a study can move between backends.
"""

from __future__ import annotations

import math
import unicodedata
from typing import Any

import numpy as np

from safebandits.exceptions import ConfigError

__all__ = ["MAX_NAME_LENGTH", "MAX_QUERY_ID", "check_number_tree", "check_query_id", "check_study_name"]

#: Longest study name (the ``name`` column is ``VARCHAR(255)``).
MAX_NAME_LENGTH = 255
#: Largest query id (a signed 64-bit integer in every backend).
MAX_QUERY_ID = 2**63 - 1
#: Deepest nesting of lists accepted in an answer (a batch answer needs 2).
MAX_DEPTH = 8


#: Characters a new study name may not hold: a path separator cannot be one segment of a URL (the
#: dashboard's links), and a backslash is one on some systems.
NAME_FORBIDDEN = "/\\"


def check_study_name(name: Any, new: bool = False) -> str:
    """Return ``name`` if it is a valid study name, else raise :class:`ConfigError`.

    A study name is a string of 1 to 255 characters, without surrounding whitespace, control characters
    (NUL, newline, ...) or unpaired surrogates. A ``new`` name (creating a study) also holds no ``/`` or
    ``\\`` and is not ``.`` or ``..`` (a browser rewrites those URL segments), so every study opens in
    the dashboard; studies stored earlier under such names still load.
    """
    if not isinstance(name, str):
        raise ConfigError(f"A study name must be a string; got {type(name).__name__} {name!r:.60}.")
    if not name or not name.strip():
        raise ConfigError(f"A study name must be a non-empty string; got {name!r}.")
    if len(name) > MAX_NAME_LENGTH:
        raise ConfigError(
            f"A study name has at most {MAX_NAME_LENGTH} characters; got {len(name)} ({name[:40]!r}...)."
        )
    if name != name.strip():
        raise ConfigError(f"A study name must not start or end with whitespace; got {name!r}.")
    bad = [c for c in name if unicodedata.category(c) in ("Cc", "Cs", "Cn", "Co")]
    if bad:
        raise ConfigError(
            f"A study name must not hold control, unassigned or surrogate characters ({bad[0]!r}); "
            f"got {name!r:.80}."
        )
    if new and (any(c in NAME_FORBIDDEN for c in name) or name in (".", "..")):
        raise ConfigError(
            f"A study name must not hold '/' or '\\' nor be '.' or '..' (it is one segment of the "
            f"dashboard's links); got {name!r:.80}."
        )
    return name


def check_query_id(value: Any) -> int:
    """Return ``value`` as a query id (an integer in ``[0, 2**63 - 1]``), else raise :class:`ConfigError`.

    Strings of digits are accepted (ids typed in a shell); booleans, floats and other strings are not.
    """
    if isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"A query id is a non-negative integer; got {value!r}.")
    if isinstance(value, (int, np.integer)):
        qid = int(value)
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        qid = int(value.strip())
    else:
        raise ConfigError(f"A query id is a non-negative integer; got {value!r:.60}.")
    if not 0 <= qid <= MAX_QUERY_ID:
        raise ConfigError(f"A query id is a non-negative integer at most 2**63 - 1; got {qid:.6g}.")
    return qid


def check_number_tree(value: Any, what: str, depth: int = 0) -> None:
    """Check that ``value`` is a number or (nested) lists of numbers: never a string or a boolean.

    ``"0.1"`` and ``true`` are refused (a string is never silently a number), as are lists nested deeper
    than :data:`MAX_DEPTH`.
    """
    if depth > MAX_DEPTH:
        raise ConfigError(f"The {what} are nested more than {MAX_DEPTH} lists deep.")
    if isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"The {what} must be numbers, not booleans; got {value!r}.")
    if isinstance(value, (int, np.integer)):
        if abs(int(value)) > 2**1023:
            raise ConfigError(f"The {what} must be finite numbers; got an integer of {abs(int(value)):.3g}.")
        return
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(float(value)):
            raise ConfigError(f"The {what} must be finite (no NaN or infinity); got {value!r}.")
        return
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "iuf":
            raise ConfigError(f"The {what} must be numbers; got an array of {value.dtype}.")
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            check_number_tree(item, what, depth + 1)
        return
    raise ConfigError(f"The {what} must be numbers; got {type(value).__name__} {value!r:.60}.")
