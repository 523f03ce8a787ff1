"""The one check of an observation told to a learner (``BaseLearner.tell`` and studies run it).

A learner declares what one pull's feedback holds with an :class:`ObservationSpec`: whether a reward is
observed, how many constraint values ``m``, and which values the declared feedback model makes possible
(any finite number, ``+-1`` for binary feedback, ``{0, 1}`` for Bernoulli feedback, or a closed interval
for bounded feedback). :func:`check_observation` refuses anything else *before* the learner changes:

- a wrong kind of object (a batch answer to a single query, a number instead of an ``Observation``):
  :class:`~safebandits.exceptions.ProtocolError` or ``TypeError``;
- values of the wrong type (a string ``"0.5"``, a bool, an object array): ``TypeError``; numpy
  scalars and integer arrays are numbers;
- a missing or extra value, a wrong shape, NaN or infinity, batch counts other than the query's, a
  value impossible under the feedback model (binary ``0.5``; a Bernoulli batch sum above its count; a
  binary sum of parity other than its count's; a nonzero sum over zero pulls):
  :class:`~safebandits.exceptions.ConfigError` (a ``ValueError``).

The spec of a learner defaults to the one registered for the type of its problem view
(:func:`register_observation_spec`; the built-in views are registered here). A view may also carry its
own spec as an ``observation_spec`` attribute (a spec, or a method returning one).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Real
from typing import Any, Literal

import numpy as np

from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.types import BatchObservation, Decision, Observation

__all__ = [
    "ObservationSpec",
    "Values",
    "admissible_single",
    "check_observation",
    "noise_values",
    "register_observation_spec",
    "spec_for_info",
]

Values = Literal["real", "binary", "bernoulli", "bounded"]
_VALUES = ("real", "binary", "bernoulli", "bounded")

#: Relative tolerance of the checks on batch sums (integrality, parity, bounds): sums of floats.
SUM_RTOL = 1e-9


@dataclass(frozen=True, slots=True)
class ObservationSpec:
    """What one pull's observation holds for a learner.

    Parameters
    ----------
    reward : bool
        Whether a reward is observed (``False``: ``Observation.reward`` and ``reward_sums`` must be
        ``None``; CBAI learners observe constraint values only).
    n_constraints : int >= 0
        Number ``m`` of constraint values per pull (0: none, e.g. Safe-LUCB observes only its loss;
        ``constraints`` is then ``None`` or empty).
    values : {"real", "binary", "bernoulli", "bounded"}, default "real"
        Values the feedback model makes possible for every observed number: any finite float, ``+1``
        or ``-1``, ``0`` or ``1``, or a number in ``bounds``.
    bounds : tuple of float or None
        ``(low, high)`` of bounded feedback (only with ``values="bounded"``).
    """

    reward: bool
    n_constraints: int
    values: Values = "real"
    bounds: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.n_constraints, bool) or not isinstance(self.n_constraints, (int, np.integer)):
            raise TypeError(f"n_constraints must be an int. Got {self.n_constraints!r} instead.")
        if self.n_constraints < 0:
            raise ConfigError(f"n_constraints must be >= 0. Got {self.n_constraints} instead.")
        if self.values not in _VALUES:
            raise ConfigError(f"values must be one of {_VALUES}. Got {self.values!r} instead.")
        if (self.values == "bounded") != (self.bounds is not None):
            raise ConfigError("bounds must be given with values='bounded', and only then.")
        if self.bounds is not None:
            low, high = (float(b) for b in self.bounds)
            if not (math.isfinite(low) and math.isfinite(high) and low <= high):
                raise ConfigError(f"bounds must be finite with low <= high. Got {self.bounds!r} instead.")
            object.__setattr__(self, "bounds", (low, high))

    def describe(self) -> str:
        """``"a reward and 2 constraint value(s) (+1 or -1)"``."""
        parts = []
        if self.reward:
            parts.append("a reward")
        parts.append(f"{self.n_constraints} constraint value(s)")
        return " and ".join(parts) + f" ({self.values_text()})"

    def values_text(self) -> str:
        if self.values == "bounded":
            assert self.bounds is not None
            return f"numbers in [{self.bounds[0]:g}, {self.bounds[1]:g}] (bounded feedback)"
        return {
            "real": "finite numbers",
            "binary": "+1 or -1 (binary feedback)",
            "bernoulli": "0 or 1 (Bernoulli feedback)",
        }[self.values]


def noise_values(name: Any) -> Values:
    """The values of a named feedback model: ``"binary..."`` -> binary, ``"bernoulli..."`` -> bernoulli,
    anything else (``"gaussian(sigma=1)"``, sub-Gaussian) -> real."""
    name = str(getattr(name, "name", name)).lower()
    if name.startswith("binary"):
        return "binary"
    if name.startswith("bernoulli"):
        return "bernoulli"
    return "real"


# -- specs of problem views ---------------------------------------------------------------------------
_SPECS: dict[type, Callable[[Any], ObservationSpec]] = {}


def register_observation_spec(cls: type, spec: Callable[[Any], ObservationSpec]) -> type:
    """Say what a learner built on a view of type ``cls`` observes: ``spec(info) -> ObservationSpec``."""
    if not isinstance(cls, type):
        raise TypeError(f"cls must be a type. Got {cls!r} instead.")
    if not callable(spec):
        raise TypeError(f"spec must be callable (info -> ObservationSpec). Got {spec!r} instead.")
    _SPECS[cls] = spec
    _spec_function.cache_clear()
    return cls


@functools.lru_cache(maxsize=256)
def _spec_function(cls: type) -> Callable[[Any], ObservationSpec] | None:
    """The spec function of views of type ``cls``: registered for it or a base type, or built in (the
    lookup by class, kept until the next :func:`register_observation_spec`)."""
    for klass in cls.__mro__:
        fn = _SPECS.get(klass) or _BUILTIN.get(f"{klass.__module__}.{klass.__qualname__}")
        if fn is not None:
            return fn
    return None


def _kind(info: Any) -> Values:
    return noise_values(getattr(info, "noise_kind", "gaussian"))


#: Specs of the built-in views, by qualified class name (no import of the problem modules needed).
_BUILTIN: dict[str, Callable[[Any], ObservationSpec]] = {
    # CBAI: rewards are known; one constraint value per pull (CBAIPrivilegedInfo is a subclass).
    "safebandits.problems.linear.CBAIInfo": lambda i: ObservationSpec(False, 1, noise_values(i.noise)),
    "safebandits.problems.transductive.TransductiveInfo": lambda i: ObservationSpec(
        True, int(i.n_constraints), _kind(i)
    ),
    "safebandits.problems.stagewise.StagewiseInfo": lambda i: ObservationSpec(
        True, int(i.n_constraints), _kind(i)
    ),
    "safebandits.problems.function_class.FunctionClassInfo": lambda i: ObservationSpec(True, 1, _kind(i)),
    "safebandits.problems.kernel.KernelInfo": lambda i: ObservationSpec(True, 1),
    "safebandits.problems.dose.DoseInfo": lambda i: ObservationSpec(True, 1, _kind(i)),
    # Conservative bandits: a reward, no constraint values (the constraint is on the cumulative reward).
    "safebandits.problems.conservative.ConservativeInfo": lambda i: ObservationSpec(True, 0, _kind(i)),
    "safebandits.problems.conservative_linear.ConservativeLinearInfo": lambda i: ObservationSpec(
        True, 0, _kind(i)
    ),
    # Safe-LUCB observes its (negated) loss only.
    "safebandits.problems.safe_linear.SafeLinearInfo": lambda i: ObservationSpec(True, 0),
    # Pool labels: one Bernoulli label per query, summed per point of the batch.
    "safebandits.classification.problem.PoolInfo": lambda i: ObservationSpec(False, 1, "bernoulli"),
}


def spec_for_info(info: Any) -> ObservationSpec | None:
    """The observation spec of a problem view: its own ``observation_spec``, else the one registered for
    its type (or a base type), else ``None`` (unknown: only generic checks apply)."""
    own = getattr(info, "observation_spec", None)
    if own is not None:
        own = own() if callable(own) else own
        if not isinstance(own, ObservationSpec):
            raise TypeError(
                f"{type(info).__name__}.observation_spec must be an ObservationSpec. Got {own!r} instead."
            )
        return own
    fn = _spec_function(type(info))
    return None if fn is None else fn(info)


# -- the check ---------------------------------------------------------------------------------------
def _is_number(value: Any) -> bool:
    """A real number that is not a bool (numpy scalars and 0-d numeric arrays included)."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (Real, np.integer, np.floating)):
        return True
    return isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf"


def _number(value: Any, what: str, owner: str) -> float:
    if type(value) is float:  # hot path
        if value - value == 0.0:  # finite
            return value
        raise ConfigError(f"The {what} told to {owner} must be finite. Got {value!r} instead.")
    if not _is_number(value):
        raise TypeError(
            f"The {what} told to {owner} must be a real number (not a bool or a string). "
            f"Got {value!r} of type {type(value).__name__} instead."
        )
    x = float(value)
    if not math.isfinite(x):
        raise ConfigError(f"The {what} told to {owner} must be finite. Got {x!r} instead.")
    return x


def _array(value: Any, what: str, owner: str, kinds: str = "iuf") -> np.ndarray:
    if isinstance(value, (str, bytes)) or not isinstance(value, (np.ndarray, list, tuple)):
        raise TypeError(
            f"The {what} told to {owner} must be an array of numbers. "
            f"Got {value!r} of type {type(value).__name__} instead."
        )
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):  # ragged nested lists
        raise ConfigError(f"The {what} told to {owner} must be a rectangular array. Got {value!r}.") from None
    if arr.dtype.kind not in kinds:
        kind = "integers" if kinds == "iu" else "real numbers (not bools or strings)"
        raise TypeError(f"The {what} told to {owner} must hold {kind}. Got dtype {arr.dtype} ({value!r}).")
    return arr


def _finite(arr: np.ndarray, what: str, owner: str) -> None:
    # (a few values, the hot path: Python floats are faster than a ufunc; x - x is NaN for NaN and inf)
    finite = all(v - v == 0.0 for v in arr.ravel().tolist()) if arr.size <= 8 else np.all(np.isfinite(arr))
    if not finite:
        raise ConfigError(f"The {what} told to {owner} must be finite (no NaN or infinity). Got {arr!r}.")


def _check_single_values(arr: np.ndarray, spec: ObservationSpec, what: str, owner: str) -> None:
    values = spec.values
    if values == "real":
        return
    if arr.size == 1:  # hot path
        v = float(arr.ravel()[0])
        if (values == "binary" and v in (1.0, -1.0)) or (values == "bernoulli" and v in (0.0, 1.0)):
            return
    if values == "binary":
        ok = (arr == 1.0) | (arr == -1.0)
    elif values == "bernoulli":
        ok = (arr == 0.0) | (arr == 1.0)
    else:
        assert spec.bounds is not None
        ok = (arr >= spec.bounds[0]) & (arr <= spec.bounds[1])
    if not np.all(ok):
        raise ConfigError(
            f"The {what} told to {owner} must be {spec.values_text()}. Got {arr.tolist()!r} instead."
        )


def _check_sum_values(
    sums: np.ndarray, counts: np.ndarray, spec: ObservationSpec, what: str, owner: str
) -> None:
    n = counts.reshape((-1,) + (1,) * (sums.ndim - 1)).astype(np.float64)
    tol = SUM_RTOL * np.maximum(n, 1.0)
    values = spec.values
    if values == "real":  # (the other models' rules imply a zero sum over zero pulls)
        if np.any((n == 0.0) & (sums != 0.0)):
            raise ConfigError(
                f"The {what} told to {owner} must be 0 for arms pulled 0 times. Got {sums.tolist()!r} "
                f"for counts {counts.tolist()!r}."
            )
        return
    if values in ("binary", "bernoulli"):
        near = np.round(sums)
        whole = np.abs(sums - near) <= tol
        if values == "binary":
            ok = whole & (np.abs(near) <= n) & (np.mod(n - near, 2.0) == 0.0)
            rule = "sums of +-1 values (integers with |sum| <= count and count - sum even)"
        else:
            ok = whole & (near >= 0.0) & (near <= n)
            rule = "sums of 0 / 1 values (integers in [0, count])"
    else:
        assert spec.bounds is not None
        low, high = spec.bounds
        scale = tol * max(1.0, abs(low), abs(high))
        ok = (sums >= n * low - scale) & (sums <= n * high + scale)
        rule = f"sums of values in [{low:g}, {high:g}] (between count * {low:g} and count * {high:g})"
    if not np.all(ok):
        raise ConfigError(
            f"Every {what} told to {owner} must be one of the {rule}. Got {sums.tolist()!r} "
            f"for counts {counts.tolist()!r}."
        )


def _check_single(obs: Observation, spec: ObservationSpec | None, owner: str) -> None:
    reward, cons = obs.reward, obs.constraints
    if spec is None or spec.reward:
        if reward is None:
            if spec is not None:
                raise ConfigError(f"{owner} observes a reward: the Observation's reward is None.")
        else:
            r = _number(reward, "reward", owner)
            if spec is not None:
                _check_single_values(np.array((r,)), spec, "reward", owner)
    elif reward is not None:
        raise ConfigError(
            f"{owner} observes no reward (it holds {spec.describe()}); leave the Observation's reward "
            f"None. Got {reward!r}."
        )
    m = None if spec is None else spec.n_constraints
    if cons is None:
        if m:
            raise ConfigError(
                f"{owner} observes {m} constraint value(s) per pull: the Observation's constraints are None."
            )
        return
    # hot path: a float64 vector, as the environments give
    if type(cons) is np.ndarray and cons.dtype == np.float64 and cons.ndim == 1:
        arr = cons
    else:
        arr = _array(cons, "constraint values", owner)
    shape = (m,) if m is not None else (arr.size,)
    if arr.shape != shape:
        if m == 0 and arr.size == 0:
            return
        raise ConfigError(
            f"The constraint values told to {owner} must have shape {shape}. Got shape {arr.shape} instead."
        )
    _finite(arr, "constraint values", owner)
    if spec is not None:
        _check_single_values(arr, spec, "constraint values", owner)


def _check_batch(obs: BatchObservation, decision: Decision, spec: ObservationSpec | None, owner: str) -> None:
    asked = np.asarray(decision.counts)
    if obs.counts is None:
        raise ConfigError(f"The BatchObservation told to {owner} has no counts (the query's counts).")
    counts = _array(obs.counts, "batch counts", owner, kinds="iu")
    if counts.shape != asked.shape or not np.array_equal(counts, asked):
        raise ConfigError(
            f"The batch counts told to {owner} must equal the counts it asked for "
            f"({asked.tolist()!r}). Got {counts.tolist()!r} instead."
        )
    k = asked.shape[0]
    if spec is not None and not spec.reward and obs.reward_sums is not None:
        raise ConfigError(f"{owner} observes no reward; leave reward_sums None.")
    if obs.reward_sums is None:
        if spec is not None and spec.reward:
            raise ConfigError(f"{owner} observes rewards: the BatchObservation's reward_sums are None.")
    else:
        r = _array(obs.reward_sums, "reward sums", owner)
        if r.shape != (k,):
            raise ConfigError(f"The reward sums told to {owner} must have shape ({k},). Got shape {r.shape}.")
        _finite(r, "reward sums", owner)
        if spec is not None:
            _check_sum_values(r, asked, spec, "reward sum", owner)
    m = None if spec is None else spec.n_constraints
    if obs.constraint_sums is None:
        if m:
            raise ConfigError(f"{owner} observes {m} constraint value(s) per pull: constraint_sums are None.")
        return
    c = _array(obs.constraint_sums, "constraint sums", owner)
    if m == 0:
        if c.size:
            raise ConfigError(f"{owner} observes no constraint values; got constraint sums {c.tolist()!r}.")
        return
    ok_shapes = [(k, m)] if m is not None else [(k, c.shape[1] if c.ndim == 2 else 1)]
    if m == 1:
        ok_shapes.append((k,))
    if c.shape not in ok_shapes:
        want = " or ".join(str(s) for s in ok_shapes)
        raise ConfigError(
            f"The constraint sums told to {owner} must have shape {want}. Got shape {c.shape} instead."
        )
    _finite(c, "constraint sums", owner)
    if spec is not None:
        _check_sum_values(c, asked, spec, "constraint sum", owner)


_F64 = np.dtype(np.float64)


def admissible_single(observation: Any, spec: ObservationSpec | None) -> bool:
    """``True`` if one pull's ``observation`` certainly passes :func:`check_observation` under ``spec``.

    The cheap test of the ask / tell hot path (issue 19): an exact :class:`Observation` holding a Python
    float reward (or ``None`` when no reward is observed) and, when ``m > 0``, a float64 vector of shape
    ``(m,)``, every value finite and possible under real, binary or Bernoulli feedback. ``False`` means
    "not sure": the caller then runs the full check, which accepts or refuses with its message; so this
    accepts only what the full check accepts, and refuses nothing itself.
    """
    if spec is None or type(observation) is not Observation:
        return False
    reward, cons = observation
    values = spec.values
    if spec.reward:
        if type(reward) is not float or reward - reward != 0.0:
            return False
        if values != "real" and not (
            (values == "binary" and (reward == 1.0 or reward == -1.0))
            or (values == "bernoulli" and (reward == 0.0 or reward == 1.0))
        ):
            return False
    elif reward is not None:
        return False
    m = spec.n_constraints
    if not m:  # (none, or an empty float vector as the environments give)
        return cons is None or (type(cons) is np.ndarray and cons.dtype is _F64 and cons.size == 0)
    if type(cons) is not np.ndarray or cons.dtype is not _F64 or cons.shape != (m,):
        return False
    for v in cons.tolist() if m <= 8 else ():
        if v - v != 0.0:
            return False
        if values != "real" and not (
            (values == "binary" and (v == 1.0 or v == -1.0))
            or (values == "bernoulli" and (v == 0.0 or v == 1.0))
        ):
            return False
    return m <= 8


def check_observation(
    decision: Decision, observation: Any, spec: ObservationSpec | None, owner: str = "the learner"
) -> None:
    """Refuse an observation that cannot be the feedback of ``decision`` under ``spec``.

    Changes nothing; returns ``None`` if the observation is admissible.

    Parameters
    ----------
    decision : Decision
        The query being answered (its ``counts`` for a batch).
    observation : Observation or BatchObservation
    spec : ObservationSpec or None
        ``None``: only the generic checks (types, finiteness, shapes against the decision).
    owner : str
        Name used in the messages (the learner's class).

    Raises
    ------
    ProtocolError
        A batch observation for a single query or the other way round.
    TypeError
        Not an ``Observation`` / ``BatchObservation``, or values that are not real numbers (strings,
        bools, objects) or batch counts that are not integers.
    ConfigError
        A missing or extra value, a wrong shape, NaN or infinity, batch counts other than the query's,
        or a value impossible under the spec's feedback model.
    """
    if decision.is_batch:
        if isinstance(observation, BatchObservation):
            _check_batch(observation, decision, spec, owner)
            return
        if isinstance(observation, Observation):
            raise ProtocolError(f"{owner} asked for a batch: tell it a BatchObservation, not an Observation.")
    else:
        if isinstance(observation, Observation):
            _check_single(observation, spec, owner)
            return
        if isinstance(observation, BatchObservation):
            raise ProtocolError(
                f"{owner} asked for one pull: tell it an Observation, not a BatchObservation."
            )
    want = "BatchObservation" if decision.is_batch else "Observation"
    raise TypeError(
        f"{owner}.tell expects a safebandits.types.{want}. Got {observation!r} of type "
        f"{type(observation).__name__} instead."
    )
