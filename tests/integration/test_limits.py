"""Issue 30, case 5: the same caps and types wherever an input arrives, checked before any allocation.

Experiment files get the CLI options' caps (replicates, budget, horizon, seed); a CKB study of a
million points is refused by name before its kernel matrix is built (exit 2); ``study expire
--older-than inf`` is refused; a seed beyond 64 bits is never stored; strings and booleans are never
numbers (``threshold = "0.5"``, boolean arms).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits._validation import MAX_SEED, check_array
from safebandits.cli import cli
from safebandits.exceptions import ConfigError
from safebandits.experiments.user import parse_experiment

ROOT = Path(__file__).resolve().parents[2]
BASE = (ROOT / "examples" / "compare_linear_arms.toml").read_text()


def _invoke(*args):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _refused(code, out, err, *words):
    assert code == 2, (code, out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert (
        lines and lines[-1].startswith("Error: ") and "Traceback" not in err and "internal error" not in err
    )
    for word in words:
        assert word in err, (word, err)


@pytest.mark.parametrize(
    ("old", "new", "word"),
    [
        ("replicates = 5", "replicates = 1000000000000000000", "replicates"),
        ("replicates = 2", "replicates = 1000001", "replicates"),  # [quick]
        ("horizon = 3000 ", "horizon = 10000000000000 ", "horizon"),
        ("budget = 1000000 ", "budget = 10000000000000 ", "budget"),
        ("seed = 0", "seed = 9223372036854775808", "seed"),
        ("seed = 0", "seed = true", "seed"),
        ("threshold = 0.5", 'threshold = "0.5"', "threshold"),
        ("[0.5, 0.3], [0.2, 0.6],", "[true, false], [0.2, 0.6],", "arms"),
        ("safe_cost = 0.036", 'safe_cost = "0.036"', "safe_cost"),
        ("reward_param = [0.6, 0.8]", 'reward_param = ["0.6", 0.8]', "reward_param"),
        ("replicates = 5", "replicates = 5.0", "replicates"),
    ],
)
def test_experiment_file_limits_and_types(old, new, word, tmp_path):
    assert old in BASE
    text = BASE.replace(old, new)
    start = time.perf_counter()
    with pytest.raises(ConfigError, match=word):
        parse_experiment(text)
    assert time.perf_counter() - start < 30  # refused, not attempted
    path = tmp_path / "e.toml"
    path.write_text(text)
    _refused(*_invoke("run", str(path), "--out", str(tmp_path / "res"), "-q"), word)
    assert not (tmp_path / "res").exists()


def test_the_example_itself_is_accepted():
    assert parse_experiment(BASE).replicates["paper"] == 5


def test_ckb_study_of_a_million_points_is_refused_before_allocation(tmp_path):
    db = tmp_path / "c.db"
    start = time.perf_counter()
    _refused(
        *_invoke(
            "study",
            "create",
            "c",
            "--algorithm",
            "ckb-ucb",
            "--instance",
            "ckb/synthetic",
            "--set",
            "n_points=1000000",
            "--storage",
            f"sqlite:///{db}",
        ),
        "n_points",
    )
    assert time.perf_counter() - start < 30 and not db.exists()
    with pytest.raises(ConfigError, match="n_points"):
        sb.make_instance("ckb/synthetic", np.random.default_rng(0), n_points=10**6)


def test_seed_beyond_64_bits_is_never_stored(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    info = sb.make_instance("acol/one-dimensional").public_info()
    for seed in (2**63, 2**70, -1, True, 1.0, "3"):
        with pytest.raises(ConfigError, match="seed"):
            sb.create_study(f"s{abs(hash(str(seed)))}", "g-acol", info, storage=url, seed=seed)
    for flag in ("--seed", "--instance-seed"):
        _refused(
            *_invoke(
                "study",
                "create",
                "s",
                "--algorithm",
                "g-acol",
                "--instance",
                "acol/one-dimensional",
                flag,
                str(2**70),
                "--storage",
                url,
            ),
            "range",
        )
    s = sb.create_study("max", "g-acol", info, storage=url, seed=MAX_SEED)
    assert sb.load_study("max", url).seed == MAX_SEED
    s.close()
    assert sb.list_studies(url) == ["max"]


def test_expire_older_than_infinity_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    s = sb.create_study(
        "s", "g-acol", sb.make_instance("acol/one-dimensional").public_info(), storage=url, seed=0
    )
    s.ask()
    for value in ("inf", "nan", "-1", "1e300"):
        _refused(*_invoke("study", "expire", "s", "--older-than", value, "--storage", url), "older")
    for value in (math.inf, math.nan, -1.0, 1e300, "10", True):
        with pytest.raises(ConfigError, match="older_than"):
            s.expire(older_than=value)
    code, out, _err = _invoke("study", "expire", "s", "--older-than", "0", "--storage", url)
    assert code == 0 and '"expired"' in out
    s.close()


def test_max_open_is_capped(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    info = sb.make_instance("acol/one-dimensional").public_info()
    with pytest.raises(ConfigError, match="max_open"):
        sb.create_study("s", "g-acol", info, storage=url, seed=0, max_open=10**18)
    _refused(
        *_invoke(
            "study",
            "create",
            "s",
            "--algorithm",
            "g-acol",
            "--instance",
            "acol/one-dimensional",
            "--max-open",
            str(10**18),
            "--storage",
            url,
        ),
        "max-open",
    )


_leaf = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.integers(-1000, 1000),
    st.booleans(),
    st.text(max_size=4),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_leaf, st.lists(_leaf, max_size=4)), max_size=6))
def test_property_arrays_never_take_strings_or_booleans(value):
    def flat(v):
        return [x for item in v for x in (flat(item) if isinstance(item, list) else [item])]

    leaves = flat(value)
    has_bad = any(isinstance(x, (bool, str)) for x in leaves)
    try:
        check_array(value, "x")
        accepted = True
    except ConfigError as exc:
        accepted = False
        message = str(exc)
    if has_bad:
        assert not accepted and "not strings or booleans" in message
    elif accepted:
        assert all(isinstance(x, (int, float)) for x in leaves)
