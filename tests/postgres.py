"""A throwaway PostgreSQL server for tests: Debian's binaries, a temp cluster, loopback only.

``initdb`` makes a cluster in a temp directory with password authentication (a generated
password), then ``postgres`` runs in the foreground, in its own process group, on a free
loopback port and without a Unix socket. Stopping it, always (also when starting failed),
ends the process group and removes the directory. PostgreSQL refuses to run as root, so as
root both run as the ``postgres`` user that Debian's package creates.

The binaries come from Debian's ``postgresql`` package (``make test`` installs it); without
them the fixture fails with a message that says so: the tests never skip silently.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from runtime.process import free_port, tail_file

USER = "edgeswarm"
START_TIMEOUT_S = 60.0


class PostgresUnavailable(RuntimeError):
    """The PostgreSQL server binaries are missing or the server did not start."""


def server_bin_dir() -> Path:
    """Where ``initdb`` and ``postgres`` are: Debian's newest version, else the PATH."""
    versions = [p.parent for p in Path("/usr/lib/postgresql").glob("*/bin/initdb")]
    versions.sort(key=lambda d: int(d.parent.name) if d.parent.name.isdigit() else 0)
    if versions:
        return versions[-1]
    initdb = shutil.which("initdb")
    if initdb is not None:
        return Path(initdb).resolve().parent
    raise PostgresUnavailable(
        "the PostgreSQL server is not installed (no initdb): `make test` installs Debian's "
        "postgresql package when run as root; else `sudo apt-get install postgresql`"
    )


def _run_as() -> dict[str, Any]:
    """Popen arguments that drop root to the ``postgres`` user; none for anyone else."""
    if os.geteuid() != 0:
        return {}
    try:
        account = pwd.getpwnam("postgres")
    except KeyError:
        raise PostgresUnavailable(
            "running as root and there is no postgres user (Debian's postgresql package "
            "creates it): PostgreSQL refuses to run as root"
        ) from None
    return {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}


@dataclass
class PostgresServer:
    """A running throwaway server; its superuser is :data:`USER`."""

    port: int
    password: str
    root: Path
    process: subprocess.Popen[bytes] | None = None
    _names: Iterator[int] = field(default_factory=itertools.count)

    def url(self, dbname: str = "postgres", *, password: str | None = None) -> str:
        """A connection URL for ``dbname``, with this server's password unless given another."""
        secret = self.password if password is None else password
        return f"postgresql://{USER}:{secret}@127.0.0.1:{self.port}/{dbname}"

    def create_database(self) -> str:
        """A fresh, empty database; its URL."""
        name = f"test_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url(name)

    def log(self) -> str:
        """The end of the server's log."""
        return tail_file(self.root / "server.log")


def _wait_ready(server: PostgresServer) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        assert server.process is not None
        if server.process.poll() is not None:
            raise PostgresUnavailable(f"postgres exited while starting:\n{server.log()}")
        try:
            psycopg.connect(server.url(), connect_timeout=2).close()
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise PostgresUnavailable(
                    f"postgres did not accept connections within {START_TIMEOUT_S:.0f} s:\n"
                    f"{server.log()}"
                ) from None
            time.sleep(0.2)
        else:
            return


def _stop(server: PostgresServer) -> None:
    """Fast shutdown (SIGINT to the postmaster), then KILL for anything left in its group."""
    process = server.process
    if process is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGINT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=20)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[PostgresServer]:
    """Start a server for the block; stop it and delete its files afterwards, always."""
    bin_dir, as_user = server_bin_dir(), _run_as()
    root = Path(tempfile.mkdtemp(prefix="edgeswarm-pg-"))
    server = PostgresServer(port=free_port(), password=secrets.token_urlsafe(16), root=root)
    try:
        if as_user:
            os.chown(root, as_user["user"], as_user["group"])
        password_file = root / "password"
        password_file.write_text(server.password)
        if as_user:
            os.chown(password_file, as_user["user"], as_user["group"])
        initdb = [str(bin_dir / "initdb"), "-D", str(root / "data"), "-U", USER]
        initdb += ["--auth=scram-sha-256", f"--pwfile={password_file}", "--no-locale"]
        initdb += ["--encoding=UTF8", "--no-sync"]
        done = subprocess.run(initdb, cwd=root, capture_output=True, text=True, **as_user)
        if done.returncode != 0:
            raise PostgresUnavailable(f"initdb failed:\n{done.stdout}{done.stderr}")
        command = [str(bin_dir / "postgres"), "-D", str(root / "data"), "-p", str(server.port)]
        for setting in ("listen_addresses=127.0.0.1", "unix_socket_directories=", "fsync=off"):
            command += ["-c", setting]
        with (root / "server.log").open("wb") as log:
            server.process = subprocess.Popen(
                command,
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                **as_user,
            )
        _wait_ready(server)
        yield server
    finally:
        _stop(server)
        shutil.rmtree(root, ignore_errors=True)
