"""Registry of named problem instances (the zoo): ``@register_instance("acol/unit-sphere")``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits.exceptions import ConfigError

__all__ = ["InstanceEntry", "QueryView", "list_instances", "make_instance", "register_instance"]

#: The kinds of answer view the dashboard offers: ``"picture"`` (the queried arm drawn, with two choice
#: buttons: a person judges it), ``"label"`` (the arm's record, with a positive / negative label) and
#: ``"generic"`` (the arm's features, with a field per observed value).
VIEW_KINDS = ("picture", "label", "generic")


@dataclass(frozen=True, slots=True)
class QueryView:
    """How the dashboard shows a query of an instance to the person who answers it.

    ``draw(ax, params, arm)`` draws arm ``arm`` of the instance built with ``params`` on a matplotlib
    ``Axes`` (a ``"picture"`` view): a function, or ``"module:function"`` to keep the drawing code (and
    matplotlib) out of the import of the instance's module (:meth:`drawer` resolves it); ``caption`` is
    shown beside the picture (``{arm}`` is replaced by the arm), ``question`` above the buttons,
    ``accept`` / ``reject`` are the buttons' words (``accept`` sends the feedback's "no violation"
    value, ``reject`` 1). ``size`` is the picture's (width, height) in inches. ``aliases`` are other
    names a study's stored ``problem["view"]`` may give this view (names of studies made before the views
    were the instances' own): a study naming one is shown with this view's ``kind``.
    """

    kind: str = "generic"
    draw: Callable[[Any, dict[str, Any], int], None] | str | None = None
    caption: str = ""
    question: str = ""
    accept: str = "Acceptable"
    reject: str = "Not acceptable"
    size: tuple[float, float] = (3.0, 6.0)
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in VIEW_KINDS:
            raise ConfigError(f"A query view's kind is one of {VIEW_KINDS}. Got {self.kind!r} instead.")
        if not isinstance(self.aliases, tuple) or not all(
            isinstance(a, str) and a and a not in VIEW_KINDS for a in self.aliases
        ):
            raise ConfigError(
                f"A query view's 'aliases' is a tuple of names other than {VIEW_KINDS}. Got "
                f"{self.aliases!r:.40} instead."
            )
        if self.draw is not None and not callable(self.draw):
            module, _, attr = self.draw.partition(":") if isinstance(self.draw, str) else ("", "", "")
            if not (module and attr):
                raise ConfigError(
                    f"A query view's 'draw' must be callable or 'module:function'. Got {self.draw!r:.40} "
                    "instead."
                )

    def drawer(self) -> Callable[[Any, dict[str, Any], int], None] | None:
        """The drawing function (importing its module when ``draw`` names one)."""
        if self.draw is None or callable(self.draw):
            return self.draw
        import importlib

        module, _, attr = self.draw.partition(":")
        return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class InstanceEntry:
    name: str
    factory: Callable[..., Any]
    random: bool
    description: str
    view: QueryView = QueryView()

    @property
    def parameters(self) -> dict[str, Any]:
        sig = inspect.signature(self.factory)
        return {
            k: (None if p.default is inspect.Parameter.empty else p.default)
            for k, p in sig.parameters.items()
            if k != "rng"
        }


_REGISTRY: dict[str, InstanceEntry] = {}


def register_instance(
    name: str, *, random: bool = False, view: QueryView | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register an instance factory ``f(*, rng=None, **params)``.

    ``random=True`` marks families drawn afresh for every replicate (their factory needs ``rng``).
    ``view`` says how the dashboard shows a query of a study on this instance (:class:`QueryView`;
    default: the arm's features and a field per observed value).
    """
    if view is not None and not isinstance(view, QueryView):
        raise ConfigError(f"The 'view' of instance {name!r} must be a QueryView. Got {view!r:.40} instead.")

    def deco(factory: Callable[..., Any]) -> Callable[..., Any]:
        if name in _REGISTRY:
            raise ConfigError(f"Instance {name!r} is already registered.")
        doc = (inspect.getdoc(factory) or "").split("\n", 1)[0]
        _REGISTRY[name] = InstanceEntry(name, factory, random, doc, view or QueryView())
        return factory

    return deco


def _load_zoo() -> None:
    """Register the built-in instances, then the papers' (a paper package registers its instances when
    it is imported: entry-point group ``safebandits.papers``)."""
    from safebandits._entry_points import load_group
    from safebandits.problems.zoo.conservative import random_conservative
    from safebandits.problems.zoo.declared import declared
    from safebandits.problems.zoo.dose_scenarios import six_doses

    if "user/declared" not in _REGISTRY:
        register_instance("user/declared")(declared)
    if "dose/six-doses" not in _REGISTRY:
        register_instance("dose/six-doses")(six_doses)
    if "conservative/random" not in _REGISTRY:
        register_instance("conservative/random", random=True)(random_conservative)

    load_group()


def list_instances() -> dict[str, InstanceEntry]:
    _load_zoo()
    return dict(sorted(_REGISTRY.items()))


#: Largest value of a size parameter (a dimension or a number of arms, points, ...), and of the horizon.
MAX_DIMENSION = 4096
MAX_COUNT = 1_000_000
MAX_HORIZON = 10**10
#: Largest product of an instance's size parameters (elements of its largest array, roughly).
MAX_ELEMENTS = 10**8
_DIMENSIONS = ("d",)
_COUNTS = (
    "n_arms",
    "K",
    "n_candidates",
    "n_decisions",
    "n_measurements",
    "n_points",
    "n_centres",
    "n_rays",
    "n_actions",
    "n_functions",
    "n_constraints",
    "n_seed",
)


def check_sizes(name: str, params: dict[str, Any]) -> None:
    """Refuse absurd sizes (dimension, arms, points, horizon) before anything is allocated."""

    def whole(v: Any) -> int | None:
        if isinstance(v, bool):
            return None
        if isinstance(v, (int, np.integer)):
            return int(v)
        if isinstance(v, (float, np.floating)) and np.isfinite(v) and float(v).is_integer():
            return int(v)
        return None

    product = 1
    for key, value in params.items():
        v = whole(value)
        if v is None:
            continue
        limit = (
            MAX_DIMENSION
            if key in _DIMENSIONS
            else MAX_COUNT
            if key in _COUNTS
            else MAX_HORIZON
            if key == "T"
            else None
        )
        if limit is None:
            continue
        if v > limit:
            raise ConfigError(
                f"The {key!r} parameter of instance {name!r} must be at most {limit:,}. Got {value!r} "
                "instead (refused before allocating anything)."
            )
        if key != "T" and v > 0:
            product *= v
    if product > MAX_ELEMENTS:
        sizes = {k: params[k] for k in params if k in _DIMENSIONS + _COUNTS}
        raise ConfigError(
            f"Instance {name!r} with {sizes} needs arrays of about {product:,} elements (limit "
            f"{MAX_ELEMENTS:,}); choose smaller sizes."
        )


def make_instance(name: str, rng: np.random.Generator | int | None = None, **params: Any) -> Any:
    """Build a registered instance by name with keyword parameters.

    ``rng`` (random families only) is a ``numpy.random.Generator`` or an integer seed. Absurd sizes
    (see :func:`check_sizes`) are refused before any allocation.
    """
    _load_zoo()
    if name not in _REGISTRY:
        raise ConfigError(f"Unknown instance {name!r}. Known instances: {', '.join(sorted(_REGISTRY))}.")
    entry = _REGISTRY[name]
    allowed = set(entry.parameters)
    unknown = set(params) - allowed
    if unknown:
        raise ConfigError(
            f"Instance {name!r} has no parameter(s) {sorted(unknown)}; it accepts {sorted(allowed)}."
        )
    check_sizes(name, {**entry.parameters, **params})
    if entry.random:
        if rng is None:
            raise ConfigError(f"Instance {name!r} is random: pass rng=numpy.random.Generator.")
        if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
            rng = np.random.default_rng(int(rng))
        if not isinstance(rng, np.random.Generator):
            raise TypeError(
                f"The 'rng' of make_instance({name!r}) must be a numpy.random.Generator or a "
                f"non-negative integer seed. Got {type(rng).__name__} {rng!r:.40} instead."
            )
        return entry.factory(rng=rng, **params)
    return entry.factory(**params)
