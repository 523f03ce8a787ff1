"""Dask executor without a cluster: optional import, argument checks, how task failures become records.

The executor on a real ``LocalCluster`` (results, worker and client kills, failed runs) is tested in
``tests/integration/test_dask.py``.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import CancelledError
from types import SimpleNamespace

import pytest

from safebandits.cli import main
from safebandits.exceptions import ConfigError, SafeBanditsError
from safebandits.experiments.runner import execute_task, iter_records
from safebandits.experiments.spec import expand


def test_importing_safebandits_does_not_import_dask():
    code = (
        "import sys, safebandits, safebandits.cli, safebandits.experiments.runner\n"
        "import safebandits.experiments.dask_executor\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_missing_distributed_is_a_clear_error(monkeypatch, fakes, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(ConfigError, match=r"pip install 'safebandits\[distributed\]'"):
        iter_records(expand(fakes.SPEC, "quick"), 2, executor="dask")
    assert main(["run", "acol-synthetic", "--executor", "dask"]) == 2
    err = capsys.readouterr().err
    assert "optional dependency 'distributed'" in err and "Traceback" not in err


def test_executor_and_scheduler_arguments(fakes):
    tasks = expand(fakes.SPEC, "quick")
    with pytest.raises(ConfigError, match="'executor' parameter must be one of 'local', 'dask'"):
        iter_records(tasks, 2, executor="ray")
    with pytest.raises(ConfigError, match="needs executor='dask'"):
        iter_records(tasks, 2, scheduler="tcp://127.0.0.1:8786")
    pytest.importorskip("distributed")
    with pytest.raises(ConfigError, match="drop --workers"):
        iter_records(tasks, 2, executor="dask", scheduler="tcp://127.0.0.1:8786")
    assert list(iter_records([], 2, executor="dask")) == []  # nothing to do: no cluster started


class _Future:
    """Stands in for a ``distributed.Future`` whose ``result()`` raises ``exc``."""

    def __init__(self, exc):
        self.exc = exc

    def result(self):
        raise self.exc

    def traceback(self):
        return self.exc.__traceback__


def _raised(exc):
    try:
        raise exc
    except type(exc) as caught:
        return caught


def test_task_failures_become_failed_records(fakes):
    pytest.importorskip("distributed")
    from distributed.scheduler import KilledWorker

    from safebandits.experiments.dask_executor import _record_of

    task = next(t for t in expand(fakes.SPEC, "quick") if t.label == "RR")
    ok = execute_task(task)
    lost = KilledWorker("safebandits-run-x-0", SimpleNamespace(address="tcp://127.0.0.1:1"), 3)
    killed = _record_of(_Future(lost), task)
    other = _record_of(_Future(_raised(ModuleNotFoundError("No module named 'safebandits'"))), task)
    for rec in (killed, other):
        assert rec["status"] == "failed" and rec["pk"] == task.pk and rec["run_key"] == task.run_key
        assert {k: rec[k] for k in task.config()} == {k: ok[k] for k in task.config()}
        assert rec["config_json"] == ok["config_json"] and rec["numpy_version"] == ok["numpy_version"]
        assert rec["_traces"] == {} and rec["traceback"]
    assert killed["error"].startswith("KilledWorker: the run's worker died")
    assert "tcp://127.0.0.1:1" in killed["traceback"]
    assert other["error"] == "ModuleNotFoundError: No module named 'safebandits'"
    assert "Traceback" in other["traceback"]
    with pytest.raises(SafeBanditsError, match="Re-run the same command to resume"):
        _record_of(_Future(CancelledError()), task)


def test_unreachable_scheduler_is_a_clear_error(fakes):
    dask = pytest.importorskip("dask")
    tasks = expand(fakes.SPEC, "quick")
    with (
        dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        pytest.raises(
            SafeBanditsError, match=r"Cannot connect to the Dask scheduler at 'tcp://127\.0\.0\.1:1'"
        ),
    ):
        list(iter_records(tasks, executor="dask", scheduler="tcp://127.0.0.1:1"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler needs --executor dask."),
        (["--executor", "dask", "--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"], "Drop --workers."),
    ],
)
def test_cli_executor_options_are_checked_first(args, message, capsys):
    pytest.importorskip("distributed")
    assert main(["run", "acol-synthetic", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: ") and message in err and len(err.strip().splitlines()) == 1
