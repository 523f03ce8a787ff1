"""The contextual conservative learners' problem view and state round-trip (issue 44). Their studies are
asked with the round's context (``study.ask(context)``: tests/unit/study/test_conservative_contexts.py); the
registry-wide study tests ask without one and leave them out (``CONTEXTUAL``), and their study contract is
tests/contract/test_contextual_studies.py. Their info encodes exactly, and a snapshot of a learner midway
restores the state an uninterrupted learner holds and plays on alike."""

from __future__ import annotations

import copy
import json

import pytest

from safebandits.study import info_from_dict, info_to_dict
from safebandits.study.snapshot import decode_snapshot, encode_snapshot, same_state
from tests.contract.test_learners import CONTEXTUAL, _contextual


@pytest.mark.parametrize("name", sorted(CONTEXTUAL))
def test_the_view_round_trips_exactly(name):
    info = _contextual(name, 0)[0].public_info()
    assert (info.checkpoint, info.baseline_floor) == (10, 0.1)
    back = info_from_dict(json.loads(json.dumps(info_to_dict(info))))
    assert back == info and type(back) is type(info)


@pytest.mark.parametrize("name", sorted(CONTEXTUAL))
def test_a_snapshot_restores_the_state_and_plays_on_alike(name):
    _, learner, env = _contextual(name, 0)
    for _ in range(30):
        d = learner.ask(env.context())
        learner.tell(d, env.play(d))
    fresh = _contextual(name, 0)[1]
    text = encode_snapshot(learner, copy.deepcopy(fresh), {"name": name})
    restored, _ = decode_snapshot(text, fresh, {"name": name}, 1 << 24)
    assert same_state(restored, learner)
    for _ in range(30):
        ctx = env.context()
        a, b = learner.ask(ctx), restored.ask(ctx)
        assert a.arm == b.arm
        obs = env.play(a)
        learner.tell(a, obs)
        restored.tell(b, obs)
    assert repr(learner.diagnostics()) == repr(restored.diagnostics())
