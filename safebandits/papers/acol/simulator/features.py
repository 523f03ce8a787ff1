"""Feature map of the driving environment (Lindner et al. 2022, Table C.1).

A policy's features are the per-step features of Table C.1 summed over the ``horizon`` states
*after* each step (the "expected feature counts"; the environment is deterministic), with a constant
1 appended so that the unknown threshold becomes part of the constraint parameter (``d = 9``):

====  ============================  ====================================================================
#     feature                       per-step value
====  ============================  ====================================================================
f1    target velocity               ``-(v - 0.4)^2``
f2    target location               ``-(x - 0.17)^2`` (centre of the right lane)
f3    stay on street                ``1`` iff ``|x| > 0.255``
f4    stay in lane                  ``1 / (1 + exp(-b d + a))``, ``b = 10^4``, ``a = 10``, ``d`` the
                                    distance to the closest lane centre (paper) or its square (code)
f5    stay aligned with street      ``|cos(phi)|``
f6    don't drive backwards         ``1`` iff ``v < 0``
f7    stay within speed limit       ``1`` iff ``v > 0.6``
f8    don't get too close to cars   ``sum_cars exp(-b (c1 dx^2 + c2 dy^2) + b a)``, ``b = 30``,
                                    ``a = 0.01``, ``c2 = 1``, ``c1 = 4`` (paper) or 10 (code)
9     constant                      ``1`` (not summed)
====  ============================  ====================================================================

Deviations (``c1``, the lane distance, ``dt``): ``docs/decisions/acol.md``, "Driving".
"""

from __future__ import annotations

import numpy as np

from safebandits.papers.acol.simulator.dynamics import (
    LANE_CENTRES,
    ROAD_HALF_WIDTH,
    DrivingConfig,
    Scenario,
    car_trajectories,
    check_policies,
    rollout,
)
from safebandits.types import FloatArray

__all__ = ["FEATURE_NAMES", "N_FEATURES", "policy_features", "step_features"]

FEATURE_NAMES = (
    "target velocity",
    "target location",
    "off street",
    "not in lane",
    "heading",
    "backwards",
    "too fast",
    "close to cars",
    "constant",
)
N_FEATURES = len(FEATURE_NAMES)

_LANE_B, _LANE_A = 10_000.0, 10.0
_CAR_B, _CAR_A, _CAR_C2 = 30.0, 0.01, 1.0


def step_features(states: FloatArray, cars: FloatArray, config: DrivingConfig) -> FloatArray:
    """Per-step features f1..f8 of agent states and the other cars' states at the same steps.

    Parameters
    ----------
    states : ndarray of shape (n, horizon, 4)
        Agent states after each step.
    cars : ndarray of shape (n_cars, horizon, 4)
        Other cars' states after each step.
    config : DrivingConfig

    Returns
    -------
    ndarray of shape (n, horizon, 8)
    """
    x, y, phi, v = (states[..., k] for k in range(4))
    out = np.empty((*states.shape[:2], 8))
    out[..., 0] = -((v - 0.4) ** 2)
    out[..., 1] = -((x - LANE_CENTRES[2]) ** 2)
    out[..., 2] = np.abs(x) > ROAD_HALF_WIDTH
    dist = np.min(np.abs(x[..., None] - np.asarray(LANE_CENTRES)), axis=-1)
    if config.lane_distance == "squared":
        dist = dist**2
    out[..., 3] = 1.0 / (1.0 + np.exp(-_LANE_B * dist + _LANE_A))
    out[..., 4] = np.abs(np.cos(phi))
    out[..., 5] = v < 0.0
    out[..., 6] = v > 0.6
    close = np.zeros(states.shape[:2])
    for car in cars:
        dx = x - car[:, 0]
        dy = y - car[:, 1]
        close += np.exp(-_CAR_B * (config.c1 * dx**2 + _CAR_C2 * dy**2) + _CAR_B * _CAR_A)
    out[..., 7] = close
    return out


def policy_features(
    policies: object, scenario: Scenario, config: DrivingConfig | None = None, *, check: bool = True
) -> FloatArray:
    """Features ``f(policy) in R^9`` of one policy or a batch (summed per-step features, then 1).

    Parameters
    ----------
    policies : array-like of shape (horizon, 2) or (n, horizon, 2)
        Steering and acceleration per step, in ``[-1, 1]``.
    scenario : Scenario
        Start state and other cars (the reward vector does not enter the features).
    config : DrivingConfig, optional
        Environment constants (default: the paper preset).
    check : bool, default True
        Validate ``policies`` (shape, finiteness, bounds); hot loops that clip themselves pass False.

    Returns
    -------
    ndarray of shape (n, 9)

    Examples
    --------
    >>> import numpy as np
    >>> from safebandits.papers.acol.simulator import get_scenario, policy_features
    >>> f = policy_features(np.zeros((20, 2)), get_scenario("base"))
    >>> f.shape, float(f[0, -1])
    ((1, 9), 1.0)
    """
    config = DrivingConfig() if config is None else config
    arr = check_policies(policies, config.horizon) if check else np.asarray(policies, dtype=np.float64)
    states = rollout(scenario.start, arr, config)
    per_step = step_features(states, car_trajectories(scenario, config), config)
    out = np.ones((arr.shape[0], N_FEATURES))
    out[:, :8] = per_step.sum(axis=1)
    return out
