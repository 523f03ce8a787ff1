"""``--set KEY=VALUE`` parsing (property-based): JSON values round-trip, anything else stays a string."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.exceptions import ConfigError
from safebandits.experiments.spec import parse_assignments

_keys = st.from_regex(r"(instance\.|algorithm\.)?[a-z_][a-z0-9_]{0,10}", fullmatch=True)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(_keys, _json, max_size=4))
def test_json_values_round_trip(values):
    items = [f"{k}={json.dumps(v)}" for k, v in values.items()]
    assert parse_assignments(items) == values


@settings(max_examples=40, deadline=None)
@given(_keys, st.text())
def test_other_values_are_strings_and_the_first_equals_splits(key, raw):
    parsed = parse_assignments([f"{key}={raw}"])
    assert list(parsed) == [key]
    try:
        expected = json.loads(raw)
    except json.JSONDecodeError:
        expected = raw
    assert parsed[key] == expected or (expected != expected and parsed[key] != parsed[key])  # NaN


@settings(max_examples=40, deadline=None)
@given(st.text().filter(lambda s: "=" not in s or not s.partition("=")[0].strip()))
def test_items_without_a_key_are_refused(item):
    with pytest.raises(ConfigError, match="must look like key=value"):
        parse_assignments([item])
