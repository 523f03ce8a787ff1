"""Experiments as data: frozen specs, their registry, and their expansion into run tasks.

An :class:`ExperimentSpec` names one or more :class:`PanelSpec` (an instance family with one swept
parameter) and the :class:`AlgorithmSpec` to compare on every point of every panel (or of the panels
a method names). Expanding a spec
at a *scale* ("quick" or "paper") gives one :class:`RunTask` per panel x sweep value x algorithm x
replicate. A task holds everything a worker needs (names and plain values only, so it pickles), its
:class:`~safebandits.rng.RunKey`, and the flattened config whose hash is part of the results store's
primary key.

The sweep point of a value is ``zlib.crc32(f"{panel}:{param}={value!r}")``: it depends neither on the
scale nor on the position of the value in the sweep, so a quick-scale point draws the same instances
and noise as the paper-scale run of the same value.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from safebandits.exceptions import ConfigError
from safebandits.rng import RunKey

__all__ = [
    "FIGURE_KINDS",
    "SCALES",
    "AlgorithmSpec",
    "ExperimentSpec",
    "PanelSpec",
    "RunTask",
    "apply_overrides",
    "expand",
    "get_experiment",
    "list_experiments",
    "missing_data",
    "parse_assignments",
    "register_experiment",
    "required_data",
    "select",
    "sweep_point",
]

SCALES = ("quick", "paper")

#: Main figure kinds: samples to stop vs the swept parameter (Figure 2 layout), bars of samples
#: (Figure 3), regret / cost / reward curves over rounds (regret-minimisation experiments),
#: classification metrics against labels, "extra-only" (only the experiment's registered report
#: figures, e.g. the solver study of the driving simulator) and "comparison" (a cross-paper comparison of
#: regret, identification and classification learners on one declared problem: experiments/user.py).
FIGURE_KINDS = (
    "samples-vs-sweep",
    "bar-samples",
    "regret-curves",
    "classification-curves",
    "extra-only",
    "comparison",
)


def _fail(name: str, owner: str, expected: str, got: Any) -> ConfigError:
    return ConfigError(f"The {name!r} parameter of {owner} must be {expected}. Got {got!r} instead.")


@dataclass(frozen=True, kw_only=True, slots=True)
class AlgorithmSpec:
    """One compared method: a display label, a registered algorithm name and config overrides.

    Parameters
    ----------
    label : str
        Display label and seeding identity, e.g. ``"G-ACOL (tuned)"``.
    name : str
        Registered algorithm name, e.g. ``"g-acol"``.
    params : dict
        Config fields that differ from the registered defaults, e.g. ``{"width": "tuned"}``.
    budget : dict of str to int
        Per-scale sample budget of this method, overriding the experiment's (e.g. a larger quick-scale
        budget for round-based methods, whose cost grows with the number of rounds, not samples).
    panels : tuple of str, default=()
        Names of the panels this method runs on (empty: every panel), e.g. an extra reference solver
        that only makes sense on one panel (``acol-robustness``: the library's constrained solver).
    points : dict of str to dict of str to tuple
        Per scale, per panel name: the only sweep values this method runs at (e.g. an expensive method
        restricted to the points it can afford). A scale or panel not named: every value; an empty
        tuple: none. The values must be among the panel's values at that scale.
    """

    label: str
    name: str
    params: dict[str, Any] = field(default_factory=dict)
    budget: dict[str, int] = field(default_factory=dict)
    panels: tuple[str, ...] = ()
    points: dict[str, dict[str, tuple[Any, ...]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for attr in ("label", "name"):
            value = getattr(self, attr)
            if not isinstance(value, str) or not value.strip():
                raise _fail(attr, "AlgorithmSpec", "a non-empty string", value)
        if not isinstance(self.params, Mapping):
            raise _fail("params", "AlgorithmSpec", "a dict", self.params)
        for scale, n in self.budget.items():
            if scale not in SCALES or isinstance(n, bool) or not isinstance(n, int) or n < 1:
                expected = f"a dict from {SCALES} to positive integers"
                raise _fail("budget", f"AlgorithmSpec {self.label!r}", expected, self.budget)
        is_tuple = isinstance(self.panels, tuple)
        if not is_tuple or not all(isinstance(p, str) and p.strip() for p in self.panels):
            raise _fail("panels", f"AlgorithmSpec {self.label!r}", "a tuple of panel names", self.panels)
        for scale, per_panel in self.points.items():
            if (
                scale not in SCALES
                or not isinstance(per_panel, Mapping)
                or not all(isinstance(k, str) and isinstance(v, tuple) for k, v in per_panel.items())
            ):
                expected = f"a dict from {SCALES} to dicts from panel names to tuples of sweep values"
                raise _fail("points", f"AlgorithmSpec {self.label!r}", expected, self.points)

    def runs_on(self, panel: str) -> bool:
        """Whether this method runs on the panel named ``panel``."""
        return not self.panels or panel in self.panels

    def runs_at(self, scale: str, panel: str, value: Any) -> bool:
        """Whether this method runs at ``value`` of ``panel`` at ``scale`` (``panels``, ``points``)."""
        allowed = self.points.get(scale, {}).get(panel)
        if not self.runs_on(panel):
            return False
        return allowed is None or any(repr(value) == repr(v) for v in allowed)


@dataclass(frozen=True, kw_only=True, slots=True)
class PanelSpec:
    """An instance family with fixed parameters and one swept parameter.

    Parameters
    ----------
    name : str
        Stable panel name; part of every sweep point id (renaming it changes the seeds).
    instance : str
        Registered instance name, e.g. ``"acol/unit-sphere"``.
    fixed : dict
        Instance parameters held fixed along the sweep.
    sweep_param : str
        The swept instance parameter.
    values : dict of str to tuple
        Swept values per scale, e.g. ``{"quick": (5, 25, 50), "paper": (5, 10, ..., 50)}``.
    title, xlabel : str
        Plot annotations.
    """

    name: str
    instance: str
    fixed: dict[str, Any] = field(default_factory=dict)
    sweep_param: str
    values: dict[str, tuple[Any, ...]]
    title: str = ""
    xlabel: str = ""

    def __post_init__(self) -> None:
        owner = f"PanelSpec {self.name!r}"
        for attr in ("name", "instance", "sweep_param"):
            value = getattr(self, attr)
            if not isinstance(value, str) or not value.strip():
                raise _fail(attr, owner, "a non-empty string", value)
        if self.sweep_param in self.fixed:
            raise _fail("fixed", owner, f"free of the swept parameter {self.sweep_param!r}", self.fixed)
        for scale, vals in self.values.items():
            if scale not in SCALES:
                raise _fail("values", owner, f"keyed by scales {SCALES}", scale)
            if not isinstance(vals, tuple) or not vals or len(set(map(repr, vals))) != len(vals):
                raise _fail("values", owner, "non-empty tuples of distinct values", vals)

    def point(self, value: Any) -> int:
        """Stable sweep point id of ``value`` on this panel."""
        return sweep_point(self.name, self.sweep_param, value)


@dataclass(frozen=True, kw_only=True, slots=True)
class ExperimentSpec:
    """A set of panels x algorithms x replicates, at one of several scales.

    Parameters
    ----------
    name : str
        Registry name, e.g. ``"acol-synthetic"``.
    title : str
        Human title (report heading).
    panels : tuple of PanelSpec
    algorithms : tuple of AlgorithmSpec
    replicates : dict of str to int
        Replicates per scale.
    budget : dict of str to int
        Per-run sample budget per scale (unless the algorithm sets its own); a run that reaches it is
        recorded as not stopped.
    seed : int, default=0
        Experiment seed (entropy of every run key).
    figure : str, default="samples-vs-sweep"
        Main figure kind: ``"samples-vs-sweep"`` (Figure 2 layout), ``"bar-samples"`` (Figure 3) or
        ``"regret-curves"`` (regret, cost and reward against rounds, one curve per method and value) or
        ``"extra-only"`` (only the figures registered with ``register_report_figure``; solver studies).
    figure_labels : tuple of str, default=()
        Methods shown in the main figure (empty: all); the report adds a figure with all methods.
    claims : str, default=""
        Key of a claim set registered with :func:`~safebandits.experiments.papers.register_claims`
        (run by :func:`~safebandits.experiments.claims.check_claims`; empty: none).
    algorithm_defaults : dict, default={}
        Config values given to every algorithm whose config has that field (e.g. ``delta``).
    plugins : tuple of str, default=()
        Modules imported by worker processes before running (learners registered outside the package).
    curves : tuple of str, default=("regret", "cost", "reward")
        Figures of a ``"regret-curves"`` experiment, among ``"regret"`` (cumulative, in each method's own
        setting), ``"per_step_regret"`` (R(t)/t), ``"cost"`` (expected cost of the played policy, with the
        thresholds), ``"reward"`` (running mean), ``"violation"`` (cumulative ``sum_t [c(x_t) - tau]_+``) and
        ``"margin"`` (conservative problems: ``sum_s mu_{I_s} - (1 - alpha) sum_s r(b_s)``).
    requires_data : tuple of str, default=()
        Registered data sets (:mod:`safebandits.datasets`) the experiment reads; ``safebandits run``
        checks them before running anything and says how to fetch them.
    horizon : dict of str to int, default={}
        Per-scale horizon of regret experiments: the instance parameter ``T`` of every panel at that
        scale, unless the panel fixes ``T`` itself (``--set T=...``).
    requires_data : tuple of str, or dict of str to tuple of str, default=()
        Data sets (names registered in :mod:`safebandits.datasets`) the instances
        read from ``$SAFEBANDITS_DATA`` or the instance parameter ``data_dir``; a dict gives them per
        scale (a scale it does not name needs no data, e.g. a data-free quick scale). When one is not
        found, ``safebandits run all`` skips the experiment with one line and ``safebandits run NAME``
        stops before running anything (:func:`missing_data`).
    record : dict of str to str, default={}
        Per-scale record of a regret run: ``"full"`` (the default: every curve at the 200 points of the
        run's log grid) or ``"thin"`` (:mod:`~safebandits.experiments.thin_record`: the regret and margin
        curves at 40 checkpoints, for sweeps too large to archive in full). A thin run's config has
        ``record = "thin"`` (its key differs from a full run's); a full run's config does not name it.
    """

    name: str
    title: str
    panels: tuple[PanelSpec, ...]
    algorithms: tuple[AlgorithmSpec, ...]
    replicates: dict[str, int]
    budget: dict[str, int]
    seed: int = 0
    figure: str = "samples-vs-sweep"
    figure_labels: tuple[str, ...] = ()
    claims: str = ""
    algorithm_defaults: dict[str, Any] = field(default_factory=dict)
    plugins: tuple[str, ...] = ()
    horizon: dict[str, int] = field(default_factory=dict)
    curves: tuple[str, ...] = ("regret", "cost", "reward")
    requires_data: tuple[str, ...] | dict[str, tuple[str, ...]] = ()
    record: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        owner = f"ExperimentSpec {self.name!r}"

        def names_ok(v: Any) -> bool:
            return isinstance(v, tuple) and all(isinstance(d, str) and d.strip() for d in v)

        per_scale = isinstance(self.requires_data, dict)
        if not (
            names_ok(self.requires_data)
            or (per_scale and all(k in SCALES and names_ok(v) for k, v in self.requires_data.items()))
        ):
            expected = f"a tuple of data-set folder names (or a dict from {SCALES} to such tuples)"
            raise _fail("requires_data", owner, expected, self.requires_data)
        bad = set(self.curves) - {"regret", "per_step_regret", "cost", "reward", "violation", "margin"}
        if bad:
            kinds = "among 'regret', 'per_step_regret', 'cost', 'reward', 'violation', 'margin'"
            raise _fail("curves", owner, kinds, self.curves)
        if not isinstance(self.record, dict) or any(
            k not in SCALES or v not in ("full", "thin") for k, v in self.record.items()
        ):
            raise _fail("record", owner, f"a dict from {SCALES} to 'full' or 'thin'", self.record)
        if "thin" in self.record.values() and set(self.curves) - {"regret", "per_step_regret", "margin"}:
            expected = "among 'regret', 'per_step_regret', 'margin' (the curves a thin record keeps)"
            raise _fail("curves", owner, expected, self.curves)
        for scale, n in self.horizon.items():
            if scale not in SCALES or isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise _fail("horizon", owner, f"a dict from {SCALES} to positive integers", self.horizon)
        if not isinstance(self.name, str) or not self.name.strip():
            raise _fail("name", "ExperimentSpec", "a non-empty string", self.name)
        if not self.panels or not all(isinstance(p, PanelSpec) for p in self.panels):
            raise _fail("panels", owner, "a non-empty tuple of PanelSpec", self.panels)
        if not self.algorithms or not all(isinstance(a, AlgorithmSpec) for a in self.algorithms):
            raise _fail("algorithms", owner, "a non-empty tuple of AlgorithmSpec", self.algorithms)
        for attr, items in (("panels", [p.name for p in self.panels]), ("algorithms", self.labels)):
            if len(set(items)) != len(items):
                raise _fail(attr, owner, "uniquely named", items)
        for attr in ("replicates", "budget"):
            mapping = getattr(self, attr)
            for scale, n in mapping.items():
                if scale not in SCALES or isinstance(n, bool) or not isinstance(n, int) or n < 1:
                    raise _fail(attr, owner, f"a dict from {SCALES} to positive integers", mapping)
        if set(self.replicates) != set(self.budget):
            raise _fail("budget", owner, f"given for the scales {sorted(self.replicates)}", self.budget)
        for panel in self.panels:
            missing = set(self.replicates) - set(panel.values)
            if missing:
                raise _fail("panels", owner, f"swept at every scale (panel {panel.name!r})", missing)
            for alg in self.algorithms:
                for scale, per_panel in alg.points.items():
                    known = {repr(v) for v in panel.values.get(scale, ())}
                    extra = [v for v in per_panel.get(panel.name, ()) if repr(v) not in known]
                    if extra:
                        expected = f"values of panel {panel.name!r} at scale {scale!r} (method {alg.label!r})"
                        raise _fail("points", owner, expected, extra)
        if self.figure not in FIGURE_KINDS:
            raise _fail("figure", owner, f"one of {FIGURE_KINDS}", self.figure)
        for alg in self.algorithms:
            stray = [p for p in alg.panels if p not in self.panel_names]
            if stray:
                raise _fail("algorithms", owner, f"run on its panels {self.panel_names}", stray)
        unknown = set(self.figure_labels) - set(self.labels)
        if unknown:
            raise _fail("figure_labels", owner, f"labels among {self.labels}", sorted(unknown))
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise _fail("seed", owner, "a non-negative integer", self.seed)

    @property
    def labels(self) -> list[str]:
        return [a.label for a in self.algorithms]

    @property
    def scales(self) -> tuple[str, ...]:
        return tuple(s for s in SCALES if s in self.replicates)

    def panel(self, name: str) -> PanelSpec:
        for p in self.panels:
            if p.name == name:
                return p
        raise ConfigError(f"Experiment {self.name!r} has no panel {name!r}; panels: {self.panel_names}.")

    @property
    def panel_names(self) -> list[str]:
        return [p.name for p in self.panels]


def required_data(spec: ExperimentSpec, scale: str | None = None) -> tuple[str, ...]:
    """Data sets ``spec`` reads at ``scale`` (``None``: at any scale)."""
    req = spec.requires_data
    if not isinstance(req, dict):
        return req
    if scale is not None:
        return req.get(scale, ())
    return tuple(dict.fromkeys(d for names in req.values() for d in names))


def missing_data(spec: ExperimentSpec, scale: str | None = None) -> str | None:
    """``None`` if every data set ``spec`` reads at ``scale`` (``None``: any scale) is found, else why not.

    Each panel is checked with its own ``data_dir`` instance parameter (``--set data_dir=...`` puts it
    in ``PanelSpec.fixed``), else ``$SAFEBANDITS_DATA``, else the user cache; the lookup itself is
    :func:`safebandits.datasets.find_dataset`, the only function that maps a data set to disk.
    """
    needed = required_data(spec, scale)
    if not needed:
        return None
    from safebandits.datasets import DATA_ENV, DataNotFoundError, find_dataset, get_dataset

    missing: list[str] = []
    places: list[str] = []
    for panel in spec.panels:
        data_dir = panel.fixed.get("data_dir")
        for name in needed:
            try:
                find_dataset(name, data_dir)
            except DataNotFoundError:
                if name not in missing:
                    missing.append(name)
                raw = data_dir if data_dir is not None else os.environ.get(DATA_ENV)
                where = f"looked in {str(raw)!r}" if raw else f"{DATA_ENV} is not set"
                if where not in places:
                    places.append(where)
    if not missing:
        return None
    folders = ", ".join(f"{m}/" for m in missing)
    fetchable = [m for m in missing if get_dataset(m).source is not None]
    fetch = f"run `safebandits data fetch {' '.join(fetchable)}`, " if fetchable else ""
    return (
        f"data set(s) {', '.join(missing)} not found ({'; '.join(places)}): {fetch}set {DATA_ENV} to the "
        f"folder holding {folders} or pass the instance parameter data_dir (--set data_dir=PATH)"
    )


def sweep_point(panel: str, param: str, value: Any) -> int:
    """``zlib.crc32(f"{panel}:{param}={value!r}")``: a stable 32-bit id of a sweep point."""
    return zlib.crc32(f"{panel}:{param}={value!r}".encode()) & 0xFFFFFFFF


# -- registry -----------------------------------------------------------------------------------

_REGISTRY: dict[str, ExperimentSpec] = {}


def register_experiment(spec: ExperimentSpec, *, replace: bool = False) -> ExperimentSpec:
    """Add ``spec`` to the registry under ``spec.name`` (``replace=True`` to overwrite)."""
    if not isinstance(spec, ExperimentSpec):
        raise TypeError(f"register_experiment expects an ExperimentSpec, got {type(spec).__name__}.")
    if spec.name in _REGISTRY and not replace:
        raise ConfigError(f"Experiment {spec.name!r} is already registered.")
    _REGISTRY[spec.name] = spec
    return spec


def _load() -> None:
    # The paper packages of the ``safebandits.papers`` entry points register their experiments on import.
    from safebandits.experiments.papers import load_papers

    load_papers()


def list_experiments() -> dict[str, ExperimentSpec]:
    """Registered experiments by name."""
    _load()
    return dict(sorted(_REGISTRY.items()))


def get_experiment(name: str) -> ExperimentSpec:
    """The registered experiment ``name``."""
    _load()
    if name not in _REGISTRY:
        raise ConfigError(f"Unknown experiment {name!r}. Known experiments: {', '.join(sorted(_REGISTRY))}.")
    return _REGISTRY[name]


# -- run tasks ----------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """JSON-friendly plain value (numpy scalars to Python, tuples to lists)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _canonical_json(value: Any) -> str:
    return json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), default=repr)


@dataclass(frozen=True, kw_only=True, slots=True)
class RunTask:
    """Everything needed to execute one run (picklable: names and plain values only).

    ``instance_params`` and ``algorithm_params`` are fully resolved (registry defaults included),
    so a changed default changes :attr:`config_hash` and the run is not reused.
    """

    experiment: str
    scale: str
    panel: str
    instance: str
    instance_params: dict[str, Any]
    sweep_param: str
    sweep_value: Any
    label: str
    algorithm: str
    algorithm_params: dict[str, Any]
    budget: int
    key: RunKey
    plugins: tuple[str, ...] = ()
    record: str = "full"

    def config(self) -> dict[str, Any]:
        """The run's flattened config: one dotted column name per value."""
        cfg: dict[str, Any] = {
            "experiment": self.experiment,
            "panel": self.panel,
            "label": self.label,
            "seed": self.key.experiment_seed,
            "sweep_point": self.key.sweep_point,
            "replicate": self.key.replicate,
            "budget": self.budget,
            "sweep.param": self.sweep_param,
            "sweep.value": _plain(self.sweep_value),
            "instance": self.instance,
            "algorithm": self.algorithm,
        }
        cfg.update({f"instance.{k}": _plain(v) for k, v in sorted(self.instance_params.items())})
        cfg.update({f"algorithm.{k}": _plain(v) for k, v in sorted(self.algorithm_params.items())})
        if self.record != "full":  # (only when thin: the keys of full-record runs are unchanged)
            cfg["record"] = self.record
        return cfg

    def config_json(self) -> str:
        """Canonical JSON of :meth:`config` (sorted keys, no spaces)."""
        return _canonical_json(self.config())

    @property
    def config_hash(self) -> str:
        """Short SHA-256 of :meth:`config_json` (the scale is not part of it)."""
        return hashlib.sha256(self.config_json().encode()).hexdigest()[:12]

    @property
    def run_key(self) -> str:
        return str(self.key)

    @property
    def pk(self) -> str:
        """Primary key in the results store: run key string plus config hash."""
        return f"{self.key}#{self.config_hash}"


def _resolve_algorithm(spec: ExperimentSpec, alg: AlgorithmSpec) -> dict[str, Any]:
    from safebandits.algorithms.base import keyed_config
    from safebandits.algorithms.registry import get_algorithm
    from safebandits.experiments.solvers import find_solver

    entry = find_solver(alg.name) or get_algorithm(alg.name)
    fields = {f.name for f in dataclasses.fields(getattr(entry, "config_cls", None) or entry.cls.config_cls)}
    params = {k: v for k, v in spec.algorithm_defaults.items() if k in fields}
    params.update(alg.params)
    try:
        config = entry.config(**params)
    except ConfigError as exc:
        raise ConfigError(f"Algorithm {alg.label!r} of experiment {spec.name!r}: {exc}") from None
    return {k: _plain(v) for k, v in keyed_config(config).items()}


def _resolve_instance(
    panel: PanelSpec, value: Any, defaults_extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    from safebandits.problems.registry import list_instances

    instances = list_instances()
    if panel.instance not in instances:
        raise ConfigError(
            f"Panel {panel.name!r} uses unknown instance {panel.instance!r}. Known: {', '.join(instances)}."
        )
    defaults = instances[panel.instance].parameters
    params = {**(defaults_extra or {}), **panel.fixed, panel.sweep_param: value}
    unknown = set(params) - set(defaults)
    if unknown:
        raise ConfigError(
            f"Panel {panel.name!r}: instance {panel.instance!r} has no parameter(s) {sorted(unknown)}; "
            f"it accepts {sorted(defaults)}."
        )
    return {k: _plain(v) for k, v in {**defaults, **params}.items()}


def expand(
    spec: ExperimentSpec,
    scale: str = "quick",
    *,
    replicates: int | None = None,
    seed: int | None = None,
    budget: int | None = None,
) -> list[RunTask]:
    """Expand ``spec`` at ``scale`` into run tasks (panel x value x algorithm x replicate; a method
    restricted to some panels, ``AlgorithmSpec.panels``, only on those).

    Parameters
    ----------
    spec : ExperimentSpec
    scale : {"quick", "paper"}
    replicates, seed, budget : int, optional
        Override the spec's replicates, experiment seed and per-run budget (``budget`` also
        overrides the algorithms' own budgets).

    Returns
    -------
    list of RunTask
        In panel, value, algorithm, replicate order; a method restricted by ``AlgorithmSpec.points``
        has no task at the other values.
    """
    if scale not in spec.scales:
        raise ConfigError(f"Experiment {spec.name!r} has no scale {scale!r}; scales: {spec.scales}.")
    n_rep = spec.replicates[scale] if replicates is None else replicates
    seed = spec.seed if seed is None else seed
    for name, value in (("replicates", n_rep), ("budget", budget), ("seed", seed)):
        if name == "budget" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if name == "seed" else 1):
            raise ConfigError(f"The {name!r} override must be a positive integer. Got {value!r} instead.")
    algs = [
        (a, _resolve_algorithm(spec, a), budget or a.budget.get(scale, spec.budget[scale]))
        for a in spec.algorithms
    ]
    tasks = []
    for panel in spec.panels:
        for value in panel.values[scale]:
            extra = {"T": spec.horizon[scale]} if scale in spec.horizon else {}
            inst_params = _resolve_instance(panel, value, extra)
            point = panel.point(value)
            for alg, alg_params, alg_budget in algs:
                if not alg.runs_at(scale, panel.name, value):
                    continue
                for rep in range(n_rep):
                    tasks.append(
                        RunTask(
                            experiment=spec.name,
                            scale=scale,
                            panel=panel.name,
                            instance=panel.instance,
                            instance_params=inst_params,
                            sweep_param=panel.sweep_param,
                            sweep_value=value,
                            label=alg.label,
                            algorithm=alg.name,
                            algorithm_params=alg_params,
                            budget=alg_budget,
                            key=RunKey(seed, point, alg.label, rep),
                            plugins=spec.plugins,
                            record=spec.record.get(scale, "full"),
                        )
                    )
    return tasks


# -- selection and overrides ----------------------------------------------------------------------


def select(
    spec: ExperimentSpec, *, algorithms: Sequence[str] = (), panels: Sequence[str] = ()
) -> ExperimentSpec | None:
    """Restrict ``spec`` to some algorithms and panels; ``None`` if nothing is left.

    An algorithm selector matches a label (case-insensitive) or a registered algorithm name (all
    its variants); a panel selector matches a panel name.
    """
    algs = spec.algorithms
    if algorithms:
        wanted = {s.lower() for s in algorithms}
        algs = tuple(a for a in algs if a.label.lower() in wanted or a.name.lower() in wanted)
    pans = spec.panels
    if panels:
        pans = tuple(p for p in pans if p.name in set(panels))
    names = {p.name for p in pans}
    algs = tuple(
        dataclasses.replace(a, panels=tuple(p for p in a.panels if p in names)) if a.panels else a
        for a in algs
        if not a.panels or names & set(a.panels)
    )
    if not algs or not pans:
        return None
    fig_labels = tuple(lbl for lbl in spec.figure_labels if lbl in {a.label for a in algs})
    return dataclasses.replace(spec, algorithms=algs, panels=pans, figure_labels=fig_labels)


def parse_assignments(items: Iterable[str]) -> dict[str, Any]:
    """Parse ``key=value`` strings; values are JSON when possible (``1e6``, ``true``), else strings."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"A --set item must look like key=value. Got {item!r} instead.")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def _config_fields(name: str) -> set[str]:
    from safebandits.algorithms.registry import get_algorithm
    from safebandits.experiments.solvers import find_solver

    solver = find_solver(name)
    return (
        solver.fields
        if solver is not None
        else {f.name for f in dataclasses.fields(get_algorithm(name).cls.config_cls)}
    )


def _set_single_point(panel: PanelSpec, raw_key: str, value: Any) -> PanelSpec:
    """``panel`` at the one point ``value`` of its swept parameter, if it sweeps one value at every
    scale; otherwise the ``--set`` is refused (it would replace a sweep the experiment defines)."""
    if any(len(values) != 1 for values in panel.values.values()):
        raise ConfigError(
            f"--set {raw_key}: {panel.sweep_param!r} is the swept parameter of panel {panel.name!r}, "
            f"which sweeps several values ({dict(panel.values)}); restrict the panels with --panel."
        )
    return dataclasses.replace(panel, values={scale: (value,) for scale in panel.values})


def apply_overrides(spec: ExperimentSpec, overrides: Mapping[str, Any]) -> tuple[ExperimentSpec, set[str]]:
    """Apply ``--set`` overrides; return the new spec and the keys that matched nothing in it.

    ``instance.X`` sets instance parameter ``X`` on every panel whose instance accepts it;
    ``algorithm.X`` sets config field ``X`` of every algorithm whose config has it; a bare key is
    looked up among instance parameters first, then algorithm config fields. Setting a panel's
    swept parameter moves a panel that sweeps one value at every scale to the given value (a panel
    whose parameter is stated as a sweep of one point, e.g. German's q); on a panel that sweeps
    several values it is an error (restrict the panels with ``--panel``).
    """
    from safebandits.problems.registry import list_instances

    instances = list_instances()
    panels, algs = list(spec.panels), list(spec.algorithms)
    unmatched = set()
    for raw_key, value in overrides.items():
        scope, _, key = raw_key.partition(".") if "." in raw_key else ("", "", raw_key)
        if scope not in ("", "instance", "algorithm"):
            raise ConfigError(f"--set key {raw_key!r}: the prefix must be 'instance.' or 'algorithm.'.")
        matched = False
        if scope in ("", "instance"):
            for i, p in enumerate(panels):
                if p.instance in instances and key in instances[p.instance].parameters:
                    if key == p.sweep_param:
                        panels[i] = _set_single_point(p, raw_key, value)
                    else:
                        panels[i] = dataclasses.replace(p, fixed={**p.fixed, key: value})
                    matched = True
        if scope == "algorithm" or (scope == "" and not matched):
            for i, a in enumerate(algs):
                if key in _config_fields(a.name):
                    algs[i] = dataclasses.replace(a, params={**a.params, key: value})
                    matched = True
        if not matched:
            unmatched.add(raw_key)
    new = dataclasses.replace(spec, panels=tuple(panels), algorithms=tuple(algs))
    return new, unmatched
