"""Execute run tasks (serially, in a local process pool or on Dask) and write each result to the store.

:func:`execute_task` is a pure function of its :class:`~safebandits.experiments.spec.RunTask`: the
instance (random families only) is drawn from :func:`~safebandits.rng.instance_rng`, the noise from
:func:`~safebandits.rng.environment_rng` and the learner's randomness from
:func:`~safebandits.rng.learner_rng`, all derived from the task's run key. Results therefore do not
depend on the number of workers or the order in which tasks complete (tested).

Workers only compute (the Dask executor is in :mod:`safebandits.experiments.dask_executor`); the
parent process writes each record into the
:class:`~safebandits.experiments.store.ResultsStore` as soon as it arrives, so an interrupted run
loses at most the runs in flight, and re-running skips every key already stored with status "ok".
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from safebandits.exceptions import ConfigError, SafeBanditsError
from safebandits.experiments.execute import (  # noqa: F401  (defined below the executors; re-exported)
    CLASSIFICATION_METRICS,
    REGRET_METRICS,
    _json_safe,
    execute_task,
    failed_record,
)
from safebandits.experiments.progress import COST_COLUMNS, WARM_UP_FIELD, progress
from safebandits.experiments.spec import RunTask
from safebandits.experiments.store import ResultsStore
from safebandits.plugins import active_plugins, plugin_path

__all__ = [
    "EXECUTORS",
    "RunSummary",
    "default_context",
    "execute_task",
    "failed_record",
    "iter_pool",
    "iter_records",
    "iter_serial",
    "run_tasks",
]


# -- executors -----------------------------------------------------------------------------------


def iter_serial(tasks: Sequence[RunTask]) -> Iterator[dict[str, Any]]:
    """Execute tasks one after the other in this process."""
    for task in tasks:
        yield execute_task(task)


def default_context() -> str:
    """Start method of worker processes: "forkserver" where available, else "spawn".

    Plain ``fork`` is avoided: a parent that has run a parallel numba kernel (or any other threaded
    library) may hold locks that a forked child inherits in a locked state. The forkserver forks
    workers from a clean single-threaded server that has pre-imported safebandits.
    """
    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


# Imported once by the fork server, so that workers start with the registries loaded.
_PRELOAD = (
    "safebandits",
    "safebandits.experiments.runner",
    "safebandits.algorithms.pure_exploration",
    "safebandits.algorithms.regret",
    "safebandits.algorithms.classification",
    "safebandits.problems.registry",
)


def _exit_with_client(client_pid: int, period: float = 1.0) -> None:
    """Worker initializer: exit as soon as the client process is gone (killed, even by SIGKILL).

    Workers of a killed client would otherwise finish their current (possibly long) run for nobody.
    """

    def watch() -> None:
        while True:
            time.sleep(period)
            try:
                os.kill(client_pid, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:  # pragma: no cover - pid reused by another user's process
                os._exit(1)

    threading.Thread(target=watch, name="safebandits-client-watch", daemon=True).start()


#: Thread-pool sizes of the numerical libraries, read once when a process loads them.
_THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)


@contextlib.contextmanager
def single_threaded_children() -> Iterator[None]:
    """While active, processes started from this one load BLAS / OpenMP / numba with one thread.

    ``workers`` processes each running a multi-threaded BLAS on the same cores oversubscribe them: a
    paper-scale ``fdr-german`` sweep took 240 s on 2 workers with the default thread pools and 31 s with
    one thread per worker. A variable the user has set is left as it is. Dask workers get the same
    setting from ``distributed`` itself.
    """
    saved = {v: os.environ.get(v) for v in _THREAD_VARS}
    for v in _THREAD_VARS:
        os.environ.setdefault(v, "1")
    try:
        yield
    finally:
        for v, value in saved.items():
            if value is None:
                os.environ.pop(v, None)
            else:
                os.environ[v] = value


def iter_pool(
    tasks: Sequence[RunTask], workers: int, *, context: str | None = None
) -> Iterator[dict[str, Any]]:
    """Execute tasks in a pool of ``workers`` processes; yield records as they complete.

    At most ``2 * workers`` tasks are in flight, so an interrupted run leaves few unfinished tasks
    and closing the generator early cancels nothing that has not started. Workers run their numerical
    libraries with one thread each (:func:`single_threaded_children`).
    """
    with single_threaded_children():
        yield from _iter_pool(tasks, workers, context=context)


def _iter_pool(tasks: Sequence[RunTask], workers: int, *, context: str | None) -> Iterator[dict[str, Any]]:
    method = context or default_context()
    ctx = mp.get_context(method)
    # Plugins loaded in this process (``--plugin``) reach the workers even if no spec lists them.
    extra = {"plugins": active_plugins(), "plugin_path": plugin_path()}
    if method == "forkserver":
        plugins = sorted({p for t in tasks for p in t.plugins} | set(extra["plugins"]))
        ctx.set_forkserver_preload([*_PRELOAD, *plugins])
    queue = iter(tasks)
    executor = ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=_exit_with_client, initargs=(os.getpid(),)
    )
    try:
        in_flight = set()
        for _, task in zip(range(2 * workers), queue):
            in_flight.add(executor.submit(execute_task, task, **extra))
        while in_flight:
            done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
            for fut in done:
                try:
                    record = fut.result()
                except BrokenProcessPool:
                    raise SafeBanditsError(
                        "A worker process died (crash or out of memory); the runs written so far are "
                        "kept. Re-run the same command to resume, or use --workers 1 to find the run."
                    ) from None
                task = next(queue, None)
                if task is not None:
                    in_flight.add(executor.submit(execute_task, task, **extra))
                yield record
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


#: Executors of :func:`iter_records` and ``safebandits run --executor``.
EXECUTORS = ("local", "dask")


def iter_records(
    tasks: Sequence[RunTask],
    workers: int | None = None,
    *,
    executor: str = "local",
    scheduler: str | None = None,
) -> Iterator[dict[str, Any]]:
    """Execute tasks and yield their records as they complete.

    Parameters
    ----------
    tasks : sequence of RunTask
    workers : int, optional
        ``executor="local"``: serial for one worker (or one task), else a process pool of ``workers``
        processes. ``executor="dask"`` without a scheduler: the worker processes of the
        ``LocalCluster``. ``None`` means ``os.cpu_count()``.
    executor : {"local", "dask"}, default="local"
        ``"dask"`` runs on ``dask.distributed`` (optional extra ``safebandits[distributed]``); see
        :func:`safebandits.experiments.dask_executor.iter_dask`.
    scheduler : str, optional
        Address of a running Dask scheduler (``"tcp://host:8786"``); only with ``executor="dask"``.
    """
    if executor not in EXECUTORS:
        raise ConfigError(
            f"The 'executor' parameter must be one of {', '.join(map(repr, EXECUTORS))}. "
            f"Got {executor!r} instead."
        )
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ConfigError(f"The 'workers' parameter must be a positive integer. Got {workers!r} instead.")
    if executor == "dask":
        from safebandits.experiments.dask_executor import iter_dask

        return iter_dask(tasks, workers=workers, scheduler=scheduler)
    if scheduler is not None:
        raise ConfigError(
            f"The 'scheduler' parameter needs executor='dask' (--executor dask). Got scheduler={scheduler!r} "
            f"with executor={executor!r}."
        )
    n = (os.cpu_count() or 1) if workers is None else workers
    if n == 1 or len(tasks) <= 1:
        return iter_serial(tasks)
    return iter_pool(tasks, min(n, len(tasks)))


# -- orchestration ---------------------------------------------------------------------------------


@dataclass
class RunSummary:
    """What :func:`run_tasks` did."""

    n_tasks: int = 0
    n_skipped: int = 0
    n_skipped_failed: int = 0
    n_ok: int = 0
    n_failed: int = 0
    n_not_stopped: int = 0
    wall_s: float = 0.0
    errors: list[str] = field(default_factory=list)

    def line(self) -> str:
        parts = [f"{self.n_tasks} runs", f"{self.n_skipped} already done"]
        if self.n_skipped_failed:
            parts.append(f"{self.n_skipped_failed} failed before (not retried; --retry-failed)")
        parts += [f"{self.n_ok} ok", f"{self.n_failed} failed", f"{self.n_not_stopped} hit the budget"]
        return ", ".join(parts) + f" in {self.wall_s:.1f} s"


def _note_readings(store: ResultsStore, tasks: Sequence[RunTask]) -> None:
    """Store the fingerprints of the readings of every experiment about to be written (issue 42), so that
    the scoreboard can tell whether a reading predates its data."""
    from safebandits.experiments.readings import note_readings
    from safebandits.experiments.spec import list_experiments

    specs = list_experiments()
    for experiment, scale, seed in sorted({(t.experiment, t.scale, t.key.experiment_seed) for t in tasks}):
        spec = specs.get(experiment)
        if spec is not None and spec.claims:
            note_readings(store, experiment, scale, int(seed), spec.claims)


def run_tasks(
    tasks: Sequence[RunTask],
    store: ResultsStore,
    *,
    workers: int | None = None,
    retry_failed: bool = False,
    quiet: bool = False,
    executor: str = "local",
    scheduler: str | None = None,
) -> RunSummary:
    """Execute the tasks not yet in ``store`` and write each record as soon as it completes.

    Parameters
    ----------
    tasks : sequence of RunTask
    store : ResultsStore
        Opened with ``mode="w"``.
    workers : int, optional
        Worker processes (default ``os.cpu_count()``; 1 runs in this process).
    retry_failed : bool, default=False
        Re-execute runs stored with status "failed" (otherwise they are skipped).
    quiet : bool, default=False
        No progress bar (when stderr is not a terminal: a progress line every
        ``SAFEBANDITS_PROGRESS_S`` seconds, default 30, instead of a bar). The time left comes from the
        CPU times recorded for the same experiment, method and point
        (:mod:`~safebandits.experiments.progress`) and says when it is a guess.
    executor : {"local", "dask"}, default="local"
        See :func:`iter_records`. Whatever the executor, only this process writes the store.
    scheduler : str, optional
        Dask scheduler address (``executor="dask"``); without it a ``LocalCluster`` is started.
    """
    t0 = time.perf_counter()
    summary = RunSummary(n_tasks=len(tasks))
    done, failed = store.done_keys(), store.failed_keys()
    todo, seen = [], set()
    for task in tasks:
        pk = task.pk
        if pk in seen:
            continue
        seen.add(pk)
        if pk in done:
            summary.n_skipped += 1
        elif pk in failed and not retry_failed:
            summary.n_skipped_failed += 1
        else:
            todo.append(task)
    _note_readings(store, todo)
    history = store.cpu_costs(COST_COLUMNS) if todo else []
    parallel = min((os.cpu_count() or 1) if workers is None else workers, max(len(todo), 1))
    bar = progress(todo, history, workers=parallel, quiet=quiet)
    try:
        for record in iter_records(todo, workers, executor=executor, scheduler=scheduler):
            traces = record.pop("_traces", None)
            warm_up = record.pop(WARM_UP_FIELD, False)
            store.write(record, traces)
            if record["status"] == "ok":
                summary.n_ok += 1
                summary.n_not_stopped += int(not record["stopped"])
            else:
                summary.n_failed += 1
                if len(summary.errors) < 5:
                    summary.errors.append(f"{record['run_key']}: {record['error']}")
            bar.update({**record, WARM_UP_FIELD: warm_up})
    finally:
        bar.close()
    summary.wall_s = time.perf_counter() - t0
    return summary
