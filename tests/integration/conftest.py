"""Fixtures of the integration tests: a throwaway PostgreSQL server (see ``pg_server.py``)."""

from __future__ import annotations

import pytest

from tests.integration.pg_server import postgres_server


@pytest.fixture(scope="session")
def pg_server():
    """A running PostgreSQL server started for this test session (skips with the reason if impossible)."""
    with postgres_server() as server:
        if isinstance(server, str):
            pytest.skip(f"PostgreSQL: {server}")
        yield server


@pytest.fixture
def pg_url(pg_server):
    """The URL of a fresh, empty PostgreSQL database (with the known test password)."""
    return pg_server.fresh_database()


def pytest_terminal_summary(terminalreporter):
    """Print the number of fuzz cases tried per command (test_fuzz_cli.py)."""
    import sys

    module = sys.modules.get("tests.integration.test_fuzz_cli")
    counts = getattr(module, "FUZZ_COUNTS", None)
    if counts:
        terminalreporter.write_line(
            "FUZZ_COUNTS "
            + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
            + f" (total {sum(counts.values())})"
        )
