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
from collections.abc import Mapping
from typing import Any, ClassVar, Literal, NamedTuple

import numba
import numpy as np

from safebandits._numba import bind_kernel, by_reference
from safebandits._validation import (
    check_choice,
    check_int,
    check_interval,
    check_literal_fields,
    check_positive,
)
from safebandits.algorithms._driver import count_pull, make_driver
from safebandits.algorithms.assumptions import check_unit_means
from safebandits.algorithms.base import BaseLearner, CompiledRounds, LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret.warm_start import SafeValueWarmStart, alpha_from_estimates
from safebandits.estimators.bounded import (
    BOUND_SOURCES,
    UNIT_OUTCOMES,
    kl_upper,
    kl_upper_scalar,
    mixture_upper_scalar,
)
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.problems.stagewise import solve_policy_lp
from safebandits.records import ArmEstimates, Certificate, PlayedBlock, interval_estimates
from safebandits.types import Decision, FloatArray, Observation

__all__ = [
    "AUTO_BOUND",
    "INFEASIBLE",
    "NO_ARM",
    "OPB",
    "OPBConfig",
    "OPBConstants",
    "OPBRun",
    "OPBState",
    "add_observation",
    "bound_statement",
    "check_bound",
    "choose_arm",
    "lp_closed_form",
    "opb_indices",
    "opb_rounds",
    "opb_select",
    "opb_update",
    "resolve_bound",
    "solve_index_lp",
    "solve_index_lp_scipy",
]

#: ``tuple.__new__``: a :class:`~safebandits.types.Decision` from its four fields without the
#: NamedTuple's Python-level ``__new__`` (the ask / tell hot path).
_new_decision = tuple.__new__

#: Learner uniforms drawn per refill of the buffer shared by ``ask`` and :data:`opb_rounds`.
UNIFORM_BLOCK = 1024
#: :func:`lp_closed_form`'s value when no arm is feasible (no policy).
INFEASIBLE = -math.inf
#: No arm (:func:`lp_closed_form`'s search before it found one, or a policy with one arm only).
NO_ARM = -1


class OPBConstants(NamedTuple):
    """Fixed settings of one OPB run (read by the compiled kernels)."""

    safe: int  #: the safe arm (arm 1 of the paper)
    cost_known: bool  #: ``c_1`` known: the safe arm's cost index is ``c_1``
    reward_known: bool  #: ``safe_reward="known"``: the safe arm's reward index is ``r_1``
    clip: bool  #: clip every index to ``[0, 1]``
    paper_unpulled: bool  #: ``unpulled="paper"``: ``beta_a(0) = 0`` with zero estimates
    log_term: float  #: ``2 R^2 log(1 / delta')`` (``beta_a = sqrt(log_term / T_a)``)
    r1: float  #: the known safe reward ``r_1`` (0 when unknown)
    kl: bool  #: ``bound="kl"``: cost indices from the KL (Chernoff) upper bound
    mixture: bool  #: ``bound="beta-mixture"``: cost indices from the beta-mixture confidence sequence
    level: float  #: the level of the cost bound: ``log(1 / delta')`` (KL), ``log(1 / (T delta'))`` (mixture)


#: The scalars that change during a run: the radii (set after the warm start), the safe-only mode, the
#: position in the uniform buffer and the count of rounds whose LP was infeasible. One record (a numpy
#: structured scalar), written in place by the kernels and by the learner.
OPB_LIVE = np.dtype(
    [("alpha_r", np.float64), ("alpha_c", np.float64), ("safe_only", np.bool_), ("upos", np.int64),
     ("infeasible", np.int64)]
)  # fmt: skip


class OPBState(NamedTuple):
    """Everything the compiled OPB kernels read and write, by name.

    ``counts`` ``T_a``, ``reward_sums`` / ``cost_sums`` (K,) / (K, m) the sums of observations;
    ``safe_cost`` ``c_1`` (zeros when unknown), ``tau`` the thresholds; ``ur``, ``raw``, ``uc`` the
    clipped and unclipped reward indices and the cost indices; ``probs`` the round's policy;
    ``uniforms`` the learner's uniform buffer; ``const`` / ``live`` the fixed and changing scalars.
    """

    counts: np.ndarray
    reward_sums: np.ndarray
    cost_sums: np.ndarray
    safe_cost: np.ndarray
    tau: np.ndarray
    ur: np.ndarray
    raw: np.ndarray
    uc: np.ndarray
    probs: np.ndarray
    uniforms: np.ndarray
    const: OPBConstants
    live: np.ndarray  # one element of dtype OPB_LIVE: the kernels read its record live[0]


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
    bound : {"auto", "sub-gaussian", "kl", "beta-mixture"}, default "auto"
        The cost indices' confidence bound. ``"auto"`` (:func:`resolve_bound`): :data:`AUTO_BOUND`
        (``"kl"``) on a declared problem (``info.declared``) whose feedback lies in ``[0, 1]`` (Bernoulli),
        else ``"sub-gaussian"`` (every paper instance: the paper's index); the bound in force is in
        :meth:`OPB.applied_config` and, under ``"auto"``, in the diagnostics (``bound``).
        ``"sub-gaussian"``: ``c_hat_a + alpha_c beta_a`` (the paper's);
        ``"kl"``: ``c_hat_a + alpha_c (u_a - c_hat_a)`` with ``u_a`` the KL (Chernoff) upper bound at
        level ``log(1 / delta')`` (:func:`~safebandits.estimators.bounded.kl_upper`), never above the
        paper's index; ``"beta-mixture"``: ``u_a`` the beta-mixture confidence sequence's upper end at
        level ``log(1 / (T delta'))`` (valid at every count at once: the budget the union over counts
        gives an arm). Need costs observed in ``[0, 1]`` (Bernoulli or clipped-Gaussian feedback). The
        reward indices keep ``beta_a``. See docs/decisions/bounds.md.
    lp_solver : {"closed-form", "linprog"}, default "closed-form"
        How LP (37) is solved. ``"closed-form"``: Lemma 40's vertices (one constraint; HiGHS with a
        tie-breaking perturbation for several), exact ties to the larger unclipped index;
        ``"linprog"``: ``scipy.optimize.linprog`` on the indices as they are (no tie rule of ours: the
        vertex SciPy's default solver returns), as the authors' code solves it. Slower: every round goes
        through ask / tell.
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
    lp_solver: Literal["closed-form", "linprog"] = "closed-form"
    bound: Literal["auto", "sub-gaussian", "kl", "beta-mixture"] = "auto"

    #: Added with issue 45, after the archived runs: at the paper's bound it is not in their keys (the paper
    #: experiments state it: their runs keep their keys; a run stored without it ran the paper's bound).
    unkeyed: ClassVar[Mapping[str, Any]] = {"bound": "sub-gaussian"}

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        check_literal_fields(self, owner=owner)
        for name in ("alpha_r", "alpha_c"):
            if getattr(self, name) is not None:
                check_positive(getattr(self, name), name, owner=owner)
        check_positive(self.noise_bound, "noise_bound", owner=owner)
        check_choice(self.clip, "clip", (True, False), owner=owner)
        if self.horizon is not None:
            check_int(self.horizon, "horizon", low=1, owner=owner)
        if self.warm_start_delta is not None:
            check_interval(self.warm_start_delta, "warm_start_delta", low=0.0, high=1.0, owner=owner)
        if self.warm_start_cap is not None:
            check_int(self.warm_start_cap, "warm_start_cap", low=1, owner=owner)


#: What ``bound="auto"`` gives on a declared problem whose feedback lies in ``[0, 1]``: the tightest bound OPB
#: offers under which its whole guarantee is stated. The KL bound is never wider than the paper's index at
#: the same level (Pinsker), so the promise holds with the same probability and the index stays within
#: ``2 beta_a`` of the mean, the range Thm. 31's regret proof uses (expected to carry over, not re-derived
#: line by line); the beta mixture is tighter at trial sizes but not below Hoeffding's radius at every
#: count, so for it only the promise is stated (docs/decisions/bounds.md).
AUTO_BOUND = "kl"

#: What each bound in force keeps of OPB's guarantee (Thm. 31).
_BOUND_GUARANTEE = {
    "sub-gaussian": "the paper's index: Thm. 31's promise and regret bound as stated",
    "kl": "the promise (expected cost within the limit) holds with the same probability as with the paper's "
    "index; Thm. 31's regret bound is expected to carry over (the index stays within 2 beta_a of the mean; "
    "not re-derived line by line)",
    "beta-mixture": "the promise (expected cost within the limit) holds; no regret bound is stated (its "
    "radius is not below Hoeffding's at every count)",
}


def resolve_bound(bound: str, info: Any) -> str:
    """The cost bound OPB runs with: ``bound`` itself unless it is ``"auto"``; ``"auto"`` is
    :data:`AUTO_BOUND` on a problem the user declared (``info.declared``) with feedback in ``[0, 1]``
    (``info.noise_kind`` in :data:`~safebandits.estimators.bounded.UNIT_OUTCOMES`), else ``"sub-gaussian"``
    (the paper's index: paper instances, and feedback not known to lie in ``[0, 1]``)."""
    if bound != "auto":
        return bound
    kind = str(getattr(info, "noise_kind", "gaussian"))
    return AUTO_BOUND if bool(getattr(info, "declared", False)) and kind in UNIT_OUTCOMES else "sub-gaussian"


def check_bound(bound: str, info: Any) -> str:
    """:func:`resolve_bound`, refused (:class:`ConfigError`) when the bound does not hold for the feedback."""
    kind = str(getattr(info, "noise_kind", "gaussian"))
    got = resolve_bound(bound, info)
    if got != "sub-gaussian" and kind not in UNIT_OUTCOMES:
        raise ConfigError(
            f"OPB: bound={bound!r} needs costs observed in [0, 1] (feedback {' or '.join(UNIT_OUTCOMES)}); "
            f"this problem's feedback is {kind!r}. Use bound='sub-gaussian' or 'auto'."
        )
    return got


def bound_statement(bound: str, info: Any) -> str:
    """The cost bound OPB runs with on ``info``, how it was chosen, its source and what it keeps of the
    guarantee (the sentence ``learners --for``, ``run`` and the report print)."""
    got = check_bound(bound, info)
    kind = str(getattr(info, "noise_kind", "gaussian"))
    if bound != "auto":
        how = "your choice"
    elif got == AUTO_BOUND:
        how = f"the default 'auto' on your declared {kind} feedback (outcomes in [0, 1])"
    elif bool(getattr(info, "declared", False)):
        how = f"the default 'auto': your {kind} feedback is not known to lie in [0, 1]"
    else:
        how = "the default 'auto' on a paper's instance: the paper's index"
    return f"cost bound {got!r} ({how}): {BOUND_SOURCES[got]}; {_BOUND_GUARANTEE[got]}."


def _mixture_upper(totals: FloatArray, counts: FloatArray, level: FloatArray) -> FloatArray:
    """:func:`~safebandits.estimators.bounded.mixture_upper_scalar` elementwise (the estimates' table)."""
    out = [mixture_upper_scalar(*v) for v in zip(totals.ravel(), counts.ravel(), level.ravel(), strict=True)]
    return np.array(out, dtype=np.float64).reshape(totals.shape)


# --------------------------------------------------------------------------------------------------
# compiled kernels
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def opb_indices(st):
    """Indices of every arm (Algorithm 3, line 3; Sec. 5.2) into ``st.ur`` (clipped) and ``st.raw``
    (unclipped) reward indices and ``st.uc`` (shape (K, m)) cost indices; the safe arm's cost index is
    ``c_1`` when it is known."""
    n_arms, m = st.cost_sums.shape
    const, live = st.const, st.live[0]
    alpha_r, alpha_c, log_term, level = live.alpha_r, live.alpha_c, const.log_term, const.level
    safe, clip = const.safe, const.clip
    for a in range(n_arms):
        n = st.counts[a]
        if n > 0:
            r_hat = st.reward_sums[a] / n
            beta = math.sqrt(log_term / n)  # beta_a = R sqrt(2 log(1/delta') / T_a)
        elif const.paper_unpulled:
            r_hat = 0.0
            beta = 0.0
        else:
            r_hat = 0.0
            beta = math.sqrt(log_term)
        v = r_hat + alpha_r * beta  # u^r_a
        if a == safe and const.reward_known:
            v = const.r1
        st.raw[a] = v
        st.ur[a] = min(max(v, 0.0), 1.0) if clip else v
        for i in range(m):
            if a == safe and const.cost_known:
                st.uc[a, i] = st.safe_cost[i]
                continue
            if n > 0:
                c = st.cost_sums[a, i] / n
                if const.kl:  # (the KL radius in place of beta_a: never larger, by Pinsker)
                    c += alpha_c * (kl_upper_scalar(min(max(c, 0.0), 1.0), n, level) - c)
                elif const.mixture:
                    c += alpha_c * (mixture_upper_scalar(min(max(c, 0.0), 1.0) * n, n, level) - c)
                else:
                    c += alpha_c * beta  # u^c_a
            else:
                c = (0.0 if const.paper_unpulled else 1.0) + alpha_c * beta
            st.uc[a, i] = min(max(c, 0.0), 1.0) if clip else c


@numba.njit(cache=True)
def lp_closed_form(ur, raw, uc, tau, probs):
    """LP (37) with one constraint (column 0 of ``uc``), in closed form (Lemma 40, eq. 44).

    Candidates are the vertices of ``{pi in simplex : pi . uc <= tau}``: arms with ``uc <= tau`` and
    pairs ``uc_{a1} < tau < uc_{a2}`` mixed so that the expected index cost is ``tau``. Best value of
    ``pi . ur`` wins; exact ties go to the larger ``pi . raw``, then to the singleton and the lowest
    indices. Writes the policy into ``probs`` and returns its value (:data:`INFEASIBLE` if no arm is
    feasible, ``probs`` then all zero). ``O(K^2)``. Algorithm 3, lines 4-5.
    """
    n_arms = ur.shape[0]
    best1 = NO_ARM  # the best singleton, then the pair's first arm
    best2 = NO_ARM  # the pair's second arm (none: a singleton)
    best_v = -np.inf
    best_s = -np.inf
    for a in range(n_arms):
        if uc[a, 0] <= tau and (best1 == NO_ARM or ur[a] > best_v or (ur[a] == best_v and raw[a] > best_s)):
            best1 = a
            best_v = ur[a]
            best_s = raw[a]
    for a in range(n_arms):
        probs[a] = 0.0
    if best1 == NO_ARM:
        return INFEASIBLE
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
    if best2 == NO_ARM:
        probs[best1] = 1.0
    else:
        c1 = uc[best1, 0]
        c2 = uc[best2, 0]
        probs[best1] = (c2 - tau) / (c2 - c1)  # eq. (44)
        probs[best2] = (tau - c1) / (c2 - c1)
    return best_v


@numba.njit(cache=True)
def sample_arm(probs, u):
    """Arm drawn from ``probs`` with the uniform ``u`` (Algorithm 3, line 6: ``a ~ pi_t``; inverse CDF, the
    last arm of the support on rounding)."""
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
def choose_arm(st):
    """One round (single constraint): the indices (Algorithm 3, line 3), the policy into ``st.probs``
    (lines 4-5: LP (37) on the indices; the safe arm alone if nothing is feasible or in safe-only mode) and
    the arm sampled with the next uniform (line 6)."""
    live = st.live[0]
    safe = st.const.safe
    if live.safe_only:
        for a in range(st.probs.shape[0]):
            st.probs[a] = 0.0
        st.probs[safe] = 1.0
    else:
        opb_indices(st)
        if lp_closed_form(st.ur, st.raw, st.uc, st.tau[0], st.probs) == INFEASIBLE:
            st.probs[safe] = 1.0
            live.infeasible += 1
    u = st.uniforms[live.upos]
    live.upos += 1
    return sample_arm(st.probs, u)


@numba.njit(cache=True)
def add_observation(st, arm, reward, costs):
    """Count one pull of ``arm`` and add its reward and costs to the sums of the estimates of Algorithm 3,
    line 3 (the ``tell`` of ask / tell, one compiled call instead of three numpy updates; the same
    additions)."""
    st.counts[arm] += 1
    st.reward_sums[arm] += reward
    for i in range(costs.shape[0]):
        st.cost_sums[arm, i] += costs[i]


@numba.njit(cache=True)
def choose_arm_entry(st):
    """:func:`choose_arm` called from Python: the records passed on by reference
    (:func:`~safebandits._numba.by_reference`), as the shared driver passes them, so that the kernel is
    compiled once for both paths."""
    return choose_arm(by_reference(st))


@numba.njit(cache=True)
def opb_indices_entry(st):
    """:func:`opb_indices` called from Python: the records passed on by reference
    (:func:`~safebandits._numba.by_reference`), as the shared driver passes them, so that the kernel is
    compiled once for both paths."""
    return opb_indices(by_reference(st))


class OPBRun(NamedTuple):
    """A block of rounds on the shared driver: the learner's state and the outputs, the arm (``arms``,
    (n,)) and the policy (``probs``, (n, K)) of each round."""

    st: OPBState
    arms: np.ndarray
    probs: np.ndarray


@numba.njit(cache=True, inline="always")
def opb_select(run, j):
    """Round ``j``: :func:`choose_arm` (Algorithm 3, lines 3-6: the policy, then the arm), written to
    ``run.arms[j]`` and ``run.probs[j]``; ``False`` (nothing played) when the uniform buffer ran dry."""
    st = run.st
    if st.live[0].upos >= st.uniforms.shape[0]:
        return False
    arm = choose_arm(st)
    run.arms[j] = arm
    for a in range(st.probs.shape[0]):
        run.probs[j, a] = st.probs[a]
    return True


@numba.njit(cache=True, inline="always")
def opb_update(run, j, y):
    """Count round ``j``'s pull and add its reward ``y[0]`` and costs ``y[1:]`` to the sums (the estimates
    of Algorithm 3, line 3)."""
    count_pull(run.st, run.arms[j], y)


#: The shared driver (:func:`~safebandits.algorithms._driver.make_driver`) over OPB's kernels:
#: ``opb_rounds(run, env, variates, (start, stop, mode)) -> j`` on an :class:`OPBRun` and the
#: environment's compiled feedback (the driver plays ``run.arms[j]``), the first row not played (refill the
#: uniforms and call again).
opb_rounds = make_driver("opb_rounds", opb_select, opb_update, __name__, plays="arms")


def solve_index_lp_scipy(ur: FloatArray, uc: FloatArray, tau: float | FloatArray) -> FloatArray | None:
    """LP (37) by ``scipy.optimize.linprog`` (its default method) on the indices as they are: ``min
    -pi . ur`` s.t. ``pi . uc[:, i] <= tau_i``, ``sum pi = 1``, ``pi >= 0``; the policy (tiny negative
    entries of the solver's output set to 0, then normalised) or ``None`` if infeasible. The authors' code
    solves its LP this way; on exact ties the vertex returned is the solver's."""
    from scipy.optimize import linprog

    ur = np.asarray(ur, dtype=np.float64)
    k = ur.shape[0]
    uc2 = np.asarray(uc, dtype=np.float64).reshape(k, -1)
    tau_v = np.atleast_1d(np.asarray(tau, dtype=np.float64))
    res = linprog(-ur, A_ub=uc2.T, b_ub=tau_v, A_eq=np.ones((1, k)), b_eq=np.ones(1), bounds=(0, None))
    if res.status != 0 or res.x is None:
        return None
    pi = np.maximum(np.asarray(res.x, dtype=np.float64), 0.0)
    return pi / pi.sum()


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
        return None if value == INFEASIBLE else (float(value), probs)
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
    # c_1 < tau (Assumption 43, the K-armed Assumption 5) is checked by StagewiseInfo itself
    return k, tau.shape[0], int(safe)


@register_algorithm(
    "opb",
    task="regret",
    description="OPB: optimistic reward, pessimistic cost indices and an LP over K arms "
    "(Pacchiano et al., Algorithm 3; in-expectation stage-wise constraints).",
    info="k-armed",
    guarantee="expectation",
    assumptions=("means-at-most-1", "noise", "safe-action"),
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
        check_unit_means(  # (its indices are clipped at 1: means above 1 break its promise)
            "OPB",
            info,
            "its indices are clipped at 1 (an unpulled arm's cost index is 1), so the expected "
            "cost of its policies can exceed the threshold",
        )
        c = config
        #: The cost bound in force (``bound="auto"`` resolved: :func:`resolve_bound`).
        self.bound = bound = check_bound(c.bound, info)
        horizon = int(c.horizon if c.horizon is not None else info.horizon)
        delta_prime = c.delta / (4.0 * k * horizon) if c.confidence == "theory" else 1.0 / horizon**2
        known = info.safe_reward is not None and info.safe_cost is not None
        if c.safe_reward == "known" and info.safe_reward is None:
            raise ConfigError("OPB: safe_reward='known' needs a known safe reward r_1 (info.safe_reward).")
        self._k, self._m, self._safe = k, m, safe
        self.horizon = horizon
        self.delta_prime = delta_prime
        self.tau = np.ascontiguousarray(np.atleast_1d(np.asarray(info.threshold, dtype=np.float64)))
        safe_cost = np.zeros(m)
        if known:
            safe_cost[:] = np.asarray(info.safe_cost, dtype=np.float64).reshape(m)
        r1 = float(info.safe_reward) if info.safe_reward is not None else 0.0
        const = OPBConstants(
            safe=safe, cost_known=known, reward_known=c.safe_reward == "known", clip=bool(c.clip),
            paper_unpulled=c.unpulled == "paper",
            log_term=2.0 * c.noise_bound**2 * math.log(1.0 / delta_prime), r1=r1, kl=bound == "kl",
            mixture=bound == "beta-mixture",
            level=math.log(1.0 / (delta_prime * (horizon if bound == "beta-mixture" else 1))),
        )  # fmt: skip
        live_block = np.zeros(1, dtype=OPB_LIVE)  # the kernels read its record live_block[0]
        live = live_block[0]  # a view: writes go through
        live["alpha_r"], live["alpha_c"], live["upos"] = 1.0, 1.0, UNIFORM_BLOCK
        #: The typed state the compiled kernels act on in place (never rebound).
        self.state = OPBState(
            counts=np.zeros(k, dtype=np.int64), reward_sums=np.zeros(k), cost_sums=np.zeros((k, m)),
            safe_cost=safe_cost, tau=self.tau, ur=np.zeros(k), raw=np.zeros(k), uc=np.zeros((k, m)),
            probs=np.zeros(k), uniforms=np.zeros(UNIFORM_BLOCK), const=const, live=live_block,
        )  # fmt: skip
        OPB._make_views(self)
        self._safe_probs = np.zeros(k)
        self._safe_probs[safe] = 1.0
        self._safe_probs.setflags(write=False)
        self.warm_start: SafeValueWarmStart | None = None
        if known:
            self._set_alphas(r1, float(np.min(self.tau - safe_cost)), None)
        else:
            self.warm_start = SafeValueWarmStart(
                info,
                c.warm_start_delta if c.warm_start_delta is not None else c.delta,
                horizon,
                noise_bound=c.noise_bound,
                max_rounds=c.warm_start_cap if c.warm_start_cap is not None else horizon,
            )
        # the statistics under their own names too (the same arrays)
        st = self.state
        self._counts, self._reward_sums, self._cost_sums = st.counts, st.reward_sums, st.cost_sums
        # the ask / tell path's kernels, bound on first use (simulate runs its own compiled loop)
        self._ask_kernel: Any = None
        self._index_kernel: Any = None
        self._add_kernel: Any = None
        self._drew_uniform = False

    # views of the state record kept beside it: a copy or a pickle leaves them out and makes them again
    # (Rebinding)
    _views = ("live", "_upos_at")

    def _make_views(self) -> None:
        live_block = self.state.live
        #: The changing scalars (the record of ``state.live``, a view: writes go through).
        self.live = live_block[0]
        self._upos_at = live_block["upos"]  # a one-element view, faster to index on every ask

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
        self.live["alpha_r"] = c.alpha_r if c.alpha_r is not None else alpha_r
        self.live["alpha_c"] = c.alpha_c if c.alpha_c is not None else alpha_c

    def _finish_warm_start(self) -> None:
        est = self.warm_start.estimates
        if est.certified:
            self._set_alphas(0.0, 0.0, est)
        else:  # the gaps were never certified: nothing but the safe arm is known to be safe
            self._set_alphas(1.0, 1.0, None)
            self.live["safe_only"] = True

    @property
    def alpha_r(self) -> float:
        return float(self.live["alpha_r"])

    @property
    def alpha_c(self) -> float:
        return float(self.live["alpha_c"])

    @property
    def n_arms(self) -> int:
        return self._k

    def _applied_options(self) -> dict[str, Any]:
        """The cost bound in force (``"auto"`` resolved) and the warm start's level and cap in force
        (``None`` when the safe values are known: no warm start)."""
        ws = self.warm_start
        if ws is None:
            return {"bound": self.bound}
        return {"bound": self.bound, "warm_start_delta": ws.delta, "warm_start_cap": ws.max_rounds}

    @staticmethod
    def bound_statement(config: OPBConfig, info: Any) -> str:
        """:func:`bound_statement` for ``config`` on ``info`` (read by
        :func:`~safebandits.algorithms.compatibility.guarantee_statement`)."""
        return bound_statement(config.bound, info)

    @property
    def in_warm_start(self) -> bool:
        return self.warm_start is not None and not self.warm_start.done

    @property
    def counts(self) -> np.ndarray:
        """Pulls of every arm (warm-start pulls of the safe arm included)."""
        return self.state.counts.copy()

    def _bind(self) -> None:
        st = self.state
        self._ask_kernel = bind_kernel(choose_arm_entry, (st,))
        self._index_kernel = bind_kernel(opb_indices_entry, (st,))
        self._add_kernel = bind_kernel(add_observation, (st, 0, 0.0, np.zeros(self._m)))

    def indices(self) -> tuple[FloatArray, FloatArray]:
        """Current indices ``(u^r, u^c)``, shapes (K,) and (K, m) (clipped if ``clip``)."""
        if self._index_kernel is None:
            self._bind()
        self._index_kernel(self.state)
        return self.state.ur.copy(), self.state.uc.copy()

    def policy(self) -> FloatArray:
        """The policy ``pi_t`` LP (37) gives now (no uniform is drawn)."""
        st = self.state
        if self.live["safe_only"] or self.in_warm_start:
            return self._safe_probs.copy()
        if self._index_kernel is None:
            self._bind()
        self._index_kernel(st)
        if self.config.lp_solver == "linprog":
            pi = solve_index_lp_scipy(st.ur, st.uc, self.tau)
            return self._safe_probs.copy() if pi is None else pi
        res = solve_index_lp(st.ur, st.uc, self.tau, st.raw)
        return self._safe_probs.copy() if res is None else res[1]

    def arm_estimates(self) -> ArmEstimates:
        """Per arm: ``r_hat_a`` and ``c_hat_a`` (empirical means) -+ ``alpha_r beta_a(t)`` and ``alpha_c
        beta_a(t)``, ``beta_a(t) = R sqrt(2 log(1/delta') / T_a(t))``: the upper ends are the indices
        ``u^r_a``, ``u^c_a`` the LP reads (before clipping). An arm not pulled yet has none; the safe arm's
        known ``r_1`` / ``c_1`` are exact."""
        st, const = self.state, self.state.const
        k, m = self._k, self._m
        n = st.counts.astype(np.float64)
        pulled = n > 0
        est = np.full((k, 1 + m), np.nan)
        est[pulled, 0] = st.reward_sums[pulled] / n[pulled]
        est[pulled, 1:] = st.cost_sums[pulled] / n[pulled, None]
        beta = np.zeros(k)
        beta[pulled] = np.sqrt(const.log_term / n[pulled])
        radius = np.column_stack([self.alpha_r * beta, np.repeat(self.alpha_c * beta[:, None], m, axis=1)])
        if const.kl or const.mixture:
            c_hat = np.clip(est[pulled, 1:], 0.0, 1.0)
            n_p = np.broadcast_to(n[pulled, None], c_hat.shape)
            level = np.full(c_hat.shape, const.level)
            upper = kl_upper(c_hat, n_p, level) if const.kl else _mixture_upper(c_hat * n_p, n_p, level)
            radius[pulled, 1:] = self.alpha_c * (upper - c_hat)
        if const.reward_known:
            est[self._safe, 0], radius[self._safe, 0] = const.r1, 0.0
        if const.cost_known:
            est[self._safe, 1:], radius[self._safe, 1:] = st.safe_cost, 0.0
        costs = ["cost"] if m == 1 else [f"cost {i + 1}" for i in range(m)]
        how = "empirical means -+ alpha beta_a(t), beta_a = R sqrt(2 log(1/delta') / T_a): the indices (5.2)"
        return interval_estimates(["reward", *costs], est, radius, [None, *self.tau.tolist()], interval=how)

    def diagnostics(self) -> dict[str, Any]:
        """Radii, level, pulls, infeasible rounds, the warm start's estimates and, under ``bound="auto"``,
        the cost bound in force (``bound``)."""
        ws = self.warm_start
        out = {
            "alpha_r": self.alpha_r,
            "alpha_c": self.alpha_c,
            "delta_prime": self.delta_prime,
            "counts": self.state.counts.tolist(),
            "infeasible_rounds": int(self.live["infeasible"]),
            "warm_start": ws.estimates.as_dict() if ws is not None and ws.done else None,
        }
        if self.config.bound == "auto":  # (the bound that ran; an explicit one is in the config itself)
            out["bound"] = self.bound
        return out

    # -- protocol ---------------------------------------------------------------------------------
    def _refill_uniforms(self) -> None:
        if self._upos_at[0] >= UNIFORM_BLOCK:
            self.state.uniforms[:] = self.rng.random(UNIFORM_BLOCK)
            self._upos_at[0] = 0

    def _ask(self, context: Any) -> Decision:
        if context is not None:
            raise ConfigError("OPB plays a fixed set of K arms; ask() takes no context.")
        ws = self.warm_start
        if ws is not None and not ws.done:
            self._drew_uniform = False
            return Decision(arm=self._safe, probs=self._safe_probs)
        if self._upos_at[0] >= UNIFORM_BLOCK:
            self._refill_uniforms()
        self._drew_uniform = True
        st = self.state
        if self._ask_kernel is None:
            self._bind()
        scipy_lp = self.config.lp_solver == "linprog"
        if (self._m == 1 and not scipy_lp) or self.live["safe_only"]:
            arm = int(self._ask_kernel(st))
            return _new_decision(Decision, (arm, None, st.probs.copy(), None))
        self._index_kernel(st)
        if scipy_lp:
            pi = solve_index_lp_scipy(st.ur, st.uc, self.tau)
            res = None if pi is None else (float(pi @ st.ur), pi)
        else:
            res = solve_index_lp(st.ur, st.uc, self.tau, st.raw)
        if res is None:
            probs = self._safe_probs.copy()
            self.live["infeasible"] += 1
        else:
            probs = res[1]
        u = st.uniforms[self.live["upos"]]
        self.live["upos"] += 1
        return Decision(arm=int(sample_arm(probs, u)), probs=probs)

    def _certificate(self, decision: Decision) -> Certificate:
        """The policy's expected cost index ``pi_t . u^c <= tau`` (LP (37)'s constraint) with the indices
        it was solved with (``st.uc``: clipped when ``clip``); the safe arm alone (warm start, safe-only
        mode, an infeasible LP) is certified as the known safe arm."""
        t, probs = self.n_samples + 1, decision.probs
        alone = Certificate.safe_action_only(probs, self._safe, t, "the known safe arm")
        if alone is not None:
            return alone
        bound = probs @ self.state.uc
        return Certificate(kind="policy-bound", round=t, bound=bound, threshold=self.tau.copy(),
                           basis="pi_t . u^c <= tau (LP (37) on the cost indices)")  # fmt: skip

    def cancel(self) -> None:
        super().cancel()
        if self._drew_uniform:  # give the uniform back: the next ask draws the same arm
            self.live["upos"] -= 1
            self._drew_uniform = False

    def _tell(self, decision: Decision, observation: Any) -> None:
        if not isinstance(observation, Observation) or observation.reward is None:
            raise ProtocolError("OPB must be told an Observation with a reward and the costs.")
        costs = observation.constraints
        if type(costs) is not np.ndarray or costs.dtype != np.float64 or not costs.flags.c_contiguous:
            costs = np.ascontiguousarray(np.asarray(costs, dtype=np.float64))
        costs = costs.reshape(-1)
        if costs.shape[0] != self._m:
            raise ProtocolError(f"OPB expects {self._m} cost values; got {costs.shape[0]}.")
        reward = float(observation.reward)
        if self._add_kernel is None:
            self._bind()
        self._add_kernel(self.state, int(decision.arm), reward, costs)
        self._drew_uniform = False
        ws = self.warm_start
        if ws is not None and not ws.done:
            self.warm_start.tell(reward, costs)
            if self.warm_start.done:
                self._finish_warm_start()

    # -- simulation: the hooks of BaseLearner.simulate's one loop over the shared driver -----------
    def _sim_plays(self) -> str:
        return "arms"

    def _sim_shape(self, plays: str) -> tuple[int, int]:
        return (self._k, 1 + self._m)

    def _sim_block(self, sampler: Any, rows: int) -> CompiledRounds:
        """Warm-start rounds (and every round with several constraints or ``lp_solver="linprog"``) are
        played by the ask / tell kernels with the sampler's observations; the others by the shared
        driver (:data:`opb_rounds`) on the learner's uniform buffer."""
        arms = np.zeros(rows, dtype=np.int64)
        probs = np.zeros((rows, self._k))
        compiled = self._m == 1 and self.config.lp_solver != "linprog"
        j = 0
        while j < rows and (self.in_warm_start or not compiled):
            decision = self._ask(None)
            y = sampler.sample(decision.arm, j)
            self._tell(decision, Observation(reward=float(y[0]), constraints=y[1:].copy()))
            arms[j], probs[j] = decision.arm, decision.probs
            j += 1
        return CompiledRounds(opb_rounds if compiled else None, OPBRun(self.state, arms, probs), j)

    def _sim_refill(self, resumed: bool) -> None:
        self._refill_uniforms()

    def _sim_result(self, rounds: Any, env: Any, n: int) -> PlayedBlock:
        """``points`` (one-hot rows of the pulled arms) and ``probs`` (the policies), shape (n, K)."""
        return PlayedBlock(np.eye(self._k)[rounds.run.arms], rounds.run.probs)
