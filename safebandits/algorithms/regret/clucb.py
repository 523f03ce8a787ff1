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
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

import numpy as np

from safebandits._numba import bind_kernel
from safebandits._validation import check_interval, check_literal_fields, check_positive
from safebandits.algorithms.base import BaseLearner, LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret._clucb_kernels import (
    LIN_LIVE,
    NO_RECORD,
    ContextBlock,
    LinConstants,
    LinState,
    clucb_choose_entry,
    lin_add_entry,
    lin_block,
    lin_choice,
    lin_dims,
)
from safebandits.exceptions import CannotStartError, ConfigError, ProtocolError
from safebandits.problems.conservative_linear import ConservativeLinearInfo
from safebandits.records import Certificate
from safebandits.types import Decision, Observation

__all__ = ["CLUCB", "CLUCBConfig", "LinConstants", "LinState", "LinUCB", "LinUCBConfig"]


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
        played, base, best = record if record else (NO_RECORD,) * 3
        block = ContextBlock(arms, baselines, baseline_rewards, means, variates, played, base, best)
        lin_block(self.state, block, code, sigma, out, lin_dims(self._d), lin_choice(self.state.const))
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
