"""Fixtures of the experiment-machinery tests."""

from __future__ import annotations

import importlib

import pytest


@pytest.fixture
def fakes():
    """The fake learners and experiment, registered for the duration of one test only."""
    module = importlib.import_module("tests.unit.experiments.fakes")
    module.register()
    yield module
    module.unregister()
