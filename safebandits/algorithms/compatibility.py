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
from dataclasses import dataclass
from typing import Any

from safebandits.algorithms._catalogue import get_algorithm, list_algorithms
from safebandits.algorithms.cost import check_learner_cost
from safebandits.exceptions import CannotStartError, ConfigError, DefaultToleranceWarning, Fix
from safebandits.problems.declare import INFO_KINDS, Problem, SimulatedProblem, info_kind

__all__ = [
    "GUARANTEES",
    "Compatible",
    "ExcludedFamily",
    "LearnerFit",
    "StartCheck",
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

#: Guarantee keys and their wording (reports label every learner with it).
GUARANTEES: dict[str, str] = {
    "round": "safe every round w.p. 1-delta",
    "expectation": "safe in expectation w.p. 1-delta",
    "soft": "soft constraint (sublinear cumulative violation)",
    "pac": "(eps, delta)-PAC identification",
    "fdr": "FDR <= q w.p. 1-delta",
    "none": "no guarantee (baseline)",
}


@dataclass(frozen=True, slots=True)
class Compatible:
    """A learner that fits a problem.

    Attributes
    ----------
    name : str
        Registered name (``make_learner(name, problem, rng)``).
    task : str
        ``"pure_exploration"``, ``"regret"`` or ``"classification"``.
    kind : str
        The info kind it reads from the problem.
    guarantee : str
        What it guarantees (:data:`GUARANTEES` wording).
    description : str
    """

    name: str
    task: str
    kind: str
    guarantee: str
    description: str


def kinds_of(entry: Any) -> tuple[str, ...]:
    """Info kinds a registry entry reads (empty: unknown, never checked)."""
    return tuple(getattr(entry, "info", ()))


def guarantee_of(entry: Any) -> str:
    """The guarantee wording of a registry entry ("" if unknown)."""
    key = getattr(entry, "guarantee", "")
    return GUARANTEES.get(key, key)


def _problem_kinds(problem: Any) -> tuple[str, ...]:
    """Info kinds a declaration, simulated problem or problem information offers."""
    if isinstance(problem, (Problem, SimulatedProblem)):
        return problem.kinds
    kind = info_kind(problem)
    if kind is None:
        raise TypeError(
            "compatible_learners expects a problem declaration (safebandits.problems.declare), a simulated "
            f"problem or a problem-information object; got {type(problem).__name__}."
        )
    return (kind,)


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


def _kind_fits(problem: Any, task: str | None) -> list[Compatible]:
    """The learners of a kind ``problem`` offers (no start-up check)."""
    offered = _problem_kinds(problem)
    out = []
    for name, entry in list_algorithms(task).items():
        if entry.privileged and not isinstance(problem, SimulatedProblem):
            continue
        kind = next((k for k in kinds_of(entry) if k in offered), None)
        if kind is None:
            continue
        out.append(Compatible(name, entry.task, kind, guarantee_of(entry), entry.description))
    return out


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
    import numpy as np

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
    """:func:`learner_fit`'s answer: the learners that fit and start, those that fit but cannot start,
    and the families (info kinds) the problem does not offer, each with its reason."""

    fitting: list[Compatible]
    cannot_start: list[tuple[Compatible, StartCheck]]
    families: list[ExcludedFamily]


def learner_fit(
    problem: Any,
    *,
    task: str | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    horizon: int | None = None,
) -> LearnerFit:
    """Every registered learner sorted into: fits and starts, fits but cannot start (with the check's
    reason and fixes), and not of a kind the problem offers (by family, with the reason the problem gives).

    ``safebandits learners --for FILE`` prints it.
    """
    fitting, cannot = [], []
    for c in _kind_fits(problem, task):
        check = start_check(problem, c.name, (options or {}).get(c.name), horizon=horizon)
        (fitting if check.ok else cannot).append(c if check.ok else (c, check))
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
    return LearnerFit(fitting, cannot, families)


def _fitting_names(kind: str | None) -> str:
    if kind is None:
        return ""
    names = [n for n, e in list_algorithms().items() if kind in kinds_of(e)]
    return ", ".join(names) if names else "none registered"


#: Why a kind cannot stand in for another, where there is more to say than "another kind".
_HINTS = {
    ("stagewise", "k-armed"): (
        " Per-round constraints on K unstructured arms (the simplex) cannot be learned: pulling x0 reveals "
        "nothing about the other arms (Remark 7 of the stage-wise paper), so the learner would play x0 "
        "forever; use an in-expectation learner."
    ),
}


def check_info(name: str, kinds: Iterable[str], info: Any) -> None:
    """Raise one :class:`ConfigError` if ``info`` is of a kind learner ``name`` does not read.

    Unknown info types (plugins' own) and learners without declared kinds are not checked.
    """
    kinds = tuple(kinds)
    got = info_kind(info)
    if not kinds or got is None or got in kinds:
        return
    need = " or ".join(f"{k!r} ({INFO_KINDS[k].split(':')[0]})" for k in kinds if k in INFO_KINDS)
    raise ConfigError(
        f"Learner {name!r} needs a {need or ' or '.join(kinds)} problem; it was given a "
        f"{type(info).__name__} (kind {got!r}).{''.join(_HINTS.get((k, got), '') for k in kinds)} "
        f"Learners that fit this problem: {_fitting_names(got)}."
    )


def _entry(name: str) -> Any:
    return get_algorithm(name)


def view_for(problem: Problem | SimulatedProblem, name: str, *, horizon: int | None = None) -> Any:
    """The view of ``problem`` that learner ``name`` reads (its first info kind the problem offers).

    For a :class:`SimulatedProblem`, oracle baselines (``privileged``) get the privileged view of the
    simulated instance.
    """
    entry = _entry(name)
    sim = problem if isinstance(problem, SimulatedProblem) else None
    decl = sim.problem if sim is not None else problem
    kind = _kind_for(decl, entry)
    if entry.privileged:
        if sim is None:
            raise ConfigError(
                f"Learner {name!r} is an oracle baseline: it needs the truth (a simulated problem)."
            )
        return sim.instance(kind, horizon=horizon).privileged_info()
    return decl.view(kind, horizon=horizon)


def kind_for(problem: Problem | SimulatedProblem, name: str) -> str:
    """The info kind learner ``name`` reads from ``problem`` (its first kind the problem offers)."""
    decl = problem.problem if isinstance(problem, SimulatedProblem) else problem
    return _kind_for(decl, _entry(name))


def _kind_for(decl: Problem, entry: Any) -> str:
    kinds = kinds_of(entry)
    offered = decl.kinds
    for k in kinds:
        if k in offered:
            return k
    if not kinds:
        raise ConfigError(
            f"Learner {entry.name!r} does not declare which problem kind it reads (register_algorithm(..., "
            "info=KIND)); pass it a problem-information object instead of a declaration."
        )
    reasons = "; ".join(f"{k}: {decl.why_not(k)}" for k in kinds)
    fits = ", ".join(c.name for c in compatible_learners(decl, check_start=False)) or "none registered"
    raise ConfigError(
        f"Learner {entry.name!r} needs a {' or '.join(map(repr, kinds))} problem, which this "
        f"{type(decl).__name__} is not ({reasons}). Learners that fit this problem: {fits}."
    )


def instance_for(simulated: SimulatedProblem, name: str, *, horizon: int | None = None) -> Any:
    """The simulated instance (oracle and environment) of the kind learner ``name`` reads."""
    if not isinstance(simulated, SimulatedProblem):
        raise TypeError(f"instance_for expects a SimulatedProblem, got {type(simulated).__name__}.")
    return simulated.instance(_kind_for(simulated.problem, _entry(name)), horizon=horizon)


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
    threshold = getattr(decl, "threshold", None)
    tau = (
        ", ".join(f"{float(t):g}" for t in threshold)
        if threshold is not None and hasattr(threshold, "__len__")
        else ("your threshold" if threshold is None else f"{float(threshold):g}")
    )
    limit = f"your threshold ({tau})"
    if key == "round":
        return f"every action it plays has cost at most {limit} in every round, {prob}."
    if key == "expectation":
        return (
            f"the expected cost of the policy it plays is at most {limit} in every round, {prob}; single "
            "rounds may play actions above the limit."
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
                f"{prob}, its final answer has cost at most {limit} + epsilon and reward within epsilon of "
                f"the best safe action: it may return an action whose cost is up to {tol.describe()} above "
                "your threshold."
            )
        return f"{prob}, its final answer is correct (as the learner's problem defines it)."
    if key == "fdr":
        return f"the false discovery rate of its labels is at most q, {prob}."
    if key == "none":
        return "no safety guarantee (a baseline)."
    return GUARANTEES.get(key, key) or "guarantee not declared."


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
