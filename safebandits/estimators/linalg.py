"""Small dense linear algebra shared by estimators and learners."""

from __future__ import annotations

from typing import Any

import numpy as np

from safebandits.types import FloatArray

__all__ = ["smallest_eigenvalue"]

try:  # numpy's own gufunc behind numpy.linalg.eigvalsh (a private name: the public function is the fallback)
    from numpy.linalg._umath_linalg import eigvalsh_lo as _EIGVALSH_LO
except ImportError:  # pragma: no cover - depends on numpy's internals
    _EIGVALSH_LO: Any = None


def smallest_eigenvalue(a: FloatArray) -> float:
    """``numpy.linalg.eigvalsh(a)[0]`` of a symmetric matrix (its lower triangle), bit for bit.

    A float64 matrix goes straight to the LAPACK routine that :func:`numpy.linalg.eigvalsh` calls,
    without that function's argument handling, which is most of its cost on a small matrix called once
    in a while (Safe-LUCB's diagnostics at the end of every run: about 15 us of a 0.2 ms run in a loop
    of short runs, issue 19). One difference: where LAPACK does not converge the public function raises
    ``LinAlgError``, this returns NaN. Anything else (another dtype, a stack of matrices, a numpy without
    that routine) goes through :func:`numpy.linalg.eigvalsh`.
    """
    if _EIGVALSH_LO is None or type(a) is not np.ndarray or a.dtype != np.float64 or a.ndim != 2:
        return float(np.linalg.eigvalsh(a)[0])
    return float(_EIGVALSH_LO(a, signature="d->d")[0])
