"""How an open study keeps its learner: rebuilt from the database (the stored snapshot, then a replay of the
answers since, checked against the stored decisions), brought up to date inside every transaction, and
snapshotted every ``snapshot_every`` answers (:mod:`~safebandits.study.snapshot` says when a snapshot is
used). :class:`~safebandits.study.session.Study` is built on it."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from safebandits.algorithms.base import BaseLearner, LearnerConfig, config_to_dict
from safebandits.exceptions import SafeBanditsError
from safebandits.rng import RunKey, learner_rng
from safebandits.study.codec import FeedbackSpec, decision_to_dict, jsonable, observation_from_dict
from safebandits.study.conservative import context_from_stored
from safebandits.study.query import Query, StudyIntegrityError, _now
from safebandits.study.snapshot import (
    SnapshotError,
    Uncapturable,
    decode_snapshot,
    encode_snapshot,
    info_hash,
    library_version,
    next_decision,
    same_state,
    snapshot_budget,
)
from safebandits.study.storage import Storage, Transaction
from safebandits.types import BatchObservation, Decision, Observation

__all__ = ["Replayed"]

#: What a stored query's row holds beside its decision (a contextual study's context, a conservative
#: study's record of the round): left out when a replay compares the decision.
_BESIDE_DECISION = ("context", "record")


def _decision_part(stored: dict[str, Any]) -> dict[str, Any]:
    """The decision of a stored query's row (:func:`decision_to_dict`'s keys)."""
    return {k: v for k, v in stored.items() if k not in _BESIDE_DECISION}


class Replayed:
    """The in-memory learner of a study and the counters beside it, kept equal to the database's rows
    (the state, replay and snapshot half of :class:`~safebandits.study.session.Study`)."""

    # (set by Study.__init__)
    name: str
    algorithm: str
    seed: int
    config: LearnerConfig
    info: Any
    spec: FeedbackSpec
    snapshot_every: int
    _storage: Storage
    _entry: Any
    _row: tuple[Any, ...]
    _use_snapshots: bool
    _snapshot_failed: bool
    _learner: BaseLearner | None

    # -- state -----------------------------------------------------------------------------------
    def _reset(self) -> None:
        """Forget the in-memory learner; the next operation rebuilds it from the database."""
        self._learner = None
        self._n_seen = 0  # first seq after the last decision told to the learner
        self._n_told = 0  # answered queries (rows)
        self._n_rows = 0  # stored queries (rows)
        # The learner's decision awaiting answers: (first seq, decision, number of rows, split?) and its
        # rows {seq: [Query, observation dict or None]}.
        self._batch: tuple[int, Decision, int, bool] | None = None
        self._rows: dict[int, list[Any]] = {}
        self._arm_counts: dict[int, int] = {}
        self._snap_seq = 0  # first seq after the stored snapshot of the learner (0: none known)
        self._loaded_from: int | None = None  # the snapshot the learner was restored from (None: replay)
        self._rejected = False  # the stored snapshot could not be used: the next one replaces it
        self._ignored: list[dict[str, Any]] = []  # the stored snapshots not used: {"seq", "reason"}
        self._replayed = 0  # decisions this process replayed since its learner was built or restored

    def _new_learner(self) -> BaseLearner:
        rng = learner_rng(RunKey(self.seed, 0, self.algorithm, 0))
        return self._entry.cls(self.config, self.info, rng)

    def _aggregate(self, decision: Decision) -> Observation | BatchObservation:
        """The learner's observation of the awaited decision from its answered rows (in seq order)."""
        rows = [self._rows[s] for s in sorted(self._rows)]
        if len(rows) == 1 and rows[0][0].part_of is None:
            return observation_from_dict(rows[0][1])
        counts = np.asarray(decision.counts, dtype=np.int64)
        k, m = counts.shape[0], self.spec.n_constraints
        c_sums = np.zeros((k, m)) if m > 0 else None
        r_sums = np.zeros(k) if self.spec.reward else None
        for query, obs_dict in rows:
            obs = observation_from_dict(obs_dict)
            arm = int(query.decision.arm)
            if c_sums is not None:
                c_sums[arm] += np.asarray(obs.constraints, dtype=float)
            if r_sums is not None:
                r_sums[arm] += float(obs.reward)
        return BatchObservation(counts=counts, constraint_sums=c_sums, reward_sums=r_sums)

    def _complete_if_answered(self) -> None:
        """Tell the learner the awaited decision once every one of its rows is answered."""
        assert self._batch is not None and self._learner is not None
        first, decision, size, _ = self._batch
        if len(self._rows) < size or any(obs is None for _, obs in self._rows.values()):
            return
        self._learner.tell(decision, self._aggregate(decision))
        if decision.arm is not None:
            self._arm_counts[int(decision.arm)] = self._arm_counts.get(int(decision.arm), 0) + 1
        self._n_seen = first + size
        self._batch = None
        self._rows = {}

    def _complete_at_last_row(self, seq: int) -> None:
        if self._batch is not None and seq == self._batch[0] + self._batch[2] - 1:
            self._complete_if_answered()

    # -- snapshots ---------------------------------------------------------------------------------
    def _restore(self, tx: Transaction) -> BaseLearner | None:
        """The learner of the stored snapshot, with the study's counters set to it; ``None`` when there is
        no snapshot this process may use (then everything is replayed; :mod:`~.snapshot` says when, and
        ``_ignored`` names the snapshot and why)."""
        if not (self._use_snapshots and getattr(self._storage, "snapshots", False)):
            return None
        rows = tx.execute(
            "SELECT seq, library, check_json, state FROM sb_snapshots WHERE study = :s", {"s": self.name}
        )
        if not rows:
            return None
        seq = rows[0][0]
        try:
            learner = self._restored(tx, *rows[0])
        except SnapshotError as exc:
            self._ignored.append({"seq": seq if isinstance(seq, int) else None, "reason": str(exc)})
            learner = None
        self._rejected = learner is None
        return learner

    def _snapshot_meta(self, seq: int) -> dict[str, Any]:
        """What a snapshot of this study's learner folding in ``seq`` queries must say it is."""
        config = json.loads(json.dumps(jsonable(config_to_dict(self.config)), sort_keys=True))
        return {"learner": self.algorithm, "config": config, "info": info_hash(self._row[3]), "seq": seq}

    def _restored(self, tx: Transaction, seq: Any, library: Any, check: Any, text: Any) -> BaseLearner:
        if library != library_version():
            raise SnapshotError(
                f"written by library version and snapshot format {str(library)[:40]!r}, not "
                f"{library_version()!r}"
            )
        if not isinstance(seq, int) or seq < 1:
            raise SnapshotError("its number of queries is not a positive integer")
        last = tx.execute(
            "SELECT observation_json FROM sb_queries WHERE study = :s AND seq = :q",
            {"s": self.name, "q": seq - 1},
        )
        if not last or last[0][0] is None:
            raise SnapshotError(f"the {seq} queries it folds in are not all stored and answered")
        fresh = self._new_learner()
        budget = snapshot_budget(fresh, seq)
        learner, header = decode_snapshot(text, fresh, self._snapshot_meta(seq), budget)
        counts = header.get("arm_counts")
        if not (
            isinstance(counts, list)
            and len(counts) <= seq
            and all(
                isinstance(c, list) and len(c) == 2 and all(type(x) is int and 0 <= x <= 2**62 for x in c)
                for c in counts
            )
        ):
            raise SnapshotError("its play counts are not pairs of non-negative integers")
        try:
            asks = next_decision(learner)
        except Exception as exc:  # (a copy of the restored learner fails: its values are not the learner's)
            raise SnapshotError(f"the restored learner does not copy ({type(exc).__name__})") from None
        if asks != check:
            raise SnapshotError("the restored learner does not ask the decision stored with it")
        self._n_seen = self._n_told = self._n_rows = self._snap_seq = self._loaded_from = seq
        self._arm_counts = {a: n for a, n in counts}
        return learner

    def _write_snapshot(self, tx: Transaction) -> None:
        """Store the learner's state now (every row before ``_n_seen`` answered and told)."""
        assert self._batch is None and self._learner is not None
        meta = {
            **self._snapshot_meta(self._n_seen),
            "arm_counts": sorted(map(list, self._arm_counts.items())),
        }
        try:
            fresh = getattr(self, "_fresh", None)
            if fresh is None:  # (the learner as built, kept: writing only reads it)
                fresh = self._fresh = self._new_learner()
            text = encode_snapshot(self._learner, fresh, meta, snapshot_budget(fresh, self._n_seen))
        except Uncapturable as exc:  # (a learner whose state is not data: loads replay everything)
            self._snapshot_failed = True
            if not type(self._learner).__module__.startswith("safebandits."):
                warnings.warn(
                    f"Study {self.name!r}: the state of the learner {type(self._learner).__name__} is not "
                    f"data ({exc}); loading the study replays every answer.",
                    RuntimeWarning,
                    stacklevel=3,
                )
            return
        tx.execute("DELETE FROM sb_snapshots WHERE study = :s", {"s": self.name})
        tx.execute(
            "INSERT INTO sb_snapshots (study, seq, library, check_json, state, created_at) "
            "VALUES (:s, :q, :l, :c, :x, :t)",
            {"s": self.name, "q": self._n_seen, "l": library_version(), "c": next_decision(self._learner),
             "x": text, "t": _now()},
        )  # fmt: skip
        self._snap_seq = self._n_seen
        self._rejected = False

    def _snapshot_due(self, tx: Transaction) -> bool:
        """Whether the learner's state should be stored now: ``snapshot_every`` answers or more since the
        stored snapshot (another process may have stored a later one: the table says)."""
        if not (
            self._use_snapshots
            and self.snapshot_every > 0
            and not self._snapshot_failed
            and getattr(self._storage, "snapshots", False)
            and self._batch is None
            and self._learner is not None
            and self._n_seen - self._snap_seq >= self.snapshot_every
        ):
            return False
        rows = tx.execute("SELECT seq, library FROM sb_snapshots WHERE study = :s", {"s": self.name})
        if rows and not self._rejected and rows[0][1] == library_version() and isinstance(rows[0][0], int):
            self._snap_seq = max(self._snap_seq, min(rows[0][0], self._n_seen))
        return self._n_seen - self._snap_seq >= self.snapshot_every

    def _sync(self, tx: Transaction) -> None:
        """Replay the rows stored since this process last looked (the first time: since the snapshot,
        or all of them)."""
        if self._learner is None:
            self._learner = self._restore(tx) or self._new_learner()
        start = self._n_seen if self._batch is None else self._batch[0]
        rows = tx.execute(
            "SELECT seq, decision_json, observation_json, asked_at FROM sb_queries "
            "WHERE study = :s AND seq >= :start ORDER BY seq",
            {"s": self.name, "start": start},
        )
        try:
            for seq, decision_json, obs_json, asked_at in rows:
                seq = int(seq)
                known = self._rows.get(seq)
                if known is not None:  # a row of the awaited decision: answered or expired since?
                    query = known[0]
                    if (asked_at or "") != query.asked_at:
                        known[0] = dataclasses.replace(query, asked_at=asked_at or "")
                    if known[1] is None and obs_json is not None:
                        known[1] = json.loads(obs_json)
                        self._n_told += 1
                    self._complete_at_last_row(seq)
                    continue
                stored = json.loads(decision_json)
                if self._batch is None:
                    if seq != self._n_seen:
                        raise StudyIntegrityError(
                            f"Study {self.name!r}: query {seq} follows an unanswered query or a gap."
                        )
                    context = stored.get("context")
                    learner = self._learner
                    decision = learner.ask() if context is None else learner.ask(context_from_stored(context))
                    self._replayed += 1
                    split = "parts" in stored
                    expected = stored.get("batch") if split else _decision_part(stored)
                    if decision_to_dict(decision) != expected:
                        raise StudyIntegrityError(
                            f"Study {self.name!r}: replaying query {seq} gave {decision_to_dict(decision)}, "
                            f"but {json.dumps(expected)} is stored. The database was edited, or the library "
                            "version changes the algorithm's decisions."
                        )
                    self._batch = (seq, decision, int(stored["parts"]) if split else 1, split)
                first, decision, size, split = self._batch
                if seq >= first + size:
                    raise StudyIntegrityError(
                        f"Study {self.name!r}: query {seq} follows an unanswered query or a gap."
                    )
                query_decision = Decision(arm=int(stored["arm"])) if split else decision
                query = Query(
                    seq, query_decision, asked_at or "", first if split else None, size, stored.get("context")
                )
                obs = None if obs_json is None else json.loads(obs_json)
                self._rows[seq] = [query, obs]
                self._n_told += obs is not None
                self._n_rows = max(self._n_rows, seq + 1)
                self._complete_at_last_row(seq)
        except BaseException:
            self._reset()
            raise

    @contextlib.contextmanager
    def _transaction(self, write: bool) -> Iterator[Transaction]:
        try:
            with self._storage.transaction(self.name, write=write) as tx:
                self._sync(tx)
                yield tx
                due = self._snapshot_due(tx)
                if write and due:
                    self._write_snapshot(tx)
        except BaseException:
            # The learner may hold an ask or tell whose transaction did not commit: rebuild next time.
            self._reset()
            raise
        if not write and due:
            self._snapshot_after_read()

    def _snapshot_after_read(self) -> None:
        """After a read that replayed many answers (a study without a snapshot yet, e.g. one written
        before snapshots existed): store one, so the next load is quick. A cache: never fails the read."""
        if getattr(self._storage, "read_only", True):
            return
        with contextlib.suppress(SafeBanditsError):
            with self._storage.transaction(self.name, write=True) as tx:
                self._sync(tx)
                if self._snapshot_due(tx):
                    self._write_snapshot(tx)

    def verify(self) -> dict[str, Any]:
        """Replay every stored answer from the first, ignoring the snapshot, and check that the learner
        it gives is the one this study holds (restored from its snapshot and the answers since).

        Returns
        -------
        dict
            ``n_answered``; ``snapshot_seq`` (the queries the snapshot it used folds in; 0: none);
            ``identical``: True when the learner restored from that snapshot (and the answers since) is
            the replay's, ``None`` when no snapshot was used (nothing to compare); ``ignored``: each stored
            snapshot it did not use, ``{"seq", "reason"}``.

        Raises
        ------
        StudyIntegrityError
            The replay gives another learner than the snapshot (or a stored decision is not what the
            algorithm decides).
        """
        for _ in range(5):  # (another process may answer between the two reads: then read again)
            restored, full = (type(self)(self._storage, self.name, self._row) for _ in range(2))
            full._use_snapshots = False
            with restored._transaction(write=False):
                snapshot_seq = restored._loaded_from or 0
            with full._transaction(write=False):
                pass
            mine = (restored._n_told, restored._n_rows, restored._arm_counts)
            theirs = (full._n_told, full._n_rows, full._arm_counts)
            same = theirs == mine and same_state(full._learner, restored._learner)
            if theirs[1] == mine[1]:
                break
        if not same:
            raise StudyIntegrityError(
                f"Study {self.name!r}: replaying every answer gives another learner than its snapshot "
                f"(after query {snapshot_seq}) and the answers since. The database was edited, or this "
                "library version changes the algorithm's state. Loading with snapshots=False replays "
                "everything."
            )
        return {
            "n_answered": mine[0],
            "snapshot_seq": snapshot_seq,
            "identical": True if snapshot_seq else None,
            "ignored": list(restored._ignored),
        }
