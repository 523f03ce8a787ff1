"""Several open queries per study: hand-out, expiry and re-issue, answers in any order, replay."""

from __future__ import annotations

import numpy as np
import pytest

import safebandits as sb
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.study.study import NoQueryAvailable


def _setup(tmp_path, algorithm="acol", **kw):
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    url = f"sqlite:///{tmp_path / 's.db'}"
    return inst, url, sb.create_study("s", algorithm, inst.public_info(), storage=url, seed=1, **kw)


def _y(inst, arm, qid):
    return 1 if np.random.default_rng([2, qid]).random() < (1 + inst.constraint_values[arm]) / 2 else -1


def test_batch_is_handed_out_in_pulls_up_to_the_limit(tmp_path):
    inst, url, study = _setup(tmp_path, max_open=3)
    qs = [study.ask() for _ in range(3)]
    assert [q.id for q in qs] == [0, 1, 2] and all(q.part_of == 0 and q.arm is not None for q in qs)
    assert qs[0].parts == sum(1 for q in study.queries())
    with pytest.raises(NoQueryAvailable, match="limit of 3"):
        study.ask()
    assert [q.id for q in study.open_queries] == [0, 1, 2]
    # Answers in any order, from another process (another Study object on the same database).
    other = sb.load_study("s", url)
    other.tell(2, _y(inst, qs[2].arm, 2))
    assert study.ask().id == 3
    with pytest.raises(ProtocolError, match="already told"):
        study.tell(2, 1)
    with pytest.raises(ConfigError):
        study.tell(0, 0.5)  # same checks as a single-pull tell: binary feedback is +-1


def test_expired_queries_are_reissued_first(tmp_path):
    _inst, _url, study = _setup(tmp_path, max_open=2)
    a, b = study.ask(), study.ask()
    assert study.expire(older_than=3600) == []
    assert study.expire(ids=[a.id]) == [a.id]
    assert [q.id for q in study.open_queries] == [b.id]
    again = study.ask()
    assert again.id == a.id and again.asked_at >= a.asked_at
    study.tell(a.id, 1)  # the original annotator's late answer is still accepted once
    with pytest.raises(ProtocolError):
        study.tell(a.id, -1)


@pytest.mark.slow  # the three-process test and the interleaving property cover it in the default run
def test_state_equals_replay_and_serial_run(tmp_path):
    inst, url, study = _setup(tmp_path, max_open=4)
    order = np.random.default_rng(0)
    while not study.done:
        held = []
        while True:
            try:
                held.append(study.ask())
            except NoQueryAvailable:
                break
        for q in order.permutation(held):  # answer the held queries in a random order
            study.tell(q.id, _y(inst, q.arm, q.id))
    replay = sb.load_study("s", url)
    assert replay.done and replay.recommend() == study.recommend()
    serial_url = f"sqlite:///{tmp_path / 'serial.db'}"
    serial = sb.create_study("s", "acol", inst.public_info(), storage=serial_url, seed=1, split_batches=True)
    while not serial.done:
        q = serial.ask()
        serial.tell(q.id, _y(inst, q.arm, q.id))
    assert serial.recommend() == study.recommend()
    assert serial.summary()["confidence_bounds"] == replay.summary()["confidence_bounds"]


def test_sequential_learner_has_one_open_query(tmp_path):
    _inst, _url, study = _setup(tmp_path, algorithm="g-acol", max_open=3)
    q = study.ask()
    with pytest.raises(NoQueryAvailable, match="sequential"):
        study.ask()
    study.tell(q.id, 1)
    assert study.ask().id == q.id + 1


def test_settings_are_stored_and_checked(tmp_path):
    inst, url, _study = _setup(tmp_path, max_open=2, problem={"instance": "acol/one-dimensional"})
    again = sb.load_study("s", url)
    assert (again.max_open, again.split_batches, again.problem) == (
        2,
        True,
        {"instance": "acol/one-dimensional"},
    )
    assert again.export()["settings"]["max_open"] == 2
    for bad in (0, 1.5, True):
        with pytest.raises(ConfigError, match="max_open"):
            sb.create_study("t", "acol", inst.public_info(), storage=url, max_open=bad)


# -- property: any interleaving of asks, answers and expiries from two processes equals a serial run -------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _real_answer(qid):
    return {"constraints": [float(np.random.default_rng([3, qid]).normal())]}


def _fake_batch_study(url, name):
    # Imported here, not at collection: importing registers the fake learners, which other modules'
    # parametrisations over the registry must not see.
    from tests.unit.experiments import fakes

    info = sb.make_instance("acol/irrelevant-dimensions", d=3).public_info()
    assert fakes.ROUND_ROBIN
    cfg = {"batch": True, "n_stop": 24}
    return sb.create_study(name, fakes.ROUND_ROBIN, info, cfg, storage=url, seed=5, max_open=3)


@settings(max_examples=15, deadline=None)
@given(ops=st.lists(st.integers(0, 59), max_size=40))
def test_any_interleaving_equals_a_serial_run(tmp_path_factory, ops):
    from tests.unit.experiments import fakes

    fakes.register()
    try:
        _interleaving(tmp_path_factory.mktemp("prop"), ops)
    finally:
        fakes.unregister()


def _interleaving(d, ops):
    url = f"sqlite:///{d / 's.db'}"
    handles = [_fake_batch_study(url, "p"), sb.load_study("p", url)]
    held = []
    for op in ops:
        kind, pick = op % 3, op // 3
        h = handles[pick % 2]
        if kind == 0:
            try:
                held.append(h.ask().id)
            except ProtocolError:  # none available (NoQueryAvailable), or done
                pass
        elif held:
            qid = held[pick % len(held)]
            if kind == 1:
                try:
                    h.tell(qid, _real_answer(qid))
                except ProtocolError:  # answered already (an expired query answered twice)
                    pass
                held.remove(qid)
            else:
                h.expire(ids=[qid])
    study = handles[0]
    for qid in held:
        try:
            study.tell(qid, _real_answer(qid))
        except ProtocolError:
            pass
    while not study.done:
        q = study.ask()
        study.tell(q.id, _real_answer(q.id))
    serial = _fake_batch_study(f"sqlite:///{d / 'serial.db'}", "p")
    while not serial.done:
        q = serial.ask()
        serial.tell(q.id, _real_answer(q.id))
    replay = sb.load_study("p", url)
    for other in (replay, handles[1]):
        assert np.array_equal(other.learner.sums, serial.learner.sums)  # bit for bit: sums in id order
        assert np.array_equal(other.learner.counts, serial.learner.counts)
    assert [q["decision"] for q in replay.queries()] == [q["decision"] for q in serial.queries()]


def test_cli_max_open_and_expire(tmp_path):
    import json

    from click.testing import CliRunner

    from safebandits.cli import cli

    url = f"sqlite:///{tmp_path / 'c.db'}"
    run = CliRunner()
    args = ["study", "create", "c", "--algorithm", "acol", "--instance", "acol/one-dimensional",
            "--set", "noise=binary", "--set", "n_arms=5", "--max-open", "2", "--storage", url]  # fmt: skip
    res = run.invoke(cli, args)
    assert res.exit_code == 0, res.output
    ids = [
        json.loads(run.invoke(cli, ["study", "ask", "c", "--storage", url]).output)["id"] for _ in range(2)
    ]
    assert ids == [0, 1]
    res = run.invoke(cli, ["study", "expire", "c", "--storage", url])
    assert json.loads(res.output) == {"expired": [0, 1]}
    study = sb.load_study("c", url)
    assert study.problem["instance"] == "acol/one-dimensional" and study.max_open == 2
