"""Every registered learner copies and pickles (issue 32, item 6).

After some tells, ``copy.deepcopy`` and a pickle round trip give learners that continue exactly like the
original: told the same observations, they ask the same decisions, are done at the same sample and
recommend the same answer, and then hold the same state, attribute by attribute (so a view kept beside
the state that a copy stopped sharing shows even where it does not change a decision within the rounds
played). A copy is independent of its original (telling one leaves the other as it was), and a learner
that has bound its compiled kernels (after its first ask / tell) pickles: bound kernels are dropped and
bound again on use.
"""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.contract.test_learners import NAMES, build

#: Rounds played by the original and its copies after the copy.
AFTER = 12


def _decision_key(d):
    """A decision as plain values (arrays as lists), equal for equal decisions."""
    return tuple(None if v is None else (np.asarray(v).tolist() if not isinstance(v, int) else v) for v in d)


def _answer(learner):
    """What a learner answers now: its anytime recommendation (pure exploration) or ``None``."""
    if not hasattr(learner, "done"):
        return None
    return repr(learner.recommend(anytime=True))


def _tell_rounds(learner, env, n):
    for _ in range(n):
        if getattr(learner, "done", False):
            return
        d = learner.ask()
        learner.tell(d, env.play(d))


def _continue_together(learners, env, n):
    """Play ``n`` rounds: the first learner's decisions on ``env``, every learner told the same
    observation after asking (its decision must equal the first's). Returns the rounds played."""
    played = 0
    for _ in range(n):
        dones = [bool(getattr(lr, "done", False)) for lr in learners]
        assert len(set(dones)) == 1, f"done differs after {played} rounds: {dones}"
        if dones[0]:
            break
        decisions = [lr.ask() for lr in learners]
        keys = [_decision_key(d) for d in decisions]
        assert all(k == keys[0] for k in keys[1:]), f"decisions differ after {played} rounds: {keys}"
        obs = env.play(decisions[0])
        for lr, d in zip(learners, decisions, strict=True):
            lr.tell(d, obs)
        played += 1
    answers = [_answer(lr) for lr in learners]
    assert all(a == answers[0] for a in answers[1:]), answers
    assert len({lr.n_samples for lr in learners}) == 1
    for attr in ("last_value",):
        if hasattr(learners[0], attr):
            values = [getattr(lr, attr) for lr in learners]
            assert all(repr(v) == repr(values[0]) for v in values[1:]), values
    return played


def _attributes(obj):
    """``obj``'s attributes: its ``__dict__`` and ``__slots__``."""
    out = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                out[name] = getattr(obj, name)
    return out


def _state_differences(a, b, path="", seen=None):
    """Where two learners' states differ, attribute by attribute (recursively): arrays and records by
    value (NaN equal to NaN; not their read-only flags, which numpy's copies and pickles do not keep),
    floats by ``repr``, generators by their state, functions and compiled entry
    points by name; caches built on first use (names ending in ``_cache``) and running generator
    programs are not compared."""
    seen = set() if seen is None else seen
    if (id(a), id(b)) in seen:
        return []
    seen.add((id(a), id(b)))
    if type(a) is not type(b):
        return [f"{path}: {type(a).__name__} vs {type(b).__name__}"]
    if isinstance(a, np.ndarray) and a.dtype.names is None:
        same = a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        return [] if same else [f"{path}: arrays differ"]
    if isinstance(a, (np.ndarray, np.void, np.generic)):  # records: their bytes
        return [] if pickle.dumps(a) == pickle.dumps(b) else [f"{path}: records differ"]
    if isinstance(a, float):
        return [] if repr(a) == repr(b) else [f"{path}: {a!r} vs {b!r}"]
    if isinstance(a, types.GeneratorType):
        return []
    if isinstance(a, np.random.Generator):
        same = a.bit_generator.state == b.bit_generator.state
        return [] if same else [f"{path}: random generators differ"]
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return [f"{path}: lengths {len(a)} vs {len(b)}"]
        return [
            d for i, (x, y) in enumerate(zip(a, b)) for d in _state_differences(x, y, f"{path}[{i}]", seen)
        ]
    if isinstance(a, dict):
        if set(a) != set(b):
            return [f"{path}: keys differ"]
        return [d for k in a for d in _state_differences(a[k], b[k], f"{path}[{k!r}]", seen)]
    attrs_a, attrs_b = _attributes(a), _attributes(b)
    if (callable(a) and not attrs_a) or isinstance(a, types.FunctionType):
        return [] if a.__qualname__ == b.__qualname__ else [f"{path}: {a!r} vs {b!r}"]
    if not attrs_a and not attrs_b:
        return [] if a == b else [f"{path}: {a!r} vs {b!r}"]
    if set(attrs_a) != set(attrs_b):
        return [f"{path}: attributes {sorted(set(attrs_a) ^ set(attrs_b))}"]
    return [
        d
        for k in attrs_a
        if not k.endswith("_cache")
        for d in _state_differences(attrs_a[k], attrs_b[k], f"{path}.{k}", seen)
    ]


def _copies(learner):
    return [copy.deepcopy(learner), pickle.loads(pickle.dumps(learner))]


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_tells=st.integers(min_value=0, max_value=40))
def test_copies_continue_like_the_original(name, n_tells):
    _inst, learner, env = build(name, env_seed=5, learner_seed=6)
    _tell_rounds(learner, env, n_tells)
    copies = _copies(learner)
    _continue_together([learner, *copies], env, AFTER)
    for c in copies:
        assert _state_differences(learner, c) == []


@pytest.mark.parametrize("name", NAMES)
def test_copy_is_independent_of_the_original(name):
    """Telling the original does not move its copy: the copy then continues like a fresh replay."""
    _inst, learner, env = build(name, env_seed=5, learner_seed=6)
    _tell_rounds(learner, env, 5)
    snapshot = copy.deepcopy(learner)
    _inst, twin, env_twin = build(name, env_seed=5, learner_seed=6)
    _tell_rounds(twin, env_twin, 5)
    _tell_rounds(learner, env, 5)  # the original moves on
    played = _continue_together([snapshot, twin], env_twin, AFTER)
    assert played > 0 or getattr(twin, "done", False)


@pytest.mark.parametrize("name", NAMES)
def test_pickled_before_any_ask_continues_like_the_original(name):
    _inst, learner, env = build(name, env_seed=5, learner_seed=6)
    restored = pickle.loads(pickle.dumps(learner))
    _continue_together([learner, restored], env, AFTER)


_CONTINUE = r"""
import json, pickle, sys
from tests.contract.test_copy_pickle import _decision_key
learner, env, n = pickle.load(sys.stdin.buffer)
keys = []
for _ in range(n):
    if getattr(learner, "done", False):
        break
    d = learner.ask()
    keys.append(_decision_key(d))
    learner.tell(d, env.play(d))
print(json.dumps(keys))
"""


@pytest.mark.parametrize("name", ["g-acol", "lc-lucb"])
def test_pickled_learner_continues_in_another_process(name):
    """Sending a learner to a worker: unpickled in a fresh interpreter (kernels bound there), it asks
    what the original asks."""
    _inst, learner, env = build(name, env_seed=5, learner_seed=6)
    _tell_rounds(learner, env, 7)
    payload = pickle.dumps((learner, env, AFTER))
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", _CONTINUE],
        input=payload,
        capture_output=True,
        timeout=300,
        cwd=root,
        check=True,
    )
    theirs = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    ours = []
    for _ in range(AFTER):
        if getattr(learner, "done", False):
            break
        d = learner.ask()
        ours.append(_decision_key(d))
        learner.tell(d, env.play(d))
    assert json.loads(json.dumps(ours)) == theirs
    assert len(ours) > 0
