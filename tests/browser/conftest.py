"""Headless Chromium (Debian's ``chromium``) driven by Playwright, and a dashboard server in a thread.

The tests skip, with the reason, where Playwright or the browser is missing (``.ci/run`` installs the
browser with apt-get when it runs as root). Screenshots go to ``$SAFEBANDITS_SCREENSHOTS`` when set
(``SAFEBANDITS_SCREENSHOTS=docs/images`` refreshes the ones in the docs), else to a temporary directory.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

from tests.system_packages import apt_install

CHROMIUM = os.environ.get("SAFEBANDITS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: Playwright's waits (navigation, selectors) in ms: they wait for a condition, not a fixed time, and
#: under load (a shared machine, a whole suite beside them) they get far more than the default 30 s.
#: ``SAFEBANDITS_BROWSER_TIMEOUT_S`` sets it (default 300 s).
TIMEOUT_MS = int(float(os.environ.get("SAFEBANDITS_BROWSER_TIMEOUT_S", "300")) * 1000)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """A fresh headless Chromium context (own user-data directory), shared by the browser tests."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed (pip install playwright)")
    if not Path(CHROMIUM).is_file() and not (apt_install("chromium") and Path(CHROMIUM).is_file()):
        pytest.skip(f"No Chromium at {CHROMIUM} (apt-get install -y chromium, as root)")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
        )
        context.set_default_timeout(TIMEOUT_MS)
        context.set_default_navigation_timeout(TIMEOUT_MS)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser):
    pg = browser.new_page()
    yield pg
    pg.close()


@pytest.fixture
def screenshots(tmp_path) -> Path:
    target = os.environ.get("SAFEBANDITS_SCREENSHOTS")
    out = Path(target) if target else tmp_path / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def serve():
    """``serve(storage, results=None, token=None) -> base URL``: the dashboard on 127.0.0.1 in a thread."""
    import uvicorn

    from safebandits.dashboard import create_app

    servers = []

    def start(storage: str, results=None, token=None) -> str:
        port = _free_port()
        config = uvicorn.Config(create_app(storage, results, token), host="127.0.0.1", port=port,
                                log_level="warning")  # fmt: skip
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the dashboard did not start")
            time.sleep(0.02)
        servers.append((server, thread))
        return f"http://127.0.0.1:{port}"

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=10)
