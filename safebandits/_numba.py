"""Cheaper calls of numba kernels from Python hot loops.

A numba dispatcher resolves the type of every argument on each call (about 2 µs for a kernel with
twenty array arguments). Learners call the same kernel with the same argument types millions of
times, so :func:`bind_kernel` compiles once for those types and returns the compiled entry point,
which skips the dispatch. If numba's internals differ, it falls back to the dispatcher.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba

__all__ = ["bind_kernel"]


def bind_kernel(kernel: Any, example_args: tuple[Any, ...]) -> Callable[..., Any]:
    """Return a callable equivalent to ``kernel`` for arguments of the types of ``example_args``."""
    try:
        sig = tuple(numba.typeof(a) for a in example_args)
        kernel.compile(sig)
        return kernel.overloads[sig].entry_point
    except Exception:  # pragma: no cover - depends on numba internals
        return kernel
