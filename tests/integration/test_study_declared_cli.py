"""``safebandits study create --problem FILE.toml``: a study on the [problem] table of an experiment file,
with the file's learner options and horizon; one-line errors (exit 2) for a learner that does not fit
the problem or cannot start on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import safebandits as sb
from safebandits.cli import cli
from safebandits.experiments.user import problem_of_file

ROOT = Path(__file__).resolve().parents[2]
COMPARE = ROOT / "examples" / "compare_linear_arms.toml"
IN_EXPECTATION = ROOT / "examples" / "in_expectation.toml"

MINE = """
name = "my-doses"
horizon = 300

[problem]
setting = "linear"
arms = [[0.3, 0.0], [0.9, 0.0], [0.6, 0.6], [0.0, 0.9]]
threshold = 0.5
safe_arm = 0
safe_reward = 0.18
safe_cost = 0.03
epsilon = 0.05
feedback = { kind = "bernoulli" }

[[learners]]
name = "opb"
options = { delta = 0.05, clip = false }

[[learners]]
name = "beside-practical"
label = "BESIDE a"
options = { delta = 0.2 }

[[learners]]
name = "beside-practical"
label = "BESIDE b"
options = { delta = 0.01 }
"""


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("SAFEBANDITS_STORAGE", f"sqlite:///{tmp_path / 's.db'}")
    path = tmp_path / "mine.toml"
    path.write_text(MINE)
    return tmp_path, path


def create(*args):
    return CliRunner().invoke(cli, ["study", "create", *map(str, args)], catch_exceptions=False)


def one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert "\n" not in text, text
    assert "Traceback" not in text
    return text


def test_the_file_problem_options_and_horizon(env):
    tmp, path = env
    made = create("doses", "--algorithm", "opb", "--problem", path, "--seed", "3")
    assert made.exit_code == 0, made.output
    out = json.loads(made.stdout)
    assert out["kind"] == "k-armed" and out["algorithm"] == "opb" and out["seed"] == 3
    study = sb.load_study("doses", f"sqlite:///{tmp / 's.db'}")
    assert study.declaration.to_dict() == problem_of_file(path).to_dict()
    assert study.config.delta == 0.05 and study.config.clip is False  # the file's options
    assert study.info.horizon == 300  # the file's horizon
    # --param wins over the file; a label picks one of two entries of the same learner
    made = create("b", "--algorithm", "BESIDE b", "--problem", path, "--param", "sampling=rounded")
    assert made.exit_code == 0, made.output
    b = sb.load_study("b", f"sqlite:///{tmp / 's.db'}")
    assert b.algorithm == "beside-practical" and b.config.delta == 0.01 and b.declared_kind == "transductive"
    made = create("c", "--algorithm", "opb", "--problem", path, "--param", "delta=0.2")
    assert made.exit_code == 0 and sb.load_study("c", f"sqlite:///{tmp / 's.db'}").config.delta == 0.2


def test_the_example_file_then_ask_and_tell(env):
    _tmp, _ = env  # (the storage variable it sets)
    assert create("cmp", "--algorithm", "oplb", "--problem", COMPARE, "--seed", "0").exit_code == 0
    runner = CliRunner()
    q = json.loads(runner.invoke(cli, ["study", "ask", "cmp"]).stdout)
    told = runner.invoke(
        cli, ["study", "tell", "cmp", str(q["id"]), '{"reward": 0.2, "constraints": [0.03]}']
    )
    assert told.exit_code == 0, told.output
    status = json.loads(runner.invoke(cli, ["study", "status", "cmp"]).stdout)
    assert status["n_answered"] == 1 and "arm_estimates" in status
    rec = json.loads(runner.invoke(cli, ["study", "recommend", "cmp"]).stdout)
    assert rec["words"] == status["recommendation"]["words"]
    assert (
        rec["words"].startswith(f"Anytime answer: arm {rec['arm']}.") and "1 of 3000 answers" in rec["words"]
    )


def test_one_line_errors(env):
    _, path = env
    text = one_line_error(create("x", "--algorithm", "g-acol", "--problem", path))
    assert str(path) in text and "needs a 'cbai' problem" in text and "Learners that fit" in text
    text = one_line_error(create("x", "--algorithm", "lc-lucb", "--problem", IN_EXPECTATION))
    assert "LCLUCB cannot start" in text
    text = one_line_error(create("x", "--algorithm", "beside-practical", "--problem", path))
    assert "BESIDE a" in text and "label" in text  # two entries: the label decides
    text = one_line_error(create("x", "--algorithm", "opb", "--problem", path, "--instance", "acol/driving"))
    assert "exactly one of" in text
    text = one_line_error(create("x", "--algorithm", "opb", "--problem", path, "--param", "delta=2"))
    assert "delta" in text
    bad = path.parent / "bad.toml"
    bad.write_text("name = 'x'\n[truth]\n")
    assert "no [problem] table" in one_line_error(create("x", "--algorithm", "opb", "--problem", bad))
