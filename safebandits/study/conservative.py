"""Studies of conservative problems (issue 44): the round's context of a contextual study, checked at the
boundary, and the conservative constraint's record read from the stored rows.

A study whose learner reads a :class:`~safebandits.problems.conservative_linear.ConservativeLinearInfo` is
asked with the round's context, ``study.ask(context)``: ``{"arms": [[...], ...], "baseline": b,
"baseline_reward": r}`` (or a :class:`~safebandits.problems.conservative_linear.ConservativeContext`), the
``(n_actions, dim)`` features of the round's actions, the baseline policy's action and its mean reward
(when the problem declares it known). The context is stored with the query (JSON, in the decision's row)
and a replay asks the learner with it again.

Every query of a conservative study stores, beside its decision, what the learner certified when it chose
(:func:`round_record`): ``budget``, the learner's pessimistic margin ``xi_t`` of the action it considered
(it plays that action only when ``xi_t >= 0``, else the baseline), ``pessimistic_margin``, the certified
lower bound of the margin after the action played (``xi_t`` of a played non-baseline action; ``None``
for the baseline's, which raises the margin by ``alpha r_b >= 0``), and ``baseline_played``.
:func:`conservative_record` reads them back per round and, when the study holds a truth (a
:class:`~safebandits.problems.declare.SimulatedProblem`, an experiment's ``[truth]``), the margin under
the truth ``sum_{s<=t} r(a_s) - (1 - alpha) sum_{s<=t} r(b_s)`` after every answered round, the verified
rounds (every ``checkpoint``-th) where it is negative and the first of them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from safebandits._validation import check_array
from safebandits.exceptions import ConfigError, ProtocolError

__all__ = [
    "CONTEXT_KEYS",
    "check_declared",
    "conservative_record",
    "context_from_stored",
    "context_to_dict",
    "declared_context",
    "is_conservative",
    "is_contextual",
    "parse_context",
    "round_record",
]

#: The keys of a context (``baseline_reward`` may be left out when the problem does not declare it known).
CONTEXT_KEYS = ("arms", "baseline", "baseline_reward")

#: The study's record is read from at most this many answered rounds (the dashboard's page, the API).
MAX_RECORD_ROUNDS = 200_000


def is_contextual(info: Any) -> bool:
    """Whether a study on ``info`` is asked with a context (a conservative contextual linear view)."""
    from safebandits.problems.conservative_linear import ConservativeLinearInfo

    return isinstance(info, ConservativeLinearInfo)


def is_conservative(info: Any) -> bool:
    """Whether ``info`` is a conservative view (multi-armed or contextual linear)."""
    from safebandits.problems.conservative import ConservativeInfo

    return isinstance(info, ConservativeInfo) or is_contextual(info)


def _fail(field: str, study: str, expected: str, got: Any) -> ConfigError:
    shown = repr(got)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return ConfigError(f"{field} of study {study!r} must be {expected}. Got {shown} instead.")


def parse_context(value: Any, info: Any, study: str) -> Any:
    """The :class:`~safebandits.problems.conservative_linear.ConservativeContext` of ``value`` (a dict or a
    context), checked against the study's view ``info``; :class:`ConfigError` naming the field
    (``context``, ``context.arms``, ``context.baseline``, ``context.baseline_reward``) otherwise.

    Checks: the keys; ``arms`` an ``(n_actions, dim)`` array of finite numbers (never strings or booleans)
    whose rows have norm at most the declared ``feature_bound`` (the learners' confidence sets rest on
    it); ``baseline`` an action index; ``baseline_reward`` a finite number of at least the declared
    ``baseline_floor`` (0: non-negative) when the problem declares the baseline's rewards known, and
    absent (or null) when it does not.
    """
    from safebandits.problems.conservative_linear import ConservativeContext

    if isinstance(value, ConservativeContext):
        value = {"arms": value.arms, "baseline": value.baseline, "baseline_reward": value.baseline_reward}
    k, d = int(info.n_actions), int(info.dim)
    if value is None:
        raise ConfigError(
            f"Study {study!r} asks with the round's context: its problem shows {k} actions with {d} "
            'features each round. Give context = {"arms": [[...], ...] (shape '
            f'({k}, {d})), "baseline": the baseline policy\'s action, "baseline_reward": its mean reward}}.'
        )
    if not isinstance(value, Mapping):
        raise _fail("context", study, "an object with arms, baseline and baseline_reward", value)
    extra = sorted(str(key) for key in value if key not in CONTEXT_KEYS)
    if extra or "arms" not in value or "baseline" not in value:
        raise _fail("context", study, "an object with the keys arms, baseline and baseline_reward",
                    sorted(str(key) for key in value))  # fmt: skip
    arms = check_array(value["arms"], "context.arms", shape=(k, d), owner=f"study {study!r}")
    norms = np.linalg.norm(arms, axis=1)
    bound = float(info.feature_bound)
    if np.any(norms > bound * (1.0 + 1e-9)):
        row = int(np.argmax(norms))
        raise ConfigError(
            f"context.arms of study {study!r} must have rows of norm at most feature_bound = {bound:g} (the "
            f"learners' confidence sets rest on it). Got row {row} of norm {norms[row]:.6g} instead."
        )
    b = value["baseline"]
    if isinstance(b, (bool, np.bool_)) or not isinstance(b, (int, np.integer)) or not 0 <= int(b) < k:
        raise _fail("context.baseline", study, f"an action index in 0..{k - 1}", b)
    reward = value.get("baseline_reward")
    if bool(info.known_baseline):
        floor = float(getattr(info, "baseline_floor", 0.0))
        if (
            reward is None
            or isinstance(reward, (bool, np.bool_))
            or not isinstance(reward, (int, float, np.integer, np.floating))
            or not math.isfinite(float(reward))
            or float(reward) < floor
        ):
            expected = (
                f"the baseline action's mean reward, a finite number >= {floor:g} (the problem declares "
                "it known" + (f" and at least baseline_floor = {floor:g})" if floor > 0 else ")")
            )
            raise _fail("context.baseline_reward", study, expected, reward)
        reward = float(reward)
    elif reward is not None:
        raise _fail(
            "context.baseline_reward", study,
            "absent: the problem declares the baseline's rewards unknown (known_baseline = false)", reward,
        )  # fmt: skip
    return ConservativeContext(arms=arms, baseline=int(b), baseline_reward=reward)


def context_to_dict(context: Any) -> dict[str, Any]:
    """A context as stored (JSON: floats written with ``repr``, so they round-trip bit for bit)."""
    reward = context.baseline_reward
    return {
        "arms": np.asarray(context.arms, dtype=np.float64).tolist(),
        "baseline": int(context.baseline),
        "baseline_reward": None if reward is None else float(reward),
    }


def context_from_stored(stored: Mapping[str, Any]) -> Any:
    """The context a stored query was asked with (its rows are trusted: they were checked when stored)."""
    from safebandits.problems.conservative_linear import ConservativeContext

    reward = stored.get("baseline_reward")
    return ConservativeContext(
        arms=np.asarray(stored["arms"], dtype=np.float64),
        baseline=int(stored["baseline"]),
        baseline_reward=None if reward is None else float(reward),
    )


def same_context(stored: Mapping[str, Any] | None, context: Any) -> bool:
    """Whether a checked ``context`` is the one a stored query was asked with."""
    return stored is not None and context_to_dict(context) == dict(stored)


def declared_context(declaration: Any, kind: str | None) -> Any:
    """The context every round of a study shows when its declaration fixes the actions, else ``None``.

    A :class:`~safebandits.problems.declare.LinearProblem` read through its ``conservative-linear`` view
    (the conservative view of :mod:`~safebandits.problems.declare.linear_conservative`) has the same
    actions every round: its ``arms``, the baseline its ``safe_arm`` and the baseline's reward its
    ``safe_reward`` (known). A :class:`~safebandits.problems.declare.ConservativeLinearProblem` declares
    no action set (its contexts are the world's): ``None``, the caller sends each round's context."""
    if (
        declaration is None
        or kind != "conservative-linear"
        or getattr(declaration, "setting", None) != "linear"
    ):
        return None
    from safebandits.problems.conservative_linear import ConservativeContext

    return ConservativeContext(
        arms=np.asarray(declaration.arms, dtype=np.float64),
        baseline=int(declaration.safe_arm),
        baseline_reward=float(declaration.safe_reward),
    )


def check_declared(context: Any, declared: Any, study: str) -> None:
    """Refuse a checked ``context`` that is not the ``declared`` one (a study whose declaration fixes the
    actions), naming the first field that differs (``context.arms``, ``context.baseline``,
    ``context.baseline_reward``). Equality is exact (the numbers as the declaration holds them): the
    learner's confidence sets and the record's margin are those of the declared actions."""
    given, fixed = context_to_dict(context), context_to_dict(declared)
    why = (
        f"its problem fixes the actions: the same arms every round, the baseline safe_arm = "
        f"{fixed['baseline']} with its reward safe_reward = {fixed['baseline_reward']!r}; ask() without a "
        "context uses them"
    )
    for key, name in (("arms", "arms"), ("baseline", "safe_arm"), ("baseline_reward", "safe_reward")):
        if given[key] == fixed[key]:
            continue
        if key == "arms":
            a, b = np.asarray(given[key]), np.asarray(fixed[key])
            row = int(np.flatnonzero(np.any(a != b, axis=1))[0])
            got = f"row {row} = {a[row].tolist()} where the declaration has {b[row].tolist()}"
        else:
            got = f"{given[key]!r} instead"
        raise ConfigError(f"context.{key} of study {study!r} must be the declared {name} ({why}). Got {got}.")


def _finite(value: Any) -> float | None:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def round_record(learner: Any, arm: int | None, baseline: int) -> dict[str, Any]:
    """What the learner certified for the decision it just made (call between its ``ask`` and ``tell``):
    ``budget`` (its ``xi_t``, ``None`` when it has none), ``pessimistic_margin`` (the certified lower bound
    of the margin after the action, ``None`` for the baseline's action or a learner without a
    certificate) and ``baseline_played``."""
    budget = None
    diagnostics = getattr(learner, "diagnostics", None)
    if callable(diagnostics):
        try:
            budget = _finite(diagnostics().get("budget"))
        except Exception:  # (a plugin's diagnostics undefined in this state)
            budget = None
    pessimistic = None
    try:
        cert = learner.certificate()
    except (ProtocolError, AttributeError):
        cert = None
    if cert is not None and cert.kind == "upper-bound" and cert.bound is not None:
        pessimistic = _finite(-float(np.asarray(cert.bound).reshape(-1)[0]))
    return {"budget": budget, "pessimistic_margin": pessimistic, "baseline_played": arm == baseline}


def _true_means(info: Any, truth: Mapping[str, Any], rows: list[dict[str, Any]]) -> tuple[Any, Any]:
    """The true mean reward of the action played and of the baseline's in each round (k,), (k,)."""
    if is_contextual(info):
        theta = np.asarray(truth.get("theta", truth.get("reward_param")), dtype=np.float64).reshape(-1)
        played, base = [], []
        for row in rows:
            ctx = row["decision"]["context"]
            means = np.asarray(ctx["arms"], dtype=np.float64) @ theta
            played.append(means[int(row["decision"]["arm"])])
            base.append(means[int(ctx["baseline"])])
        return np.asarray(played), np.asarray(base)
    means = np.asarray(truth["means"], dtype=np.float64).reshape(-1)
    arms = [int(row["decision"]["arm"]) for row in rows]
    return means[arms], np.full(len(arms), means[int(info.default_arm)])


def conservative_record(
    info: Any, rows: list[dict[str, Any]], truth: Mapping[str, Any] | None, guarantee: str
) -> dict[str, Any]:
    """The conservative constraint's record of a study's answered rounds ``rows`` (its stored queries, in
    id order, answered only).

    Returns ``{"alpha", "checkpoint", "guarantee", "truth", "rounds", "violations", "first_violation",
    "min_true_margin", "min_pessimistic_margin", "baseline_rounds"}``; each round ``{"round", "id", "arm",
    "baseline", "baseline_played", "budget", "pessimistic_margin", "true_margin", "verified",
    "violated"}`` (``true_margin`` and ``violated`` ``None`` without a truth; ``violations`` counts the
    verified rounds whose true margin is below ``-1e-9``).
    """
    from safebandits.problems.conservative import TOL, ConservativeConstraint, conservative_margins

    alpha, every = float(info.alpha), int(getattr(info, "checkpoint", 1))
    contextual = is_contextual(info)
    default = None if contextual else int(info.default_arm)
    true = None
    if truth is not None and rows:
        played, base = _true_means(info, truth, rows)
        true = conservative_margins(played, ConservativeConstraint(alpha, every), baseline=base)
    rounds = []
    for t, row in enumerate(rows, start=1):
        decision = row["decision"]
        rec = decision.get("record") or {}
        baseline = int(decision["context"]["baseline"]) if contextual else default
        arm = decision.get("arm")
        verified = t % every == 0
        margin = None if true is None else float(true[t - 1])
        rounds.append({
            "round": t, "id": int(row["id"]), "arm": arm, "baseline": baseline,
            "baseline_played": bool(rec.get("baseline_played", arm == baseline)),
            "budget": rec.get("budget"), "pessimistic_margin": rec.get("pessimistic_margin"),
            "true_margin": margin, "verified": verified,
            "violated": None if margin is None else bool(verified and margin < -TOL),
        })  # fmt: skip
    bad = [r["round"] for r in rounds if r["violated"]]
    checked = [r["true_margin"] for r in rounds if r["verified"] and r["true_margin"] is not None]
    pess = [r["pessimistic_margin"] for r in rounds if r["pessimistic_margin"] is not None]
    return {
        "alpha": alpha,
        "checkpoint": every,
        "guarantee": guarantee,
        "truth": true is not None or (truth is not None),
        "rounds": rounds,
        "n_rounds": len(rounds),
        "baseline_rounds": sum(r["baseline_played"] for r in rounds),
        "violations": None if truth is None else len(bad),
        "first_violation": bad[0] if bad else None,
        "min_true_margin": min(checked) if checked else None,
        "margin": None if true is None else float(true[-1]),
        "min_pessimistic_margin": min(pess) if pess else None,
    }
