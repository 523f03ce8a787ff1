"""Conservative contextual linear bandits: never fall far behind the baseline *policy* in production.

Setting (Kazerouni, Ghavamzadeh, Abbasi-Yadkori & Van Roy, "Conservative Contextual Linear Bandits",
NeurIPS 2017, arXiv:1611.06426; what could and could not be read: ``docs/decisions/conservative.md``).
Each round ``t`` the learner sees a context: ``K`` actions with features ``x_{t,a}`` in ``R^d`` and the
baseline policy's action ``b_t`` for that context (with its mean reward ``r_{b_t} = <x_{t,b_t}, theta*>``
when the baseline's rewards are known); rewards are linear, ``y_t = <x_{t,a_t}, theta*> + noise``. The
learner must keep, at every round ``t`` (with high probability),

    sum_{s <= t} r_{a_s}  >=  (1 - alpha) * sum_{s <= t} r_{b_s},

the baseline policy's per-round means taking the place of the multi-armed ``mu_0``: the check itself is
:class:`~safebandits.problems.conservative.ConservativeConstraint`'s (``checkpoint``: verified every
``checkpoint`` rounds, Garcelon et al. 2020), fed the baseline's mean of each round.

* :class:`ConservativeContext` -- what a learner is shown each round (``ask(context)``).
* :class:`ConservativeLinearInfo` -- what it is told once (never ``theta*``).
* :class:`ConservativeLinearInstance` -- the truth and the simulated contexts (ours: the papers'
  synthetic contexts could not be read), with :meth:`ConservativeLinearInstance.environment`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numba
import numpy as np

from safebandits._limits import MAX_BUDGET
from safebandits._validation import check_array, check_int, check_interval, check_positive
from safebandits.exceptions import ConfigError
from safebandits.problems.conservative import ConservativeConstraint
from safebandits.problems.noise import GaussianNoise, NoiseModel
from safebandits.types import Decision, FloatArray, Observation

__all__ = [
    "ConservativeContext",
    "ConservativeLinearEnvironment",
    "ConservativeLinearInfo",
    "ConservativeLinearInstance",
    "SimulatedRounds",
    "baseline_actions",
    "greedy_rows",
]


@dataclass(frozen=True, slots=True)
class ConservativeContext:
    """One round's context: the actions' features and the baseline policy's action for it.

    Attributes
    ----------
    arms : ndarray of shape (K, d)
        The features ``x_{t,a}`` of the round's actions (read-only).
    baseline : int
        The row the baseline policy plays in this context (``b_t``).
    baseline_reward : float or None
        ``r_{b_t}``, the baseline action's mean reward, when the baseline's rewards are known; else ``None``.
    """

    arms: FloatArray
    baseline: int
    baseline_reward: float | None = None

    def __post_init__(self) -> None:
        owner = "ConservativeContext"
        arms = check_array(self.arms, "arms", ndim=2, min_rows=1, owner=owner)
        arms.setflags(write=False)
        object.__setattr__(self, "arms", arms)
        check_int(self.baseline, "baseline", low=0, high=arms.shape[0] - 1, owner=owner)
        if self.baseline_reward is not None:
            check_interval(self.baseline_reward, "baseline_reward", owner=owner)


@dataclass(frozen=True, slots=True)
class ConservativeLinearInfo:
    """What a conservative contextual linear learner is told (never ``theta*``).

    Attributes
    ----------
    dim : int >= 1
        Feature dimension ``d``.
    n_actions : int >= 2
        Actions per context ``K``.
    alpha : float in [0, 1]
        Tolerance: the cumulative reward must stay at least ``1 - alpha`` times the baseline policy's.
    known_baseline : bool, default True
        The contexts carry the baseline action's mean reward ``r_{b_t}`` (CLUCB's setting).
    checkpoint : int >= 1, default 1
    baseline_floor : float >= 0, default 0.0
        ``r_l``: a lower bound on the baseline action's mean reward in every context (0: none declared
        beyond non-negativity); the checkpoint learner spends it (the rounds left before the next
        checkpoint, played with the baseline, raise the margin by at least ``alpha r_l`` each).
    horizon : int, default 10_000
    noise_bound : float > 0, default 1.0
        Sub-Gaussian constant ``R`` of the reward noise.
    noise_kind : str, default "gaussian"
    feature_bound : float > 0, default 1.0
        ``L >= ||x||_2`` for every action.
    param_bound : float > 0, default 1.0
        ``S >= ||theta*||_2``.
    """

    dim: int
    n_actions: int
    alpha: float
    known_baseline: bool = True
    checkpoint: int = 1
    horizon: int = 10_000
    noise_bound: float = 1.0
    noise_kind: str = "gaussian"
    feature_bound: float = 1.0
    param_bound: float = 1.0
    baseline_floor: float = 0.0

    def __post_init__(self) -> None:
        owner = "ConservativeLinearInfo"
        check_int(self.dim, "dim", low=1, owner=owner)
        check_int(self.n_actions, "n_actions", low=2, owner=owner)
        check_interval(self.alpha, "alpha", low=0.0, high=1.0, closed="both", owner=owner)
        check_int(self.checkpoint, "checkpoint", low=1, owner=owner)
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)
        check_positive(self.noise_bound, "noise_bound", owner=owner)
        check_positive(self.feature_bound, "feature_bound", owner=owner)
        check_positive(self.param_bound, "param_bound", owner=owner)
        check_interval(self.baseline_floor, "baseline_floor", low=0.0, closed="left", owner=owner)


def baseline_actions(arms: FloatArray, baseline_action: int | None, baseline_param: FloatArray | None) -> int:
    """The baseline policy's row for a context: the fixed row ``baseline_action``, or the greedy row of the
    linear scorer ``baseline_param`` (``argmax_a <x_a, baseline_param>``, the lowest row on ties)."""
    if baseline_param is not None:
        return int(np.argmax(arms @ baseline_param))
    return int(baseline_action or 0)


@numba.njit(cache=True)
def greedy_rows(scores, slack, rows):
    """``rows[i] = argmax_a scores[i, a]`` where that row leads every other by more than ``slack``, else
    -1 (a tie or a near tie).

    :meth:`ConservativeLinearEnvironment.next_rounds` decides the baseline's greedy rows this way from
    products ``<x_{t,a}, p>`` summed in any order: each is within ``gamma_d sum_j |x_j p_j|`` (``gamma_d
    = d u / (1 - d u)``, ``u = 2^-53``) of the exact product whatever the order, so a row that leads by
    more than twice two such bounds leads in numpy's products too (those of :func:`baseline_actions`);
    the rows left at -1 (rare) are decided by numpy's products.

    Each row in three passes without a branch on the scores (random: a branch on them was mispredicted
    every few rows, four times the loop's cost): the largest score ``top`` (the first row equal to it
    leads), then the largest of the others (before and after it); the same rows as one scan keeping the
    leader and the runner-up (NaN scores are skipped; a row whose first score is NaN leads with it)."""
    n, k = scores.shape
    for i in range(n):
        top = scores[i, 0]
        for a in range(1, k):
            x = scores[i, a]
            top = x if x > top else top
        best = 0
        for a in range(k):
            if scores[i, a] == top:
                best = a
                break
        second = -math.inf
        for a in range(best):
            x = scores[i, a]
            second = x if x > second else second
        for a in range(best + 1, k):
            x = scores[i, a]
            second = x if x > second else second
        rows[i] = best if top - second > slack else -1


@dataclass(frozen=True, kw_only=True, slots=True)
class ConservativeLinearInstance:
    """Ground truth of a conservative contextual linear bandit, with simulated contexts.

    Contexts (ours; the papers' synthetic contexts could not be read): each round ``K`` feature vectors
    with coordinates drawn uniformly in ``[feature_low, 1]`` and divided by ``sqrt(d)`` (so ``||x|| <=
    1``); with a non-negative ``theta`` every mean reward lies in ``[feature_low sum(theta) / sqrt(d),
    ||theta||]``.

    Parameters
    ----------
    theta : ndarray of shape (d,)
        The reward parameter ``theta*``, non-negative entries.
    n_actions : int >= 2
    alpha : float in [0, 1]
    baseline_action : int or None, default 0
        The baseline policy plays this row in every context (unless ``baseline_param`` is given).
    baseline_param : ndarray of shape (d,) or None
        The baseline policy is greedy in ``<x, baseline_param>`` (a production scorer).
    known_baseline : bool, default True
        Show learners ``r_{b_t}`` in each context.
    checkpoint : int >= 1, default 1
    noise : NoiseModel, default Gaussian with sigma 0.1
    horizon : int, default 10_000
    noise_bound, param_bound : float or None
        ``R`` and ``S`` told to learners (defaults: the noise's sigma; ``||theta||`` rounded up to 0.1).
    baseline_floor : float >= 0, default 0.0
        ``r_l`` told to learners: at most the smallest mean the contexts can give
        (``feature_low sum(theta) / sqrt(d)``; with a fixed action set, the mean of the baseline's row,
        the same in every context), else refused.
    feature_low : float in [0, 1), default 0.0
        The features' smallest coordinate (times ``sqrt(d)``): a floor under every mean reward.
    name : str
    arms : ndarray of shape (K, d) or None, default None
        A time-independent action set (Kazerouni et al.'s experiment): every context shows these features
        (no features are drawn); ``theta`` may then have negative entries, but every mean reward
        ``arms @ theta`` must be non-negative. ``L`` told to learners is the largest row norm.
    """

    theta: FloatArray
    n_actions: int
    alpha: float
    baseline_action: int | None = 0
    baseline_param: FloatArray | None = None
    known_baseline: bool = True
    checkpoint: int = 1
    noise: NoiseModel = field(default_factory=lambda: GaussianNoise(0.1))
    horizon: int = 10_000
    noise_bound: float | None = None
    param_bound: float | None = None
    baseline_floor: float = 0.0
    feature_low: float = 0.0
    name: str = "conservative-linear"
    arms: FloatArray | None = None

    def __post_init__(self) -> None:
        owner = "ConservativeLinearInstance"
        theta = check_array(self.theta, "theta", ndim=1, min_rows=1, owner=owner)
        if self.arms is None and np.any(theta < 0.0):
            raise ConfigError(
                f"The 'theta' parameter of {owner} must be non-negative (the simulated features are "
                f"non-negative, so every mean reward is). Got {theta.tolist()} instead."
            )
        theta.setflags(write=False)
        object.__setattr__(self, "theta", theta)
        k = check_int(self.n_actions, "n_actions", low=2, high=10_000, owner=owner)
        if self.arms is not None:
            arms = check_array(self.arms, "arms", shape=(k, theta.shape[0]), owner=owner)
            if np.any(arms @ theta < 0.0):
                raise ConfigError(
                    f"The 'arms' parameter of {owner} must give every action a non-negative mean reward "
                    f"arms @ theta. Got a smallest mean of {float(np.min(arms @ theta)):.4g} instead."
                )
            arms.setflags(write=False)
            object.__setattr__(self, "arms", arms)
        check_interval(self.alpha, "alpha", low=0.0, high=1.0, closed="both", owner=owner)
        if self.baseline_param is not None:
            bp = check_array(self.baseline_param, "baseline_param", shape=theta.shape, owner=owner)
            bp.setflags(write=False)
            object.__setattr__(self, "baseline_param", bp)
        elif self.baseline_action is None:
            raise ConfigError(f"{owner} needs a baseline policy: baseline_action or baseline_param.")
        else:
            check_int(self.baseline_action, "baseline_action", low=0, high=k - 1, owner=owner)
        check_int(self.checkpoint, "checkpoint", low=1, owner=owner)
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)
        low = check_interval(self.feature_low, "feature_low", low=0.0, high=1.0, closed="left", owner=owner)
        floor = check_interval(self.baseline_floor, "baseline_floor", low=0.0, closed="left", owner=owner)
        if self.arms is not None and low != 0.0:
            raise ConfigError(
                f"The 'feature_low' parameter of {owner} applies to drawn features; with a fixed action set "
                f"('arms') it must be 0. Got {low:g} instead."
            )
        if self.arms is not None:
            # a fixed action set gives the same context every round: the baseline plays one row
            row = baseline_actions(self.arms, self.baseline_action, self.baseline_param)
            lowest = float(self.arms[row] @ theta)
            how = f"the mean of the baseline's row {row} of the fixed action set"
        else:
            lowest = low * float(theta.sum()) / math.sqrt(theta.shape[0])
            how = f"feature_low sum(theta) / sqrt(d), feature_low = {low:g}"
        if floor > lowest * (1.0 + 1e-12):
            raise ConfigError(
                f"The 'baseline_floor' parameter of {owner} must be at most {lowest:g}, the smallest mean "
                f"reward the simulated contexts can give ({how}). Got {floor:g} instead."
            )
        if getattr(self.noise, "variate", None) != "normal":
            raise ConfigError(
                f"The 'noise' parameter of {owner} must be a model drawn from standard normals (Gaussian "
                f"rewards around the linear means). Got {getattr(self.noise, 'name', self.noise)!r} instead."
            )

    #: Contexts through ``ask(context)``: the runner scores these runs with
    #: :func:`~safebandits.experiments.conservative_linear.contextual_regret`.
    contextual = True
    #: No per-round constraint (the conservative one is on the cumulative reward).
    threshold = np.zeros(0)

    @property
    def dim(self) -> int:
        return int(self.theta.shape[0])

    def features(self, uniforms: np.ndarray, *, out: np.ndarray | None = None) -> np.ndarray:
        """The actions' features from uniforms in ``[0, 1)`` (shape ``(..., K, d)``, as
        :meth:`ConservativeLinearEnvironment.take_rounds` hands them): the fixed action set in every round
        (read-only), else ``(feature_low + (1 - feature_low) u) / sqrt(d)``, written into ``out`` when
        given (the same operations: ``out`` may be ``uniforms`` itself)."""
        if self.arms is not None:
            return np.broadcast_to(self.arms, uniforms.shape[:-2] + self.arms.shape)
        root = math.sqrt(self.dim)
        if self.feature_low == 0.0:
            return np.divide(uniforms, root, out=out)
        low = float(self.feature_low)
        x = np.multiply(uniforms, 1.0 - low, out=out)
        return np.divide(np.add(x, low, out=x), root, out=x)

    @property
    def constraint(self) -> ConservativeConstraint:
        """The constraint record (the baseline's means come round by round: ``baseline_mean`` unused)."""
        return ConservativeConstraint(float(self.alpha), int(self.checkpoint), 0.0)

    def public_info(self) -> ConservativeLinearInfo:
        sigma = getattr(self.noise, "sigma", 0.5)
        r = float(self.noise_bound) if self.noise_bound is not None else float(sigma)
        s = self.param_bound
        if s is None:
            s = max(math.ceil(float(np.linalg.norm(self.theta)) * 10.0 - 1e-9) / 10.0, 0.1)
        return ConservativeLinearInfo(
            dim=self.dim, n_actions=int(self.n_actions), alpha=float(self.alpha),
            known_baseline=bool(self.known_baseline), checkpoint=int(self.checkpoint),
            horizon=int(self.horizon), noise_bound=r if r > 0 else 1e-12,
            noise_kind=self.noise.name.split("(")[0], feature_bound=self.feature_bound, param_bound=float(s),
            baseline_floor=float(self.baseline_floor),
        )  # fmt: skip

    def privileged_info(self) -> ConservativeLinearInfo:
        return self.public_info()

    @property
    def feature_bound(self) -> float:
        """``L``: 1 for the drawn features, the largest row norm of a fixed action set."""
        if self.arms is None:
            return 1.0
        return float(np.max(np.linalg.norm(self.arms, axis=1))) or 1e-12

    def with_horizon(self, horizon: int) -> ConservativeLinearInstance:
        return dataclasses.replace(self, horizon=horizon)

    def environment(self, rng: np.random.Generator) -> ConservativeLinearEnvironment:
        return ConservativeLinearEnvironment(self, rng)


class SimulatedRounds(NamedTuple):
    """``n`` simulated rounds as a compiled loop reads them
    (:meth:`ConservativeLinearEnvironment.next_rounds`; C-contiguous, writable float64 / int64 arrays).

    Attributes
    ----------
    arms : ndarray of shape (n, K, d), or (1, K, d)
        Each round's features; one row with a fixed action set (every round's).
    means : ndarray of shape (n, K), or (1, K)
        Their true means ``<x_{t,a}, theta*>``.
    baselines : ndarray of shape (n,)
        The baseline policy's row of each round ``b_t``.
    baseline_rewards : ndarray of shape (n,)
        ``r_{b_t}`` when the baseline's rewards are known (told to the learners), else zeros.
    variates : ndarray of shape (n,)
        The standard normal variates of the reward noise.
    """

    arms: np.ndarray
    means: np.ndarray
    baselines: np.ndarray
    baseline_rewards: np.ndarray
    variates: np.ndarray


class _RoundBuffers(NamedTuple):
    """What :meth:`ConservativeLinearEnvironment.next_rounds` fills: ``draws`` (the uniforms, then the
    features in place; ``(n, 0, d)`` with a fixed action set), ``index`` ``K * arange(n)`` (the flat
    offsets of the rows), ``scores`` (n K,) the baseline's scorer's products and ``slack`` the lead that
    makes a greedy row certain (:func:`greedy_rows`), and :class:`SimulatedRounds`' arrays."""

    draws: np.ndarray
    arms: np.ndarray
    means: np.ndarray
    baselines: np.ndarray
    baseline_rewards: np.ndarray
    variates: np.ndarray
    index: np.ndarray
    scores: np.ndarray
    slack: float


def _round_buffers(inst: ConservativeLinearInstance, n: int) -> _RoundBuffers:
    """Buffers for ``n`` rounds of ``inst``, with what stays the same every round filled in: the fixed
    action set's features, means and baseline row (the products of :meth:`~ConservativeLinearEnvironment.
    context`, once), a fixed baseline row, the zero rewards told when the baseline's are unknown.

    ``slack`` (drawn features, a baseline scorer ``p``): four times the rounding bound of a product
    ``<x, p>`` in any order, ``gamma_d sum_j |x_j p_j| <= gamma_d sum_j |p_j|`` (the features' coordinates
    lie in ``[0, 1]``), taken generously as ``8 (d + 1) eps sum_j |p_j|`` (``gamma_d ~ d eps / 2``), plus
    the smallest normal number (products below it round absolutely)."""
    k, d = int(inst.n_actions), inst.dim
    rows, told = np.full(n, int(inst.baseline_action or 0), dtype=np.int64), np.zeros(n)
    if inst.arms is None:
        draws = np.empty((n, k, d))
        p = inst.baseline_param
        eps, tiny = float(np.finfo(np.float64).eps), float(np.finfo(np.float64).tiny)
        slack = 8.0 * (d + 1) * eps * float(np.abs(p).sum()) + tiny if p is not None else 0.0
        return _RoundBuffers(
            draws, draws, np.empty((n, k)), rows, told, np.empty(n), k * np.arange(n),
            np.empty(n * k if p is not None else 0), slack,
        )  # fmt: skip
    arms = np.array(inst.arms)
    means = arms @ inst.theta
    rows[:] = baseline_actions(arms, inst.baseline_action, inst.baseline_param)
    if inst.known_baseline:
        told[:] = float(means[rows[0]])
    none = np.zeros(0)
    draws = np.empty((n, 0, d))
    return _RoundBuffers(draws, arms[None], means[None], rows, told, np.empty(n), none, none, 0.0)


#: Rounds of random numbers the environment draws at once (the ask / tell rounds and the compiled blocks
#: read the same rows: one trajectory whichever path plays them).
ROUNDS_DRAWN = 256


class ConservativeLinearEnvironment:
    """The simulated rounds: :meth:`context` draws the round's context, :meth:`play` its reward;
    :meth:`take_rounds` hands the next rounds' random numbers to a compiled loop instead.

    After each :meth:`play`, :attr:`last` holds the round's true means: ``(played, baseline, best)``.
    """

    def __init__(self, instance: ConservativeLinearInstance, rng: np.random.Generator) -> None:
        self.instance, self.rng = instance, rng
        self._k, self._d = int(instance.n_actions), instance.dim
        self._ctx: ConservativeContext | None = None
        self._means = np.zeros(self._k)
        self._z = 0.0
        self._at, self._u, self._n = ROUNDS_DRAWN, np.zeros(0), np.zeros(0)
        self._rounds: _RoundBuffers | None = None
        self.last = (math.nan, math.nan, math.nan)

    def take_rounds(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The next ``n`` rounds' uniforms ``(n, K, d)`` (the features times ``sqrt(d)``; ``(n, 0, d)``
        with a fixed action set: none are drawn) and standard normals ``(n,)`` (the reward noise), drawn
        ``ROUNDS_DRAWN`` rounds at a time."""
        k = self._k if self.instance.arms is None else 0
        u, z = np.empty((n, k, self._d)), np.empty(n)
        self._draw_into(u, z)
        return u, z

    def _draw_into(self, u: np.ndarray, z: np.ndarray) -> None:
        """:meth:`take_rounds` into ``u`` and ``z`` (C-contiguous): the generator's draws in the same order,
        ``ROUNDS_DRAWN`` rounds at a time (whole batches straight into ``u`` and ``z``)."""
        n, i, r = z.shape[0], 0, ROUNDS_DRAWN
        while i < n:
            if self._at == r and n - i >= r:  # (a whole batch: the same draws, no copy)
                self.rng.random(out=u[i : i + r])
                self.rng.standard_normal(out=z[i : i + r])
                i += r
                continue
            if self._at == r:
                self._u = self.rng.random((r, *u.shape[1:]))
                self._n = self.rng.standard_normal(r)
                self._at = 0
            m = min(n - i, r - self._at)
            u[i : i + m] = self._u[self._at : self._at + m]
            z[i : i + m] = self._n[self._at : self._at + m]
            self._at, i = self._at + m, i + m

    def next_rounds(self, n: int) -> SimulatedRounds:
        """The next ``n`` rounds as a compiled loop reads them (:class:`SimulatedRounds`): the draws of
        :meth:`take_rounds`, and the features, means, baseline rows and told baseline rewards of
        :meth:`context`, computed with the same operations (the same bits) into buffers this environment
        keeps (overwritten by the next call)."""
        inst = self.instance
        if self._rounds is None or self._rounds.variates.shape[0] < n:
            self._rounds = _round_buffers(inst, n)
        buf = self._rounds
        u, z = buf.draws[:n], buf.variates[:n]
        self._draw_into(u, z)
        if inst.arms is not None:  # (a fixed action set: one row of features and means, every round's)
            return SimulatedRounds(buf.arms, buf.means, buf.baselines[:n], buf.baseline_rewards[:n], z)
        arms = inst.features(u, out=u)
        means = np.matmul(arms, inst.theta, out=buf.means[:n])
        rows, told = buf.baselines[:n], buf.baseline_rewards[:n]
        if inst.baseline_param is not None:  # (the greedy rows: products in any order, then near ties)
            p = inst.baseline_param
            greedy_rows(np.matmul(arms.reshape(-1, self._d), p, out=buf.scores[: n * self._k]).reshape(
                n, self._k), buf.slack, rows)  # fmt: skip
            for i in np.flatnonzero(rows < 0):  # (numpy's products decide, as in context())
                rows[i] = baseline_actions(arms[i], None, p)
        if inst.known_baseline:
            np.take(means.reshape(-1), buf.index[:n] + rows, out=told)
        return SimulatedRounds(arms, means, rows, told, z)

    def context(self) -> ConservativeContext:
        """A fresh context (:meth:`ConservativeLinearInstance.features`) and its baseline action."""
        inst = self.instance
        u, z = self.take_rounds(1)
        arms, self._z = np.array(inst.features(u)[0]), float(z[0])
        self._means = arms @ inst.theta
        b = baseline_actions(arms, inst.baseline_action, inst.baseline_param)
        known = float(self._means[b]) if inst.known_baseline else None
        self._ctx = ConservativeContext(arms=arms, baseline=b, baseline_reward=known)
        return self._ctx

    @property
    def current(self) -> ConservativeContext | None:
        return self._ctx

    def play(self, decision: Decision) -> Observation:
        """The reward of ``decision.arm`` (a row of the current context)."""
        ctx = self._ctx
        if ctx is None:
            raise ConfigError("ConservativeLinearEnvironment.play: draw the round's context() first.")
        arm = decision.arm
        if arm is None or not 0 <= int(arm) < self._k:
            raise ConfigError(
                f"ConservativeLinearEnvironment.play: the decision's arm must be a row 0..{self._k - 1} of "
                f"the context. Got {arm!r} instead."
            )
        mean = float(self._means[int(arm)])
        self.last = (mean, float(self._means[ctx.baseline]), float(self._means.max()))
        y = self.instance.noise.observe_scalar(mean, self._z)
        return Observation(reward=float(y))
