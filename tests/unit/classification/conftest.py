from __future__ import annotations

from pathlib import Path

import pytest


def shared_data_dir() -> Path | None:
    """The shared data folder (``<repo>/../shared/data`` or ``/work/shared/data``), if present."""
    here = Path(__file__).resolve()
    candidates = [p / ".." / "shared" / "data" for p in here.parents] + [Path("/work/shared/data")]
    for c in candidates:
        if (c / "uci_adult").is_dir() or (c / "uci_german").is_dir():
            return c.resolve()
    return None


@pytest.fixture
def shared_data() -> Path:
    root = shared_data_dir()
    if root is None:
        pytest.skip("the shared data folder (../shared/data) is not available")
    return root
