"""The examples in ``examples/`` run and pass their own checks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_study_simulated_human_kill_and_reload(tmp_path):
    """A study killed with SIGKILL midway and reloaded ends with the uninterrupted run's answer."""
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "study_simulated_human.py"), "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["check"] == "PASS" and out["killed_with_sigkill"] and out["same_history"]
    assert 0 < out["answers_when_killed"] < out["queries"]
    assert out["recommended_arm"]["interrupted"] == out["recommended_arm"]["uninterrupted"]


@pytest.mark.slow
def test_study_three_annotators(tmp_path):
    """Three processes answer one batch study at once: no answer lost, same state as one person."""
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "study_three_annotators.py"), "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["check"] == "PASS" and out["no_answer_lost"] and out["same_as_one_person"]
