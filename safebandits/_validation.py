"""Validation helpers with one message template (scikit-learn's shape).

"The 'delta' parameter of ACOLConfig must be a float in (0, 1). Got 1.5 instead."
"""

from __future__ import annotations

import dataclasses
import math
import sys
import types
import typing
from collections.abc import Iterable
from functools import cache
from typing import Any, Literal, Union

import numpy as np

from safebandits._limits import (
    MAX_BUDGET,
    MAX_EXPIRE_SECONDS,
    MAX_KERNEL_POINTS,
    MAX_OPEN,
    MAX_REPLICATES,
    MAX_SEED,
    MAX_WORKERS,
)
from safebandits.exceptions import ConfigError

__all__ = [
    "MAX_BUDGET",
    "MAX_EXPIRE_SECONDS",
    "MAX_KERNEL_POINTS",
    "MAX_OPEN",
    "MAX_REPLICATES",
    "MAX_SEED",
    "MAX_WORKERS",
    "check_array",
    "check_choice",
    "check_int",
    "check_interval",
    "check_literal_fields",
    "check_positive",
    "literal_choices",
    "ragged_row",
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


def check_choice(value: Any, name: str, choices: Iterable[Any] | Any, *, owner: str = "") -> Any:
    """Check that ``value`` is one of ``choices``: an iterable, or a ``Literal[...]`` alias.

    Passing the alias that annotates the parameter (``check_choice(x, "rule", Rule)`` for
    ``rule: Rule``) keeps its annotation the single source of the allowed values.
    """
    if type(choices) is tuple:  # (already the values)
        options: tuple[Any, ...] | None = choices
    else:
        options = _literal_args_cached(choices)
        if options is None:
            options = tuple(choices)
    if value not in options:
        raise _fail(name, owner, f"one of {', '.join(map(repr, options))}", value)
    return value


def _literal_args_cached(tp: Any) -> tuple[Any, ...] | None:
    """:func:`_literal_args` of an annotation, computed once per annotation object (by identity: hashing
    a ``Literal`` hashes its values, which costs more than the check)."""
    hit = _LITERAL_CACHE.get(id(tp))
    if hit is not None and hit[0] is tp:
        return hit[1]
    out = _literal_args(tp)
    if out is not None:  # (an annotation: kept alive by the cache, so its id is not reused)
        if len(_LITERAL_CACHE) >= 1024:  # (annotations made anew at each call: keep the cache bounded)
            _LITERAL_CACHE.clear()
        _LITERAL_CACHE[id(tp)] = (tp, out)
    return out


_LITERAL_CACHE: dict[int, tuple[Any, tuple[Any, ...]]] = {}


def _literal_args(tp: Any) -> tuple[Any, ...] | None:
    """The allowed values of a ``Literal`` annotation (``None`` added for ``Optional``), else ``None``.

    Handles ``Literal[...]``, ``Literal[...] | None``, ``Optional[Literal[...]]`` and unions of
    literals; any other member of a union (``str | Literal["a"]``) means "not a pure choice": ``None``.
    """
    if typing.get_origin(tp) is Literal:
        return tuple(typing.get_args(tp))
    if typing.get_origin(tp) in (Union, types.UnionType):
        values: list[Any] = []
        for member in typing.get_args(tp):
            if member is type(None):
                values.append(None)
                continue
            sub = _literal_args(member)
            if sub is None:
                return None
            values.extend(sub)
        return tuple(dict.fromkeys(values)) if any(v is not None for v in values) else None
    return None


def _field_hints(cls: type) -> dict[str, Any]:
    """Resolved annotations of the fields of ``cls`` (string annotations evaluated one by one).

    ``typing.get_type_hints`` fails as a whole when one annotation names something imported only
    under ``TYPE_CHECKING``; then each field is resolved alone and the unresolvable ones are skipped
    (they cannot be a ``Literal`` the module can evaluate).
    """
    try:
        return typing.get_type_hints(cls)
    except Exception:
        pass
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        module = sys.modules.get(klass.__module__)
        namespace = {"Literal": Literal, "Optional": typing.Optional, "Union": Union}
        namespace.update(vars(module) if module is not None else {})
        for name, ann in vars(klass).get("__annotations__", {}).items():
            if isinstance(ann, str):
                try:
                    ann = eval(ann, namespace, dict(vars(klass)))
                except Exception:
                    hints.pop(name, None)
                    continue
            hints[name] = ann
    return hints


@cache
def literal_choices(cls: type) -> types.MappingProxyType[str, tuple[Any, ...]]:
    """``{field name: allowed values}`` for every ``Literal``-annotated dataclass field of ``cls``.

    The single source of the allowed values of a choice option is its annotation; this reads it
    (cached per class) so a ``__post_init__`` never restates the tuple.
    """
    hints = _field_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) else list(hints)
    out: dict[str, tuple[Any, ...]] = {}
    for name in names:
        if name in hints:
            choices = _literal_args(hints[name])
            if choices is not None:
                out[name] = choices
    return types.MappingProxyType(out)  # read-only: the cached value is shared


def check_literal_fields(obj: Any, *, owner: str | None = None) -> None:
    """Check every ``Literal``-annotated field of the dataclass ``obj`` against its annotation.

    Raises the usual :class:`ConfigError` ("The 'width' parameter of GACOLConfig must be one of
    'theory', 'tuned'. Got 'x' instead.") for the first field (in field order) whose value is not
    one of the allowed values. ``owner`` defaults to the class name.
    """
    cls = type(obj)
    for name, choices in literal_choices(cls).items():
        value = getattr(obj, name)
        if value not in choices:
            name_of_owner = cls.__name__ if owner is None else owner
            raise _fail(name, name_of_owner, f"one of {', '.join(map(repr, choices))}", value)


def _not_a_number(value: Any, depth: int = 0) -> Any | None:
    """The first string or boolean inside ``value`` (nested lists, tuples, object arrays), else None."""
    if isinstance(value, (bool, np.bool_, str, bytes)):
        return value
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "bUSV":
            return value.flat[0] if value.size else value.dtype
        if value.dtype.kind == "O" and depth < 64:
            return next((b for v in value.flat if (b := _not_a_number(v, depth + 1)) is not None), None)
        return None
    if isinstance(value, (list, tuple)) and depth < 64:
        return next((b for v in value if (b := _not_a_number(v, depth + 1)) is not None), None)
    return None


def ragged_row(value: Any, depth: int = 0) -> str | None:
    """Where nested lists of ``value`` are not rectangular, in words (``"row 3 has 2 values, row 0 has
    3"``, ``"row 2 is a number, row 0 a list"``), else ``None``. Rows are counted from 0."""
    if not isinstance(value, (list, tuple)) or not value or depth > 8:
        return None
    lists = [isinstance(r, (list, tuple, np.ndarray)) for r in value]
    if any(lists) and not all(lists):
        i = lists.index(not lists[0])
        kinds = ("a number", "a list")
        return f"row {i} is {kinds[lists[i]]}, row 0 {kinds[lists[0]]}"
    if not lists[0]:
        return None
    n0 = len(value[0])
    for i, row in enumerate(value):
        if len(row) != n0:
            return f"row {i} has {len(row)} value{'s' if len(row) != 1 else ''}, row 0 has {n0}"
    for i, row in enumerate(value):
        inner = ragged_row(list(row), depth + 1)
        if inner is not None:
            return f"in row {i}: {inner}"
    return None


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

    ``shape`` entries of ``None`` match any length. Returns a new C-contiguous array. For a numeric
    ``dtype`` strings and booleans are refused, never converted (``"0.5"`` is not a number, ``true`` is
    not 1.0), wherever they sit in nested lists.
    """
    if np.dtype(dtype).kind in "iufc":
        bad = _not_a_number(value)
        if bad is not None:
            raise _fail(name, owner, "an array of numbers (not strings or booleans)", bad)
    ragged = ragged_row(value)
    if ragged is not None:
        where = f" of {owner}" if owner else ""
        raise ConfigError(f"The {name!r} parameter{where} must be rows of one length: {ragged}.")
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
    if finite and arr.dtype.kind in "iufc" and not np.isfinite(arr).all():  # (kinds of np.number)
        raise _fail(name, owner, "an array of finite values (no NaN or inf)", "an array with NaN/inf")
    return arr
