"""Experiments as data, executors, the results store and claims checks."""

from safebandits.experiments.claims import check_claims
from safebandits.experiments.simulate import RunOutcome, run
from safebandits.experiments.spec import (
    AlgorithmSpec,
    ExperimentSpec,
    PanelSpec,
    get_experiment,
    list_experiments,
    register_experiment,
)
from safebandits.experiments.store import ResultsStore

__all__ = [
    "AlgorithmSpec",
    "ExperimentSpec",
    "PanelSpec",
    "ResultsStore",
    "RunOutcome",
    "check_claims",
    "get_experiment",
    "list_experiments",
    "register_experiment",
    "run",
]
