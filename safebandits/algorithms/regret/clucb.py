"""CLUCB, conservative linear UCB (Kazerouni, Ghavamzadeh, Abbasi-Yadkori & Van Roy, NeurIPS 2017,
arXiv:1611.06426), and LinUCB, its unconstrained baseline, for conservative contextual linear bandits
(:mod:`safebandits.problems.conservative_linear`).

Sources: the paper's algorithm box could not be read here (only its abstract and a review of its method:
"plays the optimistic action of linear UCB only if it satisfies the safety constraint for the worst
parameter of its confidence set, otherwise the baseline action"); the steps below follow that statement,
the confidence set of Abbasi-Yadkori et al. (2011, Thm. 2; :func:`~safebandits.estimators.confidence.
adaptive_width`) and, for the bookkeeping (the sum ``z`` of the played non-baseline features, the banked
baseline reward), a third-party reimplementation (``benlansdell/conservativerdd``, ``ConsLinUCB``). Our
numbering of each round, context ``(x_{t,a})_a``, baseline action ``b_t`` and its reward ``r_{b_t}``:

1. ``beta_t = R sqrt(d log((1 + n L^2 / lambda) / delta)) + sqrt(lambda) S``, ``n = |S_{t-1}|`` the
   rounds the optimistic action was played, ``V_t = lambda I + sum_{s in S_{t-1}} x_s x_s^T``,
   ``theta_hat_t = V_t^{-1} sum_{s in S_{t-1}} y_s x_s``;
2. the optimistic action ``a'_t = argmax_a <theta_hat_t, x_{t,a}> + beta_t ||x_{t,a}||_{V_t^{-1}}``
   (the lowest row on ties) -- LinUCB plays it and stops here;
3. the pessimistic value of the non-baseline rounds with ``a'_t`` added, ``z = z_{t-1} + x_{t,a'_t}``
   (``z_{t-1} = sum_{s in S_{t-1}} x_s``): ``L_t = min_{theta in C_t} <theta, z> = <theta_hat_t, z> -
   beta_t ||z||_{V_t^{-1}}`` (the minimum of a linear function over the ellipsoid ``C_t``);
4. the budget ``xi_t = L_t + sum_{s in S^c_{t-1}} r_{b_s} - (1 - alpha) sum_{s <= t} r_{b_s}``;
5. play ``a'_t`` if ``xi_t >= 0`` (``t`` joins ``S``: the ridge statistics and ``z`` take ``x_{t,a'_t}``),
   else ``b_t`` (its reward is banked, ``sum_{S^c}`` grows; the observation is not used by the ridge).

On the confidence event ``xi_t`` is a lower bound of the margin ``sum_{s<=t} r_{a_s} - (1 - alpha)
sum_{s<=t} r_{b_s}`` after playing ``a'_t``; the baseline raises the margin by ``alpha r_{b_t} >= 0``.
The certificate (:meth:`CLUCB.certificate`) is that budget, or the baseline row.

Unknown baseline rewards (Kazerouni et al.'s second algorithm, ``baseline_reward="estimate"``, registered
as ``clucb-unknown-baseline``; its text could not be read either): every reward in the margin is estimated
from the same linear model. ``z`` sums ``x_{a_s} - (1 - alpha) x_{b_s}`` over ``S`` and ``alpha x_{b_s}``
over the baseline rounds, so the margin after playing ``a`` is ``<theta*, z_{t-1} + x_a - (1 - alpha)
x_{b_t}>``; step 4 becomes ``xi_t = min_{theta in C_t}`` of it; the ridge learns from every round (a
baseline round's observation is informative now), ``n`` of step 1 counting them.

CLUCB2 (Garcelon et al. 2020) and its checkpoint variant share these kernels
(:mod:`safebandits.algorithms.regret.clucb2`: the best admissible row, ``checkpoint_slack``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, ClassVar, Literal, NamedTuple

import numba
import numpy as np

from safebandits._numba import bind_kernel, by_reference
from safebandits._validation import check_interval, check_literal_fields, check_positive
from safebandits.algorithms.base import BaseLearner, LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.estimators.confidence import adaptive_width_inline
from safebandits.estimators.ridge import sherman_morrison_update
from safebandits.exceptions import CannotStartError, ConfigError, ProtocolError
from safebandits.problems.conservative_linear import ConservativeLinearInfo
from safebandits.problems.noise import observe_code
from safebandits.records import Certificate
from safebandits.types import Decision, Observation

__all__ = ["CLUCB", "CLUCBConfig", "LinConstants", "LinState", "LinUCB", "LinUCBConfig", "clucb_choose"]

#: The scalars that change during a run: rounds ``t``, ``|S|`` (``n_opt``), the samples in the ridge
#: estimate (``n_fit``: ``|S|``, or ``t`` when every round is learnt from), the banked baseline reward
#: ``sum_{S^c} r_b``, the baseline's total ``sum_{s<=t} r_b``, the last budget ``xi_t``, the last optimistic
#: row ``a'_t``, whether the last choice was a baseline round, and the fallback rounds.
LIN_LIVE = np.dtype(
    [("t", np.int64), ("n_opt", np.int64), ("n_fit", np.int64), ("banked", np.float64),
     ("baseline_total", np.float64), ("budget", np.float64), ("leader", np.int64), ("fell_back", np.int64),
     ("fallbacks", np.int64)]
)  # fmt: skip


class LinConstants(NamedTuple):
    """Fixed settings of one run."""

    alpha: float  #: the tolerance
    delta: float  #: the confidence level of ``C_t``
    reg: float  #: ``lambda`` of ``V_t = lambda I + ...``
    noise_bound: float  #: ``R``
    feature_bound: float  #: ``L``
    param_bound: float  #: ``S``
    dim: float  #: ``d`` (a float: the width's formula)
    conservative: bool  #: CLUCB (steps 3-5); ``False``: LinUCB
    known_rewards: bool  #: the budget books the told ``r_{b_t}``; ``False``: estimated (``z`` holds them)
    learn_all: bool  #: the ridge learns from every round (``False``: the rounds of ``S`` only)
    constrained: bool  #: CLUCB2: the best admissible row (``False``: ``a'_t`` or the baseline)
    checkpoint: int  #: ``tau``: the constraint is needed at rounds ``tau, 2 tau, ...`` (1: every round)
    floor: float  #: ``r_l``, the declared floor of the baseline's mean reward


class LinState(NamedTuple):
    """Everything the kernels read and write: ``inv`` ``V_t^{-1}`` (d, d), ``xy`` ``sum y_s x_s``,
    ``theta`` ``theta_hat_t``, ``z`` the played features the budget sums (``z_{t-1}``), work vectors ``u``,
    ``w`` (d,), ``scores`` the round's optimistic values (K,), the constants and the live record."""

    inv: np.ndarray
    xy: np.ndarray
    theta: np.ndarray
    z: np.ndarray
    u: np.ndarray
    w: np.ndarray
    scores: np.ndarray
    const: LinConstants
    live: np.ndarray


@numba.njit(cache=True, inline="always")
def lin_beta(st):
    """Step 1: ``beta_t`` with ``n`` the samples in the ridge estimate."""
    c = st.const
    n = float(st.live[0].n_fit)
    return adaptive_width_inline(n, c.dim, c.delta, c.reg, c.noise_bound, c.feature_bound, c.param_bound)


@numba.njit(cache=True, inline="always")
def v_norm(inv, x):
    """``||x||_{V^{-1}} = sqrt(x^T V^{-1} x)``."""
    d = x.shape[0]
    s = 0.0
    for i in range(d):
        acc = 0.0
        for j in range(d):
            acc += inv[i, j] * x[j]
        s += x[i] * acc
    return math.sqrt(max(s, 0.0))


@numba.njit(cache=True)  # (not inline="always": inlined after lin_beta, its writes to scores were lost)
def optimistic_row(st, arms, beta):
    """Step 2: ``argmax_a <theta_hat, x_a> + beta ||x_a||_{V^{-1}}`` (the lowest row on ties); each row's
    value is kept in ``scores``."""
    best, best_v = 0, -math.inf
    for a in range(arms.shape[0]):
        x = arms[a]
        v = beta * v_norm(st.inv, x)
        for i in range(x.shape[0]):
            v += st.theta[i] * x[i]
        st.scores[a] = v
        if v > best_v:
            best, best_v = a, v
    return best


@numba.njit(cache=True)
def pessimistic_margin(st, arms, a, b, baseline_reward, beta):
    """Steps 3-4: ``xi_t(a)``, the smallest margin over ``C_t`` after playing row ``a``. Known baseline
    rewards: ``min_theta <theta, z + x_a> + sum_{S^c} r_b - (1 - alpha) sum_{s<=t} r_b``; unknown: ``min_theta
    <theta, z + x_a - (1 - alpha) x_b>`` (``z`` then sums ``x_a - (1 - alpha) x_b`` over ``S`` and ``alpha
    x_b`` over ``S^c``). ``min_theta <theta, w> = <theta_hat, w> - beta ||w||_{V^{-1}}``."""
    c, live, w = st.const, st.live[0], st.w
    x, xb = arms[a], arms[b]
    v = 0.0
    for i in range(x.shape[0]):
        w[i] = st.z[i] + x[i] if c.known_rewards else st.z[i] + x[i] - (1.0 - c.alpha) * xb[i]
        v += st.theta[i] * w[i]
    v = v - beta * v_norm(st.inv, w)
    if not c.known_rewards:
        return v
    need = (1.0 - c.alpha) * (live.baseline_total + baseline_reward)  # (1 - alpha) sum_{s<=t} r_b
    return v + live.banked - need


@numba.njit(cache=True)
def checkpoint_slack(st):
    """``alpha r_l (t_k - t)``: what the rounds left before the next checkpoint ``t_k`` (from this round
    ``t``) add to the margin at least, played with the baseline (0 when every round is verified)."""
    c = st.const
    t = st.live[0].t + 1
    tk = ((t + c.checkpoint - 1) // c.checkpoint) * c.checkpoint
    return c.alpha * c.floor * float(tk - t)


@numba.njit(cache=True)
def admissible_row(st, arms, b, baseline_reward, beta):
    """CLUCB2: the row of largest optimistic value among the admissible ones -- those whose pessimistic
    margin at the next verified round, ``xi_t(a) + alpha r_l (t_k - t)``, is non-negative -- and the
    baseline's row, always admissible (the lowest row on ties); records its budget (NaN: the baseline)."""
    live = st.live[0]
    slack = checkpoint_slack(st)
    best, best_v, budget = b, st.scores[b], math.nan
    for a in range(arms.shape[0]):
        v = st.scores[a]
        if a == b or v < best_v or (v == best_v and a > best):
            continue
        xi = pessimistic_margin(st, arms, a, b, baseline_reward, beta) + slack
        if xi >= 0.0:
            best, best_v, budget = a, v, xi
    live.budget = budget
    return best


@numba.njit(cache=True)
def clucb_choose(st, arms, baseline, baseline_reward):
    """One round (steps 1-5): the row to play; records ``xi_t``, ``a'_t`` and the baseline round."""
    const, live = st.const, st.live[0]
    beta = lin_beta(st)
    j = optimistic_row(st, arms, beta)
    live.leader = j
    live.fell_back = 0
    if not const.conservative:
        return j
    if const.constrained:
        a = admissible_row(st, arms, baseline, baseline_reward, beta)
        if a == baseline:
            live.fell_back = 1
            live.fallbacks += int(j != baseline)
        return a
    xi = pessimistic_margin(st, arms, j, baseline, baseline_reward, beta)
    live.budget = xi
    if xi >= 0.0:
        return j
    live.fell_back = 1
    live.fallbacks += 1
    return baseline


@numba.njit(cache=True)
def ridge_add(st, x, reward):
    """``(x, y)`` into the ridge statistics: ``V^{-1}`` by Sherman-Morrison, ``theta_hat = V^{-1}
    sum y x``."""
    sherman_morrison_update(st.inv, x, st.u)
    d = x.shape[0]
    for i in range(d):
        st.xy[i] += reward * x[i]
    for i in range(d):
        acc = 0.0
        for j in range(d):
            acc += st.inv[i, j] * st.xy[j]
        st.theta[i] = acc
    st.live[0].n_fit += 1


@numba.njit(cache=True)
def lin_add(st, arms, a, b, reward, baseline_reward):
    """The round's outcome (row ``a`` played, ``b`` the baseline's): a baseline round banks ``r_{b_t}``
    (or, unknown, adds ``alpha x_b`` to ``z``); a round of ``S`` adds ``x_a`` (unknown: ``x_a - (1 - alpha)
    x_b``) to ``z``; the ridge learns ``(x_a, y)`` in the rounds of ``S``, or in every round."""
    c, live = st.const, st.live[0]
    x, xb = arms[a], arms[b]
    d = x.shape[0]
    live.t += 1
    live.baseline_total += baseline_reward
    if c.learn_all:
        ridge_add(st, x, reward)
    if live.fell_back == 1:
        live.banked += baseline_reward
        if not c.known_rewards:
            for i in range(d):
                st.z[i] += c.alpha * xb[i]
        return
    if not c.learn_all:
        ridge_add(st, x, reward)
    for i in range(d):
        st.z[i] += x[i] if c.known_rewards else x[i] - (1.0 - c.alpha) * xb[i]
    live.n_opt += 1


@numba.njit(cache=True)
def clucb_choose_entry(st, arms, baseline, baseline_reward):
    """:func:`clucb_choose` called from Python."""
    return clucb_choose(by_reference(st), arms, baseline, baseline_reward)


@numba.njit(cache=True)
def lin_add_entry(st, arms, a, b, reward, baseline_reward):
    """:func:`lin_add` called from Python."""
    lin_add(by_reference(st), arms, a, b, reward, baseline_reward)


class ContextBlock(NamedTuple):
    """``n`` rounds of a simulation: each round's actions (n, K, d), the baseline's action (n,) and its
    reward (n,), the actions' true means (n, K) and the standard noise variates (n,) -- ``arms`` and
    ``means`` with one row: a fixed action set, every round's -- and the record :func:`lin_block` fills
    (n,) each, or empty: the true means of the played row, of the baseline's and of the best row."""

    arms: np.ndarray
    baselines: np.ndarray
    baseline_rewards: np.ndarray
    means: np.ndarray
    variates: np.ndarray
    played: np.ndarray
    baseline_means: np.ndarray
    best: np.ndarray


@numba.njit(cache=True)
def lin_block(st, block, code, sigma, out):
    """Rounds ``i = 0 .. n - 1`` of a simulation (the compiled path; ``block`` a :class:`ContextBlock`):
    :func:`clucb_choose` on context ``arms[i]``, the reward ``observe_code(code, sigma, means[i, a],
    variates[i])``, :func:`lin_add`; the round's true means into the record (a non-empty one)."""
    s = by_reference(st)
    arms, means, baselines, rewards = block.arms, block.means, block.baselines, block.baseline_rewards
    fixed, record = arms.shape[0] == 1, block.played.shape[0] > 0
    for i in range(baselines.shape[0]):
        j, b = 0 if fixed else i, baselines[i]
        a = clucb_choose(s, arms[j], b, rewards[i])
        out[i] = a
        y = observe_code(code, sigma, means[j, a], block.variates[i])
        lin_add(s, arms[j], a, b, y, rewards[i])
        if record:
            row = means[j]
            top = row[0]
            for v in row[1:]:
                top = v if v > top else top
            block.played[i], block.baseline_means[i], block.best[i] = row[a], row[b], top


#: An empty record (:class:`ContextBlock`): the rows played only.
_NO_RECORD = np.zeros(0)


def check_linear_info(owner: str, info: Any) -> int:
    """``d`` of a :class:`~safebandits.problems.conservative_linear.ConservativeLinearInfo`."""
    d, k = getattr(info, "dim", None), getattr(info, "n_actions", None)
    if not isinstance(info, ConservativeLinearInfo) or not isinstance(d, int) or not isinstance(k, int):
        raise ConfigError(
            f"{owner} needs a conservative contextual linear problem (ConservativeLinearInfo). "
            f"Got {type(info).__name__}."
        )
    return d


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class LinUCBConfig(LearnerConfig):
    """Configuration of :class:`LinUCB` (and :class:`CLUCB`).

    Parameters
    ----------
    delta : float in (0, 1) or None, default None
        Failure probability of the confidence set; ``None``: ``1 / T``.
    reg : float > 0, default 1.0
        Ridge regulariser ``lambda``.
    """

    delta: float | None = None
    reg: float = 1.0

    def __post_init__(self) -> None:
        owner = type(self).__name__
        if self.delta is not None:
            check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        check_positive(self.reg, "reg", owner=owner)


class _ContextualLinear(BaseLearner):
    """Ask (a :class:`~safebandits.problems.conservative_linear.ConservativeContext`) / tell over the
    compiled kernels (:class:`LinState`)."""

    setting = "round"
    _conservative = False
    _constrained = False  #: CLUCB2's choice (the best admissible row)
    _checkpoint = False  #: the constraint at the problem's checkpoints only (with its baseline_floor)

    def __init__(self, config: LinUCBConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        d = check_linear_info(type(self).__name__, info)
        self.delta = float(config.delta) if config.delta is not None else 1.0 / max(int(info.horizon), 2)
        known = self._rewards_known(config, info)
        const = LinConstants(
            alpha=float(info.alpha), delta=self.delta, reg=float(config.reg),
            noise_bound=float(info.noise_bound), feature_bound=float(info.feature_bound),
            param_bound=float(info.param_bound), dim=float(d), conservative=self._conservative,
            known_rewards=known, learn_all=self._constrained or not known, constrained=self._constrained,
            checkpoint=int(info.checkpoint) if self._checkpoint else 1,
            floor=float(getattr(info, "baseline_floor", 0.0)) if self._checkpoint else 0.0,
        )  # fmt: skip
        live = np.zeros(1, dtype=LIN_LIVE)
        live["budget"], live["leader"] = np.nan, -1
        #: The typed state the kernels act on in place.
        self.state = LinState(
            inv=np.eye(d) / float(config.reg), xy=np.zeros(d), theta=np.zeros(d), z=np.zeros(d),
            u=np.zeros(d), w=np.zeros(d), scores=np.zeros(int(info.n_actions)), const=const, live=live,
        )  # fmt: skip
        self._d, self._ctx, self._kernels = d, None, None

    def _rewards_known(self, config: Any, info: Any) -> bool:
        """Whether the budget books the told baseline rewards (LinUCB: no budget)."""
        return True

    def _applied_options(self) -> dict[str, Any]:
        return {"delta": self.delta}

    @property
    def budget(self) -> float:
        """``xi_t`` of the last choice (NaN before the first, or for LinUCB)."""
        return float(self.state.live[0]["budget"])

    def _ask(self, context: Any) -> Decision:
        arms = getattr(context, "arms", None)
        if arms is None or not hasattr(context, "baseline"):
            raise ConfigError(
                f"{type(self).__name__} needs the round's context: ask(ConservativeContext(arms, baseline, "
                f"baseline_reward)). Got {type(context).__name__}."
            )
        if arms.ndim != 2 or arms.shape[1] != self._d or arms.shape[0] != self.state.scores.shape[0]:
            raise ConfigError(
                f"{type(self).__name__}: the context's arms must have {self.state.scores.shape[0]} rows (the "
                f"declared n_actions) and {self._d} columns (the declared dim). Got shape {arms.shape}."
            )
        rb = context.baseline_reward
        if self._conservative and self.state.const.known_rewards and rb is None:
            raise ConfigError(
                f"{type(self).__name__} needs the baseline action's reward in each context (baseline_reward)."
            )
        if self._kernels is None or self._kernels[0] is None:  # (None in a restored snapshot too)
            self._bind(arms)
        self._ctx = (arms, int(context.baseline), 0.0 if rb is None else float(rb))
        return Decision(arm=int(self._kernels[0](self.state, arms, self._ctx[1], self._ctx[2])))

    def _tell(self, decision: Decision, observation: Any) -> None:
        if not isinstance(observation, Observation) or observation.reward is None:
            raise ProtocolError(f"{type(self).__name__} must be told an Observation with a reward.")
        arms, b, rb = self._ctx
        if self._kernels is None or self._kernels[1] is None:
            self._bind(arms)
        self._kernels[1](self.state, arms, int(decision.arm), b, float(observation.reward), rb)

    def _bind(self, arms: np.ndarray) -> None:
        """The compiled entry points for the state's types and a context's (``arms`` as the contexts
        come: read-only)."""
        st = self.state
        arms = arms.view()
        arms.setflags(write=False)  # (as every ConservativeContext holds them)
        self._kernels = (
            bind_kernel(clucb_choose_entry, (st, arms, 0, 0.0)),
            bind_kernel(lin_add_entry, (st, arms, 0, 0, 0.0, 0.0)),
        )

    def play_block(
        self, arms: np.ndarray, baselines: np.ndarray, baseline_rewards: np.ndarray, means: np.ndarray,
        variates: np.ndarray, code: int, sigma: float, *, record: tuple[np.ndarray, ...] = (),
    ) -> np.ndarray:  # fmt: skip
        """Play ``n`` rounds at once on the compiled kernels (a simulation: the environment's true
        ``means`` (n, K) and standard ``variates`` (n,) give the rewards, noise ``code`` and ``sigma``;
        ``arms`` and ``means`` with one row: the same actions every round); the rows played, (n,). The
        same rounds as ``n`` ask / tell calls. ``record``: three float arrays (n,) to fill with the true
        means of the played row, of the baseline's and of the best row of each round."""
        if self._pending is not None:
            raise ProtocolError(f"{type(self).__name__}.play_block called with a pending ask; tell it first.")
        n = baselines.shape[0]
        m = arms.shape[0]
        lengths = (baseline_rewards.shape[0], variates.shape[0], *(r.shape[0] for r in record))
        if m not in (1, n) or means.shape[0] != m or any(k != n for k in lengths):
            raise ConfigError(
                f"{type(self).__name__}.play_block: 'arms' and 'means' must have n rows (or one, the same "
                f"actions every round) and 'baseline_rewards', 'variates' and the record n entries, n = "
                f"{n} the baselines. Got arms {arms.shape}, means {means.shape}, lengths {lengths}."
            )
        out = np.empty(n, dtype=np.int64)
        played, base, best = record if record else (_NO_RECORD,) * 3
        block = ContextBlock(arms, baselines, baseline_rewards, means, variates, played, base, best)
        lin_block(self.state, block, code, sigma, out)
        self.n_samples += n
        return out

    def diagnostics(self) -> dict[str, Any]:
        live = self.state.live[0]
        return {
            "budget": float(live["budget"]),
            "leader": int(live["leader"]),
            "fallback_rounds": int(live["fallbacks"]),
            "optimistic_rounds": int(live["n_opt"]),
        }

    def _baseline_certificate(self, t: int) -> Certificate:
        """A baseline round: a safe set of the baseline's row (it raises the margin by ``alpha r_b >= 0``)."""
        arms, b, _ = self._ctx
        mask = np.zeros(arms.shape[0], dtype=bool)
        mask[b] = True
        basis = "the baseline's action b_t (it raises the margin by alpha r_b >= 0)"
        return Certificate(kind="safe-set", round=t, safe_arms=mask, basis=basis)


@register_algorithm(
    "linucb",
    task="regret",
    description="LinUCB: the optimistic action of the linear confidence set every round (the unconstrained "
    "baseline of the conservative contextual linear setting; ignores alpha).",
    info="conservative-linear",
    guarantee="none",
    assumptions=("noise", "linear", "param-norm"),
)
class LinUCB(_ContextualLinear):
    """LinUCB on a conservative contextual linear problem, ignoring the constraint (steps 1-2)."""

    config_cls = LinUCBConfig


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class CLUCBConfig(LinUCBConfig):
    """Configuration of :class:`CLUCB` (``delta``, ``reg``: :class:`LinUCBConfig`).

    Parameters
    ----------
    baseline_reward : {"declared", "estimate"}, default "declared"
        ``"declared"``: the budget books the baseline's rewards ``r_{b_t}`` the contexts carry (the problem
        must declare them known); ``"estimate"``: they are estimated from the same linear model, and the
        ridge estimate learns from every round (Kazerouni et al.'s algorithm for unknown baseline rewards).
    """

    #: ``baseline_reward`` came after the CLUCB paper's quick runs were archived: left out of their keys.
    unkeyed: ClassVar[Mapping[str, Any]] = {"baseline_reward": "declared"}

    baseline_reward: Literal["declared", "estimate"] = "declared"

    def __post_init__(self) -> None:
        LinUCBConfig.__post_init__(self)
        check_literal_fields(self, owner=type(self).__name__)


def known_rewards(owner: str, config: Any, info: Any) -> bool:
    """Whether a conservative learner books the told baseline rewards; refuses ``"declared"`` on a problem
    that does not declare them known."""
    if config.baseline_reward == "estimate":
        return False
    if isinstance(info, ConservativeLinearInfo) and not info.known_baseline:
        raise CannotStartError.build(
            owner,
            "its budget adds up the baseline's rewards r_{b_t}, which this problem does not declare known",
            notes=[
                "declare known_baseline = true",
                "baseline_reward = 'estimate' (the baseline's rewards estimated"
                f"{_UNKNOWN_NAME.get(owner, '')})",
            ],
        )
    return True


#: The registered learner that estimates the baseline's rewards, named in the refusal above.
_UNKNOWN_NAME = {"CLUCB": ": clucb-unknown-baseline"}


@register_algorithm(
    "clucb",
    task="regret",
    description="CLUCB: LinUCB's optimistic action when the pessimistic cumulative reward keeps (1 - alpha) "
    "x the baseline policy's, else the baseline's action (Kazerouni et al. 2017; known baseline rewards).",
    info="conservative-linear",
    guarantee="conservative-policy",
    assumptions=("noise", "linear", "param-norm", "baseline-policy"),
)
@register_algorithm(
    "clucb-unknown-baseline",
    task="regret",
    defaults={"baseline_reward": "estimate"},
    description="CLUCB with the baseline's rewards unknown, estimated from the same linear model and every "
    "round's observation (Kazerouni et al. 2017, their second algorithm).",
    info="conservative-linear",
    guarantee="conservative-policy",
    assumptions=("noise", "linear", "param-norm", "baseline-unknown"),
)
class CLUCB(_ContextualLinear):
    """CLUCB (Kazerouni et al. 2017), known or estimated baseline rewards (steps 1-5 of the module
    docstring).

    Notes
    -----
    Glossary (paper -> code): ``V_t^{-1}`` -> ``state.inv``; ``theta_hat_t`` -> ``state.theta``;
    ``z_{t-1}`` -> ``state.z``; ``sum_{S^c} r_b`` -> ``live.banked``; ``xi_t`` -> :attr:`budget`.
    Guarantee: with ``R``-sub-Gaussian noise, ``||theta*|| <= S``, ``||x|| <= L`` and non-negative
    baseline rewards, the cumulative reward stays at least ``(1 - alpha)`` times the baseline policy's at
    every round with probability at least ``1 - delta`` (the confidence set holds for every ``t``).
    With ``baseline_reward="estimate"`` the budget is ``min_theta <theta, z_{t-1} + x_{a'_t} - (1 - alpha)
    x_{b_t}>``, ``z`` summing ``x_a - (1 - alpha) x_b`` over ``S`` and ``alpha x_b`` over the baseline
    rounds: the same margin with every reward in it estimated.
    """

    config_cls = CLUCBConfig
    _conservative = True

    def _rewards_known(self, config: Any, info: Any) -> bool:
        return known_rewards(type(self).__name__, config, info)

    def _certificate(self, decision: Decision) -> Certificate:
        """The baseline: a safe set of its row (it raises the margin by ``alpha r_{b_t} >= 0``). The
        optimistic row: its budget, an upper bound ``-xi_t <= 0`` on the pessimistic shortfall."""
        t = self.n_samples + 1
        if int(self.state.live[0]["fell_back"]) == 1:
            return self._baseline_certificate(t)
        shortfall = np.array([-self.budget])
        basis = "xi_t >= 0: the pessimistic cumulative reward after playing a'_t"
        return Certificate(kind="upper-bound", round=t, bound=shortfall, threshold=np.zeros(1), basis=basis)
