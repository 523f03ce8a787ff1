"""The records of the papers' registry (:mod:`safebandits.experiments.papers`): a digest's section-5
items, the claims no experiment evaluates, and how each claim is decided.

They sit below the registry and the modules that read it (:mod:`~safebandits.experiments.claims_coverage`,
:mod:`~safebandits.experiments.claims_meta`), which re-export them: the registry stores them, the others
assemble and judge, and no import runs back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from safebandits.exceptions import ConfigError

__all__ = [
    "CLAIM_KINDS",
    "CLAIM_META",
    "QUICK_WHY",
    "UNEVALUATED_STATUS",
    "ClaimMeta",
    "DigestItem",
    "Unevaluated",
]

#: What the ``status`` of an :class:`Unevaluated` row means (printed under the scoreboard's table).
UNEVALUATED_STATUS = {
    "proof-only": "a statement about the analysis, checked by unit tests or not checkable by an experiment",
    "not evaluated": "an experiment is possible but missing",
    "benchmark": "measured by the benchmark named in the row (timings depend on the machine, so no verdict)",
}


@dataclass(frozen=True)
class DigestItem:
    """One numbered item of a digest's section 5.

    Parameters
    ----------
    paper : str
        The paper's citation (as in its claims' metadata).
    number : int
        The item's number in section 5.
    summary : str
        What the item states, in a line.
    claims : tuple of (str, str)
        ``(experiment, claim id)`` pairs that read it; empty when no experiment does (then the item is
        listed as :class:`Unevaluated` with the reason).
    digest : str
        The digest's file stem (``"acol"``: ``../shared/spec/acol.md`` in the workplace).
    """

    paper: str
    number: int
    summary: str
    claims: tuple[tuple[str, str], ...] = ()
    digest: str = ""

    @property
    def key(self) -> str:
        """``"<digest> §5.<number>"``, the form :class:`Unevaluated` rows use."""
        return f"{self.digest} §5.{self.number}"


class Unevaluated(NamedTuple):
    """A section-5 claim of a digest (or one an issue added) that no experiment evaluates.

    ``item`` is the digest item's key (``"safe_lucb §5.3"``) or where the claim comes from
    (``"issue 17"``); ``status`` a key of :data:`UNEVALUATED_STATUS`; ``why`` the reason.
    """

    paper: str
    item: str
    wording: str
    status: str
    why: str


#: What a claim record is: the paper's claim, or a library diagnostic shown beside it (issue 42).
CLAIM_KINDS = ("paper", "diagnostic")

QUICK_WHY = "quick runs have fewer replicates, shorter horizons or a coarser grid"


@dataclass(frozen=True)
class ClaimMeta:
    """How one claim is decided.

    Parameters
    ----------
    paper : str
        The paper the claim comes from.
    wording : str
        The paper's wording (quoted where the text is quoted, else the digest's section-5 item).
    methods : tuple of str or None
        Labels the claim compares; ``None``: every method in the experiment (e.g. safety of all runs).
        A label absent from the runs makes the verdict "not run"; failed or budget-hit runs of these
        labels make it "inconclusive".
    scale : {"paper", "any"}
        ``"any"``: a counter-example at any scale refutes it and its reading is per run (safety,
        correctness); ``"paper"``: only the paper scale can decide it.
    why_paper : str
        Why a quick-scale run cannot decide it (``scale="paper"`` only).
    kind : {"paper", "diagnostic"}
        ``"paper"``: the paper's claim, read as the paper states it (a theorem as its bound); its verdict
        is the paper's. ``"diagnostic"``: a shape the library derives from a statement of the paper (e.g.
        a log-log slope from an O~(sqrt T) bound) or a reading shown beside the deciding one; it is
        labelled as such on the scoreboard and never counted as the paper's verdict (issue 42).
    """

    paper: str
    wording: str
    methods: tuple[str, ...] | None = None
    scale: str = "paper"
    why_paper: str = QUICK_WHY
    kind: str = "paper"

    def __post_init__(self) -> None:
        if self.scale not in ("paper", "any"):
            raise ConfigError(
                f"The 'scale' parameter of ClaimMeta must be 'paper' or 'any'. Got {self.scale!r} instead."
            )
        if self.kind not in CLAIM_KINDS:
            raise ConfigError(
                f"The 'kind' parameter of ClaimMeta must be one of {list(CLAIM_KINDS)}. Got {self.kind!r} "
                "instead."
            )


#: Claim metadata by claim-set key, then claim id: filled by the paper packages' claims modules
#: (:func:`safebandits.experiments.papers.register_claims`); :func:`claim_metadata` loads them first.
CLAIM_META: dict[str, dict[str, ClaimMeta]] = {}
