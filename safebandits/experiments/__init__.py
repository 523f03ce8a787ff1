"""Experiments as data, executors, the results store and claims checks."""

from safebandits.experiments.simulate import RunOutcome, run

__all__ = ["RunOutcome", "run"]
