"""Estimating the safe action's reward and costs when they are unknown (Pacchiano et al., Algorithm 5).

Assumption 5 of the paper gives the learner the safe action ``x0`` *and* its reward ``r0`` and cost
``c0``. Appendix F.1 relaxes the second part: play ``x0`` until empirical confidence intervals certify
both gaps, the safety gap ``Delta_c = tau - c0`` and the sub-optimality ``Delta_r = 1 - r0``, to within a
factor 2, then run the constrained learner with radii set from the estimates, its estimators
warm-started with the ``x0`` data.

:class:`SafeValueWarmStart` is a small state machine any learner can embed::

    ws = SafeValueWarmStart(info, delta=0.05, horizon=T)
    while not ws.done:
        y = env.pull_point(ws.ask_point())
        ws.tell(y.reward, y.constraints)
    est = ws.estimates                      # r0_hat, c0_hat, gaps, T0, ...
    alpha_r, alpha_c = alpha_from_estimates(est.delta_r_hat, est.delta_c_min)

Stopping rule (Algorithm 5 with the analysis' confidence level), width
``w(t) = 3 R sqrt(2 log(2T/delta) / t)`` after ``t`` pulls of ``x0``:

* costs: stop at the first ``T0^c`` with ``c0_hat_i(t) + w(t) <= tau_i`` for every constraint ``i``
  (equivalently, the *minimal* estimated gap ``min_i (tau_i - c0_hat_i)`` is at least ``w``);
  ``Delta_c_hat_i = tau_i - c0_hat_i(T0^c)``;
* reward: stop at the first ``T0^r`` with ``r0_hat(t) + w(t) <= 1``; ``Delta_r_hat = 1 - r0_hat(T0^r)``;
* done at ``T0 = max(T0^c, T0^r)``.

On the good event (every empirical mean within ``R sqrt(2 log(2T/delta)/t)`` of its mean, probability at
least ``1 - delta``): ``Delta_hat in [Delta/2, 3 Delta/2]`` for every signal and
``T0 <= 32 R^2 log(2T/delta) max(1/min_i(tau_i - c0_i)^2, 1/(1 - r0)^2)``.

Deviations
----------
* The algorithm box writes ``log(1/delta)``; we use ``log(2T/delta)`` as the analysis does (spec §2.7).
* ``m`` constraints: the level is ``log((m+1) T / delta)`` (a union bound over the reward and the ``m``
  costs; it equals ``log(2T/delta)`` for ``m = 1``).
* The widths carry the sub-Gaussian constant ``R`` (the paper assumes ``R = 1``); the default is 1.
* A hard cap ``max_rounds`` (default: the horizon) ends the warm start even when the gaps are not
  certified, so no run can hang; :attr:`WarmStartEstimates.certified` is then ``False``.
* :func:`alpha_from_estimates`: the paper's rule ``alpha_r / alpha_c = Delta_r_hat / Delta_c_hat`` is
  imprecise; the default is the choice ``alpha_c = 1``, ``alpha_r = 1 + 6 Delta_r_hat / Delta_c_hat``,
  provably valid under the guarantees above (spec §2.2, §8 item 12).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from safebandits._validation import check_choice, check_int, check_interval, check_positive
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.types import FloatArray

__all__ = ["SafeValueWarmStart", "WarmStartEstimates", "alpha_from_estimates"]


@dataclass(frozen=True, slots=True)
class WarmStartEstimates:
    """What Algorithm 5 returns.

    Attributes
    ----------
    r0_hat : float
        Empirical mean reward of ``x0`` at ``T0_r`` (at the cap if the reward gap was not certified).
    c0_hat : ndarray of shape (m,)
        Empirical mean costs of ``x0`` at ``T0_c`` (at the cap if not certified).
    delta_r_hat : float
        ``1 - r0_hat``.
    delta_c_hat : ndarray of shape (m,)
        ``tau_i - c0_hat_i``.
    delta_c_min : float
        ``min_i delta_c_hat_i`` (the hardness of the constraints, ``Delta*_c`` of Lemma 23).
    T0 : int
        Rounds played by the warm start.
    T0_r, T0_c : int or None
        Rounds at which the reward and cost gaps were certified (``None``: not certified).
    certified : bool
        Both gaps certified (``False`` only when the hard cap ended the warm start).
    """

    r0_hat: float
    c0_hat: FloatArray
    delta_r_hat: float
    delta_c_hat: FloatArray
    delta_c_min: float
    T0: int
    T0_r: int | None
    T0_c: int | None
    certified: bool

    def as_dict(self) -> dict[str, Any]:
        """Plain-Python form (for diagnostics and result tables)."""
        return {
            "r0_hat": self.r0_hat,
            "c0_hat": self.c0_hat.tolist(),
            "delta_r_hat": self.delta_r_hat,
            "delta_c_hat": self.delta_c_hat.tolist(),
            "delta_c_min": self.delta_c_min,
            "T0": self.T0,
            "T0_r": self.T0_r,
            "T0_c": self.T0_c,
            "certified": self.certified,
        }


class SafeValueWarmStart:
    """Play the safe action until the safety gap and the sub-optimality are certified (Algorithm 5).

    Parameters
    ----------
    info : StagewiseInfo-like
        Needs ``safe_action`` (``x0``, shape (d,)) and ``threshold`` (``tau``, shape (m,)).
    delta : float in (0, 1)
        Failure probability of the certificates.
    horizon : int >= 1
        ``T`` in ``log(2T/delta)``.
    noise_bound : float > 0, default 1.0
        Sub-Gaussian constant ``R`` of the reward and cost noise (the paper's widths assume 1).
    max_rounds : int >= 1, optional
        Hard cap on the rounds played (default: ``horizon``).

    Attributes
    ----------
    n : int
        Pulls of ``x0`` so far (equal to :attr:`rounds`).
    reward_sum : float
        Sum of the observed rewards of ``x0``.
    cost_sums : ndarray of shape (m,)
        Sums of the observed costs of ``x0``.

    Notes
    -----
    ``n``, ``reward_sum`` and ``cost_sums`` let a learner warm-start its estimators with the ``x0`` data:
    for a linear model, add ``n x0 x0^T`` to the Gram matrix, ``reward_sum x0`` and ``cost_sums_i x0`` to
    the targets; for the K-armed problem, add them to the safe arm's count and sums.
    """

    def __init__(
        self,
        info: Any,
        delta: float,
        horizon: int,
        noise_bound: float = 1.0,
        max_rounds: int | None = None,
    ) -> None:
        owner = type(self).__name__
        self.delta = check_interval(delta, "delta", low=0.0, high=1.0, owner=owner)
        self.horizon = check_int(horizon, "horizon", low=1, owner=owner)
        self.noise_bound = check_positive(noise_bound, "noise_bound", owner=owner)
        self.max_rounds = (
            self.horizon if max_rounds is None else check_int(max_rounds, "max_rounds", low=1, owner=owner)
        )
        x0 = np.array(getattr(info, "safe_action", None), dtype=np.float64)
        tau = np.atleast_1d(np.array(getattr(info, "threshold", None), dtype=np.float64))
        if x0.ndim != 1 or tau.ndim != 1 or tau.size == 0 or not np.all(np.isfinite(tau)):
            raise ConfigError(
                f"{owner} needs an info with a safe_action of shape (d,) and a finite threshold of shape "
                f"(m,). Got safe_action {x0!r}, threshold {tau!r}."
            )
        x0.setflags(write=False)
        self._x0 = x0
        self.tau = tau
        m = tau.shape[0]
        #: ``2 R^2 log((m+1) T / delta)``: the squared width of one empirical mean is this over ``t``.
        self._log_term = 2.0 * self.noise_bound**2 * math.log((m + 1) * self.horizon / self.delta)
        self.n = 0
        self.reward_sum = 0.0
        self.cost_sums = np.zeros(m)
        self._t0_r: int | None = None
        self._t0_c: int | None = None
        self._r0_hat = math.nan
        self._c0_hat = np.full(m, np.nan)
        self._done = False

    # -- state ------------------------------------------------------------------------------------
    @property
    def n_constraints(self) -> int:
        return int(self.tau.shape[0])

    @property
    def done(self) -> bool:
        """Both gaps certified, or the cap reached."""
        return self._done

    @property
    def rounds(self) -> int:
        """Rounds played so far (pulls of ``x0``)."""
        return self.n

    @property
    def certified(self) -> bool:
        return self._t0_r is not None and self._t0_c is not None

    def width(self, t: int | None = None) -> float:
        """Stopping width ``3 R sqrt(2 log((m+1) T/delta) / t)`` after ``t`` pulls (default: now)."""
        t = self.n if t is None else t
        return math.inf if t <= 0 else 3.0 * math.sqrt(self._log_term / t)

    def radius(self, t: int | None = None) -> float:
        """Radius of one empirical mean, ``R sqrt(2 log((m+1) T/delta) / t)`` (a third of the width)."""
        return self.width(t) / 3.0

    # -- protocol ---------------------------------------------------------------------------------
    def ask_point(self) -> FloatArray:
        """The action to play: always ``x0`` (a read-only array)."""
        return self._x0

    def tell(self, reward: float, costs: FloatArray) -> None:
        """Record one observation of ``x0``: its reward and its ``m`` costs."""
        if self._done:
            raise ProtocolError(f"{type(self).__name__}.tell called after the warm start finished (done).")
        c = np.asarray(costs, dtype=np.float64).reshape(-1)
        if c.shape[0] != self.tau.shape[0]:
            raise ConfigError(
                f"The 'costs' told to {type(self).__name__} must have shape ({self.tau.shape[0]},). "
                f"Got shape {c.shape} instead."
            )
        self.n += 1
        self.reward_sum += float(reward)
        self.cost_sums += c
        t = self.n
        w = self.width(t)
        if self._t0_c is None:
            c_hat = self.cost_sums / t
            if np.all(c_hat + w <= self.tau):  # the minimal estimated gap is certified
                self._t0_c = t
                self._c0_hat = c_hat
        if self._t0_r is None:
            r_hat = self.reward_sum / t
            if r_hat + w <= 1.0:
                self._t0_r = t
                self._r0_hat = r_hat
        if self.certified or t >= self.max_rounds:
            self._done = True

    @property
    def estimates(self) -> WarmStartEstimates:
        """The estimates of Algorithm 5 (available once :attr:`done`)."""
        if not self._done:
            raise ProtocolError(f"{type(self).__name__}.estimates requested before the warm start is done.")
        t = max(self.n, 1)
        r0 = self._r0_hat if self._t0_r is not None else self.reward_sum / t
        c0 = self._c0_hat if self._t0_c is not None else self.cost_sums / t
        dc = self.tau - c0
        return WarmStartEstimates(
            r0_hat=float(r0),
            c0_hat=np.array(c0),
            delta_r_hat=float(1.0 - r0),
            delta_c_hat=dc,
            delta_c_min=float(dc.min()),
            T0=self.n,
            T0_r=self._t0_r,
            T0_c=self._t0_c,
            certified=self.certified,
        )

    def stopping_bound(self, safe_reward: float, safe_cost: FloatArray) -> float:
        """The guarantee ``32 R^2 log((m+1) T/delta) max(1/min_i(tau_i - c0_i)^2, 1/(1 - r0)^2)`` on ``T0``
        for true values ``r0``, ``c0`` (a test helper; holds on the good event)."""
        gap_c = float(np.min(self.tau - np.atleast_1d(np.asarray(safe_cost, dtype=np.float64))))
        gap_r = 1.0 - float(safe_reward)
        return 16.0 * self._log_term * max(1.0 / gap_c**2, 1.0 / gap_r**2)


#: How :func:`alpha_from_estimates` turns the estimated gaps into ``(alpha_r, alpha_c)``.
AlphaMode = Literal["valid", "ratio"]


def alpha_from_estimates(
    delta_r_hat: float,
    delta_c_hat: float | FloatArray,
    mode: AlphaMode = "valid",
) -> tuple[float, float]:
    """Radius scalings ``(alpha_r, alpha_c)`` from warm-start gap estimates (App. F.1).

    Parameters
    ----------
    delta_r_hat : float > 0
        Estimated sub-optimality ``1 - r0_hat``.
    delta_c_hat : float or ndarray of shape (m,), > 0
        Estimated safety gap(s) ``tau_i - c0_hat_i``; several are reduced to their minimum.
    mode : {"valid", "ratio"}, default "valid"
        ``"valid"``: ``alpha_c = 1``, ``alpha_r = 1 + 6 Delta_r_hat / Delta_c_hat``. With
        ``Delta_hat in [Delta/2, 3 Delta/2]`` this is at least ``1 + 2 Delta_r / Delta_c``, the
        known-value rule (Thm. 19 / 31), so the known-value guarantees carry over (spec §2.2).
        ``"ratio"``: the paper's literal ``alpha_r / alpha_c = Delta_r_hat / Delta_c_hat`` with both
        at least 1 (``alpha_c = 1`` when the ratio is at least 1, else ``alpha_r = 1``); no guarantee.

    Returns
    -------
    (alpha_r, alpha_c) : tuple of float
    """
    check_choice(mode, "mode", AlphaMode, owner="alpha_from_estimates")
    dr = check_positive(float(delta_r_hat), "delta_r_hat", owner="alpha_from_estimates")
    dc_arr = np.atleast_1d(np.asarray(delta_c_hat, dtype=np.float64))
    dc = check_positive(float(dc_arr.min()), "delta_c_hat", owner="alpha_from_estimates")
    ratio = dr / dc
    if mode == "valid":
        return 1.0 + 6.0 * ratio, 1.0
    if ratio >= 1.0:
        return ratio, 1.0
    return 1.0, 1.0 / ratio
