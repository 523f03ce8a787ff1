"""Cheaper calls of numba kernels from Python hot loops.

A numba dispatcher resolves the type of every argument on each call (about 2 µs for a kernel with
twenty array arguments). Learners call the same kernel with the same argument types millions of
times, so :func:`bind_kernel` compiles once for those types and returns the compiled entry point,
which skips the dispatch. If numba's internals differ, it falls back to the dispatcher.

Resolving the types of a typed state (a NamedTuple of twenty arrays) with ``numba.typeof`` itself costs
a few milliseconds, which every new learner paid again (issue 19: the fixed cost of a short run). The
entry points are therefore cached per kernel under a cheap *type key* of the arguments
(:func:`type_key`): everything ``numba.typeof`` reads to type them (the class of every value; an
array's dtype, number of dimensions, layout, writability and alignment; a tuple's items), so two
argument tuples with the same key get the same numba signature. Values of a kind the key does not
cover are typed by ``numba.typeof`` every time (no cache).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np

__all__ = ["bind_kernel", "type_key"]

#: (kernel, type key) -> compiled entry point.
_BOUND: dict[tuple[Any, Any], Callable[..., Any]] = {}


class _Uncovered(Exception):
    """A value whose numba type :func:`type_key` does not derive."""


def _key(value: Any) -> Any:
    cls = type(value)
    if cls is np.ndarray:
        flags = value.flags
        layout = "C" if flags.c_contiguous else ("F" if flags.f_contiguous else "A")
        dtype = value.dtype
        return (dtype, dtype.isalignedstruct, value.ndim, layout, flags.writeable, flags.aligned)
    if cls is float or cls is bool or value is None:
        return cls
    if cls is int and -(2**63) <= value < 2**63:  # (int64; numba types a larger int otherwise)
        return int
    if isinstance(value, tuple):  # plain tuples and NamedTuples: the class and the items
        return (cls, *(_key(v) for v in value))
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return cls
    raise _Uncovered


def type_key(args: tuple[Any, ...]) -> Any:
    """A hashable key equal for two argument tuples that numba types alike (``None`` if not derivable)."""
    try:
        return tuple(_key(a) for a in args)
    except _Uncovered:
        return None


def bind_kernel(kernel: Any, example_args: tuple[Any, ...]) -> Callable[..., Any]:
    """Return a callable equivalent to ``kernel`` for arguments of the types of ``example_args``."""
    key = type_key(example_args)
    if key is not None:
        hit = _BOUND.get((kernel, key))
        if hit is not None:
            return hit
    try:
        sig = tuple(numba.typeof(a) for a in example_args)
        kernel.compile(sig)
        entry = kernel.overloads[sig].entry_point
    except Exception:  # pragma: no cover - depends on numba internals
        return kernel
    if key is not None:
        _BOUND[(kernel, key)] = entry
    return entry
