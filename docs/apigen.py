"""Reference pages generated from the code at build time (called by docs/conf.py).

``reference/api.rst`` and ``reference/api/*.rst`` document every public name of ``safebandits`` and
of its main subpackages (their ``__all__``), one page per module; ``reference/algorithms.rst``,
``instances.rst`` and ``experiments.rst`` are tables of the three registries; ``reference/openapi.json``
is the JSON API's schema as the server serves it. Nothing here is a
hand-written list: a name exported or registered later is documented by the next build.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import shutil
from pathlib import Path

import safebandits

# Modules whose public names get a section of the API reference. Names already documented under
# ``safebandits`` (same object) are not repeated under a subpackage.
REFERENCE_MODULES = [
    ("safebandits", "The ``safebandits`` namespace: what ``import safebandits as sb`` gives."),
    ("safebandits.types", "Decisions, observations and recommendations exchanged by ask / tell."),
    ("safebandits.records", "Records learners produce and the engine consumes: played blocks, estimates."),
    ("safebandits.exceptions", "Exceptions."),
    ("safebandits.rng", "Seeding: run keys and the generators derived from them."),
    ("safebandits.algorithms", "Learners: the protocol, the base class and the registry."),
    ("safebandits.algorithms.compatibility", "Which learners fit a problem, and what each guarantees."),
    ("safebandits.problems", "Problem instances, environments and noise models."),
    ("safebandits.problems.declare", "Problems of one's own, declared from their public parts."),
    (
        "safebandits.problems.declare_covariate",
        "Dose finding and its kin: a covariate per action, per-round safety.",
    ),
    ("safebandits.problems.dose", "The structure dose trials assume (monotone toxicity, a step bound)."),
    ("safebandits.problems.settings", "Declared problems from plain values, by setting name."),
    ("safebandits.experiments", "Experiments as data, the results store and claims."),
    ("safebandits.experiments.user", "Experiment files (TOML) of one's own."),
    ("safebandits.experiments.papers", "Paper packages: discovery by entry point, claims registration."),
    ("safebandits.study", "Persistent ask / tell studies."),
    ("safebandits.estimators", "Estimators and confidence widths."),
    ("safebandits.design", "Optimal designs and rounding."),
    ("safebandits.classification", "Active classification data (FDR-constrained labelling)."),
]


def _public_names(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            n
            for n, obj in vars(module).items()
            if not n.startswith("_") and getattr(obj, "__module__", "").startswith(module.__name__)
        ]
    return sorted(n for n in names if not n.startswith("__"))


def _is_alias(obj) -> bool:
    return not (inspect.isclass(obj) or inspect.isroutine(obj)) and type(obj).__module__ in (
        "typing",
        "types",
    )


#: Classes split along their seams into halves in sibling modules (undocumented bases): their page shows
#: the halves' public members as their own.
SPLIT_CLASSES = ("safebandits.study.session.Study",)


def _rst_title(text: str, char: str) -> str:
    return f"{text}\n{char * len(text)}\n"


def _write_if_changed(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _slug(modname: str) -> str:
    return modname.replace(".", "-")


def write_api_reference(out: Path) -> dict[str, list[str]]:
    """``reference/api.rst`` and one page per module: a summary table, then every public name.

    One page per module rather than per name: the site builds in a fraction of the time (each page
    carries the whole navigation tree), and a module's names are read together anyway. Returns the
    names documented under each module.
    """
    seen: set[int] = set()
    documented: dict[str, list[str]] = {}
    for modname, _ in REFERENCE_MODULES:
        module = importlib.import_module(modname)
        rows = []
        for name in _public_names(module):
            obj = getattr(module, name)
            # Type aliases and constants get no entry (their module's text names them).
            if id(obj) in seen or not (inspect.isclass(obj) or callable(obj)) or _is_alias(obj):
                continue
            seen.add(id(obj))
            rows.append(name)
        if rows:
            documented[modname] = rows

    index = [
        _rst_title("API reference", "="),
        "Generated at build time from ``__all__`` of each module below: every public name, with its\n"
        "docstring. A name exported from ``safebandits`` is documented once, there; ``import safebandits\n"
        "as sb`` gives all of them.\n",
        ".. toctree::\n   :maxdepth: 1\n",
    ]
    index.extend(f"   api/{_slug(modname)}" for modname in documented)
    index.append("")
    blurbs = dict(REFERENCE_MODULES)
    for modname, rows in documented.items():
        module = importlib.import_module(modname)
        page = [
            _rst_title(f"``{modname}``", "="),
            f".. automodule:: {modname}\n   :no-members:\n",
            blurbs[modname] + "\n",
            f".. currentmodule:: {modname}\n",
            ".. autosummary::\n   :nosignatures:\n",
        ]
        page.extend(f"   {name}" for name in rows)
        page.append("")
        for name in rows:
            obj = getattr(module, name)
            directive = "autoclass" if inspect.isclass(obj) else "autofunction"
            whole = inspect.isclass(obj) and f"{obj.__module__}.{obj.__qualname__}" in SPLIT_CLASSES
            page.append(f".. {directive}:: {name}\n" + ("   :inherited-members: object\n" if whole else ""))
        _write_if_changed(out / "api" / f"{_slug(modname)}.rst", "\n".join(page) + "\n")
    _write_if_changed(out / "api.rst", "\n".join(index) + "\n")
    return documented


def _default_repr(field: dataclasses.Field) -> str:
    if field.default is not dataclasses.MISSING:
        return repr(field.default)
    if field.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        return repr(field.default_factory())  # type: ignore[misc]
    return "(required)"


def write_algorithm_table(out: Path) -> None:
    """``reference/algorithms.rst``: every registered learner, its task, class and options."""
    from safebandits.algorithms import list_algorithms

    entries = list_algorithms()
    parts = [
        _rst_title("Registered learners", "="),
        "Generated at build time from the algorithm registry (``sb.list_algorithms()``): the name to\n"
        "pass to ``sb.make_learner`` or an experiment, its task, its class and every option with its\n"
        "default (a registered variant presets some options).\n",
        ".. list-table::\n   :header-rows: 1\n   :widths: 18 14 68\n",
        "   * - name\n     - task\n     - description",
    ]
    for name, entry in entries.items():
        desc = " ".join(entry.description.split()) or entry.cls.__name__
        desc = _literal(desc)
        parts.append(f"   * - :ref:`{name} <algo-{name}>`\n     - {entry.task}\n     - {desc}")
    parts.append("")
    for name, entry in entries.items():
        cls = entry.cls
        parts.append(f".. _algo-{name}:\n")
        parts.append(_rst_title(f"``{name}``", "-"))
        if getattr(safebandits, cls.__name__, None) is cls:
            qual = f":class:`safebandits.{cls.__name__}`"
        else:
            qual = f"``{cls.__module__}.{cls.__qualname__}``"
        privileged = ", privileged (oracle)." if entry.privileged else "."
        parts.append(f"Class {qual}, task ``{entry.task}``{privileged}")
        parts.append("")
        if entry.defaults:
            preset = ", ".join(f"``{k}={v!r}``" for k, v in entry.defaults.items())
            parts.append(f"Preset options: {preset}.\n")
        config_cls = getattr(cls, "config_cls", None)
        if config_cls is not None and dataclasses.is_dataclass(config_cls):
            parts.append(".. list-table::\n   :header-rows: 1\n   :widths: 30 70\n")
            parts.append("   * - option\n     - default")
            for f in dataclasses.fields(config_cls):
                value = entry.defaults.get(f.name, None) if f.name in entry.defaults else None
                shown = repr(value) if f.name in entry.defaults else _default_repr(f)
                shown = shown.replace("`", "'")
                parts.append(f"   * - ``{f.name}``\n     - ``{shown}``")
            parts.append("")
        doc = inspect.getdoc(cls) or ""
        first = doc.split("\n\n", 1)[0]
        if first:
            parts.append("::\n")
            parts.extend("   " + line for line in first.splitlines())
            parts.append("")
    _write_if_changed(out / "algorithms.rst", "\n".join(parts) + "\n")


def _literal(text: str) -> str:
    return text.replace("\\", "\\\\").replace("*", r"\*").replace("|", r"\|").replace("`", "'")


def write_registries(out: Path) -> None:
    """``reference/instances.rst`` and ``reference/experiments.rst`` from the two registries."""
    from safebandits.experiments import list_experiments
    from safebandits.problems import list_instances

    parts = [
        _rst_title("Registered problem instances", "="),
        "Generated at build time from ``sb.list_instances()``: the names that\n"
        "``sb.make_instance(name, **params)`` and the experiments accept, with their parameters and\n"
        "defaults. *random* families are drawn afresh for every replicate from the run's instance seed.\n",
        ".. list-table::\n   :header-rows: 1\n   :widths: 22 40 38\n",
        "   * - name\n     - description\n     - parameters (default)",
    ]
    for name, entry in list_instances().items():
        sig = inspect.signature(entry.factory)
        params = ", ".join(
            f"``{p.name}={p.default!r}``" if p.default is not inspect.Parameter.empty else f"``{p.name}``"
            for p in sig.parameters.values()
            if p.name != "rng" and p.kind is not inspect.Parameter.VAR_KEYWORD
        )
        desc = _literal(" ".join(entry.description.split())) + (" *(random)*" if entry.random else "")
        parts.append(f"   * - ``{name}``\n     - {desc}\n     - {params or '-'}")
    _write_if_changed(out / "instances.rst", "\n".join(parts) + "\n")

    parts = [
        _rst_title("Registered experiments", "="),
        "Generated at build time from the experiment registry: ``safebandits run NAME`` runs one at the\n"
        "``quick`` (default) or ``paper`` scale. The papers' pages (:doc:`/papers/index`) say what each\n"
        "reproduces and which claims hold.\n",
    ]
    for name, spec in list_experiments().items():
        parts.append(_rst_title(f"``{name}``", "-"))
        parts.append(_literal(spec.title) + "\n")
        reps = ", ".join(f"{k}: {v}" for k, v in spec.replicates.items())
        parts.append(f"- replicates per point: {reps}")
        if spec.claims:
            parts.append(f"- claims checked: ``{spec.claims}``")
        parts.append(
            "- methods: " + ", ".join(f"{_literal(a.label)} (``{a.name}``)" for a in spec.algorithms)
        )
        for panel in spec.panels:
            values = "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in panel.values.items())
            title = _literal(panel.title or panel.name)
            parts.append(
                f"- panel ``{panel.name}``: {title}; instance ``{panel.instance}``, "
                f"``{panel.sweep_param}`` in ({values})"
            )
        parts.append("")
    _write_if_changed(out / "experiments.rst", "\n".join(parts) + "\n")


def generate(out: Path) -> None:
    """Write every generated page under ``out`` (``docs/reference``)."""
    # Pages of modules no longer listed must not linger (they would be orphans: a warning).
    shutil.rmtree(out / "api", ignore_errors=True)
    shutil.rmtree(out / "generated", ignore_errors=True)
    write_api_reference(out)
    write_algorithm_table(out)
    write_registries(out)
    write_openapi(out)


def write_openapi(out: Path) -> None:
    """``openapi.json``: the schema the dashboard's JSON API serves (docs/http_api.md includes it)."""
    import json

    from safebandits.dashboard.api import openapi_schema

    _write_if_changed(out / "openapi.json", json.dumps(openapi_schema(), indent=1) + "\n")
