"""No import circle inside the package (issue 32: "the studio shows no circle inside a room").

The import contract (``lint-imports``) keeps the layers apart, but a circle *inside* one layer passes it:
the algorithms package was one 31-module circle (base -> compatibility -> registry -> the learner
packages -> each learner -> registry and base). The graph is grimp's (the library import-linter is built
on), with imports inside functions counted: a lazy import is still a dependency.
"""

from __future__ import annotations

import grimp
import numpy as np
import pytest
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components

#: Circles left, each with its reason. Only ever shrink this set.
KNOWN: dict[frozenset[str], str] = {}


def circles(graph: grimp.ImportGraph, package: str) -> list[frozenset[str]]:
    """The strongly connected components of more than one module among ``package``'s modules (scipy's
    ``connected_components(connection="strong")`` on the graph's direct imports)."""
    mods = sorted(m for m in graph.modules if m == package or m.startswith(package + "."))
    at = {m: i for i, m in enumerate(mods)}
    pairs = [(at[m], at[w]) for m in mods for w in graph.find_modules_directly_imported_by(m) if w in at]
    rows, cols = zip(*pairs) if pairs else ((), ())
    adjacency = coo_array((np.ones(len(pairs)), (rows, cols)), shape=(len(mods), len(mods)))
    _, labels = connected_components(adjacency, directed=True, connection="strong")
    groups: dict[int, set[str]] = {}
    for m, label in zip(mods, labels):
        groups.setdefault(int(label), set()).add(m)
    return [frozenset(g) for g in groups.values() if len(g) > 1]


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("safebandits", cache_dir=None)


def test_the_finder_sees_a_circle_and_only_the_circle() -> None:
    g = grimp.ImportGraph()
    for a, b in [
        ("p.a", "p.b"),
        ("p.b", "p.c"),
        ("p.c", "p.a"),
        ("p.c", "p.d"),
        ("p.d", "p.e"),
        ("q", "p.a"),
    ]:
        g.add_import(importer=a, imported=b)
    g.add_import(importer="p.e", imported="p.d")
    assert sorted(map(sorted, circles(g, "p"))) == [["p.a", "p.b", "p.c"], ["p.d", "p.e"]]
    g.remove_import(importer="p.c", imported="p.a")
    assert circles(g, "p") == [frozenset({"p.d", "p.e"})]


def test_the_graph_counts_imports_inside_functions(graph: grimp.ImportGraph) -> None:
    # (base checks a learner's problem kind through compatibility, imported inside __init__)
    assert "safebandits.algorithms.compatibility" in graph.find_modules_directly_imported_by(
        "safebandits.algorithms.base"
    )


def test_no_import_circle_in_the_package(graph: grimp.ImportGraph) -> None:
    found = circles(graph, "safebandits")
    new = [sorted(c) for c in found if c not in KNOWN]
    assert new == [], f"import circles: {new}"


def test_the_catalogue_imports_no_learner(graph: grimp.ImportGraph) -> None:
    # The learners are found through the entry-point group, never imported by the catalogue's modules.
    for module in ("_catalogue", "_config", "base", "compatibility", "registry"):
        imported = graph.find_modules_directly_imported_by(f"safebandits.algorithms.{module}")
        learners = sorted(
            m
            for m in imported
            if m.startswith(("safebandits.algorithms.regret", "safebandits.algorithms.pure_exploration"))
            or m.startswith("safebandits.algorithms.classification")
        )
        assert learners == [], (module, learners)


def test_every_builtin_learner_package_is_found_through_the_entry_points() -> None:
    from importlib.metadata import entry_points

    from safebandits.algorithms._catalogue import LEARNERS_GROUP
    from safebandits.algorithms.registry import list_algorithms

    values = {ep.value for ep in entry_points(group=LEARNERS_GROUP)}
    assert values >= {
        "safebandits.algorithms.classification",
        "safebandits.algorithms.pure_exploration",
        "safebandits.algorithms.regret",
    }
    tasks = {entry.task for entry in list_algorithms().values()}
    assert tasks == {"classification", "pure_exploration", "regret"}
    assert {"acol", "safe-lucb", "fdr-active"} <= set(list_algorithms())
