"""Learners behind one ask / tell protocol, grouped by task."""

from safebandits.algorithms.base import BaseLearner, Learner, LearnerConfig, PureExplorationLearner
from safebandits.algorithms.registry import get_algorithm, list_algorithms, make_learner, register_algorithm

__all__ = [
    "BaseLearner",
    "Learner",
    "LearnerConfig",
    "PureExplorationLearner",
    "get_algorithm",
    "list_algorithms",
    "make_learner",
    "register_algorithm",
]
