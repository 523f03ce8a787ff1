"""Runner: execute_task is a pure function of the task; executors agree whatever the workers."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

from safebandits.algorithms import registry
from safebandits.exceptions import ConfigError
from safebandits.experiments.runner import default_context, execute_task, iter_pool, iter_records, iter_serial
from safebandits.experiments.spec import AlgorithmSpec, expand

METRICS = ("pk", "status", "samples", "correct", "feasible", "recommended", "stopped")


def metrics(records):
    return sorted(tuple(str(r.get(m)) for m in METRICS) for r in records)


def test_execute_task_is_pure(fakes):
    for task in expand(fakes.SPEC, "quick"):
        a, b = execute_task(task), execute_task(task)
        assert [a.get(m) for m in METRICS] == [b.get(m) for m in METRICS]
        assert a["_traces"] == b["_traces"]


def test_budget_hit_is_not_stopped(fakes):
    task = next(t for t in expand(fakes.SPEC, "quick") if t.label == "RR long")
    rec = execute_task(task)
    assert rec["status"] == "ok" and rec["samples"] == task.budget and rec["stopped"] is False


def test_batch_decisions_respect_the_budget(fakes):
    spec = dataclasses.replace(
        fakes.SPEC, algorithms=(AlgorithmSpec(label="B", name=fakes.ROUND_ROBIN, params={"batch": True}),)
    )
    rec = execute_task(expand(spec, "quick", budget=16)[0])
    assert rec["samples"] == 16 and rec["stopped"] is True  # 2 pulls x 4 arms per batch, n_stop=12
    rec = execute_task(expand(spec, "quick", budget=15)[0])
    assert rec["samples"] == 8 and rec["stopped"] is False  # the second batch would exceed 15


def test_random_instances_are_common_across_algorithms(fakes):
    tasks = [
        t for t in expand(fakes.SPEC, "quick", replicates=3) if t.panel == "sphere-n" and t.sweep_value == 6
    ]
    by_rep = {}
    for task in tasks:
        if task.label == "Boom":
            continue
        desc = execute_task(task)["_traces"]["instance"]
        by_rep.setdefault(task.key.replicate, []).append(desc)
    for descs in by_rep.values():
        assert all(d == descs[0] for d in descs)
    assert len({str(d[0]) for d in by_rep.values()}) > 1  # replicates draw different instances


def test_privileged_learners_get_the_privileged_view(fakes):
    seen = {}

    class Spy(fakes.RoundRobin):
        def __init__(self, config, info, rng):
            seen[type(self).__name__] = hasattr(info, "constraint_param")
            super().__init__(config, info, rng)

    class PrivilegedSpy(Spy):
        pass

    registry.register_algorithm("_fake-spy", task="pure_exploration")(Spy)
    registry.register_algorithm("_fake-privileged-spy", task="pure_exploration", privileged=True)(
        PrivilegedSpy
    )
    try:
        spec = dataclasses.replace(
            fakes.SPEC,
            algorithms=(
                AlgorithmSpec(label="S", name="_fake-spy"),
                AlgorithmSpec(label="P", name="_fake-privileged-spy"),
            ),
        )
        records = list(iter_serial(expand(spec, "quick", replicates=1)[:2]))
        assert all(r["status"] == "ok" for r in records)
        assert seen == {"Spy": False, "PrivilegedSpy": True}
    finally:
        registry._REGISTRY.pop("_fake-spy")
        registry._REGISTRY.pop("_fake-privileged-spy")


def test_pool_results_equal_serial_results(fakes):
    tasks = expand(fakes.SPEC, "quick")
    serial = list(iter_serial(tasks))
    pooled = list(iter_records(tasks, workers=2))
    assert metrics(pooled) == metrics(serial)
    assert len(pooled) == len(tasks)
    assert metrics(list(iter_records(tasks[::-1], workers=2))) == metrics(serial)


def test_default_context_is_not_fork():
    assert default_context() in ("forkserver", "spawn")


@pytest.mark.timeout(120)
def test_pool_after_parallel_numba_in_the_parent(fakes):
    """Parent and workers both run numba's threaded (OpenMP) layer: workers must not hang or die.

    With the "fork" start method, children of a process that has used GNU OpenMP abort
    ("fork() called from a process already using GNU OpenMP"); the default context avoids it.
    """
    assert fakes.parallel_sum(np.ones(10_000)) == 10_000
    spec = dataclasses.replace(
        fakes.SPEC,
        algorithms=(AlgorithmSpec(label="P", name=fakes.ROUND_ROBIN, params={"parallel_numba": True}),),
    )
    tasks = expand(spec, "quick")[:4]
    pooled = list(iter_pool(tasks, 2))
    assert all(r["status"] == "ok" for r in pooled)
    assert metrics(pooled) == metrics(iter_serial(tasks))


def test_workers_must_be_positive(fakes):
    with pytest.raises(ConfigError, match="workers"):
        list(iter_records(expand(fakes.SPEC, "quick"), workers=0))


def test_pool_children_get_single_threaded_numerics(monkeypatch):
    from safebandits.experiments.runner import single_threaded_children

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # a user's setting wins
    with single_threaded_children():
        assert os.environ["OPENBLAS_NUM_THREADS"] == "1" and os.environ["NUMBA_NUM_THREADS"] == "1"
        assert os.environ["OMP_NUM_THREADS"] == "3"
    assert "OPENBLAS_NUM_THREADS" not in os.environ and os.environ["OMP_NUM_THREADS"] == "3"
