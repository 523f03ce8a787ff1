"""The conservative guarantee in the user's numbers (issue 44): the sentences
:func:`~safebandits.algorithms.compatibility.guarantee_statement` says for a conservative problem -- a
default arm (:class:`~safebandits.problems.declare.ConservativeProblem`), a baseline policy
(:class:`~safebandits.problems.declare.ConservativeLinearProblem`), or a baseline *arm* of a
:class:`~safebandits.problems.declare.LinearProblem` whose one constraint is the reward's own (the
conservative view of :mod:`~safebandits.problems.declare.linear_conservative`), where every learner's
promise, the stage-wise ones' included, is said in that problem's baseline, alpha, horizon and delta."""

from __future__ import annotations

from typing import Any

__all__ = ["conservative_statement", "linear_baseline_statement", "offers_conservative_view"]

#: The guarantee keys of the conservative learners.
CONSERVATIVE_KEYS = ("conservative", "conservative-policy", "conservative-checkpoint")


def offers_conservative_view(decl: Any) -> bool:
    """Whether ``decl`` is a LinearProblem offering the conservative view (a baseline arm, the reward's own
    constraint: :func:`~safebandits.problems.declare.linear_conservative.why_not_conservative`)."""
    if getattr(decl, "setting", None) != "linear":
        return False
    from safebandits.problems.declare.linear_conservative import why_not_conservative

    try:
        return why_not_conservative(decl) is None
    except (AttributeError, TypeError, ValueError):
        return False


def _when(decl: Any, checkpoints_only: bool) -> str:
    every = int(getattr(decl, "checkpoint", 1) or 1)
    if checkpoints_only:
        floor = float(getattr(decl, "baseline_floor", 0.0) or 0.0)
        return (
            f"at every checkpoint (rounds {every}, {2 * every}, ...; it may fall below between them, the "
            f"baseline's reward taken at least baseline_floor = {floor:g})"
        )
    if every == 1:
        return "at every round"
    return f"at every round (so at every checkpoint, every {every} rounds)"


def conservative_statement(decl: Any, prob: str, generic: str, *, checkpoints_only: bool = False) -> str:
    """The conservative guarantee in the problem's numbers (its alpha, default arm, baseline policy or
    baseline arm, and checkpoint); ``checkpoints_only``: a learner that keeps it at the checkpoints alone;
    ``generic`` when the problem says too little."""
    if offers_conservative_view(decl):
        return linear_baseline_statement(decl, "conservative", prob)
    alpha, arm = getattr(decl, "alpha", None), getattr(decl, "default_arm", None)
    when = _when(decl, checkpoints_only)
    if alpha is not None and getattr(decl, "n_actions", None) is not None:  # (a baseline policy)
        scorer = getattr(decl, "baseline_param", None)
        action = getattr(decl, "baseline_action", None)
        if scorer is not None:
            policy = "the greedy action of the declared production scorer baseline_param"
        elif action is not None:
            policy = f"action {int(action)} in every context"
        else:  # (a view without the declaration: the contexts name the baseline's action)
            policy = "the action each context names"
        return (
            f"its cumulative reward stays at least {1.0 - float(alpha):g} (1 - alpha, alpha = "
            f"{float(alpha):g}) times what the baseline policy ({policy}) would have earned, {when}, {prob}."
        )
    if alpha is None or arm is None:
        return generic
    mu0 = getattr(decl, "default_mean", None)
    mean = f"mean {float(mu0):g}" if mu0 is not None else "mean unknown, estimated"
    return (
        f"its cumulative reward stays at least {1.0 - float(alpha):g} (1 - alpha, alpha = {float(alpha):g}) "
        f"times what the default arm {int(arm)} ({mean}) would have earned, {when}, {prob}."
    )


def linear_baseline_statement(decl: Any, key: str, prob: str) -> str:
    """A learner's promise (guarantee ``key``) on a LinearProblem offering the conservative view, in its
    numbers: the baseline arm ``b`` (``safe_arm``) and its reward ``r_b`` (``safe_reward``), ``alpha = 1 +
    threshold / r_b``, and ``prob`` (delta, the horizon's when it is ``1/T``)."""
    from safebandits.problems.declare.linear_conservative import conservative_alpha

    alpha = conservative_alpha(decl)
    b, r_b = int(decl.safe_arm), float(decl.safe_reward)
    tau = float(decl.threshold[0])
    floor = (1.0 - alpha) * r_b
    base = (
        f"{1.0 - alpha:g} (1 - alpha, alpha = 1 + threshold / safe_reward = {alpha:g}) times what the "
        f"baseline arm {b} (reward safe_reward = {r_b:g}) would have earned"
    )
    if key in CONSERVATIVE_KEYS:
        return (
            f"its cumulative reward stays at least {base} -- at least {floor:g} t after t rounds -- at every "
            f"round, {prob}; single rounds may play actions of reward below {floor:g}."
        )
    if key == "round":
        return (
            f"every action it plays has reward at least {floor:g} (cost -reward at most your threshold "
            f"{tau:g}: (1 - alpha) x the baseline arm {b}'s reward {r_b:g}) in every round, {prob}; so its "
            f"cumulative reward too stays at least {base}, at every round."
        )
    if key == "expectation":
        return (
            f"the expected reward of the policy it plays is at least {floor:g} ((1 - alpha) x the baseline "
            f"arm {b}'s reward {r_b:g}) in every round, {prob}; single rounds may play actions of reward "
            f"below {floor:g}, and its cumulative reward stays at least {base} in expectation only."
        )
    if key == "none":
        return (
            f"no safety guarantee (a baseline): its cumulative reward may fall below {base} ({floor:g} t "
            "after t rounds)."
        )
    return ""
