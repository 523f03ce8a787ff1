"""Issue 30, case 8 against a real server process: the curl client of ``examples/http_api_client.sh``
answers a study to its recommendation, and no password of a storage URL appears in any API response or
line of the server's log.

The server is ``safebandits dashboard`` started as a separate process on 127.0.0.1 (a free port), with a
token, stopped at the end of each test; every wait is bounded.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

import safebandits as sb
from safebandits.study.storage import open_storage

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "http_api_client.sh"
TOKEN = "tok-9f3b-API"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def dashboard_process(url: str, token: str | None = TOKEN):
    """``safebandits dashboard --storage URL`` in its own process (the token through the environment,
    not the command line); yields ``(base_url, output)`` where ``output()`` stops it and returns
    everything it printed."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    env.pop("SAFEBANDITS_DASHBOARD_TOKEN", None)
    if token is not None:
        env["SAFEBANDITS_DASHBOARD_TOKEN"] = token
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from safebandits.cli import main; sys.exit(main(sys.argv[1:]))",
         "dashboard", "--storage", url, "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    printed: list[str] = []

    def stop() -> str:
        if proc.poll() is None:
            proc.terminate()
            try:
                printed.append(proc.communicate(timeout=30)[0])
            except subprocess.TimeoutExpired:
                proc.kill()
                printed.append(proc.communicate()[0])
        return "".join(printed)

    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, f"the dashboard stopped: {stop()}"
            assert time.monotonic() < deadline, "the dashboard did not answer within 60 s"
            try:
                if httpx.get(f"{base}/api/v1/openapi.json", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        yield base, stop
    finally:
        stop()


def _reference(seed: int, n_queries: int, url: str):
    """The study of the script through the Python API, answered by the script's rule."""
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    s = sb.create_study("ref", "acol", inst.public_info(), storage=url, seed=seed)
    while not s.done and len(s.queries()) < n_queries:
        q = s.ask()
        sums = []
        for k, n in enumerate(np.asarray(q.counts).tolist()):
            p = int(np.floor(n * (1 + 0.06 * (k + 1)) / 2 + 0.5))
            sums.append([2 * p - n])
        s.tell(q.id, {"constraint_sums": sums})
    return s


@pytest.mark.timeout(300)
@pytest.mark.skipif(
    not (shutil.which("curl") and shutil.which("jq") and shutil.which("sh")),
    reason="curl, jq or sh missing (.ci/run installs curl and jq)",
)
def test_curl_client_answers_a_study_like_the_python_api(tmp_path):
    url = f"sqlite:///{tmp_path / 'api.db'}"
    open_storage(url).close()
    with dashboard_process(url) as (base, stop):
        env = {**os.environ, "SAFEBANDITS_URL": base, "SAFEBANDITS_TOKEN": TOKEN}
        run = subprocess.run(["sh", str(SCRIPT), "by-curl"], env=env, capture_output=True, text=True,
                             timeout=180)  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
        printed = json.loads(run.stdout.strip().splitlines()[-1])
        # without the token the script stops at its first call, naming the refusal
        env.pop("SAFEBANDITS_TOKEN")
        refused = subprocess.run(["sh", str(SCRIPT), "no-token"], env=env, capture_output=True, text=True,
                                 timeout=60)  # fmt: skip
        assert refused.returncode != 0 and "HTTP 401" in refused.stderr, refused.stderr
        log = stop()
    assert "Traceback" not in log and TOKEN not in log, log
    assert sb.list_studies(url) == ["by-curl"]
    ref = _reference(7, 50, f"sqlite:///{tmp_path / 'ref.db'}")
    assert ref.done and printed["final"] is True
    assert printed["arm"] == ref.recommend().arm and printed["n_samples"] == ref.recommend().n_samples
    assert printed["queries"] == len(ref.queries())
    with sb.load_study("by-curl", url) as s:  # what the server stored is what the Python API stored
        assert [(q["decision"], q["observation"]) for q in s.queries()] == [
            (q["decision"], q["observation"]) for q in ref.queries()
        ]
        assert s.recommend() == ref.recommend()
    ref.close()


# -- no password in any response or log line --------------------------------------------------------------


def _api_calls(name: str) -> list[tuple[str, str, dict | None]]:
    return [
        ("GET", "/api/v1/studies", None),
        ("POST", "/api/v1/studies", {"name": name, "algorithm": "acol", "instance": "acol/one-dimensional",
                                     "instance_params": {"noise": "binary", "n_arms": 5}, "seed": 0}),
        ("POST", "/api/v1/studies", {"name": name, "algorithm": "acol", "instance": "acol/one-dimensional"}),
        ("GET", f"/api/v1/studies/{name}", None),
        ("POST", f"/api/v1/studies/{name}/ask", {}),
        ("POST", f"/api/v1/studies/{name}/tell", {"id": 0, "answer": "bad"}),
        ("POST", f"/api/v1/studies/{name}/tell", {"id": 9, "answer": -1}),
        ("GET", f"/api/v1/studies/{name}/recommendation", None),
        ("GET", f"/api/v1/studies/{name}/queries", None),
        ("POST", f"/api/v1/studies/{name}/expire", {}),
        ("GET", "/api/v1/studies/nope", None),
        ("POST", "/api/v1/studies/nope/ask", {}),
    ]  # fmt: skip


def _pieces(secret: str) -> list[str]:
    from tests.integration.test_redaction import pieces

    return pieces(secret)


@pytest.mark.slow  # (about 12 s; the served-process password test stays in the default run)
def test_no_password_in_responses_or_logs_of_an_unreachable_storage(caplog):
    """Every call fails (503) on a PostgreSQL URL nothing answers: the messages and log lines are redacted."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from safebandits.dashboard import create_app
    from tests.integration.test_redaction import FORMS, ODD, PW

    for secret, forms in ((ODD, FORMS), (PW, FORMS[:1])):  # (every form with the harder password)
        for form, template in forms:
            url = template.format(pw=secret, host="127.0.0.1:1")
            client = TestClient(create_app(url, token=TOKEN), base_url="http://127.0.0.1",
                                raise_server_exceptions=False)  # fmt: skip
            texts = []
            with caplog.at_level(logging.DEBUG):
                for method, path, body in _api_calls("s"):
                    r = client.request(method, path, json=body, headers={"Authorization": f"Bearer {TOKEN}"})
                    assert r.status_code in (404, 409, 422, 503), (form, path, r.status_code, r.text)
                    texts.append(r.text)
            texts += [rec.getMessage() for rec in caplog.records]
            if form != "mysql":  # (no MySQL driver here: refused before any connection)
                assert any('"code":"unavailable"' in t for t in texts), form
            for text in texts:
                for piece in _pieces(secret):
                    assert piece not in text, (form, text)
            caplog.clear()


def test_no_password_in_responses_or_the_server_log(pg_url):
    """A working PostgreSQL storage whose URL holds the password (user:password and as a query
    parameter): every API response and every line the server process prints are free of it."""
    from tests.integration.pg_server import PASSWORD, USER

    base_url, db = pg_url.rsplit("/", 1)
    host = base_url.rpartition("@")[2]
    forms = [pg_url, f"postgresql+psycopg://{USER}@{host}/{db}?password={PASSWORD}"]
    for i, url in enumerate(forms):
        open_storage(url).close()
        with dashboard_process(url) as (base, stop):
            texts = []
            auth = {"Authorization": f"Bearer {TOKEN}"}
            for method, path, body in _api_calls(f"s{i}"):
                r = httpx.request(method, base + path, json=body, headers=auth, timeout=60)
                assert r.status_code < 500, (path, r.text)
                texts.append(r.text)
            summary = httpx.get(f"{base}/api/v1/studies/s{i}", headers=auth, timeout=60).json()
            assert "***" in summary["storage"] and summary["n_queries"] >= 1
            texts.append(stop())
        for text in texts:
            assert PASSWORD not in text, text
        assert "Traceback" not in texts[-1]


@pytest.mark.timeout(300)
def test_concurrent_clients_lose_no_answer(tmp_path):
    """Four clients ask and tell at once (the server handles requests in threads): every answer a client
    was told is stored is stored, once, with the value it sent."""
    import threading

    url = f"sqlite:///{tmp_path / 'c.db'}"
    open_storage(url).close()
    sent: dict[int, int] = {}
    errors: list[str] = []
    with dashboard_process(url) as (base, stop):
        auth = {"Authorization": f"Bearer {TOKEN}"}
        r = httpx.post(f"{base}/api/v1/studies", headers=auth, timeout=60, json={
            "name": "c", "algorithm": "acol", "instance": "acol/one-dimensional",
            "instance_params": {"noise": "binary", "n_arms": 5}, "seed": 0, "max_open": 4,
        })  # fmt: skip
        assert r.status_code == 201, r.text

        def worker() -> None:
            with httpx.Client(base_url=base, headers=auth, timeout=60) as c:
                for _ in range(15):
                    r = c.post("/api/v1/studies/c/ask", headers={"content-type": "application/json"})
                    if r.status_code == 409:  # every pull that can be handed out is out
                        time.sleep(0.02)
                        continue
                    if r.status_code != 200:
                        errors.append(r.text)
                        continue
                    q = r.json()
                    answer = -1 if q["arm"] < 3 else 1
                    t = c.post("/api/v1/studies/c/tell", json={"id": q["id"], "answer": answer})
                    if t.status_code == 200:
                        sent[q["id"]] = answer
                    else:
                        errors.append(t.text)

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=240)
        log = stop()
    assert not errors and "Traceback" not in log, (errors[:3], log)
    assert len(sent) >= 20
    with sb.load_study("c", url) as s:
        stored = {q["id"]: q["observation"] for q in s.queries() if q["observation"] is not None}
        assert s.n_answered == len(sent)
    assert {i: o["constraints"][0] for i, o in stored.items()} == sent
