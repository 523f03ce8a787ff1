"""The study-wide contract for the contextual learners (issue 44): every learner registered on the
``conservative-linear`` view (CLUCB, its unknown-baseline variant, CLUCB2, CLUCB2's checkpoint variant,
LinUCB), driven as a study with seeded contexts drawn from a declared problem that carries its truth.

The registry-wide study contracts (tests/unit/study/test_study.py, tests/integration/test_study_snapshots.py)
ask without a context and so leave these learners out (``CONTEXTUAL`` in tests/contract/test_learners.py);
this module is their contract. Two declared families: a :class:`ConservativeLinearProblem` (a context
drawn each round, asked with ``study.ask(context)``, checkpoints every 10 rounds and a baseline floor) and
the :class:`LinearProblem` of examples/conservative_across.toml (fixed arms: asked with ``study.ask()``,
the study fills the declared context in). Per learner and family, over seeded replicates:

- the safety certificate each round: a learner with a promise reports one between ask and tell, the
  played action lies inside it, and it is the one stored in the round's record (the baseline's action, or
  a pessimistic margin ``xi_t >= 0`` of the constraint: the pessimistic estimate above its limit);
- under the truth, 0 violated (verified) rounds over the replicates, and no certified margin above the
  true one;
- replay / reload equality: the study's decisions are an uninterrupted twin learner's (with a reload
  midway), a loaded study (snapshot and answers since) holds the state of a full replay and of the twin,
  and ``verify()`` finds them identical;
- what is stored is data: every row is JSON, the snapshot a JSON header and numeric arrays, never a pickle.
"""

from __future__ import annotations

import base64
import json
import sqlite3
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
import tomllib

from safebandits.algorithms import make_learner
from safebandits.exceptions import ConfigError
from safebandits.problems.declare import ConservativeLinearProblem, LinearProblem
from safebandits.rng import RunKey, learner_rng
from safebandits.study import create_study, load_study
from safebandits.study.snapshot import _MAGIC, same_state
from safebandits.types import Observation
from tests.contract.test_learners import CONTEXTUAL

ROUNDS = 60
REPLICATES = 3
EVERY = 7  # (answers between snapshots: a reload restores one and replays the answers since)

_RAW = tomllib.loads((Path(__file__).parents[2] / "examples/conservative_across.toml").read_text())


def _drawn():
    problem = ConservativeLinearProblem(
        dim=3, n_actions=5, alpha=0.1, baseline_param=[0.5, 0.5, 0.5], checkpoint=10, baseline_floor=0.1,
        feedback={"kind": "gaussian", "sigma": 0.1}, horizon=ROUNDS, param_bound=1.0,
    )  # fmt: skip
    return problem.simulate(theta=[0.5, 0.8, 0.2], feature_low=0.2)


def _fixed():
    values = {k: v for k, v in _RAW["problem"].items() if k != "setting"}
    problem = LinearProblem(**values, horizon=ROUNDS)
    return problem.simulate(reward_param=_RAW["truth"]["reward_param"])


FAMILIES = {"drawn-contexts": _drawn, "fixed-arms": _fixed}


def _play(name, family, url, seed):
    """A study of ``name`` on the family's declared problem (its truth attached), answered ROUNDS times
    from a seeded environment, reloaded midway, checked against a twin learner and its certificate each
    round; returns the study (open) and the twin."""
    sim = FAMILIES[family]()
    study = create_study(f"{name}-{seed}", name, sim, storage=url, seed=seed, snapshot_every=EVERY)
    promising = CONTEXTUAL[name].guarantee != "none"
    twin = make_learner(name, study.info, learner_rng(RunKey(seed, 0, name, 0)))
    env = sim.instance("conservative-linear").environment(np.random.default_rng(100 + seed))
    for i in range(ROUNDS):
        if i == ROUNDS // 2:  # a new process: load (snapshot, then the stored contexts since) and go on
            study.close()
            study = load_study(f"{name}-{seed}", url)
        ctx = env.context()
        q = study.ask(ctx) if family == "drawn-contexts" else study.ask()
        cert = study.learner.certificate()
        d = twin.ask(ctx)
        assert q.arm == d.arm, (name, family, seed, i)
        record = json.loads(_row(url, study.name, q.id))["record"]
        if promising:
            assert cert is not None and cert.covers(q.decision), (name, seed, i, cert)
            if cert.kind == "safe-set":  # the baseline's action
                assert q.arm == ctx.baseline and record["baseline_played"]
            else:  # xi_t >= 0: the pessimistic margin after the action stays above the limit
                xi = -float(cert.bound[0])
                assert xi >= -1e-9 and record["pessimistic_margin"] == pytest.approx(xi, abs=1e-12)
        else:
            assert cert is None
        obs = env.play(q.decision)
        study.tell(q.id, {"reward": obs.reward})
        twin.tell(d, Observation(reward=obs.reward))
    return study, twin


def _row(url, study, seq):
    with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
        (text,) = conn.execute(
            "SELECT decision_json FROM sb_queries WHERE study = ? AND seq = ?", (study, seq)
        ).fetchone()
    conn.close()
    return text


def _assert_stored_as_data(path, study):
    """Every stored row of ``study`` is JSON; its snapshot is the data format (magic, JSON header, numeric
    arrays): never a pickle."""
    conn = sqlite3.connect(path)
    try:
        config, info = conn.execute(
            "SELECT config_json, info_json FROM sb_studies WHERE name = ?", (study,)
        ).fetchone()
        json.loads(config), json.loads(info)
        rows = conn.execute(
            "SELECT decision_json, observation_json FROM sb_queries WHERE study = ?", (study,)
        ).fetchall()
        assert len(rows) == ROUNDS
        for decision, observation in rows:
            stored = json.loads(decision)
            assert set(stored["context"]) == {"arms", "baseline", "baseline_reward"}
            json.loads(observation)
        (state,) = conn.execute("SELECT state FROM sb_snapshots WHERE study = ?", (study,)).fetchone()
    finally:
        conn.close()
    raw = zlib.decompress(base64.b64decode(state))
    assert raw.startswith(_MAGIC) and not raw.startswith(b"\x80")  # (a pickle opens with PROTO, 0x80)
    (size,) = struct.unpack("<Q", raw[len(_MAGIC) : len(_MAGIC) + 8])
    header = json.loads(raw[len(_MAGIC) + 8 : len(_MAGIC) + 8 + size])
    assert header["learner"] == study.rsplit("-", 1)[0] and header["seq"] == ROUNDS - ROUNDS % EVERY
    for spec in (a["dtype"] for a in header["arrays"]):  # (numbers only: plain or numba's live records)
        parts = [spec] if isinstance(spec, str) else [f for _, f in spec["fields"]]
        assert all(np.dtype(p).kind in "fiub" for p in parts), spec


#: (learner, family) pairs that cannot start, and why: the fixed-arms LinearProblem verifies every round
#: (no checkpoint to declare), so CLUCB2's checkpoint variant refuses it (and says to use clucb2).
REFUSED = {("clucb2-checkpoint", "fixed-arms"): "checkpoint"}


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("name", sorted(CONTEXTUAL))
def test_a_contextual_study_keeps_its_certificate_replays_and_stores_data(name, family, tmp_path):
    if (name, family) in REFUSED:
        with pytest.raises(ConfigError, match=REFUSED[name, family]):
            create_study("refused", name, FAMILIES[family](), storage=f"sqlite:///{tmp_path / 's.db'}")
        return
    url = f"sqlite:///{tmp_path / 's.db'}"
    promising = CONTEXTUAL[name].guarantee != "none"
    violations = explored = 0
    for seed in range(REPLICATES):
        study, twin = _play(name, family, url, seed)
        rec = study.conservative()
        assert rec["truth"] is True and rec["n_rounds"] == ROUNDS
        violations += rec["violations"]
        explored += sum(not r["baseline_played"] for r in rec["rounds"])
        for r in rec["rounds"]:
            if promising:
                assert r["baseline_played"] or r["pessimistic_margin"] >= -1e-9, r
            if promising and r["verified"] and r["pessimistic_margin"] is not None:
                assert r["pessimistic_margin"] <= r["true_margin"] + 1e-9, (seed, r)
        assert study.verify() == {"n_answered": ROUNDS, "snapshot_seq": ROUNDS - ROUNDS % EVERY,
                                  "identical": True, "ignored": []}  # fmt: skip
        study.close()
        restored = load_study(study.name, url)
        full = load_study(study.name, url, snapshots=False)
        assert restored._replayed == ROUNDS % EVERY and full._replayed == ROUNDS
        assert same_state(restored.learner, full.learner) and same_state(full.learner, twin)
        assert restored.conservative() == rec
        restored.close()
        full.close()
        _assert_stored_as_data(tmp_path / "s.db", study.name)
    assert explored > 0  # (both certificates are exercised: rounds off the baseline's action too)
    if promising:
        assert violations == 0
    elif family == "fixed-arms":  # (the control: LinUCB tries the arms below the floor, and it is seen)
        assert violations > 0
