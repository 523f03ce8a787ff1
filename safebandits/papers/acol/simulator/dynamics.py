"""Point-mass highway driving environment of Lindner et al. (ICML 2022), Section 4.3 and Appendix C.

The "Driver" environment of Sadigh et al. (RSS 2017) and Biyik et al. (CoRL 2020), as extended by
Lindner et al.: a three-lane highway, an agent car driven by an open-loop policy (20 actions of
steering and acceleration in ``[-1, 1]``) and other cars with fixed trajectories. Everything is
vectorised over many policies at once: a batch of policies is an array of shape
``(n_policies, horizon, 2)``.

Dynamics (Appendix C, with the authors' time step ``dt``)::

    x' = x + dt v cos(phi)      y' = y + dt v sin(phi)
    phi' = phi + dt v a1        v' = clip(v + dt (a2 - alpha v), -v_max, v_max)

with friction ``alpha = 1`` and ``v_max = 1``; the increments use the state *before* the step.

Deviations: the paper writes the update without a time step (``dt = 1``); the authors' code (and our
default) uses ``dt = 0.2``; see ``docs/decisions/acol.md`` ("Driving: time step").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

import numpy as np

from safebandits._validation import check_choice, check_int, check_literal_fields, check_positive
from safebandits.exceptions import ConfigError
from safebandits.types import FloatArray

__all__ = [
    "LANE_CENTRES",
    "LANE_WIDTH",
    "ROAD_HALF_WIDTH",
    "SCENARIOS",
    "DrivingConfig",
    "Scenario",
    "car_trajectories",
    "check_policies",
    "get_scenario",
    "rollout",
]

#: Lane centres (x coordinate) of the three-lane highway: left, middle, right.
LANE_CENTRES = (-0.17, 0.0, 0.17)
LANE_WIDTH = 0.17
#: The agent is off the street when ``|x| > 3 * LANE_WIDTH / 2``.
ROAD_HALF_WIDTH = 1.5 * LANE_WIDTH


@dataclass(frozen=True, kw_only=True, slots=True)
class DrivingConfig:
    """Constants of the driving environment and its features, with the paper / code options.

    Parameters
    ----------
    dt : float > 0, default 0.2
        Time step multiplying every increment (authors' code; the paper writes none, i.e. 1).
    friction : float >= 0, default 1.0
        ``alpha`` of ``dv = a2 - alpha v``.
    v_max : float > 0, default 1.0
        Velocity clip.
    horizon : int >= 1, default 20
        Steps per episode (a policy is ``horizon`` actions).
    c1 : float > 0, default 4.0
        Weight of ``dx^2`` in the "too close to other cars" feature f8: 4 in the paper (Table C.1),
        10 in the authors' code.
    lane_distance : {"absolute", "squared"}, default "absolute"
        Distance to the closest lane centre in the "stay in lane" feature f4: the distance (paper) or
        its square (authors' code).

    Use :meth:`preset` for the two named variants ``"paper"`` and ``"code"``.
    """

    dt: float = 0.2
    friction: float = 1.0
    v_max: float = 1.0
    horizon: int = 20
    c1: float = 4.0
    lane_distance: Literal["absolute", "squared"] = "absolute"

    def __post_init__(self) -> None:
        owner = "DrivingConfig"
        check_positive(self.dt, "dt", owner=owner)
        check_positive(self.friction, "friction", owner=owner, allow_zero=True)
        check_positive(self.v_max, "v_max", owner=owner)
        check_int(self.horizon, "horizon", low=1, owner=owner)
        check_positive(self.c1, "c1", owner=owner)
        check_literal_fields(self, owner=owner)

    @classmethod
    def preset(cls, name: FeatureConstants) -> DrivingConfig:
        """``"paper"`` (c1 = 4, absolute lane distance) or ``"code"`` (c1 = 10, squared distance).

        Both use ``dt = 0.2`` (see ``docs/decisions/acol.md``); pass ``dt`` explicitly for other steps.
        """
        check_choice(name, "features", FeatureConstants, owner="DrivingConfig.preset")
        if name == "code":
            return cls(c1=10.0, lane_distance="squared")
        return cls()


@dataclass(frozen=True, kw_only=True, slots=True)
class Scenario:
    """One driving task: start state, other cars, reward vector theta; shared constraint phi, tau.

    Attributes
    ----------
    name : str
    title : str
    start : tuple of 4 floats
        Agent start state ``(x, y, phi, v)``.
    car_starts : ndarray of shape (n_cars, 4)
        Start states of the other cars.
    car_actions : ndarray of shape (n_cars, horizon, 2)
        Their fixed action sequences.
    reward : ndarray of shape (8,)
        Reward weights theta over the 8 summed features (the constant feature gets 0).
    cars_trajectory : str
        ``"changing_lane"`` or ``"blocked"`` (the authors' names).
    """

    name: str
    title: str
    start: tuple[float, float, float, float]
    car_starts: FloatArray
    car_actions: FloatArray
    reward: FloatArray
    cars_trajectory: str
    constraint: FloatArray = field(default_factory=lambda: CONSTRAINT.copy())
    threshold: float = 1.0

    @property
    def n_cars(self) -> int:
        return self.car_starts.shape[0]


#: Constraint weights phi over the 8 features (Table C.1): off street, not in lane, heading,
#: backwards, too fast, too close to other cars.
CONSTRAINT = np.array([0.0, 0.0, 0.3, 0.05, 0.02, 0.5, 0.3, 0.8])
TARGET_VELOCITY = np.eye(8)[0]
TARGET_LOCATION = np.eye(8)[1]


def _changing_lane(horizon: int) -> tuple[FloatArray, FloatArray]:
    """One car starting in the right lane, drifting towards the middle lane (authors' code)."""
    speed = 0.328
    steer = [0.0] * 5 + [1.0] * 6 + [-1.0] * 6 + [0.0] * 3
    acts = np.array([(s, speed) for s in steer])
    acts = acts[np.arange(horizon) % len(acts)]
    return np.array([[0.17, 0.0, np.pi / 2, 0.41]]), acts[None]


def _blocked(horizon: int) -> tuple[FloatArray, FloatArray]:
    """Three stopped cars, one per lane, at y = 0.6, 0.65, 0.7 (authors' code)."""
    starts = np.array(
        [[-0.17, 0.6, np.pi / 2, 0.0], [0.0, 0.65, np.pi / 2, 0.0], [0.17, 0.7, np.pi / 2, 0.0]]
    )
    return starts, np.zeros((3, horizon, 2))


def _scenario(name: str, title: str, trajectory: str, reward: FloatArray, horizon: int) -> Scenario:
    starts, acts = (_blocked if trajectory == "blocked" else _changing_lane)(horizon)
    speed = 0.1 if trajectory == "blocked" else 0.41
    return Scenario(
        name=name,
        title=title,
        start=(0.0, -0.1, float(np.pi / 2), speed),
        car_starts=starts,
        car_actions=acts,
        reward=reward.copy(),
        cars_trajectory=trajectory,
    )


#: The three scenarios of Section 4.3: base (target velocity, a car changing lanes), different
#: reward (target location: the right lane) and different environment (three cars block the road).
ScenarioName = Literal["base", "different-reward", "different-environment"]
SCENARIOS: tuple[str, ...] = get_args(ScenarioName)
#: The constants of the paper (c1 = 4, absolute lane distance) or of the authors' code (``preset``).
FeatureConstants = Literal["paper", "code"]


def get_scenario(name: ScenarioName, horizon: int = 20) -> Scenario:
    """The scenario ``name`` (one of :data:`SCENARIOS`) for episodes of ``horizon`` steps."""
    check_choice(name, "scenario", ScenarioName, owner="get_scenario")
    if name == "base":
        return _scenario(name, "Base", "changing_lane", TARGET_VELOCITY, horizon)
    if name == "different-reward":
        return _scenario(name, "Different reward", "changing_lane", TARGET_LOCATION, horizon)
    return _scenario(name, "Different environment", "blocked", TARGET_VELOCITY, horizon)


def check_policies(policies: object, horizon: int, name: str = "policies") -> FloatArray:
    """Validate a policy or a batch of policies; return a float array of shape (n, horizon, 2)."""
    arr = np.asarray(policies, dtype=np.float64)
    if arr.ndim == 2:
        arr = arr[None]
    if arr.ndim != 3 or arr.shape[1:] != (horizon, 2):
        raise ConfigError(
            f"The {name!r} must have shape ({horizon}, 2) or (n_policies, {horizon}, 2) "
            f"(steering, acceleration per step). Got shape {arr.shape} instead."
        )
    if not np.all(np.isfinite(arr)):
        raise ConfigError(f"The {name!r} must be finite.")
    if np.any(np.abs(arr) > 1.0 + 1e-9):
        raise ConfigError(
            f"Every action of {name!r} must lie in [-1, 1]; got values in "
            f"[{arr.min():.4g}, {arr.max():.4g}]. "
            "Clip them first (np.clip(policies, -1, 1))."
        )
    return arr


def _step(state: FloatArray, action: FloatArray, config: DrivingConfig) -> FloatArray:
    """One Euler step for states ``(..., 4)`` and actions ``(..., 2)`` (increments use the old state)."""
    x, y, phi, v = state[..., 0], state[..., 1], state[..., 2], state[..., 3]
    dt = config.dt
    out = np.empty_like(state)
    out[..., 0] = x + dt * v * np.cos(phi)
    out[..., 1] = y + dt * v * np.sin(phi)
    out[..., 2] = phi + dt * v * action[..., 0]
    out[..., 3] = np.clip(v + dt * (action[..., 1] - config.friction * v), -config.v_max, config.v_max)
    return out


def rollout(start: object, actions: FloatArray, config: DrivingConfig) -> FloatArray:
    """States after each step of open-loop action sequences.

    Parameters
    ----------
    start : array-like of shape (4,) or (n, 4)
        Start state(s) ``(x, y, phi, v)``.
    actions : ndarray of shape (n, horizon, 2)
        Action sequences (not checked here: see :func:`check_policies`).
    config : DrivingConfig

    Returns
    -------
    ndarray of shape (n, horizon, 4)
        ``states[:, t]`` is the state after applying ``actions[:, t]`` (the state the features of
        step ``t`` are evaluated on); the start state is not included.
    """
    n, horizon = actions.shape[0], actions.shape[1]
    state = np.broadcast_to(np.asarray(start, dtype=np.float64), (n, 4)).copy()
    states = np.empty((n, horizon, 4))
    for t in range(horizon):
        state = _step(state, actions[:, t], config)
        states[:, t] = state
    return states


def car_trajectories(scenario: Scenario, config: DrivingConfig) -> FloatArray:
    """States of the other cars after each step, shape ``(n_cars, horizon, 4)``."""
    acts = scenario.car_actions
    if acts.shape[1] != config.horizon:
        acts = acts[:, np.arange(config.horizon) % acts.shape[1]]
    return rollout(scenario.car_starts, acts, config)
