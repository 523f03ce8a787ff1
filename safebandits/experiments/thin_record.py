"""The thin record of a regret run (issue 44): fewer curve points and curves, so that large sweeps can be
archived.

A regret run's ``curve`` trace holds ten curves at the 200 points of its log grid at full precision (about
13 kB of JSON a run): 60,000 runs of the conservative paper experiments made a 1.3 GB store. An experiment
that declares ``record={"paper": "thin"}`` (:class:`~safebandits.experiments.spec.ExperimentSpec`) stores,
at that scale:

* the curves :data:`THIN_CURVES` only (``t``, ``regret``, ``conservative_margin``; ``policy_regret`` too
  when it is not the same curve as ``regret``: a run safe in expectation), at :data:`THIN_POINTS`
  checkpoints chosen among the run's own log-grid points (evenly spaced in grid index, so log-spaced in
  the round; the first and the last always kept): the values of the full record at those rounds;
* each value rounded to :data:`THIN_DIGITS` significant digits (the figures' precision);
* the ``conservative`` trace without its ``curve`` (the same margin curve as the ``curve`` trace's).

The run's columns are not thinned: the claims read them at full precision (``regret``,
``conservative_violations``, ``conservative_first_violation``, ``conservative_min_margin``, the final
``conservative_margin``). The record form enters the run's config (``record = "thin"``) only when thin,
so the keys of full-record runs are those they always were.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["RECORDS", "THIN_CURVES", "THIN_DIGITS", "THIN_POINTS", "thin_curves", "thin_traces"]

#: The record forms: ``"full"`` (every curve at every grid point) and ``"thin"``.
RECORDS = ("full", "thin")
#: Checkpoints of a thin curve.
THIN_POINTS = 40
#: Significant digits of a thin curve's values.
THIN_DIGITS = 6
#: The curves a thin record keeps (``policy_regret`` only when it differs from ``regret``).
THIN_CURVES = ("t", "regret", "policy_regret", "conservative_margin")


def _checkpoints(n: int, points: int) -> np.ndarray:
    """``min(n, points)`` grid indices, evenly spaced in index from the first to the last."""
    if n <= points:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, points).round().astype(np.int64))


def _round(values: Any, digits: int) -> list[Any]:
    arr = np.asarray(values, dtype=np.float64)
    return [float(f"{v:.{digits}g}") if np.isfinite(v) else float(v) for v in arr.reshape(-1)]


def thin_curves(
    curves: Mapping[str, Any], *, points: int = THIN_POINTS, digits: int = THIN_DIGITS
) -> dict[str, list[Any]]:
    """The thin form of a run's log-grid curves (module docstring): ``t`` (ints) and the kept curves at
    ``points`` checkpoints of the grid, the values rounded to ``digits`` significant digits. A curve that
    is not one value per grid point (a per-constraint curve) is dropped."""
    t = np.asarray(curves.get("t", ()), dtype=np.int64).reshape(-1)
    idx = _checkpoints(t.size, points)
    out: dict[str, list[Any]] = {"t": t[idx].tolist()}
    same = (
        "policy_regret" in curves
        and "regret" in curves
        and np.array_equal(
            np.asarray(curves["policy_regret"], dtype=np.float64),
            np.asarray(curves["regret"], dtype=np.float64),
        )
    )
    for name in THIN_CURVES[1:]:
        if name not in curves or (name == "policy_regret" and same):
            continue
        values = np.asarray(curves[name], dtype=np.float64)
        if values.ndim != 1 or values.size != t.size:
            continue
        out[name] = _round(values[idx], digits)
    return out


def thin_traces(traces: dict[str, Any]) -> dict[str, Any]:
    """``traces`` (a regret run's, JSON-ready) with a thin ``curve`` and the ``conservative`` trace without
    its curve; the other traces unchanged."""
    out = dict(traces)
    if isinstance(out.get("curve"), Mapping):
        out["curve"] = thin_curves(out["curve"])
    if isinstance(out.get("conservative"), Mapping):
        out["conservative"] = {k: v for k, v in out["conservative"].items() if k != "curve"}
    return out
