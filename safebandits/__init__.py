"""safebandits: bandits whose constraints are unknown.

Learn which actions are safe or feasible while finding the best one.
"""

from safebandits.algorithms import get_algorithm, list_algorithms, make_learner
from safebandits.exceptions import ConfigError, InfeasibleInstanceError, ProtocolError, SafeBanditsError
from safebandits.experiments.regret_loop import RegretOutcome, run_regret
from safebandits.experiments.simulate import RunOutcome, run
from safebandits.problems import LinearCBAIInstance, list_instances, make_instance
from safebandits.rng import RunKey, environment_rng, instance_rng, learner_rng
from safebandits.study import Query, Study, create_study, load_study
from safebandits.types import BatchObservation, Decision, Observation, Recommendation

__version__ = "0.1.0"

__all__ = [
    "BatchObservation",
    "ConfigError",
    "Decision",
    "InfeasibleInstanceError",
    "LinearCBAIInstance",
    "Observation",
    "ProtocolError",
    "Query",
    "Recommendation",
    "RegretOutcome",
    "RunKey",
    "RunOutcome",
    "SafeBanditsError",
    "Study",
    "__version__",
    "create_study",
    "environment_rng",
    "get_algorithm",
    "instance_rng",
    "learner_rng",
    "list_algorithms",
    "list_instances",
    "load_study",
    "make_instance",
    "make_learner",
    "run",
    "run_regret",
]
