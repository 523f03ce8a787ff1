"""Paper packages: discovered by entry point, registering their experiments, claims and figures (issue 19).

The engine holds no list of papers. A paper package (``safebandits.papers.acol`` and its siblings, or any
third-party package) is named in the entry-point group :data:`ENTRY_POINT_GROUP` of its distribution::

    [project.entry-points."safebandits.papers"]
    mypaper = "mypackage.mypaper"

Importing the package registers its experiments (:func:`~safebandits.experiments.spec.register_experiment`)
and declares, with :func:`register_paper`, the modules that hold its claims and its report figures. Those are
imported only when needed: claims when a claim set or its metadata is read (:func:`load_claims`), figures
when the report draws (``safebandits.plotting.report``). A claims module registers each claim set with
:func:`register_claims` (the check function and its :class:`~safebandits.experiments.claims_meta.ClaimMeta`
by claim id); a figures module registers with ``safebandits.plotting.report.register_report_figure`` (and
its methods' colours with ``safebandits.plotting.figures.register_method_style``). The paper's citation and
its digest's section-5 items (which claims read each, which no experiment reads and why) are declared with
the paper (``register_paper(..., citation=, digest=, coverage=, unevaluated=)``); the scoreboard assembles
them (:mod:`safebandits.experiments.claims_coverage`). Its documentation pages are MyST markdown files in
the ``docs/`` folder of its package, named after the paper (``<name>.md``, then ``<name>_*.md``); the
documentation build collects them (:func:`paper_pages`), so a paper adds a page without editing the
docs' index.

The engine never imports a paper by name: with no paper installed it still runs experiments registered
otherwise (``register_experiment``, ``SAFEBANDITS_PLUGINS``). A paper whose entry point or declared module
fails to import is a :class:`~safebandits.exceptions.ConfigError` naming it.
"""

from __future__ import annotations

import importlib
import importlib.resources
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from safebandits._entry_points import PAPERS_GROUP, load_group
from safebandits.exceptions import ConfigError
from safebandits.experiments.paper_records import (
    CLAIM_META,
    UNEVALUATED_STATUS,
    ClaimMeta,
    DigestItem,
    Unevaluated,
)

__all__ = [
    "DOCS_FOLDER",
    "ENTRY_POINT_GROUP",
    "PaperInfo",
    "claim_sets",
    "digest_fields",
    "figure_modules",
    "list_papers",
    "load_claims",
    "load_papers",
    "paper_pages",
    "register_claims",
    "register_paper",
]

#: The entry-point group the engine reads paper packages from.
ENTRY_POINT_GROUP = PAPERS_GROUP

#: The folder of a paper package that holds its documentation pages (``<package>/docs/<name>*.md``).
DOCS_FOLDER = "docs"


@dataclass(frozen=True)
class PaperInfo:
    """One registered paper package.

    Parameters
    ----------
    name : str
        The paper's short name (``"acol"``).
    module : str
        The package that registered it.
    claims : tuple of str
        Modules that register its claim sets on import.
    figures : tuple of str
        Modules that register its report figures on import (they may import matplotlib).
    citation : str
        How its claims cite it (``"Lindner et al. 2022 (ACOL)"``); empty if it declares no digest.
    digest : str
        The file stem of its digest (``"acol"``); empty if none.
    order : int or None
        Position of the paper in the scoreboard's coverage table (papers without one follow, by name).
    coverage : tuple of DigestItem
        Its digest's section-5 items and the claims that read each
        (:class:`~safebandits.experiments.claims_coverage.DigestItem`).
    unevaluated : tuple of Unevaluated
        The section-5 claims no experiment reads, with the reason
        (:class:`~safebandits.experiments.claims_coverage.Unevaluated`).
    """

    name: str
    module: str
    claims: tuple[str, ...] = ()
    figures: tuple[str, ...] = ()
    citation: str = ""
    digest: str = ""
    order: int | None = None
    coverage: tuple[Any, ...] = ()
    unevaluated: tuple[Any, ...] = ()


_PAPERS: dict[str, PaperInfo] = {}
_CLAIM_SETS: dict[str, Callable[..., list[dict[str, Any]]]] = {}
_CLAIMS_LOADED: set[str] = set()


def digest_fields(module: Any) -> dict[str, Any]:
    """The :func:`register_paper` keywords a paper's ``digest.py`` module holds: ``citation`` (its
    ``PAPER``), ``digest``, ``order``, ``coverage`` and ``unevaluated`` (``DIGEST``, ``ORDER``,
    ``COVERAGE``, ``UNEVALUATED``)."""
    return {
        "citation": module.PAPER,
        "digest": module.DIGEST,
        "order": module.ORDER,
        "coverage": module.COVERAGE,
        "unevaluated": module.UNEVALUATED,
    }


def register_paper(
    name: str,
    module: str,
    *,
    claims: Iterable[str] = (),
    figures: Iterable[str] = (),
    citation: str = "",
    digest: str = "",
    order: int | None = None,
    coverage: Iterable[tuple[int, str, Iterable[tuple[str, str]]]] = (),
    unevaluated: Iterable[tuple[str, str, str, str]] = (),
) -> PaperInfo:
    """Declare paper ``name`` (called by its package on import): where its claims and figures live, and
    its digest's section 5.

    Parameters
    ----------
    name, module : str
        The paper's short name and the package registering it.
    claims, figures : iterable of str
        Modules registering its claim sets, and its report figures, on import.
    citation : str
        How its claims cite the paper (the ``paper`` of their :class:`ClaimMeta`).
    digest : str
        The file stem of its digest; with ``citation``, needed by ``coverage`` and ``unevaluated``.
    order : int, optional
        Position of the paper in the scoreboard's coverage table.
    coverage : iterable of (number, summary, ((experiment, claim id), ...))
        Every numbered item of the digest's section 5, numbered 1, 2, ... in order, and the claims that
        read it (none: the item must be in ``unevaluated``).
    unevaluated : iterable of (item, wording, status, why)
        Section-5 claims no experiment reads: the item (``"<digest> §5.<n>"``, or where else the claim
        comes from), the paper's wording, a status of
        :data:`~safebandits.experiments.claims_coverage.UNEVALUATED_STATUS` and the reason.
    """
    if not isinstance(name, str) or not name:
        raise ConfigError(
            f"The 'name' parameter of register_paper must be a non-empty str. Got {name!r} instead."
        )
    try:
        items = tuple(
            DigestItem(citation, n, summary, tuple((str(e), str(c)) for e, c in pairs), digest)
            for n, summary, pairs in coverage
        )
        rows = tuple(Unevaluated(citation, *row) for row in unevaluated)
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"Paper {name!r}: 'coverage' rows are (number, summary, ((experiment, claim id), ...)) and "
            f"'unevaluated' rows (item, wording, status, why) ({exc})."
        ) from exc
    if (items or rows) and not (
        isinstance(citation, str) and citation and isinstance(digest, str) and digest
    ):
        raise ConfigError(
            f"Paper {name!r} declares section-5 items but no 'citation' and 'digest' (non-empty str)."
        )
    if [i.number for i in items] != list(range(1, len(items) + 1)):
        raise ConfigError(f"The section-5 items of paper {name!r} must be numbered 1, 2, ... in order.")
    bad = [row.item for row in rows if row.status not in UNEVALUATED_STATUS]
    if bad:
        raise ConfigError(
            f"The unevaluated item(s) {bad} of paper {name!r} need a status among "
            f"{sorted(UNEVALUATED_STATUS)}."
        )
    if order is not None and (isinstance(order, bool) or not isinstance(order, int)):
        raise ConfigError(f"The 'order' parameter of register_paper must be an int. Got {order!r} instead.")
    info = PaperInfo(name, module, tuple(claims), tuple(figures), citation, digest, order, items, rows)
    old = _PAPERS.get(name)
    if old is not None and old != info:
        raise ConfigError(f"Paper {name!r} is registered twice ({old.module} and {module}).")
    _PAPERS[name] = info
    return info


def _import(module: str, what: str) -> Any:
    try:
        return importlib.import_module(module)
    except Exception as exc:  # (any failure of third-party code: reported with its origin)
        raise ConfigError(f"{what} failed to import: {type(exc).__name__}: {exc}") from exc


def load_papers() -> dict[str, PaperInfo]:
    """Import every paper package of the entry-point group once; the registered papers by name."""
    load_group(ENTRY_POINT_GROUP)
    return dict(_PAPERS)


def list_papers() -> dict[str, PaperInfo]:
    """The registered paper packages by name (loading the entry points)."""
    return dict(sorted(load_papers().items()))


def load_claims() -> None:
    """Import the claims modules of every paper (each registers its claim sets and their metadata)."""
    for info in load_papers().values():
        for module in info.claims:
            if module not in _CLAIMS_LOADED:
                _import(module, f"The claims module {module!r} of paper {info.name!r}")
                _CLAIMS_LOADED.add(module)


def figure_modules() -> tuple[str, ...]:
    """The modules holding the papers' report figures (imported by the report, never by the engine)."""
    return tuple(m for info in load_papers().values() for m in info.figures)


def paper_pages(name: str) -> dict[str, str]:
    """The documentation pages of the registered paper ``name``: file name -> MyST markdown text.

    The pages are the ``.md`` files of the :data:`DOCS_FOLDER` folder of the paper's package: its main page
    ``<name>.md`` first, then ``<name>_<topic>.md`` pages by name (so pages of two papers never share a
    file name). A paper without the folder has no page; a page named otherwise is a
    :class:`~safebandits.exceptions.ConfigError`.
    """
    info = load_papers().get(name)
    if info is None:
        raise ConfigError(f"Unknown paper {name!r}. Known papers: {', '.join(sorted(_PAPERS))}.")
    try:
        folder = importlib.resources.files(info.module).joinpath(DOCS_FOLDER)
    except (ModuleNotFoundError, TypeError) as exc:  # (a module that is not a package has no folder)
        raise ConfigError(f"Paper {name!r}: its module {info.module!r} is not a package ({exc}).") from exc
    if not folder.is_dir():
        return {}
    files = [f for f in folder.iterdir() if f.is_file() and f.name.endswith(".md")]
    bad = [f.name for f in files if not (f.name == f"{name}.md" or f.name.startswith(f"{name}_"))]
    if bad:
        raise ConfigError(
            f"The documentation pages {bad} of paper {name!r} ({info.module}/{DOCS_FOLDER}/) must be named "
            f"{name}.md or {name}_<topic>.md."
        )
    files.sort(key=lambda f: (f.name != f"{name}.md", f.name))
    return {f.name: f.read_text(encoding="utf-8") for f in files}


def register_claims(
    key: str,
    fn: Callable[..., list[dict[str, Any]]],
    meta: Mapping[str, Any] | None = None,
    *,
    replace: bool = False,
) -> Callable[..., list[dict[str, Any]]]:
    """Register the claim set ``key`` (an ``ExperimentSpec.claims`` value): its check and claim metadata.

    ``fn(df)`` returns the claim records of one experiment's runs; ``meta`` maps claim ids to
    :class:`~safebandits.experiments.claims_meta.ClaimMeta` (stored in ``claims_meta.CLAIM_META``).
    """
    if not callable(fn):
        raise ConfigError(f"The 'fn' parameter of register_claims must be callable. Got {fn!r} instead.")
    if key in _CLAIM_SETS and _CLAIM_SETS[key] is not fn and not replace:
        raise ConfigError(f"Claim set {key!r} is already registered.")
    bad = [cid for cid, m in (meta or {}).items() if not isinstance(m, ClaimMeta)]
    if bad:
        raise ConfigError(f"The metadata of claim(s) {bad} of claim set {key!r} must be ClaimMeta objects.")
    _CLAIM_SETS[key] = fn
    if meta is not None:
        CLAIM_META[key] = dict(meta)
    return fn


def claim_sets() -> dict[str, Callable[..., list[dict[str, Any]]]]:
    """Every registered claim set by key (the papers' claims modules loaded first)."""
    load_claims()
    return dict(_CLAIM_SETS)
