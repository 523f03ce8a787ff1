"""Snapshots of a study's learner: loading a study restores the latest one and replays only the answers
stored since, instead of every answer from the first.

A snapshot is a cache, never the source of truth (the stored queries and answers are). It is written in
the same transaction as the answer that completes a decision, every ``snapshot_every`` answered queries
(:func:`~safebandits.study.study.create_study`), and holds: the number of stored queries it folds in
(``seq``; all of them answered), the learner pickled, the study's play counts, the library version that
wrote it and the decision the learner asks next (``check``). It is used only when all of these hold:

- the library version is this one (another version may change the learner's state or decisions);
- the pickle loads through :class:`SnapshotUnpickler`, which builds only the classes a learner's state is
  made of (safebandits' learners, estimators, problem views and records; numpy arrays, dtypes and random
  generators; numba's type records) and refuses every other global. A database that someone else can
  write to is then no way to run code in the processes that load its studies;
- the restored learner asks the same next decision as the one stored with it.

Otherwise the study replays every stored answer, exactly as without snapshots (and the next answer writes
a fresh snapshot). :meth:`~safebandits.study.study.Study.verify` replays everything and compares.
"""

from __future__ import annotations

import base64
import copy
import io
import json
import pickle
import zlib
from typing import Any

import numpy as np

from safebandits._version import __version__

__all__ = [
    "DEFAULT_SNAPSHOT_EVERY",
    "SNAPSHOT_FORMAT",
    "SnapshotError",
    "SnapshotUnpickler",
    "decode_state",
    "encode_state",
    "next_decision",
    "same_state",
]

#: Answered queries between two snapshots of a study's learner (0: no snapshots).
DEFAULT_SNAPSHOT_EVERY = 100

#: Version of the snapshot record itself (the payload's layout), beside the library version.
SNAPSHOT_FORMAT = 1

#: Packages whose classes a learner's state is made of (``safebandits`` only below these).
_OWN = (
    "safebandits.algorithms.",
    "safebandits.estimators.",
    "safebandits.design.",
    "safebandits.problems.",
    "safebandits.classification.",
)
_OWN_MODULES = ("safebandits.types", "safebandits.records", "safebandits._numba")

#: Globals outside safebandits that pickles of learners name (numpy arrays, dtypes, generators; numba's
#: type records of compiled state; the standard reconstructor of plain objects).
_FOREIGN = {
    ("builtins", "object"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "slice"),
    ("builtins", "complex"),
    ("builtins", "bytearray"),
    ("copyreg", "_reconstructor"),
    ("collections", "OrderedDict"),
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy._core.numeric", "_frombuffer"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy.random._pickle", "__bit_generator_ctor"),
    ("numpy.random._pickle", "__generator_ctor"),
    ("numpy.random._pickle", "__randomstate_ctor"),
    ("numpy.random._pcg64", "PCG64"),
    ("numpy.random._pcg64", "PCG64DXSM"),
    ("numpy.random._mt19937", "MT19937"),
    ("numpy.random._philox", "Philox"),
    ("numpy.random._sfc64", "SFC64"),
    ("numpy.random._generator", "Generator"),
    ("numpy.random.bit_generator", "SeedSequence"),
    ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"),
}
_FOREIGN_PREFIX = ("numba.core.types.",)
_NUMBA_TYPE_NAMES = {"_type_reconstructor"}


class SnapshotError(Exception):
    """A snapshot that cannot be used (it is then ignored: the study replays every answer)."""


class SnapshotUnpickler(pickle.Unpickler):
    """An unpickler that builds only what a learner's state is made of (see the module's docstring).

    Classes of safebandits' learner packages (not functions: a pickle could call them), the records and
    types modules, and the listed numpy / numba / standard globals. Anything else raises
    :class:`SnapshotError`.
    """

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _FOREIGN:
            return super().find_class(module, name)
        if module.startswith(_FOREIGN_PREFIX):
            obj = super().find_class(module, name)
            if isinstance(obj, type) or name in _NUMBA_TYPE_NAMES:
                return obj
        elif module.startswith(_OWN) or module in _OWN_MODULES:
            obj = super().find_class(module, name)
            if isinstance(obj, type):
                return obj
        raise SnapshotError(f"a snapshot may not name {module}.{name}")


def encode_state(state: dict[str, Any]) -> str:
    """``state`` (the learner and the study's counters) as text: base64 of the zlib-compressed pickle."""
    raw = pickle.dumps(state, protocol=5)
    return base64.b64encode(zlib.compress(raw, 1)).decode("ascii")


def decode_state(text: str) -> dict[str, Any]:
    """The state :func:`encode_state` wrote, through :class:`SnapshotUnpickler` (:class:`SnapshotError`
    on anything else: a damaged record, a foreign global, a missing class)."""
    try:
        raw = zlib.decompress(base64.b64decode(text.encode("ascii"), validate=True))
        state = SnapshotUnpickler(io.BytesIO(raw)).load()
    except SnapshotError:
        raise
    except Exception as exc:  # (binascii.Error, zlib.error, UnpicklingError, AttributeError, ...)
        raise SnapshotError(f"the snapshot does not load: {type(exc).__name__}") from None
    if not isinstance(state, dict) or "learner" not in state:
        raise SnapshotError("the snapshot is not a learner's state")
    return state


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


def _state_of(value: Any) -> Any:
    """What a value holds, for :func:`same_state` (``None`` when it is a plain value)."""
    getstate = getattr(value, "__getstate__", None)
    if getstate is not None and not isinstance(value, type):
        try:
            state = getstate()
        except TypeError:
            state = None
        if state is not None:
            return state
    return getattr(value, "__dict__", None)


def same_state(a: Any, b: Any, _depth: int = 0) -> bool:
    """Whether two learners (or parts of them) hold the same state: arrays equal bit for bit with the
    same dtype, shape and writability, random generators in the same state, records and containers
    equal field by field, other objects through their ``__getstate__`` / ``__dict__``. (Pickles of equal
    states may differ in their bytes: pickle's memo follows which objects share memory.)"""
    if _depth > 50:
        raise RecursionError("state too deep to compare")
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return (
            a.dtype == b.dtype
            and a.shape == b.shape
            and a.flags.writeable == b.flags.writeable
            and a.tobytes() == b.tobytes()
        )
    if isinstance(a, np.random.Generator):
        return a.bit_generator.state == b.bit_generator.state
    if isinstance(a, float):
        return a == b or (a != a and b != b)  # (NaN equals NaN here)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_state(a[k], b[k], _depth + 1) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_state(x, y, _depth + 1) for x, y in zip(a, b))
    if isinstance(a, (str, bytes, int, bool, complex, type(None), type, np.generic)):
        return bool(a == b) or (isinstance(a, np.floating) and np.isnan(a) and np.isnan(b))
    sa, sb = _state_of(a), _state_of(b)
    if sa is None or sb is None:
        slots = getattr(type(a), "__slots__", None)
        if slots:
            names = (slots,) if isinstance(slots, str) else slots
            return all(same_state(getattr(a, n, None), getattr(b, n, None), _depth + 1) for n in names)
        try:
            return bool(a == b)
        except Exception:
            return False
    return same_state(sa, sb, _depth + 1)


def library_version() -> str:
    return f"{__version__}/{SNAPSHOT_FORMAT}"
