"""Which claims evaluate each section-5 item of the papers' digests, and which items no experiment reads
(issue 17; the items moved to the paper packages in issue 19).

Every quantitatively checkable claim a digest lists in its section 5 is either read by one or more claims
of the experiments (``claims``: pairs ``(experiment, claim id)`` of the claim metadata) or is listed as
not evaluated (:class:`Unevaluated`) with the reason no experiment reads it (a proof step, an instance the
paper's text does not give, a benchmark). The scoreboard prints this table with the verdicts of the
claims, so a reader sees at once which statements of each paper were checked and how they came out.

The items are paper content: each paper package declares its own with
:func:`~safebandits.experiments.papers.register_paper` (``citation``, ``digest``, ``coverage``,
``unevaluated``); this module holds the record types and assembles the registered items
(:func:`digest_items`, :func:`unevaluated_items`), loading the paper packages first.
``tests/unit/experiments/test_claims_coverage.py`` checks that every pair names a registered claim, that
every unevaluated item is listed here, and (when the digests are present beside the project) that every
numbered item of each digest's section 5 has a row.
"""

from __future__ import annotations

from typing import Any

from safebandits.experiments.paper_records import UNEVALUATED_STATUS, DigestItem, Unevaluated
from safebandits.experiments.papers import list_papers

__all__ = [
    "UNEVALUATED_STATUS",
    "DigestItem",
    "Unevaluated",
    "digest_items",
    "digest_of",
    "digests",
    "unevaluated_items",
]


def _papers_in_order() -> list[Any]:
    """The registered papers that declare a digest: by their ``order``, then those without one, by name."""
    infos = [info for info in list_papers().values() if info.digest]
    return sorted(infos, key=lambda i: (i.order is None, i.order if i.order is not None else 0, i.name))


def digest_items() -> tuple[DigestItem, ...]:
    """Section-5 items of every registered paper's digest: papers by their ``order``, items in digest
    order (the paper packages loaded first)."""
    return tuple(item for info in _papers_in_order() for item in info.coverage)


def digests() -> dict[str, str]:
    """The digest file stem of each registered paper, by citation (in the order of :func:`digest_items`)."""
    return {info.citation: info.digest for info in _papers_in_order()}


def digest_of(paper: str) -> tuple[DigestItem, ...]:
    """The section-5 items of one paper's digest (``paper``: its citation), in order."""
    return tuple(i for i in digest_items() if i.paper == paper)


def unevaluated_items() -> tuple[Unevaluated, ...]:
    """The section-5 claims no experiment evaluates, of every registered paper (papers by name, each
    paper's rows in its order; the paper packages loaded first)."""
    return tuple(row for info in list_papers().values() for row in info.unevaluated)


def __getattr__(name: str) -> Any:
    # The module-level tables of before issue 19, kept importable: computed from the registry.
    if name == "DIGEST_ITEMS":
        return digest_items()
    if name == "DIGESTS":
        return digests()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
