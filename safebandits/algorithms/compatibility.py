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

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from safebandits.exceptions import ConfigError
from safebandits.problems.declare import INFO_KINDS, Problem, SimulatedProblem, info_kind

__all__ = [
    "GUARANTEES",
    "Compatible",
    "check_info",
    "compatible_learners",
    "guarantee_of",
    "instance_for",
    "kinds_of",
    "per_round_safety_note",
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


def compatible_learners(problem: Any, *, task: str | None = None) -> list[Compatible]:
    """The registered learners that fit ``problem``, with the kind they read and their guarantee.

    Parameters
    ----------
    problem : Problem, SimulatedProblem or problem information (``StagewiseInfo``, ``CBAIInfo``, ...)
    task : {"pure_exploration", "regret", "classification"}, optional
        Only learners of this task.

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
    from safebandits.algorithms.registry import list_algorithms

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


def _fitting_names(kind: str | None) -> str:
    from safebandits.algorithms.registry import list_algorithms

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
    from safebandits.algorithms.registry import get_algorithm

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
    fits = ", ".join(c.name for c in compatible_learners(decl)) or "none registered"
    raise ConfigError(
        f"Learner {entry.name!r} needs a {' or '.join(map(repr, kinds))} problem, which this "
        f"{type(decl).__name__} is not ({reasons}). Learners that fit this problem: {fits}."
    )


def instance_for(simulated: SimulatedProblem, name: str, *, horizon: int | None = None) -> Any:
    """The simulated instance (oracle and environment) of the kind learner ``name`` reads."""
    if not isinstance(simulated, SimulatedProblem):
        raise TypeError(f"instance_for expects a SimulatedProblem, got {type(simulated).__name__}.")
    return simulated.instance(_kind_for(simulated.problem, _entry(name)), horizon=horizon)


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
    from safebandits.algorithms.registry import list_algorithms

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
            why = _start_refusal(problem, name)
            if why is None:
                return None
            refusals.append(f"{name} cannot start: {why}")
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


def _start_refusal(problem: Any, name: str) -> str | None:
    """``None`` if learner ``name`` (default options) can be built on ``problem``, else its refusal."""
    import warnings

    import numpy as np

    entry = _entry(name)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (a view's notices are the caller's to print)
            info = view_for(problem, name) if isinstance(problem, (Problem, SimulatedProblem)) else problem
            entry.cls(entry.config(), info, np.random.default_rng(0))
    except ConfigError as exc:
        return " ".join(str(exc).split())
    return None
