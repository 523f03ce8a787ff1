"""Classification pools: UCI Adult, UCI German Credit and a synthetic 2-D half circle.

A :class:`Pool` is the finite example set X of Camilleri et al. (2022, Sec. 5) with features and the
label probabilities ``eta(x) = P(Y = 1 | x)``; for the real data sets ``eta`` is the 0/1 label.

Preprocessing (both UCI sets; ``docs/decisions/beside.md``, "Active classification under an FDR
constraint"): categorical columns are one-hot encoded with a missing value (``?``) as its own
category, so no record is dropped; numeric columns are standardised over the pool (zero mean, unit
variance), heavy-tailed money columns after ``log1p``. Adult drops ``fnlwgt`` (a census sampling
weight, not an attribute of the person) and ``education`` (a duplicate of ``education-num``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from safebandits._validation import check_int, check_interval
from safebandits.datasets import find_dataset
from safebandits.types import FloatArray
from safebandits.uci_openml import ADULT_COLUMNS  # (the UCI file layout; re-exported here)

__all__ = ["Pool", "half_circle_pool", "load_adult", "load_german"]


@dataclass(frozen=True, slots=True)
class Pool:
    """A finite pool of examples with label probabilities.

    Attributes
    ----------
    features : ndarray of shape (n, d)
        Preprocessed features.
    eta : ndarray of shape (n,)
        ``P(Y = 1 | x)`` for each example (0/1 for real data).
    feature_names : tuple of str
    name : str
    """

    features: FloatArray
    eta: FloatArray
    feature_names: tuple[str, ...]
    name: str

    @property
    def n(self) -> int:
        return self.features.shape[0]


_GERMAN_COLUMNS = (
    "status",
    "duration",
    "credit_history",
    "purpose",
    "credit_amount",
    "savings",
    "present_employment",
    "installment_rate",
    "status_sex",
    "other_debtors",
    "present_residence_since",
    "property",
    "age",
    "installment_plans",
    "housing",
    "number_of_existing_credits",
    "job",
    "number_of_people_liable_for",
    "telephone",
    "foreign_worker",
    "credit",
)


def _encode(frame: pd.DataFrame, numeric: list[str], log: list[str], categorical: list[str]):
    """Standardised numerics (``log1p`` first for ``log``) and one-hot categoricals (missing: own level)."""
    blocks, names = [], []
    for col in numeric:
        v = frame[col].to_numpy(dtype=float)
        if col in log:
            v = np.log1p(v)
        sd = v.std()
        blocks.append(((v - v.mean()) / (sd if sd > 0 else 1.0))[:, None])
        names.append(col)
    for col in categorical:
        values = frame[col].fillna("missing").astype(str).to_numpy()
        levels = np.unique(values)
        blocks.append((values[:, None] == levels[None, :]).astype(float))
        names += [f"{col}={lv}" for lv in levels]
    return np.ascontiguousarray(np.hstack(blocks)), tuple(names)


def load_adult(path: str | os.PathLike[str] | None = None) -> Pool:
    """UCI Adult (``adult.data`` + ``adult.test``, 48,842 records); label 1 = income > 50K.

    Parameters
    ----------
    path : path-like, optional
        The ``uci_adult`` folder or a data root holding it (default: ``$SAFEBANDITS_DATA``, then the
        cache filled by ``safebandits data fetch uci_adult``; see :func:`safebandits.datasets.find_dataset`).

    Returns
    -------
    Pool
        Features: 5 standardised numerics (age, education-num, log1p capital-gain, log1p capital-loss,
        hours-per-week) and one-hot workclass, marital-status, occupation, relationship, race, sex,
        native-country (``?`` -> ``missing``). 11,687 positives (23.9 %).
    """
    folder = find_dataset("uci_adult", path)
    read = dict(header=None, names=list(ADULT_COLUMNS), skipinitialspace=True, na_values="?")
    frame = pd.concat(
        [pd.read_csv(folder / "adult.data", **read), pd.read_csv(folder / "adult.test", skiprows=1, **read)],
        ignore_index=True,
    )
    frame = frame.dropna(subset=["income"])
    label = frame["income"].str.rstrip(".").eq(">50K").to_numpy(dtype=float)
    numeric = ["age", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
    cats = ["workclass", "marital-status", "occupation", "relationship", "race", "sex", "native-country"]
    x, names = _encode(frame, numeric, ["capital-gain", "capital-loss"], cats)
    return Pool(features=x, eta=label, feature_names=names, name="adult")


def load_german(path: str | os.PathLike[str] | None = None) -> Pool:
    """UCI Statlog German Credit (``german.data``, 1,000 records); label 1 = bad credit (code 2).

    Parameters
    ----------
    path : path-like, optional
        The ``uci_german`` folder or a data root holding it (lookup as in :func:`load_adult`).

    Returns
    -------
    Pool
        Features: 7 standardised numerics (duration, log1p credit_amount, installment_rate,
        present_residence_since, age, number_of_existing_credits, number_of_people_liable_for) and the
        13 coded categoricals one-hot. 300 positives (bad credit).
    """
    folder = find_dataset("uci_german", path)
    frame = pd.read_csv(folder / "german.data", sep=" ", header=None, names=list(_GERMAN_COLUMNS))
    label = (frame["credit"].to_numpy() == 2).astype(float)
    numeric = [_GERMAN_COLUMNS[i] for i in (1, 4, 7, 10, 12, 15, 17)]
    cats = [c for c in _GERMAN_COLUMNS[:-1] if c not in numeric]
    x, names = _encode(frame, numeric, ["credit_amount"], cats)
    return Pool(features=x, eta=label, feature_names=names, name="german")


def half_circle_pool(
    rng: np.random.Generator,
    *,
    n_points: int = 1000,
    boundary: float = 0.25,
    width: float = 0.1,
    label_noise: float = 0.0,
    softness: float = 0.0,
) -> Pool:
    """Synthetic 2-D pool on a half annulus; positive mostly where the angle is below ``boundary * pi``.

    Points have angle ``phi ~ U[0, pi]`` and radius ``U[1 - width, 1]``. With ``softness = 0``,
    ``eta = 1 - label_noise`` for ``phi < boundary * pi`` and ``label_noise`` otherwise; with
    ``softness > 0`` the step is smoothed to ``sigmoid((boundary * pi - phi) / (softness * pi))``
    (then mixed with the flip noise), so the FDR of a threshold rule grows continuously as it moves past
    the boundary. The Bayes boundary is a line through the origin, so this is a one-dimensional
    threshold problem embedded in the plane (the setting the paper uses to explain the active/passive
    gap); the paper's own construction is not available.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_points : int >= 2, default=1000
    boundary : float in (0, 1), default=0.25
        Fraction of the half circle (by angle) that is positive.
    width : float in [0, 1), default=0.1
        Radial width of the annulus.
    label_noise : float in [0, 0.5), default=0.0
        Probability that a label is flipped.
    softness : float >= 0, default=0.0
        Width of the transition of ``eta`` across the boundary, as a fraction of pi.
    """
    owner = "half_circle_pool"
    n = check_int(n_points, "n_points", low=2, owner=owner)
    boundary = check_interval(boundary, "boundary", low=0.0, high=1.0, owner=owner)
    width = check_interval(width, "width", low=0.0, high=1.0, closed="left", owner=owner)
    noise = check_interval(label_noise, "label_noise", low=0.0, high=0.5, closed="left", owner=owner)
    phi = rng.uniform(0.0, np.pi, n)
    radius = rng.uniform(1.0 - width, 1.0, n)
    x = np.column_stack([radius * np.cos(phi), radius * np.sin(phi)])
    soft = check_interval(softness, "softness", low=0.0, closed="left", owner=owner)
    if soft > 0.0:
        step = expit((boundary * np.pi - phi) / (soft * np.pi))
    else:
        step = (phi < boundary * np.pi).astype(float)
    eta = noise + (1.0 - 2.0 * noise) * step
    return Pool(features=x, eta=eta, feature_names=("x1", "x2"), name="half-circle")
