"""Safe-LTS baseline (Moradipari et al. 2019) as run against LC-LUCB by Pacchiano et al. (Sec. 4.5).

The paper gives no description of Safe-LTS; we follow the authors' implementation (spec ``stagewise.md``
Sec. 2.8 and 3): the **same** pessimistic safe set as LC-LUCB (closed-form scaling along each ray,
``x0`` always a candidate; pessimistically feasible points for finite sets), and a Thompson-sampling
reward index: each round draw

    ``theta~ ~ N(theta_hat, inflation * (alpha_r beta_r)^2 Sigma^{-1})``

(``inflation = d`` by default, as in the code) and play the candidate maximising ``<x, theta~>``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from safebandits._validation import check_positive
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret.lc_lucb import StagewiseLinearConfig, StagewiseLinearLearner

__all__ = ["SafeLTS", "SafeLTSConfig"]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class SafeLTSConfig(StagewiseLinearConfig):
    """Configuration of :class:`SafeLTS`.

    Parameters
    ----------
    delta, reg, radii, alpha_r, alpha_c, refresh_every, safe_value_ucb
        As :class:`~safebandits.algorithms.regret.lc_lucb.StagewiseLinearConfig` (the safe set and ``beta_r``
        are LC-LUCB's; ``safe_value_ucb="ucb"`` scores ``x0`` by ``<x0, theta~>``).
    inflation : float > 0 or None, default None
        Variance inflation of the Thompson sample; ``None``: the dimension ``d`` (the authors' code).
    """

    inflation: float | None = None

    def __post_init__(self) -> None:
        StagewiseLinearConfig.__post_init__(self)  # (zero-argument super() fails in slotted dataclasses)
        if self.inflation is not None:
            check_positive(self.inflation, "inflation", owner=type(self).__name__)


@register_algorithm("safe-lts", task="regret", description="Safe-LTS: Thompson sampling over LC-LUCB's "
                    "pessimistic safe set (baseline of Pacchiano et al., Sec. 4.5).",
                    info="stagewise", guarantee="round",
                    assumptions=("linear", "means-at-most-1", "param-norm", "noise",
                                 "safe-action"))  # fmt: skip
class SafeLTS(StagewiseLinearLearner):
    """Safe linear Thompson sampling over the pessimistic safe set (baseline of Sec. 4.5).

    Parameters
    ----------
    config : SafeLTSConfig
    info : StagewiseInfo
    rng : numpy.random.Generator
        Source of the Thompson normals, drawn in blocks of ``d``-vectors into a buffer that the ask / tell
        path and :meth:`simulate` both read (same trajectory).

    Notes
    -----
    The sample is ``theta_hat + sqrt(inflation) alpha_r beta_r L eta`` with ``L L^T = Sigma^{-1}``
    (Cholesky of the current inverse) and ``eta ~ N(0, I_d)``. ``alpha_r`` and ``beta_r`` are LC-LUCB's
    (theory: ``1 + 2 (1 - r0) / min_i (tau_i - c0_i)``; code radii: the code's ``beta_reward`` including
    its ``1 / min(1, tau)`` factor), so the comparison with LC-LUCB differs only in the reward index.

    Deviations (docs/decisions/stagewise.md): the original Safe-LTS (Moradipari et al.) needs ``x0 = 0`` and a
    convex action set and uses its own inflation; like the authors' code we reuse LC-LUCB's safe set and
    radius; unlike the code, ``x0`` itself is a candidate (value ``<x0, theta~>``, or ``r0`` with
    ``safe_value_ucb="known"``).
    """

    config_cls = SafeLTSConfig
    name = "safe-lts"
    use_ts = True

    def __init__(self, config: SafeLTSConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        d = self._arms.shape[1]
        self.inflation = float(d) if config.inflation is None else float(config.inflation)
        self._ts_scale = math.sqrt(self.inflation)

    @property
    def theta_sample(self) -> np.ndarray:
        """The last Thompson sample ``theta~``."""
        return self._theta_ts.copy()

    def diagnostics(self) -> dict[str, Any]:
        out = super().diagnostics()
        out["inflation"] = self.inflation
        return out
