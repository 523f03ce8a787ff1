"""Incremental studies (issue 30, case 7): loading a study restores the latest snapshot of its learner and
replays only the answers since, and the result is the learner a replay of every answer gives.

For every registered learner (the contextual ones, asked with a context: tests/contract/
test_contextual_studies.py): a study answered by its contract problem's simulator, with a snapshot every
few answers, loads from its snapshot (it replays fewer answers than the snapshot interval), holds the same
state as a full replay (attribute by attribute, :func:`~safebandits.study.snapshot.same_state`), and both
continue alike. A snapshot that is stale, damaged, foreign or malicious is ignored (the study replays
everything, and nothing it holds runs: issue 41); an older database is migrated by a writer and read as it
is by a reader. Learners whose state is a running program do not snapshot (their studies replay).
"""

from __future__ import annotations

import base64
import json
import pickle
import sqlite3
import zlib

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits.cli import cli
from safebandits.exceptions import ConfigError
from safebandits.study.codec import decision_to_dict
from safebandits.study.snapshot import encode_snapshot, library_version, same_state
from safebandits.study.study import StudyIntegrityError
from tests.contract.test_learners import ENTRIES, NAMES, problem_for

EVERY = 5
ANSWERS = 23

#: Learners whose state is a running program (a generator: the transductive pure-exploration learners)
#: or holds an object their constructor does not build (ACOL's last design): they do not snapshot, and
#: their studies replay every answer (docs/storage.md, "Snapshots").
NO_SNAPSHOT = {
    "acol", "beside", "beside-baseline", "beside-practical", "passive", "rage", "xy-diff-only",
    "xy-safe-only",
}  # fmt: skip


def _answer_study(name, url, n, every=EVERY, max_open=1, seed=0, env_seed=1):
    """A study of learner ``name`` on its contract problem, answered ``n`` times (or until done)."""
    entry = ENTRIES[name]
    inst = problem_for(entry)
    info = inst.privileged_info() if entry.privileged else inst.public_info()
    study = sb.create_study(name, name, info, storage=url, seed=seed, snapshot_every=every, max_open=max_open)
    env = inst.environment(np.random.default_rng(env_seed))
    told = 0
    while told < n and not study.done:
        q = study.ask()
        study.tell(q.id, env.play(q.decision))
        told += 1
    return study, env, told


def _sqlite(tmp_path, file="s.db"):
    return f"sqlite:///{tmp_path / file}"


def _snapshot_row(path, name):
    with sqlite3.connect(path) as conn:
        row = conn.execute(
            "SELECT seq, library, check_json, state FROM sb_snapshots WHERE study = ?", (name,)
        )
        out = row.fetchone()
    conn.close()
    return out


@pytest.mark.parametrize("name", NAMES)
def test_a_loaded_study_equals_a_full_replay(name, tmp_path):
    url = _sqlite(tmp_path)
    study, env, told = _answer_study(name, url, ANSWERS)
    study.close()
    restored = sb.load_study(name, url)
    full = sb.load_study(name, url, snapshots=False)
    assert full._replayed == told  # (every decision is one stored query here: max_open = 1)
    snapshots = name not in NO_SNAPSHOT and told >= EVERY
    if snapshots:
        assert restored._snap_seq == told - told % EVERY
        assert restored._replayed == told % EVERY < EVERY
    else:
        assert _snapshot_row(tmp_path / "s.db", name) is None and restored._replayed == told
    assert same_state(restored.learner, full.learner)
    assert restored.summary() == full.summary()
    assert restored._loaded_from == (restored._snap_seq if snapshots else None)
    assert restored.verify() == {
        "n_answered": told,
        "snapshot_seq": restored._snap_seq if snapshots else 0,
        "identical": True if snapshots else None,
        "ignored": [],
    }
    # both continue alike: same queries, same answers stored, same state after
    for _ in range(4):
        if restored.done:
            assert full.done
            break
        q1, q2 = restored.ask(), full.ask()
        assert decision_to_dict(q1.decision) == decision_to_dict(q2.decision) and q1.id == q2.id
        restored.tell(q1.id, env.play(q1.decision))
    full.close()
    full = sb.load_study(name, url, snapshots=False)
    assert same_state(restored.learner, full.learner)
    restored.close()
    full.close()


@pytest.mark.parametrize("name", ["g-acol", "acol", "beside"])
def test_split_batches_snapshot_only_between_decisions(name, tmp_path):
    """Batch decisions split into pulls answered out of order: a snapshot folds in whole decisions only,
    and the loaded study (with pulls of the next decision open) equals a full replay."""
    url = _sqlite(tmp_path)
    entry = ENTRIES[name]
    inst = problem_for(entry)
    study = sb.create_study(name, name, inst.public_info(), storage=url, seed=2, snapshot_every=3, max_open=4)
    env = inst.environment(np.random.default_rng(5))
    for _ in range(40):
        if study.done:
            break
        queries = []
        for _ in range(3):
            try:
                queries.append(study.ask())
            except sb.NoQueryAvailable:
                break
        for q in reversed(queries):
            study.tell(q.id, env.play(q.decision))
    study.close()
    restored, full = sb.load_study(name, url), sb.load_study(name, url, snapshots=False)
    row = _snapshot_row(tmp_path / "s.db", name)
    if row is not None:  # the snapshot's queries are all answered and their decisions complete
        assert restored._snap_seq == row[0] and restored._n_seen >= row[0]
    assert same_state(restored.learner, full.learner)
    assert restored.summary() == full.summary()
    assert [q.to_dict() for q in restored.open_queries] == [q.to_dict() for q in full.open_queries]


def test_loading_cost_does_not_grow_with_the_study(tmp_path):
    """The replay a load does is bounded by the interval, not by the number of answers."""
    url = _sqlite(tmp_path)
    study, _env, told = _answer_study("opb", url, 450, every=50)
    study.close()
    s = sb.load_study("opb", url)
    assert told == 450 and s._replayed == 0 and s._snap_seq == 450
    t = sb.load_study("opb", url, snapshots=False)
    assert t._replayed == 450
    assert same_state(s.learner, t.learner)


def test_snapshot_every_zero_writes_none_and_a_study_without_one_replays(tmp_path):
    url = _sqlite(tmp_path)
    study, _env, told = _answer_study("lc-lucb", url, 12, every=0)
    study.close()
    assert _snapshot_row(tmp_path / "s.db", "lc-lucb") is None
    s = sb.load_study("lc-lucb", url)
    assert s._replayed == told and s.snapshot_every == 0
    assert _snapshot_row(tmp_path / "s.db", "lc-lucb") is None  # (not even after a long read)


def test_a_long_read_stores_a_snapshot_for_the_next_load(tmp_path):
    """A study whose snapshot is missing (written before snapshots, or deleted) gets one from the first
    process that replays it with write access; a read-only process never writes."""
    url = _sqlite(tmp_path)
    study, _env, told = _answer_study("safe-lucb", url, 30, every=10)
    study.close()
    with sqlite3.connect(tmp_path / "s.db") as conn:
        conn.execute("DELETE FROM sb_snapshots")
    conn.close()
    before = (tmp_path / "s.db").read_bytes()
    runner = CliRunner()
    result = runner.invoke(cli, ["study", "status", "safe-lucb", "--storage", url])
    assert result.exit_code == 0, result.output
    assert _snapshot_row(tmp_path / "s.db", "safe-lucb") is None
    assert (tmp_path / "s.db").read_bytes() == before
    sb.load_study("safe-lucb", url).close()
    assert _snapshot_row(tmp_path / "s.db", "safe-lucb")[0] == told
    assert sb.load_study("safe-lucb", url)._replayed == 0


def _replace_state(path, name, state_text=None, **columns):
    with sqlite3.connect(path) as conn:
        if state_text is not None:
            conn.execute("UPDATE sb_snapshots SET state = ? WHERE study = ?", (state_text, name))
        for key, value in columns.items():
            conn.execute(f"UPDATE sb_snapshots SET {key} = ? WHERE study = ?", (value, name))
    conn.close()


def _pack(obj):
    """Text of a snapshot column holding a pickle (the format-1 layout: base64 of zlib of the pickle)."""
    return base64.b64encode(zlib.compress(obj if isinstance(obj, bytes) else pickle.dumps(obj))).decode()


def dotted_name_payload(marker):
    """The snapshot of issue 41: a protocol-4 pickle whose globals are dotted names under an allowed module
    (``safebandits.algorithms.options`` / ``dataclasses.types.CodeType`` and ``...FunctionType``,
    resolved by attribute lookup): it builds a function from a code object and calls it, which creates
    ``marker``."""
    import types

    code = compile(f"open({str(marker)!r}, 'w').close()", "snapshot", "exec")
    fields = (
        code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_nlocals,
        code.co_stacksize, code.co_flags, code.co_code, code.co_consts, code.co_names, code.co_varnames,
        code.co_filename, code.co_name, code.co_qualname, code.co_firstlineno, code.co_linetable,
        code.co_exceptiontable, code.co_freevars, code.co_cellvars,
    )  # fmt: skip

    class Call:
        def __init__(self, func, args):
            self.func, self.args = func, args

        def __reduce__(self):
            return self.func, self.args

        def __call__(self):  # (pickle saves callables only; the unpickler calls what __reduce__ names)
            raise AssertionError

    dotted = {
        types.CodeType: "dataclasses.types.CodeType",
        types.FunctionType: "dataclasses.types.FunctionType",
    }

    class Pickler(pickle._Pickler):
        def save_global(self, obj, name=None):
            if obj in dotted:
                self.save("safebandits.algorithms.options")
                self.save(dotted[obj])
                self.write(pickle.STACK_GLOBAL)
                self.memoize(obj)
                return
            super().save_global(obj, name)

    import io

    buf = io.BytesIO()
    func = Call(types.FunctionType, (Call(types.CodeType, fields), {}))
    Pickler(buf, protocol=4).dump({"learner": Call(func, ()), "arm_counts": {}})
    return buf.getvalue()


def test_the_dotted_name_payload_is_a_real_exploit_of_pickle(tmp_path):
    """(The payload the regression tests store does run code when unpickled: what format 1 did.)"""
    marker = tmp_path / "PWNED"
    pickle.loads(dotted_name_payload(marker))
    assert marker.exists()


@pytest.mark.parametrize("library", ["current", "format-1"])
def test_the_dotted_name_snapshot_runs_nothing_anywhere(library, tmp_path, monkeypatch):
    """Issue 41: the snapshot row holding the dotted-name pickle runs nothing in ``study status``,
    ``study verify``, the dashboard's pages and API, or a load; verify names it as ignored."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from safebandits.dashboard import create_app

    monkeypatch.chdir(tmp_path)
    url = _sqlite(tmp_path)
    study, _env, told = _answer_study("lc-lucb", url, 12, every=4)
    study.close()
    marker = tmp_path / "PWNED"
    version = library_version() if library == "current" else library_version().rsplit("/", 1)[0] + "/1"
    _replace_state(tmp_path / "s.db", "lc-lucb", _pack(dotted_name_payload(marker)), library=version)
    runner = CliRunner()
    status = runner.invoke(cli, ["study", "status", "lc-lucb", "--storage", url])
    assert status.exit_code == 0, status.output
    verify = runner.invoke(cli, ["study", "verify", "lc-lucb", "--storage", url])
    assert verify.exit_code == 0, verify.output
    report = json.loads(verify.output)
    assert report["identical"] is None and report["snapshot_seq"] == 0
    assert [i["seq"] for i in report["ignored"]] == [told] and report["ignored"][0]["reason"]
    client = TestClient(create_app(url), base_url="http://127.0.0.1")
    for path in ("/", "/study/lc-lucb", "/api/v1/studies/lc-lucb", "/api/v1/studies"):
        assert client.get(path).status_code == 200, path
    assert not marker.exists()
    s = sb.load_study("lc-lucb", url)  # (a writer stored a good snapshot in place of the bad one)
    assert s.verify() == {"n_answered": told, "snapshot_seq": told, "identical": True, "ignored": []}
    assert not marker.exists()


def _rewritten(url, name, edit):
    """The text of a snapshot of study ``name``'s current learner after ``edit(learner)``, written as
    the library writes it (so that it passes every check a load makes)."""
    s = sb.load_study(name, url)
    learner = s.learner
    edit(learner)
    meta = {**s._snapshot_meta(s._n_seen), "arm_counts": sorted(map(list, s._arm_counts.items()))}
    text = encode_snapshot(learner, s._new_learner(), meta)
    s.close()
    return text


@pytest.mark.parametrize(
    "damage",
    [
        "pickle",
        "dotted-name",
        "garbage",
        "not-base64",
        "truncated",
        "stale-version",
        "other-learner",
        "wrong-check",
        "beyond-rows",
        "foreign-field",
        "wrong-shape",
    ],
)
def test_a_bad_snapshot_is_ignored_and_named_by_verify(damage, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    url = _sqlite(tmp_path)
    study, _env, told = _answer_study("lc-lucb", url, 20, every=4)
    study.close()
    db = tmp_path / "s.db"
    good = _snapshot_row(db, "lc-lucb")[3]
    if damage == "pickle":  # a format-1 snapshot (written by an older version) under today's label
        _replace_state(db, "lc-lucb", _pack({"learner": [1, 2, 3], "arm_counts": {}}))
    elif damage == "dotted-name":
        _replace_state(db, "lc-lucb", _pack(dotted_name_payload(tmp_path / "PWNED")))
    elif damage == "garbage":
        _replace_state(db, "lc-lucb", base64.b64encode(b"\x00\x01junk").decode())
    elif damage == "not-base64":
        _replace_state(db, "lc-lucb", "not base64 at all!")
    elif damage == "truncated":
        raw = zlib.decompress(base64.b64decode(good))
        _replace_state(db, "lc-lucb", base64.b64encode(zlib.compress(raw[: len(raw) // 2])).decode())
    elif damage == "stale-version":
        _replace_state(db, "lc-lucb", library="0.0.1/1")
    elif damage == "other-learner":  # another study's learner (another seed: other decisions)
        other_url = _sqlite(tmp_path, "other.db")
        other, _e, _t = _answer_study("lc-lucb", other_url, 20, every=4, seed=9, env_seed=3)
        other.close()
        _seq, _lib, _check, text = _snapshot_row(tmp_path / "other.db", "lc-lucb")
        _replace_state(db, "lc-lucb", text)
    elif damage == "wrong-check":
        _replace_state(db, "lc-lucb", check_json='{"arm":0}')
    elif damage == "beyond-rows":
        _replace_state(db, "lc-lucb", seq=told + 7)
    elif damage == "foreign-field":  # an attribute the fresh learner does not have
        _replace_state(db, "lc-lucb", _rewritten(url, "lc-lucb", lambda lr: lr.__dict__.update(extra=1)))
    elif damage == "wrong-shape":

        def grow(learner):
            key = next(k for k, v in vars(learner).items() if isinstance(v, np.ndarray) and v.size > 0)
            setattr(learner, key, np.zeros(getattr(learner, key).size + 1))

        _replace_state(db, "lc-lucb", _rewritten(url, "lc-lucb", grow))
    verify = CliRunner().invoke(cli, ["study", "verify", "lc-lucb", "--storage", url])  # (a reader)
    assert verify.exit_code == 0, verify.output
    report = json.loads(verify.output)
    assert report["identical"] is None and report["snapshot_seq"] == 0
    assert len(report["ignored"]) == 1 and report["ignored"][0]["reason"]
    s = sb.load_study("lc-lucb", url)
    assert not (tmp_path / "PWNED").exists()
    assert s._loaded_from is None and s._replayed == told  # everything replayed: the snapshot was not used
    assert s._ignored == report["ignored"]
    full = sb.load_study("lc-lucb", url, snapshots=False)
    assert same_state(s.learner, full.learner)
    q = s.ask()
    s.tell(q.id, {"reward": 0.5, "constraints": [0.1]})  # the next answer stores a good snapshot
    again = sb.load_study("lc-lucb", url)
    assert again._loaded_from is not None and again._replayed < 4


def test_verify_reports_a_snapshot_that_differs_from_the_replay(tmp_path):
    """A snapshot that passes every check but holds another state (here: an estimate edited by hand)
    is what ``verify`` finds."""
    url = _sqlite(tmp_path)
    study, _env, told = _answer_study("opb", url, 30, every=10)
    study.close()

    def edit(learner):
        _key, value = next(
            (k, v) for k, v in vars(learner).items() if isinstance(v, tuple) and hasattr(v, "_fields")
        )
        field = next(
            f
            for f in value._fields
            if isinstance(getattr(value, f), np.ndarray) and getattr(value, f).dtype.kind == "f"
        )
        array = getattr(value, field)
        array.flat[-1] = np.nextafter(array.flat[-1], np.inf)  # (too small to change the next decision)

    _replace_state(tmp_path / "s.db", "opb", _rewritten(url, "opb", edit))
    s = sb.load_study("opb", url)
    assert s._loaded_from == told  # the edit passes every check a load makes; verify catches it
    with pytest.raises(StudyIntegrityError, match="another learner than its snapshot"):
        s.verify()
    result = CliRunner().invoke(cli, ["study", "verify", "opb", "--storage", url])
    assert result.exit_code != 0 and "another learner" in result.output


def test_study_verify_cli(tmp_path):
    url = _sqlite(tmp_path)
    study, _env, told = _answer_study("g-acol", url, 12, every=5)
    study.close()
    result = CliRunner().invoke(cli, ["study", "verify", "g-acol", "--storage", url])
    assert result.exit_code == 0, result.output
    assert '"identical": true' in result.output and f'"n_answered": {told}' in result.output


@pytest.mark.parametrize("bad", [-1, True, 1.5, "10", 10**7, None])
def test_snapshot_every_is_validated(bad, tmp_path):
    info = sb.make_instance("stagewise/four-arm").public_info()
    with pytest.raises(ConfigError, match="snapshot_every"):
        sb.create_study("s", "opb", info, storage=_sqlite(tmp_path), snapshot_every=bad)
    assert not (tmp_path / "s.db").exists() or "s" not in sb.list_studies(_sqlite(tmp_path))


def test_snapshot_every_cli_option(tmp_path):
    url = _sqlite(tmp_path)
    runner = CliRunner()
    bad = runner.invoke(
        cli,
        ["study", "create", "s", "--algorithm", "opb", "--instance", "stagewise/four-arm",
         "--snapshot-every", "-3", "--storage", url],
    )  # fmt: skip
    assert bad.exit_code == 2
    ok = runner.invoke(
        cli,
        ["study", "create", "s", "--algorithm", "opb", "--instance", "stagewise/four-arm",
         "--snapshot-every", "2", "--storage", url],
    )  # fmt: skip
    assert ok.exit_code == 0, ok.output
    assert sb.load_study("s", url).snapshot_every == 2


def _version_1_database(path):
    """A study database as version 1 wrote it (no sb_snapshots), with one answered study."""
    url = f"sqlite:///{path}"
    study, _env, told = _answer_study("opb", url, 15, every=0)
    study.close()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE sb_snapshots")
        conn.execute("PRAGMA user_version = 1")
    conn.close()
    return url, told


def test_a_version_1_database_is_read_as_it_is_and_migrated_by_a_writer(tmp_path):
    url, told = _version_1_database(tmp_path / "s.db")
    before = (tmp_path / "s.db").read_bytes()
    result = CliRunner().invoke(cli, ["study", "status", "opb", "--storage", url])
    assert result.exit_code == 0, result.output
    assert f'"n_answered": {told}' in result.output
    assert (tmp_path / "s.db").read_bytes() == before
    s = sb.load_study("opb", url)  # a writer: migrates to version 2
    s.close()
    with sqlite3.connect(tmp_path / "s.db") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert "sb_snapshots" in tables


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    every=st.integers(min_value=0, max_value=6),
    plan=st.lists(st.sampled_from(["tell", "reload", "other"]), min_size=1, max_size=30),
)
def test_interleaved_processes_hold_the_state_of_a_full_replay(tmp_path_factory, every, plan):
    """Two study objects on one database (as two processes), each answering and reloading in any order:
    every load equals a full replay, whatever the snapshot interval."""
    url = _sqlite(tmp_path_factory.mktemp("h"))
    inst = problem_for(ENTRIES["lc-lucb"])
    a = sb.create_study("h", "lc-lucb", inst.public_info(), storage=url, seed=4, snapshot_every=every)
    b = sb.load_study("h", url)
    env = inst.environment(np.random.default_rng(0))
    who = [a, b]
    for step in plan:
        if step == "other":
            who.reverse()
        elif step == "reload":
            who[0].close()
            who[0] = sb.load_study("h", url)
        else:
            q = who[0].ask()
            who[0].tell(q.id, env.play(q.decision))
    full = sb.load_study("h", url, snapshots=False)
    for s in who:
        assert same_state(s.learner, full.learner)
        assert s.summary() == full.summary()
    report = sb.load_study("h", url).verify()
    assert report["identical"] is (True if report["snapshot_seq"] else None) and report["ignored"] == []
    for s in (*who, full):
        s.close()


@pytest.fixture(scope="module")
def answered_study(tmp_path_factory):
    url = _sqlite(tmp_path_factory.mktemp("pages"))
    study, _env, _told = _answer_study("opb", url, 17, every=4)
    study.ask()  # one open query
    yield study
    study.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    start=st.integers(min_value=0, max_value=25),
    limit=st.one_of(st.none(), st.integers(min_value=0, max_value=25)),
    answered=st.sampled_from([None, True, False]),
    newest_first=st.booleans(),
)
def test_query_pages_are_slices_of_every_query(answered_study, start, limit, answered, newest_first):
    every = answered_study.queries()
    want = [q for q in every if q["id"] >= start]
    if answered is not None:
        want = [q for q in want if (q["observation"] is not None) == answered]
    if newest_first:
        want = want[::-1]
    if limit is not None:
        want = want[:limit]
    got = answered_study.queries(start, limit, answered=answered, newest_first=newest_first)
    assert got == want


@pytest.mark.parametrize(
    "kwargs", [{"start": -1}, {"start": "x"}, {"limit": -2}, {"limit": 1.5}, {"limit": True}, {"answered": 1}]
)
def test_query_pages_refuse_bad_arguments(answered_study, kwargs):
    with pytest.raises(ConfigError):
        answered_study.queries(**kwargs)


def test_answer_times_and_arms_match_the_queries(answered_study):
    every = answered_study.queries()
    told = [q for q in every if q["observation"] is not None]
    assert answered_study.answer_times() == sorted(q["told_at"] for q in told)
    assert answered_study.answered_arms() == [q["decision"]["arm"] for q in told]


def test_a_long_study_page_draws_thinned_curves(tmp_path):
    """The study page of a long regret study: sums over every pull, drawn at evenly spaced pulls."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from safebandits.dashboard import create_app
    from safebandits.dashboard.views import MAX_CURVE_POINTS, _thinned

    keep = _thinned(5_003)
    assert keep.size <= MAX_CURVE_POINTS and keep[0] == 0 and keep[-1] == 5_002
    assert np.all(np.diff(keep) > 0) and _thinned(7).tolist() == list(range(7))
    url = _sqlite(tmp_path)
    inst = sb.make_instance("stagewise/four-arm", tau=0.5, T=5_000)
    problem = {"instance": "stagewise/four-arm", "params": {"tau": 0.5, "T": 5_000}}
    study = sb.create_study("long", "opb", inst.public_info(), storage=url, seed=0, problem=problem)
    env = inst.environment(np.random.default_rng(0))
    for _ in range(MAX_CURVE_POINTS + 200):
        q = study.ask()
        study.tell(q.id, env.play(q.decision))
    study.close()
    page = TestClient(create_app(url), base_url="http://127.0.0.1").get("/study/long")
    assert page.status_code == 200
    assert "evenly spaced pulls" in page.text and "cumulative violation" in page.text
