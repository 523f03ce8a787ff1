"""A throwaway PostgreSQL server for the tests: initdb + pg_ctl in a temporary folder.

Found in ``$PATH`` or ``/usr/lib/postgresql/*/bin``; when missing and running as root on Debian, ``apt-get
install -y postgresql`` is tried once (set ``SAFEBANDITS_TEST_PG_INSTALL=0`` to forbid it). As root the
cluster runs as the ``postgres`` user (PostgreSQL refuses to run as root). Every connection URL carries
the known password :data:`PASSWORD`, so the tests can check it is never printed. Tests skip with the
reason when no server can be started; ``SAFEBANDITS_TEST_POSTGRES_URL`` points them at an existing one
instead.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

from tests.system_packages import apt_install

PASSWORD = "Sb-t0p-SECRET-pw-7c1e"
USER = "sbtest"


def _bin_dir() -> str | None:
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))[::-1]
    which = shutil.which("initdb")
    if which:
        candidates.append(os.path.dirname(which))
    for folder in candidates:
        if all(os.access(os.path.join(folder, b), os.X_OK) for b in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


def _install() -> str | None:
    if os.environ.get("SAFEBANDITS_TEST_PG_INSTALL", "1") == "0":
        return None
    apt_install("postgresql")
    return _bin_dir()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(
        self, url_base: str, admin: str, stop: list[str] | None = None, run_as: list[str] | None = None
    ):
        self.url_base, self.admin, self.stop_cmd, self.run_as = url_base, admin, stop, run_as or []

    def url(self, database: str = "postgres") -> str:
        return f"{self.url_base}/{database}"

    def fresh_database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = f"sb_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


@contextlib.contextmanager
def postgres_server() -> Iterator[Server | str]:
    """Yield a running :class:`Server`, or a string saying why none could be started."""
    external = os.environ.get("SAFEBANDITS_TEST_POSTGRES_URL")
    if external:
        base, _, _db = external.rpartition("/")
        admin = external.replace("postgresql+psycopg://", "postgresql://")
        yield Server(base, admin)
        return
    try:
        import psycopg  # noqa: F401
        import sqlalchemy  # noqa: F401
    except ImportError as exc:
        yield f"needs sqlalchemy and psycopg ({exc})"
        return
    folder = _bin_dir() or _install()
    if folder is None:
        yield "no PostgreSQL server binaries (initdb, pg_ctl) and they could not be installed"
        return
    tmp = Path(tempfile.mkdtemp(prefix="sb-pg-"))
    run_as: list[str] = []
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            user = pwd.getpwnam("nobody")
        os.chown(tmp, user.pw_uid, user.pw_gid)
        run_as = ["runuser", "-u", user.pw_name, "--"]
    data, log = tmp / "data", tmp / "log"
    port = _free_port()
    pwfile = tmp / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if run_as:
        os.chown(pwfile, pwd.getpwnam(run_as[2]).pw_uid, -1)
    init = subprocess.run(
        [*run_as, f"{folder}/initdb", "-D", str(data), "-U", USER, "--pwfile", str(pwfile),
         "-A", "scram-sha-256", "-E", "UTF8", "--no-sync"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    if init.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        yield f"initdb failed: {init.stderr.strip()[-300:]}"
        return
    opts = f"-F -k {tmp} -p {port} -c listen_addresses=127.0.0.1 -c max_connections=60"
    ctl = [*run_as, f"{folder}/pg_ctl", "-D", str(data)]
    start = subprocess.run(
        [*ctl, "-l", str(log), "-w", "-t", "60", "-o", opts, "start"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    if start.returncode != 0:
        detail = log.read_text()[-300:] if log.exists() else start.stderr
        shutil.rmtree(tmp, ignore_errors=True)
        yield f"pg_ctl start failed: {detail.strip()}"
        return
    base = f"postgresql+psycopg://{USER}:{PASSWORD}@127.0.0.1:{port}"
    admin = f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{port}/postgres"
    try:
        yield Server(base, admin)
    finally:
        subprocess.run([*ctl, "-m", "immediate", "stop"], capture_output=True, timeout=60, check=False)
        shutil.rmtree(tmp, ignore_errors=True)
