"""``safebandits bounds`` dispatches through a registry the paper packages fill (the engine names no
paper): every paper's instance kinds have bounds, a new kind can be registered, and an instance of an
unregistered kind is refused naming the kinds that have them."""

from __future__ import annotations

import numpy as np
import pytest

from safebandits.exceptions import ConfigError
from safebandits.experiments import bounds as registry
from safebandits.problems.registry import make_instance


@pytest.mark.parametrize(
    ("name", "params", "key"),
    [
        ("acol/irrelevant-dimensions", {}, "h_clb"),
        ("beside/example1", {}, "instance"),
        ("safelucb/karm", {}, "safe-lucb"),
        ("stagewise/four-arm", {}, "opb"),
        ("stagewise/finite-class", {}, "opnlb"),
        ("ckb/synthetic", {"n_points": 20, "T": 50}, "ckb-ucb"),
    ],
)
def test_every_papers_kind_has_its_bounds(name, params, key):
    inst = (
        make_instance(name, np.random.default_rng(0), **params)
        if _random(name)
        else make_instance(name, **params)
    )
    entry = registry.bounds_entry(inst)
    assert entry is not None
    assert key in entry.compute(name, inst)


def _random(name):
    from safebandits.problems.registry import list_instances

    return list_instances()[name].random


def test_the_most_specific_registration_wins_and_unknown_kinds_are_named():
    stagewise = make_instance("stagewise/four-arm")
    function_class = make_instance("stagewise/finite-class", np.random.default_rng(0))
    assert "opnlb" in registry.bounds_entry(function_class).compute("f", function_class)
    assert "opb" in registry.bounds_entry(stagewise).compute("s", stagewise)
    assert registry.bounds_entry(object()) is None
    line = registry.bound_kinds()
    assert line.startswith("bounds exist for ") and "(ckb/*)" in line and "(acol/*)" in line


def test_a_new_kind_can_register_its_bounds():
    class Toy:
        pass

    try:
        registry.register_bounds(Toy, "toy problems (toy/*)", lambda name, inst, **o: {"name": name, **o})
        entry = registry.bounds_entry(Toy())
        assert entry.compute("t", Toy(), delta=0.1) == {"name": "t", "delta": 0.1}
        assert "toy problems (toy/*)" in registry.bound_kinds()
    finally:
        registry._BOUNDS[:] = [e for e in registry._BOUNDS if e.instance_type is not Toy]
    with pytest.raises(ConfigError):
        registry.register_bounds("not a type", "x", lambda *a: {})
