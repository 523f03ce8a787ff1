"""A warning of the library names the user's line, not the library's internals (a warning that points
into site-packages tells a user nothing about which of their calls to change)."""

from __future__ import annotations

import warnings

import numpy as np

import safebandits as sb
from safebandits.exceptions import user_stacklevel


def _problem():
    return sb.LinearProblem(
        arms=[[1, 0], [0, 1], [1, 1]],
        threshold=0.5,
        safe_arm=0,
        safe_cost=0.1,
        safe_reward=0.2,
        feedback="bernoulli",
        horizon=500,
    )


def test_the_default_tolerance_warning_names_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb.make_learner("beside-practical", _problem(), np.random.default_rng(0))  # (this line)
    tolerance = [w for w in caught if issubclass(w.category, sb.DefaultToleranceWarning)]
    assert tolerance, [str(w.message) for w in caught]
    assert all(w.filename == __file__ for w in tolerance), [w.filename for w in tolerance]
    lines = open(__file__).read().splitlines()
    line = 1 + next(i for i, text in enumerate(lines) if "(this line)" in text and "make_learner" in text)
    assert tolerance[0].lineno == line


def test_user_stacklevel_outside_the_package_is_one_level_up():
    def warns():
        warnings.warn("here", UserWarning, stacklevel=user_stacklevel())

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warns()
    assert caught[0].filename == __file__ and caught[0].lineno == warns.__code__.co_firstlineno + 1
