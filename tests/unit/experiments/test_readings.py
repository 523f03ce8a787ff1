"""Issue 42: readings fixed before their data (fingerprints, ledger, stored with the data, post-hoc
marks) and robustness markers (fragile / depends on / robust / untested)."""

from __future__ import annotations

import dataclasses
import json

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.exceptions import ConfigError
from safebandits.experiments.readings import (
    LedgerEntry,
    fingerprints,
    ledger,
    ledger_mismatches,
    note_readings,
    reading_fingerprint,
    reading_status,
    stored_readings,
)
from safebandits.experiments.robustness import (
    UnstatedSetting,
    robustness_marker,
    setting_value,
    split_variants,
)
from safebandits.experiments.store import ResultsStore


def test_every_reading_is_in_the_ledger_as_it_is_today():
    """The tripwire: a reading (code, thresholds, metadata) changed without a ledger entry fails here.
    Record it with `safebandits readings --changed SET/ID ... --why ...` (or --unchanged for a code edit
    that does not alter it)."""
    assert ledger_mismatches() == []


def test_fingerprint_follows_a_threshold_and_the_wording(monkeypatch):
    from safebandits.papers.stagewise import claims as sw

    before = fingerprints("stagewise-cyclic")
    monkeypatch.setattr(sw, "COST_TOL", 0.05)
    after = fingerprints("stagewise-cyclic")
    assert after["e1-cost-0561"] != before["e1-cost-0561"]
    monkeypatch.undo()
    assert fingerprints("stagewise-cyclic") == before
    # another claim set's readings do not move with this module's threshold
    assert reading_fingerprint("safelucb-karm", "karm-order") == fingerprints("safelucb-karm")["karm-order"]


def test_fingerprint_follows_the_code_of_a_helper(monkeypatch):
    from safebandits.papers.stagewise import claims as sw

    before = fingerprints("opb-random")["e3-bound"]
    original = sw._bound_reading

    def lenient(*args, **kwargs):  # a different reading: different source
        return original(*args, **kwargs)

    monkeypatch.setattr(sw, "_bound_reading", lenient)
    assert fingerprints("opb-random")["e3-bound"] != before


BOOK = {
    "s/a": LedgerEntry("fp", "2026-11-26", {"quick": [0]}, "old"),
    "s/b": LedgerEntry("fp", "2026-11-29 06:15", {"paper": [0], "quick": [0]}, "changed after its data"),
}


@pytest.mark.parametrize(
    ("claim", "scale", "seed", "first", "stored", "status"),
    [
        ("a", "paper", 0, "2026-11-27T21:31:00+00:00", None, "before"),
        ("a", "quick", 0, "2026-11-27T21:31:00+00:00", None, "post-hoc"),  # seed 0's quick data was in view
        ("a", "quick", 1, "2026-11-27T21:31:00+00:00", None, "confirmatory"),
        ("b", "paper", 0, "2026-11-27T22:16:00+00:00", None, "post-hoc"),  # fixed after its data
        ("b", "paper", 0, "2026-11-30T10:00:00+00:00", None, "post-hoc"),  # later, but the same seed
        ("b", "paper", 1, "2026-11-30T10:00:00+00:00", None, "confirmatory"),  # fresh seed after the change
        ("b", "paper", 1, "2026-11-28T10:00:00+00:00", None, "post-hoc"),  # a new seed made before it
        ("a", "paper", 0, "2026-11-27T21:31:00+00:00", {"other": "t"}, "post-hoc"),  # changed since written
        ("a", "paper", 0, "2026-11-27T21:31:00+00:00", {"fp": "t"}, "before"),
        ("zzz", "paper", 0, "2026-11-27T21:31:00+00:00", None, "post-hoc"),  # not in the ledger
    ],
)
def test_reading_status(claim, scale, seed, first, stored, status):
    got = reading_status("s", claim, scale=scale, seed=seed, first_run=first, stored=stored, book=BOOK,
                         today="fp")  # fmt: skip
    assert got.status == status, got


def test_a_reading_whose_fingerprint_changed_since_the_ledger_is_post_hoc():
    got = reading_status("s", "a", scale="paper", seed=0, first_run="2026-11-28T00:00:00+00:00",
                         book=BOOK, today="new")  # fmt: skip
    assert got.status == "post-hoc" and "ledger" in got.detail


def test_fingerprints_are_stored_with_the_data_and_kept_on_later_writes(tmp_path):
    with ResultsStore(tmp_path, mode="w") as store:
        note_readings(store, "stagewise-cyclic", "paper", 0, "stagewise-cyclic")
        first = stored_readings(store, "stagewise-cyclic", "paper", 0)
        note_readings(store, "stagewise-cyclic", "paper", 0, "stagewise-cyclic")
        with pytest.raises(Exception, match="schema_version"):
            store.set_meta("schema_version", "9")
    with ResultsStore(tmp_path, mode="r") as store:
        again = stored_readings(store, "stagewise-cyclic", "paper", 0)
        assert store.meta_keys("readings/") == ["readings/stagewise-cyclic/paper/0"]
    assert again == first and set(first) == set(fingerprints("stagewise-cyclic"))
    assert all(len(v) == 1 for v in first.values())


def test_the_runner_stores_the_readings_with_the_runs(tmp_path):
    from safebandits.experiments.runner import run_tasks
    from safebandits.experiments.spec import expand, list_experiments

    tasks = expand(list_experiments()["stagewise-lower-bound"], "quick", replicates=1)[:2]
    with ResultsStore(tmp_path, mode="w") as store:
        run_tasks(tasks, store, workers=1, quiet=True)
    with ResultsStore(tmp_path, mode="r") as store:
        got = stored_readings(store, "stagewise-lower-bound", "quick", 0)
    assert set(got) == {"lb-regret"} and list(got["lb-regret"]) == [
        fingerprints("stagewise-lower-bound")["lb-regret"]
    ]


def test_every_ledger_entry_says_when_and_why():
    book = ledger()
    assert book and all(e.fixed[:4] == "2026" and e.why for e in book.values())
    # the readings issue 42 changed were fixed with seed 0's paper data in view: post-hoc until seed 1
    for name in ("stagewise-cyclic/e1-bound", "safelucb-karm/karm-order", "opb-random/e3-bound"):
        assert book[name].data_seen.get("paper") == [0]


# -- robustness markers ------------------------------------------------------------------------------

GAP = UnstatedSetting("e", "instance.gap", (0.1, 0.25, 0.5), "not given")


def test_marker_fragile_on_a_small_margin_or_a_flip():
    assert robustness_marker("pass", 0.23, seed_verdicts={0: "pass"})[0] == "fragile"
    marker, detail = robustness_marker("pass", 5.0, seed_verdicts={0: "pass", 1: "fail"})
    assert marker == "fragile" and "seed 1: FAIL" in detail


def test_marker_depends_on_a_setting_with_the_verdict_at_each_value():
    marker, detail = robustness_marker(
        "fail", 5.0, seed_verdicts={0: "fail", 1: "fail"}, settings=[GAP],
        setting_verdicts={"instance.gap": {"0.1": "pass", "0.5": "fail"}},
        default_values={"instance.gap": "0.25"},
    )  # fmt: skip
    assert marker == "depends on"
    assert "0.1: PASS" in detail and "0.25: FAIL" in detail and "0.5: FAIL" in detail


def test_marker_robust_only_when_every_seed_set_and_value_is_scored():
    common = {"settings": [GAP], "default_values": {"instance.gap": "0.25"}}
    marker, detail = robustness_marker("pass", 5.0, seed_verdicts={0: "pass"}, **common)
    assert marker == "untested" and "1 seed set" in detail and "instance.gap at 0.1, 0.5 not run" in detail
    marker, _ = robustness_marker(
        "pass", 5.0, seed_verdicts={0: "pass", 1: "pass"},
        setting_verdicts={"instance.gap": {"0.1": "pass", "0.5": "pass"}}, **common,
    )  # fmt: skip
    assert marker == "robust"
    assert robustness_marker("inconclusive", None, seed_verdicts={0: "inconclusive"}) == ("", "")


def test_a_default_stored_as_missing_counts_as_the_value_it_stands_for():
    """BESIDE's other safety gap is stored as None (derived at run time: epsilon / 2 = 0.25); the declared
    range lists 0.25, which the default's runs score."""
    derived = dataclasses.replace(GAP, default_value=0.25)
    common = {"settings": [derived], "default_values": {"instance.gap": "None"}}
    scored = {"instance.gap": {"0.1": "pass", "0.5": "pass"}}
    marker, detail = robustness_marker("pass", 5.0, seed_verdicts={0: "pass", 1: "pass"},
                                       setting_verdicts=scored, **common)  # fmt: skip
    assert marker == "robust", detail
    without = {"settings": [GAP], "default_values": {"instance.gap": "None"}}
    marker, detail = robustness_marker("pass", 5.0, seed_verdicts={0: "pass", 1: "pass"},
                                       setting_verdicts=scored, **without)  # fmt: skip
    assert marker == "untested" and "0.25 not run" in detail
    with pytest.raises(ConfigError, match="default_value"):
        dataclasses.replace(GAP, default_value=0.3)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["pass", "fail"]),
    st.one_of(st.none(), st.floats(-50, 50)),
    st.dictionaries(st.integers(0, 5), st.sampled_from(["pass", "fail", "inconclusive"]), max_size=4),
)
def test_marker_never_robust_across_a_flip_or_a_small_margin(verdict, margin, seeds):
    marker, _ = robustness_marker(verdict, margin, seed_verdicts={0: verdict, **seeds})
    flips = any(v in ("pass", "fail") and v != verdict for v in seeds.values())
    if flips or (margin is not None and abs(margin) < 1):
        assert marker == "fragile"
    if marker == "robust":
        assert not flips and len([v for v in {0: verdict, **seeds}.values() if v in ("pass", "fail")]) >= 2


def test_split_variants_by_seed_and_setting_value():
    df = pd.DataFrame(
        {
            "seed": [0, 0, 1, 0, 0],
            "label": ["A", "B", "A", "A", "B"],
            "instance.gap": [None, None, None, 0.5, None],
            "algorithm.combine": [None, "seq", "seq", None, None],
        }
    )
    combine = UnstatedSetting("e", "algorithm.combine", ("seq", "mix"), "not given")
    gap = UnstatedSetting("e", "instance.gap", (None, 0.5), "not given")
    primary, others, variants = split_variants(
        df, 0, [gap, combine], {"instance.gap": "None", "algorithm.combine": "seq"}
    )
    assert list(primary.index) == [0, 1, 4]  # (row 4: B without the combine setting: today's value)
    assert list(others) == [1] and list(others[1].index) == [2]
    assert list(variants) == ["instance.gap"] and list(variants["instance.gap"]["0.5"].index) == [3]
    assert (
        setting_value(0.25) == "0.25" and setting_value(float("nan")) == "None" and setting_value("1") == "1"
    )


def test_the_decisions_page_lists_every_reading_and_setting_as_the_ledgers_do():
    import importlib.util
    from pathlib import Path

    import safebandits

    docs = Path(safebandits.__file__).resolve().parents[1] / "docs"
    script = docs / "decisions_readings.py"
    if not script.exists():
        pytest.skip("the docs are not in this checkout")
    spec = importlib.util.spec_from_file_location("safebandits_docs_decisions_readings", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = mod.PAGE.read_text()
    assert text == mod.render(text), "run: python docs/decisions_readings.py"
    assert "`stagewise-cyclic/e1-bound`" in text and "`algorithm.gp_noise`" in text


def test_every_declared_setting_is_a_single_default_of_its_experiment():
    """A declared unstated setting is one value of every run that has it (runs at another value are made
    with --set); a setting the experiment sweeps is not unstated."""
    from safebandits.experiments.claims_scoring import _defaults
    from safebandits.experiments.robustness import UNSTATED, unstated_for
    from safebandits.experiments.spec import list_experiments

    unstated_for("any")  # (loads the declarations)
    specs = list_experiments()
    for experiment, rows in UNSTATED.items():
        defaults = _defaults(specs[experiment], "quick", rows)
        for s in rows:
            assert s.setting in defaults, (experiment, s.setting)
            assert defaults[s.setting] in {setting_value(v) for v in s.values} | {"None"}, (experiment, s)


def test_recording_a_changed_reading(tmp_path, monkeypatch):
    import shutil

    from click.testing import CliRunner

    from safebandits.cli import cli
    from safebandits.experiments import readings
    from safebandits.papers.stagewise import claims as sw

    real = readings._ledger_files()
    copies = {}
    for module, path in real.items():
        copies[module] = tmp_path / f"{module}.json"
        shutil.copy(path, copies[module])
    monkeypatch.setattr(readings, "_ledger_files", lambda: copies)
    assert CliRunner().invoke(cli, ["readings"]).output.strip() == "Every reading is in the ledger."
    monkeypatch.setattr(sw, "COST_TOL", 0.05)  # a changed threshold: every reading of the set moves
    todo = readings.ledger_mismatches()
    assert "stagewise-cyclic/e1-cost-0561" in todo and all(t.startswith("stagewise-cyclic/") for t in todo)
    listed = CliRunner().invoke(cli, ["readings"]).output
    assert "stagewise-cyclic/e1-cost-tau" in listed
    res = CliRunner().invoke(cli, ["readings", "--changed", "stagewise-cyclic/e1-cost-0561"])
    assert res.exit_code != 0 and "--why" in res.output
    others = [t for t in todo if t != "stagewise-cyclic/e1-cost-0561"]
    res = CliRunner().invoke(cli, ["readings", "--changed", "stagewise-cyclic/e1-cost-0561", "--why", "w"])
    assert res.exit_code != 0 and "name each as changed or unchanged" in res.output
    args = [
        "readings",
        "--changed",
        "stagewise-cyclic/e1-cost-0561",
        "--why",
        "tolerance 0.05",
        "--seen",
        "paper:0",
    ]
    for name in others:
        args += ["--unchanged", name]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    book = readings.ledger()
    assert readings.ledger_mismatches() == []
    assert book["stagewise-cyclic/e1-cost-0561"].data_seen == {"paper": [0]}
    assert book["stagewise-cyclic/e1-cost-0561"].fixed > "2026-11-29"
    old = readings.LedgerEntry(**json.loads(real["safebandits.papers.stagewise"].read_text())[others[0]])
    assert book[others[0]].fixed == old.fixed and "code revised" in book[others[0]].why


def test_a_long_why_shared_by_several_readings_is_printed_once_as_a_note():
    # (issue 44: the generated page had outgrown its size limit with the same notes repeated)
    from safebandits.experiments import readings

    long = "as the git history shows: a note long enough to be worth printing only once on the page"
    assert readings._shared_notes([long, "short", long, long, "x" * 70]) == {long: 1}
    lines = readings.ledger_markdown()
    notes = [line for line in lines if line.startswith("- **note ")]
    assert notes and len({n.split(":** ", 1)[1] for n in notes}) == len(notes)
    assert any(line.endswith("| note 1 |") for line in lines)


def test_a_paper_inside_another_papers_package_owns_its_readings():
    # the CLUCB2 paper is a sub-package of the CLUCB paper's: its readings go to its own ledger
    from safebandits.experiments import readings

    assert readings._owner("clucb2-regret") == "safebandits.papers.clucb.clucb2"
    assert readings._owner("clucb-alpha") == "safebandits.papers.clucb"
