"""OPB, the optimism-pessimism bandit (Pacchiano, Ghavamzadeh & Bartlett, Algorithm 3, Sec. 5.2).

K-armed bandit with per-round constraints *in expectation*: each round the learner picks a policy
``pi_t`` over the arms with ``E_{a ~ pi_t}[c_a] <= tau`` (every constraint), samples ``a ~ pi_t`` and
observes the arm's reward and costs. Arm ``info.safe_arm`` (0) is known to be safe.

Each round (Algorithm 3): (1) indices ``u^r_a = r_hat_a + alpha_r beta_a``, ``u^c_a = c_hat_a +
alpha_c beta_a`` with ``beta_a = R sqrt(2 log(1/delta') / max(T_a, 1))``, ``T_a`` the pulls of arm ``a``
and ``delta' = delta / (4 K T)`` (Thm. 31 / Prop. 41); an unpulled arm has reward estimate 0 and cost
estimate 1, every index is clipped to ``[0, 1]`` (so it starts at ``u^r = u^c = 1``) and the safe arm's
cost index is its known cost ``c_1`` (the authors' code); (2) the policy solves LP (37),
``max_pi pi . u^r  s.t.  pi . u^c <= tau``, ``pi`` in the simplex. With one constraint an optimum has at
most two arms (Lemma 40): the best arm with ``u^c <= tau``, or a pair ``u^c_{a1} < tau < u^c_{a2}`` with
eq. (44)'s weights ``pi_{a1} = (u^c_{a2} - tau) / (u^c_{a2} - u^c_{a1})``, ``pi_{a2} = (tau - u^c_{a1}) /
(u^c_{a2} - u^c_{a1})`` (expected index cost exactly ``tau``); :func:`lp_closed_form` enumerates them
(compiled, ``O(K^2)``). ``m > 1`` constraints use HiGHS (support at most ``m + 1``, App. D.4);
(3) ``a ~ pi_t`` with one learner uniform (drawn in blocks of :data:`UNIFORM_BLOCK`).

Radii (Thm. 31): ``alpha_c = 1``, ``alpha_r = 1 + 2 (1 - r_1) / min_i (tau_i - c_1i)`` (``radii="theory"``);
the authors' code: ``alpha_r = 1 + 1 / tau`` (``radii="code"``). With unknown ``r_1, c_1`` OPB first runs
the warm start of Algorithm 5 on the safe arm (:mod:`~safebandits.algorithms.regret.warm_start`), keeps
its data, estimates the safe arm's cost like any other arm's and takes the radii from
:func:`~safebandits.algorithms.regret.warm_start.alpha_from_estimates`. :meth:`OPB.simulate` plays
blocks of rounds in one compiled loop with the same trajectory as ask / tell, bit for bit.

Deviations
----------
* Unpulled arms: the paper's "beta_a(0) = 0" gives an unpulled arm cost index 0, so its first pull can
  break the constraint; we follow the code (spec §2.4); ``unpulled="paper"`` is the literal, unsafe one.
* Clipping (the code's, ``clip=True``) makes exact ties in LP (37) (every arm at ``u^r = 1`` early on).
  Any maximiser fits the analysis; ties go to the larger *unclipped* reward index ``pi . (r_hat +
  alpha_r beta)`` (a lexicographic LP: it keeps exploring the least pulled arms), then to the singleton
  and the lowest indices. ``m > 1``: the objective is perturbed by ``TIE_EPS`` times the scaled
  unclipped index (value loss at most ``2 TIE_EPS`` per round).
* ``delta' = delta / (4 K T)`` (Thm. 31 and Prop. 41 swap delta and delta'); ``confidence="code"``:
  ``1 / T^2``. ``beta`` carries ``R = noise_bound`` (default 1, the paper's formula).
* The safe arm's reward index is its UCB (code; ``safe_reward="known"``: ``r_1``).
* ``m > 1``: ``alpha_r = 1 + 2 (1 - r_1) / min_i (tau_i - c_1i)``, not Thm. 45's looser ``1 + 2 / min_i``.
* Unknown safe values: an infeasible LP (safe arm's cost index above ``tau``) gives the safe arm alone; a
  warm start that hits its cap uncertified leaves the safe arm alone for the rest of the run.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import numba
import numpy as np

from safebandits._numba import bind_kernel
from safebandits._validation import check_choice, check_int, check_interval, check_positive
from safebandits.algorithms.base import BaseLearner, LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret.warm_start import SafeValueWarmStart, alpha_from_estimates
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.problems.noise import observe_code
from safebandits.problems.stagewise import solve_policy_lp
from safebandits.records import PlayedBlock
from safebandits.types import Decision, FloatArray, Observation

__all__ = ["OPB", "OPBConfig", "choose_arm", "lp_closed_form", "opb_indices", "run_loop", "solve_index_lp"]

#: Learner uniforms drawn per refill of the buffer shared by ``ask`` and :func:`run_loop`.
UNIFORM_BLOCK = 1024
# fparams slots: alpha_r, alpha_c, 2 R^2 log(1/delta'), known r_1
_AR, _AC, _LOG, _R1 = 0, 1, 2, 3
# iparams slots: safe arm, cost of the safe arm known, reward known, clip, unpulled literal, safe only
_SAFE, _COST_KNOWN, _REWARD_KNOWN, _CLIP, _PAPER_UNPULLED, _SAFE_ONLY = 0, 1, 2, 3, 4, 5
# counters slots: position in the uniform buffer, rounds whose LP was infeasible
_UPOS, _INFEASIBLE = 0, 1
#: Weight of the unclipped index in the tie-breaking perturbation of the multi-constraint LP.
TIE_EPS = 1e-7


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class OPBConfig(LearnerConfig):
    """Configuration of :class:`OPB`.

    Parameters
    ----------
    delta : float in (0, 1), default 0.05
        Overall failure probability; per-arm level ``delta' = delta / (4 K T)`` (Thm. 31).
    confidence : {"theory", "code"}, default "theory"
        ``"theory"``: ``delta' = delta / (4 K T)``; ``"code"``: ``delta' = 1 / T^2`` (authors' code).
    radii : {"theory", "code"}, default "theory"
        ``"theory"``: ``alpha_c = 1``, ``alpha_r = 1 + 2 (1 - r_1) / min_i (tau_i - c_1i)`` (Thm. 31);
        ``"code"``: ``alpha_c = 1``, ``alpha_r = 1 + 1 / min_i tau_i`` (authors' E4 runner).
    alpha_r, alpha_c : float > 0 or None, default None
        Explicit radius scalings, overriding ``radii`` (values below the theory's void the guarantee).
    noise_bound : float > 0, default 1.0
        ``R`` in ``beta_a`` and in the warm start's widths (the paper's formulas have ``R = 1``).
    unpulled : {"code", "paper"}, default "code"
        ``"code"``: unpulled arms have reward 0, cost 1 and ``beta = beta(1)``, so ``u^r = u^c = 1``
        after clipping; ``"paper"``: the literal ``beta_a(0) = 0`` with zero estimates (unsafe).
    clip : bool, default True
        Clip every index to ``[0, 1]`` (the code's; the paper does not clip).
    safe_reward : {"ucb", "known"}, default "ucb"
        Reward index of the safe arm: its UCB (code) or the known ``r_1`` (needs a known ``r_1``).
    horizon : int >= 1 or None, default None
        ``T`` of the confidence levels (default: ``info.horizon``).
    warm_start_alpha : {"valid", "ratio"}, default "valid"
        Radii after the warm start (unknown ``r_1, c_1``, ``radii="theory"``): see
        :func:`~safebandits.algorithms.regret.warm_start.alpha_from_estimates`.
    warm_start_delta : float in (0, 1) or None, default None
        Failure probability of the warm start (default: ``delta``).
    warm_start_cap : int >= 1 or None, default None
        Hard cap on the warm start's rounds (default: the horizon).
    """

    delta: float = 0.05
    confidence: Literal["theory", "code"] = "theory"
    radii: Literal["theory", "code"] = "theory"
    alpha_r: float | None = None
    alpha_c: float | None = None
    noise_bound: float = 1.0
    unpulled: Literal["code", "paper"] = "code"
    clip: bool = True
    safe_reward: Literal["ucb", "known"] = "ucb"
    horizon: int | None = None
    warm_start_alpha: Literal["valid", "ratio"] = "valid"
    warm_start_delta: float | None = None
    warm_start_cap: int | None = None

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        check_choice(self.confidence, "confidence", ("theory", "code"), owner=owner)
        check_choice(self.radii, "radii", ("theory", "code"), owner=owner)
        for name in ("alpha_r", "alpha_c"):
            if getattr(self, name) is not None:
                check_positive(getattr(self, name), name, owner=owner)
        check_positive(self.noise_bound, "noise_bound", owner=owner)
        check_choice(self.unpulled, "unpulled", ("code", "paper"), owner=owner)
        check_choice(self.clip, "clip", (True, False), owner=owner)
        check_choice(self.safe_reward, "safe_reward", ("ucb", "known"), owner=owner)
        if self.horizon is not None:
            check_int(self.horizon, "horizon", low=1, owner=owner)
        check_choice(self.warm_start_alpha, "warm_start_alpha", ("valid", "ratio"), owner=owner)
        if self.warm_start_delta is not None:
            check_interval(self.warm_start_delta, "warm_start_delta", low=0.0, high=1.0, owner=owner)
        if self.warm_start_cap is not None:
            check_int(self.warm_start_cap, "warm_start_cap", low=1, owner=owner)


# --------------------------------------------------------------------------------------------------
# compiled kernels
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def opb_indices(counts, reward_sums, cost_sums, fparams, iparams, safe_cost, ur, raw, uc):
    """Indices of every arm (Sec. 5.2): ``ur`` (clipped) and ``raw`` (unclipped) reward indices, ``uc``
    (shape (K, m)) cost indices; the safe arm's cost index is ``safe_cost`` when it is known."""
    n_arms, m = cost_sums.shape
    alpha_r, alpha_c, log_term = fparams[_AR], fparams[_AC], fparams[_LOG]
    safe, clip = iparams[_SAFE], iparams[_CLIP] != 0
    for a in range(n_arms):
        n = counts[a]
        if n > 0:
            r_hat = reward_sums[a] / n
            beta = math.sqrt(log_term / n)
        elif iparams[_PAPER_UNPULLED] != 0:
            r_hat = 0.0
            beta = 0.0
        else:
            r_hat = 0.0
            beta = math.sqrt(log_term)
        v = r_hat + alpha_r * beta
        if a == safe and iparams[_REWARD_KNOWN] != 0:
            v = fparams[_R1]
        raw[a] = v
        ur[a] = min(max(v, 0.0), 1.0) if clip else v
        for i in range(m):
            if a == safe and iparams[_COST_KNOWN] != 0:
                uc[a, i] = safe_cost[i]
                continue
            if n > 0:
                c = cost_sums[a, i] / n
            else:
                c = 0.0 if iparams[_PAPER_UNPULLED] != 0 else 1.0
            c += alpha_c * beta
            uc[a, i] = min(max(c, 0.0), 1.0) if clip else c


@numba.njit(cache=True)
def lp_closed_form(ur, raw, uc, tau, probs):
    """LP (37) with one constraint (column 0 of ``uc``), in closed form (Lemma 40, eq. 44).

    Candidates are the vertices of ``{pi in simplex : pi . uc <= tau}``: arms with ``uc <= tau`` and
    pairs ``uc_{a1} < tau < uc_{a2}`` mixed so that the expected index cost is ``tau``. Best value of
    ``pi . ur`` wins; exact ties go to the larger ``pi . raw``, then to the singleton and the lowest
    indices. Writes the policy into ``probs`` and returns its value (``-inf`` if no arm is feasible,
    ``probs`` then all zero). ``O(K^2)``.
    """
    n_arms = ur.shape[0]
    best1 = -1
    best2 = -1
    best_v = -np.inf
    best_s = -np.inf
    for a in range(n_arms):
        if uc[a, 0] <= tau and (best1 < 0 or ur[a] > best_v or (ur[a] == best_v and raw[a] > best_s)):
            best1 = a
            best_v = ur[a]
            best_s = raw[a]
    for a in range(n_arms):
        probs[a] = 0.0
    if best1 < 0:
        return -np.inf
    for a1 in range(n_arms):
        c1 = uc[a1, 0]
        if c1 >= tau:
            continue
        r1 = ur[a1]
        s1 = raw[a1]
        for a2 in range(n_arms):
            c2 = uc[a2, 0]
            if c2 <= tau:
                continue
            w = (tau - c1) / (c2 - c1)
            v = r1 + (ur[a2] - r1) * w
            if v > best_v or (v == best_v and s1 + (raw[a2] - s1) * w > best_s):
                best1 = a1
                best2 = a2
                best_v = v
                best_s = s1 + (raw[a2] - s1) * w
    if best2 < 0:
        probs[best1] = 1.0
    else:
        c1 = uc[best1, 0]
        c2 = uc[best2, 0]
        probs[best1] = (c2 - tau) / (c2 - c1)  # eq. (44)
        probs[best2] = (tau - c1) / (c2 - c1)
    return best_v


@numba.njit(cache=True)
def sample_arm(probs, u):
    """Arm drawn from ``probs`` with the uniform ``u`` (inverse CDF; the last arm of the support on
    rounding)."""
    acc = 0.0
    last = 0
    for a in range(probs.shape[0]):
        p = probs[a]
        if p > 0.0:
            last = a
            acc += p
            if u < acc:
                return a
    return last


@numba.njit(cache=True)
def choose_arm(counts, reward_sums, cost_sums, fparams, iparams, safe_cost, tau, ur, raw, uc, probs, uniforms,
            counters):  # fmt: skip
    """One round (single constraint): the policy into ``probs`` (LP (37) on the indices; the safe arm
    alone if nothing is feasible or in safe-only mode) and the arm sampled with the next uniform."""
    safe = iparams[_SAFE]
    if iparams[_SAFE_ONLY] != 0:
        for a in range(probs.shape[0]):
            probs[a] = 0.0
        probs[safe] = 1.0
    else:
        opb_indices(counts, reward_sums, cost_sums, fparams, iparams, safe_cost, ur, raw, uc)
        if lp_closed_form(ur, raw, uc, tau[0], probs) == -np.inf:
            probs[safe] = 1.0
            counters[_INFEASIBLE] += 1
    u = uniforms[counters[_UPOS]]
    counters[_UPOS] += 1
    return sample_arm(probs, u)


@numba.njit(cache=True)
def run_loop(counts, reward_sums, cost_sums, fparams, iparams, safe_cost, tau, ur, raw, uc, probs,
             uniforms, counters, means, noise_code, sigma, variates, start, stop, out_arms,
             out_probs):  # fmt: skip
    """Rounds on variate rows ``start, start+1, ...`` until ``stop`` or the uniform buffer runs dry.

    Per round: :func:`choose_arm`, then the observation of every signal ``j`` of the pulled arm,
    ``observe_code(noise_code, sigma, means[arm, j], variates[row, j])`` (column 0 the reward, then the
    costs), then the count and sums update. Writes the arm and policy of each round into ``out_arms``
    and ``out_probs``; returns the first unused row.
    """
    m = cost_sums.shape[1]
    j = start
    while j < stop:
        if counters[_UPOS] >= uniforms.shape[0]:
            break
        arm = choose_arm(
            counts, reward_sums, cost_sums, fparams, iparams, safe_cost, tau, ur, raw, uc, probs,
            uniforms, counters,
        )  # fmt: skip
        out_arms[j] = arm
        for a in range(probs.shape[0]):
            out_probs[j, a] = probs[a]
        counts[arm] += 1
        reward_sums[arm] += observe_code(noise_code, sigma, means[arm, 0], variates[j, 0])
        for i in range(m):
            cost_sums[arm, i] += observe_code(noise_code, sigma, means[arm, 1 + i], variates[j, 1 + i])
        j += 1
    return j


def solve_index_lp(
    ur: FloatArray, uc: FloatArray, tau: float | FloatArray, tiebreak: FloatArray | None = None
) -> tuple[float, FloatArray] | None:
    """LP (37): ``max pi . ur`` s.t. ``pi . uc[:, i] <= tau_i``, ``pi`` in the simplex.

    One constraint: the closed form :func:`lp_closed_form` (support at most 2). Several: HiGHS on the
    objective ``ur + TIE_EPS * tiebreak / max|tiebreak|`` (support at most ``m + 1``). The value is
    ``pi . ur``.

    Parameters
    ----------
    ur : ndarray of shape (K,)
    uc : ndarray of shape (K,) or (K, m)
    tau : float or ndarray of shape (m,)
    tiebreak : ndarray of shape (K,), optional
        Secondary objective for exact ties (OPB: the unclipped reward index); default ``ur``.

    Returns
    -------
    (value, pi) or None if no policy is feasible.
    """
    ur = np.ascontiguousarray(ur, dtype=np.float64)
    uc2 = np.ascontiguousarray(np.asarray(uc, dtype=np.float64).reshape(ur.shape[0], -1))
    tau_v = np.atleast_1d(np.asarray(tau, dtype=np.float64))
    raw = ur if tiebreak is None else np.ascontiguousarray(tiebreak, dtype=np.float64)
    if uc2.shape[1] == 1:
        probs = np.zeros(ur.shape[0])
        value = lp_closed_form(ur, raw, uc2, float(tau_v[0]), probs)
        return None if value == -np.inf else (float(value), probs)
    scale = max(float(np.max(np.abs(raw))), 1.0)
    res = solve_policy_lp(ur + TIE_EPS * raw / scale, uc2, tau_v)
    if res is None:
        return None
    pi = res[1]
    return float(pi @ ur), pi


# --------------------------------------------------------------------------------------------------
# learner
# --------------------------------------------------------------------------------------------------
def _check_info(info: Any) -> tuple[int, int, int]:
    """Validate a K-armed stage-wise info; return ``(K, m, safe_arm)``."""
    arms = np.asarray(getattr(info, "arms", None), dtype=np.float64)
    if getattr(info, "action_set", None) != "simplex" or arms.ndim != 2 or arms.shape[0] != arms.shape[1]:
        raise ConfigError(
            "OPB needs a K-armed stage-wise problem (action_set='simplex', arms = I_K). "
            f"Got action_set={getattr(info, 'action_set', None)!r}, arms of shape {arms.shape}."
        )
    k = arms.shape[0]
    if not np.array_equal(arms, np.eye(k)):
        raise ConfigError("OPB needs arms = I_K (the K-armed problem written as a linear one).")
    safe = info.safe_arm
    if safe is None or not 0 <= safe < k:
        raise ConfigError(f"OPB needs a safe arm in [0, {k}). Got safe_arm={safe!r}.")
    tau = np.atleast_1d(np.asarray(info.threshold, dtype=np.float64))
    if tau.ndim != 1 or tau.size == 0 or not np.all(np.isfinite(tau)):
        raise ConfigError(f"OPB needs finite thresholds of shape (m,). Got {info.threshold!r}.")
    if info.safe_cost is not None and np.any(np.asarray(info.safe_cost) >= tau):
        raise ConfigError(
            f"OPB cannot start: the safe arm's cost must be below every threshold (Assumption 43): c_1 = "
            f"{np.asarray(info.safe_cost).tolist()}, tau = {tau.tolist()}. Change the safe arm (safe_arm) to "
            "one whose cost is strictly below the thresholds, or the thresholds."
        )
    return k, tau.shape[0], int(safe)


@register_algorithm(
    "opb",
    task="regret",
    description="OPB: optimistic reward, pessimistic cost indices and an LP over K arms "
    "(Pacchiano et al., Algorithm 3; in-expectation stage-wise constraints).",
)
class OPB(BaseLearner):
    """Optimism-pessimism bandit for K arms with in-expectation stage-wise constraints (Algorithm 3).

    Parameters
    ----------
    config : OPBConfig
    info : StagewiseInfo
        A K-armed problem (``action_set="simplex"``, ``arms = I_K``, ``safe_arm``); ``safe_reward`` /
        ``safe_cost`` ``None`` means unknown (warm start first, Algorithm 5).
    rng : numpy.random.Generator
        Learner randomness: one uniform per round (the draw ``a ~ pi_t``), in blocks.

    Notes
    -----
    Glossary (paper -> code): ``T_a(t)`` -> ``counts``; ``r_hat_a, c_hat_a`` -> ``reward_sums / counts``,
    ``cost_sums / counts``; ``beta_a(t)`` -> ``sqrt(log_term / max(T_a, 1))`` with ``log_term =
    2 R^2 log(1/delta')``; ``u^r_a, u^c_a`` -> :meth:`indices`; ``pi_t`` -> ``Decision.probs``;
    ``r_1, c_1`` -> ``info.safe_reward, info.safe_cost``.

    Guarantee (Thm. 31): with the theory radii, ``confidence="theory"``, known ``r_1, c_1`` and an
    ``R``-sub-Gaussian noise, every policy satisfies the constraints and the regret is
    ``O((1 + (1 - r_1)/(tau - c_1)) sqrt(K T log(KT/delta)))`` with probability at least ``1 - delta``.
    Deviations: see the module docstring and ``docs/decisions/stagewise.md``.
    """

    config_cls = OPBConfig
    setting = "expectation"

    def __init__(self, config: OPBConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        k, m, safe = _check_info(info)
        c = config
        horizon = int(c.horizon if c.horizon is not None else info.horizon)
        delta_prime = c.delta / (4.0 * k * horizon) if c.confidence == "theory" else 1.0 / horizon**2
        known = info.safe_reward is not None and info.safe_cost is not None
        if c.safe_reward == "known" and info.safe_reward is None:
            raise ConfigError("OPB: safe_reward='known' needs a known safe reward r_1 (info.safe_reward).")
        self._k, self._m, self._safe = k, m, safe
        self.horizon = horizon
        self.delta_prime = delta_prime
        self.tau = np.ascontiguousarray(np.atleast_1d(np.asarray(info.threshold, dtype=np.float64)))
        self._counts = np.zeros(k, dtype=np.int64)
        self._reward_sums = np.zeros(k)
        self._cost_sums = np.zeros((k, m))
        self._ur, self._raw, self._uc = np.zeros(k), np.zeros(k), np.zeros((k, m))
        self._probs = np.zeros(k)
        self._uniforms = np.zeros(UNIFORM_BLOCK)
        self._counters = np.array([UNIFORM_BLOCK, 0], dtype=np.int64)
        self._safe_cost = np.zeros(m)
        if known:
            self._safe_cost[:] = np.asarray(info.safe_cost, dtype=np.float64).reshape(m)
        r1 = float(info.safe_reward) if info.safe_reward is not None else 0.0
        log_term = 2.0 * c.noise_bound**2 * math.log(1.0 / delta_prime)
        self._fparams = np.array([1.0, 1.0, log_term, r1])
        self._iparams = np.array(
            [safe, int(known), int(c.safe_reward == "known"), int(c.clip), int(c.unpulled == "paper"), 0],
            dtype=np.int64,
        )
        self._safe_probs = np.zeros(k)
        self._safe_probs[safe] = 1.0
        self._safe_probs.setflags(write=False)
        self.warm_start: SafeValueWarmStart | None = None
        if known:
            self._set_alphas(r1, float(np.min(self.tau - self._safe_cost)), None)
        else:
            self.warm_start = SafeValueWarmStart(
                info,
                c.warm_start_delta if c.warm_start_delta is not None else c.delta,
                horizon,
                noise_bound=c.noise_bound,
                max_rounds=c.warm_start_cap if c.warm_start_cap is not None else horizon,
            )
        self._state = (
            self._counts, self._reward_sums, self._cost_sums, self._fparams, self._iparams, self._safe_cost,
            self.tau, self._ur, self._raw, self._uc, self._probs, self._uniforms, self._counters,
        )  # fmt: skip
        self._index_args = (
            self._counts, self._reward_sums, self._cost_sums, self._fparams, self._iparams, self._safe_cost,
            self._ur, self._raw, self._uc,
        )  # fmt: skip
        self._ask_kernel = bind_kernel(choose_arm, self._state)
        self._index_kernel = bind_kernel(opb_indices, self._index_args)
        self._drew_uniform = False

    # -- radii ------------------------------------------------------------------------------------
    def _set_alphas(self, r1: float, gap_c: float, estimates: Any) -> None:
        c = self.config
        if c.radii == "code":
            alpha_r, alpha_c = 1.0 + 1.0 / float(np.min(self.tau)), 1.0
        elif estimates is not None:
            alpha_r, alpha_c = alpha_from_estimates(
                estimates.delta_r_hat, estimates.delta_c_hat, mode=c.warm_start_alpha
            )
        else:
            alpha_r, alpha_c = 1.0 + 2.0 * (1.0 - r1) / gap_c, 1.0
        self._fparams[_AR] = c.alpha_r if c.alpha_r is not None else alpha_r
        self._fparams[_AC] = c.alpha_c if c.alpha_c is not None else alpha_c

    def _finish_warm_start(self) -> None:
        est = self.warm_start.estimates
        if est.certified:
            self._set_alphas(0.0, 0.0, est)
        else:  # the gaps were never certified: nothing but the safe arm is known to be safe
            self._set_alphas(1.0, 1.0, None)
            self._iparams[_SAFE_ONLY] = 1

    @property
    def alpha_r(self) -> float:
        return float(self._fparams[_AR])

    @property
    def alpha_c(self) -> float:
        return float(self._fparams[_AC])

    @property
    def n_arms(self) -> int:
        return self._k

    @property
    def in_warm_start(self) -> bool:
        return self.warm_start is not None and not self.warm_start.done

    @property
    def counts(self) -> np.ndarray:
        """Pulls of every arm (warm-start pulls of the safe arm included)."""
        return self._counts.copy()

    def indices(self) -> tuple[FloatArray, FloatArray]:
        """Current indices ``(u^r, u^c)``, shapes (K,) and (K, m) (clipped if ``clip``)."""
        self._index_kernel(*self._index_args)
        return self._ur.copy(), self._uc.copy()

    def policy(self) -> FloatArray:
        """The policy ``pi_t`` LP (37) gives now (no uniform is drawn)."""
        if self._iparams[_SAFE_ONLY] or self.in_warm_start:
            return self._safe_probs.copy()
        self._index_kernel(*self._index_args)
        res = solve_index_lp(self._ur, self._uc, self.tau, self._raw)
        return self._safe_probs.copy() if res is None else res[1]

    def diagnostics(self) -> dict[str, Any]:
        """Radii, level, pulls, infeasible rounds and the warm start's estimates."""
        ws = self.warm_start
        return {
            "alpha_r": self.alpha_r,
            "alpha_c": self.alpha_c,
            "delta_prime": self.delta_prime,
            "counts": self._counts.tolist(),
            "infeasible_rounds": int(self._counters[_INFEASIBLE]),
            "warm_start": ws.estimates.as_dict() if ws is not None and ws.done else None,
        }

    # -- protocol ---------------------------------------------------------------------------------
    def _refill_uniforms(self) -> None:
        if self._counters[_UPOS] >= UNIFORM_BLOCK:
            self._uniforms[:] = self.rng.random(UNIFORM_BLOCK)
            self._counters[_UPOS] = 0

    def _ask(self, context: Any) -> Decision:
        if context is not None:
            raise ConfigError("OPB plays a fixed set of K arms; ask() takes no context.")
        if self.in_warm_start:
            self._drew_uniform = False
            return Decision(arm=self._safe, probs=self._safe_probs)
        self._refill_uniforms()
        self._drew_uniform = True
        if self._m == 1 or self._iparams[_SAFE_ONLY]:
            arm = int(self._ask_kernel(*self._state))
            return Decision(arm=arm, probs=self._probs.copy())
        self._index_kernel(*self._index_args)
        res = solve_index_lp(self._ur, self._uc, self.tau, self._raw)
        if res is None:
            probs = self._safe_probs.copy()
            self._counters[_INFEASIBLE] += 1
        else:
            probs = res[1]
        u = self._uniforms[self._counters[_UPOS]]
        self._counters[_UPOS] += 1
        return Decision(arm=int(sample_arm(probs, u)), probs=probs)

    def cancel(self) -> None:
        super().cancel()
        if self._drew_uniform:  # give the uniform back: the next ask draws the same arm
            self._counters[_UPOS] -= 1
            self._drew_uniform = False

    def _tell(self, decision: Decision, observation: Any) -> None:
        if not isinstance(observation, Observation) or observation.reward is None:
            raise ProtocolError("OPB must be told an Observation with a reward and the costs.")
        costs = np.asarray(observation.constraints, dtype=np.float64).reshape(-1)
        if costs.shape[0] != self._m:
            raise ProtocolError(f"OPB expects {self._m} cost values; got {costs.shape[0]}.")
        a = int(decision.arm)
        reward = float(observation.reward)
        self._counts[a] += 1
        self._reward_sums[a] += reward
        self._cost_sums[a] += costs
        self._drew_uniform = False
        if self.in_warm_start:
            self.warm_start.tell(reward, costs)
            if self.warm_start.done:
                self._finish_warm_start()

    # -- compiled simulation ----------------------------------------------------------------------
    def simulate(self, env: Any, n_rounds: int) -> PlayedBlock:
        """Play ``n_rounds`` rounds on ``env``; same trajectory as ask / ``env.play`` / tell.

        Warm-start rounds and multi-constraint rounds go through ask / tell; single-constraint rounds
        run in :func:`run_loop` on ``env.take_variates`` rows and the learner's uniform buffer.

        Parameters
        ----------
        env : LinearFeedbackEnvironment
            Of the same K-armed instance (``env.params`` rows are the arms' means).
        n_rounds : int >= 0

        Returns
        -------
        PlayedBlock
            ``points`` (one-hot rows of the pulled arms) and ``probs`` (the policies), shape (n_rounds, K).
        """
        if self._pending is not None:
            raise ProtocolError("OPB.simulate called with a pending ask; tell it first.")
        n_rounds = check_int(n_rounds, "n_rounds", low=0)
        k = self._k
        points = np.zeros((n_rounds, k))
        probs = np.zeros((n_rounds, k))
        arms = np.asarray(env.arms, dtype=np.float64)
        code = getattr(env.noise, "code", None)
        compiled = self._m == 1 and arms.shape == (k, k) and code in (0, 1, 2)
        j = 0
        while j < n_rounds and (self.in_warm_start or not compiled):
            decision = self.ask()
            self.tell(decision, env.play(decision))
            points[j] = arms[decision.arm]
            probs[j] = decision.probs
            j += 1
        if j < n_rounds:
            means = np.ascontiguousarray(arms @ env.params)
            sigma = float(getattr(env.noise, "sigma", 0.0))
            n = n_rounds - j
            variates = np.ascontiguousarray(env.take_variates(n), dtype=np.float64)
            out_arms = np.zeros(n, dtype=np.int64)
            out_probs = probs[j:]
            i = 0
            while i < n:
                self._refill_uniforms()
                i = run_loop(*self._state, means, int(code), sigma, variates, i, n, out_arms, out_probs)
            points[j:] = arms[out_arms]
            self.n_samples += n
            env.n_samples += n
        return PlayedBlock(points, probs)
