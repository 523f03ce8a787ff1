"""The entry-point loader (safebandits._entry_points): a group is imported once, and a thread that asks
while another imports it waits instead of seeing half the group (the learners are found this way)."""

from __future__ import annotations

import threading

import pytest

from safebandits import _entry_points

GROUP = "safebandits.test-group"


class SlowEntryPoint:
    """An entry point whose import takes until it is released."""

    name = "slow"
    value = "slow_module"

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.loads = 0

    def load(self) -> None:
        self.loads += 1
        self.started.set()
        assert self.release.wait(10), "never released"


@pytest.fixture
def slow(monkeypatch):
    ep = SlowEntryPoint()
    monkeypatch.setattr(_entry_points, "entry_points", lambda group: [ep] if group == GROUP else [])
    monkeypatch.setattr(_entry_points, "_DONE", set())
    return ep


def test_a_second_thread_waits_for_the_group_and_it_is_imported_once(slow):
    events: list[str] = []
    first = threading.Thread(target=lambda: (_entry_points.load_group(GROUP), events.append("first")))
    first.start()
    assert slow.started.wait(10)
    second = threading.Thread(target=lambda: (_entry_points.load_group(GROUP), events.append("second")))
    second.start()
    second.join(0.3)
    assert second.is_alive() and events == []  # waiting: the group is half imported
    events.append("released")
    slow.release.set()
    first.join(10)
    second.join(10)
    assert events[0] == "released" and sorted(events[1:]) == ["first", "second"]
    assert slow.loads == 1
    _entry_points.load_group(GROUP)  # done: returns at once, imports nothing again
    assert slow.loads == 1


def test_a_package_of_the_group_asking_for_its_own_group_gets_an_answer_at_once(monkeypatch):
    calls: list[str] = []

    class Reentrant:
        name, value = "re", "re_module"

        def load(self) -> None:
            calls.append("load")
            _entry_points.load_group(GROUP)  # (a package of the group asks while it is imported)
            calls.append("inner returned")

    monkeypatch.setattr(_entry_points, "entry_points", lambda group: [Reentrant()] if group == GROUP else [])
    monkeypatch.setattr(_entry_points, "_DONE", set())
    _entry_points.load_group(GROUP)
    assert calls == ["load", "inner returned"]
