import math

import numpy as np
import pytest

from safebandits._validation import check_array, check_choice, check_int, check_interval
from safebandits.exceptions import ConfigError


def test_interval_accepts_and_rejects():
    assert check_interval(0.5, "delta", low=0, high=1) == 0.5
    for bad in (0.0, 1.0, 1.5, math.nan, "0.1", True, None):
        with pytest.raises(ConfigError, match="'delta' parameter"):
            check_interval(bad, "delta", low=0, high=1, owner="X")


def test_interval_message_shape():
    with pytest.raises(
        ValueError,
        match=r"The 'delta' parameter of ACOLConfig must be a real number in \(0, 1\)\. Got 1.5 instead\.",
    ):
        check_interval(1.5, "delta", low=0, high=1, owner="ACOLConfig")


def test_int_and_choice():
    assert check_int(np.int64(3), "n", low=1) == 3
    assert check_int(2.0, "n") == 2 and check_int(1e6, "T") == 1_000_000  # integral floats (issue 18)
    for bad in (2.5, float("nan"), float("inf"), "2", True):
        with pytest.raises(ConfigError):
            check_int(bad, "n")
    with pytest.raises(ConfigError):
        check_int(0, "n", low=1)
    assert check_choice("a", "mode", ("a", "b")) == "a"
    with pytest.raises(ConfigError, match="one of 'a', 'b'"):
        check_choice("c", "mode", ("a", "b"))


@pytest.mark.parametrize(
    "value, kwargs",
    [
        ([[1.0, np.nan]], {"ndim": 2}),
        ([[1.0, np.inf]], {"ndim": 2}),
        ([1.0, 2.0], {"ndim": 2}),
        ([[1.0, 2.0]], {"shape": (None, 3)}),
        (np.zeros((0, 2)), {"ndim": 2, "min_rows": 1}),
        ("abc", {"ndim": 1}),
    ],
)
def test_array_rejects(value, kwargs):
    with pytest.raises(ConfigError, match="'arms'"):
        check_array(value, "arms", **kwargs)


def test_array_copies():
    a = np.ones((2, 2))
    b = check_array(a, "a", ndim=2)
    b[0, 0] = 5
    assert a[0, 0] == 1


def test_choice_of_literal_annotations_is_cached_by_identity_and_bounded():
    """check_choice reads a Literal's values once per annotation object (no hashing of the Literal),
    stays right for annotations made anew at each call, and keeps its cache bounded."""
    from typing import Literal

    from safebandits import _validation

    rule = Literal["a", "b"]
    assert check_choice("a", "rule", rule) == "a"
    with pytest.raises(ConfigError, match="one of 'a', 'b'"):
        check_choice("c", "rule", rule)
    assert _validation._LITERAL_CACHE[id(rule)] == (rule, ("a", "b"))
    for k in range(1500):  # (distinct annotations: new objects, new values)
        made = Literal[f"v{k}", "w"] | None
        assert check_choice(f"v{k}", "x", made) == f"v{k}" and check_choice(None, "x", made) is None
        with pytest.raises(ConfigError):
            check_choice("v", "x", made)
    assert len(_validation._LITERAL_CACHE) <= 1024
    assert check_choice("b", "rule", ["a", "b"]) == "b"  # (a list of choices: not cached)
