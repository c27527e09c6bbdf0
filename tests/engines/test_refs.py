"""Database URLs and references: the forms read, the password never shown, a clear error otherwise."""

from __future__ import annotations

import pytest

from sqltriage.core.engines.refs import DbRef, parse_url
from sqltriage.core.errors import UsageError


def test_postgres_url_with_placeholder() -> None:
    url = parse_url("postgresql://reader:s3cret@db.example:5433/bird_{db_id}?sslmode=disable")
    assert (url.engine, url.host, url.port, url.user, url.password) == (
        "postgresql", "db.example", 5433, "reader", "s3cret")  # fmt: skip
    assert url.per_db_id and url.database("california_schools") == "bird_california_schools"
    assert dict(url.params) == {"sslmode": "disable"}
    assert "s3cret" not in url.redacted() and "***" in url.redacted()
    ref = url.ref("card_games")
    assert ref.engine == "postgresql" and ref.dialect == "postgres"
    assert "s3cret" not in str(ref) and "s3cret" not in repr(ref)


def test_one_database_for_every_db_id() -> None:
    url = parse_url("mysql://root@127.0.0.1/BIRD")
    assert not url.per_db_id and url.database("anything") == "BIRD" and url.port is None
    a, b = url.ref("a"), url.ref("b")
    assert a != b and a.fingerprint != b.fingerprint
    assert parse_url("mariadb://u@h/x").engine == "mysql"
    assert parse_url("postgres://u@h/x").engine == "postgresql"


@pytest.mark.parametrize(
    "bad", ["sqlite:///x.db", "http://x/y", "postgresql://u@h", "postgresql://u:pw@h:notaport/d"]
)
def test_bad_urls_are_refused_without_the_password(bad: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_url(bad)
    assert "pw@" not in str(caught.value)


def test_sqlite_reference(tmp_path) -> None:
    db = tmp_path / "x.sqlite"
    db.write_bytes(b"")
    ref = DbRef.sqlite(db)
    assert ref.path == db and ref.dialect == "sqlite" and ref.db_id == "x" and len(ref.fingerprint) == 64
