"""G-ACOL and the sequential baselines of Lindner et al. (ICML 2022), Algorithm 2 and Table D.2.

One learner class, :class:`GACOL`, runs the fully sequential loop of Algorithm 2 -- pull one arm,
update the ridge estimate, recompute the adaptive confidence bounds (Proposition 3, or a tuned
constant), update ``U``, ``F``, ``r`` -- with a configurable *selection rule*. Registered variants:

============================  =====================================================================
name                          selection
============================  =====================================================================
``"g-acol"``                  target ``y = argmax_{x in U} ||x||_{A^{-1}}``; pull the arm of ``X``
                              whose one-step look-ahead most reduces ``||y||_{A^{-1}}``
``"greedy-maxvar"``           the same look-ahead with target ``argmax_{x in X} ||x||_{A^{-1}}``,
                              which always picks the target itself (see :func:`select_arm`)
``"adaptive-uniform"``        uniform random arm of ``X``
``"g-acol-uniform"``          uniform random arm of ``U``
``"maxrew-u"``                ``argmax_{x in U} theta^T x`` (first index on ties)
``"maxrew-f"``                ``argmax_{x in F} theta^T x`` if ``F`` is non-empty, else uniform over ``X``
============================  =====================================================================

Every variant has a "tuned" version: ``width="tuned"`` (``beta_t`` = ``tuned_width``, 0.5 by default).

The per-sample work is done by two compiled kernels acting in place on the learner's typed state
(:class:`~safebandits.algorithms.pure_exploration._g_acol_kernels.GACOLState`), :func:`select_arm` and
:func:`tell_sample` (module ``_g_acol_kernels``), in ``O(n d + d^2)`` (primal numerics: ``A^{-1}``) or
``O(n^2)`` (Gram numerics: ``G = X A^{-1} X^T``, chosen when ``n`` is not much larger than ``d``;
see ``numerics`` of :class:`GACOLConfig`). :meth:`GACOL.simulate` runs the whole ask -> pull -> tell
cycle in one compiled loop (the shared driver, :data:`gacol_samples`, or :data:`gacol_samples_plain`
when skips are off) on the environment's noise stream; the ask / tell path runs
:data:`gacol_samples_plain` one sample per call (its ``TOLD`` / ``SELECT`` modes), so both paths run
the same compiled code and give the same trajectory. The certified skips live in
:mod:`~safebandits.algorithms.pure_exploration._skips`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, NamedTuple

import numba
import numpy as np

from safebandits._numba import bind_kernel
from safebandits._validation import (
    check_choice,
    check_int,
    check_interval,
    check_literal_fields,
    check_positive,
    literal_choices,
)
from safebandits.algorithms._driver import SELECT, TOLD, idle_feedback, make_driver
from safebandits.algorithms.base import BaseLearner, CompiledRounds, LearnerConfig
from safebandits.algorithms.pure_exploration._cbai import NO_ARM, CBAILearner, CBAISets, check_cbai_info
from safebandits.algorithms.pure_exploration._distinct import distinct_groups, expanded_ridge, expanded_sets
from safebandits.algorithms.pure_exploration._g_acol_kernels import (
    FROM_ALL,
    FROM_FEASIBLE,
    FROM_UNCERTAIN,
    GACOL_LIVE,
    LOOKAHEAD,
    MAX_REWARD,
    UNIFORM,
    GACOLConstants,
    GACOLState,
    certify,
    current_width,
    needs_uniform,
    observe,
    refresh_due,
    select_arm,
    tell_refreshing,
    tell_sample,
)
from safebandits.algorithms.pure_exploration._skips import SKIP_LIVE, SkipWork, new_skip_work, try_skip
from safebandits.algorithms.registry import register_algorithm
from safebandits.estimators.ridge import DIAGONAL, ArmRidge, choose_numerics, is_axis_aligned
from safebandits.exceptions import ProtocolError
from safebandits.types import Decision, FloatArray, Observation

__all__ = [
    "GACOL",
    "GACOLBlock",
    "GACOLConfig",
    "GACOLConstants",
    "GACOLPlainBlock",
    "GACOLPlainRun",
    "GACOLRun",
    "GACOLState",
    "gacol_samples",
    "gacol_samples_plain",
    "select_arm",
    "tell_sample",
]

#: Learner uniforms drawn per refill, environment variates taken per block of the compiled loop. Both
#: are multiples of the default ``refresh_every`` so that certified skips
#: (:func:`~safebandits.algorithms.pure_exploration._skips.try_skip`), which
#: start and end at refresh points, are not cut short by buffer ends.
UNIFORM_BLOCK = 64_000
VARIATE_BLOCK = 64_000


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class GACOLConfig(LearnerConfig):
    """Configuration of :class:`GACOL` and its sequential variants.

    Parameters
    ----------
    delta : float in (0, 1), default 0.05
        Error probability of Proposition 3's width.
    width : {"theory", "tuned"}, default "theory"
        ``"theory"``: ``beta_t`` of Proposition 3 with ``t`` = samples so far; ``"tuned"``: the
        constant ``tuned_width`` (Sec. 3.4 heuristic; no guarantee).
    tuned_width : float > 0, default 0.5
        Constant multiplier of ``||x||_{A^{-1}}`` (the authors' ``sqbeta_tuned``).
    ridge : float > 0, default 0.1
        Ridge regulariser ``lambda`` (``A_0 = lambda I``).
    noise_bound, arm_norm_bound, param_norm_bound : float, default 1.0
        ``R``, ``L``, ``S`` of Proposition 3 (the authors hard-code 1).
    refresh_every : int >= 0, default 1000
        Exact recompute of ``A^{-1}`` every this many samples (0: never).
    selection : {"lookahead", "most_uncertain", "uniform", "max_reward"}, default "lookahead"
        ``"lookahead"``: target ``y`` = max-variance candidate, pull ``argmin_{a in X}
        ||y||^2_{(A + a a^T)^{-1}}`` (authors' code, paper's prose); ``"most_uncertain"``: pull the
        max-variance candidate (Algorithm 2, line 4); ``"uniform"``: uniform random candidate;
        ``"max_reward"``: highest-reward candidate.
    select_from : {"uncertain", "all", "feasible"}, default "uncertain"
        Candidate set: ``U``, ``X``, or ``F`` (while ``F`` is empty: a uniform random arm of ``X``).
    numerics : {"auto", "primal", "gram", "diagonal"}, default "auto"
        How the ridge state is kept (:class:`~safebandits.estimators.ridge.ArmRidge`): ``"primal"``:
        ``A^{-1}`` (``d x d``), ``O(n d + d^2)`` per sample; ``"gram"``: ``G = X A^{-1} X^T``
        (``n x n``), ``O(n^2)`` per sample, look-ahead read off a row of ``G``; ``"diagonal"``:
        arms with at most one non-zero coordinate (e.g. "irrelevant dimensions"), ``A`` diagonal,
        ``O(n + d)`` per sample; ``"auto"``: diagonal for such arms, else Gram when
        ``n^2 < 2 d^2 + n d``, or ``n^2 < 3 d^2 + 2 n d`` with the look-ahead selection on ``U``
        (:func:`~safebandits.estimators.ridge.choose_numerics`). All are exact and agree up to
        rounding, so only (near-)ties can be decided differently.
    certified_skip : bool, default True
        In :meth:`GACOL.simulate` (simulation), let the uniform and max-reward rules, Greedy Max Var
        on a diagonal design, and G-ACOL while ``U`` holds one arm that its look-ahead provably keeps
        pulling, take a whole stretch of samples at once when a bound proves that no arm can leave
        ``U`` meanwhile (:mod:`~safebandits.algorithms.pure_exploration._skips`); the
        trajectory is the one of the sample-by-sample loop, so this only changes speed. Needs
        ``refresh_every > 0``; no effect on ask / tell or the other rules.
    """

    delta: float = 0.05
    width: Literal["theory", "tuned"] = "theory"
    tuned_width: float = 0.5
    ridge: float = 0.1
    noise_bound: float = 1.0
    arm_norm_bound: float = 1.0
    param_norm_bound: float = 1.0
    refresh_every: int = 1000
    selection: Literal["lookahead", "most_uncertain", "uniform", "max_reward"] = "lookahead"
    select_from: Literal["uncertain", "all", "feasible"] = "uncertain"
    numerics: Literal["auto", "primal", "gram", "diagonal"] = "auto"
    certified_skip: bool = True

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        check_literal_fields(self, owner=owner)
        check_positive(self.tuned_width, "tuned_width", owner=owner)
        check_positive(self.ridge, "ridge", owner=owner)
        check_positive(self.noise_bound, "noise_bound", owner=owner)
        check_positive(self.arm_norm_bound, "arm_norm_bound", owner=owner)
        check_positive(self.param_norm_bound, "param_norm_bound", owner=owner, allow_zero=True)
        check_int(self.refresh_every, "refresh_every", low=0, owner=owner)
        check_choice(self.certified_skip, "certified_skip", (True, False), owner=owner)


# The codes above are the positions in the annotations of GACOLConfig (the one source of the names).
_SELECTIONS = literal_choices(GACOLConfig)["selection"]
_SELECT_FROM = literal_choices(GACOLConfig)["select_from"]
assert _SELECTIONS.index("max_reward") == MAX_REWARD and _SELECT_FROM.index("feasible") == FROM_FEASIBLE


# --------------------------------------------------------------------------------------------------
# compiled simulation loop
# --------------------------------------------------------------------------------------------------
class GACOLRun(NamedTuple):
    """A block of samples with certified skips on the shared driver (:data:`gacol_samples`): the
    learner's :class:`GACOLState`, the work arrays of its certified skips
    (:class:`~safebandits.algorithms.pure_exploration._skips.SkipWork`) and ``chosen`` (one int64: the
    arm of the current sample)."""

    st: GACOLState
    sk: SkipWork
    chosen: np.ndarray


class GACOLPlainRun(NamedTuple):
    """A block without skips (:data:`gacol_samples_plain`): the state and ``chosen``. The ask / tell path
    runs on this record too (one sample per call), so that both paths run one compiled function."""

    st: GACOLState
    chosen: np.ndarray


class GACOLBlock(NamedTuple):
    """What the kernels read during a block (:func:`gacol_block`): the state and the skip work,
    the arm of the current sample (``chosen``, one int64), the refresh period, whether
    certified skips may be tried and whether the rule draws learner uniforms."""

    st: GACOLState
    sk: SkipWork
    chosen: np.ndarray
    period: int
    can_skip: bool
    uses_uniforms: bool


class GACOLPlainBlock(NamedTuple):
    """What the kernels read during a block without skips (:func:`gacol_plain_block`)."""

    st: GACOLState
    chosen: np.ndarray
    uses_uniforms: bool


@numba.njit(cache=True, inline="always")
def gacol_block(run):
    """The :class:`GACOLBlock` of ``run``: skips are tried with a refresh period, for the fixed rules
    (uniform, max reward), Greedy Max Var with diagonal numerics and G-ACOL's look-ahead over ``U``
    (which skips only while ``|U| = 1``)."""
    st, sk = run.st, run.sk
    const = st.const
    period = const.refresh_every
    widest = const.select_from == FROM_ALL and const.numerics == DIAGONAL  # Greedy Max Var, diagonal
    fixed_rule = const.selection == UNIFORM or const.selection == MAX_REWARD
    target_rule = const.selection == LOOKAHEAD and const.select_from == FROM_UNCERTAIN  # G-ACOL, |U| = 1
    can_skip = sk.cand.shape[0] > 0 and period > 0 and (fixed_rule or widest or target_rule)
    return GACOLBlock(st, sk, run.chosen, period, can_skip, needs_uniform(const))


@numba.njit(cache=True, inline="always")
def gacol_plain_block(run):
    """The :class:`GACOLPlainBlock` of ``run`` (a :class:`GACOLPlainRun`)."""
    st = run.st
    return GACOLPlainBlock(st, run.chosen, needs_uniform(st.const))


@numba.njit(cache=True, inline="always")
def _can_sample(b):
    """Line 3 (stop when ``U`` is empty) and a uniform left for rules that draw one (the state's numbers
    read before any branch: its reference count is pruned)."""
    st = b.st
    n_uncertain, upos, n_uniforms = st.sets.live[0].n_uncertain, st.live[0].upos, st.uniforms.shape[0]
    if n_uncertain == 0:
        return False
    return not (b.uses_uniforms and upos >= n_uniforms)


@numba.njit(cache=True, inline="always")
def gacol_skip(b, sampler, j, stop):
    """At a refresh point with a whole period of rows left, a certified skip
    (:func:`~safebandits.algorithms.pure_exploration._skips.try_skip`, drawing its observations with
    ``sampler.sample(arm, row)``); the number of rows it played."""
    live = b.st.live[0]
    if b.can_skip and _can_sample(b) and live.t % b.period == 0 and stop - j >= b.period:
        return try_skip(b.st, b.sk, sampler, j, stop - j)
    return 0


@numba.njit(cache=True)
def gacol_select(b, j):
    """Line 4: the arm to pull (:func:`select_arm`) into ``b.chosen``; ``False`` when ``U`` is empty
    (line 3) or the uniform buffer ran dry (the caller refills it and calls again). A function of its
    own: the driver passes it its block without a reference count."""
    if not _can_sample(b):
        return False
    select_arm(b)
    return True


@numba.njit(cache=True, inline="always")
def gacol_played(b, j):
    """Line 5: the arm pulled (the environment observes its constraint value; an arm of ``X``)."""
    return b.st.arm_index[b.chosen[0]]


@numba.njit(cache=True, error_model="numpy")
def gacol_update(b, j, y):
    """Lines 6-8 with the observation ``y[0]`` (:func:`tell_sample`), a function of its own as
    :func:`gacol_select`: a sample followed by an exact refresh calls :func:`tell_refreshing`; the others
    run :func:`observe` (line 6) and :func:`certify` (lines 7-8) here and call nothing, so numba prunes
    every reference count of their path (``error_model="numpy"``: no division raises, so no exit skips a
    decrement; none divides by zero: ``c = 1 + x^T A^{-1} x >= 1``, ``lambda, delta > 0``)."""
    y0 = y[0]
    const, t = b.st.const, b.st.live[0].t + 1  # (the state's numbers, before any branch)
    if refresh_due(const, t):
        tell_refreshing(b.st, b.chosen[0], y0)
    else:
        st = b.st
        certify(st, observe(st, b.chosen[0], y0))


#: The shared driver (:func:`~safebandits.algorithms._driver.make_driver`) over G-ACOL's kernels and
#: its certified skips: ``gacol_samples(run, env, variates, (start, stop, mode)) -> j`` on a :class:`GACOLRun`
#: and the environment's compiled feedback, the first variate row not used (``U`` empty, ``stop``, or the
#: uniform buffer ran dry: refill and call again).
gacol_samples = make_driver(
    "gacol_samples",
    gacol_select,
    gacol_update,
    __name__,
    plays="arms",
    played=gacol_played,
    skip=gacol_skip,
    prepare=gacol_block,
)
#: The same driver without the skip hook on a :class:`GACOLPlainRun`, for runs whose skips are off
#: (Greedy Max Var on dense arms, ``certified_skip=False``; it does not compile the skips' code, ~5 s of
#: a cold start) and for the ask / tell path (modes ``TOLD`` / ``SELECT`` of the driver, one sample per
#: call): one compiled function for both paths.
gacol_samples_plain = make_driver(
    "gacol_samples_plain",
    gacol_select,
    gacol_update,
    __name__,
    plays="arms",
    played=gacol_played,
    prepare=gacol_plain_block,
)
#: Its loop (bound by the ask / tell path, which keeps the block; a module-level name: a copy or a pickle
#: of a learner binds it again).
gacol_samples_plain_loop = gacol_samples_plain.loop


# --------------------------------------------------------------------------------------------------
# learner
# --------------------------------------------------------------------------------------------------
_VARIANTS = {
    "g-acol": ({}, "G-ACOL: look-ahead on the most uncertain arm of U (Algorithm 2)."),
    "greedy-maxvar": ({"select_from": "all"}, "Greedy Max Var: look-ahead on the most uncertain arm of X."),
    "adaptive-uniform": ({"selection": "uniform", "select_from": "all"}, "Adaptive Uniform: uniform over X."),
    "g-acol-uniform": ({"selection": "uniform"}, "G-ACOL Uniform: uniform over U."),
    "maxrew-u": ({"selection": "max_reward"}, "Max Rew-U: highest-reward arm of U."),
    "maxrew-f": (
        {"selection": "max_reward", "select_from": "feasible"},
        "Max Rew-F: highest-reward certified-feasible arm, uniform over X until one exists.",
    ),
}


def _register(cls: type[BaseLearner]) -> type[BaseLearner]:
    for name, (defaults, description) in _VARIANTS.items():
        register_algorithm(
            name,
            task="pure_exploration",
            defaults=defaults,
            description=description,
            info="cbai",
            guarantee="pac",
            assumptions=("linear", "noise"),
        )(cls)
    return cls


@_register
class GACOL(CBAILearner):
    """Sequential CBAI with adaptive confidence intervals: G-ACOL (Lindner et al. 2022, Algorithm 2).

    Each step pulls one arm chosen by the configured selection rule, adds the observation to a ridge
    estimate (``A_0 = ridge I``), bounds every uncertain arm by ``phi_hat^T x -+ beta_t ||x||_{A^{-1}}``
    with ``beta_t`` of Proposition 3 (``t`` = samples so far) or a tuned constant, and updates the
    uncertain set ``U``, the certified-feasible set ``F`` and the best certified reward ``r``
    (Sec. 3). It stops when ``U`` is empty and recommends the best arm of ``F``; the anytime answer
    falls back to the lowest-upper-bound arm seen (Sec. 3.4 heuristic, authors' code).

    Parameters
    ----------
    config : GACOLConfig
    info : CBAIInfo
        Arms, known reward parameter ``theta`` and threshold ``tau``.
    rng : numpy.random.Generator
        Learner randomness (uniform selections), drawn in blocks of :data:`UNIFORM_BLOCK`.

    Notes
    -----
    Glossary (paper symbol -> code): ``X`` -> ``info.arms``; ``theta`` -> ``info.reward_param``;
    ``phi_hat`` -> ``theta_hat`` of the ridge state; ``A^{-1}`` -> ``a_inv`` (Gram numerics: ``G = X A^{-1}
    X^T`` -> ``gram``, ``A^{-1}`` and ``phi_hat`` computed on demand); ``||x||^2_{A^{-1}}`` ->
    ``sq_widths``; ``beta_t`` -> :func:`current_width`; ``U_t, F_t, r`` -> :attr:`sets`;
    ``l_t, u_t`` -> :meth:`confidence_bounds`; ``tau`` -> ``info.threshold``.

    Guarantee: with ``width="theory"`` and the norm bounds ``R, L, S`` valid for the instance, the
    answer is correct with probability at least ``1 - delta`` (Sec. 3.2). ``width="tuned"`` and the
    uniform / max-reward rules are heuristics without guarantee; Max Rew-F can stall forever on
    instances where no certified arm is informative (App. D), so always run it with a budget.

    Deviations: see ``docs/decisions/acol.md`` (G-ACOL selection rule, tuned width, set comparisons).

    The whole run can be compiled: :meth:`simulate` gives the same trajectory as ask / tell.
    """

    config_cls = GACOLConfig

    def __init__(self, config: GACOLConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        arms, rewards, tau = check_cbai_info(info, type(self).__name__)
        numerics = config.numerics
        if numerics == "auto" and not is_axis_aligned(arms):
            lookahead = config.selection == "lookahead" and config.select_from != "all"
            numerics = choose_numerics(*arms.shape, lookahead=lookahead)
        c = config
        # the rules that pull a maximiser run on the distinct arms when X repeats some (_distinct)
        grouped = c.select_from != "feasible" and c.selection != "uniform"
        grouped = distinct_groups(arms, rewards, c.ridge) if grouped and numerics == "primal" else None
        self._groups, self._arms, self._rewards = grouped, arms, rewards
        if grouped is not None:
            arms, rewards = arms[grouped.first], rewards[grouped.first]
        self._ridge = ArmRidge(arms, config.ridge, refresh_every=0, numerics=numerics)
        self._inner = CBAISets(rewards, tau)
        n, d = arms.shape
        self._needs_uniform = c.selection == "uniform" or c.select_from == "feasible"
        uniforms = np.zeros(UNIFORM_BLOCK if self._needs_uniform else 0)
        const = GACOLConstants(
            delta=c.delta, reg=c.ridge, noise_bound=c.noise_bound, arm_norm_bound=c.arm_norm_bound,
            param_norm_bound=c.param_norm_bound, tuned=c.width == "tuned", tuned_width=c.tuned_width,
            refresh_every=c.refresh_every, selection=_SELECTIONS.index(c.selection),
            select_from=_SELECT_FROM.index(c.select_from), numerics=self._ridge.numerics_code,
        )  # fmt: skip
        self._live = np.zeros(1, dtype=GACOL_LIVE)
        self._live[0] = (0, uniforms.shape[0])  # t = 0; the uniform buffer starts empty
        GACOL._make_views(self)
        #: The typed state the compiled kernels act on in place (its arrays are never rebound).
        self.state = GACOLState(
            ridge=self._ridge.arrays, sets=self._inner.state, lower=np.full(n, -np.inf),
            upper=np.full(n, np.inf), uniforms=uniforms, work_v=np.zeros(d), work_g=np.zeros(n),
            const=const, live=self._live, arm_index=np.arange(n) if grouped is None else grouped.first,
        )  # fmt: skip
        self._chosen = np.zeros(1, dtype=np.int64)  # the arm of the current sample (the kernels write it)
        self._one_cache: tuple[Any, ...] | None = (
            None  # the ask / tell path's driver call, bound on first use
        )
        self._prefetched = NO_ARM  # next arm, selected at the end of the last tell
        self._skip_live = np.zeros(1, dtype=SKIP_LIVE)
        self._skip_live[0] = (float(VARIATE_BLOCK), 0.0, 0, 0, 0, 0, 0)  # length cap, last F, skipped, ...

    # a one-element view of the record's field (cheap reads from Python) and the ask / tell path's driver
    # call (its block holds the state by reference); a copy or a pickle leaves them out and makes them
    # again (Rebinding; the driver call on first use)
    _views = ("_upos", "_one_cache")

    def _make_views(self) -> None:
        self._upos = self._live["upos"]
        self._one_cache = None

    # -- diagnostics ------------------------------------------------------------------------------
    @property
    def numerics(self) -> str:
        """Numerics of the ridge state, ``"primal"`` or ``"gram"`` (``"auto"`` resolved)."""
        return self._ridge.numerics

    @property
    def ridge(self) -> ArmRidge:
        """The ridge state: ``theta_hat`` (= ``phi_hat``), ``a_inv``, ``sq_widths``, ``preds``, ``gram``.

        With Gram numerics ``theta_hat`` and ``a_inv`` are recomputed from counts and sums on access; on
        the distinct arms of ``X`` (:mod:`._distinct`) a copy over all arms.
        """
        return self._ridge if self._groups is None else expanded_ridge(self._ridge, self._arms, self._groups)

    @property
    def _sets(self) -> CBAISets:
        """``U``, ``F`` and ``r`` over ``X`` (on the distinct arms of ``X``: a copy over all arms)."""
        return (
            self._inner if self._groups is None else expanded_sets(self._inner, self._rewards, self._groups)
        )

    @property
    def n_arms(self) -> int:
        return self._rewards.shape[0]

    @property
    def done(self) -> bool:
        return self._inner.done

    @property
    def skipped_samples(self) -> int:
        """Samples taken by certified skips of :meth:`simulate` (diagnostic; see ``certified_skip``)."""
        return int(self._skip_live["skipped"][0])

    @property
    def beta(self) -> float:
        """Current width ``beta_t`` (``t`` = samples so far)."""
        return float(current_width(self.state.const, self.n_samples, self._ridge.dim))

    def confidence_bounds(self) -> tuple[FloatArray, FloatArray]:
        """Current bounds ``(l_t, u_t)`` on ``phi^T x`` of every arm."""
        ridge = self.ridge
        h = self.beta * ridge.widths
        return ridge.preds - h, ridge.preds + h

    # -- protocol ---------------------------------------------------------------------------------
    def _refill_uniforms(self) -> None:
        uniforms = self.state.uniforms
        if self._needs_uniform and self._upos[0] >= uniforms.shape[0]:
            uniforms[:] = self.rng.random(uniforms.shape[0])
            self._upos[0] = 0

    def _ask(self, context: Any) -> Decision:
        arm = self._prefetched
        if arm != NO_ARM:
            self._prefetched = NO_ARM
            return Decision(arm=arm)
        if self._needs_uniform:
            self._refill_uniforms()
        # the selection alone: the driver's SELECT mode (NO_ARM when there is no arm to pull: U is empty)
        loop, block, env, told = self._one_sample()
        j = loop(block, env, told, (0, 1, SELECT))
        return Decision(arm=self._arm_of_x(int(self._chosen[0])) if j == 1 else NO_ARM)

    def _arm_of_x(self, arm: int) -> int:
        """The arm of ``X`` that the state's arm ``arm`` stands for (``GACOLState.arm_index``)."""
        return arm if self._groups is None else int(self._groups.first[arm])

    def _one_sample(self) -> tuple[Any, ...]:
        """The ask / tell path's call of :data:`gacol_samples_plain`: its loop (bound), the block (made
        once: it holds the state's arrays, which are never rebound), a placeholder environment (never read
        in the ask / tell modes) and the told observation's row."""
        one = self._one_cache
        if one is None:
            block = gacol_samples_plain.block(GACOLPlainRun(self.state, self._chosen))
            env = idle_feedback()
            told = np.zeros((2, 1))
            loop = bind_kernel(gacol_samples_plain_loop, (block, env, told, (0, 2, TOLD)))
            one = self._one_cache = (loop, block, env, told)
        return one

    def _drop_prefetch(self) -> None:
        """Forget the arm selected at the end of the last tell, giving back the uniform it drew."""
        if self._prefetched == NO_ARM:
            return
        c = self.config
        f_empty = self._inner.best_arm is None
        drew_uniform = c.selection == "uniform" or (c.select_from == "feasible" and f_empty)
        if drew_uniform:
            self._upos[0] -= 1
        self._prefetched = NO_ARM

    def _tell(self, decision: Decision, observation: Any) -> None:
        if not isinstance(observation, Observation) or observation.constraints is None:
            raise ProtocolError("GACOL must be told an Observation with a constraint value.")
        self._update(int(decision.arm), float(observation.constraints[0]))

    def _update(self, arm: int, y: float) -> None:
        # lines 5-8 with the observation, then the next selection (line 4) in the same call: the driver's
        # TOLD mode; the next arm is prefetched unless U is empty or the uniform buffer ran dry
        loop, block, env, told = self._one_sample()
        self._chosen[0] = arm if self._groups is None else self._groups.group[arm]
        told[0, 0] = y
        j = loop(block, env, told, (0, 2, TOLD))
        self._prefetched = self._arm_of_x(int(self._chosen[0])) if j == 2 else NO_ARM

    def _recommend_info(self) -> dict[str, Any]:
        return {"beta": self.beta}

    # -- compiled simulation (the hooks of BaseLearner.simulate's one loop) ------------------------
    #: Other noise models and environments play the ask / tell loop.
    _sim_noise_codes = (0, 1)
    _sim_fallback = True

    def _sim_plays(self) -> str:
        return "arms"

    def _sim_shape(self, plays: str) -> tuple[int, int]:
        return (self.n_arms, 1)  # one output: the constraint value

    def _sim_start(self) -> None:
        self._drop_prefetch()

    def _sim_rows(self, budget: int) -> int:
        """Blocks of :data:`VARIATE_BLOCK` rows ending at refresh points (longer certified skips)."""
        k = min(VARIATE_BLOCK, budget - self.n_samples)
        period = self.config.refresh_every
        if period > 0 and k == VARIATE_BLOCK and k > period:
            k -= (self.n_samples + k) % period
        return k

    def _sim_block(self, sampler: Any, rows: int) -> CompiledRounds:
        """:data:`gacol_samples` with the certified skips, or :data:`gacol_samples_plain` when they are
        off; the uniforms come from the buffer :meth:`ask` reads, so the trajectory is the ask / tell
        path's. Variates of the last block left when the learner stops are discarded."""
        sk = self._skip_work()
        if sk.cand.shape[0] > 0:
            return CompiledRounds(gacol_samples, GACOLRun(self.state, sk, self._chosen), 0)
        return CompiledRounds(gacol_samples_plain, GACOLPlainRun(self.state, self._chosen), 0)

    def _sim_refill(self, resumed: bool) -> None:
        self._refill_uniforms()

    def _skip_work(self) -> SkipWork:
        """Work arrays of the certified skips (empty: no skipping).

        Skips serve the uniform and max-reward rules, Greedy Max Var (widest arm of all of ``X``)
        on a diagonal design, whose pulls a tournament tree over the widths replays in ``O(log n)``,
        and G-ACOL once ``|U| = 1`` (its look-ahead certified to pull the target itself; before, its
        blocks run on the plain driver).
        """
        c = self.config
        widest = c.select_from == "all" and c.selection in ("lookahead", "most_uncertain")
        widest = widest and self._ridge.numerics == "diagonal"
        fixed_rule = c.selection in ("uniform", "max_reward")
        # G-ACOL skips only while |U| = 1: its blocks run on the driver with skips from then on (U only
        # shrinks), so that the skips' code is compiled only for runs that reach it (a cold start of
        # G-ACOL stays the plain driver's; the trajectory is the same on either driver)
        target_rule = c.selection == "lookahead" and c.select_from == "uncertain"
        target_rule = target_rule and int(self._inner.state.live[0]["n_uncertain"]) == 1
        enabled = c.certified_skip and c.refresh_every > 0 and (fixed_rule or widest or target_rule)
        return new_skip_work(self._ridge.arrays, enabled, widest, self._skip_live)
