"""Active classification under an FDR constraint (Camilleri et al. 2022, Algorithm 2) and passive sampling.

Glossary (Algorithm 2): ``n`` batch size, ``k`` classifiers per round, ``sigma`` label perturbation,
``h_hat_i`` ERM on perturbed labels, ``h_i`` = CERM on the pool labelled by ``h_hat_i``, ``z_i`` its 0/1
vector, ``lambda_safe`` / ``lambda_diff`` the safe (XY_safe) and difference (XY_diff) designs with the
diagonal design matrix ``A(lambda) = diag(lambda)``, ``h_tilde`` the returned classifier.

One round (``ask``), with ``L`` the labels collected so far:

1. for ``i = 1..k``: fit a logistic regression on ``(x_t, y_t + eps_t)``, ``eps_t ~ N(0, sigma^2)``
   (:func:`~safebandits.classification.oracles.fit_logistic`); its scores ``s_i`` and probabilities
   ``eta_i = sigmoid(s_i)`` label the whole pool; ``h_i = 1{s_i >= t_i}`` with ``t_i`` the CERM
   threshold for those soft labels (:func:`~safebandits.classification.oracles.threshold_cerm`);
2. ``lambda_safe = argmin max_i sum_x z_i(x) / lambda_x`` and
   ``lambda_diff = argmin max_{i<j} sum_x 1{z_i(x) != z_j(x)} / lambda_x``
   (:func:`~safebandits.design.diagonal_design`, the shared solver's diagonal path);
3. query ``n`` pool points drawn from ``(lambda_safe + lambda_diff) / 2`` without replacement among the
   unlabelled points (uniformly if the mixture has too little mass there).

``predict()`` is ``h_tilde``: CERM on every collected label (a logistic fit and the threshold meeting
the FDR level on those labels), applied to the pool. :class:`PassiveFDR` draws each batch uniformly
among the unlabelled points and predicts with the same oracle.

Deviations and open choices (training data = all labels so far, soft-label CERM on the pool,
sampling without replacement, ``n_initial`` separate from the batch size, k, sigma):
``docs/decisions/beside.md`` ("Active classification under an FDR constraint"). Applicability: a linear
score class; the design ignores the labels' noise level (all widths have unit variance).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from scipy.special import expit

from safebandits._validation import check_int, check_interval
from safebandits.algorithms.base import BaseLearner, LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.classification.oracles import LogisticModel, fit_logistic, threshold_cerm
from safebandits.classification.problem import PoolInfo
from safebandits.design.diagonal import diagonal_design
from safebandits.types import BatchObservation, Decision, FloatArray, Recommendation

__all__ = ["ActiveFDR", "ActiveFDRConfig", "PassiveFDR", "PassiveFDRConfig"]


@dataclass(frozen=True, kw_only=True, slots=True)
class PassiveFDRConfig(LearnerConfig):
    """Passive sampling with the CERM oracle.

    Parameters
    ----------
    batch_size : int >= 1, default=25
        Labels per round (the paper's Adult value).
    n_initial : int >= 1, default=50
        Uniformly drawn labels of round 0.
    alpha : float > 0, default=1.0
        Ridge penalty of the logistic fits.
    """

    batch_size: int = 25
    n_initial: int = 50
    alpha: float = 1.0

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_int(self.batch_size, "batch_size", low=1, owner=owner)
        check_int(self.n_initial, "n_initial", low=1, owner=owner)
        check_interval(self.alpha, "alpha", low=0.0, owner=owner)


@dataclass(frozen=True, kw_only=True, slots=True)
class ActiveFDRConfig(PassiveFDRConfig):
    """Algorithm 2.

    Parameters
    ----------
    batch_size, n_initial, alpha
        As in :class:`PassiveFDRConfig`.
    n_classifiers : int >= 2, default=10
        ``k``, perturbed classifiers per round.
    sigma : float > 0, default=0.5
        Standard deviation of the label perturbations.
    design_tol : float in (0, 1), default=1e-2
        Relative accuracy of the two designs.
    """

    n_classifiers: int = 10
    sigma: float = 0.5
    design_tol: float = 1e-2

    def __post_init__(self) -> None:
        PassiveFDRConfig.__post_init__(self)
        owner = type(self).__name__
        check_int(self.n_classifiers, "n_classifiers", low=2, owner=owner)
        check_interval(self.sigma, "sigma", low=0.0, owner=owner)
        check_interval(self.design_tol, "design_tol", low=0.0, high=1.0, owner=owner)


class _PoolLearner(BaseLearner):
    """Shared state: labelled pool indices, their labels, the CERM prediction."""

    config: PassiveFDRConfig
    done: ClassVar[bool] = False

    def __init__(self, config: PassiveFDRConfig, info: PoolInfo, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        if not isinstance(info, PoolInfo):
            raise TypeError(f"{type(self).__name__} expects a PoolInfo, got {type(info).__name__}.")
        self.x = info.features
        self.q = float(info.q)
        self.n_points = self.x.shape[0]
        self.labelled = np.zeros(self.n_points, dtype=bool)
        self.label_sum = np.zeros(self.n_points)
        self.label_count = np.zeros(self.n_points)
        self.n_rounds = 0
        self._model: LogisticModel | None = None

    # -- protocol -----------------------------------------------------------------------------
    def _ask(self, context: Any) -> Decision:
        if self.n_rounds == 0:
            chosen = self._uniform(self.config.n_initial)
        else:
            chosen = self._next_batch(self.config.batch_size)
        counts = np.zeros(self.n_points, dtype=np.int64)
        counts[chosen] = 1
        return Decision(counts=counts)

    def _tell(self, decision: Decision, observation: BatchObservation) -> None:
        counts = np.asarray(observation.counts)
        sums = np.asarray(observation.constraint_sums).reshape(-1)
        self.label_count += counts
        self.label_sum += sums
        self.labelled |= counts > 0
        self.n_rounds += 1
        self._model = None

    def _recommend(self, final: bool) -> Recommendation:
        z = self.predict()
        return Recommendation(
            arm=None, n_samples=self.n_samples, final=final, info={"n_positive": int(z.sum())}
        )

    # -- the CERM classifier h_tilde ---------------------------------------------------------
    def training_data(self) -> tuple[FloatArray, FloatArray]:
        """Features and mean observed labels of the labelled pool points."""
        idx = np.flatnonzero(self.labelled)
        return self.x[idx], self.label_sum[idx] / self.label_count[idx]

    def predict(self) -> FloatArray:
        """``h_tilde`` on the pool: CERM on every label collected so far (0/1 vector of shape (n,))."""
        x, y = self.training_data()
        if x.shape[0] == 0:
            return np.zeros(self.n_points)
        if self._model is None:
            self._model = fit_logistic(x, y, alpha=self.config.alpha)
        t = threshold_cerm(self._model.scores(x), y, self.q)
        return (self._model.scores(self.x) >= t).astype(float)

    # -- sampling -------------------------------------------------------------------------------
    def _uniform(self, size: int, exclude: np.ndarray | None = None) -> np.ndarray:
        free = ~self.labelled if exclude is None else ~(self.labelled | exclude)
        idx = np.flatnonzero(free)
        return self.rng.choice(idx, size=min(size, idx.size), replace=False)

    def _next_batch(self, size: int) -> np.ndarray:
        return self._uniform(size)


@register_algorithm(
    "fdr-passive",
    task="classification",
    description="Passive sampling + FDR-constrained ERM",
    info="pool",
    guarantee="fdr",
)
class PassiveFDR(_PoolLearner):
    """Passive baseline: uniform batches among unlabelled points, the same CERM and schedule."""

    config_cls = PassiveFDRConfig
    name = "fdr-passive"


@register_algorithm(
    "fdr-active",
    task="classification",
    description="Algorithm 2 of Camilleri et al. 2022",
    info="pool",
    guarantee="fdr",
)
class ActiveFDR(_PoolLearner):
    """Algorithm 2: randomised exploration with safe and difference designs on the diagonal design matrix."""

    config_cls = ActiveFDRConfig
    name = "fdr-active"
    config: ActiveFDRConfig

    def __init__(self, config: ActiveFDRConfig, info: PoolInfo, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        self.last_designs: dict[str, Any] = {}

    def perturbed_classifiers(self) -> np.ndarray:
        """Lines 2-4: ``k`` CERM classifiers from ERMs on perturbed labels; 0/1 array (k, n)."""
        x, y = self.training_data()
        cfg = self.config
        z = np.empty((cfg.n_classifiers, self.n_points))
        init = None
        for i in range(cfg.n_classifiers):
            noise = self.rng.standard_normal(y.shape[0]) * cfg.sigma
            model = fit_logistic(x, y + noise, alpha=cfg.alpha, init=init)
            init = model.params
            s = model.scores(self.x)
            z[i] = s >= threshold_cerm(s, expit(s), self.q)
        return z

    def designs(self, z: np.ndarray) -> tuple[FloatArray, FloatArray]:
        """Lines 5-6: ``lambda_safe`` and ``lambda_diff`` for the classifiers ``z`` (k, n)."""
        tol = self.config.design_tol
        safe = diagonal_design(z, tol=tol)
        i, j = np.triu_indices(z.shape[0], 1)
        diff = diagonal_design((z[i] != z[j]).astype(float), tol=tol)
        self.last_designs = {
            "safe_value": safe.value,
            "diff_value": diff.value,
            "safe_support": int(np.count_nonzero(safe.weights)),
            "diff_support": int(np.count_nonzero(diff.weights)),
        }
        return safe.weights, diff.weights

    def _next_batch(self, size: int) -> np.ndarray:
        lam_safe, lam_diff = self.designs(self.perturbed_classifiers())
        mix = 0.5 * (lam_safe + lam_diff)
        mix[self.labelled] = 0.0
        support = np.flatnonzero(mix > 0.0)
        take = min(size, support.size)
        chosen = (
            self.rng.choice(support, size=take, replace=False, p=mix[support] / mix[support].sum())
            if take > 0
            else np.empty(0, dtype=np.int64)
        )
        if take < size:  # too little design mass on unlabelled points: fill uniformly
            extra = np.zeros(self.n_points, dtype=bool)
            extra[chosen] = True
            chosen = np.concatenate([chosen, self._uniform(size - take, exclude=extra)])
        return chosen
