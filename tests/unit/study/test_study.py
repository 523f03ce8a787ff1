"""Studies: storage round trips, replay equality, answer checks and the registry-wide contract."""

from __future__ import annotations

import json

import numpy as np
import pytest

import safebandits as sb
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.rng import RunKey, learner_rng
from safebandits.study import StudyIntegrityError, info_from_dict, info_to_dict, load_study
from safebandits.study.codec import decision_to_dict
from tests.contract.test_learners import ENTRIES, problem_for


def _url(tmp_path, name="s.db"):
    return f"sqlite:///{tmp_path / name}"


def binary_answer(instance, arm, qid, seed=5):
    mean = float(instance.constraint_values[arm])
    return 1.0 if np.random.default_rng([seed, qid]).random() < (1.0 + mean) / 2 else -1.0


@pytest.fixture
def binary_study(tmp_path):
    inst = sb.make_instance("acol/one-dimensional", noise="binary")
    study = sb.create_study(
        "b", "g-acol", inst.public_info(), {"width": "tuned"}, storage=_url(tmp_path), seed=1
    )
    return inst, study


# -- the info codec ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_info_round_trips_exactly(name):
    entry = ENTRIES[name]
    inst = problem_for(entry)
    info = inst.privileged_info() if entry.privileged else inst.public_info()
    back = info_from_dict(json.loads(json.dumps(info_to_dict(info))))
    assert type(back) is type(info)
    assert json.dumps(info_to_dict(back)) == json.dumps(info_to_dict(info))


def test_info_stored_with_a_derived_cache_still_loads():
    """A study stored before a view's cache became a derived (``init=False``) field held it as a field
    (the decision set's ``_cache``); loading it drops the key and rebuilds the view from its init fields."""
    inst = sb.make_instance("safelucb/karm", np.random.default_rng(0), K=5, d=3, condition="margin")
    data = json.loads(json.dumps(info_to_dict(inst.public_info())))
    assert "_cache" not in data["decision_set"]  # (not written any more)
    data["decision_set"]["_cache"] = {"('safe-lucb', b'x', (3, 3), 0.5)": [1.0, 2.0]}  # as stored before
    back = info_from_dict(data)
    assert back.decision_set._cache == {}
    assert json.dumps(info_to_dict(back)) == json.dumps(info_to_dict(inst.public_info()))


# -- every registered learner runs as a study ----------------------------------------------------
# (The contextual learners, asked with a context, have their own study contract:
# tests/contract/test_contextual_studies.py.)
@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_every_algorithm_runs_as_a_study(name, tmp_path):
    """Decisions through the database, with a reload midway, equal an uninterrupted learner's."""
    entry = ENTRIES[name]
    inst = problem_for(entry)
    info = inst.privileged_info() if entry.privileged else inst.public_info()
    url = _url(tmp_path)
    study = sb.create_study("s", name, info, storage=url, seed=7)
    ref = entry.cls(entry.config(), info, learner_rng(RunKey(7, 0, name, 0)))
    env, env_ref = inst.environment(np.random.default_rng(3)), inst.environment(np.random.default_rng(3))
    asked = 0
    for i in range(8):
        if i == 4:  # a new process would do the same: load and replay
            study.close()
            study = load_study("s", url)
        if study.done:
            assert getattr(ref, "done", False)
            break
        q = study.ask()
        d = ref.ask()
        assert q.id == i and decision_to_dict(q.decision) == decision_to_dict(d)
        study.tell(q.id, env.play(q.decision))
        ref.tell(d, env_ref.play(d))
        asked += 1
    summary = study.summary()
    json.dumps(summary, allow_nan=False)
    assert summary["n_answered"] == asked == summary["n_queries"] and summary["n_samples"] == ref.n_samples
    assert study.recommend().n_samples == ref.n_samples
    if entry.task == "pure_exploration":
        assert study.recommend().arm == ref.recommend(anytime=True).arm


def test_run_to_completion_and_reload_equals_uninterrupted(tmp_path):
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    info = inst.public_info()
    url = _url(tmp_path)
    arms = []
    for interrupted in (False, True):
        name = f"run{int(interrupted)}"
        study = sb.create_study(name, "g-acol", info, storage=url, seed=2)
        played = []
        while not study.done:
            if interrupted and len(played) % 7 == 3:
                study.close()
                study = load_study(name, url)
            q = study.ask()
            if interrupted and len(played) % 5 == 1:  # a restart between ask and tell
                study = load_study(name, url)
                assert study.ask().id == q.id
            played.append(q.arm)
            study.tell(q.id, binary_answer(inst, q.arm, q.id))
        arms.append((played, study.recommend().arm))
    assert arms[0] == arms[1] and len(arms[0][0]) > 10
    assert arms[0][1] == inst.optimal_arm


def test_pending_query_survives_restart(binary_study, tmp_path):
    _inst, study = binary_study
    q = study.ask()
    assert study.ask() == q  # asking again returns the open query
    other = load_study("b", _url(tmp_path))
    assert other.pending == q and other.ask().id == q.id
    other.tell(q.id, 1)
    # the first handle sees the answer given elsewhere
    assert study.pending is None and study.summary()["n_answered"] == 1
    with pytest.raises(ProtocolError, match="already told"):
        study.tell(q.id, -1)


# -- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("qid", "answer", "match"),
    [
        (5, 1, "no query 5"),
        ("x", 1, "non-negative integer"),
        (-1, 1, "non-negative integer"),
        (0, float("nan"), "finite"),
        (0, float("inf"), "finite"),
        (0, 0.5, r"\+1 or -1"),
        (0, 0, r"\+1 or -1"),
        (0, [1, -1], "shape"),
        (0, {"constraints": [1.0, 1.0]}, "shape"),
        (0, {"reward": 1.0, "constraints": [1.0]}, "no reward"),
        (0, {"constraint": [1.0]}, "Unknown key"),
        (0, {}, "no constraint values"),
        (0, "1", "must be a number"),
        (0, True, "must be a number"),
    ],
)
def test_bad_answers_refused_and_nothing_stored(binary_study, qid, answer, match):
    _inst, study = binary_study
    study.ask()
    with pytest.raises(ConfigError, match=match):
        study.tell(qid, answer)
    assert study.queries()[0]["observation"] is None and study.summary()["n_answered"] == 0
    study.tell(0, -1)  # the study still works
    assert study.summary()["n_answered"] == 1


def test_told_twice_refused(binary_study):
    _inst, study = binary_study
    q = study.ask()
    study.tell(q.id, 1)
    with pytest.raises(ProtocolError, match="already told"):
        study.tell(q.id, 1)
    assert [r["observation"] for r in study.queries()] == [{"reward": None, "constraints": [1.0]}]


def test_an_unknown_query_id_is_its_own_error(binary_study):
    # (the HTTP API maps it to 404 unknown_query without listing the study's queries first)
    from safebandits.study import UnknownQuery

    _inst, study = binary_study
    study.ask()
    with pytest.raises(UnknownQuery, match=r"has no query 5 \(queries 0\.\.0 were asked\)") as info:
        study.tell(5, -1)
    assert isinstance(info.value, ConfigError)
    assert study.summary()["n_answered"] == 0


def test_a_learner_observing_otherwise_is_checked_against_its_own_spec(binary_study, monkeypatch):
    # The answer is checked once against what the study observes; a learner whose own spec differs (a
    # plugin's) is checked against it as well, before anything is stored.
    from safebandits.algorithms import ObservationSpec

    _inst, study = binary_study
    q = study.ask()
    own = ObservationSpec(False, 1, "bounded", (0.0, 1.0))
    monkeypatch.setattr(study.learner, "observation_spec", lambda: own)
    with pytest.raises(ConfigError, match=r"told to GACOL must be numbers in \[0, 1\]"):
        study.tell(q.id, -1)  # binary: the study's spec accepts it, the learner's does not
    assert study.summary()["n_answered"] == 0
    study.tell(q.id, 1)
    assert study.summary()["n_answered"] == 1


def test_bad_batch_answers(tmp_path):
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=4)
    study = sb.create_study("a", "acol", inst.public_info(), storage=_url(tmp_path), seed=0)
    q = study.ask()
    n = q.counts
    assert q.is_batch
    for bad, match in [
        ({"constraint_sums": [[0.0]] * 2}, "shape"),
        ({"constraint_sums": (n[:, None] + 0.5).tolist()}, "sums of"),
        ({"constraint_sums": (n[:, None] + 2.0).tolist()}, "sums of"),  # |sum| > count
        ({"counts": (n + 1).tolist(), "constraint_sums": n[:, None].tolist()}, "differ"),
        ({"constraint_sums": n[:, None].tolist(), "reward_sums": [0.0] * 4}, "no rewards"),
        (1.0, "per-arm sums"),
    ]:
        with pytest.raises(ConfigError, match=match):
            study.tell(q.id, bad)
    assert study.summary()["n_answered"] == 0
    assert load_study("a", _url(tmp_path)).ask() == q  # the open batch query survives a restart
    study.tell(q.id, {"constraint_sums": n[:, None].tolist()})  # every pull answered +1
    assert study.summary()["n_samples"] == int(n.sum())


@pytest.mark.parametrize(
    ("answer", "match"),
    [
        ({"constraints": [0.1]}, "no reward"),
        ({"reward": 0.3}, "no constraint values"),
        ({"reward": 1.0, "constraints": [0.0, 1.0]}, "shape"),
        ({"reward": float("nan"), "constraints": [0.1]}, "finite"),
        (0.3, "ambiguous"),
        # the four-arm instance has Bernoulli feedback: rewards and costs are 0 or 1
        ({"reward": 0.3, "constraints": [0.0]}, "0 or 1"),
        ({"reward": 1.0, "constraints": [-1.0]}, "0 or 1"),
        ({"reward": "1", "constraints": [0.0]}, "must be a number"),
        ({"reward": 1.0, "constraints": ["0"]}, "must be numbers"),
    ],
)
def test_bad_answers_stagewise(tmp_path, answer, match):
    inst = sb.make_instance("stagewise/four-arm", tau=0.5, T=50)
    study = sb.create_study("w", "opb", inst.public_info(), storage=_url(tmp_path), seed=0)
    q = study.ask()
    with pytest.raises(ConfigError, match=match):
        study.tell(q.id, answer)
    study.tell(q.id, {"reward": 1.0, "constraints": [0.0]})


def test_create_errors(tmp_path):
    inst = sb.make_instance("acol/one-dimensional")
    url = _url(tmp_path)
    sb.create_study("x", "g-acol", inst.public_info(), storage=url, seed=0)
    with pytest.raises(ConfigError, match="already exists"):
        sb.create_study("x", "g-acol", inst.public_info(), storage=url, seed=0)
    assert (
        sb.create_study("x", "acol", inst.public_info(), storage=url, load_if_exists=True).algorithm
        == "g-acol"
    )
    with pytest.raises(ConfigError, match="No study named 'y'"):
        load_study("y", url)
    with pytest.raises(ConfigError, match="Unknown algorithm"):
        sb.create_study("z", "nope", inst.public_info(), storage=url)
    with pytest.raises(ConfigError, match=r"needs a .stagewise. .*given a CBAIInfo"):
        sb.create_study("z", "lc-lucb", inst.public_info(), storage=url)
    with pytest.raises(ConfigError, match="no parameter"):
        sb.create_study("z", "g-acol", inst.public_info(), {"bogus": 1}, storage=url)
    with pytest.raises(ConfigError, match="database URL"):
        sb.create_study("z", "g-acol", inst.public_info(), storage=str(tmp_path / "f.db"))
    with pytest.raises(ConfigError, match="seed"):
        sb.create_study("z", "g-acol", inst.public_info(), storage=url, seed=-1)


def test_done_study_refuses_ask(binary_study):
    inst, study = binary_study
    while not study.done:
        q = study.ask()
        study.tell(q.id, binary_answer(inst, q.arm, q.id))
    with pytest.raises(ProtocolError, match="done"):
        study.ask()
    assert study.recommend().final


def test_edited_database_detected(binary_study, tmp_path):
    import sqlite3

    _inst, study = binary_study
    q = study.ask()
    study.tell(q.id, 1)
    with sqlite3.connect(tmp_path / "s.db") as conn:
        conn.execute("UPDATE sb_queries SET decision_json = ? WHERE seq = 0", (json.dumps({"arm": 99}),))
    with pytest.raises(StudyIntegrityError, match="replaying query 0"):
        load_study("b", _url(tmp_path))


def test_sqlalchemy_backend_on_sqlite(tmp_path):
    pytest.importorskip("sqlalchemy")
    from safebandits.study import SQLAlchemyStorage

    inst = sb.make_instance("acol/one-dimensional", noise="binary")
    store = SQLAlchemyStorage(f"sqlite:///{tmp_path / 'sa.db'}")
    study = sb.create_study("sa", "g-acol", inst.public_info(), storage=store, seed=0)
    q = study.ask()
    study.tell(q.id, -1)
    again = load_study("sa", _url(tmp_path, "sa.db"))  # the same file through the stdlib backend
    assert again.summary()["n_answered"] == 1 and again.ask().id == 1


def test_load_from_missing_file_creates_nothing(tmp_path):
    with pytest.raises(ConfigError, match="No study database"):
        load_study("s", _url(tmp_path, "typo.db"))
    assert not (tmp_path / "typo.db").exists()


def test_pool_study_refuses_impossible_labels(tmp_path):
    # Studies run the learners' own observation check: pool labels are 0 / 1, summed per record.
    from safebandits.classification import half_circle_pool
    from safebandits.classification.problem import PoolInstance

    inst = PoolInstance(half_circle_pool(np.random.default_rng(0), n_points=40), 0.15)
    study = sb.create_study("p", "fdr-passive", inst.public_info(), storage=_url(tmp_path), seed=0,
                            config={"n_initial": 5, "batch_size": 3})  # fmt: skip
    q = study.ask()
    sums = np.zeros((q.counts.size, 1))
    first = int(np.flatnonzero(q.counts)[0])
    for bad, match in [(0.5, "sums of 0 / 1"), (2.0, "sums of 0 / 1"), (np.nan, "finite")]:
        wrong = sums.copy()
        wrong[first, 0] = bad
        with pytest.raises(ConfigError, match=match):
            study.tell(q.id, {"constraint_sums": wrong.tolist()})
    assert study.summary()["n_answered"] == 0
    sums[first, 0] = 1.0
    study.tell(q.id, {"constraint_sums": sums.tolist()})
    assert study.summary()["n_answered"] == 1
