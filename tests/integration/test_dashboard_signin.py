"""Issue 41, items 3 and 6: every body of the pages is capped (a 9 MiB form or multipart body: 413, never
500, and nothing stored); signing in is a form POST that sets an HTTP-only cookie, ``Secure`` over HTTPS,
and a token in a URL is never read; a dashboard on a new storage creates the study tables and serves its
pages and API (in a real server process too).
"""

from __future__ import annotations

import re
import warnings

import httpx
import pytest

import safebandits as sb
from safebandits.dashboard import create_app
from safebandits.dashboard.app import SECURITY_HEADERS, check_storage
from safebandits.dashboard.site import TOKEN_COOKIE

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

NINE_MIB = 9 * 1024 * 1024


@pytest.fixture
def storage(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=4)
    sb.create_study("batch", "acol", inst.public_info(), storage=url, seed=0, max_open=2).close()
    return url


def _answers(url):
    with sb.load_study("batch", url) as s:
        return s.n_answered, len(s.queries())


@pytest.mark.parametrize("path", ["/study/batch/ask", "/study/batch/query/0", "/signin", "/signout"])
@pytest.mark.parametrize("kind", ["form", "multipart", "form-chunked"])
def test_a_9_mib_body_on_a_page_is_413(storage, path, kind):
    app = create_app(storage, token="s3cret")
    client = TestClient(app, base_url="http://127.0.0.1")
    csrf = app.state.csrf_token
    before = _answers(storage)
    if kind == "form":
        r = client.post(path, data={"csrf": csrf, "token": "s3cret", "json": "x" * NINE_MIB})
    elif kind == "multipart":  # (with the valid token and CSRF token: still refused by its size)
        r = client.post(path, data={"csrf": csrf, "token": "s3cret"}, files={"json": ("a", b"x" * NINE_MIB)})
    else:  # no Content-Length: the body limit counts what arrives

        def chunks():
            yield f"csrf={csrf}&token=s3cret&json=".encode()
            for _ in range(9):
                yield b"x" * (1024 * 1024)

        r = client.post(path, content=chunks(), headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413, (r.status_code, r.text[:200])
    for key, value in SECURITY_HEADERS.items():
        assert r.headers.get(key) == value
    assert _answers(storage) == before


def test_a_form_the_parser_refuses_is_400_not_500(storage):
    app = create_app(storage, token="s3cret")
    client = TestClient(app, base_url="http://127.0.0.1")
    fields = {f"f{i}": "1" for i in range(1500)}  # (more fields than a page's form may hold)
    r = client.post("/study/batch/ask", data={"csrf": app.state.csrf_token, "token": "s3cret", **fields})
    assert r.status_code == 400
    files = {"upload": ("a.txt", b"x")}  # (no page takes a file)
    r = client.post("/study/batch/ask", data={"csrf": app.state.csrf_token, "token": "s3cret"}, files=files)
    assert r.status_code == 400
    assert _answers(storage) == (0, 0)


def test_a_small_multipart_answer_still_works(storage):
    app = create_app(storage, token="s3cret")
    client = TestClient(app, base_url="http://127.0.0.1")
    data = {"csrf": app.state.csrf_token, "token": "s3cret"}
    r = client.post("/study/batch/ask", data=data, files={"x": (None, b"1")}, follow_redirects=False)
    assert r.status_code == 303


def _csrf(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_sign_in_is_a_form_post_setting_the_cookie(storage, scheme):
    client = TestClient(create_app(storage, token="s3cret"), base_url=f"{scheme}://127.0.0.1")
    page = client.get("/signin?next=/study/batch/answer")
    assert page.status_code == 200 and 'name="token"' in page.text and "s3cret" not in page.text
    csrf = _csrf(page.text)
    # a token in a URL is never read: no cookie, answering still refused
    for url in ("/?token=s3cret", "/study/batch?token=s3cret", "/signin?token=s3cret"):
        r = client.get(url)
        assert "set-cookie" not in r.headers and TOKEN_COOKIE not in client.cookies
    assert client.post("/study/batch/ask", data={"csrf": csrf}).status_code == 403
    # wrong token, missing CSRF token, another site: refused, no cookie
    wrong = client.post("/signin", data={"csrf": csrf, "token": "nope"})
    assert wrong.status_code == 403 and "set-cookie" not in wrong.headers
    assert client.post("/signin", data={"token": "s3cret"}).status_code == 403
    foreign = client.post(
        "/signin", data={"csrf": csrf, "token": "s3cret"}, headers={"origin": "http://evil.example"}
    )
    assert foreign.status_code == 403 and "set-cookie" not in foreign.headers
    # the sign-in: a 303 to the local page asked for, an HTTP-only, same-site cookie (Secure over HTTPS)
    r = client.post(
        "/signin",
        data={"csrf": csrf, "token": "s3cret", "next": "/study/batch/answer"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"] == "/study/batch/answer"
    cookie = r.headers["set-cookie"].lower()
    assert cookie.startswith(TOKEN_COOKIE) and "httponly" in cookie and "samesite=strict" in cookie
    assert ("secure" in cookie.split(";")[-1] or "; secure" in cookie) == (scheme == "https")
    assert "token" not in r.headers["location"]
    answer = client.get("/study/batch/answer")
    assert 'name="token"' not in answer.text and "sign-out" in answer.text  # (signed in: no token field)
    assert client.post("/study/batch/ask", data={"csrf": csrf}, follow_redirects=False).status_code == 303
    out = client.post("/signout", data={"csrf": csrf}, follow_redirects=False)
    assert out.status_code == 303 and TOKEN_COOKIE in out.headers["set-cookie"]
    client.cookies.clear()
    assert client.post("/study/batch/ask", data={"csrf": csrf}).status_code == 403


@pytest.mark.parametrize("target", ["//evil.example/x", "https://evil.example/", "/\\evil", "javascript:x"])
def test_sign_in_redirects_only_to_the_dashboard(storage, target):
    app = create_app(storage, token="s3cret")
    client = TestClient(app, base_url="http://127.0.0.1")
    data = {"csrf": app.state.csrf_token, "token": "s3cret", "next": target}
    r = client.post("/signin", data=data, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"


def test_a_dashboard_starts_from_a_new_storage(tmp_path):
    url = f"sqlite:///{tmp_path / 'NEW.db'}"
    assert check_storage(url) is True and (tmp_path / "NEW.db").exists()
    assert check_storage(url) is False  # (then it is a study database like any other)
    client = TestClient(create_app(url, token="s3cret"), base_url="http://127.0.0.1")
    index = client.get("/")
    assert index.status_code == 200 and "No study in this storage yet" in index.text
    assert "safebandits study create" in index.text and "/api/v1/studies" in index.text
    api = {"authorization": "Bearer s3cret"}
    assert client.get("/api/v1/studies", headers=api).status_code == 200
    made = client.post(
        "/api/v1/studies",
        headers=api,
        json={"name": "first", "algorithm": "g-acol", "instance": "acol/one-dimensional", "seed": 0},
    )
    assert made.status_code == 201, made.text
    assert 'data-study="first"' in client.get("/").text


def test_a_dashboard_process_on_a_new_path_serves_pages_and_api(tmp_path):
    """``safebandits dashboard --storage sqlite:///NEW.db`` on a path with no file: it starts, creates the
    tables, and serves the pages and the API."""
    from tests.integration.test_dashboard_api_process import TOKEN, dashboard_process

    url = f"sqlite:///{tmp_path / 'NEW.db'}"
    with dashboard_process(url) as (base, stop):
        api = {"authorization": f"Bearer {TOKEN}"}
        assert httpx.get(f"{base}/", timeout=10).status_code == 200
        assert httpx.get(f"{base}/api/v1/studies", headers=api, timeout=10).status_code == 200
        made = httpx.post(
            f"{base}/api/v1/studies",
            headers=api,
            json={"name": "first", "algorithm": "g-acol", "instance": "acol/one-dimensional", "seed": 0},
            timeout=30,
        )
        assert made.status_code == 201, made.text
        assert 'data-study="first"' in httpx.get(f"{base}/", timeout=10).text
        output = stop()
    assert "new: no study yet" in output and TOKEN not in output


@pytest.mark.parametrize("behind_proxy", [False, True])
def test_the_cookie_is_secure_behind_a_trusted_https_proxy_only(storage, behind_proxy):
    """``serve(..., forwarded_allow_ips=...)`` runs uvicorn with its proxy-headers middleware: the
    scheme a trusted proxy forwards makes the cookie Secure; without it, a client's header is ignored."""
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    app = create_app(storage, token="s3cret")
    served = ProxyHeadersMiddleware(app, trusted_hosts="*") if behind_proxy else app
    client = TestClient(served, base_url="http://127.0.0.1")
    r = client.post(
        "/signin",
        data={"csrf": app.state.csrf_token, "token": "s3cret"},
        headers={"x-forwarded-proto": "https"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert ("secure" in [p.strip() for p in r.headers["set-cookie"].lower().split(";")]) == behind_proxy
