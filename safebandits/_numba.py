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

A kernel called from Python unboxes every array it is given (about 30 ns apiece), so the hottest ones
take a few buffers and read named views out of them inside compiled code (:func:`vector_at`,
:func:`matrix_at`: views with the types of C-contiguous arrays that cost no reference counting).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any, ClassVar

import numba
import numpy as np
from numba.core import cgutils, ir, ir_utils, types
from numba.extending import intrinsic, overload
from numba.np.arrayobj import make_array, populate_array

__all__ = [
    "Rebind",
    "Rebinding",
    "bind_kernel",
    "borrow",
    "matrix_at",
    "rebind",
    "type_key",
    "unbind",
    "vector_at",
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


def vector_at(buf: np.ndarray, offset: int, n: int) -> np.ndarray:
    """``buf[offset:offset + n]``: a view of the 1-D C-contiguous ``buf`` (see :func:`matrix_at`)."""
    return buf[offset : offset + n]


def matrix_at(buf: np.ndarray, offset: int, rows: int, cols: int) -> np.ndarray:
    """The C-contiguous ``(rows, cols)`` view of ``buf[offset:offset + rows * cols]`` (1-D C-contiguous).

    In Python, a numpy view. In compiled code (with :func:`vector_at`), a view that holds **no
    reference** to ``buf`` (like numba's constant arrays): taking it costs no reference count, and
    neither does any use of it in the kernels it is passed to (numba counts the references of every
    array it takes out of a record or passes on, an atomic operation each time: for the stage-wise state
    about a hundred per round, 0.9 of LC-LUCB's 2.3 us per ask / tell round at d = 10). Such a view is
    valid while ``buf`` is, so it must not leave the compiled call that made it (never returned to
    Python nor stored in a longer-lived object). The caller checks that the buffer is long enough.
    """
    return buf[offset : offset + rows * cols].reshape(rows, cols)


def borrow(a: Any) -> Any:
    """``a`` itself in Python; in compiled code, the same array without a reference (like the views of
    :func:`matrix_at`): passing it on or reading it costs no reference counting. For the arrays a
    compiled loop reads every round out of a record; valid while ``a`` is, within the compiled call
    that borrowed it (never returned to Python nor stored in a longer-lived object). A tuple or
    NamedTuple (nested ones too) is borrowed member by member: the same record, every array in it
    borrowed; a value without arrays is returned as it is."""
    return a


# Numba's dead-code pass drops a write to an array that is not read afterwards unless its alias
# analysis traces the array to an argument of the function. It does not see through a call it does not
# know nor through a tuple built in the function, so a write through a borrowed array or a view kept in
# a record built by the same function (a driver's block, see algorithms/_driver.py) was dropped
# silently. The hook below marks as possibly aliasing an argument every value that derives from a
# ``borrow`` / ``vector_at`` / ``matrix_at`` result: the result itself, a tuple (or NamedTuple) holding
# one, and what is taken out of such a tuple, to a fixed point over the whole function (numba visits the
# blocks in no particular order). It touches nothing else (marking every tuple of every function kept
# dead writes elsewhere too and cost LC-LUCB's loop ~10%), and it only adds aliases: at worst a dead
# write is kept.
_ALIASING_CALLS = frozenset({("_borrow", __name__), ("_vector_at", __name__), ("_matrix_at", __name__)})
_PASS_THROUGH = frozenset({"getattr", "static_getitem", "getitem", "cast", "exhaust_iter"})
#: id(func_ir) -> (the blocks' shape when computed, the derived variables); a few recent functions.
_DERIVED: dict[int, tuple[Any, frozenset[str]]] = {}


def _derived(func_ir: Any, typemap: Any) -> frozenset[str]:
    """Variables of ``func_ir`` whose value derives from a borrowed array or a view (see above)."""
    shape = tuple((label, len(block.body)) for label, block in func_ir.blocks.items())
    hit = _DERIVED.get(id(func_ir))
    if hit is not None and hit[0] == shape:
        return hit[1]
    assigns = [ins for block in func_ir.blocks.values() for ins in block.body if isinstance(ins, ir.Assign)]
    roots = set()
    for ins in assigns:
        expr = ins.value
        if isinstance(expr, ir.Expr) and expr.op == "call":
            if ir_utils.guard(ir_utils.find_callname, func_ir, expr, typemap) in _ALIASING_CALLS:
                roots.add(ins.target.name)
    derived = set(roots)
    changed = bool(derived)
    while changed:
        changed = False
        for ins in assigns:
            lhs = ins.target.name
            if lhs in derived:
                continue
            expr = ins.value
            if isinstance(expr, ir.Var):
                inputs = [expr]
            elif not isinstance(expr, ir.Expr):
                continue
            elif expr.op in _PASS_THROUGH:
                inputs = [expr.value]
            elif expr.op == "build_tuple":
                inputs = list(expr.items)
            elif expr.op == "phi":
                inputs = list(expr.incoming_values)
            elif expr.op == "call" and isinstance(typemap.get(lhs), types.BaseTuple):
                inputs = list(expr.args)  # (a NamedTuple built from them)
            else:
                continue
            if any(isinstance(v, ir.Var) and v.name in derived for v in inputs):
                derived.add(lhs)
                changed = True
    out = frozenset(derived)
    if len(_DERIVED) > 64:
        _DERIVED.clear()
    _DERIVED[id(func_ir)] = (shape, out)
    return out


def _alias_inputs(
    instr: Any, args: Any, typemap: Any, func_ir: Any, alias_map: Any, arg_aliases: Any
) -> None:
    if _previous_assign_hook is not None:  # pragma: no cover - no such hook in numba today
        _previous_assign_hook(instr, args, typemap, func_ir, alias_map, arg_aliases)
    if typemap is None or not isinstance(instr.value, (ir.Expr, ir.Var)):
        return
    if instr.target.name in _derived(func_ir, typemap):
        arg_aliases.add(instr.target.name)


_previous_assign_hook = ir_utils.alias_analysis_extensions.get(ir.Assign)
ir_utils.alias_analysis_extensions[ir.Assign] = _alias_inputs


def _borrowed(context: Any, builder: Any, typ: Any, value: Any) -> Any:
    """``value`` of numba type ``typ`` with the meminfo and parent of every array in it set to null."""
    if isinstance(typ, types.Array):
        src = make_array(typ)(context, builder, value)
        out = make_array(typ)(context, builder)
        populate_array(
            out, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize, meminfo=None,
            parent=None,
        )  # fmt: skip
        return out._getvalue()
    if isinstance(typ, types.BaseTuple):
        for i, member in enumerate(typ):
            if _has_array(member):
                item = _borrowed(context, builder, member, builder.extract_value(value, i))
                value = builder.insert_value(value, item, i)
    return value


def _has_array(typ: Any) -> bool:
    if isinstance(typ, types.Array):
        return True
    return isinstance(typ, types.BaseTuple) and any(_has_array(t) for t in typ)


@intrinsic
def _borrow(typingctx: Any, a: Any) -> Any:
    if not _has_array(a):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return _borrowed(context, builder, sig.args[0], args[0])

    return a(a), codegen


@overload(borrow, inline="always")
def _borrow_overload(a):  # type: ignore[no-untyped-def]
    if _has_array(a):
        return lambda a: _borrow(a)
    return lambda a: a  # (nothing to borrow)


def _unreferenced_view(
    context: Any, builder: Any, aryty: Any, arg: Any, offset: Any, shape: list[Any]
) -> Any:
    ary = make_array(aryty)(context, builder, arg)
    strides = [ary.itemsize]
    for n in reversed(shape[1:]):
        strides.insert(0, builder.mul(n, strides[0]))
    out = make_array(aryty.copy(ndim=len(shape), layout="C"))(context, builder)
    populate_array(
        out, data=cgutils.gep_inbounds(builder, ary.data, offset), shape=cgutils.pack_array(builder, shape),
        strides=cgutils.pack_array(builder, strides), itemsize=ary.itemsize, meminfo=None, parent=None,
    )  # fmt: skip
    return out._getvalue()


def _is_c_vector(buf: Any) -> bool:
    return isinstance(buf, types.Array) and buf.ndim == 1 and buf.layout == "C"


@intrinsic
def _vector_at(typingctx: Any, buf: Any, offset: Any, n: Any) -> Any:
    if not _is_c_vector(buf):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        o, k = (context.cast(builder, v, t, types.intp) for v, t in zip(args[1:], sig.args[1:], strict=True))
        return _unreferenced_view(context, builder, sig.args[0], args[0], o, [k])

    return buf.copy(ndim=1, layout="C")(buf, offset, n), codegen


@intrinsic
def _matrix_at(typingctx: Any, buf: Any, offset: Any, rows: Any, cols: Any) -> Any:
    if not _is_c_vector(buf):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        o, r, c = (
            context.cast(builder, v, t, types.intp) for v, t in zip(args[1:], sig.args[1:], strict=True)
        )
        return _unreferenced_view(context, builder, sig.args[0], args[0], o, [r, c])

    return buf.copy(ndim=2, layout="C")(buf, offset, rows, cols), codegen


@overload(vector_at, inline="always")
def _vector_at_overload(buf, offset, n):  # type: ignore[no-untyped-def]  # (numba: same names, no hints)
    if _is_c_vector(buf):
        return lambda buf, offset, n: _vector_at(buf, offset, n)
    return None


@overload(matrix_at, inline="always")
def _matrix_at_overload(buf, offset, rows, cols):  # type: ignore[no-untyped-def]
    if _is_c_vector(buf):
        return lambda buf, offset, rows, cols: _matrix_at(buf, offset, rows, cols)
    return None
