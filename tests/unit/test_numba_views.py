"""Borrowed arrays and buffer views of ``safebandits._numba`` (the shared driver's blocks).

The writes tested here are the ones numba's dead-code pass dropped before the alias hook: a write
through a borrowed array or a view, kept in a record built by the same compiled function, that nothing
in that function reads afterwards.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from safebandits._numba import borrow, matrix_at, vector_at


class Inner(NamedTuple):
    x: np.ndarray
    k: int


class Outer(NamedTuple):
    a: np.ndarray
    inner: Inner
    f: float


@numba.njit
def _write_borrowed(c, j, value):
    y = borrow(c)
    y[j] = value  # nothing reads y afterwards: the write used to vanish


@numba.njit
def _write_through_record(buf, j, value):
    rec = Outer(borrow(buf), Inner(matrix_at(buf, 0, 2, 3), 7), 1.5)
    rec.a[j] = value
    rec.inner.x[1, 2] = -value  # element 5 of buf


@numba.njit
def _write_nested(rec, j, value):
    b = borrow(rec)
    b.a[j] = value
    b.inner.x[0, 1] = value
    return b.inner.k + b.f  # non-array members pass through unchanged


@numba.njit
def _sum_views(buf, n):
    v = vector_at(buf, 0, n)
    m = matrix_at(buf, 0, 1, n)
    return v.sum(), m.sum(), borrow(buf).sum()


def test_write_through_borrowed_array_is_kept():
    c = np.zeros(8)
    _write_borrowed(c, 3, 2.5)
    assert c.tolist() == [0.0, 0.0, 0.0, 2.5, 0.0, 0.0, 0.0, 0.0]


def test_write_through_record_built_in_the_function_is_kept():
    buf = np.zeros(8)
    _write_through_record(buf, 2, 4.0)
    assert buf.tolist() == [0.0, 0.0, 4.0, 0.0, 0.0, -4.0, 0.0, 0.0]


def test_borrow_takes_nested_records_member_by_member():
    rec = Outer(np.zeros(3), Inner(np.zeros((2, 2)), 3), 1.5)
    assert _write_nested(rec, 1, 9.0) == 4.5
    assert rec.a.tolist() == [0.0, 9.0, 0.0]
    assert rec.inner.x.tolist() == [[0.0, 9.0], [0.0, 0.0]]


def test_borrow_is_the_identity_in_python():
    a = np.arange(3.0)
    rec = Outer(a, Inner(a.reshape(1, 3), 1), 0.0)
    assert borrow(a) is a
    assert borrow(rec) is rec


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, st.integers(1, 40), elements=st.floats(-1e6, 1e6)),
    st.data(),
)
def test_views_and_borrowed_arrays_read_the_buffer(buf, data):
    n = data.draw(st.integers(1, buf.shape[0]))
    v, m, b = _sum_views(buf, n)
    assert v == m == buf[:n].sum() or np.isclose(v, buf[:n].sum())
    assert b == buf.sum() or np.isclose(b, buf.sum())
    j = data.draw(st.integers(0, buf.shape[0] - 1))
    value = data.draw(st.floats(-1e6, 1e6))
    expected = buf.copy()
    expected[j] = value
    _write_borrowed(buf, j, value)
    np.testing.assert_array_equal(buf, expected)
