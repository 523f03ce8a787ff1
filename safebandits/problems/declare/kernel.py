"""A finite domain with kernels: :class:`KernelProblem` (CKB, StageOpt, SGP-UCB)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from safebandits._cost import check_cost, kernel_matrix_cost, solve_cost
from safebandits._limits import MAX_BUDGET
from safebandits._validation import (
    check_array,
    check_choice,
    check_int,
    check_interval,
    check_positive,
)
from safebandits.exceptions import ConfigError
from safebandits.problems.declare.base import (
    Feedback,
    Problem,
    SimulatedProblem,
    _KernelWithSeed,
    _owner_fail,
    kernel_feedback,
)
from safebandits.types import FloatArray

__all__ = ["KernelProblem"]

KernelName = Literal["se", "matern", "linear"]


def _gram(spec: Any, points: FloatArray | None, n: int | None, name: str, owner: str) -> FloatArray:
    from safebandits.estimators.gp import check_kernel_matrix, matern_kernel, se_kernel

    if isinstance(spec, Mapping):
        spec = dict(spec)
        kind = spec.pop("name", None)
        check_choice(kind, f"{name}.name", KernelName, owner=owner)
        if points is None:
            raise ConfigError(f"{owner}: a named kernel ({kind!r}) needs the domain's points.")
        allowed = {
            "se": {"lengthscale", "variance"},
            "matern": {"lengthscale", "variance", "nu"},
            "linear": set(),
        }
        unknown = set(spec) - allowed[kind]
        if unknown:
            raise _owner_fail(
                owner, name, f"a {kind!r} kernel with keys among {sorted(allowed[kind])}", sorted(unknown)
            )
        if kind == "se":
            return se_kernel(points, **spec)
        if kind == "matern":
            return matern_kernel(points, **spec)
        return points @ points.T + 1.0
    gram = check_kernel_matrix(check_array(spec, name, ndim=2, owner=owner), name, owner=owner)
    if n is not None and gram.shape != (n, n):
        raise _owner_fail(owner, name, f"an array of shape ({n}, {n})", f"array of shape {gram.shape}")
    return gram


@dataclass(frozen=True, kw_only=True)
class KernelProblem(Problem):
    """A finite domain with a reward ``f`` and a soft constraint ``g <= 0`` in known RKHSs (CKB setting).

    Parameters
    ----------
    kernel : array-like of shape (n, n) or mapping
        Gram matrix of ``k``, or ``{"name": "se" | "matern" | "linear", "lengthscale": ..., ...}`` on
        ``points``.
    points : array-like of shape (n, d), optional
        Coordinates of the domain (needed by named kernels and by StageOpt's metric).
    constraint_kernel : like ``kernel``, optional
        ``k~`` of the constraint (default ``k``).
    reward_bound, constraint_bound : float
        ``B`` and ``G``: bounds on ``|f|``, ``|g|`` and on their RKHS norms.
    slater : float in (0, 1]
        Slater constant ``delta`` (some point has ``g <= -delta``).
    safe_seed : sequence of int, default ()
        Points known to be safe (needed by the safe baselines StageOpt and SGP-UCB, not by CKB).
    feedback : Feedback, str or mapping, default gaussian with sigma 0.1
        Feedback of both ``f`` and ``g``: Gaussian, sub-Gaussian, or bounded outcomes (``"bernoulli"``
        ``{0, 1}``, ``"binary"`` ``{-1, +1}``), which are sub-Gaussian with proxy ``(b - a) / 2`` (1/2 and
        1), the noise bound told to the learners.
    constraint_shift : float, default 0.0
        With bounded feedback, the constraint is observed as ``c = Y + constraint_shift`` with ``Y`` the
        outcome (``E[Y] = g - constraint_shift``): for an outcome whose mean must stay at most ``tau``
        (``g = E[Y] - tau``) give ``-tau``. Ignored for Gaussian feedback.
    horizon : int, default 10_000
    domain : Box or mapping, optional
        A continuous domain instead of ``points``: the box ``{"lower": [...], "upper": [...]}``
        (:class:`~safebandits.problems.kernel_box.Box`: finite bounds, ``lower < upper``, at most
        20 dimensions). The kernels must then be named (``"se"`` or ``"matern"``), ``safe_seed`` lists
        points of the box (coordinates), and the truth given to :meth:`simulate` is a function on
        the box: ``{"centers": [...], "weights": [...], "offset": 0.0}`` (``sum_i w_i k(x, c_i) +
        offset``, :class:`~safebandits.problems.kernel_box.RKHSFunction`) or a vectorised callable.
        Learners play points of the box (``docs/decisions/ckb.md``, "Continuous domains").
    """

    setting = "kernel"

    kernel: Any
    reward_bound: float
    constraint_bound: float
    slater: float
    points: Any = None
    constraint_kernel: Any = None
    safe_seed: Sequence[Any] = ()
    feedback: Any = field(default_factory=lambda: {"kind": "gaussian", "sigma": 0.1})
    constraint_shift: float = 0.0
    horizon: int = 10_000
    domain: Any = None

    def __post_init__(self) -> None:
        owner = "KernelProblem"
        object.__setattr__(
            self, "constraint_shift", check_interval(self.constraint_shift, "constraint_shift", owner=owner)
        )
        if self.domain is not None:
            self._init_box(owner)
            return
        pts = (
            None
            if self.points is None
            else check_array(self.points, "points", ndim=2, min_rows=1, owner=owner)
        )
        object.__setattr__(self, "points", pts)
        if pts is not None:  # (before the n x n kernel matrices)
            count = 1 if self.constraint_kernel is None else 2
            check_cost(
                kernel_matrix_cost(pts.shape[0], pts.shape[1], count),
                f"A KernelProblem of {pts.shape[0]:,} points",
            )
        gram = _gram(self.kernel, pts, None if pts is None else pts.shape[0], "kernel", owner)
        n = gram.shape[0]
        object.__setattr__(self, "_gram_k", gram)
        gk = (
            gram
            if self.constraint_kernel is None
            else _gram(self.constraint_kernel, pts, n, "constraint_kernel", owner)
        )
        object.__setattr__(self, "_gram_g", gk)
        for attr in ("reward_bound", "constraint_bound"):
            object.__setattr__(self, attr, check_positive(getattr(self, attr), attr, owner=owner))
        check_interval(self.slater, "slater", low=0.0, high=1.0, closed="right", owner=owner)
        if isinstance(self.safe_seed, (str, bytes)) or not isinstance(self.safe_seed, Sequence):
            raise _owner_fail(owner, "safe_seed", "a sequence of point indices", self.safe_seed)
        seed = tuple(check_int(i, "safe_seed", low=0, high=n - 1, owner=owner) for i in self.safe_seed)
        object.__setattr__(self, "safe_seed", seed)
        object.__setattr__(self, "feedback", Feedback.coerce(self.feedback, owner))
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)

    def _init_box(self, owner: str) -> None:
        """A continuous domain: the box, named kernels on it, the safe seed as points of the box."""
        from safebandits.problems.kernel_box import Box, box_kernel

        if self.points is not None:
            raise ConfigError(f"{owner}: give either points (a finite domain) or domain (a box), not both.")
        box = Box.coerce(self.domain, owner)
        object.__setattr__(self, "domain", box)
        k = box_kernel(self.kernel, box, owner)
        kg = k if self.constraint_kernel is None else box_kernel(self.constraint_kernel, box, owner)
        object.__setattr__(self, "_gram_k", k)
        object.__setattr__(self, "_gram_g", kg)
        for attr in ("reward_bound", "constraint_bound"):
            object.__setattr__(self, attr, check_positive(getattr(self, attr), attr, owner=owner))
        check_interval(self.slater, "slater", low=0.0, high=1.0, closed="right", owner=owner)
        if isinstance(self.safe_seed, (str, bytes)):
            raise _owner_fail(owner, "safe_seed", "a list of points of the box", self.safe_seed)
        seed = () if len(self.safe_seed) == 0 else box.check_points(self.safe_seed, "safe_seed", owner)
        object.__setattr__(self, "safe_seed", seed)
        object.__setattr__(self, "feedback", Feedback.coerce(self.feedback, owner))
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)

    @property
    def n_points(self) -> int:
        """Points of the finite domain (a box has none: 0)."""
        if self.domain is not None:
            return 0
        return int(self._gram_k.shape[0])  # type: ignore[attr-defined]

    @property
    def kinds(self) -> tuple[str, ...]:
        return ("kernel",)

    def _view(self, kind: str, horizon: int) -> Any:
        from safebandits.problems.kernel import KernelInfo

        r = self.feedback.noise_bound
        if self.domain is not None:  # (the safe seed's points; their indices are the seed)
            seed = self.safe_seed
            where = {
                "points": np.array(seed) if len(seed) else None,
                "safe_seed": tuple(range(len(seed))),
                "box": self.domain,
            }
        else:  # (an empty seed: no point is assumed safe)
            where = {"points": self.points, "safe_seed": tuple(self.safe_seed)}  # type: ignore[attr-defined]
        return KernelInfo(
            kernel=self._gram_k,  # type: ignore[attr-defined]
            constraint_kernel=self._gram_g,  # type: ignore[attr-defined]
            reward_bound=self.reward_bound,
            constraint_bound=self.constraint_bound,
            noise_bound=r,
            constraint_noise_bound=r,
            slater=float(self.slater),
            horizon=horizon,
            **where,
        )

    def why_not(self, kind: str) -> str | None:
        reason = super().why_not(kind)
        return reason

    def simulate(
        self, *, reward: Any, constraint: Any, sigma: float | None = None, name: str = "declared"
    ) -> SimulatedProblem:
        """Add the true ``f`` and ``g`` on the domain (``g <= 0`` feasible)."""
        return SimulatedProblem(
            problem=self, truth={"reward": reward, "constraint": constraint, "sigma": sigma}, name=name
        )

    def truth_violations(self, truth: Mapping[str, Any]) -> list[str]:
        """Where ``truth`` breaks the declared bounds (a finite domain): ``|f|`` or the RKHS norm ``||f||_k``
        above ``reward_bound``, ``|g|`` or ``||g||_k~`` above ``constraint_bound`` (the norm of the
        smallest-norm function with these values on the points, ``sqrt(h^T K^+ h)``). On a box the truth is
        a function of its own and is not checked here."""
        if self.domain is not None:
            return []
        from safebandits.estimators.gp import rkhs_norms

        owner = "KernelProblem.simulate"
        n = self.n_points
        f = check_array(truth.get("reward"), "reward", shape=(n,), owner=owner)
        g = check_array(truth.get("constraint"), "constraint", shape=(n,), owner=owner)
        same = self._gram_g is self._gram_k  # type: ignore[attr-defined]
        check_cost(
            solve_cost(n, "the truth's RKHS norms: a least-squares solve") + solve_cost(0 if same else n),
            f"Checking a truth against this KernelProblem of {n:,} points",
        )
        if same:
            norms = rkhs_norms(self._gram_k, f, g)  # type: ignore[attr-defined]
        else:
            norms = rkhs_norms(self._gram_k, f) + rkhs_norms(self._gram_g, g)  # type: ignore[attr-defined]
        out = []
        for field_name, attr, h, norm in (("reward", "reward_bound", f, norms[0]),
                                          ("constraint", "constraint_bound", g, norms[1])):  # fmt: skip
            bound = float(getattr(self, attr))
            sup = float(np.max(np.abs(h)))
            for what, value in (("max |value|", sup), ("RKHS norm", norm)):
                if value > bound * (1 + 1e-9):
                    out.append(
                        f"{field_name}: its {what} is {value:.4g}, above {attr} = {bound:g}; declare "
                        f"{attr} >= {value:.4g} or change the truth"
                    )
        return out

    def _instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        from safebandits.problems.kernel import KernelInstance

        owner = "KernelProblem.simulate"
        if self.domain is not None:
            return self._box_instance(truth, horizon, name, owner)
        n = self.n_points
        f = check_array(truth.get("reward"), "reward", shape=(n,), owner=owner)
        g = check_array(truth.get("constraint"), "constraint", shape=(n,), owner=owner)
        for i in self.safe_seed:
            if g[i] > 0:
                raise ConfigError(f"{owner}: the declared safe seed point {i} has g = {g[i]:.4g} > 0.")
        sigma = truth.get("sigma")
        inst = KernelInstance(
            reward=f,
            constraint=g,
            kernel=self._gram_k,
            constraint_kernel=self._gram_g,  # type: ignore[attr-defined]
            feedback=kernel_feedback(
                self.feedback if sigma is None else Feedback(self.feedback.kind, sigma),
                constraint_shift=float(self.constraint_shift),
            ),
            horizon=horizon,
            points=self.points,
            reward_bound=self.reward_bound,
            constraint_bound=self.constraint_bound,
            noise_bound=self.feedback.noise_bound,
            constraint_noise_bound=self.feedback.noise_bound,
            slater_cap=float(self.slater),
            name=name,
        )
        return _KernelWithSeed(inst, self.safe_seed[0]) if self.safe_seed else inst

    def _box_instance(self, truth: Mapping[str, Any], horizon: int, name: str, owner: str) -> Any:
        from safebandits.problems.kernel_box import BoxKernelInstance, RKHSFunction

        def function(key: str, kernel: Any) -> Any:
            value = truth.get(key)
            if callable(value):
                return value
            if not isinstance(value, Mapping) or not {"centers", "weights"} <= set(value):
                raise ConfigError(
                    f"{owner}: on a box the truth's {key!r} is a function: {{centers = [[...]], weights = "
                    f"[...], offset = 0.0}} (sum_i w_i k(x, c_i) + offset) or a callable. Got {value!r:.80}."
                )
            unknown = set(value) - {"centers", "weights", "offset"}
            if unknown:
                raise ConfigError(f"{owner}: the truth's {key!r} has unknown keys {sorted(unknown)}.")
            return RKHSFunction(value["centers"], value["weights"], kernel, value.get("offset", 0.0))

        sigma = truth.get("sigma")
        return BoxKernelInstance(
            reward=function("reward", self._gram_k),  # type: ignore[attr-defined]
            constraint=function("constraint", self._gram_g),  # type: ignore[attr-defined]
            box=self.domain,
            kernel=self._gram_k,  # type: ignore[attr-defined]
            constraint_kernel=self._gram_g,  # type: ignore[attr-defined]
            feedback=kernel_feedback(
                self.feedback if sigma is None else Feedback(self.feedback.kind, sigma),
                constraint_shift=float(self.constraint_shift),
            ),
            horizon=horizon,
            safe_seed=np.array(self.safe_seed) if len(self.safe_seed) else None,
            reward_bound=self.reward_bound,
            constraint_bound=self.constraint_bound,
            noise_bound=self.feedback.noise_bound,
            constraint_noise_bound=self.feedback.noise_bound,
            slater_cap=float(self.slater),
            name=name,
        )

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.domain is not None:
            out["domain"] = self.domain.to_dict()
        return out
