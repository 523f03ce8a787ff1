"""Which learners fit a problem: the info kind each learner reads and the guarantee it offers.

Every registered learner reads one or more *info kinds* (:data:`~safebandits.problems.declare.INFO_KINDS`)
and offers one guarantee (:data:`GUARANTEES`). A plugin states both when it registers
(``register_algorithm("mine", task="regret", info="stagewise", guarantee="round")``), and so does
every built-in learner: its registration line is the one place its kinds and guarantee are written.

:func:`compatible_learners` lists the learners that fit a problem declaration, a simulated problem or
a problem-information object; :func:`view_for` hands a learner the view of a declaration it needs;
:func:`check_info` raises one clear :class:`~safebandits.exceptions.ConfigError` when a learner is
given a problem it cannot serve (``make_learner`` and ``BaseLearner`` call it).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from safebandits.algorithms._catalogue import get_algorithm, list_algorithms
from safebandits.algorithms._conservative_words import (
    CONSERVATIVE_KEYS,
    conservative_statement,
    linear_baseline_statement,
    offers_conservative_view,
)
from safebandits.algorithms._kinds import (
    GUARANTEES,
    Compatible,
    _entry,
    _kind_fits,
    _kind_for,
    _problem_kinds,
    check_info,
    guarantee_of,
    instance_for,
    kind_for,
    kinds_of,
    view_for,
)
from safebandits.algorithms.cost import check_learner_cost
from safebandits.algorithms.learning import LeaveEstimate, leave_estimate
from safebandits.exceptions import CannotStartError, ConfigError, DefaultToleranceWarning, Fix
from safebandits.problems.declare import INFO_KINDS, Problem, SimulatedProblem, info_kind

__all__ = [
    "GUARANTEES",
    "Compatible",
    "ExcludedFamily",
    "LearnerFit",
    "LeaveEstimate",
    "StartCheck",
    "assumption_statement",
    "bound_statement",
    "check_info",
    "compatible_learners",
    "guarantee_of",
    "guarantee_statement",
    "instance_for",
    "kind_for",
    "kinds_of",
    "learner_fit",
    "per_round_safety_note",
    "start_check",
    "tolerance_lines",
    "view_for",
]


def compatible_learners(
    problem: Any,
    *,
    task: str | None = None,
    check_start: bool = True,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    horizon: int | None = None,
) -> list[Compatible]:
    """The registered learners that fit ``problem`` and can start on it, with the kind they read and their
    guarantee.

    A learner fits if it reads an info kind the problem offers; it can start if its constructor accepts
    the problem (the start-up check of :func:`start_check`: the learner is built on its view with a fixed
    seed, exactly as a run builds it). :func:`learner_fit` also gives the learners and families left out,
    each with its reason and the change that would admit it.

    Parameters
    ----------
    problem : Problem, SimulatedProblem or problem information (``StagewiseInfo``, ``CBAIInfo``, ...)
    task : {"pure_exploration", "regret", "classification"}, optional
        Only learners of this task.
    check_start : bool, default True
        Run each candidate's start-up check; ``False`` lists every learner of a fitting kind.
    options : mapping of learner name -> options, optional
        The options each learner would be built with (default: its defaults).
    horizon : int, optional
        The horizon of regret learners' views (default: the declaration's).

    Returns
    -------
    list of Compatible
        Sorted by name. Oracle baselines (which need the truth) are listed for simulated problems only.

    Examples
    --------
    >>> from safebandits.problems.declare import LinearProblem
    >>> p = LinearProblem(arms=[[0, 0], [1, 0], [0, 1]], threshold=0.5, safe_arm=0, safe_cost=0.0)
    >>> [c.name for c in compatible_learners(p, task="regret")][:3]
    ['ckb-rand', 'ckb-ts', 'ckb-ucb']
    """
    if not check_start:
        return _kind_fits(problem, task)
    return learner_fit(problem, task=task, options=options, horizon=horizon).fitting


@dataclass(frozen=True, slots=True)
class StartCheck:
    """Whether learner ``name`` can start on a problem, and if not why and what would admit it.

    Attributes
    ----------
    name : str
    ok : bool
    reason : str
        Empty when ``ok``.
    fixes : tuple of str
        Changes that would let it start, in the words and coordinates of the problem as declared.
    applicable : tuple of Fix
        The same fixes as records (:class:`~safebandits.exceptions.Fix`), for tools that apply them.
    message : str
        The whole message: the reason, the coordinates note and every change.
    """

    name: str
    ok: bool
    reason: str = ""
    fixes: tuple[str, ...] = ()
    applicable: tuple[Fix, ...] = ()
    message: str = ""


def start_check(
    problem: Any,
    name: str,
    options: Mapping[str, Any] | None = None,
    *,
    horizon: int | None = None,
) -> StartCheck:
    """Run learner ``name``'s start-up check on ``problem``: build it as a run would, report what failed.

    The learner is built on the view of ``problem`` it reads (a declaration) or on ``problem`` itself
    (problem information) with its ``options``, from a fixed seed; nothing is played. A refusal
    (:class:`~safebandits.exceptions.ConfigError`) is returned, not raised, with its reason and the
    changes that would let it start, stated for a declaration in the declaration's own coordinates
    (e.g. Safe-LUCB's actions in the arms' coordinates, not centred at the safe arm).
    """

    entry = get_algorithm(name)
    decl = problem.problem if isinstance(problem, SimulatedProblem) else problem
    kind = None
    try:
        if isinstance(problem, (Problem, SimulatedProblem)):
            kind = _kind_for(decl, entry)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DefaultToleranceWarning)  # (stated by the caller)
                info = view_for(problem, name, horizon=horizon)
        else:
            check_info(name, kinds_of(entry), problem)
            info = problem
        try:
            cfg = entry.config(**dict(options or {}))
        except TypeError as exc:  # (an option the config does not have)
            raise ConfigError(f"options of {name!r}: {exc}") from None
        check_learner_cost(info, name)  # (before it is built)
        entry.cls(cfg, info, np.random.default_rng(0))
    except ConfigError as exc:
        return _refusal(name, exc, decl if isinstance(decl, Problem) else None, kind)
    return StartCheck(name, True)


def _refusal(name: str, exc: ConfigError, decl: Problem | None, kind: str | None) -> StartCheck:
    if not isinstance(exc, CannotStartError):
        text = " ".join(str(exc).split())
        return StartCheck(name, False, reason=text, message=text)
    if decl is None or kind is None:
        texts = tuple(f.text for f in exc.fixes) + exc.notes
        return StartCheck(name, False, exc.reason, texts, exc.fixes, str(exc))
    texts = tuple(decl.fix_text(kind, f) for f in exc.fixes) + exc.notes
    note = decl.coordinates_note(kind)
    message = f"{name} cannot start on this problem: {exc.reason}."
    if note:
        message += f" ({note}.)"
    if texts:
        message += f" Change one of: {'; '.join(texts)}."
    return StartCheck(name, False, exc.reason, texts, exc.fixes, message)


def restate(name: str, exc: CannotStartError, problem: Problem | SimulatedProblem) -> CannotStartError:
    """``exc`` (raised by learner ``name`` on its view of ``problem``) stated in the declaration's terms."""
    decl = problem.problem if isinstance(problem, SimulatedProblem) else problem
    check = _refusal(name, exc, decl, _kind_for(decl, _entry(name)))
    return CannotStartError(check.message, reason=exc.reason, fixes=exc.fixes, notes=exc.notes)


@dataclass(frozen=True, slots=True)
class ExcludedFamily:
    """An info kind a problem does not offer: why, and the learners that read it."""

    kind: str
    reason: str
    learners: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LearnerFit:
    """:func:`learner_fit`'s answer: the learners that fit, start and can learn within the horizon; those
    that start but cannot learn (they would play the known safe action for the whole horizon); those that
    fit but cannot start; and the families (info kinds) the problem does not offer, each with its reason.

    Attributes
    ----------
    fitting : list of Compatible
    cannot_start : list of (Compatible, StartCheck)
    families : list of ExcludedFamily
    cannot_learn : list of (Compatible, LeaveEstimate)
        Learners that start from a known safe action but need at least as many rounds as the horizon,
        at best, before they could play another action (:func:`~safebandits.algorithms.learning.
        leave_estimate`), with that number and what would let them learn.
    leave_estimates : dict of str -> LeaveEstimate
        The estimate of every learner that starts from a known safe action (those listed in ``fitting``
        and in ``cannot_learn``).
    """

    fitting: list[Compatible]
    cannot_start: list[tuple[Compatible, StartCheck]]
    families: list[ExcludedFamily]
    cannot_learn: list[tuple[Compatible, LeaveEstimate]] = field(default_factory=list)
    leave_estimates: dict[str, LeaveEstimate] = field(default_factory=dict)


def learner_fit(
    problem: Any,
    *,
    task: str | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    horizon: int | None = None,
) -> LearnerFit:
    """Every registered learner sorted into: fits, starts and can learn within the horizon; starts but
    cannot learn (the rounds it needs before it can leave the safe action, and what would let it learn);
    fits but cannot start (with the check's reason and fixes); and not of a kind the problem offers (by
    family, with the reason the problem gives).

    ``safebandits learners --for FILE`` prints it.
    """
    fitting, cannot, estimates = [], [], {}
    for c in _kind_fits(problem, task):
        opts = (options or {}).get(c.name)
        check = start_check(problem, c.name, opts, horizon=horizon)
        if not check.ok:
            cannot.append((c, check))
            continue
        fitting.append(c)
        est = leave_estimate(problem, c.name, opts, horizon=horizon) if c.task == "regret" else None
        if est is not None:
            estimates[c.name] = est
    stuck = {n for n, e in estimates.items() if not e.can_learn}
    learning = [
        c.name
        for c in fitting
        if c.name not in stuck and c.task == "regret" and getattr(_entry(c.name), "guarantee", "") != "none"
    ]
    cannot_learn = []
    for c in [c for c in fitting if c.name in stuck]:
        est = estimates[c.name]
        if learning:
            est = replace(est, fixes=(*est.fixes, f"another learner: {', '.join(learning)}"))
            estimates[c.name] = est
        cannot_learn.append((c, est))
    fitting = [c for c in fitting if c.name not in stuck]
    families = []
    if isinstance(problem, (Problem, SimulatedProblem)):
        decl = problem.problem if isinstance(problem, SimulatedProblem) else problem
        offered = set(decl.kinds)
        by_kind: dict[str, list[str]] = {}
        for name, entry in list_algorithms(task).items():
            for k in kinds_of(entry):
                by_kind.setdefault(k, []).append(name)
        for kind, names in by_kind.items():
            if kind in offered or kind not in INFO_KINDS:
                continue
            families.append(ExcludedFamily(kind, decl.why_not(kind) or "not offered", tuple(sorted(names))))
    return LearnerFit(fitting, cannot, families, cannot_learn, estimates)


def tolerance_lines(problem: Any, names: Iterable[str]) -> list[str]:
    """One line per tolerance that relaxes the guarantee of the learners ``names`` on ``problem`` (a
    declaration): its value and its source (the user's value or the documented default)."""
    if not isinstance(problem, (Problem, SimulatedProblem)):
        return []
    decl = problem.problem if isinstance(problem, SimulatedProblem) else problem
    by_kind: dict[str, list[str]] = {}
    for name in dict.fromkeys(names):
        by_kind.setdefault(kind_for(decl, name), []).append(name)
    lines = []
    for kind, kind_names in by_kind.items():
        tol = decl.tolerance(kind)
        if tol is not None:
            lines.append(
                f"the answers of {', '.join(kind_names)} may exceed your threshold by up to {tol.describe()}"
            )
    return lines


def guarantee_statement(
    problem: Any, name: str, options: Mapping[str, Any] | None = None, *, horizon: int | None = None
) -> str:
    """What learner ``name`` guarantees on ``problem``, in the problem's terms (threshold, tolerance,
    delta): the sentence the report and ``safebandits run`` print for each learner of a declared problem.
    """
    entry = _entry(name)
    key = getattr(entry, "guarantee", "")
    try:
        cfg = entry.config(**dict(options or {}))
    except (ConfigError, TypeError):
        cfg = None
    delta = getattr(cfg, "delta", None)
    prob = (
        f"with probability at least 1 - delta (delta = {delta:g})"
        if delta is not None
        else "with high probability"
    )
    decl = problem.problem if isinstance(problem, SimulatedProblem) else problem
    cost, limit = _limit_words(decl)
    if key in CONSERVATIVE_KEYS:
        if delta is None and cfg is not None and hasattr(cfg, "delta"):  # (the learner's default: 1 / T)
            told = f" = {1.0 / max(int(horizon), 2):g}" if horizon is not None else ", T the horizon"
            prob = f"with probability at least 1 - delta (delta = 1/T{told})"
    if offers_conservative_view(decl):  # (a baseline arm and alpha: every promise in those numbers)
        said = linear_baseline_statement(decl, key, prob)
        if said:
            return said
    bound = bound_statement(problem, name, options, horizon=horizon)
    bound = f" With {bound}" if bound else ""
    if key == "round":
        return f"every action it plays has {cost} at most {limit} in every round, {prob}.{bound}"
    if key == "expectation":
        return (
            f"the expected {cost} of the policy it plays is at most {limit} in every round, {prob}; single "
            f"rounds may play actions above the limit.{bound}"
        )
    if key == "soft":
        return (
            "the cumulative constraint violation grows sublinearly with the rounds; single rounds may play "
            "actions above the limit."
        )
    if key == "pac":
        kind = None
        if isinstance(decl, Problem):
            try:
                kind = _kind_for(decl, entry)
            except ConfigError:
                kind = None
        tol = decl.tolerance(kind) if isinstance(decl, Problem) and kind is not None else None
        if tol is not None:
            return (
                f"{prob}, its final answer has {cost} at most {limit} + epsilon and reward within epsilon of "
                f"the best safe action: it may return an action whose cost is up to {tol.describe()} above "
                "your threshold."
            )
        return f"{prob}, its final answer is correct (as the learner's problem defines it)."
    if key == "fdr":
        q = getattr(decl, "q", None)
        q_text = f"q = {float(q):g}" if isinstance(q, (int, float)) else "q"
        return f"the false discovery rate of its labels is at most {q_text}, {prob}."
    if key in CONSERVATIVE_KEYS:
        checkpoints_only = key == "conservative-checkpoint"
        return conservative_statement(decl, prob, GUARANTEES[key], checkpoints_only=checkpoints_only)
    if key == "none":
        return "no safety guarantee (a baseline)."
    return GUARANTEES.get(key, key) or "guarantee not declared."


def bound_statement(
    problem: Any, name: str, options: Mapping[str, Any] | None = None, *, horizon: int | None = None
) -> str:
    """The per-action confidence bound learner ``name`` runs with on ``problem`` (a declaration or a
    learner's view): which one (its default resolved from the declared feedback, or the user's choice), its
    source and what it keeps of the guarantee; ``""`` for a learner without a ``bound_statement`` (no
    per-action bound option) or options / a problem it cannot start with (the start check says why)."""
    entry = _entry(name)
    state = getattr(entry.cls, "bound_statement", None)
    if state is None:
        return ""
    try:
        cfg = entry.config(**dict(options or {}))
        view = problem
        if isinstance(problem, (Problem, SimulatedProblem)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                view = view_for(problem, name, horizon=horizon)
        return str(state(cfg, view))
    except (ConfigError, TypeError):
        return ""


def _told(view: Any, key: str) -> str:
    """The value of the problem that assumption ``key`` rests on, from the learner's view ("" if none)."""

    def num(name: str) -> float | None:
        value = getattr(view, name, None)
        try:
            return None if value is None else float(value)
        except (TypeError, ValueError):
            return None

    if key in ("means-at-most-1", "mean-bound"):
        b = num("mean_bound")
        if b is None:
            return "not declared: taken on trust" if key == "means-at-most-1" else ""
        return f"declared mean_bound = {b:g}"
    if key == "noise":
        r = num("noise_bound") if num("noise_bound") is not None else num("noise_sd")
        return "" if r is None else f"R = {r:g}"
    if key == "param-norm":
        b = num("param_norm_bound")
        return "" if b is None else f"S = {b:g}"
    if key == "rkhs":
        b, g = num("reward_bound"), num("constraint_bound")
        return "" if b is None or g is None else f"B = {b:.4g}, G = {g:.4g}"
    if key == "slater":
        v = num("slater")
        return "" if v is None else f"Slater constant {v:.4g}"
    if key == "nonnegative-means":
        b = num("mean_bound")
        return "" if b is None else f"declared mean_bound = {b:g}"
    if key == "baseline-floor":
        floor = num("baseline_floor")
        return "" if floor is None else f"declared baseline_floor = {floor:g}"
    if key == "default-arm":
        arm, mu0 = getattr(view, "default_arm", None), num("default_mean")
        if arm is None:
            return ""
        return f"arm {int(arm)}, " + (f"mean {mu0:g}" if mu0 is not None else "mean unknown")
    if key == "safe-action":
        arm = getattr(view, "safe_arm", None)
        seed = getattr(view, "safe_seed", None)
        if arm is None and info_kind(view) == "dose":
            arm = view.safe_action
        if arm is not None:
            return f"action {int(arm)}"
        if seed:
            return f"action {int(seed[0])}"
    if key == "max-increase" and getattr(view, "max_increase", None) is not None:
        return f"declared per step: {', '.join(f'{v:g}' for v in view.max_increase)}"
    if key == "monotone-cost" and info_kind(view) == "dose":
        return "declared" if view.monotone else "not declared: only the step bound is used"
    return ""


def assumption_statement(
    problem: Any, name: str, options: Mapping[str, Any] | None = None, *, horizon: int | None = None
) -> str:
    """What learner ``name``'s guarantee rests on (its registered ``assumptions``), with the values
    ``problem`` declares for them: the line printed beside :func:`guarantee_statement` ("" if the learner
    states none).

    Example: ``"reward and cost means at most 1 (...; declared mean_bound = 1); noise R-sub-Gaussian with R
    the noise bound it is told (R = 1); a known safe action, strictly below the threshold (action 0)"``.
    """
    from safebandits.algorithms.assumptions import ASSUMPTIONS

    keys = getattr(_entry(name), "assumptions", ())
    if not keys:
        return ""
    view = problem
    if isinstance(problem, (Problem, SimulatedProblem)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                view = view_for(problem, name, horizon=horizon)
        except ConfigError:
            view = None
    parts = []
    for key in keys:
        told = _told(view, key) if view is not None else ""
        text = ASSUMPTIONS.get(key, str(key))
        parts.append(f"{text} ({told})" if told else text)
    return "; ".join(parts)


def _limit_words(decl: Any) -> tuple[str, str]:
    """``(what is limited, the limit)`` in a problem's own numbers: ``("cost", "your threshold (0.05)")``
    for a problem with thresholds; for a kernel problem (``g <= 0``; bounded outcomes observed as ``Y +
    constraint_shift``) ``("constraint function g", "0 (g(x) <= 0 ...)")``."""
    threshold = getattr(decl, "threshold", None)
    if threshold is not None:
        values = np.atleast_1d(np.asarray(threshold, dtype=np.float64))
        return "cost", f"your threshold ({', '.join(f'{float(t):g}' for t in values)})"
    shift = getattr(decl, "constraint_shift", None)
    fb = getattr(getattr(decl, "feedback", None), "kind", None)
    if shift is not None and fb in ("bernoulli", "binary") and float(shift) != 0.0:
        return (
            "constraint value g",
            f"0 (g = E[Y] + constraint_shift: the mean outcome at most {-float(shift):g})",
        )
    return "constraint value g", "0 (the constraint is g(x) <= 0)"


def per_round_safety_note(problem: Any) -> str | None:
    """``None`` if a registered learner that promises safety in every round fits ``problem``; else why none
    can, and what would admit one (``safebandits learners --for FILE`` prints it).

    A learner promises per-round safety if it registered ``guarantee="round"`` (StageOpt, SGP-UCB,
    Safe-LUCB, GSLUCB, LC-LUCB, Safe-LTS). Per-round safety needs structure that links the actions (a
    kernel or a linear model) and a known safe action; on K unstructured arms no learner can promise it
    (Remark 7 of the stage-wise paper): the note says so.

    Parameters
    ----------
    problem : Problem, SimulatedProblem or problem information
    """
    offered = _problem_kinds(problem)
    if offered in (("conservative",), ("conservative-linear",)):
        return None  # (no per-round limit: the conservative constraint is on the cumulative reward)
    decl = problem.problem if isinstance(problem, SimulatedProblem) else problem
    round_kinds: dict[str, list[str]] = {}
    for name, entry in list_algorithms("regret").items():
        if getattr(entry, "guarantee", "") != "round" or entry.privileged:
            continue
        for k in kinds_of(entry):
            round_kinds.setdefault(k, []).append(name)
    refusals = []
    for kind, names in round_kinds.items():
        if kind not in offered:
            continue
        for name in names:
            check = start_check(problem, name)
            if check.ok:
                return None
            refusals.append(f"{name} cannot start: {check.message}")
    by_reason: dict[str, set[str]] = {}  # (one line per reason: several kinds may share one)
    for kind, names in round_kinds.items():
        if kind in offered:
            continue
        why = decl.why_not(kind) if isinstance(decl, Problem) else f"it is a {offered[0]!r} problem"
        by_reason.setdefault(str(why), set()).update(names)
    reasons = refusals + [f"{', '.join(sorted(names))}: {why}" for why, names in by_reason.items()]
    text = "No learner can promise safety in every round on this problem. " + "; ".join(reasons) + "."
    if "k-armed" in offered:
        text += (
            " On K unstructured arms, playing the safe arm reveals nothing about the others (Remark 7 of the "
            "stage-wise paper): per-round safety needs a model that links the actions (a covariate per "
            "action with a kernel, setting = 'covariate'; or features with a linear model and a known safe "
            "action). The learners listed are safe in expectation or soft at best."
        )
    return text
