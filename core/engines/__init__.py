"""Database engines behind one interface: SQLite (the embedded default), PostgreSQL and MySQL/MariaDB.

One module per engine (`sqlite.py`, `postgres.py`, `mysql.py`), each an `Engine` (`base.py`); a database is
named by a `DbRef` (`refs.py`), read from a URL (`urls.py`). Untrusted SQL on a server is checked first by
`statements.py`. `adapter_for` picks the engine of a reference; the server drivers (psycopg, PyMySQL) are
imported only when a server is used (the optional extra `sqltriage[engines]`).
"""
