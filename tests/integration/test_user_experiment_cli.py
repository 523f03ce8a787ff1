"""A user experiment file through the command line: learners --for, run, report, results (resume too).

In-process (click's runner) to keep the default test run fast; the subprocess route of the same
commands is covered by tests/integration/test_cli.py.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from safebandits.cli import cli as safebandits_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "compare_linear_arms.toml"


def cli(*args: str):
    return CliRunner().invoke(safebandits_cli, list(args), catch_exceptions=False)


def test_comparison_example_at_small_size_via_the_cli(tmp_path, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    text = EXAMPLE.read_text().replace("horizon = 400\nreplicates = 2", "horizon = 60\nreplicates = 1")
    text = text.replace("budget = 1000000", "budget = 5000")
    path = tmp_path / "mine.toml"
    path.write_text(text)
    out = tmp_path / "results"

    res = cli("learners", "--for", str(path), "--task", "regret")
    assert res.exit_code == 0, res.output
    assert "lc-lucb" in res.output and "safe in expectation w.p. 1-delta" in res.output

    res = cli("run", str(path), "--scale", "quick", "--out", str(out), "--workers", "1", "-q")
    assert res.exit_code == 0, res.output
    assert "10 runs, 0 already done, 10 ok, 0 failed" in res.output
    assert (out / "experiments" / "compare-linear-arms.toml").exists()
    res = cli("run", str(path), "--scale", "quick", "--out", str(out), "--workers", "1", "-q")
    assert "10 already done" in res.output  # resumes through the same store

    res = cli("report", str(out))
    assert res.exit_code == 0, res.output
    page = (out / "report" / "index.html").read_text()
    assert "compare-linear-arms-quick.png" in page and "Regret learners" in page
    assert "safe every round w.p. 1-delta" in page and "Identification learners" in page
    assert (out / "report" / "compare-linear-arms-quick.png").stat().st_size > 20_000

    res = cli("results", str(out))
    assert res.exit_code == 0, res.output
    assert "LC-LUCB" in res.output and "BESIDE (practical)" in res.output


def test_a_bad_file_is_one_error_and_exit_status_2(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('name = "x"\nhorizon = -1\n[problem]\nsetting = "linear"\n[[learners]]\nname = "nope"\n')
    res = cli("run", str(path), "--out", str(tmp_path / "r"))
    assert res.exit_code == 2
    assert res.stderr.startswith("Error: ") and "horizon: Input should be greater than 0" in res.stderr
    res = cli("learners", "--for", "nope/nothing")
    assert res.exit_code == 2 and "neither an experiment file" in res.stderr


def test_learners_for_a_registered_instance():
    res = cli("learners", "--for", "stagewise/four-arm")
    assert res.exit_code == 0, res.output
    listed = res.output.split("note:")[0]  # (the notes name the learners that cannot promise safety)
    assert "opb" in listed and "lc-lucb" not in listed  # K unstructured arms: in-expectation only
    assert "No learner can promise safety in every round on this problem" in res.output
