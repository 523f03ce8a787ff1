"""Debian packages the tests need (a PostgreSQL server, Chromium), installed when missing.

Only as root on a machine with apt-get, and only once per package and session; set
``SAFEBANDITS_TEST_APT=0`` to forbid it (the tests that need the package then skip and say why).
``.ci/run`` installs the same packages before the tests, so this is the fallback for a bare ``make test``.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess


@functools.cache
def apt_install(package: str) -> bool:
    """Try ``apt-get install -y PACKAGE`` (refreshing the package lists once if that fails)."""
    if os.environ.get("SAFEBANDITS_TEST_APT", "1") == "0" or os.geteuid() != 0 or not shutil.which("apt-get"):
        return False
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", package]
    done = subprocess.run(install, env=env, capture_output=True, timeout=900, check=False)
    if done.returncode != 0:  # stale or missing package lists on a fresh machine
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, timeout=600, check=False)
        done = subprocess.run(install, env=env, capture_output=True, timeout=900, check=False)
    return done.returncode == 0
