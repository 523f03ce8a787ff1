"""Validation helpers with one message template (scikit-learn's shape).

"The 'delta' parameter of ACOLConfig must be a float in (0, 1). Got 1.5 instead."
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from safebandits.exceptions import ConfigError

__all__ = [
    "check_array",
    "check_choice",
    "check_int",
    "check_interval",
    "check_positive",
]


def _fail(name: str, owner: str, expected: str, got: Any) -> ConfigError:
    where = f" of {owner}" if owner else ""
    return ConfigError(f"The {name!r} parameter{where} must be {expected}. Got {got!r} instead.")


def check_interval(
    value: Any,
    name: str,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    closed: str = "neither",
    owner: str = "",
) -> float:
    """Check that ``value`` is a finite real number in an interval and return it as a float.

    ``closed`` is one of "neither", "left", "right", "both".
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise _fail(name, owner, f"a real number in {_interval(low, high, closed)}", value)
    v = float(value)
    lo_ok = v >= low if closed in ("left", "both") else v > low
    hi_ok = v <= high if closed in ("right", "both") else v < high
    if math.isnan(v) or not (lo_ok and hi_ok):
        raise _fail(name, owner, f"a real number in {_interval(low, high, closed)}", value)
    return v


def _interval(low: float, high: float, closed: str) -> str:
    left = "[" if closed in ("left", "both") else "("
    right = "]" if closed in ("right", "both") else ")"
    return f"{left}{low:g}, {high:g}{right}"


def check_positive(value: Any, name: str, *, owner: str = "", allow_zero: bool = False) -> float:
    """Check a finite positive (or non-negative) real number."""
    return check_interval(value, name, low=0.0, closed="left" if allow_zero else "neither", owner=owner)


def check_int(
    value: Any, name: str, *, low: int | None = None, high: int | None = None, owner: str = ""
) -> int:
    """Check an integer in ``[low, high]`` (bounds optional) and return it as ``int``.

    Integral floats such as ``1e6`` (as parsed from ``--set T=1e6``) are accepted as integers.
    """
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise _fail(name, owner, f"an integer{_int_range(low, high)}", value)
    v = int(value)
    if (low is not None and v < low) or (high is not None and v > high):
        raise _fail(name, owner, f"an integer{_int_range(low, high)}", value)
    return v


def _int_range(low: int | None, high: int | None) -> str:
    if low is None and high is None:
        return ""
    if high is None:
        return f" >= {low}"
    if low is None:
        return f" <= {high}"
    return f" in [{low}, {high}]"


def check_choice(value: Any, name: str, choices: Iterable[Any], *, owner: str = "") -> Any:
    """Check that ``value`` is one of ``choices``."""
    options = tuple(choices)
    if value not in options:
        raise _fail(name, owner, f"one of {', '.join(map(repr, options))}", value)
    return value


def check_array(
    value: Any,
    name: str,
    *,
    ndim: int | None = None,
    shape: tuple[int | None, ...] | None = None,
    dtype: type = np.float64,
    finite: bool = True,
    min_rows: int = 0,
    owner: str = "",
) -> np.ndarray:
    """Convert to an ndarray and check its dimension, shape and finiteness.

    ``shape`` entries of ``None`` match any length. Returns a new C-contiguous array.
    """
    try:
        arr = np.array(value, dtype=dtype, copy=True, order="C")
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"The {name!r} parameter{' of ' + owner if owner else ''} must be convertible to an "
            f"array of {np.dtype(dtype).name}. Got {type(value).__name__} instead ({exc})."
        ) from None
    if ndim is not None and arr.ndim != ndim:
        raise _fail(name, owner, f"a {ndim}-dimensional array", f"array of shape {arr.shape}")
    if shape is not None:
        if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise _fail(name, owner, f"an array of shape {want}", f"array of shape {arr.shape}")
    if arr.ndim >= 1 and arr.shape[0] < min_rows:
        raise _fail(name, owner, f"an array with at least {min_rows} rows", f"array of shape {arr.shape}")
    if finite and np.issubdtype(arr.dtype, np.number) and not np.all(np.isfinite(arr)):
        raise _fail(name, owner, "an array of finite values (no NaN or inf)", "an array with NaN/inf")
    return arr
