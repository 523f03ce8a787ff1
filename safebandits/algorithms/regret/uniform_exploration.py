"""Uniform exploration: play a vertex of a stage-wise problem drawn uniformly, ignoring the constraints.

The unsafe reference of the stage-wise family (no guarantee): each round plays the vertex
``candidates[floor(u * n)]`` of ``info.arms`` for a learner uniform ``u`` (the candidates: every vertex, or
every vertex but the safe arm with ``exclude_safe``), whatever its cost, and keeps the per-vertex counts
and sums of the observations (``diagnostics()``: the empirical means). Its regret is linear and it
violates every constraint that a vertex violates; it is the floor a safe learner's exploration is
measured against. The uniforms come from the learner's ``rng`` in blocks of :data:`UNIFORM_BLOCK`.

It is also the worked example of ``docs/user_guide/writing_a_learner.md``: one module with the config, a
typed state (:class:`UniformState`), the per-round kernels in the shape of the shared compiled driver
(:func:`uniform_select`, :func:`uniform_update`) and the learner class, a thin ask / tell adapter over
the same kernels; its ``simulate`` is the base class's one loop over the shared driver
(:func:`~safebandits.algorithms._driver.make_driver`), given by three small hooks (``_sim_plays``,
``_sim_shape``, ``_sim_block``; ``_sim_refill`` and ``_sim_result``). The learner never sees the
environment's means: the driver plays the points it writes against the environment's feedback.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import numba
import numpy as np

from safebandits._numba import bind_kernel
from safebandits._validation import check_array
from safebandits.algorithms._driver import count_pull, make_driver
from safebandits.algorithms.base import BaseLearner, CompiledRounds, LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.records import PlayedBlock
from safebandits.types import Decision, Observation

__all__ = [
    "UNIFORM_BLOCK",
    "UniformExploration",
    "UniformExplorationConfig",
    "UniformRun",
    "UniformState",
    "uniform_rounds",
    "uniform_select",
    "uniform_update",
]


#: Learner uniforms drawn per refill of the buffer shared by ``ask`` and :func:`uniform_rounds`.
UNIFORM_BLOCK = 1024


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class UniformExplorationConfig(LearnerConfig):
    """Configuration of :class:`UniformExploration`.

    Parameters
    ----------
    exclude_safe : bool, default False
        Leave the safe arm (``info.safe_arm``, when it is a vertex) out of the draw.
    """

    exclude_safe: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.exclude_safe, (bool, np.bool_)):
            raise ConfigError(
                f"The 'exclude_safe' parameter of {type(self).__name__} must be a bool. "
                f"Got {self.exclude_safe!r} instead."
            )


class UniformState(NamedTuple):
    """The learner's numerical state: the vertices ``arms`` (n, d), the rows that may be drawn
    ``candidates``, the learner's ``uniforms`` and the position ``upos`` (one int64) of the next one, the
    per-vertex ``counts`` (n,), ``reward_sums`` (n,) and ``cost_sums`` (n, m)."""

    arms: np.ndarray
    candidates: np.ndarray
    uniforms: np.ndarray
    upos: np.ndarray
    counts: np.ndarray
    reward_sums: np.ndarray
    cost_sums: np.ndarray


class UniformRun(NamedTuple):
    """A block of rounds: the state, the vertex of each round (``played``) and its point (``points``)."""

    st: UniformState
    played: np.ndarray
    points: np.ndarray


@numba.njit(cache=True, inline="always")
def uniform_select(run, j):
    """Round ``j``'s vertex, ``candidates[floor(u * n)]`` for the next learner uniform ``u``, into
    ``run.played[j]`` and ``run.points[j]``; ``False`` (nothing drawn) when the uniforms ran out. (No
    paper's algorithm box: the unsafe reference is ours, module docstring.)"""
    st = run.st
    if st.upos[0] >= st.uniforms.shape[0]:
        return False
    cand = st.candidates
    arm = cand[min(int(st.uniforms[st.upos[0]] * cand.shape[0]), cand.shape[0] - 1)]
    st.upos[0] += 1
    run.played[j] = arm
    for k in range(st.arms.shape[1]):
        run.points[j, k] = st.arms[arm, k]
    return True


@numba.njit(cache=True, inline="always")
def uniform_update(run, j, y):
    """Counts and sums of round ``j``'s vertex with its observation ``y`` (reward, then the costs): the
    empirical means of ``diagnostics()`` (no paper's algorithm box: ours)."""
    count_pull(run.st, run.played[j], y)


#: The shared driver over the three kernels: ``uniform_rounds(run, env, variates, (start, stop, mode)) -> j``,
#: the first row not played (``stop``, or earlier when the uniforms ran out: refill and call again).
#: The driver plays the point each round wrote (``run.points[j]``) against the environment's parameters.
uniform_rounds = make_driver("uniform_rounds", uniform_select, uniform_update, __name__, plays="points")


@register_algorithm(
    "uniform-exploration",
    task="regret",
    info=("stagewise", "k-armed"),
    guarantee="none",
    description="Uniform exploration: a vertex drawn uniformly each round, constraints ignored "
    "(the unsafe reference; the worked example of the learner guide).",
)
class UniformExploration(BaseLearner):
    """Play the vertices of a stage-wise problem in turn (module docstring); no safety guarantee.

    Parameters
    ----------
    config : UniformExplorationConfig
    info : StagewiseInfo
        ``arms`` (the vertices) and ``threshold`` (the number of constraints) are read.
    rng : numpy.random.Generator
        The draws (one uniform per round, in blocks of :data:`UNIFORM_BLOCK`).
    """

    config_cls = UniformExplorationConfig
    setting = "round"

    def __init__(self, config: UniformExplorationConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        owner = type(self).__name__
        arms = check_array(getattr(info, "arms", None), "info.arms", ndim=2, min_rows=1, owner=owner)
        m = int(np.atleast_1d(getattr(info, "threshold", np.zeros(1))).shape[0])
        n = arms.shape[0]
        safe = getattr(info, "safe_arm", None)
        candidates = [i for i in range(n) if not (config.exclude_safe and i == safe)]
        if not candidates:
            raise ConfigError(f"{owner} with exclude_safe=True needs a vertex other than the safe arm.")
        #: The typed state the kernels act on in place (never rebound).
        self.state = UniformState(
            arms=np.ascontiguousarray(arms, dtype=np.float64),
            candidates=np.array(candidates, dtype=np.int64),
            uniforms=np.zeros(UNIFORM_BLOCK),
            upos=np.array([UNIFORM_BLOCK], dtype=np.int64),  # (empty: the first ask draws a block)
            counts=np.zeros(n, dtype=np.int64),
            reward_sums=np.zeros(n),
            cost_sums=np.zeros((n, m)),
        )
        # the ask / tell adapter: a one-round run over the same kernels
        self._one = UniformRun(self.state, np.zeros(1, dtype=np.int64), np.zeros((1, arms.shape[1])))
        self._y = np.zeros(1 + m)
        self._select = bind_kernel(uniform_select, (self._one, 0))
        self._update = bind_kernel(uniform_update, (self._one, 0, self._y))

    def _ask(self, context: Any) -> Decision:
        if context is not None:
            raise ConfigError(f"{type(self).__name__} plays the vertices of its problem; pass no context.")
        self._refill()
        self._select(self._one, 0)
        return Decision(arm=int(self._one.played[0]))

    def _refill(self) -> None:
        st = self.state
        if st.upos[0] >= st.uniforms.shape[0]:
            st.uniforms[:] = self.rng.random(st.uniforms.shape[0])
            st.upos[0] = 0

    def cancel(self) -> None:
        """Withdraw the pending decision; its uniform is given back, so the next ``ask`` returns the
        same vertex."""
        super().cancel()
        self.state.upos[0] -= 1

    def _tell(self, decision: Decision, observation: Any) -> None:
        if not isinstance(observation, Observation) or observation.reward is None:
            raise ProtocolError(f"{type(self).__name__} must be told an Observation with reward and costs.")
        y = self._y
        y[0] = observation.reward
        if y.shape[0] > 1:
            y[1:] = np.asarray(observation.constraints, dtype=np.float64).reshape(-1)
        self._update(self._one, 0, y)

    # -- simulation: the hooks of BaseLearner.simulate's one loop over the shared driver -----------
    def _sim_plays(self) -> str:
        return "points"

    def _sim_shape(self, plays: str) -> tuple[int, int]:
        return (self.state.arms.shape[1], self._y.shape[0])  # (d, reward + costs)

    def _sim_block(self, sampler: Any, rows: int) -> CompiledRounds:
        run = UniformRun(
            self.state, np.zeros(rows, dtype=np.int64), np.empty((rows, self.state.arms.shape[1]))
        )
        return CompiledRounds(uniform_rounds, run, 0)

    def _sim_refill(self, resumed: bool) -> None:
        self._refill()

    def _sim_result(self, rounds: Any, env: Any, n: int) -> PlayedBlock:
        return PlayedBlock(rounds.run.points)

    def diagnostics(self) -> dict[str, Any]:
        """Empirical mean reward and costs of each vertex (NaN: never played)."""
        st = self.state
        with np.errstate(invalid="ignore", divide="ignore"):
            counts = st.counts.astype(np.float64)
            return {
                "counts": st.counts.tolist(),
                "mean_reward": (st.reward_sums / counts).tolist(),
                "mean_costs": (st.cost_sums / counts[:, None]).tolist(),
            }
