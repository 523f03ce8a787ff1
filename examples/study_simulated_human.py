"""A persistent study answered by a simulated person, killed with SIGKILL midway and reloaded.

The learner is G-ACOL (Lindner et al. 2022) on the one-dimensional instance with binary feedback: a
person is shown arm ``x`` and answers +1 ("too much") with probability ``(1 + phi^T x) / 2``, else -1.

1. An uninterrupted study runs to completion in this process.
2. The same study (same seed) in another database is run by a worker subprocess, which this process
   kills with SIGKILL once some answers are stored (possibly between an ask and its tell); this
   process then reloads the study from the database and finishes it.
3. The two studies must agree: the same queries, the same answers, the same recommendation.

The simulated person draws the answer to query ``k`` from a generator keyed by ``(seed, k)``: like a
real person, their answer does not depend on whether the program asking was restarted.

Run: ``python examples/study_simulated_human.py`` (prints JSON; exit status 0 when the check passes).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import safebandits as sb

ALGORITHM = "g-acol"
INSTANCE = {"name": "acol/one-dimensional", "noise": "binary", "n_arms": 5}
LEARNER_SEED = 0
HUMAN_SEED = 12


def make_instance() -> sb.LinearCBAIInstance:
    params = {k: v for k, v in INSTANCE.items() if k != "name"}
    return sb.make_instance(INSTANCE["name"], **params)


def human_answer(instance: sb.LinearCBAIInstance, arm: int, query_id: int) -> int:
    """+1 with probability (1 + phi^T x) / 2, else -1 (the person's own randomness, keyed by the query)."""
    p_plus = (1.0 + float(instance.constraint_values[arm])) / 2.0
    return 1 if np.random.default_rng([HUMAN_SEED, query_id]).random() < p_plus else -1


def answer_until_done(study: sb.Study, instance: sb.LinearCBAIInstance, delay: float = 0.0) -> None:
    """The person's loop: look at the open query, think, answer."""
    while not study.done:
        query = study.ask()
        time.sleep(delay)
        study.tell(query.id, human_answer(instance, query.arm, query.id))


def history(study: sb.Study) -> list[tuple[int, dict, dict | None]]:
    return [(q["id"], q["decision"], q["observation"]) for q in study.queries()]


def worker(url: str, delay: float) -> None:
    """Subprocess entry point: answer the stored study until done (or until killed)."""
    answer_until_done(sb.load_study("interrupted", url), make_instance(), delay)


def main(directory: Path, kill_after: int, delay: float) -> dict:
    instance = make_instance()
    info = instance.public_info()

    start = time.perf_counter()
    url_a = f"sqlite:///{directory / 'uninterrupted.db'}"
    uninterrupted = sb.create_study("uninterrupted", ALGORITHM, info, storage=url_a, seed=LEARNER_SEED)
    answer_until_done(uninterrupted, instance)
    wall_uninterrupted = time.perf_counter() - start

    url_b = f"sqlite:///{directory / 'interrupted.db'}"
    sb.create_study("interrupted", ALGORITHM, info, storage=url_b, seed=LEARNER_SEED).close()
    proc = subprocess.Popen([sys.executable, __file__, "--worker", url_b, "--delay", str(delay)])
    watcher = sb.load_study("interrupted", url_b)
    while watcher.n_answered < kill_after and proc.poll() is None:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    killed_at = watcher.n_answered
    pending = watcher.pending

    start = time.perf_counter()
    reloaded = sb.load_study("interrupted", url_b)  # a fresh handle: the learner is rebuilt by replay
    if pending is not None:  # the worker died between ask and tell: the query is still open
        assert reloaded.ask() == pending
    answer_until_done(reloaded, instance)
    wall_reload_and_finish = time.perf_counter() - start

    rec_a, rec_b = uninterrupted.recommend(), reloaded.recommend()
    same = history(uninterrupted) == history(reloaded) and rec_a.arm == rec_b.arm
    return {
        "check": "PASS" if same and proc.returncode == -signal.SIGKILL else "FAIL",
        "killed_with_sigkill": proc.returncode == -signal.SIGKILL,
        "answers_when_killed": killed_at,
        "pending_query_when_killed": None if pending is None else pending.id,
        "queries": uninterrupted.summary()["n_queries"],
        "recommended_arm": {"uninterrupted": rec_a.arm, "interrupted": rec_b.arm},
        "optimal_arm": instance.optimal_arm,
        "same_history": history(uninterrupted) == history(reloaded),
        "wall_s": {
            "uninterrupted": round(wall_uninterrupted, 2),
            "reload_and_finish": round(wall_reload_and_finish, 2),
        },
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument(
        "--dir", type=Path, help="Where to put the databases [default: a temporary directory]."
    )
    parser.add_argument("--kill-after", type=int, default=60, help="Kill the worker after this many answers.")
    parser.add_argument(
        "--delay", type=float, default=0.02, help="The person's thinking time per answer (s)."
    )
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.delay)
        sys.exit(0)
    with tempfile.TemporaryDirectory() as tmp:
        out = main(args.dir or Path(tmp), args.kill_after, args.delay)
    print(json.dumps(out, indent=1))
    sys.exit(0 if out["check"] == "PASS" else 1)
