"""User experiment files: validation (one line per mistake), spec building, the shipped examples."""

from __future__ import annotations

import dataclasses
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safebandits.exceptions import ConfigError
from safebandits.experiments.runner import execute_task
from safebandits.experiments.spec import expand
from safebandits.experiments.user import load_experiment_file, parse_experiment, problem_of_file

EXAMPLES = sorted((Path(__file__).resolve().parents[3] / "examples").glob("*.toml"))

GOOD = """
name = "mine"
horizon = 100
replicates = 2

[problem]
setting = "linear"
arms = [[0.3, 0.0], [0.9, 0.0], [0.0, 0.9], [0.6, 0.6]]
threshold = 0.5
safe_arm = 0
safe_cost = 0.03

[truth]
reward_param = [0.6, 0.8]
cost_params = [[0.1, 0.8]]

[[learners]]
name = "lc-lucb"

[[learners]]
name = "opb"
label = "OPB"
options = { delta = 0.05 }
"""


def test_a_good_file_becomes_a_spec_on_the_declared_instance():
    spec = parse_experiment(GOOD)
    assert spec.name == "mine" and spec.labels == ["lc-lucb", "OPB"] and spec.figure == "comparison"
    (panel,) = spec.panels
    assert panel.instance == "user/declared" and panel.values["paper"] == (100,)
    tasks = expand(spec, "paper")
    assert len(tasks) == 4 and {t.budget for t in tasks} == {100}
    assert tasks[2].algorithm_params["delta"] == 0.05


def test_every_mistake_is_one_line():
    bad = GOOD.replace('name = "opb"', 'name = "acol"').replace("horizon = 100\n", "colour = 1\n")
    bad = bad.replace("options = { delta = 0.05 }", "options = { delta = 5 }")
    with pytest.raises(ConfigError) as err:
        parse_experiment(bad, source="f.toml")
    text = str(err.value)
    assert text.startswith("f.toml: ") and "colour: unknown key" in text
    assert len(text.splitlines()) == 1  # pydantic stops before the semantic checks
    with pytest.raises(ConfigError) as err:
        parse_experiment(bad.replace("colour = 1\n", ""), source="f.toml")
    lines = str(err.value).splitlines()
    assert lines[0] == "f.toml: 3 mistakes:"
    assert any("learners[0] (lc-lucb): a regret learner needs the horizon" in line for line in lines)
    assert any("learners[1] (acol): does not fit this problem (cbai:" in line for line in lines)
    assert any("learners[1] (acol): options:" in line and "'delta'" in line for line in lines)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("name = [", "not valid TOML"),
        ('name = "x"', "problem: Field required"),
        (GOOD.replace('name = "mine"', 'name = "a b"'), "name: String should match"),
        (GOOD.replace("replicates = 2", "replicates = 0"), "replicates: Input should be greater than 0"),
        (GOOD.replace("replicates = 2", "replicates = true"), "replicates: Input should be a valid integer"),
        (GOOD.replace('setting = "linear"', 'setting = "nope"'), "problem/truth: The 'setting'"),
        (GOOD.replace("reward_param = [0.6, 0.8]", ""), "needs the true reward_param"),
        (GOOD.replace('name = "lc-lucb"', 'name = "lc-lucb"\nlabel = "OPB"'), "used twice"),
        (GOOD.replace('name = "lc-lucb"', 'name = "nope"'), "unknown learner"),
    ],
)
def test_mistakes_name_the_place(text, match):
    with pytest.raises(ConfigError, match=match):
        parse_experiment(text)


_VALUE = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(-5, 5), st.floats(), st.text(string.printable, max_size=5)
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


def _toml_value(v):
    import json
    import math

    if v is None:
        return '"none"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, (int,)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    line=st.integers(0, 40),
    key=st.sampled_from(["name", "horizon", "arms", "threshold", "safe_arm", "reward_param", "options", "x"]),
    value=_VALUE,
    junk=st.text(max_size=20),
)
def test_property_bad_files_raise_one_config_error(line, key, value, junk):
    """Random edits of a good file (a key set to a random value, or a line replaced by random text):
    the loader raises ConfigError (or accepts the file), never another exception."""
    lines = GOOD.splitlines()
    edited = list(lines)
    edited[line % len(lines)] = f"{key} = {_toml_value(value)}"
    for text in (
        "\n".join(edited),
        "\n".join([*lines[: line % len(lines)], junk, *lines[line % len(lines) :]]),
    ):
        try:
            parse_experiment(text)
        except ConfigError as exc:
            assert str(exc).strip()


def test_problem_of_file_reads_only_the_problem(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text('[problem]\nsetting = "linear"\narms = [[1.0, 0.0]]\nthreshold = [1.0, 2.0]\n')
    assert problem_of_file(path).kinds == ()


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_load_validate_and_run_at_tiny_size(path):
    spec = load_experiment_file(path)
    tiny = dataclasses.replace(
        spec,
        panels=tuple(dataclasses.replace(p, values={**p.values, "quick": (30,)}) for p in spec.panels),
        algorithms=tuple(
            dataclasses.replace(a, budget={"quick": 30} if a.budget else {}) for a in spec.algorithms
        ),
        budget={**spec.budget, "quick": 60 if "fdr" in spec.name else 2000},
    )
    tasks = expand(tiny, "quick", replicates=1)
    assert len(tasks) == len(spec.algorithms)
    for task in tasks:
        record = execute_task(task)
        assert record["status"] == "ok", record["error"]


def test_comparison_example_has_six_learners_from_three_papers():
    import safebandits as sb

    spec = load_experiment_file(next(p for p in EXAMPLES if p.stem == "compare_linear_arms"))
    names = {a.name for a in spec.algorithms}
    papers = {
        "amani": {"safe-lucb", "gslucb"},
        "pacchiano": {"lc-lucb", "safe-lts", "opb", "oplb"},
        "zhou-ji": {"ckb-ucb", "ckb-ts", "stageopt", "sgp-ucb"},
        "camilleri": {"beside", "beside-practical", "xy-safe-only"},
    }
    assert len(names) >= 6 and sum(bool(names & v) for v in papers.values()) >= 3
    assert names <= set(sb.list_algorithms())
