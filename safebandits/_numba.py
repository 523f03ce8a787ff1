"""Cheaper calls of numba kernels from Python hot loops.

A numba dispatcher resolves the type of every argument on each call (about 2 µs for a kernel with
twenty array arguments). Learners call the same kernel with the same argument types millions of
times, so :func:`bind_kernel` compiles once for those types and returns the compiled entry point,
which skips the dispatch. If numba's internals differ, it falls back to the dispatcher. An object that
keeps bound kernels (or views beside its state) copies and pickles through :class:`Rebinding`: the
kernels are bound again and the views made again in the copy.

Resolving the types of a typed state (a NamedTuple of twenty arrays) with ``numba.typeof`` itself costs
a few milliseconds, which every new learner paid again (issue 19: the fixed cost of a short run). The
entry points are therefore cached per kernel under a cheap *type key* of the arguments
(:func:`type_key`): everything ``numba.typeof`` reads to type them (the class of every value; an
array's dtype, number of dimensions, layout, writability and alignment; a tuple's items), so two
argument tuples with the same key get the same numba signature. Values of a kind the key does not
cover are typed by ``numba.typeof`` every time (no cache).

This module uses numba's public API only and changes none of numba's state: no extension hook, no array
without reference counting (issue 32; docs/decisions/engine.md, "numba through its public API only").
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any, ClassVar

import numba
import numpy as np
from numba.core import types
from numba.experimental import structref
from numba.extending import overload

__all__ = [
    "Rebind",
    "Rebinding",
    "Struct",
    "StructProxy",
    "bind_kernel",
    "by_reference",
    "rebind",
    "type_key",
    "unbind",
]

#: (kernel, type key) -> compiled entry point.
_BOUND: dict[tuple[Any, Any], Callable[..., Any]] = {}


class _Uncovered(Exception):
    """A value whose numba type :func:`type_key` does not derive."""


def _key(value: Any) -> Any:
    cls = type(value)
    if cls is np.ndarray:
        flags = value.flags
        layout = "C" if flags.c_contiguous else ("F" if flags.f_contiguous else "A")
        dtype = value.dtype
        return (dtype, dtype.isalignedstruct, value.ndim, layout, flags.writeable, flags.aligned)
    if cls is float or cls is bool or value is None:
        return cls
    if cls is int and -(2**63) <= value < 2**63:  # (int64; numba types a larger int otherwise)
        return int
    if isinstance(value, tuple):  # plain tuples and NamedTuples: the class and the items
        return (cls, *(_key(v) for v in value))
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return cls
    raise _Uncovered


def type_key(args: tuple[Any, ...]) -> Any:
    """A hashable key equal for two argument tuples that numba types alike (``None`` if not derivable)."""
    try:
        return tuple(_key(a) for a in args)
    except _Uncovered:
        return None


def bind_kernel(kernel: Any, example_args: tuple[Any, ...]) -> Callable[..., Any]:
    """Return a callable equivalent to ``kernel`` for arguments of the types of ``example_args``."""
    key = type_key(example_args)
    if key is not None:
        hit = _BOUND.get((kernel, key))
        if hit is not None:
            return hit
    try:
        sig = tuple(numba.typeof(a) for a in example_args)
        entry = _entry(kernel, sig)
    except Exception:  # pragma: no cover - depends on numba internals
        return kernel
    if key is not None:
        _BOUND[(kernel, key)] = entry
    return entry


#: id(entry point) -> (entry point, kernel, numba signature): how to bind an entry point again.
_SIGNATURES: dict[int, tuple[Callable[..., Any], Any, tuple[Any, ...]]] = {}


def _entry(kernel: Any, sig: tuple[Any, ...]) -> Callable[..., Any]:
    kernel.compile(sig)
    entry = kernel.overloads[sig].entry_point
    _SIGNATURES[id(entry)] = (entry, kernel, sig)
    return entry


# -- copies and pickles of objects that keep bound kernels ---------------------------------------------
class Rebind:
    """A bound kernel (:func:`bind_kernel`) as a copy or a pickle of its owner holds it: the kernel, by
    its module and name, and the numba signature it was bound for. :meth:`bind` binds it again (from
    numba's compiled overloads in this process, else numba's compile, which reads its disk cache)."""

    __slots__ = ("module", "name", "sig")

    def __init__(self, module: str, name: str, sig: tuple[Any, ...]) -> None:
        self.module, self.name, self.sig = module, name, sig

    def __getstate__(self) -> tuple[str, str, tuple[Any, ...]]:
        return self.module, self.name, self.sig

    def __setstate__(self, state: tuple[str, str, tuple[Any, ...]]) -> None:
        self.module, self.name, self.sig = state

    def bind(self) -> Callable[..., Any]:
        # A pickle (a study's snapshot read from a database) must not make this import an arbitrary module
        # or call an arbitrary function: the kernel's package must be safebandits or one already imported
        # (a plugin's, whose learner class the pickle has just loaded), and the name a compiled kernel.
        top = self.module.partition(".")[0]
        if top != "safebandits" and top not in sys.modules:
            raise TypeError(
                f"a bound kernel must be in safebandits or a package already imported, not {self.module!r}"
            )
        kernel = getattr(importlib.import_module(self.module), self.name)
        if not (callable(getattr(kernel, "compile", None)) and hasattr(kernel, "overloads")):
            raise TypeError(f"{self.module}.{self.name} is not a compiled kernel")
        return _entry(kernel, self.sig)


def _module_name_of(kernel: Any) -> tuple[str, str]:
    """``(module, attribute)`` under which ``kernel`` is found (a module-level compiled function)."""
    module = getattr(getattr(kernel, "py_func", None), "__module__", None)
    names = [k for k, v in vars(sys.modules[module]).items() if v is kernel] if module in sys.modules else []
    if not names:
        raise TypeError(f"the bound kernel {kernel!r} is not a module-level name: it cannot be pickled")
    return module, names[0]  # type: ignore[return-value]


def _is_bound(value: Any) -> bool:
    hit = _SIGNATURES.get(id(value))
    return hit is not None and hit[0] is value


def _has_bound(value: Any) -> bool:
    return _is_bound(value) or (isinstance(value, tuple) and any(_has_bound(v) for v in value))


def _has_rebind(value: Any) -> bool:
    return isinstance(value, Rebind) or (isinstance(value, tuple) and any(_has_rebind(v) for v in value))


def unbind(value: Any) -> Any:
    """``value`` with every bound kernel in it (at the top or in tuples) replaced by a :class:`Rebind`."""
    if _is_bound(value):
        _entry_point, kernel, sig = _SIGNATURES[id(value)]
        return Rebind(*_module_name_of(kernel), sig)
    if isinstance(value, tuple) and any(_has_bound(v) for v in value):
        items = [unbind(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value


def rebind(value: Any) -> Any:
    """The inverse of :func:`unbind`: every :class:`Rebind` in ``value`` bound again."""
    if isinstance(value, Rebind):
        return value.bind()
    if isinstance(value, tuple) and any(_has_rebind(v) for v in value):
        items = [rebind(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value


class Rebinding:
    """Mixin: an object that keeps bound kernels (:func:`bind_kernel`) or views in its attributes copies
    and pickles.

    ``copy.deepcopy`` and pickle see the bound kernels as :class:`Rebind` records (numba's compiled entry
    points do not pickle); the copy binds them again when it is restored. Attributes named in a class's
    ``_views`` are views of memory the object holds elsewhere (one-element views of a state record's
    fields, kept because they are cheaper to index on every round than the record): a copy would not
    share that memory, so they are left out and the class's ``_make_views`` makes them again (each
    class of the object's hierarchy that defines ``_make_views`` is called, base classes first).
    Attributes in ``__slots__`` are copied too, and read-only arrays stay read-only.
    """

    __slots__ = ()
    #: Names of the attributes that :meth:`_make_views` (of the same class) makes from the state.
    _views: ClassVar[tuple[str, ...]] = ()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(getattr(self, "__dict__", {}))
        views: set[str] = set()
        for cls in type(self).__mro__:
            views.update(cls.__dict__.get("_views", ()))
            slots = cls.__dict__.get("__slots__", ())
            for name in (slots,) if isinstance(slots, str) else slots:
                if name not in ("__dict__", "__weakref__") and hasattr(self, name):
                    state[name] = getattr(self, name)
        out = {k: unbind(v) for k, v in state.items() if k not in views}
        # numpy's copies and pickles of a read-only array are writable (and numba types them apart)
        readonly = [k for k, v in out.items() if type(v) is np.ndarray and not v.flags.writeable]
        if readonly:
            out["__readonly__"] = readonly
        return out

    def __setstate__(self, state: dict[str, Any]) -> None:
        readonly = state.get("__readonly__", ())
        for k, v in state.items():
            if k != "__readonly__":
                object.__setattr__(self, k, rebind(v))
        for k in readonly:
            getattr(self, k).setflags(write=False)
        for cls in reversed(type(self).__mro__):
            make = cls.__dict__.get("_make_views")
            if make is not None:
                make(self)


# -- records held by reference in compiled code ----------------------------------------------------------
class Struct(types.StructRef):
    """The numba type of a record held by reference (:func:`by_reference`): the fields of a NamedTuple
    behind one reference count (numba's ``StructRef``, its public interface for mutable structures).
    ``instance_class`` is the NamedTuple's class (part of the type: kernels that pick an implementation
    by the record's class, such as the ridge numerics, pick the same one)."""

    def __init__(self, fields: Any, instance_class: Any = None) -> None:
        self.instance_class = instance_class
        super().__init__(fields)
        if instance_class is not None:
            self.name = f"Struct[{instance_class.__module__}.{instance_class.__qualname__}]{self._fields}"

    def preprocess_fields(self, fields: Any) -> Any:
        return tuple((name, types.unliteral(t)) for name, t in fields)


class StructProxy(structref.StructRefProxy):
    """A :class:`Struct` in Python: what a compiled function returns for one, passed back to compiled code
    as it is (a shared driver's block; its fields are read in compiled code only)."""


structref.register(Struct)  # (our own type: its data model and attributes; nothing of numba's changes)
structref.define_boxing(Struct, StructProxy)


def _holds_arrays(typ: Any) -> bool:
    if isinstance(typ, types.Array):
        return True
    return isinstance(typ, types.BaseTuple) and any(_holds_arrays(t) for t in typ)


def _struct_type(typ: Any) -> Any:
    """The type :func:`by_reference` gives a value of numba type ``typ``."""
    if isinstance(typ, types.BaseNamedTuple) and _holds_arrays(typ):
        fields = [(name, _struct_type(t)) for name, t in zip(typ.fields, typ.types, strict=True)]
        return Struct(fields, typ.instance_class)
    return typ


def by_reference(record: Any) -> Any:
    """``record`` itself in Python. In compiled code, a NamedTuple that holds arrays becomes a
    :class:`Struct` with the same field names (nested NamedTuples too), read the same way (``s.field``).

    numba counts the references of every array of a NamedTuple each time the record is bound (passed to
    a function, kept in a variable, taken out of an enclosing record): for a learner's state of twenty
    arrays, twenty atomic increments and decrements. A :class:`Struct` is one reference: the shared
    driver hands its kernels the block this way (algorithms/_driver.py). The arrays are the record's own
    (ordinary, reference-counted numpy arrays; the struct holds a reference to each)."""
    return record


@overload(by_reference)
def _by_reference_overload(record):  # type: ignore[no-untyped-def]  # (numba: same names, no hints)
    struct_type = _struct_type(record)
    if struct_type is record:
        return lambda record: record
    lines = ["def impl(record):", "    s = new(struct_type)"]
    lines += [f"    s.{name} = by_reference(record.{name})" for name in record.fields]
    lines += ["    return s"]
    namespace = {"new": structref.new, "struct_type": struct_type, "by_reference": by_reference}
    exec("\n".join(lines), namespace)  # (one assignment per field: field names are code in numba)
    return namespace["impl"]
