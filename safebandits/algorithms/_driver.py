"""A shared compiled simulation driver: ask -> observe -> tell with a learner's kernels and the noise model.

A learner's compiled ``simulate`` (:meth:`~safebandits.algorithms.base.BaseLearner.simulate`) is this
loop over the rows of the environment's standard variates, built from its kernels::

    st = by_reference(prepare(run))    # once per block (prepare optional): the record the kernels read
    j = start                          # (rows = (start, stop, SIMULATE))
    while j < stop:
        taken = skip(st, sampler, j, stop)   # optional: certified skips (G-ACOL) play rows j .. j + taken - 1
        if taken > 0:                        #   at once, drawing observations with sampler.sample(arm, row)
            j += taken
            continue
        if not select(st, j):          # the learner's choice for round j (False: stop here, e.g. a buffer
            break                      #   of learner random numbers ran out; the caller refills, resumes)
        mu = means(env, played(st, j)) # the environment's means of the action the learner wrote for round j
        y[k] = observe_code(env.noise_code, env.sigma, mu[k], variates[j, k])   # the one noise model
        update(st, j, y)               # the learner's update with the observation
        j += 1
    return j

The learner's kernels see its own state and the observations only: ``env`` (the environment's
:class:`~safebandits.problems.feedback.CompiledFeedback`, built by the environment) is read by the
environment's ``means`` kernel, chosen by what the learner plays (``plays``: ``"arms"``,
:func:`~safebandits.problems.feedback.arm_means`; ``"points"``, :func:`~safebandits.problems.feedback.
point_means`), and the skip hook gets an opaque sampler (:class:`~safebandits.problems.feedback.
SamplerType`: ``sample(arm, row)`` and nothing else). The one loop in Python around it (variates,
refills, counts) is :meth:`~safebandits.algorithms.base.BaseLearner.simulate`.

The same function serves the ask / tell path (modes :data:`TOLD` and :data:`SELECT`): ``tell`` calls it
with ``rows = (0, 2, TOLD)``, the observation in ``variates[0]`` and the told action in row 0 of the run's
outputs, and it runs ``update`` for row 0, then ``select`` for row 1 alone (the next ``ask``'s choice,
prepared); an ``ask`` with nothing prepared calls it with ``(0, 1, SELECT)``. Each kernel has one call
site, so numba compiles (and inlines) it once for both paths: G-ACOL's ask / tell on the driver instead of
a kernel of its own took its cold compile from 8.6-9.5 s to ~7 s.

``run`` is the learner's typed run record (a NamedTuple of its numerical state and the output buffers of
the block), ``env`` the environment's compiled feedback record. :func:`make_driver` builds this loop,
compiled, for one learner's kernels: a specialisation per learner, so that numba inlines the kernels
(no call through a function pointer) and caches it on disk like any other kernel (a loop taking the
kernels as first-class arguments, or a closure over them, is recompiled in every process).

Every compiled learner simulates on it: LC-LUCB and Safe-LTS, OPLB, OPB, Safe-LUCB and GSLUCB on finite
sets, the G-ACOL family (with its certified skips as the ``skip`` hook) and ``uniform-exploration``.
The driver is two compiled functions called from Python (:class:`Driver`): ``block(run)``, ``prepare``'s
record passed on by reference (:func:`~safebandits._numba.by_reference`: numba's ``StructRef``, one
reference count for the whole record instead of one per array each time a kernel binds it), then the
loop with that block as its argument. As an argument, the block is what numba's dead-code pass needs to
keep the kernels' writes (it keeps a write to an array only when its alias analysis traces the array to
an argument of the function; a record built in the same function would not be one); and called from
Python rather than from a compiled wrapper, the loop is compiled once (a compiled caller re-optimises
its callees' code: LC-LUCB's cold compile 7.6 -> 11.9 s). Every array is an ordinary, reference-counted
numba array and nothing of numba is changed; see docs/decisions/engine.md, "numba through its public API
only".

The cached specialisation is keyed by the learner's module file (its numba cache follows that file) and
by a checksum of the loop's source below, so a change of either invalidates it.
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from safebandits._numba import by_reference
from safebandits.problems.feedback import PLAYS, CompiledFeedback, arm_means, new_sampler, point_means
from safebandits.problems.noise import observe_code

__all__ = ["SELECT", "SIMULATE", "TOLD", "Driver", "count_pull", "idle_feedback", "make_driver"]

#: Modes of a driver call (the third entry of ``rows``): ``SIMULATE`` plays rows ``start .. stop - 1``
#: (choice, simulated observation, update); ``TOLD`` is the ask / tell path's ``tell``: row ``start``'s
#: action was chosen before and its observation is ``variates[start]`` as given (no noise model), so the
#: update runs first, then the choice for row ``start + 1`` alone (the next ``ask``'s, prepared); ``SELECT``
#: is the choice for row ``start`` alone (an ``ask`` with nothing prepared). In both ask / tell modes the
#: driver returns the row after the last choice made (``start + 2`` / ``start + 1``), one less when the
#: choice could not be made (the learner is done, or a buffer of its random numbers ran out). Both paths
#: so run one compiled function: one compile per learner instead of two.
SIMULATE, TOLD, SELECT = 0, 1, 2

_LOOP = """
def {name}_block(run):
    return by_reference({prepare})


def {name}_loop(st, env, variates, rows):
    j, stop, mode = rows
    y = np.empty(variates.shape[1]){sampler}
    told = mode == TOLD
    while True:
        if told:
            for k in range(y.shape[0]):
                y[k] = variates[j, k]
            told = False
        else:
            if j >= stop:
                break{skip}
            if not _select(st, j):
                break
            if mode != SIMULATE:
                return j + 1
            mu = _means(env, {played})
            for k in range(y.shape[0]):
                y[k] = observe_code(env.noise_code, env.sigma, mu[k], variates[j, k])
            told = False  # (a block of this branch after the loop: ``mu`` dies here, not across the update)
        _update(st, j, y)
        j += 1
    return j
"""

#: The skip hook's lines of the loop (only in drivers made with a ``skip`` kernel; never in the
#: ask / tell modes).
_SKIP = """
            if mode == SIMULATE:
                taken = _skip(st, sampler, j, stop)
                if taken > 0:
                    j += taken
                    continue"""

#: The sampler the skip hook reads (made once per call).
_SAMPLER = """
    sampler = new_sampler(env, variates)"""

#: What the driver plays of a round, by ``plays``, when the learner gives no ``played`` kernel.
_PLAYED = {"arms": "st.arms[j]", "points": "st.points[j]"}

_CHECKSUM = f"{zlib.crc32((_LOOP + _SKIP + _SAMPLER + repr(_PLAYED)).encode()):08x}"


def idle_feedback() -> CompiledFeedback:
    """A feedback record that holds no environment, for drivers called in the ask / tell modes only
    (:data:`TOLD`, :data:`SELECT`: ``env`` is never read); of the type of every environment's record,
    so the driver compiles once for both paths."""
    return CompiledFeedback(np.zeros((1, 1)), 0, 0.0)


@numba.njit(cache=True, inline="always")
def count_pull(st, arm, y):
    """The K-armed learners' statistics after one pull of ``arm`` observed as ``y`` (reward, then the
    costs): ``st.counts[arm] += 1``, ``st.reward_sums[arm] += y[0]``, ``st.cost_sums[arm] += y[1:]``."""
    st.counts[arm] += 1
    st.reward_sums[arm] += y[0]
    for i in range(st.cost_sums.shape[1]):
        st.cost_sums[arm, i] += y[1 + i]


def make_driver(
    name: str,
    select: Any,
    update: Any,
    module: str,
    *,
    plays: str,
    played: Any = None,
    skip: Any = None,
    prepare: Any = None,
) -> Callable[..., int]:
    """The compiled driver over one learner's kernels: ``driver(run, env, variates, rows) -> j``, ``rows``
    ``(start, stop, mode)`` (:data:`SIMULATE`, :data:`TOLD`, :data:`SELECT`).

    The kernels are ``@numba.njit(cache=True, inline="always")``: numba inlines them into the loop, so a
    round costs what a hand-written loop costs (a call per kernel would pass the whole run state, tens of
    arrays, by value and count their references, every round).

    Parameters
    ----------
    name : str
        Name of the driver in ``module`` (unique there).
    select : compiled ``(st, j) -> bool``
        The learner's choice for round ``j``, written into ``st`` (and its output buffers); ``False``
        stops the loop before round ``j`` (nothing consumed).
    update : compiled ``(st, j, y)``
        The learner's update with the observation ``y`` of round ``j``.
    module : str
        ``__name__`` of the learner's module: the driver's numba cache lives with that file.
    plays : ``"arms"`` or ``"points"``
        What the learner writes for a round: the environment's means kernel of that kind reads it.
    played : compiled ``(st, j) -> arm index or point``, optional
        The action the learner wrote for round ``j``; default ``st.arms[j]`` / ``st.points[j]``.
    skip : compiled ``(st, sampler, j, stop) -> int``, optional
        Called before each round: the number of rows ``j, j+1, ...`` it played itself (certified skips,
        which draw their observations with ``sampler.sample(arm, row)``), 0 for none.
    prepare : compiled ``(run) -> st``, optional
        Called once per block: the record the other kernels read (``st``; without it ``st`` is ``run``),
        such as named views of the learner's buffers; the loop receives it by reference, as an argument
        (the kernels read it by attribute, never by tuple unpacking).

    Returns
    -------
    The :class:`Driver`: ``driver(run, env, variates, rows)`` returns the first variate row not played.
    """
    if plays not in PLAYS:
        raise ValueError(f"plays must be one of {PLAYS}, not {plays!r}")
    namespace: dict[str, Any] = {
        "_select": select,
        "_means": arm_means if plays == "arms" else point_means,
        "_update": update,
        "_skip": skip,
        "_prepare": prepare,
        "_played": played,
        "new_sampler": new_sampler,
        "observe_code": observe_code,
        "by_reference": by_reference,
        "np": np,
        "SIMULATE": SIMULATE,
        "TOLD": TOLD,
        "__name__": module,
    }
    source_file = sys.modules[module].__file__ or "<driver>"
    prepare_line = "run" if prepare is None else "_prepare(run)"
    source = _LOOP.format(
        name=name,
        skip=_SKIP if skip is not None else "",
        sampler=_SAMPLER if skip is not None else "",
        prepare=prepare_line,
        played=_PLAYED[plays] if played is None else "_played(st, j)",
    )
    exec(compile(source, source_file, "exec"), namespace)
    kernels = [k.__name__ for k in (prepare, skip, select, played, update) if k is not None]
    doc = f"(:func:`safebandits.algorithms._driver.make_driver`) over {' / '.join(kernels)}."
    compiled = []
    for part in ("block", "loop"):
        fn = namespace[f"{name}_{part}"]
        fn.__module__ = module
        fn.__qualname__ = f"{name}_{part}_{_CHECKSUM}"  # (the cache index: a new one when the loop changes)
        fn.__doc__ = f"The {part} of the compiled driver {doc}"
        compiled.append(numba.njit(cache=True)(fn))
    driver = Driver(name, *compiled)
    driver.kernels = {"select": select, "update": update, "played": played, "skip": skip, "prepare": prepare}
    return driver


class Driver:
    """A compiled driver (:func:`make_driver`): ``driver(run, env, variates, rows) -> j`` is
    ``driver.loop(driver.block(run), env, variates, rows)``.

    ``block`` takes the learner's run record to the record the kernels read, by reference
    (:func:`~safebandits._numba.by_reference`: a :class:`~safebandits._numba.Struct`, one reference
    count for the whole record); ``loop`` is the loop above. Two compiled functions called from Python,
    not one calling the other: numba compiles a caller with its callees' code linked in and optimised
    again, so a compiled function around the loop doubled the loop's compile (LC-LUCB's cold compile
    7.6 -> 11.9 s); and the loop gets the block as an argument, so numba's dead-code pass, which keeps a
    write to an array only when its alias analysis traces the array to an argument, keeps the kernels'
    writes through it. A caller that plays one row per call (an ask / tell path) can keep the block
    and bind the loop (:func:`~safebandits._numba.bind_kernel`).
    """

    __slots__ = ("block", "kernels", "loop", "name")

    def __init__(self, name: str, block: Any, loop: Any) -> None:
        self.name, self.block, self.loop = name, block, loop
        #: The learner's kernels it runs, by role (``select``, ``update``, ``played``, ``skip``,
        #: ``prepare``; ``None`` for a role not given): the contract test reads their arguments.
        self.kernels: dict[str, Any] = {}

    def __call__(self, run: Any, env: Any, variates: np.ndarray, rows: tuple[int, int, int]) -> int:
        return self.loop(self.block(run), env, variates, rows)

    def __repr__(self) -> str:
        return f"<compiled driver {self.name}>"
