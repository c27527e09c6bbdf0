"""Throwaway PostgreSQL 15 and MariaDB servers for the engine tests: real servers, never mocks.

Each server lives in a temporary folder on a free port, listens on 127.0.0.1 only, and is stopped (and its
folder removed) when the test session ends. PostgreSQL refuses to run as root, and MariaDB's server is told
which account to run as, so under root both run as their Debian system users (`postgres`, `mysql`). When
the binaries cannot be had the fixtures skip with the reason; `.ci/run` installs them.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PG_BIN = Path("/usr/lib/postgresql/15/bin")
MARIADB_SERVER = ("mariadbd", "mysqld")
MARIADB_INSTALL_DB = ("mariadb-install-db", "mysql_install_db")
START_TIMEOUT = 60.0


@dataclass(frozen=True)
class Server:
    """A running server: its admin URL (a superuser) and where it keeps its files."""

    engine: str  # "postgresql" | "mysql"
    host: str
    port: int
    admin_user: str
    folder: Path

    def url(self, dbname: str, user: str | None = None, password: str | None = None) -> str:
        who = user or self.admin_user
        if password:
            who = f"{who}:{password}"
        return f"{self.engine}://{who}@{self.host}:{self.port}/{dbname}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_user(user: str | None) -> list[str]:
    """A command prefix that runs as `user` when this process is root (else as ourselves)."""
    if os.geteuid() != 0 or user is None:
        return []
    return ["runuser", "-u", user, "--"]


def _owned_folder(prefix: str, user: str | None) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    if os.geteuid() == 0 and user is not None:
        pw = pwd.getpwnam(user)
        os.chown(folder, pw.pw_uid, pw.pw_gid)
    folder.chmod(0o700)
    return folder


def postgres_missing() -> str | None:
    """Why PostgreSQL 15 cannot be started here, or None."""
    if not (PG_BIN / "initdb").exists() or not (PG_BIN / "pg_ctl").exists():
        return f"PostgreSQL 15 not installed ({PG_BIN}/initdb missing: apt-get install postgresql-15)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no `postgres` user to run PostgreSQL as"
    return None


def _wait_port(port: int, proc_alive, what: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        with socket.socket() as s:
            s.settimeout(0.5)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if not proc_alive():
            break
        time.sleep(0.2)
    tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
    raise RuntimeError(f"{what} did not start on port {port}:\n{tail}")


def start_postgres() -> Iterator[Server]:
    """initdb + pg_ctl in a temporary folder; yields the server, stops it and removes the folder."""
    user = "postgres" if os.geteuid() == 0 else None
    folder = _owned_folder("sqltriage-pg-", user)
    data, log = folder / "data", folder / "log"
    port = free_port()
    prefix = _as_user(user)
    admin = user or pwd.getpwuid(os.geteuid()).pw_name
    subprocess.run(
        [*prefix, str(PG_BIN / "initdb"), "-D", str(data), "-U", admin, "--auth=trust", "-E", "UTF8",
         "--locale=C.UTF-8", "--no-sync"],
        check=True, capture_output=True, cwd=folder,
    )  # fmt: skip
    options = f"-h 127.0.0.1 -p {port} -k {folder} -c fsync=off -c full_page_writes=off -c max_connections=60"
    subprocess.run(
        [*prefix, str(PG_BIN / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w", "-t", "60",
         "start"],
        check=True, capture_output=True, cwd=folder,
    )  # fmt: skip
    try:
        _wait_port(port, lambda: True, "PostgreSQL", log)
        yield Server("postgresql", "127.0.0.1", port, admin, folder)
    finally:
        subprocess.run(
            [*prefix, str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
            capture_output=True, cwd=folder,
        )  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)


def mariadb_missing() -> str | None:
    """Why MariaDB cannot be started here, or None."""
    if not any(shutil.which(b) or Path(f"/usr/sbin/{b}").exists() for b in MARIADB_SERVER):
        return "MariaDB not installed (apt-get install mariadb-server; .ci/run does it)"
    if not any(shutil.which(b) for b in MARIADB_INSTALL_DB):
        return "mariadb-install-db not found (apt-get install mariadb-server)"
    return None


def _binary(names: tuple[str, ...]) -> str:
    for name in names:
        found = shutil.which(name) or (f"/usr/sbin/{name}" if Path(f"/usr/sbin/{name}").exists() else None)
        if found:
            return found
    raise FileNotFoundError(names[0])


def start_mariadb() -> Iterator[Server]:
    """mariadb-install-db + mariadbd in a temporary folder; yields the server, stops it, removes the folder."""
    user = "mysql" if os.geteuid() == 0 else None
    folder = _owned_folder("sqltriage-maria-", user)
    data, log = folder / "data", folder / "log"
    port = free_port()
    prefix = _as_user(user)
    run_as = ["--user=mysql"] if user else []
    files = folder / "files"  # the only folder the server may read or write files in (and tests watch)
    files.mkdir()
    if user:
        pw = pwd.getpwnam(user)
        os.chown(files, pw.pw_uid, pw.pw_gid)
    subprocess.run(
        [*prefix, _binary(MARIADB_INSTALL_DB), "--no-defaults", f"--datadir={data}",
         "--auth-root-authentication-method=normal", "--skip-test-db", "--lower-case-table-names=1",
         *run_as],
        check=True, capture_output=True, cwd=folder,
    )  # fmt: skip
    proc = subprocess.Popen(
        [*prefix, _binary(MARIADB_SERVER), "--no-defaults", f"--datadir={data}", f"--port={port}",
         "--bind-address=127.0.0.1", f"--socket={folder / 'sock'}", f"--pid-file={folder / 'pid'}",
         f"--log-error={log}", "--skip-name-resolve", "--innodb-flush-log-at-trx-commit=0",
         "--innodb-buffer-pool-size=64M", "--lower-case-table-names=1", "--performance-schema=OFF", "--max-connections=60",
         f"--secure-file-priv={files}", *run_as],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=folder,
    )  # fmt: skip
    try:
        _wait_port(port, lambda: proc.poll() is None, "MariaDB", log)
        # root@localhost only exists: grant root over TCP from 127.0.0.1, through the socket
        import pymysql

        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                conn = pymysql.connect(unix_socket=str(folder / "sock"), user="root", password="")
                break
            except pymysql.err.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        with conn.cursor() as cur:
            cur.execute("CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''")
            cur.execute("GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION")
        conn.close()
        yield Server("mysql", "127.0.0.1", port, "root", folder)
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)
