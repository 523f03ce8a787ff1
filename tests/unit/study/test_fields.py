"""The fields of a learner's state (safebandits.study.fields, issue 41): written beside a fresh object and
read back into the fresh object's classes; sharing, read-only and Fortran-ordered arrays, record dtypes
and random generators survive; anything that is not the fresh object's schema is refused."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

from safebandits.study.fields import FieldError, Uncapturable, read_tree, write_tree
from safebandits.study.snapshot import same_state


class Record(NamedTuple):
    a: np.ndarray
    n: int


class Part:
    def __init__(self) -> None:
        self.values = np.zeros(3)


class Toy:
    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.shared = np.zeros(4)
        self.record = Record(self.shared, 0)  # (the same array twice: a copy keeps it shared)
        self.fortran = np.asfortranarray(np.arange(6.0).reshape(2, 3))
        self.constant = np.arange(3.0)
        self.constant.setflags(write=False)
        self.live = np.zeros(1, dtype=np.dtype([("t", "<i8"), ("c", "<f8")], align=True))
        self.part = Part()
        self.history: list[tuple[int, float]] = []
        self.later = None
        self.name = "toy"


def _advanced() -> Toy:
    toy = Toy()
    toy.rng.random(5)
    toy.shared[:] = [1.0, 2.0, 3.0, 4.0]
    toy.record = toy.record._replace(n=7)
    toy.fortran[1, 2] = -1.0
    toy.live["t"] = 12
    toy.part.values[1] = np.nan
    toy.history += [(1, 0.5), (2, -0.25)]
    toy.later = np.ones((2, 2))
    return toy


def _read(tree, arrays, blob, budget=1 << 20):
    return read_tree(tree, arrays, blob, Toy(), budget)


def test_round_trip_keeps_values_sharing_flags_and_generators():
    toy = _advanced()
    back = _read(*write_tree(toy, Toy()))
    assert type(back) is Toy and same_state(back, toy)
    assert back.record.a is back.shared  # (shared as in the original)
    assert back.fortran.flags.f_contiguous and not back.constant.flags.writeable
    assert back.live.dtype == toy.live.dtype and back.live.dtype.isalignedstruct
    assert back.rng.random() == toy.rng.random()
    assert back.name == "toy" and back.history == [(1, 0.5), (2, -0.25)]


def test_an_unchanged_part_is_the_fresh_objects():
    toy = Toy()
    tree, arrays, blob = write_tree(toy, Toy())
    assert tree["O"]["constant"] == {"F": 0} and tree["O"]["part"] == {"F": 0}
    fresh = Toy()
    back = read_tree(tree, arrays, blob, fresh, 1 << 20)
    assert back.constant is fresh.constant and back.part is fresh.part


@pytest.mark.parametrize(
    "edit",
    [
        lambda t: t.update({"__class__": {"F": 0}}),
        lambda t: t.update(extra=1),
        lambda t: t.pop("name"),
        lambda t: t.update(part={"O": {"values": {"F": 0}, "__dict__": 1}}),
        lambda t: t.update(part={"A": 0}),
        lambda t: t.update(rng={"G": {"bit_generator": "MT19937", "state": {}}}),
        lambda t: t.update(record={"N": [{"R": 0}]}),
        lambda t: t.update(name={"O": {}}),
        lambda t: t.update(later={"O": {}}),
        lambda t: t.update(history={"L": [{"O": {}}]}),
    ],
)
def test_a_tree_that_is_not_the_fresh_objects_schema_is_refused(edit):
    tree, arrays, blob = write_tree(_advanced(), Toy())
    fields = dict(tree["O"])
    edit(fields)
    with pytest.raises(FieldError):
        _read({"O": fields}, arrays, blob)


def test_array_shapes_dtypes_and_sizes_are_the_fresh_ones():
    tree, arrays, blob = write_tree(_advanced(), Toy())
    k = tree["O"]["shared"]["A"]
    for spec, what in (
        ({**arrays[k], "shape": [2, 2]}, "shape"),
        ({**arrays[k], "dtype": "<i8"}, "not the learner's"),
        ({**arrays[k], "shape": [5]}, "need"),
        ({**arrays[k], "dtype": "|O"}, "refused"),
        ({**arrays[k], "shape": [2**40]}, r"size|larger"),
    ):
        with pytest.raises(FieldError, match=what):
            _read(tree, [*arrays[:k], spec, *arrays[k + 1 :]], blob)
    with pytest.raises(FieldError, match="larger"):
        _read(tree, arrays, blob, budget=len(blob) - 1)


class Proxy:
    """A class made by its own ``__new__`` (as a numba structure reference's proxy is)."""

    def __new__(cls):
        return super().__new__(cls)

    def __init__(self) -> None:
        self.pointer = 0


class WithProxy(Toy):
    def __init__(self) -> None:
        super().__init__()
        self.proxy = Proxy()


def test_objects_made_by_their_own_new_are_never_written_nor_read():
    live = WithProxy()
    live.proxy.pointer = 12345
    with pytest.raises(Uncapturable):
        write_tree(live, WithProxy())
    tree, arrays, blob = write_tree(WithProxy(), WithProxy())  # (unchanged: kept from the fresh object)
    fields = {**tree["O"], "proxy": {"O": {"pointer": 12345}}}
    with pytest.raises(FieldError, match="Proxy"):
        read_tree({"O": fields}, arrays, blob, WithProxy(), 1 << 20)


def test_a_state_holding_a_function_or_a_foreign_object_is_not_data():
    toy = _advanced()
    toy.later = print
    with pytest.raises(Uncapturable):
        write_tree(toy, Toy())
    toy.later = Part()  # (an object the fresh learner does not hold at that place)
    with pytest.raises(Uncapturable):
        write_tree(toy, Toy())
