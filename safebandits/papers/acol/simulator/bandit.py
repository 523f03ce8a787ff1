"""CBAI instances from a candidate-policy set and a driving scenario (Lindner et al. 2022, Sec. 4.3, C.2).

Arms are the feature vectors ``f(pi) in R^9`` of the candidate policies (the constant 9th feature
carries the unknown threshold: ``phi' = (phi, -tau)``, threshold 0). Feedback is binary,
``y in {-1, +1}`` with ``P(y = 1) = (1 + phi'^T x) / 2``, which needs constraint values in ``[-1, 1]``:
like the authors' ``normalize_constraints``, every arm is rescaled by a positive per-arm factor that
keeps the sign of its constraint value -- ``1 / (tau - min c)`` for feasible arms and
``1 / (max c - tau)`` for infeasible ones, then ``+1e-6`` (feasible) or ``-1e-6`` (infeasible) on every
component.

``normalise``:

- ``"constraint"`` (default): the rescaled features are the arms (constraint learning) and the known
  rewards stay ``theta^T f`` of the raw features (``reward_values``);
- ``"in-place"``: the authors' code -- the rescaling also changes the rewards (``theta^T x`` of the
  rescaled arms; the order among feasible arms, hence ``x*``, is preserved);
- ``"none"``: raw features (Gaussian feedback only).

See ``docs/decisions/acol.md``, "Driving: normalisation".
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np

from safebandits._validation import check_choice
from safebandits.exceptions import ConfigError
from safebandits.papers.acol.simulator.dynamics import DrivingConfig, Scenario
from safebandits.papers.acol.simulator.features import policy_features
from safebandits.problems.linear import LinearCBAIInstance
from safebandits.problems.noise import NoiseModel, make_noise
from safebandits.types import FloatArray

__all__ = ["NORMALISATIONS", "driving_instance", "normalise_arms"]

Normalisation = Literal["constraint", "in-place", "none"]
NORMALISATIONS: tuple[str, ...] = get_args(Normalisation)
EPS = 1e-6


def normalise_arms(features: FloatArray, constraint_param: FloatArray, eps: float = EPS) -> FloatArray:
    """Per-arm rescaling of the authors' ``normalize_constraints`` (threshold 0 after the shift).

    Parameters
    ----------
    features : ndarray of shape (n_arms, d)
    constraint_param : ndarray of shape (d,)
        ``phi' = (phi, -tau)``.
    eps : float
        Added to every component of feasible arms, subtracted from infeasible ones.

    Returns
    -------
    ndarray of shape (n_arms, d)
        Arms whose constraint values lie in ``[-1, 1]`` with the signs of the raw ones.
    """
    c = features @ constraint_param
    feasible = c <= 0.0
    lo = -float(c.min()) if (c < 0).any() else 1.0
    hi = float(c.max()) if (c > 0).any() else 1.0
    scale = np.where(feasible, 1.0 / lo, 1.0 / hi)
    return features * scale[:, None] + np.where(feasible, eps, -eps)[:, None]


def driving_instance(
    policies: FloatArray,
    scenario: Scenario,
    *,
    env: DrivingConfig | None = None,
    normalise: Normalisation = "constraint",
    noise: NoiseModel | str = "binary",
    sigma: float = 0.05,
    name: str = "acol/driving",
    features: FloatArray | None = None,
) -> LinearCBAIInstance:
    """A CBAI instance whose arms are the candidate policies of ``policies`` in ``scenario``.

    Parameters
    ----------
    policies : ndarray of shape (n_policies, horizon, 2)
    scenario : Scenario
        Gives theta (reward), phi and tau.
    env : DrivingConfig, optional
        Feature constants (paper preset by default).
    normalise : {"constraint", "in-place", "none"}
    noise : NoiseModel or str, default "binary"
    sigma : float
        Noise level of Gaussian feedback.
    features : ndarray of shape (n_policies, 9), optional
        Precomputed features (skips the rollout).

    Returns
    -------
    LinearCBAIInstance
        ``d = 9``, threshold 0, ``constraint_param = (phi, -tau)``.
    """
    check_choice(normalise, "normalise", Normalisation, owner="driving_instance")
    feats = policy_features(policies, scenario, env) if features is None else np.asarray(features)
    theta = np.append(scenario.reward, 0.0)
    phi = np.append(scenario.constraint, -scenario.threshold)
    noise_model = make_noise(noise, sigma) if isinstance(noise, str) else noise
    if normalise == "none" and noise_model.name == "binary":
        raise ConfigError(
            "Binary feedback needs constraint values in [-1, 1]: use normalise='constraint' or 'in-place' "
            "(or Gaussian noise with normalise='none')."
        )
    arms = feats if normalise == "none" else normalise_arms(feats, phi)
    return LinearCBAIInstance(
        arms=arms,
        reward_param=theta,
        constraint_param=phi,
        threshold=0.0,
        noise=noise_model,
        name=name,
        reward_values=feats @ theta if normalise == "constraint" else None,
    )
