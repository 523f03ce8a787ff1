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
