"""A learner's state as data: typed, named fields written beside a freshly built learner of the same
study, and read back into another fresh one (the format of :mod:`~safebandits.study.snapshot`).

The fresh learner (``cls(config, info, rng)``, built from the study's own row) is the schema: every object
in the stored state is an object of the fresh learner, at the same place, of the same class, with the
same attribute names; only values flow from storage. The stored bytes never name a class, a module or a
function. What a node of the stored tree may be:

- a JSON scalar (``None``, a bool, an int, a float, a string);
- ``{"F": 0}``: the fresh learner's value at this place, unchanged (what the constructor built from the
  study's info, configuration and seed: problem views, constants, compiled kernels);
- ``{"R": k}``: the ``k``-th shared value seen before (the state's sharing is kept, as a copy keeps it);
- ``{"A": k}``: the ``k``-th array of the record's table (a dtype of :data:`DTYPES`, a shape, an order,
  writability), whose bytes follow the header; where the fresh learner holds an array at this place, the
  stored one must have its dtype, shape (but for the first size of a buffer it holds empty), layout and
  writability;
- ``{"X": [dtype, value]}``: a numpy scalar of a dtype of :data:`DTYPES`; ``{"B": base64}``: bytes;
- ``{"T": [...]}``, ``{"L": [...]}``, ``{"D": [[key, value], ...]}``, ``{"S": [...]}``: a tuple, list,
  dict or set of nodes;
- ``{"N": [...]}``: the values of a named record (a NamedTuple): of the fresh record's class and fields;
- ``{"O": {name: node}}``: an object, of the fresh object's class, with exactly its attribute names;
- ``{"G": state}``: a random generator's state (numpy's ``bit_generator.state``, a dict of ints), set on a
  copy of the fresh learner's generator at this place, of the same bit generator only;
- ``{"K": 0}``: a compiled kernel the learner binds: the fresh learner's (bound at construction), or
  none (bound again at its next use).

Objects whose state is neither their attributes nor a :class:`~safebandits._numba.Rebinding` record (a
learner running a generator program, e.g. the transductive pure-exploration learners) are written only
while they equal the fresh learner's; a learner holding anything else does not snapshot
(:class:`Uncapturable`): its study replays every answer.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from safebandits._numba import Rebind, Rebinding, _is_bound

__all__ = ["DTYPES", "FieldError", "Uncapturable", "read_tree", "same_state", "write_tree"]

#: Array and scalar dtypes a snapshot may hold (little-endian numbers and booleans only).
DTYPES = frozenset(
    {"|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8", "<c8", "<c16"}
)
#: Deepest nesting of the stored tree.
MAX_DEPTH = 64
#: Most dimensions of a stored array.
MAX_NDIM = 8

_SCALARS = (type(None), bool, int, float, str)
#: Most fields of a structured (record) dtype.
MAX_RECORD_FIELDS = 256


def dtype_spec(dtype: np.dtype) -> Any:
    """A dtype as the header writes it: a string of :data:`DTYPES`, or for a record dtype (numba's live
    records) ``{"fields": [[name, dtype], ...], "align": bool}`` of such strings."""
    if dtype.fields is None:
        if dtype.str not in DTYPES:
            raise Uncapturable(f"an array of dtype {dtype}")
        return dtype.str
    names = dtype.names or ()
    fields = [[n, dtype.fields[n][0].str] for n in names]
    spec = {"fields": fields, "align": bool(dtype.isalignedstruct)}
    if len(fields) > MAX_RECORD_FIELDS or any(f not in DTYPES for _, f in fields) or dtype_of(spec) != dtype:
        raise Uncapturable(f"an array of dtype {dtype}")
    return spec


def dtype_of(spec: Any) -> np.dtype:
    """The dtype :func:`dtype_spec` wrote (``ValueError`` on anything else)."""
    if isinstance(spec, str) and spec in DTYPES:
        return np.dtype(spec)
    if not (isinstance(spec, dict) and set(spec) == {"fields", "align"} and type(spec["align"]) is bool):
        raise ValueError("not a dtype of a snapshot")
    fields = spec["fields"]
    if not (isinstance(fields, list) and 0 < len(fields) <= MAX_RECORD_FIELDS):
        raise ValueError("not a dtype of a snapshot")
    pairs = []
    for item in fields:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and item[1] in DTYPES):
            raise ValueError("not a dtype of a snapshot")
        if not (0 < len(item[0]) <= 64 and item[0].isidentifier()):
            raise ValueError("not a dtype of a snapshot")
        pairs.append((item[0], item[1]))
    return np.dtype(pairs, align=spec["align"])


class Uncapturable(Exception):
    """A learner's state holds something that is not data (the learner does not snapshot)."""


class FieldError(Exception):
    """A stored tree that does not fit the fresh learner (the snapshot is ignored)."""


def _default_getstate(cls: type) -> bool:
    return getattr(cls, "__getstate__", None) in (object.__getstate__, Rebinding.__getstate__)


def _default_setstate(cls: type) -> bool:
    return getattr(cls, "__setstate__", None) in (None, Rebinding.__setstate__)


def fields_of(obj: Any) -> dict[str, Any]:
    """The attributes an object's state is made of (its ``__getstate__`` of :class:`Rebinding` or the
    default), as a flat dict (:class:`Uncapturable` for a state of another kind)."""
    state = obj.__getstate__()
    if isinstance(state, tuple) and len(state) == 2:  # (the default of a class with __slots__)
        attrs, slots = state
        state = {**(attrs or {}), **(slots or {})}
    if not isinstance(state, dict):
        raise Uncapturable(f"{type(obj).__name__} has no attribute state")
    state = dict(state)
    state.pop("__readonly__", None)  # (writability is kept with each array)
    return state


def _raw_fields(obj: Any, names: Any) -> dict[str, Any]:
    """The fresh object's values of its state's attributes as they are (bound kernels unbound: not)."""
    return {k: getattr(obj, k, None) for k in names}


def _own_class(cls: type, home: str) -> bool:
    """Whether objects of ``cls`` may be written and read: a class of safebandits or of the learner's own
    package (``home``), made by ``object.__new__`` (never a builtin, numpy or numba type, nor a proxy of
    compiled memory such as a numba structure reference, whose attributes would be pointers)."""
    top = str(getattr(cls, "__module__", "")).partition(".")[0]
    return top in ("safebandits", home) and cls.__new__ is object.__new__


def _layout(a: np.ndarray) -> str:
    return "C" if a.flags.c_contiguous else ("F" if a.flags.f_contiguous else "A")


def _same(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and same_state(a, b)
    except RecursionError:
        return False


class _Writer:
    def __init__(self, home: str) -> None:
        self.home = home
        self.memo: dict[int, int] = {}
        self.keep: list[Any] = []  # (objects whose id is in memo stay alive while writing)
        self.arrays: list[dict[str, Any]] = []
        self.chunks: list[bytes] = []

    def _remember(self, value: Any) -> None:
        self.memo[id(value)] = len(self.memo)
        self.keep.append(value)

    def node(self, value: Any, fresh: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise Uncapturable("the state is nested too deeply")
        if isinstance(value, _SCALARS) and type(value) in _SCALARS:
            return value
        hit = self.memo.get(id(value))
        if hit is not None:
            return {"R": hit}
        if fresh is not None and not isinstance(value, Rebind) and _same(value, fresh):
            self._remember(value)
            return {"F": 0}
        if isinstance(value, Rebind):
            return {"K": 0}
        if isinstance(value, np.ndarray):
            return self._array(value)
        if isinstance(value, np.generic):
            if value.dtype.str not in DTYPES or np.iscomplexobj(value):
                raise Uncapturable(f"a scalar of dtype {value.dtype}")
            return {"X": [value.dtype.str, value.item()]}
        if isinstance(value, bytes):
            return {"B": base64.b64encode(value).decode("ascii")}
        if isinstance(value, np.random.Generator):
            self._remember(value)
            return {"G": value.bit_generator.state}
        if isinstance(value, tuple):
            items = fresh if isinstance(fresh, tuple) and len(fresh) == len(value) else (None,) * len(value)
            nodes = [self.node(v, f, depth + 1) for v, f in zip(value, items)]
            if hasattr(value, "_fields"):
                if type(fresh) is not type(value):
                    raise Uncapturable(f"a record {type(value).__name__} the fresh learner does not hold")
                return {"N": nodes}
            if type(value) is not tuple:
                raise Uncapturable(f"a tuple of class {type(value).__name__}")
            return {"T": nodes}
        if type(value) is list:
            self._remember(value)
            items = fresh if isinstance(fresh, list) else []
            return {"L": [self.node(v, items[i] if i < len(items) else None, depth + 1)
                          for i, v in enumerate(value)]}  # fmt: skip
        if type(value) is dict:
            self._remember(value)
            others = fresh if isinstance(fresh, dict) else {}
            return {"D": [[self.node(k, None, depth + 1), self.node(v, others.get(k), depth + 1)]
                          for k, v in value.items()]}  # fmt: skip
        if type(value) in (set, frozenset):
            return {"S": [self.node(v, None, depth + 1) for v in value], "frozen": type(value) is frozenset}
        return self._object(value, fresh, depth)

    def _array(self, a: np.ndarray) -> dict[str, Any]:
        if type(a) is not np.ndarray or a.ndim > MAX_NDIM:
            raise Uncapturable(f"an array of {a.ndim} dimensions")
        spec = dtype_spec(a.dtype)
        self._remember(a)
        order = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
        self.arrays.append(
            {"dtype": spec, "shape": list(a.shape), "order": order, "writeable": bool(a.flags.writeable)}
        )
        self.chunks.append(a.tobytes(order=order))
        return {"A": len(self.arrays) - 1}

    def _object(self, value: Any, fresh: Any, depth: int) -> dict[str, Any]:
        cls = type(value)
        if type(fresh) is not cls:
            raise Uncapturable(f"a {cls.__name__} the fresh learner does not hold at the same place")
        if not (_default_getstate(cls) and _default_setstate(cls) and _own_class(cls, self.home)):
            raise Uncapturable(f"{cls.__name__} keeps a state that is not its attributes")
        self._remember(value)
        state = fields_of(value)
        fresh_state = _raw_fields(fresh, state)
        return {"O": {k: self.node(v, fresh_state[k], depth + 1) for k, v in state.items()}}


def write_tree(learner: Any, fresh: Any) -> tuple[Any, list[dict[str, Any]], bytes]:
    """``learner``'s state as a tree of nodes (see the module's docstring), its array table and the arrays'
    bytes, written beside ``fresh`` (a learner of the same study as its constructor built it).

    Raises :class:`Uncapturable` when the state holds something that is not data.
    """
    w = _Writer(type(fresh).__module__.partition(".")[0])
    tree = w._object(learner, fresh, 0)  # (the learner itself: always written, never kept as built)
    return tree, w.arrays, b"".join(w.chunks)


# -- reading --------------------------------------------------------------------------------------
def _int(value: Any, what: str, low: int = 0, high: int = 2**62) -> int:
    if type(value) is not int or not low <= value <= high:
        raise FieldError(f"{what} must be an integer in [{low}, {high}], not {str(value)[:40]}")
    return value


class _Reader:
    def __init__(self, arrays: Any, blob: bytes, budget: int, home: str) -> None:
        self.home = home
        if not isinstance(arrays, list):
            raise FieldError("the array table is not a list")
        self.blob = memoryview(blob)
        self.table = arrays
        self.offsets: list[int] = []
        self.dtypes: list[np.dtype] = []
        offset = 0
        for i, spec in enumerate(arrays):  # every size is known (and bounded) before anything is allocated
            if not isinstance(spec, dict) or set(spec) != {"dtype", "shape", "order", "writeable"}:
                raise FieldError(f"array {i} is not described by dtype, shape, order and writeable")
            try:
                dtype = dtype_of(spec["dtype"])
            except (ValueError, TypeError):
                raise FieldError(f"array {i}: dtype {str(spec['dtype'])[:40]} refused") from None
            if spec["order"] not in ("C", "F") or type(spec["writeable"]) is not bool:
                raise FieldError(f"array {i}: order or writeable refused")
            shape = spec["shape"]
            if not isinstance(shape, list) or len(shape) > MAX_NDIM:
                raise FieldError(f"array {i}: the shape must be a list of at most {MAX_NDIM} sizes")
            n = 1
            for s in shape:
                n *= _int(s, f"array {i}'s size", 0, budget)
                if n > budget:
                    raise FieldError(f"array {i} is larger than the study's snapshot allows ({budget} bytes)")
            self.offsets.append(offset)
            offset += n * dtype.itemsize
            self.dtypes.append(dtype)
            if offset > budget:
                raise FieldError(f"the arrays are larger than the study's snapshot allows ({budget} bytes)")
        if offset != len(blob):
            raise FieldError(f"the arrays need {offset} bytes; the record holds {len(blob)}")
        self.memo: list[Any] = []
        self.used: set[int] = set()

    def _array(self, k: Any, fresh: Any, where: str) -> np.ndarray:
        k = _int(k, f"{where}: the array number", 0, len(self.table) - 1)
        if k in self.used:
            raise FieldError(f"{where}: array {k} is read twice")
        self.used.add(k)
        spec = self.table[k]
        dtype = self.dtypes[k]
        shape = tuple(spec["shape"])
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        flat = np.frombuffer(self.blob, dtype=dtype, count=count, offset=self.offsets[k])
        a = np.array(flat.reshape(shape, order=spec["order"]), order=spec["order"], copy=True)
        a.setflags(write=spec["writeable"])
        if isinstance(fresh, np.ndarray):
            # (the shape is the fresh learner's; a buffer it holds empty and fills later keeps its other
            # sizes)
            shape_fits = a.shape == fresh.shape or (
                fresh.size == 0 and a.ndim == fresh.ndim > 0 and a.shape[1:] == fresh.shape[1:]
            )
            if not shape_fits or (a.dtype, a.dtype.isalignedstruct, _layout(a), a.flags.writeable) != (
                fresh.dtype, fresh.dtype.isalignedstruct, _layout(fresh), fresh.flags.writeable
            ):  # fmt: skip
                raise FieldError(
                    f"{where}: the stored array ({a.dtype}, shape {a.shape}) is not the learner's "
                    f"({fresh.dtype}, shape {fresh.shape})"
                )
        elif fresh is not None:
            raise FieldError(f"{where}: an array where the learner holds a {type(fresh).__name__}")
        return a

    def node(self, node: Any, fresh: Any, where: str, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise FieldError(f"{where}: nested too deeply")
        if node is None or type(node) in (bool, int, float, str):
            if fresh is not None and not isinstance(fresh, _SCALARS) and not isinstance(fresh, np.ndarray):
                raise FieldError(f"{where}: a plain value where the learner holds a {type(fresh).__name__}")
            if type(fresh) in (bool, int, float, str) and node is not None and type(node) is not type(fresh):
                raise FieldError(
                    f"{where}: a {type(node).__name__} where the learner holds a {type(fresh).__name__}"
                )
            return node
        if not isinstance(node, dict) or len(node) not in (1, 2):
            raise FieldError(f"{where}: not a field")
        tag = next(iter(node))
        body = node[tag]
        if tag == "F":
            if fresh is None:
                raise FieldError(f"{where}: the learner holds nothing to keep here")
            self.memo.append(fresh)
            return fresh
        if tag == "R":
            return self.memo[_int(body, f"{where}: the reference", 0, len(self.memo) - 1)]
        if tag == "A":
            a = self._array(body, fresh, where)
            self.memo.append(a)
            return a
        if tag == "K":
            if fresh is not None and not _is_bound(fresh):
                raise FieldError(
                    f"{where}: a compiled kernel where the learner holds a {type(fresh).__name__}"
                )
            return fresh
        if tag == "X":
            if not (isinstance(body, list) and len(body) == 2 and body[0] in DTYPES):
                raise FieldError(f"{where}: a scalar of another dtype")
            if not isinstance(body[1], (bool, int, float)):
                raise FieldError(f"{where}: a scalar's value is not a number")
            return np.dtype(body[0]).type(body[1])
        if tag == "B":
            if not isinstance(body, str):
                raise FieldError(f"{where}: bytes not as base64")
            return base64.b64decode(body.encode("ascii"), validate=True)
        if tag == "G":
            return self._generator(body, fresh, where)
        if tag in ("T", "L", "N", "S"):
            if not isinstance(body, list):
                raise FieldError(f"{where}: not a list of fields")
            return self._sequence(tag, node, body, fresh, where, depth)
        if tag == "D":
            return self._dict(body, fresh, where, depth)
        if tag == "O":
            return self._object(body, fresh, where, depth)
        raise FieldError(f"{where}: unknown kind of field")

    def _generator(self, state: Any, fresh: Any, where: str) -> np.random.Generator:
        if not isinstance(fresh, np.random.Generator):
            raise FieldError(f"{where}: a random generator where the learner holds none")
        name = type(fresh.bit_generator).__name__
        if not isinstance(state, dict) or state.get("bit_generator") != name:
            raise FieldError(f"{where}: the generator's state is not one of a {name}")
        gen = copy.deepcopy(fresh)
        try:
            gen.bit_generator.state = state
        except (TypeError, ValueError, KeyError, OverflowError) as exc:
            raise FieldError(f"{where}: the generator's state is refused ({type(exc).__name__})") from None
        self.memo.append(gen)
        return gen

    def _sequence(
        self, tag: str, node: dict[str, Any], body: list[Any], fresh: Any, where: str, depth: int
    ) -> Any:
        if tag == "L":
            out: list[Any] = []
            self.memo.append(out)
            items = fresh if isinstance(fresh, list) else []
            for i, v in enumerate(body):
                out.append(self.node(v, items[i] if i < len(items) else None, f"{where}[{i}]", depth + 1))
            return out
        if tag == "S":
            values = [self.node(v, None, f"{where}{{}}", depth + 1) for v in body]
            return frozenset(values) if node.get("frozen") is True else set(values)
        items = fresh if isinstance(fresh, tuple) and len(fresh) == len(body) else (None,) * len(body)
        values = [self.node(v, f, f"{where}[{i}]", depth + 1) for i, (v, f) in enumerate(zip(body, items))]
        if tag == "T":
            return tuple(values)
        if not (isinstance(fresh, tuple) and hasattr(fresh, "_fields") and len(fresh) == len(body)):
            raise FieldError(f"{where}: a record where the learner holds none of its size")
        return type(fresh)._make(values)

    def _dict(self, body: Any, fresh: Any, where: str, depth: int) -> dict[Any, Any]:
        if not isinstance(body, list):
            raise FieldError(f"{where}: not a list of items")
        out: dict[Any, Any] = {}
        self.memo.append(out)
        others = fresh if isinstance(fresh, dict) else {}
        for item in body:
            if not (isinstance(item, list) and len(item) == 2):
                raise FieldError(f"{where}: an item is not a key and a value")
            key = self.node(item[0], None, f"{where}{{key}}", depth + 1)
            out[key] = self.node(item[1], others.get(key), f"{where}[{str(key)[:20]}]", depth + 1)
        return out

    def _object(self, body: Any, fresh: Any, where: str, depth: int) -> Any:
        cls = type(fresh)
        if fresh is None or isinstance(fresh, (*_SCALARS, type, np.ndarray, np.generic, tuple, list, dict)):
            raise FieldError(f"{where}: an object where the learner holds none")
        if not (_default_getstate(cls) and _default_setstate(cls) and _own_class(cls, self.home)):
            raise FieldError(f"{where}: the learner's {cls.__name__} is written only while unchanged")
        names = fields_of(fresh)
        if not isinstance(body, dict) or set(body) != set(names):
            raise FieldError(f"{where}: the attributes are not those of the learner's {cls.__name__}")
        fresh_state = _raw_fields(fresh, names)
        obj = object.__new__(cls)
        self.memo.append(obj)
        state = {k: self.node(v, fresh_state[k], f"{where}.{k}", depth + 1) for k, v in body.items()}
        setstate: Callable[[Any], None] | None = getattr(obj, "__setstate__", None)
        if setstate is not None and cls.__setstate__ is Rebinding.__setstate__:
            setstate(state)
        else:
            for k, v in state.items():
                object.__setattr__(obj, k, v)
        return obj


def read_tree(tree: Any, arrays: Any, blob: bytes, fresh: Any, budget: int) -> Any:
    """The learner :func:`write_tree` wrote, read into the classes of ``fresh`` (a learner of the same
    study as its constructor built it); at most ``budget`` bytes of arrays.

    Raises :class:`FieldError` (naming the field) when the tree does not fit ``fresh``.
    """
    reader = _Reader(arrays, blob, budget, type(fresh).__module__.partition(".")[0])
    learner = reader.node(tree, fresh, "learner", 0)
    if type(learner) is not type(fresh):
        raise FieldError("the stored state is not a learner of the study's class")
    return learner


# -- comparing ------------------------------------------------------------------------------------
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
    equal field by field, other objects through their ``__getstate__`` / ``__dict__``; a compiled kernel
    bound equals one not bound yet (a cache: the learner binds it at its next use). (Pickles of equal
    states may differ in their bytes.)"""
    if _depth > 50:
        raise RecursionError("state too deep to compare")
    if isinstance(a, Rebind) or isinstance(b, Rebind):  # (a kernel bound or not yet: a cache, not state)
        return a is None or b is None or (type(a) is type(b) and a.__getstate__() == b.__getstate__())
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
