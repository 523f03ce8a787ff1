"""Environments: draw noisy feedback of arms from an instance's ground truth.

An :class:`ArmEnvironment` holds the true mean of every output (reward and/or constraint
values) of every arm and a noise model. Standard variates are drawn from the environment's own
generator in fixed blocks and consumed one observation at a time, so the k-th pull of any
algorithm meets the k-th variate: algorithms run on the same key meet the same noise.
"""

from __future__ import annotations

import numpy as np

from safebandits.exceptions import ConfigError
from safebandits.problems.feedback import CompiledFeedback, compiled_feedback
from safebandits.problems.noise import NoiseModel
from safebandits.types import BatchObservation, Decision, FloatArray, Observation

__all__ = ["ArmEnvironment", "VariateStream"]

BLOCK = 4096
#: Rows of the first block drawn at once; the rest of that block is drawn when needed (see
#: :class:`VariateStream`).
FIRST_PART = 256


class VariateStream:
    """Standard variates of ``width`` columns drawn in blocks of :data:`BLOCK` rows from ``rng``.

    The k-th observation meets the k-th row whatever path consumes it (one ``next_row`` at a time on
    the ask / tell path, ``take_variates`` blocks in compiled loops).

    The first block is drawn in two parts, :data:`FIRST_PART` rows and, once they are used, the rest
    (a short run draws only what it uses). numpy's generators fill an array row after row from their
    stream, so the rows are those of one draw of :data:`BLOCK` rows; anything else that draws from
    ``rng`` (:meth:`ArmEnvironment.pull_counts`) first calls :meth:`_settle`, which draws the rest of
    the block, so ``rng`` is read in the same order as with whole blocks.
    """

    noise: NoiseModel
    rng: np.random.Generator
    _width: int

    def _init_stream(self) -> None:
        self._buffer = np.empty((0, self._width))
        self._pos = 0
        self._owed = -1  # rows of the current block not drawn yet (-1: no block drawn yet)

    def _draw(self, rows: int) -> FloatArray:
        if self.noise.variate == "normal":
            return self.rng.standard_normal((rows, self._width))
        return self.rng.random((rows, self._width))

    def _refill(self) -> None:
        if self._owed > 0:  # the rest of the first block
            rows, self._owed = self._owed, 0
        elif self._owed < 0:  # the first block: its first part
            rows, self._owed = FIRST_PART, BLOCK - FIRST_PART
        else:
            rows = BLOCK
        self._buffer = self._draw(rows)
        self._pos = 0

    def _settle(self) -> None:
        """Draw the rest of the current block now (before anything else reads ``rng``)."""
        if self._owed > 0:
            rest = self._draw(self._owed)
            self._owed = 0
            self._buffer = np.concatenate([self._buffer[self._pos :], rest])
            self._pos = 0

    def next_row(self) -> FloatArray:
        """The next row of standard variates (a view; advances the stream by one)."""
        if self._pos >= self._buffer.shape[0]:
            self._refill()
        v = self._buffer[self._pos]
        self._pos += 1
        return v

    def take_variates(self, n: int) -> FloatArray:
        """Next ``n`` rows of standard variates (shape ``(n, width)``), advancing the stream."""
        out = np.empty((n, self._width))
        filled = 0
        while filled < n:
            if self._pos >= self._buffer.shape[0]:
                self._refill()
            k = min(n - filled, self._buffer.shape[0] - self._pos)
            out[filled : filled + k] = self._buffer[self._pos : self._pos + k]
            self._pos += k
            filled += k
        return out


class ArmEnvironment(VariateStream):
    """Noisy feedback for a finite set of arms.

    Parameters
    ----------
    constraint_means : ndarray of shape (n_arms, m) or None
        True constraint values of each arm.
    reward_means : ndarray of shape (n_arms,) or None
        True mean reward of each arm (``None`` when rewards are known and never observed).
    noise : NoiseModel
        How an observation is drawn around its mean.
    rng : numpy.random.Generator
        The environment's own generator (see :func:`safebandits.rng.environment_rng`).
    """

    def __init__(
        self,
        constraint_means: FloatArray | None,
        reward_means: FloatArray | None,
        noise: NoiseModel,
        rng: np.random.Generator,
    ) -> None:
        if constraint_means is None and reward_means is None:
            raise ConfigError("An environment needs reward_means or constraint_means.")
        cols = []
        if reward_means is not None:
            cols.append(np.asarray(reward_means, dtype=np.float64).reshape(-1, 1))
        if constraint_means is not None:
            cm = np.asarray(constraint_means, dtype=np.float64)
            cols.append(cm.reshape(cm.shape[0], -1))
        self._has_reward = reward_means is not None
        self.means: FloatArray = np.ascontiguousarray(np.hstack(cols))
        noise.check_means(self.means)
        self.noise = noise
        self.rng = rng
        self.n_samples = 0
        self._width = self.means.shape[1]
        self._init_stream()

    @property
    def n_arms(self) -> int:
        return self.means.shape[0]

    # -- feedback -------------------------------------------------------------------------
    def compiled_feedback(self, plays: str) -> CompiledFeedback:
        """The record the shared compiled driver plays a learner's arms against (``plays="arms"``): the
        means table ``(n_arms, outputs)``, the noise code and sigma (:mod:`safebandits.problems.feedback`)."""
        if plays != "arms":
            raise ConfigError(f"An ArmEnvironment plays arms, not {plays!r}.")
        return compiled_feedback(self.means, self.noise, type(self).__name__)

    def pull(self, arm: int) -> Observation:
        """Pull one arm once and return its noisy observation."""
        v = self.next_row()
        self.n_samples += 1
        if self._width == 1 and not self._has_reward:  # one constraint value (CBAI): no array temporaries
            return Observation(None, np.array((self.noise.observe_scalar(self.means[arm, 0], v[0]),)))
        y = self.noise.observe(self.means[arm], v)
        if self._has_reward:
            return Observation(reward=float(y[0]), constraints=y[1:] if self._width > 1 else None)
        return Observation(reward=None, constraints=y)

    def pull_counts(self, counts: np.ndarray) -> BatchObservation:
        """Pull every arm ``counts[i]`` times; return per-arm sums (drawn exactly in law)."""
        counts = np.asarray(counts, dtype=np.int64)
        if counts.shape != (self.n_arms,) or np.any(counts < 0):
            raise ConfigError(
                f"The 'counts' must be non-negative integers of shape ({self.n_arms},). "
                f"Got shape {counts.shape} instead."
            )
        self._settle()  # (the variates' rows come first in rng, as with whole blocks)
        sums = self.noise.sample_sums(self.means, counts, self.rng)
        self.n_samples += int(counts.sum())
        if self._has_reward:
            return BatchObservation(
                counts=counts,
                reward_sums=sums[:, 0],
                constraint_sums=sums[:, 1:] if self._width > 1 else None,
            )
        return BatchObservation(counts=counts, constraint_sums=sums)

    def play(self, decision: Decision) -> Observation | BatchObservation:
        """Carry out a learner's decision."""
        if decision.counts is not None:
            return self.pull_counts(decision.counts)
        if decision.arm is None or not 0 <= decision.arm < self.n_arms:
            raise ConfigError(f"Decision arm must be in [0, {self.n_arms}). Got {decision.arm!r}.")
        return self.pull(decision.arm)
