"""A pool of records to label under an FDR constraint: :class:`PoolProblem`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits._validation import (
    check_array,
    check_interval,
)
from safebandits.exceptions import ConfigError
from safebandits.problems.declare.base import (
    Problem,
    SimulatedProblem,
    _owner_fail,
)
from safebandits.types import FloatArray

__all__ = ["PoolProblem"]


@dataclass(frozen=True, kw_only=True)
class PoolProblem(Problem):
    """Records to label under a false-discovery-rate level ``q`` (Algorithm 2 of Camilleri et al. 2022).

    Parameters
    ----------
    features : array-like of shape (n, d)
        One row per record (numeric). Use :meth:`from_frame` for a pandas data frame.
    q : float in (0, 1)
        FDR level.
    feature_names : sequence of str, optional
    """

    setting = "pool"

    features: Any
    q: float
    feature_names: Sequence[str] = ()

    def __post_init__(self) -> None:
        owner = "PoolProblem"
        x = check_array(self.features, "features", ndim=2, min_rows=2, owner=owner)
        object.__setattr__(self, "features", x)
        check_interval(self.q, "q", low=0.0, high=1.0, owner=owner)
        names = tuple(str(n) for n in self.feature_names)
        if names and len(names) != x.shape[1]:
            raise _owner_fail(owner, "feature_names", f"{x.shape[1]} names", list(names))
        object.__setattr__(self, "feature_names", names)

    @classmethod
    def from_frame(
        cls,
        frame: Any,
        *,
        q: float,
        features: Sequence[str] | None = None,
        label: str | None = None,
        standardize: bool = True,
    ) -> PoolProblem | tuple[PoolProblem, FloatArray]:
        """A pool from a pandas data frame: numeric columns as they are, others one-hot encoded.

        Parameters
        ----------
        frame : pandas.DataFrame
        q : float
        features : sequence of str, optional
            Columns to use (default: every column but ``label``).
        label : str, optional
            A 0/1 column: then ``(problem, labels)`` is returned, ``labels`` for simulation only.
        standardize : bool, default True
            Scale numeric columns to zero mean and unit variance.
        """
        import pandas as pd

        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"PoolProblem.from_frame expects a pandas DataFrame, got {type(frame).__name__}.")
        cols = list(features) if features is not None else [c for c in frame.columns if c != label]
        missing = [c for c in [*cols, *([label] if label else [])] if c not in frame.columns]
        if missing:
            raise ConfigError(f"PoolProblem.from_frame: column(s) {missing} are not in the frame.")
        x = frame[cols]
        num = x.select_dtypes("number")
        if standardize and not num.empty:
            sd = num.std(ddof=0).replace(0.0, 1.0)
            num = (num - num.mean()) / sd
        cat = x.drop(columns=num.columns)
        parts = [num] + ([pd.get_dummies(cat.astype(str), dtype=float)] if not cat.empty else [])
        table = pd.concat(parts, axis=1)
        problem = cls(
            features=table.to_numpy(dtype=float), q=q, feature_names=[str(c) for c in table.columns]
        )
        if label is None:
            return problem
        y = frame[label].to_numpy()
        if not np.isin(y, (0, 1)).all():
            raise ConfigError(f"PoolProblem.from_frame: the label column {label!r} must hold 0/1 values.")
        return problem, y.astype(float)

    @property
    def kinds(self) -> tuple[str, ...]:
        return ("pool",)

    def _horizon(self, horizon: int | None) -> int:
        return 1

    def _view(self, kind: str, horizon: int) -> Any:
        from safebandits.classification.problem import PoolInfo

        return PoolInfo(features=self.features, q=float(self.q))

    def simulate(self, *, eta: Any, name: str = "declared") -> SimulatedProblem:
        """The truth: ``P(Y = 1 | x)`` per record (0/1 labels for a labelled data set)."""
        return SimulatedProblem(problem=self, truth={"eta": eta}, name=name)

    def _instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        from safebandits.classification.data import Pool
        from safebandits.classification.problem import PoolInstance

        n = self.features.shape[0]
        eta = check_array(truth.get("eta"), "eta", shape=(n,), owner="PoolProblem.simulate")
        if np.any(eta < 0) or np.any(eta > 1):
            raise ConfigError("PoolProblem.simulate: eta must lie in [0, 1].")
        names = self.feature_names or tuple(f"x{i}" for i in range(self.features.shape[1]))
        return PoolInstance(pool=Pool(self.features, eta, names, name), q=float(self.q))
