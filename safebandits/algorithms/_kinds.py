"""The info kinds a learner reads and the problems that offer them (below :mod:`.compatibility`, which
re-exports every public name here, and :mod:`.learning`, which builds learners on these views: neither
imports the other's callers).

:func:`view_for` hands a learner the view of a declaration it needs; :func:`check_info` raises one clear
:class:`~safebandits.exceptions.ConfigError` when a learner is given a problem it cannot serve
(``make_learner`` and ``BaseLearner`` call it through :mod:`.compatibility`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from safebandits.algorithms._catalogue import get_algorithm, list_algorithms
from safebandits.exceptions import ConfigError
from safebandits.problems.declare import INFO_KINDS, Problem, SimulatedProblem, info_kind

__all__ = [
    "GUARANTEES",
    "Compatible",
    "check_info",
    "guarantee_of",
    "instance_for",
    "kind_for",
    "kinds_of",
    "view_for",
]

#: Guarantee keys and their wording (reports label every learner with it).
GUARANTEES: dict[str, str] = {
    "round": "safe every round w.p. 1-delta",
    "expectation": "safe in expectation w.p. 1-delta",
    "soft": "soft constraint (sublinear cumulative violation)",
    "pac": "(eps, delta)-PAC identification",
    "fdr": "FDR <= q w.p. 1-delta",
    "conservative": "cumulative reward >= (1-alpha) x the default arm's at every round w.p. 1-delta",
    "conservative-policy": "cumulative reward >= (1-alpha) x the baseline policy's at every round w.p. "
    "1-delta",
    "conservative-checkpoint": "cumulative reward >= (1-alpha) x the baseline policy's at every checkpoint "
    "w.p. 1-delta",
    "conservative-budget": "cumulative reward >= (1-alpha) x the default's w.h.p., by a budget banked first",
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
    fits = ", ".join(c.name for c in _kind_fits(decl, None)) or "none registered"
    raise ConfigError(
        f"Learner {entry.name!r} needs a {' or '.join(map(repr, kinds))} problem, which this "
        f"{type(decl).__name__} is not ({reasons}). Learners that fit this problem: {fits}."
    )


def instance_for(simulated: SimulatedProblem, name: str, *, horizon: int | None = None) -> Any:
    """The simulated instance (oracle and environment) of the kind learner ``name`` reads."""
    if not isinstance(simulated, SimulatedProblem):
        raise TypeError(f"instance_for expects a SimulatedProblem, got {type(simulated).__name__}.")
    return simulated.instance(_kind_for(simulated.problem, _entry(name)), horizon=horizon)
