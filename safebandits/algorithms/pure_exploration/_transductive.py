"""Shared machinery of the safe transductive BAI learners (Camilleri et al., NeurIPS 2022).

* :class:`ProgramLearner` -- a round-based learner written as a generator (its "program") that yields
  batches of counts over the measurement set X and receives their :class:`BatchObservation`. The program
  reads like the paper's pseudo-code; the ask / tell protocol drives it. A cancelled batch is asked
  again unchanged.
* :func:`draw_counts`, :func:`solve_design`, :func:`batch_sums` -- sampling a design (i.i.d. draws, exact
  in law as a multinomial count vector, or Pukelsheim rounding), the shared Frank--Wolfe design solver,
  and the per-arm sums ``[reward, constraint_1, ..., constraint_m]`` of a batch.
* :class:`EliminationLearner` -- the elimination engine behind the practical BESIDE (digest 2.5), RAGE and
  the baselines: arms are *active* or eliminated, and *undecided*, certified *safe*, certified
  *eps-safe* or shown *unsafe*, from per-phase least-squares estimates of fresh data. Subclasses write
  the round program from the phases :meth:`safety_phase`, :meth:`difference_phase` and
  :meth:`joint_phase`.

Decisions (``Decision.counts``) index X; recommendations index Z (the decision set).
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Generator
from typing import Any, Literal

import numba
import numpy as np

from safebandits._validation import check_int, check_interval, check_literal_fields, check_positive
from safebandits.algorithms.base import BaseLearner, LearnerConfig
from safebandits.algorithms.pure_exploration._cbai import MAX_ROUND_SAMPLES
from safebandits.design import frank_wolfe_design, round_design
from safebandits.estimators.robust import design_pinv
from safebandits.exceptions import ConfigError
from safebandits.records import ArmEstimates, interval_estimates
from safebandits.types import BatchObservation, Decision, FloatArray, IntArray, Recommendation

__all__ = [
    "EliminationConfig",
    "EliminationLearner",
    "ProgramLearner",
    "TransductiveConfig",
    "TransductiveView",
    "batch_sums",
    "check_transductive_info",
    "draw_counts",
    "solve_design",
]

Program = Generator[IntArray, BatchObservation, None]

UNDECIDED, SAFE, EPS_SAFE, UNSAFE = 0, 1, 2, -1


@dataclasses.dataclass(frozen=True, slots=True)
class TransductiveView:
    """Checked copy of a :class:`~safebandits.problems.transductive.TransductiveInfo`."""

    arms: FloatArray
    decisions: FloatArray
    threshold: float
    n_constraints: int
    epsilon: float
    noise_sd: float
    noise_kind: str
    mean_bound: float

    @property
    def n_arms(self) -> int:
        return self.arms.shape[0]

    @property
    def n_decisions(self) -> int:
        return self.decisions.shape[0]


def check_transductive_info(info: Any, owner: str) -> TransductiveView:
    """Check a learner's view of a safe transductive instance and return a checked copy."""
    needed = ("arms", "decisions", "threshold", "n_constraints", "epsilon")
    if not all(hasattr(info, a) for a in needed):
        raise TypeError(f"{owner} needs a TransductiveInfo with {needed}; got {type(info).__name__}.")
    arms = np.array(info.arms, dtype=np.float64)
    z = np.array(info.decisions, dtype=np.float64)
    if arms.ndim != 2 or z.ndim != 2 or z.shape[1] != arms.shape[1]:
        raise ConfigError(f"{owner}: 'arms' and 'decisions' must be 2-D with the same number of columns.")
    return TransductiveView(
        arms=arms,
        decisions=z,
        threshold=check_interval(info.threshold, "threshold", owner=owner),
        n_constraints=check_int(info.n_constraints, "n_constraints", low=1, owner=owner),
        epsilon=check_positive(info.epsilon, "epsilon", owner=owner),
        noise_sd=check_positive(getattr(info, "noise_sd", 1.0), "noise_sd", owner=owner),
        noise_kind=str(getattr(info, "noise_kind", "gaussian")),
        mean_bound=check_positive(getattr(info, "mean_bound", 1.0), "mean_bound", owner=owner),
    )


def draw_counts(design: FloatArray, n: int, sampling: str, rng: np.random.Generator) -> IntArray:
    """``n`` pulls from ``design``: i.i.d. draws (multinomial counts, exact in law) or Pukelsheim rounding."""
    n = int(min(max(n, 1), MAX_ROUND_SAMPLES))
    if sampling == "iid":
        p = np.asarray(design, dtype=np.float64)
        return rng.multinomial(n, p / p.sum()).astype(np.int64)
    return np.asarray(round_design(design, n), dtype=np.int64)


def solve_design(
    arms: FloatArray, targets: FloatArray, weights: FloatArray | None = None, *, tol: float = 1e-2
) -> tuple[FloatArray, float]:
    """``argmin_lambda max_y w_y ||y||^2_{A(lambda)^{-1}}`` by the shared Frank--Wolfe solver.

    Zero targets are dropped (they have width 0); with no non-zero target the uniform design (value 0)
    is returned. Multi-armed measurement sets (X a scaled permutation of the identity, so ``A(lambda)``
    is diagonal) with single-coordinate targets or targets sharing one pivot coordinate (``e_z - e_y``)
    are solved exactly in closed form (:func:`diagonal_design`); everything else goes to
    :func:`~safebandits.design.frank_wolfe_design`.
    """
    nz = np.linalg.norm(targets, axis=1) > 0.0
    if not np.any(nz):
        return np.full(arms.shape[0], 1.0 / arms.shape[0]), 0.0
    w = np.ones(int(nz.sum())) if weights is None else np.asarray(weights, dtype=np.float64)[nz]
    fast = diagonal_design(arms, targets[nz], w)
    if fast is not None:
        return fast
    res = frank_wolfe_design(arms, targets[nz], w, tol=tol)
    return res.weights, float(res.value)


def diagonal_design(
    arms: FloatArray, targets: FloatArray, weights: FloatArray
) -> tuple[FloatArray, float] | None:
    """Exact weighted design for multi-armed X, or ``None`` when the structure does not apply.

    With ``x_i = s_i e_{pi(i)}`` the squared width is ``sum_i c_{y,i} / lambda_i`` with
    ``c_{y,i} = w_y y_{pi(i)}^2 / s_i^2``. Single-coordinate targets: ``lambda_i`` proportional to
    ``max_y c_{y,i}``, value their sum (digest 2.2). Targets on ``{i, p}`` for a common pivot ``p``: for a
    pivot weight ``t`` the optimal value solves ``t + sum_y c_{y,i} / (rho - c_{y,p} / t) = 1`` (bisection
    in ``rho``), and ``rho(t)`` is convex in ``t`` (golden-section search).
    """
    n, d = arms.shape
    if n != d:
        return None
    nzmask = arms != 0.0
    if not (np.all(nzmask.sum(axis=1) == 1) and np.all(nzmask.sum(axis=0) == 1)):
        return None
    col = np.argmax(nzmask, axis=1)  # arm i measures coordinate col[i]
    scale = arms[np.arange(n), col]
    c = weights[:, None] * (targets[:, col] / scale) ** 2  # (k, n): c_{y,i}
    support = c > 0.0
    per_target = support.sum(axis=1)
    if np.all(per_target == 1):
        cmax = c.max(axis=0)
        return cmax / cmax.sum(), float(cmax.sum())
    if np.all(per_target == 2):
        # all pairs of a set S with one common coefficient: uniform on S by symmetry and convexity
        used = np.flatnonzero(support.any(axis=0))
        vals = c[support]
        if used.size * (used.size - 1) // 2 <= c.shape[0] and np.allclose(vals, vals[0], rtol=1e-12):
            pairs = {tuple(np.flatnonzero(row)) for row in support}
            if len(pairs) == used.size * (used.size - 1) // 2:
                lam = np.zeros(n)
                lam[used] = 1.0 / used.size
                return lam, float(2.0 * vals[0] * used.size)
    shared = np.all(support, axis=0)
    if not (np.all(per_target <= 2) and shared.sum() == 1):
        return None
    p = int(np.flatnonzero(shared)[0])
    others = np.delete(np.arange(n), p)
    cz = np.zeros((c.shape[0], n))
    cz[:, others] = c[:, others]
    ci = cz.max(axis=1)  # coefficient on the target's own arm (0 for a target on the pivot only)
    own = np.argmax(cz, axis=1).astype(np.int64)
    cp = c[:, p]

    def rho_of(t: float) -> tuple[float, FloatArray]:
        lam = np.zeros(n)
        value = _pivot_value(ci, cp, own, t, lam)
        lam[p] = t
        return value, lam

    a, b = 1e-9, 1.0 - 1e-9
    g = (math.sqrt(5.0) - 1.0) / 2.0
    x1, x2 = b - g * (b - a), a + g * (b - a)
    f1, f2 = rho_of(x1)[0], rho_of(x2)[0]
    for _ in range(40):
        if f1 <= f2:
            b, x2, f2 = x2, x1, f1
            x1 = b - g * (b - a)
            f1 = rho_of(x1)[0]
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + g * (b - a)
            f2 = rho_of(x2)[0]
    _, lam = rho_of(0.5 * (a + b))
    lam = lam / lam.sum()
    exact = float(np.max(np.sum(np.where(support, c / np.maximum(lam, 1e-300), 0.0), axis=1)))
    return lam, exact


@numba.njit(cache=True)
def _pivot_value(ci: FloatArray, cp: FloatArray, own: IntArray, t: float, lam: FloatArray) -> float:
    """Least ``rho`` with ``t + sum_i max_{y: own(y) = i} ci_y / (rho - cp_y / t) <= 1``; fills ``lam``."""
    lo = 0.0
    for y in range(ci.shape[0]):
        lo = max(lo, cp[y] / t)
    total = 0.0
    for y in range(ci.shape[0]):
        total += ci[y]
    hi = lo + (total + 1.0) / max(1.0 - t, 1e-300) + 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lam[:] = 0.0
        for y in range(ci.shape[0]):
            if ci[y] > 0.0:
                lam[own[y]] = max(lam[own[y]], ci[y] / max(mid - cp[y] / t, 1e-300))
        if t + lam.sum() > 1.0:
            lo = mid
        else:
            hi = mid
    lam[:] = 0.0
    for y in range(ci.shape[0]):
        if ci[y] > 0.0:
            lam[own[y]] = max(lam[own[y]], ci[y] / max(hi - cp[y] / t, 1e-300))
    return hi


def batch_sums(observation: BatchObservation, n_arms: int, m: int) -> FloatArray:
    """Per-arm sums ``[reward, constraint_1..m]`` (shape ``(n_arms, 1 + m)``) of a batch observation."""
    if observation.reward_sums is None or observation.constraint_sums is None:
        raise ConfigError("A safe transductive batch observation must carry reward and constraint sums.")
    r = np.asarray(observation.reward_sums, dtype=np.float64).reshape(n_arms, 1)
    c = np.asarray(observation.constraint_sums, dtype=np.float64).reshape(n_arms, m)
    return np.hstack([r, c])


class ProgramLearner(BaseLearner):
    """A learner whose body is a generator yielding count vectors (see the module docstring).

    Subclasses implement :meth:`_program` and :meth:`_recommend`. ``self.view`` holds the checked info.
    """

    def __init__(self, config: LearnerConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        self.view = check_transductive_info(info, type(self).__name__)
        self._gen: Program | None = None
        self._next: Decision | None = None
        self._finished = False
        self.batches: list[int] = []
        #: The learner as its program started (a copy) and the batches told since: a generator does not
        #: copy nor pickle, so a copy of a started learner replays its program (see ``__getstate__``).
        self._started: dict[str, Any] | None = None
        self._told: list[tuple[Decision, BatchObservation]] = []

    @property
    def epsilon(self) -> float:
        eps = getattr(self.config, "epsilon", None)
        return self.view.epsilon if eps is None else float(eps)

    @property
    def done(self) -> bool:
        self._start()
        return self._finished

    def _start(self) -> None:
        if self._gen is None:
            self._started = copy.deepcopy(self._plain_state())
            self._gen = self._program()
            self._advance(None)

    def _plain_state(self) -> dict[str, Any]:
        return {k: v for k, v in super().__getstate__().items() if k not in ("_gen", "_started", "_told")}

    # -- copies and pickles: the learner as its program started and the batches told since ---------
    def __getstate__(self) -> dict[str, Any]:
        if self._gen is None:
            return {**self._plain_state(), "_gen": None, "_started": None, "_told": []}
        assert self._started is not None
        bookkeeping = {k: self.__dict__[k] for k in ("n_samples", "_pending", "_failure")}
        return {"_replay": (self._started, list(self._told), bookkeeping)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "_replay" not in state:
            super().__setstate__(state)
            return
        started, told, bookkeeping = state["_replay"]
        super().__setstate__({**started, "_gen": None, "_started": None, "_told": []})
        self._start()
        for decision, observation in told:
            self.batches.append(int(decision.n_samples))
            self._told.append((decision, observation))
            try:
                self._advance(observation)
            except Exception:
                if bookkeeping["_failure"] is None:
                    raise
                break  # (the original failed in this tell: so does the replay; the copy is failed too)
        self.__dict__.update(bookkeeping)

    def _advance(self, observation: BatchObservation | None) -> None:
        assert self._gen is not None
        try:
            counts = next(self._gen) if observation is None else self._gen.send(observation)
        except StopIteration:
            self._finished = True
            self._next = None
            return
        counts = np.asarray(counts, dtype=np.int64)
        self._next = Decision(counts=counts)

    def _ask(self, context: Any) -> Decision:
        self._start()
        assert self._next is not None
        return self._next

    def _tell(self, decision: Decision, observation: Any) -> None:
        if not isinstance(observation, BatchObservation):
            raise ConfigError(f"{type(self).__name__} asks for batches and must be told a BatchObservation.")
        self.batches.append(int(decision.n_samples))
        self._told.append((decision, copy.deepcopy(observation)))
        self._advance(observation)

    def _program(self) -> Program:
        raise NotImplementedError

    def _constraint_estimates(self, values: FloatArray, widths: FloatArray, how: str) -> ArmEstimates:
        """Per decision ``z``: the constraint estimates ``z^T mu_hat_i`` (shape ``(|Z|, m)``, ``nan`` where
        none) -+ their widths, against the threshold ``gamma``."""
        m = self.view.n_constraints
        names = ["constraint z^T mu"] if m == 1 else [f"constraint {i + 1} z^T mu_{i + 1}" for i in range(m)]
        values = np.array(values, dtype=np.float64).reshape(-1, m)
        widths = np.asarray(widths, dtype=np.float64).reshape(values.shape[0], -1)
        widths = np.broadcast_to(widths, values.shape)
        values = np.where(np.isfinite(widths), values, np.nan)  # (an estimate without a width is none)
        threshold = [float(self.view.threshold)] * m
        return interval_estimates(names, values, widths, threshold, unit="decision", interval=how)

    def sums(self, observation: BatchObservation) -> FloatArray:
        return batch_sums(observation, self.view.n_arms, self.view.n_constraints)


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class TransductiveConfig(LearnerConfig):
    """Configuration every transductive learner reads (BESIDE as printed composes only these).

    Parameters
    ----------
    delta : float in (0, 1), default 0.1
        Error probability.
    epsilon : float > 0 or None, default None
        Tolerance; ``None`` takes the instance's (``info.epsilon``).
    sampling : {"rounded", "iid"}, default "rounded"
        Pukelsheim rounding of the design (RAGE) or i.i.d. draws.
    fw_tol : float in (0, 1), default 1e-2
        Relative accuracy of the Frank--Wolfe design solver.
    """

    delta: float = 0.1
    epsilon: float | None = None
    sampling: Literal["rounded", "iid"] = "rounded"
    fw_tol: float = 1e-2

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        if self.epsilon is not None:
            check_positive(self.epsilon, "epsilon", owner=owner)
        check_literal_fields(self, owner=owner)
        check_interval(self.fw_tol, "fw_tol", low=0.0, high=1.0, owner=owner)


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class EliminationConfig(TransductiveConfig):
    """Shared configuration of the elimination learners: :class:`TransductiveConfig`'s fields and the
    rounds' schedule.

    Parameters
    ----------
    delta : float in (0, 1), default 0.1
        Error probability; round ``l`` spends ``6 delta / (pi^2 l^2)``, split among its phases.
    epsilon, sampling, fw_tol
        As :class:`TransductiveConfig`.
    initial_tolerance : float > 0, default 1.0
        ``eps_1``; round ``l`` targets widths ``eps_l = initial_tolerance * 2^{1-l}``.
    width_factor : float > 0, default 2.0
        ``kappa`` of the phase length ``n = ceil(kappa sigma^2 rho eps_l^{-2} log(2 k / delta_phase)) + p``
        (``rho`` the design value, ``k`` the targets, ``p`` the design's support): with ``kappa = 2`` the
        least-squares widths of the design's targets are at most ``eps_l``.
    max_rounds : int >= 1, default 60
        Safety cap on the number of rounds (``eps_60`` is below ``1e-17``).
    """

    initial_tolerance: float = 1.0
    width_factor: float = 2.0
    max_rounds: int = 60

    def __post_init__(self) -> None:
        TransductiveConfig.__post_init__(self)
        owner = type(self).__name__
        check_positive(self.initial_tolerance, "initial_tolerance", owner=owner)
        check_positive(self.width_factor, "width_factor", owner=owner)
        check_int(self.max_rounds, "max_rounds", low=1, owner=owner)


class EliminationLearner(ProgramLearner):
    """Elimination engine with least-squares estimates from fresh data in every phase.

    State (glossary): ``active`` -- arms of Z not eliminated; ``status`` -- ``UNDECIDED``, ``SAFE``
    (``min_i (gamma - z^T mu_hat_i - w) >= 0``), ``EPS_SAFE`` (the same ``>= -eps``) or ``UNSAFE``
    (``gamma - z^T mu_hat_i + w < 0`` for some ``i``; removed from ``active``); references ``R`` --
    active arms certified safe or eps-safe; ``value_hat`` -- last estimates ``z^T theta_hat``.
    An active arm ``z`` is eliminated when ``(y - z)^T theta_hat - w(y - z) > 0`` for a reference ``y``.
    """

    config: EliminationConfig

    def __init__(self, config: EliminationConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        nz = self.view.n_decisions
        self.active = np.ones(nz, dtype=bool)
        self.status = np.zeros(nz, dtype=np.int8)
        self.value_hat = np.full(nz, np.nan)
        self.safety_gap_hat = np.zeros((nz, self.view.n_constraints))
        self.safety_width = np.full(nz, np.inf)  # last width of each decision's constraint estimates
        self.max_pair_width = math.inf
        self.round = 0
        self.answer: int | None = None

    # -- helpers ----------------------------------------------------------------------------------
    def tolerance(self, ell: int) -> float:
        return self.config.initial_tolerance * 2.0 ** (1 - ell)

    def round_delta(self, ell: int) -> float:
        return 6.0 * self.config.delta / (math.pi**2 * ell**2)

    @property
    def references(self) -> IntArray:
        return np.flatnonzero(self.active & ((self.status == SAFE) | (self.status == EPS_SAFE)))

    @property
    def undecided(self) -> IntArray:
        return np.flatnonzero(self.active & (self.status == UNDECIDED))

    def _pairs(self, left: IntArray, right: IntArray) -> tuple[IntArray, IntArray]:
        a, b = np.meshgrid(left, right, indexing="ij")
        keep = a != b
        return a[keep], b[keep]

    def _length(
        self, rho: float, n_targets: int, delta_phase: float, support: int, n_union: int | None = None
    ) -> int:
        """Pulls for least-squares widths ``<= tol`` on every target; the log is that of the widths' union
        bound over ``n_union`` quantities (default ``n_targets (1 + m)``)."""
        q = 1 + self.view.n_constraints
        count = max(n_targets, 1) * q if n_union is None else max(n_union, 1)
        log_term = math.log(2.0 * count / delta_phase)
        n = self.config.width_factor * self.view.noise_sd**2 * rho * log_term
        if not math.isfinite(n) or n >= MAX_ROUND_SAMPLES:
            return MAX_ROUND_SAMPLES
        return max(1, math.ceil(n) + support)

    def _play(
        self,
        targets: FloatArray,
        tolerances: FloatArray,
        delta_phase: float,
        design: FloatArray | None = None,
        n_union: int | None = None,
    ) -> Generator[IntArray, BatchObservation, tuple[IntArray, FloatArray]]:
        """One batch aimed at widths ``tolerances`` on ``targets``; returns per-arm counts and sums.

        The design minimises ``max_y ||y||^2_{A(lambda)^{-1}} / tol_y^2`` (value ``rho``) unless a fixed
        ``design`` is given; the batch has ``ceil(kappa sigma^2 rho log(2 k q / delta_phase)) + |supp|``
        pulls (``k q`` replaced by ``n_union`` when given: the number of quantities the widths computed
        from the batch union over), so that the least-squares width of every target is at most its
        tolerance.
        """
        tol = np.broadcast_to(np.asarray(tolerances, dtype=np.float64), (targets.shape[0],))
        if targets.shape[0] == 0:
            design, rho = np.full(self.view.n_arms, 1.0 / self.view.n_arms), 0.0
        elif design is not None:
            design = design / design.sum()
            pinv = design_pinv(self.view.arms, design)
            rho = float(np.max(np.einsum("ij,jk,ik->i", targets, pinv, targets) / tol**2))
        else:
            design, rho = solve_design(self.view.arms, targets, 1.0 / tol**2, tol=self.config.fw_tol)
        support = int(np.count_nonzero(design))
        n = self._length(max(rho, 1e-12), targets.shape[0], delta_phase, support, n_union)
        counts = draw_counts(design, n, self.config.sampling, self.rng)
        obs = yield counts
        return counts, self.sums(obs)

    def _ols(self, counts: IntArray, sums: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(Z theta_hat_all_outputs, G = Z A_n^+ Z^T, in_span)`` from one batch."""
        x, z = self.view.arms, self.view.decisions
        c = counts.astype(np.float64)
        pinv = design_pinv(x, c)
        est = z @ (pinv @ (x.T @ sums))
        g = z @ pinv @ z.T
        proj = z @ (pinv @ (x.T @ (c[:, None] * x)))
        in_span = np.linalg.norm(proj - z, axis=1) <= 1e-8 * np.maximum(np.linalg.norm(z, axis=1), 1e-300)
        return est, g, in_span

    def _scale(self, k: int, delta_phase: float) -> float:
        return self.view.noise_sd * math.sqrt(2.0 * math.log(2.0 * max(k, 1) / delta_phase))

    def update_safety(
        self, idx: IntArray, est: FloatArray, g: FloatArray, span: FloatArray, dp: float
    ) -> None:
        """Classify the arms ``idx`` from constraint estimates (columns 1..m of ``est``)."""
        if idx.size == 0:
            return
        m = self.view.n_constraints
        w = self._scale(idx.size * m, dp) * np.sqrt(np.maximum(np.diag(g)[idx], 0.0))
        w = np.where(span[idx], w, np.inf)
        gaps = self.view.threshold - est[idx, 1:]  # (k, m)
        self.safety_gap_hat[idx] = gaps
        self.safety_width[idx] = w
        lcb = (gaps - w[:, None]).min(axis=1)
        unsafe = np.any(gaps + w[:, None] < 0.0, axis=1)
        eps = self.epsilon
        new = np.where(unsafe, UNSAFE, np.where(lcb >= 0.0, SAFE, np.where(lcb >= -eps, EPS_SAFE, UNDECIDED)))
        self.status[idx] = new
        self.active[idx[unsafe]] = False

    def update_values(
        self, idx: IntArray, refs: IntArray, est: FloatArray, g: FloatArray, span: FloatArray, dp: float
    ) -> None:
        """Eliminate arms of ``idx`` worse than a reference; record value estimates and pair widths."""
        self.value_hat[idx] = est[idx, 0]
        if refs.size == 0 or idx.size == 0:
            return
        a, b = self._pairs(idx, refs)
        if a.size == 0:
            self.max_pair_width = 0.0
            return
        w2 = g[a, a] + g[b, b] - 2.0 * g[a, b]
        w = self._scale(a.size, dp) * np.sqrt(np.maximum(w2, 0.0))
        w = np.where(span[a] & span[b], w, np.inf)
        diff = est[b, 0] - est[a, 0]  # (y - z)^T theta_hat
        worse = diff - w > 0.0
        self.active[np.unique(a[worse])] = False
        keep = self.active[a] & self.active[b]
        self.max_pair_width = float(w[keep].max()) if np.any(keep) else 0.0

    def arm_estimates(self) -> ArmEstimates | None:
        """Per decision: the last least-squares constraint estimates ``z^T mu_hat_i`` -+ their width ``w``
        (``None`` before the first safety phase)."""
        if not np.isfinite(self.safety_width).any():
            return None
        values = self.view.threshold - self.safety_gap_hat
        how = "least-squares estimate -+ w(z) of the last safety phase; safe when every upper bound <= gamma"
        return self._constraint_estimates(values, self.safety_width, how)

    def safety_tolerances(self, idx: IntArray, ell: int) -> FloatArray:
        """Target widths of the safety phase for the arms ``idx`` (default ``eps_l``)."""
        return np.full(idx.size, self.tolerance(ell))

    def value_tolerances(self, idx: IntArray, ell: int) -> FloatArray:
        """Target widths of the difference phase for pairs with first arm ``idx`` (default ``eps_l``)."""
        return np.full(idx.size, self.tolerance(ell))

    # -- phases -----------------------------------------------------------------------------------
    def safety_phase(self, ell: int, dp: float) -> Generator[IntArray, BatchObservation, None]:
        """XY_safe design on the undecided active arms; classify them."""
        idx = self.undecided
        if idx.size == 0:
            return
        counts, sums = yield from self._play(self.view.decisions[idx], self.safety_tolerances(idx, ell), dp)
        est, g, span = self._ols(counts, sums)
        self.update_safety(idx, est, g, span, dp)

    def difference_phase(
        self, ell: int, dp: float, refs: IntArray | None = None, pivot: bool = True
    ) -> Generator[IntArray, BatchObservation, None]:
        """XY_diff phase: design on ``{z - y_hat : z active}`` for the best reference ``y_hat`` (RAGE^eps,
        digest 2.4; ``pivot=False``: all pairs ``{z - y : z active, y in refs}``, RAGE's design); then
        eliminate ``z`` if ``(y - z)^T theta_hat - w(y - z) > 0`` for any reference ``y`` (all pairs, union
        bound over them)."""
        idx = np.flatnonzero(self.active)
        refs = self.references if refs is None else refs
        a, b = self._pairs(idx, refs)
        if a.size == 0:
            self.max_pair_width = 0.0 if idx.size <= 1 else self.max_pair_width
            return
        z = self.view.decisions
        n_union = None
        if pivot:
            # the widths of update_values union over all (active, reference) pairs: size the batch for them
            n_union = a.size
            y_hat = self.best_reference(refs)
            a = idx[idx != y_hat]
            b = np.full(a.size, y_hat)
        else:
            a, b = a[a < b], b[a < b]
        counts, sums = yield from self._play(z[a] - z[b], self.value_tolerances(a, ell), dp, n_union=n_union)
        est, g, span = self._ols(counts, sums)
        self.update_values(idx, refs, est, g, span, dp)

    def joint_phase(
        self, ell: int, dp: float, design: Literal["diff", "safe", "uniform"]
    ) -> Generator[IntArray, BatchObservation, None]:
        """One batch from one design; both safety and values are estimated from it (half of ``dp`` each)."""
        idx = np.flatnonzero(self.active)
        z = self.view.decisions
        a, b = self._pairs(idx, idx)
        a, b = a[a < b], b[a < b]
        fixed = None
        if design == "diff":
            targets = z[a] - z[b] if a.size else z[idx]
        elif design == "safe":
            targets = z[idx]
        else:
            targets = np.vstack([z[idx], z[a] - z[b]]) if a.size else z[idx]
            fixed = np.full(self.view.n_arms, 1.0 / self.view.n_arms)
        counts, sums = yield from self._play(targets, self.tolerance(ell), dp, fixed)
        est, g, span = self._ols(counts, sums)
        self.update_safety(self.undecided, est, g, span, dp / 2.0)
        self.update_values(np.flatnonzero(self.active), self.references, est, g, span, dp / 2.0)

    # -- stopping and answer ------------------------------------------------------------------------
    def resolved(self) -> bool:
        """Stop rule: no undecided active arm, every active arm a reference, and either one active arm or
        every pair of active arms compared to within ``eps`` (so the best estimate is eps-good)."""
        idx = np.flatnonzero(self.active)
        if idx.size == 0:
            return True
        if self.undecided.size or self.references.size != idx.size:
            return False
        return idx.size == 1 or self.max_pair_width <= self.epsilon

    def best_reference(self, refs: IntArray | None = None) -> int | None:
        """The reference with the largest value estimate (lowest index among ties and without estimates)."""
        refs = self.references if refs is None else refs
        if refs.size == 0:
            return None
        vals = np.where(np.isnan(self.value_hat[refs]), -np.inf, self.value_hat[refs])
        return int(refs[int(np.argmax(vals))])

    def gap_hat(self) -> FloatArray:
        """Plug-in ``Delta_hat(z) = max_{y in R} value_hat(y) - value_hat(z)`` (0 without estimates)."""
        refs = self.references
        vals = self.value_hat
        if refs.size == 0 or np.all(np.isnan(vals[refs])):
            return np.zeros(vals.size)
        return np.nan_to_num(np.nanmax(vals[refs]) - vals, nan=0.0)

    def _recommend(self, final: bool) -> Recommendation:
        arm = self.answer if self._finished else self.best_reference()
        if arm is None and not self._finished and np.any(self.active):
            idx = np.flatnonzero(self.active)
            vals = np.where(np.isnan(self.value_hat[idx]), -np.inf, self.value_hat[idx])
            arm = int(idx[int(np.argmax(vals))])
        info = {
            "rounds": self.round,
            "n_active": int(self.active.sum()),
            "n_safe": int(np.sum(self.status == SAFE)),
            "n_eps_safe": int(np.sum(self.status == EPS_SAFE)),
            "n_unsafe": int(np.sum(self.status == UNSAFE)),
        }
        return Recommendation(arm=arm, n_samples=self.n_samples, final=final, info=info)

    def finish(self) -> None:
        self.answer = self.best_reference()
