"""Three annotators answer one batch study at once: several open queries per study.

ACOL (Lindner et al. 2022) asks for a whole round of pulls at a time. Created with ``max_open=3``, the
study splits each round into single pulls and hands out up to three at once, so three people (here three
processes, each a simulated annotator) work in parallel. Each loop: ``ask`` a pull, look at it, answer
with ``tell``. The learner is told a round once every pull of it is answered, so whatever the order of
the answers, the study's state equals a replay of the stored answers -- checked at the end against a
fresh ``load_study`` and against one person answering the same queries alone.

Run: ``python examples/study_three_annotators.py`` (prints JSON; exit status 0 when the check passes).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import safebandits as sb
from safebandits.exceptions import ProtocolError
from safebandits.study.study import NoQueryAvailable

INSTANCE = {"name": "acol/one-dimensional", "noise": "binary", "n_arms": 5}


def make_instance() -> sb.LinearCBAIInstance:
    return sb.make_instance(INSTANCE["name"], noise=INSTANCE["noise"], n_arms=INSTANCE["n_arms"])


def answer(instance: sb.LinearCBAIInstance, arm: int, query_id: int) -> int:
    """An annotator's answer to query ``query_id`` about ``arm``: +1 with probability (1 + phi^T x) / 2."""
    p_plus = (1.0 + float(instance.constraint_values[arm])) / 2.0
    return 1 if np.random.default_rng([21, query_id]).random() < p_plus else -1


def annotator(url: str, name: str, results: mp.Queue) -> None:
    instance = make_instance()
    study = sb.load_study("labels", url)
    told = []
    while not study.done:
        try:
            query = study.ask()  # a pull nobody else holds
        except NoQueryAvailable:  # the others hold every pull that can be handed out: wait
            time.sleep(0.01)
            continue
        except ProtocolError:  # the study finished meanwhile
            break
        time.sleep(0.002)  # look at the query
        study.tell(query.id, answer(instance, query.arm, query.id))
        told.append(query.id)
    results.put((name, told))


def main(directory: Path) -> dict:
    instance = make_instance()
    url = f"sqlite:///{directory / 'labels.db'}"
    sb.create_study("labels", "acol", instance.public_info(), storage=url, seed=0, max_open=3).close()
    results: mp.Queue = mp.Queue()
    procs = [mp.Process(target=annotator, args=(url, name, results)) for name in ("ann", "bob", "cem")]
    for p in procs:
        p.start()
    told = dict(results.get(timeout=300) for _ in procs)
    for p in procs:
        p.join()

    study = sb.load_study("labels", url)  # a replay of the stored answers
    ids = sorted(q for qs in told.values() for q in qs)
    alone_url = f"sqlite:///{directory / 'alone.db'}"
    alone = sb.create_study("labels", "acol", instance.public_info(), storage=alone_url, seed=0, max_open=3)
    while not alone.done:
        q = alone.ask()
        alone.tell(q.id, answer(instance, q.arm, q.id))
    same = alone.recommend() == study.recommend() and (
        [q["decision"] for q in alone.queries()] == [q["decision"] for q in study.queries()]
    )
    no_loss = ids == [q["id"] for q in study.queries()] and all(q["observation"] for q in study.queries())
    return {
        "answers_per_annotator": {k: len(v) for k, v in told.items()},
        "queries": len(study.queries()),
        "no_answer_lost": no_loss,
        "same_as_one_person": same,
        "recommended_arm": study.recommend().arm,
        "check": "PASS" if (no_loss and same and study.done) else "FAIL",
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, help="Directory for the databases (default: a temporary one).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = main(args.dir or Path(tmp))
    print(json.dumps(out, indent=1))
    sys.exit(0 if out["check"] == "PASS" else 1)
