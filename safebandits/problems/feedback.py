"""The environment's side of a simulation: what a learner's output is played against.

A learner never sees an instance's truth (issue 32). A simulated environment builds its own
:class:`CompiledFeedback` (:meth:`~safebandits.problems.environment.ArmEnvironment.compiled_feedback`):
the means table of what the learner plays, the noise code and sigma. The shared compiled driver
(:mod:`safebandits.algorithms._driver`) plays the action the learner wrote for a round (an arm index, or
a point) against it with this module's kernels, chosen by what the learner plays (:data:`PLAYS`):

* ``"arms"``: ``table`` is ``(n_arms, 1 + m)``, row ``a`` the true means of arm ``a``'s outputs (column 0
  the reward or loss, then the costs); :func:`arm_means` reads row ``a``;
* ``"points"``: ``table`` is ``(d, 1 + m)``, the parameters (column 0 the reward, then one per
  constraint); :func:`point_means` is ``x @ table``.

Each output is then observed with the one noise formula, :func:`~safebandits.problems.noise.
observe_code`. Learners' kernels receive observations only. What a learner may hold of the environment
is a sampler, which draws observations and shows no means: :class:`Sampler` in Python (the rows a
learner plays itself, such as warm-start rounds) and, in compiled code, the opaque numba type
:class:`SamplerType` with one method, ``sampler.sample(arm, row)`` (G-ACOL's certified skips; it has no
attribute and no item: ``sampler.table`` does not compile).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import lower_builtin, models, overload_method, register_model, type_callable

from safebandits.exceptions import ConfigError
from safebandits.problems.noise import NOISE_CODES, observe_code
from safebandits.types import FloatArray

__all__ = [
    "PLAYS",
    "CompiledFeedback",
    "Sampler",
    "SamplerType",
    "arm_means",
    "compiled_feedback",
    "new_sampler",
    "point_means",
]

#: What a learner's compiled rounds play: an arm index or a point per round.
PLAYS = ("arms", "points")
_CODES = frozenset(NOISE_CODES.values())


class CompiledFeedback(NamedTuple):
    """A simulated environment as the compiled driver reads it: the means ``table`` (module docstring:
    ``(n_arms, 1 + m)`` for arms, ``(d, 1 + m)`` for points), the noise code and sigma
    (``observe_code(noise_code, sigma, mean, z)``). Built by the environment, never by a learner."""

    table: FloatArray
    noise_code: int
    sigma: float


def compiled_feedback(table: FloatArray, noise: Any, owner: str) -> CompiledFeedback:
    """The record of an environment with means ``table`` and ``noise`` (a model with a noise ``code``).

    The table is a writable C-contiguous float64 array (copied if need be: one numba type for every
    environment, one compile; the driver never writes to it). Raises
    :class:`~safebandits.exceptions.ConfigError` for a noise model without a compiled formula."""
    code = getattr(noise, "code", None)
    if code not in _CODES:
        raise ConfigError(
            f"{owner} has no compiled feedback for the noise {getattr(noise, 'name', noise)!r} "
            f"(compiled noise codes: {sorted(_CODES)}); play it through ask / tell."
        )
    sigma = float(getattr(noise, "sigma", 0.0)) if code in (0, 3) else 0.0
    table = np.ascontiguousarray(table, dtype=np.float64)
    if not table.flags.writeable:  # (a cached, read-only table: numba types it apart)
        table = table.copy()
    return CompiledFeedback(table, int(code), sigma)


@numba.njit(cache=True, inline="always")
def arm_means(env, arm):
    """The true means of arm ``arm``'s outputs: row ``arm`` of ``env.table`` (kind ``"arms"``)."""
    return env.table[arm]


@numba.njit(cache=True, inline="always")
def point_means(env, x):
    """The true means of the outputs at the point ``x``: ``x @ env.table`` (kind ``"points"``), as
    :meth:`~safebandits.problems.stagewise.LinearFeedbackEnvironment.play` computes them."""
    return np.dot(x, env.table)


class Sampler:
    """Observations of actions on given rows of standard variates, and nothing else (Python side).

    ``sample(action, row)`` is what ``env.play`` would return as its values for ``action`` (an arm index
    for kind ``"arms"``, a point for ``"points"``) if the environment's next variate row were
    ``variates[row]``: the same formula and the same operations (``noise.observe``)."""

    __slots__ = ("_kind", "_noise", "_table", "_variates")

    def __init__(self, feedback: CompiledFeedback, kind: str, noise: Any, variates: FloatArray) -> None:
        self._table, self._kind, self._noise, self._variates = feedback.table, kind, noise, variates

    def sample(self, action: Any, row: int) -> FloatArray:
        """The observed outputs (reward or loss, then the costs) of ``action`` with variate row ``row``."""
        means = self._table[action] if self._kind == "arms" else action @ self._table
        return self._noise.observe(means, self._variates[row])


# -- the compiled sampler: an opaque numba type ---------------------------------------------------------
class SamplerType(types.Type):
    """numba type of a compiled sampler: a feedback record and a block of variates behind one method,
    ``sample(arm, row)``. No attribute, no item, no unpacking (nothing but the method is typed)."""

    def __init__(self, feedback: Any, variates: Any) -> None:
        self.feedback, self.variates = feedback, variates
        super().__init__(name=f"Sampler({feedback}, {variates})")


@register_model(SamplerType)
class _SamplerModel(models.StructModel):
    def __init__(self, dmm: Any, fe_type: SamplerType) -> None:
        super().__init__(dmm, fe_type, [("feedback", fe_type.feedback), ("variates", fe_type.variates)])


def new_sampler(feedback: CompiledFeedback, variates: FloatArray) -> Any:
    """The compiled sampler of the feedback record ``feedback`` over the rows of ``variates`` (compiled
    code only; the shared driver makes it for a learner's ``skip`` hook)."""
    raise TypeError("new_sampler is compiled code's: a Python caller holds the Sampler class instead")


@type_callable(new_sampler)
def _type_new_sampler(context):  # type: ignore[no-untyped-def]  # (numba's extension API)
    def typer(feedback, variates):  # type: ignore[no-untyped-def]
        if isinstance(feedback, types.BaseNamedTuple) and isinstance(variates, types.Array):
            return SamplerType(feedback, variates)
        return None

    return typer


@lower_builtin(new_sampler, types.BaseNamedTuple, types.Array)
def _lower_new_sampler(context, builder, sig, args):  # type: ignore[no-untyped-def]
    sampler = cgutils.create_struct_proxy(sig.return_type)(context, builder)
    sampler.feedback, sampler.variates = args
    for typ, value in zip(sig.args, args, strict=True):
        context.nrt.incref(builder, typ, value)  # (the sampler holds references of its own)
    return sampler._getvalue()


def _draw(sampler: Any, arm: int, row: int) -> float:
    """The observation of ``arm`` with variate row ``row`` (compiled code: :func:`_sample` alone)."""
    raise TypeError("_draw is compiled code's")


def _draw_from(env, variates, arm, row):  # type: ignore[no-untyped-def]
    return observe_code(env.noise_code, env.sigma, env.table[arm, 0], variates[row, 0])


@type_callable(_draw)
def _type_draw(context):  # type: ignore[no-untyped-def]
    def typer(sampler, arm, row):  # type: ignore[no-untyped-def]
        if (
            isinstance(sampler, SamplerType)
            and isinstance(arm, types.Integer)
            and isinstance(row, types.Integer)
        ):
            return types.float64
        return None

    return typer


@lower_builtin(_draw, SamplerType, types.Integer, types.Integer)
def _lower_draw(context, builder, sig, args):  # type: ignore[no-untyped-def]
    # the fields are read in place and the formula compiled into the caller: no new reference to an
    # array (a float comes back), so a skip's per-sample draw costs what the inline formula cost
    typ = sig.args[0]
    proxy = cgutils.create_struct_proxy(typ)(context, builder, value=args[0])
    inner = types.float64(typ.feedback, typ.variates, sig.args[1], sig.args[2])
    return context.compile_internal(builder, _draw_from, inner, [proxy.feedback, proxy.variates, *args[1:]])


@overload_method(SamplerType, "sample")
def _sample(sampler, arm, row):  # type: ignore[no-untyped-def]  # (numba: same names, no hints)
    def impl(sampler, arm, row):  # type: ignore[no-untyped-def]
        return _draw(sampler, arm, row)

    return impl
