"""``safebandits study ...``: a shell-style loop drives a study to the same answer as the Python API."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

import safebandits as sb
from safebandits.cli import cli

N_QUERIES = 25  # each command replays the study: keep the loop short


def _run(runner, *args, code=0):
    result = runner.invoke(cli, ["study", *args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if code == 0 and result.stdout.strip() else result


def _answer(inst, arm, qid):
    mean = float(inst.constraint_values[arm])
    return 1 if np.random.default_rng([5, qid]).random() < (1.0 + mean) / 2 else -1


def test_cli_drives_a_study(tmp_path, monkeypatch):
    monkeypatch.setenv("SAFEBANDITS_STORAGE", f"sqlite:///{tmp_path / 'cli.db'}")
    runner = CliRunner()
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    made = _run(
        runner, "create", "s1", "--algorithm", "g-acol", "--instance", "acol/one-dimensional",
        "--set", "noise=binary", "--set", "n_arms=5", "--seed", "4",
    )  # fmt: skip
    assert made["task"] == "pure_exploration" and made["seed"] == 4
    arms = []
    while len(arms) < N_QUERIES and not _run(runner, "status", "s1")["done"]:
        q = _run(runner, "ask", "s1")
        arms.append(q["arm"])
        told = _run(runner, "tell", "s1", str(q["id"]), str(_answer(inst, q["arm"], q["id"])))
        assert told["told"] and told["n_answered"] == len(arms)
    rec = _run(runner, "recommend", "s1")
    # the same study through the Python API, uninterrupted
    ref = sb.create_study(
        "ref", "g-acol", inst.public_info(), storage=f"sqlite:///{tmp_path / 'r.db'}", seed=4
    )
    ref_arms = []
    while len(ref_arms) < N_QUERIES and not ref.done:
        q = ref.ask()
        ref_arms.append(q.arm)
        ref.tell(q.id, _answer(inst, q.arm, q.id))
    assert arms == ref_arms and rec["arm"] == ref.recommend().arm and rec["final"] == ref.done
    status = _run(runner, "status", "s1")
    assert status["n_answered"] == len(arms) and status["recommendation"]["arm"] == rec["arm"]
    assert "confidence_bounds" in status and "feasible_set" in status
    # export, then a new study from the exported problem view
    _run(runner, "export", "s1", "--out", str(tmp_path / "s1.json"))
    exported = json.loads((tmp_path / "s1.json").read_text())
    assert len(exported["queries"]) == len(arms) and exported["info"]["__type__"] == "CBAIInfo"
    (tmp_path / "info.json").write_text(json.dumps(exported["info"]))
    _run(runner, "create", "s2", "--algorithm", "acol", "--info", str(tmp_path / "info.json"), "--seed", "1")
    assert _run(runner, "list") == ["s1", "s2"]
    q = _run(runner, "ask", "s2")
    assert sum(q["counts"]) > 0
    counts = np.asarray(q["counts"])
    answer = json.dumps({"constraint_sums": (-counts[:, None]).tolist()})
    assert _run(runner, "tell", "s2", str(q["id"]), answer)["n_answered"] == 1


def test_cli_errors_exit_2(tmp_path, monkeypatch):
    monkeypatch.setenv("SAFEBANDITS_STORAGE", f"sqlite:///{tmp_path / 'e.db'}")
    runner = CliRunner()
    _run(runner, "create", "e", "--algorithm", "g-acol", "--instance", "acol/one-dimensional",
         "--set", "noise=binary", "--seed", "0")  # fmt: skip
    q = _run(runner, "ask", "e")
    for args, message in [
        (("tell", "e", str(q["id"]), "0.5"), "+1 or -1"),
        (("tell", "e", str(q["id"]), "NaN"), "finite"),
        (("tell", "e", str(q["id"]), "{bad"), "must be JSON"),
        (("tell", "e", "7", "1"), "no query 7"),
        (("ask", "missing"), "No study named 'missing'"),
        (("create", "e", "--algorithm", "g-acol", "--instance", "acol/one-dimensional"), "already exists"),
        (("create", "f", "--algorithm", "g-acol"), "exactly one of"),
        (("create", "f", "--algorithm", "g-acol", "--instance", "nope"), "Unknown instance"),
    ]:
        result = _run(runner, *args, code=2)
        assert message in result.stderr, (args, result.stderr)
    assert _run(runner, "status", "e")["n_answered"] == 0
    _run(runner, "tell", "e", str(q["id"]), "-1")
    result = _run(runner, "tell", "e", str(q["id"]), "-1", code=2)
    assert "already told" in result.stderr
