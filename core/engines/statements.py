"""Untrusted SQL checked before it reaches a server: one read-only query, no file or network access.

A server's READ ONLY transaction already refuses writes; this check refuses, with a clear message, what a
read-only transaction still lets through (reading server files, reaching other servers, session locks,
changing settings such as the statement timeout) and anything that is not a single query. Parsed with
sqlglot in the engine's dialect; where sqlglot cannot parse a statement the server may still accept, the
token-level rules below still hold and the server's own parser decides whether it is valid SQL.
"""

from __future__ import annotations

import functools
import re

import sqlglot
from sqlglot import exp, tokens
from sqlglot.errors import ParseError, TokenError

# Functions that read or write server files, reach the network, run programs, take locks that outlive a
# transaction, run SQL given as text (which would escape this check), or change settings and sessions.
FORBIDDEN_FUNCTIONS = frozenset(
    {
        # PostgreSQL
        "pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_stat_file", "pg_ls_logdir", "pg_ls_waldir",
        "pg_ls_tmpdir", "pg_ls_archive_statusdir", "pg_ls_logicalmapdir", "pg_ls_logicalsnapdir",
        "pg_ls_replslotdir", "pg_file_write", "pg_file_rename", "pg_file_unlink", "pg_logdir_ls",
        "lo_import", "lo_export", "lo_get", "lo_put", "lo_open", "lo_create", "lo_creat", "lo_unlink",
        "lo_from_bytea", "lo_truncate", "lo_truncate64", "loread", "lowrite",
        "set_config", "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile",
        "pg_promote", "pg_switch_wal", "pg_create_restore_point", "pg_backup_start", "pg_backup_stop",
        "pg_notify", "pg_advisory_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock",
        "pg_try_advisory_lock_shared", "pg_advisory_xact_lock", "pg_advisory_xact_lock_shared",
        "pg_try_advisory_xact_lock", "pg_try_advisory_xact_lock_shared", "pg_advisory_unlock",
        "pg_advisory_unlock_all", "pg_advisory_unlock_shared", "query_to_xml", "query_to_xmlschema",
        "query_to_xml_and_xmlschema", "cursor_to_xml", "cursor_to_xmlschema", "pg_import_system_collations",
        "pg_log_backend_memory_contexts", "pg_replication_origin_create", "pg_create_logical_replication_slot",
        "pg_create_physical_replication_slot", "pg_drop_replication_slot", "txid_current",
        # MySQL / MariaDB
        "load_file", "sys_exec", "sys_eval", "sys_get", "sys_set", "get_lock", "release_lock",
        "release_all_locks", "is_free_lock", "is_used_lock", "master_pos_wait", "source_pos_wait",
        "master_gtid_wait", "name_const",
    }
)  # fmt: skip
FORBIDDEN_PREFIXES = ("dblink", "pg_file_", "lo_", "sys_")
# Statement keywords that make anything other than a query (checked on tokens when sqlglot cannot parse)
_NOT_QUERY_WORDS = frozenset(
    {
        "INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE", "UPSERT", "CREATE", "DROP", "ALTER", "TRUNCATE",
        "GRANT", "REVOKE", "COPY", "CALL", "DO", "SET", "RESET", "LOCK", "UNLOCK", "VACUUM", "ANALYZE",
        "CLUSTER", "REINDEX", "LOAD", "HANDLER", "PREPARE", "EXECUTE", "DEALLOCATE", "LISTEN", "NOTIFY",
        "DECLARE", "FETCH", "MOVE", "CLOSE", "DISCARD", "CHECKPOINT", "COMMENT", "SECURITY", "IMPORT",
        "REFRESH", "BEGIN", "START", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "KILL", "SHUTDOWN",
        "INSTALL", "UNINSTALL", "FLUSH", "PURGE", "RENAME", "OUTFILE", "DUMPFILE", "USE",
    }
)  # fmt: skip
_KNOWN_OTHERS = frozenset({"SHOW", "EXPLAIN", "DESCRIBE", "DESC", "PRAGMA", "SUMMARIZE", "OPTIMIZE", "CHECK",
                           "REPAIR", "BACKUP", "RESTORE", "BINLOG", "CACHE", "HELP", "SIGNAL", "RESIGNAL"})  # fmt: skip
_QUERY_STARTS = frozenset({"SELECT", "WITH", "VALUES", "TABLE", "(", "L_PAREN"})
_DIALECT_TOKENIZERS: dict[str, tokens.Tokenizer] = {}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


class Refused(Exception):
    """A statement that is not run: `kind` is one of `ExecResult`'s error kinds."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _tokenizer(dialect: str) -> tokens.Tokenizer:
    tok = _DIALECT_TOKENIZERS.get(dialect)
    if tok is None:
        tok = _DIALECT_TOKENIZERS[dialect] = sqlglot.Dialect.get_or_raise(dialect).tokenizer_class()
    return tok


def forbidden_name(name: str) -> bool:
    low = name.lower().strip('"`')
    return low in FORBIDDEN_FUNCTIONS or low.startswith(FORBIDDEN_PREFIXES)


def check(sql: str, dialect: str) -> str:
    """The statement to run (without a trailing semicolon), or `Refused` with the kind and the reason.

    Remembered for the latest texts: a gold query runs once per model and mode, and parsing it again each
    time would cost more than running it."""
    found = _checked(sql, dialect)
    if isinstance(found, Refused):
        raise Refused(found.kind, str(found))
    return found


@functools.lru_cache(maxsize=4096)
def _checked(sql: str, dialect: str) -> str | Refused:
    try:
        return _check(sql, dialect)
    except Refused as refused:
        return refused


def _check(sql: str, dialect: str) -> str:
    text = sql.strip()
    if not text:
        raise Refused("empty", "empty query")
    try:
        toks = _tokenizer(dialect).tokenize(text)
    except (TokenError, ValueError) as exc:
        raise Refused("syntax", f"cannot be read as {dialect} SQL: {exc}") from None
    if not toks:
        raise Refused("empty", "nothing to run: the text holds no statement")
    semis = [i for i, t in enumerate(toks) if t.token_type == tokens.TokenType.SEMICOLON]
    while semis and semis[-1] == len(toks) - 1:  # trailing semicolons are harmless
        toks = toks[:-1]
        semis.pop()
        text = text.rstrip().rstrip(";").rstrip()
    if not toks:
        raise Refused("empty", "nothing to run: the text holds no statement")
    if semis:
        raise Refused("multiple_statements", "only one statement is run per query; this text holds several")
    for i, t in enumerate(toks):
        named = t.token_type in (tokens.TokenType.VAR, tokens.TokenType.IDENTIFIER) or _WORD.fullmatch(t.text)
        called = i + 1 < len(toks) and toks[i + 1].token_type == tokens.TokenType.L_PAREN
        if named and called and forbidden_name(t.text):
            raise Refused("forbidden", f"function {t.text}() is not allowed: it reaches files, the network,"
                              " locks or settings outside the query")  # fmt: skip
        if t.text.upper() in ("OUTFILE", "DUMPFILE") and i > 0 and toks[i - 1].text.upper() == "INTO":
            raise Refused(
                "forbidden", f"SELECT … INTO {t.text.upper()} writes a file on the server: not allowed"
            )
    first = toks[0].text.upper()
    try:
        trees = sqlglot.parse(text, read=dialect)
    except (ParseError, TokenError, RecursionError, ValueError):
        trees = None
    if trees is None:  # the server's parser decides validity; only the shape is checked here
        if first not in _QUERY_STARTS | _NOT_QUERY_WORDS | _KNOWN_OTHERS:
            raise Refused("syntax", f"not a statement: {first}")
        if first not in _QUERY_STARTS:
            raise Refused("forbidden", f"only queries are run ({first} is not one)")
        words = {t.text.upper() for t in toks if t.token_type != tokens.TokenType.STRING}
        bad = sorted(words & _NOT_QUERY_WORDS - {"SET", "REPLACE", "LOAD", "CLOSE", "COMMENT", "USE"})
        if bad:
            raise Refused("forbidden", f"only read-only queries are run (found {bad[0]})")
        return text
    trees = [t for t in trees if t is not None]
    if len(trees) != 1:
        raise Refused("multiple_statements", "only one statement is run per query")
    tree = trees[0]
    if isinstance(tree, exp.Command) and str(tree.this).upper() not in _NOT_QUERY_WORDS | _KNOWN_OTHERS:
        raise Refused("syntax", f"not a statement: {str(tree.this)[:40]}")
    if not isinstance(tree, exp.Query | exp.Values):
        what = tree.key.upper() if not isinstance(tree, exp.Command) else str(tree.this).upper()
        raise Refused("forbidden", f"only read-only queries are run ({what} is not one)")
    for node in tree.walk():
        if isinstance(node, exp.Into):
            raise Refused("forbidden", "SELECT … INTO writes a table, a file or a variable: not allowed")
        if isinstance(node, exp.Insert | exp.Update | exp.Delete | exp.Merge | exp.DDL | exp.Command):
            raise Refused("forbidden", f"only read-only queries are run ({node.key.upper()} inside)")
        if isinstance(node, exp.Lock):
            raise Refused("forbidden", "SELECT … FOR UPDATE/SHARE takes row locks: not allowed")
        if isinstance(node, exp.Func) and forbidden_name(node.name if isinstance(node, exp.Anonymous)
                                                          else node.sql_name()):  # fmt: skip
            raise Refused("forbidden", f"function {node.sql_name()}() is not allowed")
        if isinstance(node, exp.PropertyEQ) and isinstance(node.this, exp.Parameter | exp.SessionParameter):
            raise Refused("forbidden", "assigning variables is not allowed")
    return text
