"""A pool-based classification problem: learner view, label oracle and the labelling loop.

The learner sees the pool's features and the FDR level (:class:`PoolInfo`); querying pool point ``x``
returns a label ``Y ~ Bernoulli(eta(x))`` (:class:`LabelEnvironment`, batch queries as counts over the
pool). The instance scores a classifier (a 0/1 vector over the pool) against ``eta`` with the pool
metrics of :func:`~safebandits.classification.oracles.classifier_metrics`.

:func:`run_classification` is the loop of the FDR experiments: it drives an ask/tell learner for a
label budget and records accuracy, FDR, precision and recall of the learner's current classifier after
every batch (the paper's curves against the number of labels).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from safebandits._validation import check_int, check_interval
from safebandits.classification.data import Pool
from safebandits.classification.oracles import classifier_metrics
from safebandits.exceptions import ConfigError
from safebandits.types import BatchObservation, Decision, FloatArray

__all__ = ["ClassificationRun", "LabelEnvironment", "PoolInfo", "PoolInstance", "run_classification"]


@dataclass(frozen=True, slots=True)
class PoolInfo:
    """Learner view: the pool's features and the FDR level ``q`` (never the labels)."""

    features: FloatArray
    q: float

    @property
    def n_points(self) -> int:
        return self.features.shape[0]


class LabelEnvironment:
    """Answers label queries: ``counts[x]`` draws of ``Bernoulli(eta(x))`` per pool point."""

    def __init__(self, eta: FloatArray, rng: np.random.Generator) -> None:
        self.eta = eta
        self.rng = rng
        self.n_samples = 0

    def play(self, decision: Decision) -> BatchObservation:
        if decision.counts is None or decision.counts.shape != self.eta.shape:
            raise ConfigError(f"A label query must be a batch of counts of shape {self.eta.shape}.")
        counts = np.asarray(decision.counts, dtype=np.int64)
        sums = np.zeros(self.eta.shape[0])
        idx = np.flatnonzero(counts)
        sums[idx] = self.rng.binomial(counts[idx], self.eta[idx])
        self.n_samples += int(counts.sum())
        return BatchObservation(counts=counts, constraint_sums=sums[:, None])


@dataclass(frozen=True, slots=True)
class PoolInstance:
    """A classification pool with an FDR level; the oracle side of the FDR experiments."""

    pool: Pool
    q: float

    def __post_init__(self) -> None:
        check_interval(self.q, "q", low=0.0, high=1.0, owner="PoolInstance")

    def public_info(self) -> PoolInfo:
        return PoolInfo(features=self.pool.features, q=self.q)

    privileged_info = public_info

    def environment(self, rng: np.random.Generator) -> LabelEnvironment:
        return LabelEnvironment(self.pool.eta, rng)

    def metrics(self, z: FloatArray) -> dict[str, float]:
        m = classifier_metrics(z, self.pool.eta)
        return {"accuracy": m.accuracy, "fdr": m.fdr, "precision": m.precision, "recall": m.recall}

    def describe(self) -> dict[str, Any]:
        return {
            "pool": self.pool.name,
            "n_points": self.pool.n,
            "n_features": self.pool.features.shape[1],
            "positive_rate": float(self.pool.eta.mean()),
            "q": self.q,
        }


@dataclass(frozen=True, slots=True)
class ClassificationRun:
    """Output of :func:`run_classification`: final metrics and per-batch curves (``labels`` first)."""

    labels: int
    final: dict[str, float]
    curves: dict[str, list[float]] = field(default_factory=dict)
    wall_s: float = 0.0
    cpu_s: float = 0.0  #: CPU seconds of this process over the same interval (``time.process_time``)


def run_classification(
    learner: Any, env: LabelEnvironment, instance: PoolInstance, *, budget: int
) -> ClassificationRun:
    """Query labels in batches until ``budget`` labels; score ``learner.predict()`` after each batch.

    A batch that would exceed the budget is cancelled (not played). Metrics come from the instance's
    ``eta``; the learner never sees them.
    """
    budget = check_int(budget, "budget", low=1, owner="run_classification")
    t0, c0 = time.perf_counter(), time.process_time()
    curves: dict[str, list[float]] = {"labels": [], "accuracy": [], "fdr": [], "precision": [], "recall": []}
    while learner.n_samples < budget:
        decision = learner.ask()
        if decision.n_samples > budget - learner.n_samples:
            learner.cancel()
            break
        learner.tell(decision, env.play(decision))
        scores = instance.metrics(learner.predict())
        curves["labels"].append(float(learner.n_samples))
        for key, value in scores.items():
            curves[key].append(value)
    final = {k: v[-1] for k, v in curves.items() if k != "labels" and v}
    return ClassificationRun(
        labels=int(learner.n_samples),
        final=final,
        curves=curves,
        wall_s=time.perf_counter() - t0,
        cpu_s=time.process_time() - c0,
    )
