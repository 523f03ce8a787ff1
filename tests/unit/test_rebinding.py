"""``safebandits._numba.Rebinding``: objects that keep bound kernels and views copy and pickle (issue 32,
item 6). A copy binds its kernels again and makes its views again from its own state (so they share its
memory, not the original's); a kernel that is not a module-level name cannot be pickled and says so."""

from __future__ import annotations

import copy
import pickle

import numba
import numpy as np
import pytest

from safebandits._numba import Rebind, Rebinding, bind_kernel, rebind, unbind


@numba.njit(cache=False)
def add_at(a, i, v):
    a[i] += v
    return a[i]


class Holder(Rebinding):
    _views = ("_first",)

    def __init__(self, n: int) -> None:
        self.block = np.zeros(n)
        self.frozen = np.arange(3.0)
        self.frozen.setflags(write=False)
        self.kernels = (bind_kernel(add_at, (self.block, 0, 1.0)), "label")
        Holder._make_views(self)

    def _make_views(self) -> None:
        self._first = self.block[:1]  # a view of the state, kept beside it


def _via_pickle(obj):
    return pickle.loads(pickle.dumps(obj))


@pytest.mark.parametrize("duplicate", [copy.deepcopy, _via_pickle])
def test_copy_rebinds_kernels_and_remakes_views(duplicate):
    h = Holder(4)
    h.kernels[0](h.block, 0, 2.0)
    c = duplicate(h)
    assert np.shares_memory(c._first, c.block) and not np.shares_memory(c._first, h.block)
    assert c.kernels[1] == "label"
    assert c.kernels[0](c.block, 0, 3.0) == 5.0  # the bound kernel works on the copy's state
    assert c._first[0] == 5.0 and h.block[0] == 2.0  # the view follows the copy, the original is apart
    assert not c.frozen.flags.writeable  # read-only stays read-only


def test_unbind_and_rebind_nested_tuples():
    block = np.zeros(2)
    entry = bind_kernel(add_at, (block, 0, 1.0))
    packed = unbind(((entry, 1), entry))
    assert isinstance(packed[0][0], Rebind) and packed[0][1] == 1
    again = rebind(pickle.loads(pickle.dumps(packed)))
    assert again[0][0](block, 1, 4.0) == 4.0 and again[1] is again[0][0]


def test_a_kernel_that_is_not_a_module_name_does_not_pickle():
    local = numba.njit(cache=False)(lambda a: a[0])
    entry = bind_kernel(local, (np.zeros(1),))
    with pytest.raises(TypeError, match="module-level"):
        unbind(entry)
