"""Several open queries: a batch study answered by three processes at once loses no answer and its state
equals a replay of the stored answers (and a serial run told the same answers)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

import safebandits as sb

N_PROCESSES = 3
N_ARMS = 5

WORKER = """
import json, os, pathlib, sys, time
import numpy as np
import safebandits as sb
from safebandits.exceptions import ProtocolError
from safebandits.study.study import NoQueryAvailable

url, barrier, n_procs = sys.argv[1], pathlib.Path(sys.argv[2]), int(sys.argv[3])
held = barrier.parent / "held"
inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
study = sb.load_study("batch", url)
(barrier / str(os.getpid())).touch()
while len(list(barrier.iterdir())) < n_procs:  # start together, so the processes really contend
    time.sleep(0.01)
told = []
while not study.done:
    try:
        q = study.ask()
    except NoQueryAvailable:  # the others hold every query that can be handed out
        time.sleep(0.005)
        continue
    except ProtocolError:  # done meanwhile
        break
    if not told:  # every process holds an open query at once before any answers: no process can be left out
        (held / str(os.getpid())).touch()
        while len(list(held.iterdir())) < n_procs:
            time.sleep(0.005)
    time.sleep(0.002)  # look at the query and think (the other processes ask meanwhile)
    mean = float(inst.constraint_values[q.arm])
    y = 1 if np.random.default_rng([7, q.id]).random() < (1.0 + mean) / 2 else -1
    study.tell(q.id, y)
    told.append(q.id)
print(json.dumps(told))
"""


def _answer(inst, arm, qid):
    mean = float(inst.constraint_values[arm])
    return 1 if np.random.default_rng([7, qid]).random() < (1.0 + mean) / 2 else -1


def _instance():
    return sb.make_instance("acol/one-dimensional", noise="binary", n_arms=N_ARMS)


def test_three_processes_answer_one_batch_study(tmp_path):
    inst = _instance()
    url = f"sqlite:///{tmp_path / 'b.db'}"
    sb.create_study("batch", "acol", inst.public_info(), storage=url, seed=3, max_open=3).close()
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    (tmp_path / "held").mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, url, str(barrier), str(N_PROCESSES)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(N_PROCESSES)
    ]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    told = [json.loads(o) for o in outs]
    assert all(told), "each process answered some queries"
    flat = sorted(q for t in told for q in t)
    assert len(flat) == len(set(flat)), "no query was answered twice"

    study = sb.load_study("batch", url)  # a replay of the stored answers
    assert study.done
    queries = study.queries()
    assert flat == [q["id"] for q in queries], "every stored query was answered by exactly one process"
    for q in queries:  # no answer lost or changed
        assert q["observation"]["constraints"] == [_answer(inst, q["decision"]["arm"], q["id"])]

    # A serial run told the same answers through the API reaches the same state.
    serial_url = f"sqlite:///{tmp_path / 's.db'}"
    serial = sb.create_study("batch", "acol", inst.public_info(), storage=serial_url, seed=3, max_open=3)
    while not serial.done:
        q = serial.ask()
        serial.tell(q.id, _answer(inst, q.arm, q.id))
    assert serial.recommend() == study.recommend()
    assert serial.summary()["confidence_bounds"] == study.summary()["confidence_bounds"]
    assert [q["decision"] for q in serial.queries()] == [q["decision"] for q in queries]
