"""Snapshots of a study's learner: loading a study restores the latest one and replays only the answers
stored since, instead of every answer from the first.

A snapshot is a cache, never the source of truth (the stored queries and answers are). It is written in
the same transaction as the answer that completes a decision, every ``snapshot_every`` answered queries
(:func:`~safebandits.study.study.create_study`), and is data, not a program (issue 41): a JSON header and
the bytes of the learner's arrays (:func:`encode_snapshot`). The header holds the format and library
version, the learner's registered name, its configuration, a hash of the study's problem view, the number
of stored queries it folds in (``seq``), the study's play counts, and the learner's state as typed, named
fields (:mod:`~safebandits.study.fields`): arrays (numeric dtypes only, with their shapes), scalars, and
the values of the learner's own objects. Reading it builds a learner through its own constructor from the
study's configuration, problem view and seed, and sets the stored values onto it: no stored byte names a
class, a module or a function, every size is checked against what the study allows before anything is
allocated, and a field whose name, dtype or shape is not the fresh learner's is refused.

A snapshot is used only when all of these hold (else the study replays every stored answer, exactly as
without snapshots, and the next answer writes a fresh snapshot; :class:`SnapshotError` says why):

- the library version and snapshot format are this one's (older snapshots, pickles of format 1 among
  them, are ignored: the answers rebuild the learner);
- the learner, configuration and problem view are the study's, and the queries it folds in are stored
  and answered;
- the record decodes within the study's size and fits the fresh learner;
- the restored learner asks the same next decision as the one stored with it.

:meth:`~safebandits.study.study.Study.verify` replays everything and compares, and names a snapshot it
ignored. A learner whose state is not data (a generator program: the transductive pure-exploration
learners; a plugin's learner holding foreign objects) does not snapshot: its study replays every answer.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import struct
import zlib
from typing import Any

import numpy as np

from safebandits._version import __version__
from safebandits.study.fields import FieldError, Uncapturable, read_tree, same_state, write_tree

__all__ = [
    "DEFAULT_SNAPSHOT_EVERY",
    "SNAPSHOT_FORMAT",
    "SnapshotError",
    "Uncapturable",
    "decode_snapshot",
    "encode_snapshot",
    "info_hash",
    "next_decision",
    "same_state",
    "snapshot_budget",
]

#: Answered queries between two snapshots of a study's learner (0: no snapshots).
DEFAULT_SNAPSHOT_EVERY = 100

#: Version of the snapshot record itself (the payload's layout), beside the library version. Format 1
#: was a pickle (never read since issue 41).
SNAPSHOT_FORMAT = 2

_MAGIC = b"SBSNAP2\n"


class SnapshotError(Exception):
    """A snapshot that cannot be used (it is then ignored: the study replays every answer); the message
    says why."""


def info_hash(info_json: str) -> str:
    """A short hash of a study's stored problem view (a snapshot holds the one it was written for)."""
    return hashlib.sha256(info_json.encode("utf-8")).hexdigest()[:32]


def snapshot_budget(fresh: Any, seq: int) -> int:
    """Most bytes a snapshot of a study may decode to: its fresh learner's state several times over plus
    a little per query it folds in (learners keep a few values per decision). Nothing larger is
    allocated when a snapshot is read."""
    return (1 << 20) + 8 * _nbytes(fresh) + 4096 * max(int(seq), 0)


def _nbytes(fresh: Any) -> int:
    """The bytes of the arrays a fresh learner holds (shared arrays counted once)."""
    seen: set[int] = set()
    total = 0
    stack = [fresh]
    depth = 0
    while stack and depth < 100_000:
        depth += 1
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, np.ndarray):
            total += value.nbytes
        elif isinstance(value, (list, tuple, set, frozenset)):
            stack.extend(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif hasattr(value, "__dict__") or hasattr(type(value), "__slots__"):
            stack.extend(getattr(value, "__dict__", {}).values())
            for name in getattr(type(value), "__slots__", ()):
                if isinstance(name, str) and hasattr(value, name):
                    stack.append(getattr(value, name))
    return total


def encode_snapshot(learner: Any, fresh: Any, meta: dict[str, Any], budget: int | None = None) -> str:
    """``learner``'s state as the text of a snapshot record (see the module's docstring): ``meta`` (the
    learner's name, configuration, problem-view hash, ``seq`` and play counts) and the learner's fields,
    written beside ``fresh`` (the study's learner as its constructor builds it).

    Raises :class:`Uncapturable` when the learner's state is not data, or is larger than ``budget`` bytes
    (what a read would refuse: :func:`snapshot_budget`).
    """
    tree, arrays, blob = write_tree(learner, fresh)
    header = {"format": SNAPSHOT_FORMAT, "library": __version__, **meta, "arrays": arrays, "state": tree}
    text = json.dumps(header, separators=(",", ":"), allow_nan=True).encode("utf-8")
    raw = _MAGIC + struct.pack("<Q", len(text)) + text + blob
    if budget is not None and len(raw) > budget:
        raise Uncapturable(f"the state ({len(raw)} bytes) is larger than a snapshot of the study may be")
    return base64.b64encode(zlib.compress(raw, 1)).decode("ascii")


def _inflate(text: str, budget: int) -> bytes:
    if not isinstance(text, str):
        raise SnapshotError("the record is not text")
    if len(text) > 2 * budget:
        raise SnapshotError(f"the record ({len(text)} characters) is larger than the study allows")
    try:
        packed = base64.b64decode(text.encode("ascii"), validate=True)
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, budget + 64)
        if inflater.unconsumed_tail:
            raise SnapshotError(f"the record inflates beyond the {budget} bytes the study allows")
        if not inflater.eof:
            raise SnapshotError("the record is truncated")
    except SnapshotError:
        raise
    except (ValueError, zlib.error) as exc:  # (binascii.Error, UnicodeEncodeError, zlib.error)
        raise SnapshotError(f"the record does not decode ({type(exc).__name__})") from None
    return raw


def decode_snapshot(
    text: str, fresh: Any, expected: dict[str, Any], budget: int
) -> tuple[Any, dict[str, Any]]:
    """The learner a snapshot record holds, read into a copy of ``fresh``'s classes (``fresh`` itself
    is used up), and its header.

    ``expected`` holds the header values that must match (learner name, configuration, problem-view
    hash, ``seq``). At most ``budget`` bytes are inflated and allocated
    (:func:`snapshot_budget`). Raises :class:`SnapshotError` saying why the record is not used.
    """
    raw = _inflate(text, budget)
    if not raw.startswith(_MAGIC) or len(raw) < len(_MAGIC) + 8:
        raise SnapshotError("the record is not a snapshot of this format")
    (n,) = struct.unpack_from("<Q", raw, len(_MAGIC))
    start = len(_MAGIC) + 8
    if n > len(raw) - start:
        raise SnapshotError("the record's header is truncated")
    try:
        header = json.loads(raw[start : start + n].decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise SnapshotError(f"the record's header is not JSON ({type(exc).__name__})") from None
    if not isinstance(header, dict):
        raise SnapshotError("the record's header is not a JSON object")
    if header.get("format") != SNAPSHOT_FORMAT or header.get("library") != __version__:
        raise SnapshotError("the record was written by another library version or format")
    for key, value in expected.items():
        if header.get(key) != value:
            raise SnapshotError(f"the record's {key} is not the study's")
    try:
        learner = read_tree(header.get("state"), header.get("arrays"), raw[start + n :], fresh, budget)
    except FieldError as exc:
        raise SnapshotError(f"the stored state does not fit the learner: {exc}") from None
    except RecursionError:
        raise SnapshotError("the stored state is nested too deeply") from None
    except Exception as exc:  # (a value the learner's own classes refuse while being set)
        raise SnapshotError(f"the stored state is refused by the learner ({type(exc).__name__})") from None
    return learner, header


def next_decision(learner: Any) -> str | None:
    """The decision a copy of ``learner`` asks next, as canonical JSON (``None`` when it cannot ask: a
    stopped pure-exploration learner). ``learner`` itself is left as it was."""
    from safebandits.study.codec import decision_to_dict

    trial = copy.deepcopy(learner)
    try:
        decision = trial.ask()
    except Exception:  # (ProtocolError of a stopped learner, and anything a plugin's learner raises)
        return None
    return json.dumps(decision_to_dict(decision), sort_keys=True, separators=(",", ":"))


def library_version() -> str:
    return f"{__version__}/{SNAPSHOT_FORMAT}"
