"""Several processes ask and tell one study at once: no answer is lost, the state equals a serial run."""

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
N_ANSWERS = 24
N_PROCESSES = 3

WORKER = """
import json, sys
import numpy as np
import safebandits as sb
from safebandits.exceptions import ProtocolError

import os, pathlib, time
url, name, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
barrier, n_procs = pathlib.Path(sys.argv[4]), int(sys.argv[5])
inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
sb.make_learner("g-acol", inst.public_info(), np.random.default_rng(0)).ask()  # warm up (compiled code)
study = sb.load_study(name, url)
(barrier / str(os.getpid())).touch()
while len(list(barrier.iterdir())) < n_procs:  # start together, so the processes really contend
    time.sleep(0.01)
told = []
while True:
    if (study.n_answered >= target and len(told) >= 3) or study.done:  # each process answers some
        break
    q = study.ask()
    time.sleep(0.002)  # think: the other processes may ask (and get) the same open query meanwhile
    mean = float(inst.constraint_values[q.arm])
    y = 1.0 if np.random.default_rng([5, q.id]).random() < (1.0 + mean) / 2 else -1.0
    try:
        study.tell(q.id, y)
        told.append(q.id)
    except ProtocolError:  # another process answered this query first
        pass
print(json.dumps(told))
"""


def _answer(inst, arm, qid):
    mean = float(inst.constraint_values[arm])
    return 1.0 if np.random.default_rng([5, qid]).random() < (1.0 + mean) / 2 else -1.0


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def test_concurrent_tellers_lose_no_answer(tmp_path, backend, request):
    if backend == "postgresql":  # (a server the tests start; see conftest.py and pg_server.py)
        url = request.getfixturevalue("pg_url")
    else:
        url = f"sqlite:///{tmp_path / 'c.db'}"
    name = f"c-{uuid.uuid4().hex[:12]}"
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    sb.create_study(name, "g-acol", inst.public_info(), storage=url, seed=3)
    barrier = tmp_path / "ready"
    barrier.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, url, name, str(N_ANSWERS), str(barrier), str(N_PROCESSES)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(N_PROCESSES)
    ]
    told = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        told.append(json.loads(out))
    ids = sorted(i for t in told for i in t)
    assert all(len(t) >= 3 for t in told)  # the answers really came from every process
    study = sb.load_study(name, url)
    rows = study.queries()
    answered = [r["id"] for r in rows if r["observation"] is not None]
    # every successful tell is stored exactly once, and every stored answer was a successful tell
    assert ids == answered == list(range(len(answered))) and len(answered) >= N_ANSWERS
    # the stored history is the one a single uninterrupted process would produce
    ref = sb.make_learner("g-acol", inst.public_info(), sb.learner_rng(sb.RunKey(3, 0, "g-acol", 0)))
    for r in rows:
        d = ref.ask()
        assert d.arm == r["decision"]["arm"]
        if r["observation"] is not None:
            ref.tell(d, sb.Observation(None, np.array([_answer(inst, d.arm, r["id"])])))
    assert study.recommend().arm == ref.recommend(anytime=True).arm
