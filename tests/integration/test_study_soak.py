"""Soak: a dashboard-like reader reloads a study again and again while several teller processes answer it.

The reader is a long-lived process that loads the study anew on every round (as the dashboard does on
each request) and keeps the previous copy open until the next one is loaded; the tellers ask and tell,
reopening the study every few answers (each close lets SQLite try to checkpoint and remove the WAL).
Before issue 30 the file check of every load opened and closed the database file with a plain
``open()``, which drops every POSIX lock the process holds on it: the reader then failed with "disk I/O
error" or "database disk image is malformed" within a few hundred answers. Checked: no error in any
process, every successful tell stored exactly once and nothing else stored, and the stored history
equal to a replay by a fresh learner. The default run is short; the ``slow`` one tells a few thousand
answers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest

import safebandits as sb

ROOT = Path(__file__).resolve().parents[2]
INSTANCE = "stagewise/four-arm"
ALGORITHM = "opb"
SEED = 11

TELLER = """
import json, os, pathlib, sys, time
import numpy as np
import safebandits as sb
from safebandits.exceptions import ProtocolError

url, name, n_answers, reopen = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
barrier, n_procs = pathlib.Path(sys.argv[5]), int(sys.argv[6])
inst = sb.make_instance(sys.argv[7])
(barrier / str(os.getpid())).touch()
while len(list(barrier.iterdir())) < n_procs:  # start together, so the processes really contend
    time.sleep(0.01)

def answer(arm, qid):
    rng = np.random.default_rng([7, qid])
    return {"reward": float(rng.random() < inst.arm_rewards[arm]),
            "constraints": [float(rng.random() < float(np.ravel(inst.arm_costs[arm])[0]))]}

told, errors, study = [], [], None
while len(told) < n_answers:
    try:
        if study is None or len(told) % reopen == 0:
            if study is not None:
                study.close()
            study = sb.load_study(name, url)
        q = study.ask()
        try:
            study.tell(q.id, answer(q.arm, q.id))
            told.append(q.id)
        except ProtocolError:  # another process answered this query first
            pass
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
        study = None
        if len(errors) > 5:
            break
print(json.dumps({"told": told, "errors": errors}))
"""

READER = """
import json, pathlib, sys
import safebandits as sb

url, name, stop = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
rounds, errors, previous = 0, [], None
while not stop.exists() or rounds < 3:
    try:
        names = sb.list_studies(url)
        current = sb.load_study(name, url)  # the previous copy is still open meanwhile
        summary = current.summary()
        current.queries()
        assert name in names and summary["n_answered"] >= 0
        if previous is not None:
            previous.close()
        previous = current
        rounds += 1
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
        if len(errors) > 5:
            break
print(json.dumps({"rounds": rounds, "errors": errors}))
"""


def _answer(inst, arm, qid):
    rng = np.random.default_rng([7, qid])
    return float(rng.random() < inst.arm_rewards[arm]), float(
        rng.random() < float(np.ravel(inst.arm_costs[arm])[0])
    )


def soak(url: str, tmp_path: Path, n_tellers: int, per_teller: int, reopen: int) -> None:
    name = f"soak-{uuid.uuid4().hex[:10]}"
    inst = sb.make_instance(INSTANCE)
    sb.create_study(name, ALGORITHM, inst.public_info(), storage=url, seed=SEED).close()
    barrier, stop = tmp_path / "ready", tmp_path / "stop"
    barrier.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, url, name, str(stop)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    tellers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                TELLER,
                url,
                name,
                str(per_teller),
                str(reopen),
                str(barrier),
                str(n_tellers),
                INSTANCE,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(n_tellers)
    ]
    results = []
    try:
        for p in tellers:
            out, err = p.communicate(timeout=1800)
            assert p.returncode == 0, err[-2000:]
            results.append(json.loads(out))
    finally:
        stop.touch()
        out, err = reader.communicate(timeout=600)
    assert reader.returncode == 0, err[-2000:]
    seen = json.loads(out)
    assert seen["errors"] == [], seen["errors"]
    assert seen["rounds"] >= 3
    for r in results:
        assert r["errors"] == [], r["errors"]
        assert len(r["told"]) == per_teller
    told = sorted(i for r in results for i in r["told"])

    study = sb.load_study(name, url)
    rows = study.queries()
    answered = [r["id"] for r in rows if r["observation"] is not None]
    # every successful tell stored exactly once, and nothing else stored
    assert told == answered == list(range(n_tellers * per_teller))
    # the stored history is the one a single uninterrupted learner produces from the same answers
    ref = sb.make_learner(ALGORITHM, inst.public_info(), sb.learner_rng(sb.RunKey(SEED, 0, ALGORITHM, 0)))
    for r in rows:
        d = ref.ask()
        assert d.arm == r["decision"]["arm"], r["id"]
        if r["observation"] is not None:
            reward, cost = _answer(inst, d.arm, r["id"])
            assert r["observation"] == {"reward": reward, "constraints": [cost]}
            ref.tell(d, sb.Observation(reward, np.array([cost])))
    assert study.n_answered == len(answered)
    assert study.learner.n_samples == ref.n_samples
    assert study.summary()["recommendation"]["arm"] == study.recommend().arm
    study.close()


def _url(backend: str, tmp_path: Path, request) -> str:
    if backend == "postgresql":  # (a server the tests start; see conftest.py and pg_server.py)
        return request.getfixturevalue("pg_url")
    return f"sqlite:///{tmp_path / 'soak.db'}"


@pytest.mark.parametrize(
    "backend",
    [pytest.param("sqlite", marks=pytest.mark.slow), pytest.param("postgresql", marks=pytest.mark.slow)],
    # (13-30 s each: the slow run; the concurrency tests of the default run cover lost answers)
)
def test_soak_short(tmp_path, backend, request):
    soak(_url(backend, tmp_path, request), tmp_path, n_tellers=3, per_teller=150, reopen=1)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_soak_thousands_of_answers(tmp_path, backend, request):
    soak(_url(backend, tmp_path, request), tmp_path, n_tellers=4, per_teller=800, reopen=20)
