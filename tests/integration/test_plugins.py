"""``--plugin``: before or after the subcommand, from the current folder, imported by every worker.

The plugin is a module written in ``tmp_path`` that registers a tiny learner and an experiment through
the public API only (``import safebandits as sb``); its spec does not list the plugin, so worker
processes (local pool and Dask) find it only because the executors pass the plugins the CLI loaded.
The CLI runs as the installed console script with ``tmp_path`` as the current folder and no
``PYTHONPATH``: the module is found only because ``--plugin`` puts the current folder on ``sys.path``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.exceptions import ConfigError
from safebandits.plugins import parse_plugin_names

PLUGIN = "sbplug_tiny"
EXPERIMENT = "plug-tiny"
N_RUNS = 2 * 2 * 2  # panel values x methods x replicates

PLUGIN_SOURCE = textwrap.dedent(
    f'''
    """A user's plugin: a round-robin learner and an experiment that uses it."""

    import dataclasses
    import os

    import numpy as np

    import safebandits as sb


    @dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
    class TinyConfig(sb.LearnerConfig):
        """Config of :class:`Tiny`.

        Parameters
        ----------
        n_stop : int, default 6
            Samples before stopping.
        """

        n_stop: int = 6


    @sb.register_algorithm("tiny-rr", task="pure_exploration", description="Round robin (plugin).")
    class Tiny(sb.BaseLearner):
        """Pulls the arms in turn; recommends the best arm whose mean constraint is under the threshold."""

        config_cls = TinyConfig

        def __init__(self, config, info, rng):
            super().__init__(config, info, rng)
            self.counts = np.zeros(info.n_arms)
            self.sums = np.zeros(info.n_arms)
            self.pid = os.getpid()
            self.ppid = os.getppid()

        @property
        def done(self):
            return self.n_samples >= self.config.n_stop

        def _ask(self, context):
            return sb.Decision(arm=int(self.n_samples % self.info.n_arms))

        def _tell(self, decision, observation):
            self.counts[decision.arm] += 1
            self.sums[decision.arm] += observation.constraints[0]

        def _recommend(self, final):
            means = np.where(self.counts > 0, self.sums / np.maximum(self.counts, 1), np.inf)
            rewards = np.where(means <= self.info.threshold, self.info.rewards, -np.inf)
            arm = int(np.argmax(rewards)) if np.isfinite(rewards).any() else None
            info = {{"pid": self.pid, "ppid": self.ppid}}
            return sb.Recommendation(arm=arm, n_samples=self.n_samples, final=final, info=info)


    sb.register_experiment(
        sb.ExperimentSpec(
            name="{EXPERIMENT}",
            title="A plugin's experiment",
            panels=(
                sb.PanelSpec(
                    name="eps",
                    instance="acol/irrelevant-dimensions",
                    fixed={{"d": 2}},
                    sweep_param="epsilon",
                    values={{"quick": (0.2, 0.4), "paper": (0.2, 0.4)}},
                ),
            ),
            algorithms=(
                sb.AlgorithmSpec(label="Tiny", name="tiny-rr"),
                sb.AlgorithmSpec(label="Tiny long", name="tiny-rr", params={{"n_stop": 10}}),
            ),
            replicates={{"quick": 2, "paper": 2}},
            budget={{"quick": 50, "paper": 50}},
        ),
        replace=True,
    )
    '''
)


def _script() -> Path:
    """The installed ``safebandits`` console script (its ``sys.path[0]`` is its own folder, not cwd)."""
    found = Path(sys.executable).with_name("safebandits")
    if not found.exists():
        which = shutil.which("safebandits")
        if which is None:
            pytest.skip("the safebandits console script is not installed")
        found = Path(which)
    return found


@pytest.fixture
def plugin_dir(tmp_path):
    (tmp_path / f"{PLUGIN}.py").write_text(PLUGIN_SOURCE)
    return tmp_path


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SAFEBANDITS_PLUGINS")}
    env["MPLBACKEND"] = "Agg"
    return subprocess.run(
        [str(_script()), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def _frame(out: Path):
    from safebandits.experiments.results import load_results

    return load_results(out, details=True)


def _check_runs(out: Path, workers_expected: int) -> None:
    import json
    import sqlite3

    df = _frame(out)
    assert len(df) == N_RUNS and (df["status"] == "ok").all(), df[["label", "status", "error"]]
    assert set(df["algorithm"]) == {"tiny-rr"}
    with sqlite3.connect(out / "results.sqlite") as conn:
        pids = [json.loads(j) for (j,) in conn.execute("SELECT json FROM traces WHERE name='recommendation'")]
    # Every run ran in a worker process (a child of the command, not the command itself, whose parent is
    # this test), and the plugin's learner was there: the workers imported the plugin. How the pool
    # spreads the runs over its workers is up to the scheduler (one busy core may take them all).
    assert pids and all(p["ppid"] != os.getpid() for p in pids), pids
    assert len({p["ppid"] for p in pids}) == 1, pids
    assert len({p["pid"] for p in pids}) <= workers_expected


def test_plugin_before_the_subcommand_from_cwd_in_a_local_pool(plugin_dir):
    out = plugin_dir / "out"
    proc = _cli(plugin_dir, "--plugin", PLUGIN, "run", EXPERIMENT, "--workers", "2", "--out", str(out), "-q")
    assert proc.returncode == 0, proc.stderr
    assert f"{N_RUNS} runs, 0 already done, {N_RUNS} ok, 0 failed" in proc.stdout
    _check_runs(out, workers_expected=2)


def test_plugin_after_another_subcommand_in_process(plugin_dir, monkeypatch, capsys):
    """``list algorithms --verbose --plugin M``: the learner's options come from its config docstring."""
    from safebandits import plugins
    from safebandits.algorithms import registry
    from safebandits.cli import main
    from safebandits.experiments import spec

    monkeypatch.chdir(plugin_dir)
    monkeypatch.setattr(plugins, "_LOADED", [])
    monkeypatch.setattr(plugins, "_PATH", [])
    monkeypatch.setattr(sys, "path", list(sys.path))
    try:
        assert main(["list", "algorithms", "--verbose", "--plugin", PLUGIN]) == 0
        out = capsys.readouterr().out
        assert "tiny-rr (pure_exploration): Round robin (plugin)." in out
        assert "n_stop = 6  [int]" in out and "Samples before stopping." in out
    finally:  # (other suites must not see the plugin's learner and experiment)
        registry._REGISTRY.pop("tiny-rr", None)
        spec._REGISTRY.pop(EXPERIMENT, None)
        sys.modules.pop(PLUGIN, None)


def test_plugin_after_the_subcommand_on_dask(plugin_dir):
    """A LocalCluster of one worker process (a separate interpreter, like any Dask worker)."""
    pytest.importorskip("distributed")
    out = plugin_dir / "out"
    proc = _cli(
        plugin_dir, "run", EXPERIMENT, "--executor", "dask", "--workers", "1", "--out", str(out), "-q",
        "--plugin", PLUGIN,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"{N_RUNS} runs, 0 already done, {N_RUNS} ok, 0 failed" in proc.stdout
    _check_runs(out, workers_expected=1)


def test_unknown_plugin_is_one_clear_line(tmp_path):
    proc = _cli(tmp_path, "run", "x", "--plugin", "no_such_plugin_mod")
    assert proc.returncode == 2
    assert "Cannot import plugin 'no_such_plugin_mod'" in proc.stderr and "Traceback" not in proc.stderr
    proc = _cli(tmp_path, "--plugin", "my/plug.py", "list")
    assert proc.returncode == 2 and "not a Python module name" in proc.stderr


_identifier = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(_identifier, min_size=1, max_size=3).map(".".join), max_size=4),
    st.sampled_from([" ", ",", ", "]),
)
def test_parse_plugin_names_roundtrip(names, sep):
    assert parse_plugin_names(sep.join(names)) == names
    assert parse_plugin_names(names) == names


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=12))
def test_parse_plugin_names_rejects_or_returns_identifiers(text):
    try:
        names = parse_plugin_names(text)
    except ConfigError as exc:
        assert "is not a Python module name" in str(exc)
    else:
        assert all(part.isidentifier() for name in names for part in name.split("."))


def test_load_plugins_from_cwd_remembers_modules_folders_and_files(tmp_path, monkeypatch):
    from safebandits import plugins

    (tmp_path / "sbplug_empty.py").write_text("LOADED = True\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(plugins, "_LOADED", [])
    monkeypatch.setattr(plugins, "_PATH", [])
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    try:
        assert plugins.load_plugins("sbplug_empty, json") == ["sbplug_empty", "json"]
        assert plugins.active_plugins() == ("sbplug_empty", "json")
        assert plugins.plugin_path() == (str(tmp_path),) and sys.path[0] == str(tmp_path)
        # Only the module found in the current folder is sent to remote Dask workers.
        assert plugins.plugin_files() == [str(tmp_path / "sbplug_empty.py")]
        with pytest.raises(ConfigError, match="Cannot import plugin 'sbplug_missing'"):
            plugins.load_plugins(["sbplug_missing"])
        assert plugins.active_plugins() == ("sbplug_empty", "json")
    finally:
        sys.modules.pop("sbplug_empty", None)
