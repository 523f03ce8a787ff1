"""Learners behind one ask / tell protocol, grouped by task."""

from safebandits.algorithms._observation import ObservationSpec, check_observation, register_observation_spec
from safebandits.algorithms.base import BaseLearner, Learner, LearnerConfig, PureExplorationLearner
from safebandits.algorithms.registry import get_algorithm, list_algorithms, make_learner, register_algorithm

__all__ = [
    "BaseLearner",
    "Learner",
    "LearnerConfig",
    "ObservationSpec",
    "PureExplorationLearner",
    "check_observation",
    "get_algorithm",
    "list_algorithms",
    "make_learner",
    "register_algorithm",
    "register_observation_spec",
]
