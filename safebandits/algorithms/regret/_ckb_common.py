"""What CKB's finite-domain learner and its continuous-domain round share (issue 32: no import circle
between ``ckb`` and ``ckb_box``): the per-round random draws, the tie-breaking argmax (:func:`_pick`)
and the dual step (line 8 of Algorithm 1). StageOpt, SafeOpt and SGP-UCB use the first two; CKB and
SGP-UCB the bounds of a lazy posterior (:func:`arc_table`, :class:`StalePosterior`)."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numba
import numpy as np

from safebandits.types import FloatArray

__all__ = ["RoundDraws", "StalePosterior", "_pick", "_pick_any", "arc_table", "dual_step", "stale_posterior"]


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


# -- bounds of a lazy posterior (CKB's and SGP-UCB's lazy updates) --------------------------------------


@numba.njit(cache=True, inline="always")
def arc_max(z, c, rho):
    """``max (Z cos th + c sin th)`` over ``th`` in ``[asin(sqrt(rho)), pi / 2]``: the largest change of
    ``mu + c sigma`` per ``sigma_u`` when ``|mu_t - mu_u| <= sqrt(sigma_u^2 - sigma_t^2) Z`` and
    ``sigma_t^2 in [rho sigma_u^2, sigma_u^2]`` (``sigma_t = sigma_u sin th``). Unconstrained maximiser
    ``tan th = c / Z`` (``c > 0``), else the lower end."""
    if c > 0.0 and c * c >= rho * (z * z + c * c):
        return math.sqrt(z * z + c * c)
    return z * math.sqrt(1.0 - rho) + c * math.sqrt(rho)


@numba.njit(cache=True)
def arc_table(cum, shrink, t, c):
    """``arc_max(Z, c, rho)`` for a point last brought up to date at each step ``u = 0 .. t - 1``, with
    ``Z^2 = cum[t] - cum[u]`` (raised by ``1e-10`` of ``cum[t]``) and ``rho = exp(-(shrink[t] -
    shrink[u]))`` (lowered by a relative ``1e-9``): margins against round-off. ``O(t)``."""
    out = np.empty(t)
    slack = 1e-10 * cum[t]
    for u in range(t):
        z = math.sqrt(max(cum[t] - cum[u], 0.0) + slack)
        rho = min(math.exp(-(shrink[t] - shrink[u])), 1.0) * (1.0 - 1e-9)
        out[u] = arc_max(z, c, rho)
    return out


class StalePosterior(NamedTuple):
    """A lazy GP posterior (:class:`~safebandits.estimators.gp.LazyGP`) as the compiled bounds read it:
    ``mean`` and ``var`` (n,) of each point as of its last update ``fresh`` (n,), the current step
    ``steps``, ``arc`` (steps,) the :func:`arc_table` of the bound's coefficient ``c`` and ``back`` that of
    ``-c`` (the other side: ``mu_t + c sigma_t`` lies in ``[mu_u - sigma_u back[u], mu_u + sigma_u
    arc[u]]``)."""

    mean: np.ndarray
    var: np.ndarray
    fresh: np.ndarray
    arc: np.ndarray
    back: np.ndarray
    steps: int


def stale_posterior(gp: Any, c: float) -> StalePosterior:
    """The :class:`StalePosterior` of the lazy posterior ``gp`` with the :func:`arc_table` of ``c`` and of
    ``-c``."""
    cov = gp.lowrank
    t = cov.steps
    cum = cov.z_squares(gp._slot)
    arc = arc_table(cum, cov.log_shrink, t, c)
    back = arc_table(cum, cov.log_shrink, t, -c)
    return StalePosterior(gp._mean, cov.var, cov.fresh, arc, back, t)
