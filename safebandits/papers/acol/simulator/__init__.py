"""Driving simulator of Lindner et al. (ICML 2022), Section 4.3: dynamics, features, CEM, candidates."""

from safebandits.papers.acol.simulator.dynamics import (
    SCENARIOS,
    DrivingConfig,
    Scenario,
    car_trajectories,
    get_scenario,
    rollout,
)
from safebandits.papers.acol.simulator.features import FEATURE_NAMES, policy_features

__all__ = [
    "FEATURE_NAMES",
    "SCENARIOS",
    "DrivingConfig",
    "Scenario",
    "car_trajectories",
    "get_scenario",
    "policy_features",
    "rollout",
]
