"""Studies on PostgreSQL through SQLAlchemy, against a throwaway server the tests start (``pg_server.py``).

``SAFEBANDITS_TEST_POSTGRES_URL`` (e.g. ``postgresql+psycopg://user:pw@127.0.0.1:5432/db``) points them at
an existing server instead; they skip with the reason when no server can be started.
"""

from __future__ import annotations

import uuid

import numpy as np
import pytest

import safebandits as sb
from safebandits.exceptions import ConfigError, ProtocolError


def test_postgres_study_round_trip(pg_url):
    URL = pg_url
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    name = f"pg-{uuid.uuid4().hex[:12]}"
    study = sb.create_study(name, "g-acol", inst.public_info(), storage=URL, seed=3)
    ref = sb.make_learner("g-acol", inst.public_info(), sb.learner_rng(sb.RunKey(3, 0, "g-acol", 0)))
    for i in range(30):
        if i % 10 == 5:
            study.close()
            study = sb.load_study(name, URL)
        q, d = study.ask(), ref.ask()
        assert q.arm == d.arm and study.ask().id == q.id
        y = 1.0 if np.random.default_rng([1, i]).random() < 0.5 else -1.0
        with pytest.raises(ConfigError, match=r"\+1 or -1"):
            study.tell(q.id, 0.0)
        study.tell(q.id, y)
        ref.tell(d, sb.Observation(None, np.array([y])))
    with pytest.raises(ProtocolError, match="already told"):
        study.tell(29, 1)
    assert sb.load_study(name, URL).summary()["n_answered"] == 30
    assert study.recommend().arm == ref.recommend(anytime=True).arm


def test_postgres_snapshots_and_the_version_1_migration(pg_url):
    """Incremental studies on PostgreSQL: the snapshot (a TEXT column of some kilobytes) round-trips and a
    load replays only the answers since; a version-1 database (no ``sb_snapshots``) is read as it is by a
    read-only process and migrated by a writer."""
    import sqlalchemy

    from safebandits.study.snapshot import same_state
    from safebandits.study.storage import open_storage

    inst = sb.make_instance("stagewise/four-arm", tau=0.5)
    study = sb.create_study("snap", "opb", inst.public_info(), storage=pg_url, seed=1, snapshot_every=5)
    env = inst.environment(np.random.default_rng(0))
    for _ in range(23):
        q = study.ask()
        study.tell(q.id, env.play(q.decision))
    study.close()
    restored = sb.load_study("snap", pg_url)
    full = sb.load_study("snap", pg_url, snapshots=False)
    assert restored._loaded_from == 20 and restored._replayed == 3 and full._replayed == 23
    assert same_state(restored.learner, full.learner) and restored.verify()["identical"]
    restored.close()
    full.close()
    engine = sqlalchemy.create_engine(pg_url)
    with engine.begin() as conn:  # back to version 1
        conn.execute(sqlalchemy.text("DROP TABLE sb_snapshots"))
        conn.execute(sqlalchemy.text("UPDATE sb_meta SET value = '1' WHERE key = 'schema_version'"))
    reader = sb.load_study("snap", open_storage(pg_url, create=False, read_only=True))
    assert reader._loaded_from is None and reader._replayed == 23 and reader.summary()["n_answered"] == 23
    reader.close()
    with engine.begin() as conn:
        assert "sb_snapshots" not in sqlalchemy.inspect(conn).get_table_names()
    sb.load_study("snap", pg_url).close()  # a writer: migrates, and stores a snapshot after the replay
    with engine.begin() as conn:
        version = conn.execute(sqlalchemy.text("SELECT value FROM sb_meta WHERE key = 'schema_version'"))
        assert version.scalar() == "2"
        seq = conn.execute(sqlalchemy.text("SELECT seq FROM sb_snapshots WHERE study = 'snap'")).scalar()
    engine.dispose()
    assert seq == 23 and sb.load_study("snap", pg_url)._loaded_from == 23
