"""A continuous-domain experiment file (``examples/kernel_box.toml``) end to end through the command
line: learners --for, run, results (per-round safety of the safe learners, reproducible reruns), and a
bad box as one error line."""

from __future__ import annotations

import csv
from pathlib import Path

from click.testing import CliRunner

from safebandits.cli import cli as safebandits_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "kernel_box.toml"


def cli(*args: str):
    return CliRunner().invoke(safebandits_cli, list(args), catch_exceptions=False)


def rows(out: Path, tmp: Path, name: str) -> list[dict[str, str]]:
    res = cli("results", str(out), "--csv", str(tmp / name))
    assert res.exit_code == 0, res.output
    with open(tmp / name, newline="") as fh:
        return list(csv.DictReader(fh))


def test_box_example_runs_end_to_end(tmp_path, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    text = EXAMPLE.read_text().replace("horizon = 60\nreplicates = 2", "horizon = 40\nreplicates = 1")
    path = tmp_path / "box.toml"
    path.write_text(text)

    res = cli("learners", "--for", str(path), "--task", "regret")
    assert res.exit_code == 0, res.output
    for name in ("ckb-ucb", "ckb-ts", "ckb-rand", "stageopt", "safeopt", "sgp-ucb"):
        assert name in res.output

    runs = {}
    for name in ("a", "b"):
        out = tmp_path / name
        res = cli("run", str(path), "--scale", "quick", "--out", str(out), "--workers", "1", "-q")
        assert res.exit_code == 0, res.output
        assert "4 runs, 0 already done, 4 ok, 0 failed" in res.output
        runs[name] = {r["label"]: r for r in rows(out, tmp_path, f"{name}.csv")}
    a, b = runs["a"], runs["b"]
    assert set(a) == {"CKB-UCB", "CKB-Rand", "StageOpt", "SGP-UCB"}
    # (the CSV names each regret's comparator and each kind of violation: issue 40)
    regret, violations = "regret_vs_best_feasible_arm", "violations_per_round"
    for label in a:  # two stores, the same results: a pure function of the run key
        assert a[label][regret] == b[label][regret] and a[label][violations] == b[label][violations]
        assert int(a[label]["samples"]) == 40
    for label in ("StageOpt", "SGP-UCB"):  # the truth's norms are within the declared bounds
        assert int(a[label][violations]) == 0


def test_a_bad_box_is_one_error(tmp_path):
    text = EXAMPLE.read_text().replace("upper = [1.0, 1.0]", "upper = [1.0, -1.0]")
    path = tmp_path / "bad.toml"
    path.write_text(text)
    res = cli("run", str(path), "--out", str(tmp_path / "r"))
    assert res.exit_code == 2
    assert "lower bound must be below its upper bound" in res.stderr
    text = EXAMPLE.read_text().replace(
        'kernel = { name = "se", lengthscale = 0.3 }', 'kernel = { name = "linear" }'
    )
    path.write_text(text)
    res = cli("run", str(path), "--out", str(tmp_path / "r"))
    assert res.exit_code == 2 and "'se' or 'matern'" in res.stderr


def test_box_sizes_are_capped_where_the_file_arrives(tmp_path):
    """A box of too many dimensions, or a search of absurd size, is refused before anything is built."""
    import time

    import pytest

    from safebandits._limits import MAX_BOX_CANDIDATES, MAX_BOX_DIMENSION
    from safebandits.exceptions import ConfigError
    from safebandits.experiments.user import parse_experiment

    base = EXAMPLE.read_text()
    d = MAX_BOX_DIMENSION + 1
    wide = base.replace(
        "domain = { lower = [0.0, 0.0], upper = [1.0, 1.0] }",
        f"domain = {{ lower = {[0.0] * d}, upper = {[1.0] * d} }}",
    )
    huge = base.replace(
        'label = "CKB-Rand"\noptions = { gp_noise = 0.01 }',
        f'label = "CKB-Rand"\noptions = {{ gp_noise = 0.01, box_candidates = {MAX_BOX_CANDIDATES + 1} }}',
    )
    points = base.replace(
        'label = "StageOpt"\noptions = { gp_noise = 0.01 }',
        'label = "StageOpt"\noptions = { gp_noise = 0.01, box_points = 100000000 }',
    )
    assert wide != base and huge != base and points != base
    for text, word in ((wide, "between 1 and 20"), (huge, "box_candidates"), (points, "box_points")):
        start = time.perf_counter()
        with pytest.raises(ConfigError, match=word):
            parse_experiment(text)
        assert time.perf_counter() - start < 30
        path = tmp_path / "capped.toml"
        path.write_text(text)
        res = cli("run", str(path), "--out", str(tmp_path / "r"))
        assert res.exit_code == 2 and word in res.stderr
        assert not (tmp_path / "r").exists()
