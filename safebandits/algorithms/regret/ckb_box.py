"""CKB and SGP-UCB on a continuous domain (a box in ``R^d``; Zhou & Ji, footnote 4).

On a box the GP posteriors are :class:`~safebandits.estimators.gp_points.PointsGP` (observations at
arbitrary points, evaluation anywhere; Eqs. (3)-(4)) and the argmax of line 7 of Algorithm 1 is a search:
random candidates from the learner's generator, then L-BFGS-B within the box
(:func:`~safebandits.estimators.box_search.maximise_on_box`), stopped at the accuracy
``eps_t = C / sqrt(t)`` of footnote 4 ("it only needs to maximize the acquisition function within
C/sqrt(t) accuracy for some constant C at each step"). ``C`` is the option ``accuracy_c``; by default
``max(B, G)``, the constant the paper calls ``C`` in Theorem 1 (``docs/decisions/ckb.md``).

* CKB-UCB / CKB-Rand: the acquisition ``clip(mu + c_f sigma, -B, B) - phi clip(mu~ + c_g sigma~, -G, G)``
  with ``c_f = beta, c_g = -beta~`` (UCB) or ``c_f = beta Z, c_g = beta~ Z~`` (Rand: the two scalars of the
  round) is a deterministic function of ``x``: candidates then L-BFGS-B with analytic gradients.
* CKB-TS: a draw of the posterior GP is not a function one can evaluate at new points without
  conditioning on the draw, so the joint draw is made at the round's candidates (and the last choice),
  and the argmax is taken over them (the candidate mode of the finite domain, ``ts_sampling =
  "candidates"``); no local search, no accuracy certificate.
* SGP-UCB: phase 1 draws a seed point uniformly; phase 2 maximises ``mu + beta sigma`` over
  ``D_t = {x : mu~ + beta~ sigma~ <= 0}`` (the seed points always in it): candidates outside ``D_t`` are
  discarded, L-BFGS-B runs on the acquisition minus a penalty ``P [mu~ + beta~ sigma~]_+`` and its answer
  is kept only if it lies in ``D_t``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from safebandits._numba import bind_kernel
from safebandits.algorithms.regret._ckb_common import RoundDraws, _pick_any, dual_step
from safebandits.estimators.box_search import accuracy_target, maximise_on_box, uniform_in_box
from safebandits.estimators.gp import cholesky_jittered
from safebandits.estimators.gp_points import PointsGP
from safebandits.exceptions import ConfigError
from safebandits.types import Decision, FloatArray

__all__ = ["BoxAcquisition", "ask_box_ckb", "box_gps", "check_box_options", "init_box_ckb"]


def check_box_options(config: Any, owner: str) -> None:
    """Options that need a finite domain, refused on a box with the reason and the alternative."""
    if getattr(config, "hyperparameters", "known") != "known":
        raise ConfigError(
            f"{owner}: hyperparameters='ml' needs a finite domain (the fit reads per-point counts); on a box "
            "use hyperparameters='known'."
        )
    if getattr(config, "info_gain", "heuristic") == "greedy":
        raise ConfigError(
            f"{owner}: info_gain='greedy' searches a finite domain; on a box use 'heuristic' or 'realised'."
        )
    if getattr(config, "refresh_every", 0):
        raise ConfigError(f"{owner}: refresh_every needs a finite domain's dense posterior.")


def box_gps(info: Any, lam: float, lam_g: float, horizon: int) -> tuple[PointsGP, PointsGP]:
    """The two posteriors of ``f`` and ``g`` on a box (capacity: the horizon, capped)."""
    cap = min(int(horizon), 4096)
    return (
        PointsGP(info.kernel, lam, capacity=cap),
        PointsGP(info.constraint_kernel, lam_g, capacity=cap),
    )


def _truncated(value: float, grad: FloatArray, bound: float, on: bool) -> tuple[float, FloatArray]:
    if on and (value > bound or value < -bound):
        return (bound if value > 0 else -bound), np.zeros_like(grad)
    return value, grad


class BoxAcquisition:
    """The acquisition search of a learner on a box (module docstring).

    Parameters
    ----------
    gp_f, gp_g : PointsGP
    box : Box
    rng : numpy.random.Generator
        The learner's generator (candidates, TS normals).
    constant : float > 0
        ``C`` of ``eps_t = C / sqrt(t)``.
    n_candidates, n_starts : int
        Random candidates and L-BFGS-B runs per round.
    bounds : (float, float)
        ``B``, ``G`` of the truncation (lines 4-5).
    truncate : bool
    """

    def __init__(
        self,
        gp_f: PointsGP,
        gp_g: PointsGP,
        box: Any,
        rng: np.random.Generator,
        *,
        constant: float,
        n_candidates: int,
        n_starts: int,
        bounds: tuple[float, float],
        truncate: bool = True,
    ) -> None:
        self.gp_f, self.gp_g, self.box, self.rng = gp_f, gp_g, box, rng
        self.constant = float(constant)
        self.n_candidates, self.n_starts = int(n_candidates), int(n_starts)
        self.big_b, self.big_g = float(bounds[0]), float(bounds[1])
        self.truncate = bool(truncate)
        self.last_x: FloatArray | None = None
        self._before: tuple[Any, FloatArray | None] | None = None
        #: Diagnostics: searches so far, the sum and largest gain of the local search over the best
        #: candidate, and the L-BFGS-B point evaluations.
        self.rounds = 0
        self.gain_sum = 0.0
        self.gain_max = 0.0
        self.evaluations = 0

    # -- the acquisition of CKB (lines 3-6) --------------------------------------------------------
    def estimates(self, xs: FloatArray, cf: float, cg: float) -> tuple[FloatArray, FloatArray]:
        """``(f-, g-)`` at the rows of ``xs``: ``clip(mu + cf sigma)``, ``clip(mu~ + cg sigma~)``."""
        mf, vf = self.gp_f.predict(xs)
        mg, vg = self.gp_g.predict(xs)
        fh, gh = mf + cf * np.sqrt(vf), mg + cg * np.sqrt(vg)
        if self.truncate:
            np.clip(fh, -self.big_b, self.big_b, out=fh)
            np.clip(gh, -self.big_g, self.big_g, out=gh)
        return fh, gh

    def _estimates_grad(
        self, x: FloatArray, cf: float, cg: float
    ) -> tuple[float, FloatArray, float, FloatArray]:
        pf, pg = self.gp_f.at(x), self.gp_g.at(x)
        fh, dfh = _truncated(pf.mean + cf * pf.sd, pf.d_mean + cf * pf.d_sd, self.big_b, self.truncate)
        gh, dgh = _truncated(pg.mean + cg * pg.sd, pg.d_mean + cg * pg.d_sd, self.big_g, self.truncate)
        return fh, dfh, gh, dgh

    def _extra(self) -> FloatArray | None:
        # (the state before the round's draws: a cancelled round is undone exactly, :meth:`undo`)
        self._before = (self.rng.bit_generator.state, self.last_x)
        return None if self.last_x is None else self.last_x[None, :]

    def undo(self) -> None:
        """Undo the last search (the learner's ``cancel``): the generator and the previous answer are as
        before it, so the next search draws the same candidates."""
        if self._before is not None:
            self.rng.bit_generator.state, self.last_x = self._before
            self._before = None
            self.rounds -= 1

    def _record(self, found: float, candidate: float, evaluations: int) -> None:
        gain = max(found - candidate, 0.0) if math.isfinite(candidate) else 0.0
        self.rounds += 1
        self.gain_sum += gain
        self.gain_max = max(self.gain_max, gain)
        self.evaluations += evaluations

    def ckb(self, t: int, cf: float, cg: float, phi: float, u: float) -> tuple[FloatArray, float, float]:
        """Lines 3-7 of Algorithm 1 on the box (UCB, Rand): ``(x_t, f-_t(x_t), g-_t(x_t))``; ties among
        the candidates (where every estimate is truncated the acquisition is flat) broken by ``u``."""

        def values(xs: FloatArray) -> FloatArray:
            fh, gh = self.estimates(xs, cf, cg)
            return fh - phi * gh

        def value_and_grad(x: FloatArray) -> tuple[float, FloatArray]:
            fh, dfh, gh, dgh = self._estimates_grad(x, cf, cg)
            return fh - phi * gh, dfh - phi * dgh

        res = maximise_on_box(
            values, value_and_grad, self.box.lower, self.box.upper, self.rng,
            accuracy=accuracy_target(self.constant, t), n_candidates=self.n_candidates,
            n_starts=self.n_starts, extra=self._extra(), tie=u,
        )  # fmt: skip
        self._record(res.value, res.candidate_value, res.evaluations)
        self.last_x = res.x
        fh, gh = self.estimates(res.x[None, :], cf, cg)
        return res.x, float(fh[0]), float(gh[0])

    def ckb_ts(
        self, beta: float, beta_g: float, phi: float, u: float, jitter: float
    ) -> tuple[FloatArray, float, float, float]:
        """CKB-TS on the box: joint draws at the round's candidates (and the last choice), the argmax of
        ``f- - phi g-`` over them (ties by ``u``). Returns ``(x_t, f-, g-, jitter used)``."""
        extra = self._extra()
        cands = uniform_in_box(self.rng, self.box.lower, self.box.upper, self.n_candidates)
        if extra is not None:
            cands = np.vstack([extra, cands])
        m = cands.shape[0]
        z = self.rng.standard_normal(2 * m)
        draws = []
        eps_used = 0.0
        for gp, scale, zz in ((self.gp_f, beta, z[:m]), (self.gp_g, beta_g, z[m:])):
            mean, cov = gp.covariance(cands)
            low, eps = cholesky_jittered(cov, jitter)
            eps_used = max(eps_used, eps) if math.isfinite(eps) else eps
            draws.append(mean + scale * (low @ zz))
        fh, gh = draws
        if self.truncate:
            np.clip(fh, -self.big_b, self.big_b, out=fh)
            np.clip(gh, -self.big_g, self.big_g, out=gh)
        scores = fh - phi * gh
        k = int(_pick_any(scores, float(np.max(scores)), u))
        self.last_x = cands[k].copy()
        self._record(float(scores[k]), float(scores[k]), 0)
        return cands[k].copy(), float(fh[k]), float(gh[k]), eps_used

    # -- SGP-UCB's phase 2 -------------------------------------------------------------------------
    def safe_ucb(self, t: int, beta: float, beta_g: float, seed: FloatArray, u: float) -> FloatArray:
        """``argmax_{D_t} mu + beta sigma`` with ``D_t = {mu~ + beta~ sigma~ <= 0}`` plus the seed points."""
        penalty = 1e3 * (1.0 + beta + self.big_b)

        def values(xs: FloatArray) -> FloatArray:
            mf, vf = self.gp_f.predict(xs)
            mg, vg = self.gp_g.predict(xs)
            return np.where(mg + beta_g * np.sqrt(vg) <= 0.0, mf + beta * np.sqrt(vf), -np.inf)

        def value_and_grad(x: FloatArray) -> tuple[float, FloatArray]:
            pf, pg = self.gp_f.at(x), self.gp_g.at(x)
            v, dv = pf.mean + beta * pf.sd, pf.d_mean + beta * pf.d_sd
            u = pg.mean + beta_g * pg.sd
            if u > 0.0:
                return v - penalty * u, dv - penalty * (pg.d_mean + beta_g * pg.d_sd)
            return v, dv

        res = maximise_on_box(
            values, value_and_grad, self.box.lower, self.box.upper, self.rng,
            accuracy=accuracy_target(self.constant, t), n_candidates=self.n_candidates,
            n_starts=self.n_starts, extra=self._extra(), tie=u,
        )  # fmt: skip
        mf, vf = self.gp_f.predict(seed)
        seed_scores = mf + beta * np.sqrt(vf)
        j = int(np.argmax(seed_scores))
        if not res.value >= float(seed_scores[j]):  # (also when no candidate was in D_t)
            self._record(float(seed_scores[j]), float(seed_scores[j]), res.evaluations)
            self.last_x = seed[j].copy()
            return seed[j].copy()
        self._record(res.value, res.candidate_value, res.evaluations)
        self.last_x = res.x
        return res.x

    def diagnostics(self) -> dict[str, Any]:
        """Rounds searched, mean and largest gain of the local search over the best candidate, L-BFGS-B
        point evaluations, ``C``."""
        n = max(self.rounds, 1)
        return {
            "box_rounds": self.rounds,
            "box_local_gain_mean": self.gain_sum / n,
            "box_local_gain_max": self.gain_max,
            "box_evaluations": self.evaluations,
            "accuracy_c": self.constant,
        }


# --------------------------------------------------------------------------------------------------
# CKB on a box: the learner's state and round (called by ``CKB``)
# --------------------------------------------------------------------------------------------------
def init_box_ckb(learner: Any, rng: np.random.Generator, big_b: float, big_g: float) -> None:
    """The rest of ``CKB.__init__`` on a box: the same compiled dual step (line 8) on a state without
    point arrays (``learner.state`` set by the caller), the acquisition search, the diagnostics."""
    from safebandits.records import log_grid

    c = learner.config
    learner.ts_sampling = "candidates"
    learner._n_draw = 0
    learner._make_views()
    learner._draws = RoundDraws(rng, 2 if c.exploration == "rand" else 0)
    learner._dense = False
    learner._update = bind_kernel(dual_step, (learner.state, 0.0))
    learner.search = BoxAcquisition(
        learner.gp_f, learner.gp_g, learner.box, rng,
        constant=float(c.accuracy_c) if c.accuracy_c is not None else max(big_b, big_g),
        n_candidates=c.box_candidates, n_starts=c.box_starts, bounds=(big_b, big_g), truncate=c.truncate,
    )  # fmt: skip
    learner._grid = set(log_grid(learner.horizon, 60).tolist())
    learner.phi_path = []
    learner.jitter_used = 0.0


def ask_box_ckb(learner: Any) -> Decision:
    """Lines 3-7 of Algorithm 1 on a box: ``beta_t``, the round's scalars (Rand) and tie-breaking
    uniform from the learner's draws, then :meth:`BoxAcquisition.ckb` (UCB, Rand) or
    :meth:`BoxAcquisition.ckb_ts` (TS); ``f-_t(x_t)``, ``g-_t(x_t)`` kept for the dual step."""
    beta, beta_g = learner.betas()
    u, z = learner._draws.next()
    c, t = learner.config, learner.n_samples + 1
    if c.exploration == "ts":
        x, fe, ge, eps = learner.search.ckb_ts(beta, beta_g, learner.phi, u, c.jitter)
        learner.jitter_used = max(learner.jitter_used, eps) if math.isfinite(eps) else eps
    else:
        cf, cg = (beta, -beta_g) if c.exploration == "ucb" else (beta * float(z[0]), beta_g * float(z[1]))
        x, fe, ge = learner.search.ckb(t, cf, cg, learner.phi, u)
    learner.live["f_est"], learner.live["g_est"] = fe, ge
    return Decision(point=x)
