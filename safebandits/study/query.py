"""A study's query and the errors of handing queries out and telling them (the records
:mod:`safebandits.study.session` and :mod:`safebandits.study.create` share)."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits.exceptions import ConfigError, ProtocolError, SafeBanditsError
from safebandits.study.codec import (
    decision_to_dict,
)
from safebandits.types import Decision

__all__ = ["NoQueryAvailable", "Query", "StudyIntegrityError", "UnknownQuery"]


class StudyIntegrityError(SafeBanditsError):
    """The stored queries cannot be replayed (the database was edited, or the library changed)."""


class UnknownQuery(ConfigError):
    """A query id the study never handed out (``tell`` of an id past its queries)."""


class NoQueryAvailable(ProtocolError):
    """Every query that can be handed out now is out: answer one, or :meth:`Study.expire` abandoned ones."""


_SETTINGS_KEY = "__study__"  # study settings (max_open, split_batches, problem) stored beside the config


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True, eq=False)
class Query:
    """An open or answered query of a study.

    Attributes
    ----------
    id : int
        Sequence number of the query in its study (0, 1, 2, ...); pass it to :meth:`Study.tell`.
    decision : Decision
        What to play: ``arm`` (one pull), ``counts`` (a batch of pulls per arm), ``point`` or ``probs``.
    asked_at : str
        UTC time the query was (last) handed out (ISO 8601).
    part_of : int or None
        For one pull of a split batch: the id of the batch's first pull (the batch is told to the learner
        once all its ``parts`` pulls are answered). ``None`` for a query that is a whole decision.
    parts : int
        Number of pulls of that batch (1 for a whole decision).
    context : dict or None
        The round's context the query was asked with (a contextual study: ``{"arms", "baseline",
        "baseline_reward"}``, :mod:`~safebandits.study.conservative`); ``None`` otherwise.
    """

    id: int
    decision: Decision
    asked_at: str = ""
    part_of: int | None = None
    parts: int = 1
    context: dict[str, Any] | None = None

    @property
    def arm(self) -> int | None:
        return self.decision.arm

    @property
    def counts(self) -> np.ndarray | None:
        return self.decision.counts

    @property
    def is_batch(self) -> bool:
        return self.decision.is_batch

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Query):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((self.id, self.asked_at))

    def to_dict(self) -> dict[str, Any]:
        """``{"id", "arm", "counts", "probs", "point", "n_samples", "asked_at", "part_of", "parts"}``, and
        ``"context"`` for a query asked with one (JSON-ready)."""
        out = {
            "id": self.id,
            **decision_to_dict(self.decision),
            "n_samples": self.decision.n_samples,
            "asked_at": self.asked_at,
            "part_of": self.part_of,
            "parts": self.parts,
        }
        if self.context is not None:
            out["context"] = self.context
        return out
