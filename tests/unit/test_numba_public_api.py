"""safebandits leaves numba alone (issue 32): importing it changes none of numba's extension registries,
writes through ordinary views kept in a record (the shared driver's blocks) reach the buffer, and a
record passed by reference (``by_reference``: numba's StructRef) holds the record's own arrays.

The registry check runs in a fresh interpreter: numba is imported first, its registries recorded, then
safebandits and every module of the package are imported and the registries compared, then every
registered learner is compiled (a short compiled run and a few ask / tell steps) and compared again.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import NamedTuple

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from safebandits._numba import Struct, StructProxy, by_reference
from safebandits.algorithms._driver import make_driver
from safebandits.problems.feedback import CompiledFeedback

#: numba's registries an extension could change, as ``module:attribute`` (dicts and lists of hooks).
REGISTRIES = (
    "numba.core.ir_utils:alias_analysis_extensions",
    "numba.core.ir_utils:alias_func_extensions",
    "numba.core.ir_utils:remove_dead_extensions",
    "numba.core.ir_utils:remove_call_handlers",
    "numba.core.ir_utils:visit_vars_extensions",
    "numba.core.ir_utils:copy_propagate_extensions",
    "numba.core.ir_utils:apply_copy_propagate_extensions",
    "numba.core.ir_utils:call_table_extensions",
    "numba.core.ir_utils:build_defs_extensions",
    "numba.core.ir_utils:replace_vars_extensions",
    "numba.core.ir_utils:add_offset_to_labels_extensions",
    "numba.core.ir_utils:find_max_label_extensions",
    "numba.core.analysis:ir_extension_usedefs",
    "numba.core.analysis:ir_extension_use_alloca",
    "numba.core.postproc:ir_extension_insert_dels",
    "numba.core.typeinfer:typeinfer_extensions",
    "numba.core.lowering:lower_extensions",
    "numba.parfors.array_analysis:array_analysis_extensions",
)

_SNAPSHOT = r"""
import importlib, json, pkgutil, sys

def name(v):
    return f"{getattr(v, '__module__', '')}.{getattr(v, '__qualname__', repr(v))}:{id(v)}"

def snapshot():
    out = {}
    for spec in REGISTRIES:
        mod, attr = spec.split(":")
        try:
            reg = getattr(importlib.import_module(mod), attr)
        except (ImportError, AttributeError):
            continue  # (not in this numba version)
        items = reg.items() if isinstance(reg, dict) else enumerate(reg)
        out[spec] = sorted((repr(k), name(v)) for k, v in items)
    return out

import numba, numba.core.ir_utils, numba.parfors.array_analysis  # numba's own modules first
before = snapshot()
import safebandits
for info in pkgutil.walk_packages(safebandits.__path__, "safebandits."):
    if ".dashboard" in info.name or info.name.endswith("__main__"):
        continue  # (optional web dependencies; they do not import numba machinery)
    importlib.import_module(info.name)
after = snapshot()
# every registered learner compiled: a short compiled run and a few ask / tell steps each
compiled = []
if COMPILE:
    from tests.contract.test_learners import ENTRIES, NAMES, build
    from safebandits.experiments.regret_loop import run_regret
    from safebandits.experiments.simulate import run
else:
    NAMES = []
for algo in NAMES:
    inst, learner, env = build(algo)
    if ENTRIES[algo].task == "regret":
        run_regret(learner, env, inst, horizon=50, compiled=True)
    else:
        run(learner, env, inst, budget=200, compiled=True)
    inst, learner, env = build(algo)
    for _ in range(3):
        if getattr(learner, "done", False):
            break
        d = learner.ask()
        learner.tell(d, env.play(d))
    compiled.append(algo)
after_compile = snapshot()
print(json.dumps({"before": before, "after": after, "after_compile": after_compile, "compiled": compiled,
                  "changed": sorted(k for k in before if before[k] != after.get(k)),
                  "changed_by_compiling": sorted(k for k in before if before[k] != after_compile.get(k))}))
"""


def _snapshots(compile_learners: bool) -> dict:
    code = f"REGISTRIES = {REGISTRIES!r}\nCOMPILE = {compile_learners!r}\n" + _SNAPSHOT
    root = pathlib.Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=1700, check=True, cwd=root
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_leaves_numbas_registries_unchanged():
    result = _snapshots(compile_learners=False)
    assert "numba.core.ir_utils:alias_analysis_extensions" in result["before"]  # (the check looks)
    assert result["changed"] == [], {k: (result["before"][k], result["after"][k]) for k in result["changed"]}


@pytest.mark.slow  # (every learner compiled in a fresh process: minutes with a cold numba cache)
@pytest.mark.timeout(1800)
def test_compiling_every_learner_leaves_numbas_registries_unchanged():
    from tests.contract.test_learners import NAMES

    result = _snapshots(compile_learners=True)
    assert result["changed"] == [], {k: (result["before"][k], result["after"][k]) for k in result["changed"]}
    assert result["compiled"] == NAMES  # (every registered learner was compiled)
    changed = result["changed_by_compiling"]
    assert changed == [], {k: (result["before"][k], result["after_compile"][k]) for k in changed}


def test_the_package_names_no_private_numba_hook():
    """No module of the package installs a numba extension hook (the registries above) by name."""
    import safebandits

    root = pathlib.Path(safebandits.__file__).parent
    names = {spec.split(":")[1] for spec in REGISTRIES} | {"intrinsic", "populate_array", "meminfo"}
    hits = [(str(p.relative_to(root)), n) for p in root.rglob("*.py") for n in names if n in p.read_text()]
    assert hits == []


class Inner(NamedTuple):
    x: np.ndarray
    k: int


class Block(NamedTuple):
    a: np.ndarray
    inner: Inner
    f: float


@numba.njit(cache=False, inline="always")
def _views(run):
    buf = run[0]
    return Block(buf[2:6], Inner(buf[:6].reshape(2, 3), 7), 1.5)


@numba.njit(cache=False, inline="always")
def _select(b, j):
    return j < b.a.shape[0]


@numba.njit(cache=False, inline="always")
def _update(b, j, y):
    b.a[j] = y[0]  # nothing in the loop reads b.a afterwards: the write must still reach the buffer
    b.inner.x[1, 2] = -b.f


@numba.njit(cache=False, inline="always")
def _played(b, j):
    return j  # (arm j: the environment's row j)


_rounds = make_driver("_rounds", _select, _update, __name__, plays="arms", played=_played, prepare=_views)


@numba.njit
def _write_through_local_record(buf, j, value):
    rec = Block(buf[1:], Inner(buf[:6].reshape(2, 3), 7), 1.5)
    rec.a[j] = value
    rec.inner.x[1, 2] = -value  # element 5 of buf


def test_write_through_a_record_of_views_built_in_the_function_is_kept():
    buf = np.zeros(8)
    _write_through_local_record(buf, 1, 4.0)
    assert buf.tolist() == [0.0, 0.0, 4.0, 0.0, 0.0, -4.0, 0.0, 0.0]


@settings(max_examples=30, deadline=None)
@given(arrays(np.float64, 8, elements=st.floats(-1e6, 1e6)), st.integers(0, 4))
def test_driver_writes_through_the_prepared_views_reach_the_buffer(values, stop):
    buf = np.zeros(8)
    env = CompiledFeedback(values.reshape(8, 1).copy(), 0, 0.0)  # (Gaussian noise, sigma 0: the mean)
    variates = np.zeros((8, 1))
    j = _rounds((buf,), env, variates, (0, stop, 0))
    expected = np.zeros(8)
    expected[2 : 2 + stop] = values[:stop]
    if stop:
        expected[5] = -1.5
    assert j == stop
    np.testing.assert_array_equal(buf, expected)


# -- records by reference (safebandits._numba.by_reference) ----------------------------------------------
class Plain(NamedTuple):
    k: int
    f: float


class Outer(NamedTuple):
    a: np.ndarray
    inner: Inner
    plain: Plain


@numba.njit(cache=False)
def _write_by_reference(rec, j, value):
    s = by_reference(rec)
    s.a[j] = value
    s.inner.x[0, 0] = s.plain.f + s.inner.k
    return s.plain.k


@numba.njit(cache=False)
def _struct_type_of(rec):
    return by_reference(rec)


def test_by_reference_is_the_identity_in_python():
    rec = Outer(np.zeros(3), Inner(np.zeros((1, 1)), 2), Plain(1, 0.5))
    assert by_reference(rec) is rec


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 4), st.floats(-1e6, 1e6), st.integers(-5, 5), st.floats(-10, 10))
def test_a_record_by_reference_holds_the_records_own_arrays(j, value, k, f):
    rec = Outer(np.zeros(5), Inner(np.zeros((2, 3)), k), Plain(7, f))
    assert _write_by_reference(rec, j, value) == 7
    expected = np.zeros(5)
    expected[j] = value
    np.testing.assert_array_equal(rec.a, expected)  # the writes reached the caller's arrays
    assert rec.inner.x[0, 0] == f + k


def test_a_record_by_reference_is_one_struct_with_its_class():
    rec = Outer(np.zeros(2), Inner(np.zeros((1, 2)), 1), Plain(0, 0.0))
    s = _struct_type_of(rec)
    assert isinstance(s, StructProxy)
    typ = numba.typeof(s)
    assert isinstance(typ, Struct) and typ.instance_class is Outer
    fields = dict(typ.field_dict)
    assert isinstance(fields["inner"], Struct) and fields["inner"].instance_class is Inner
    assert fields["plain"] == numba.typeof(rec.plain)  # (no arrays: passed as it is)


def test_the_driver_is_a_block_then_a_loop_taking_it():
    block = _rounds.block((np.zeros(8),))
    assert isinstance(block, StructProxy)  # (by reference: the loop's argument, writes kept)
    env = CompiledFeedback(np.arange(8.0).reshape(8, 1), 0, 0.0)
    assert _rounds.loop(block, env, np.zeros((8, 1)), (0, 3, 0)) == 3
