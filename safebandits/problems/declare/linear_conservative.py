"""A :class:`~safebandits.problems.declare.linear.LinearProblem` whose constraint is the reward's own
(issue 44, "across settings"): the conservative view, and the conservative record of its other views.

A linear problem with a known baseline arm ``b`` (``safe_arm``, its reward ``r_b = safe_reward > 0``) and
one constraint read off the reward as its negative (``cost_matrix = -I``: ``cost(x) = -theta^T x``) with a
threshold ``tau`` in ``[-r_b, 0]`` states the *stage-wise* conservative constraint of Khezeli & Bitar
(Safe-LUCB): every round ``theta^T x_t >= (1 - alpha) r_b`` with ``alpha = 1 + tau / r_b``. The same
declaration then fits the *cumulative* conservative constraint of Kazerouni et al. (CLUCB): ``sum_s
theta^T x_s >= (1 - alpha) t r_b`` at every round, weaker (a per-round guarantee implies it). So the
stage-wise learners (``stagewise``, ``k-armed``, ``safe-linear-arms`` views) and the conservative ones
(the ``conservative-linear`` view: a time-independent action set, the baseline arm in every context)
run on one problem, and every run records both promises under the truth: the stage-wise runs the
cumulative margin (:class:`~safebandits.problems.conservative.ConservativeConstraint`), the conservative
runs the rounds below the per-round floor ``(1 - alpha) r_b`` (``violations``) and their shortfall
(``positive_cost``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["conservative_alpha", "conservative_instance", "conservative_view", "why_not_conservative",
           "with_conservative_record"]  # fmt: skip


def why_not_conservative(problem: Any) -> str | None:
    """Why ``problem`` (a LinearProblem) offers no ``conservative-linear`` view (``None``: it does)."""
    need = (
        "the conservative-linear kind needs a ConservativeLinearProblem (contexts, a baseline policy), or a "
        "LinearProblem whose one constraint is the reward's own: cost_matrix = -I, a safe_arm (the "
        "baseline) with its safe_reward > 0 and a threshold in [-safe_reward, 0] (alpha = 1 + threshold / "
        "safe_reward)"
    )
    if problem.action_set != "points" or problem.n_constraints != 1 or problem.cost_matrix is None:
        return need
    d = problem.dim
    if not np.allclose(np.asarray(problem.cost_matrix, dtype=np.float64), -np.eye(d)):
        return need
    if problem.safe_arm is None or problem.safe_reward is None or not problem.safe_reward > 0.0:
        return need
    if not -problem.safe_reward - 1e-12 <= float(problem.threshold[0]) <= 1e-12:
        return need
    if problem.feedback.kind not in ("gaussian", "subgaussian"):
        return "the conservative-linear learners read Gaussian or sub-Gaussian rewards"
    return None


def conservative_alpha(problem: Any) -> float:
    """``alpha = 1 + tau / r_b`` (clipped to ``[0, 1]``) of a problem that offers the view."""
    return float(min(1.0, max(0.0, 1.0 + float(problem.threshold[0]) / float(problem.safe_reward))))


def conservative_view(problem: Any, horizon: int) -> Any:
    """The :class:`~safebandits.problems.conservative_linear.ConservativeLinearInfo` of the problem: its
    arms as the (fixed) actions of every context, the baseline arm's reward known."""
    from safebandits.problems.conservative_linear import ConservativeLinearInfo

    fb = problem.feedback
    return ConservativeLinearInfo(
        dim=problem.dim, n_actions=problem.n_arms, alpha=conservative_alpha(problem), known_baseline=True,
        checkpoint=1, horizon=horizon, noise_bound=fb.noise_bound, noise_kind=fb.kind,
        feature_bound=float(problem.told_arm_norm), param_bound=float(problem.param_norm_bound),
    )  # fmt: skip


def conservative_instance(problem: Any, theta: Any, noise: Any, horizon: int, name: str) -> Any:
    """The conservative contextual instance of the truth ``theta`` (fixed actions, the baseline arm in
    every context), with ``per_round_floor`` ``(1 - alpha) r_b`` so that its runs count the rounds below
    the stage-wise constraint too."""
    from safebandits.problems.conservative_linear import ConservativeLinearInstance
    from safebandits.problems.declare.base import _Proxy

    alpha = conservative_alpha(problem)
    arms = np.asarray(problem.arms, dtype=np.float64)
    inst = ConservativeLinearInstance(
        theta=np.asarray(theta, dtype=np.float64), arms=arms, n_actions=problem.n_arms, alpha=alpha,
        baseline_action=int(problem.safe_arm), known_baseline=True, noise=noise, horizon=horizon,
        noise_bound=problem.feedback.noise_bound, param_bound=float(problem.param_norm_bound), name=name,
    )  # fmt: skip
    r_b = float(arms[int(problem.safe_arm)] @ np.asarray(theta, dtype=np.float64))
    return _Proxy(inst, per_round_floor=(1.0 - alpha) * r_b)


def with_conservative_record(problem: Any, kind: str, inst: Any, theta: Any) -> Any:
    """``inst`` (a stage-wise view's instance) with the cumulative constraint's record when the problem
    offers the conservative view (the runs' ``conservative_*`` columns); else ``inst`` itself.

    Safe-LUCB's instance works in coordinates centred at the baseline arm (its rewards are ``theta^T x -
    r_b``): the same margin ``sum_s theta^T x_s - (1 - alpha) t r_b`` is ``sum_s (theta^T x_s - r_b) + alpha
    t r_b``, the record of a constraint with ``alpha = 0`` and a "baseline" of ``-alpha r_b``."""
    if kind not in ("stagewise", "k-armed", "safe-linear-arms") or why_not_conservative(problem) is not None:
        return inst
    from safebandits.problems.conservative import ConservativeConstraint
    from safebandits.problems.declare.base import _Proxy

    alpha = conservative_alpha(problem)
    r_b = float(np.asarray(problem.arms, dtype=np.float64)[int(problem.safe_arm)] @ np.asarray(theta))
    if kind == "safe-linear-arms":
        constraint = ConservativeConstraint(0.0, 1, -alpha * r_b)
    else:
        constraint = ConservativeConstraint(alpha, 1, r_b)
    return _Proxy(inst, constraint=constraint)
