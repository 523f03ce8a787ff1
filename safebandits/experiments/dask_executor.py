"""Execute run tasks on a ``dask.distributed`` cluster (``safebandits run NAME --executor dask``).

Each run is one Dask task calling :func:`~safebandits.experiments.execute.execute_task` on a worker;
records stream back to the client as the tasks complete (``as_completed``), and the client alone
writes the results store. Everything else is Dask's job: scheduling, and resubmitting the tasks lost
with a worker that died (up to ``distributed.scheduler.allowed-failures`` times per task). A run that
raises is recorded as failed by :func:`execute_task` itself; a run whose workers keep dying
(``KilledWorker``), or whose task fails outside the run (e.g. ``safebandits`` missing on a worker), is
recorded as failed here, so the sweep goes on either way. Records are a pure function of the run key,
so a task run twice (a worker lost after finishing it) or a sweep resumed after the client was killed
gives the same row, and the store's primary key makes a duplicate harmless.

Without a scheduler address a ``LocalCluster`` is started on loopback: ``workers`` processes with one
thread each (``distributed`` sets ``OMP_NUM_THREADS=1`` etc. in them), no dashboard. Worker processes
of a ``LocalCluster`` exit with the client, even when it is killed with SIGKILL.

``distributed`` is an optional dependency (``pip install 'safebandits[distributed]'``); this module
imports it only when an executor is requested, and ``import safebandits`` never imports it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import traceback
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import CancelledError
from typing import Any

from safebandits.exceptions import ConfigError, SafeBanditsError
from safebandits.experiments.execute import execute_task, failed_record
from safebandits.experiments.spec import RunTask
from safebandits.plugins import active_plugins, plugin_files, plugin_path

__all__ = ["iter_dask", "require_distributed"]

_INSTALL_HINT = "pip install 'safebandits[distributed]'"


def require_distributed() -> Any:
    """Import and return ``distributed``, or raise a :class:`ConfigError` saying how to install it."""
    try:
        import distributed
    except ImportError as exc:
        raise ConfigError(
            f"The dask executor needs the optional dependency 'distributed' ({exc}). Install it with "
            f"`{_INSTALL_HINT}`, or use the local process pool (--executor local)."
        ) from None
    return distributed


def iter_dask(
    tasks: Sequence[RunTask],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    quiet_logs: bool = True,
) -> Iterator[dict[str, Any]]:
    """Execute tasks on Dask; yield their records in completion order.

    Parameters
    ----------
    tasks : sequence of RunTask
    workers : int, optional
        Worker processes of the ``LocalCluster`` started when ``scheduler`` is None (default
        ``os.cpu_count()``). Must be None with ``scheduler``: the cluster's own workers run the tasks.
    scheduler : str, optional
        Address of a running scheduler (``"tcp://host:8786"``, or a scheduler file path ending in
        ``.json``).
    quiet_logs : bool, default=True
        Show only ``distributed``'s warnings and errors (e.g. a worker restarted), not its info logs.

    Raises
    ------
    ConfigError
        ``distributed`` is not installed, or ``workers`` is given with ``scheduler``.
    SafeBanditsError
        The scheduler cannot be reached, or the connection to it is lost (the records yielded so far
        stay valid: re-running the sweep resumes).
    """
    require_distributed()
    if scheduler is not None and workers is not None:
        raise ConfigError(
            "The 'workers' parameter sizes the LocalCluster started without a scheduler; with a "
            f"scheduler ({scheduler!r}) the cluster's own workers run the sweep. Got workers={workers!r}; "
            "drop --workers."
        )
    if scheduler is not None and not isinstance(scheduler, str):
        raise TypeError(f"The 'scheduler' parameter must be an address string. Got {scheduler!r} instead.")
    if not tasks:
        return iter(())
    n = min((os.cpu_count() or 1) if workers is None else workers, len(tasks))
    return _iter_dask(list(tasks), n, scheduler, quiet_logs)


def _iter_dask(
    tasks: list[RunTask], n_workers: int, scheduler: str | None, quiet_logs: bool
) -> Iterator[dict[str, Any]]:
    from distributed import Client, LocalCluster, as_completed

    level = logging.WARNING if quiet_logs else logging.INFO
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=n_workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    silence_logs=level,
                )
            )
            client = stack.enter_context(Client(cluster, set_as_default=False))
        else:
            try:
                if scheduler.endswith(".json"):
                    client = Client(scheduler_file=scheduler, set_as_default=False)
                else:
                    client = Client(scheduler, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise SafeBanditsError(
                    f"Cannot connect to the Dask scheduler at {scheduler!r} ({exc}). Check that it is "
                    "running and reachable from here (see docs/cluster.md)."
                ) from None
            stack.enter_context(client)
            # Workers of another machine do not see this folder: send them the plugin files found here.
            for path in plugin_files():
                client.upload_file(path, load=False)  # (imported by the task, once)
        # Unique task keys per session: a second client on the same scheduler (or a rerun after a
        # crash, while the scheduler still releases the old tasks) never collides with these.
        session = uuid.uuid4().hex[:12]
        keys = [f"safebandits-run-{session}-{i}" for i in range(len(tasks))]
        # The workers import the plugins this process loaded (``--plugin``) before each task.
        futures = client.map(
            execute_task, tasks, key=keys, pure=False, plugins=active_plugins(), plugin_path=plugin_path()
        )
        future_to_task = dict(zip(futures, tasks))
        del futures
        for future in as_completed(list(future_to_task), loop=client.loop):
            task = future_to_task.pop(future)
            record = _record_of(future, task)
            future.release()
            yield record


def _record_of(future: Any, task: RunTask) -> dict[str, Any]:
    """The record computed by ``future``, or a failed record when the task itself failed.

    Lost connections and cancelled tasks are not a property of the run: they stop the sweep.
    """
    from distributed.scheduler import KilledWorker

    try:
        return future.result()
    except CancelledError:
        raise SafeBanditsError(
            f"The Dask scheduler cancelled run {task.run_key} (scheduler restarted or connection lost); "
            "the runs written so far are kept. Re-run the same command to resume."
        ) from None
    except KilledWorker as exc:
        return failed_record(
            task,
            "KilledWorker: the run's worker died each time it ran it (a crash or out of memory?)",
            "".join(traceback.format_exception_only(type(exc), exc)),
        )
    except Exception as exc:  # (raised on the worker outside the run, e.g. an import error)
        tb = future.traceback()
        text = "".join(traceback.format_exception(type(exc), exc, tb)) if tb is not None else None
        return failed_record(task, f"{type(exc).__name__}: {exc}", text)
