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
