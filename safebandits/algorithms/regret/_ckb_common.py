"""What CKB's finite-domain learner and its continuous-domain round share (issue 32: no import circle
between ``ckb`` and ``ckb_box``): the per-round random draws, the tie-breaking argmax (:func:`_pick`)
and the dual step (line 8 of Algorithm 1). StageOpt, SafeOpt and SGP-UCB use the first two."""

from __future__ import annotations

import numba
import numpy as np

from safebandits.types import FloatArray

__all__ = ["RoundDraws", "_pick", "_pick_any", "dual_step"]


class RoundDraws:
    """Per-round randomness drawn in blocks from the learner's generator: one uniform (tie-breaking) and
    ``n_normals`` standard normals per round. :meth:`give_back` returns the last round's draws (cancel)."""

    __slots__ = ("_normals", "_pos", "_rounds", "_uniforms", "n_normals", "rng")

    def __init__(self, rng: np.random.Generator, n_normals: int = 0) -> None:
        self.rng = rng
        self.n_normals = int(n_normals)
        self._rounds = max(1, min(1024, 65536 // max(1, self.n_normals)))
        self._pos = self._rounds
        self._uniforms = np.empty(0)
        self._normals = np.empty((0, self.n_normals))

    def next(self) -> tuple[float, FloatArray]:
        if self._pos >= self._rounds:
            self._uniforms = self.rng.random(self._rounds)
            if self.n_normals:
                self._normals = self.rng.standard_normal((self._rounds, self.n_normals))
            self._pos = 0
        j = self._pos
        self._pos += 1
        return float(self._uniforms[j]), (self._normals[j] if self.n_normals else self._normals)

    def give_back(self) -> None:
        self._pos -= 1


@numba.njit(cache=True)
def _pick(scores, best, u):
    """Index of a maximiser of ``scores`` chosen uniformly among the (near-)ties with the uniform ``u``;
    ``-1`` when there is no candidate (issue 40).

    ``-inf`` marks a point that is not a candidate: with ``best`` ``-inf`` or NaN (an empty candidate set)
    the answer is ``-1`` and the caller decides what to play (never the whole domain). The tie tolerance
    ``1e-12 (1 + |best|)`` is taken only for a finite ``best``; ``best = +inf`` ties the ``+inf`` scores.
    """
    if not best > -np.inf:  # (-inf or NaN: no candidate)
        return -1
    floor = best - 1e-12 * (1.0 + abs(best)) if best < np.inf else np.inf
    count = 0
    for j in range(scores.shape[0]):
        if scores[j] >= floor:
            count += 1
    if count == 0:
        return -1
    k = min(int(u * count), count - 1)
    for j in range(scores.shape[0]):
        if scores[j] >= floor:
            if k == 0:
                return j
            k -= 1
    return -1  # pragma: no cover


@numba.njit(cache=True)
def _pick_any(scores, best, u):
    """:func:`_pick` for CKB, which has no certified set (every point is a candidate): with no finite
    or ``+inf`` score (NaN scores) a point uniform over the whole domain with ``u``, as before."""
    i = _pick(scores, best, u)
    if i < 0:
        n = scores.shape[0]
        i = min(int(u * n), n - 1)
    return i


@numba.njit(cache=True)
def dual_step(st, cost):
    """Line 8 of Algorithm 1: ``phi_{t+1} = Proj_[0, rho](phi_t + (g-_t(x_t) + eps) / V)`` (``c_t`` in place
    of ``g-_t(x_t)`` with ``dual_input="observation"``; no upper projection for the virtual queue), and the
    dual-path diagnostics (max, sum, rounds at ``rho``)."""
    c, live = st.const, st.live[0]
    g_in = live.g_est if c.dual_estimate else cost
    phi = live.phi + (g_in + c.slack) / c.step
    phi = min(max(phi, 0.0), c.cap)
    live.phi = phi
    live.phi_sum += phi
    if phi > live.phi_max:
        live.phi_max = phi
    if phi >= c.rho:
        live.rounds_at_rho += 1
