"""Choice checks derived from the ``Literal`` annotations (issue 19, "one source per fact")."""

from __future__ import annotations

import dataclasses
from typing import Literal, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits._validation import check_literal_fields, literal_choices
from safebandits.algorithms.registry import list_algorithms
from safebandits.exceptions import ConfigError
from safebandits.papers.acol.simulator.cem import CEMConfig
from safebandits.papers.acol.simulator.dynamics import DrivingConfig


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Base:
    mode: Literal["fast", "slow"] = "fast"
    level: Literal[1, 2, 3] = 1
    maybe: Literal["a", "b"] | None = None
    old_style: Optional[Literal["x", "y"]] = "x"  # noqa: UP045 - the spelling under test
    free: str | Literal["auto"] = "auto"  # not a pure choice: left alone
    flag: bool = True

    def __post_init__(self) -> None:
        check_literal_fields(self)


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Child(_Base):
    rule: Literal["p", "q"] = "p"
    hidden: Undefined = None  # noqa: F821 - a name only a type checker sees


_ALLOWED = {
    "mode": ("fast", "slow"),
    "level": (1, 2, 3),
    "maybe": ("a", "b", None),
    "old_style": ("x", "y", None),
}


def test_choices_read_from_annotations():
    assert literal_choices(_Base) == _ALLOWED
    # inherited fields first (field order); an unresolvable annotation does not hide the others
    assert literal_choices(_Child) == {**_ALLOWED, "rule": ("p", "q")}
    assert literal_choices(_Child) is literal_choices(_Child)  # cached per class


def test_message_shape():
    with pytest.raises(
        ValueError,
        match=r"^The 'rule' parameter of _Child must be one of 'p', 'q'\. Got 'r' instead\.$",
    ):
        _Child(rule="r")
    with pytest.raises(ConfigError, match=r"'maybe' parameter of _Base must be one of 'a', 'b', None\."):
        _Base(maybe="c")


_TEXT = st.text(max_size=12)


@settings(max_examples=60, deadline=None)
@given(field=st.sampled_from(sorted(_ALLOWED)), value=_TEXT)
def test_values_outside_the_literal_are_refused(field, value):
    if value in _ALLOWED[field]:
        return
    allowed = ", ".join(map(repr, _ALLOWED[field]))
    with pytest.raises(ConfigError) as err:
        _Base(**{field: value})
    assert str(err.value) == (
        f"The {field!r} parameter of _Base must be one of {allowed}. Got {value!r} instead."
    )


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_every_allowed_value_is_accepted(data):
    values = {name: data.draw(st.sampled_from(choices), label=name) for name, choices in _ALLOWED.items()}
    made = _Child(**values, rule=data.draw(st.sampled_from(("p", "q"))), free="anything", flag=False)
    assert all(getattr(made, name) == value for name, value in values.items())


def test_owner_override():
    @dataclasses.dataclass(frozen=True)
    class Local:
        how: Literal["u", "v"] = "u"

    check_literal_fields(Local())
    with pytest.raises(ConfigError, match=r"^The 'how' parameter of Elsewhere must be one of 'u', 'v'\."):
        check_literal_fields(Local(how="w"), owner="Elsewhere")


# ---- the real configs: every Literal field of every registered learner config (and the driving ones) --


def _configs() -> list[type]:
    classes = {entry.cls.config_cls for entry in list_algorithms().values()}
    return sorted(classes | {CEMConfig, DrivingConfig}, key=lambda c: c.__name__)


_CASES = [(cls, name) for cls in _configs() for name in literal_choices(cls)]


def test_the_configs_have_literal_fields():
    assert len(_CASES) >= 30, len(_CASES)


@pytest.mark.parametrize(("cls", "name"), _CASES, ids=[f"{c.__name__}.{n}" for c, n in _CASES])
def test_config_literal_fields(cls, name):
    choices = literal_choices(cls)[name]
    allowed = ", ".join(map(repr, choices))
    with pytest.raises(ConfigError) as err:
        cls(**{name: "no-such-choice"})
    assert str(err.value) == (
        f"The {name!r} parameter of {cls.__name__} must be one of {allowed}. Got 'no-such-choice' instead."
    )
    for value in choices:  # each allowed value passes its own check (other rules may still object)
        try:
            cls(**{name: value})
        except ConfigError as exc:
            assert not str(exc).startswith(f"The {name!r} parameter"), exc


def test_gacol_codes_follow_the_annotation():
    from safebandits.algorithms.pure_exploration import g_acol

    assert g_acol._SELECTIONS == ("lookahead", "most_uncertain", "uniform", "max_reward")
    assert g_acol._SELECT_FROM == ("uncertain", "all", "feasible")


_Rule = Literal["p", "q"]


@given(st.text(max_size=3) | st.sampled_from(["p", "q"]))
@settings(max_examples=60, deadline=None)
def test_check_choice_reads_a_literal_alias(value):
    from safebandits._validation import check_choice

    if value in ("p", "q"):
        assert check_choice(value, "rule", _Rule) == value
    else:
        with pytest.raises(ConfigError, match=r"^The 'rule' parameter of f must be one of 'p', 'q'\. Got"):
            check_choice(value, "rule", _Rule, owner="f")
    assert check_choice("auto", "n", Literal["auto"] | _Rule) == "auto"  # unions of literals too


def test_no_choice_check_restates_a_tuple():
    """Every ``check_choice`` of the package names its annotation's alias, never a tuple of its own."""
    import re
    from pathlib import Path

    import safebandits

    root = Path(safebandits.__file__).parent
    calls = re.compile(r"check_choice\(\s*[^()]*?,\s*[^,]+,\s*\([^)]*\)", re.S)
    found = [
        f"{p.relative_to(root)}: {m.group(0)!r}"
        for p in root.rglob("*.py")
        for m in calls.finditer(p.read_text())
    ]
    # the bool switches (True, False) and Matérn's nu (floats cannot be Literal values) remain
    assert all("(True, False)" in f or "(0.5, 1.5, 2.5)" in f for f in found), found
