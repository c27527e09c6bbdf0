"""The `sqltriage` command line. Heavy imports happen inside commands so `--help` is instant.

Exit codes: 0 when the command did its job (a prediction that fails is a result, not a failure),
2 for bad usage or unusable input (with a message saying what and where), 1 otherwise.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

EXPORT_WHERE_HELP = """\
filters for --where (repeatable, all must hold):
  COLUMN=VALUE    equal            (ex=0, model=gpt4, hardness=extra, db_id=car_1)
  COLUMN!=VALUE   not equal
  COLUMN~TEXT     contains the text (question~how many; structural~O also matches SO)
  COLUMN has PART the combination has the part, as the app's "has J (join)" options
                  (structural has O, operators has J, reasoning has subtraction;
                  inferred reasoning: 'reasoning has subtraction (inferred)')
  COLUMN>=NUMBER, COLUMN<=NUMBER, COLUMN>NUMBER, COLUMN<NUMBER   (pm>=0.9)
  tag=NAME        has the tag NAME
"""


def _add_inputs(p: argparse.ArgumentParser, *, dataset_required: bool = True) -> None:
    if dataset_required:
        p.add_argument(
            "dataset", metavar="DATASET", help="dataset folder or file (Spider, BIRD, Archer, JSONL, CSV)"
        )
    else:
        p.add_argument(
            "dataset", metavar="DATASET", nargs="?", help="dataset folder or file (default: the sample)"
        )
    p.add_argument("--pred", action="append", metavar="NAME=FILE", help="a model's predictions (repeatable)")
    p.add_argument("--db-dir", metavar="DIR", help="folder holding <db_id>/<db_id>.sqlite")
    p.add_argument(
        "--tables", metavar="FILE", help="tables.json with the schemas (default: found beside the dataset)"
    )
    p.add_argument(
        "--format",
        default="auto",
        choices=("auto", "spider", "bird", "archer", "jsonl", "csv", "gold"),
        help="dataset format (default: detected)",
    )
    p.add_argument(
        "--pred-format",
        default="auto",
        choices=("auto", "lines", "bird", "json", "jsonl", "csv"),
        help="predictions format (default: detected)",
    )
    p.add_argument(
        "--sql-column", metavar="NAME", help="predicted-SQL column of a CSV/JSONL predictions file"
    )
    p.add_argument("--question-column", metavar="NAME", help="question column of a CSV/JSONL dataset")
    p.add_argument("--gold-column", metavar="NAME", help="gold-SQL column of a CSV/JSONL dataset")
    p.add_argument("--db-column", metavar="NAME", help="db_id column of a CSV/JSONL dataset")
    p.add_argument("--id-column", metavar="NAME", help="id column of a CSV/JSONL dataset")
    p.add_argument(
        "--alternatives",
        metavar="FILE.jsonl",
        help="alternative gold queries per example (default: <dataset>.alternatives.jsonl beside it)",
    )


def _add_neighbour_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--neighbours",
        type=int,
        default=None,
        metavar="K",
        help="also score ex_ts on K generated neighbour databases per database (0 = off; default: 0)",
    )
    p.add_argument(
        "--seed", type=int, default=None, metavar="N", help="seed of the neighbour databases (default 0)"
    )
    p.add_argument(
        "--neighbour-cache",
        metavar="DIR",
        help="folder of the neighbour databases (default: $XDG_CACHE_HOME/sqltriage/neighbours; "
        "the `neighbours --out` folder if you built them there)",
    )


def _add_verify_options(p: argparse.ArgumentParser, *, bound: bool = True) -> None:
    p.add_argument(
        "--verify",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also check each EX pass for equivalence with the gold on every database of up to N rows per "
        'table (z3; needs pip install "sqltriage[verify]"): verified, refuted with a database, or unknown',
    )
    if bound:
        p.add_argument(
            "--verify-bound",
            type=int,
            default=None,
            metavar="N",
            help="rows per table for --verify (default 2, raised for a count or LIMIT that needs more, up to 4)",
        )
        p.add_argument(
            "--verify-timeout",
            type=float,
            default=None,
            metavar="SECONDS",
            help="budget per pair for --verify, in seconds of the calibration machine's CPU, counted in the "
            "solver's own work so a verdict does not depend on the load (default 0.5)",
        )


def _add_team_options(p: argparse.ArgumentParser) -> None:
    """Who the app's changes are by, and how the team works (docs/workspace.md, "Team triage")."""
    p.add_argument(
        "--annotator",
        metavar="NAME",
        help="record your tags, notes and golds under NAME (default: [triage] annotator in config.toml, "
        "else your OS user name)",
    )
    p.add_argument(
        "--blind", action="store_true", help="hide other annotators' tags on a row until you have tagged it"
    )
    p.add_argument(
        "--adjudicate",
        action="store_true",
        help="adjudicate: your tag changes set each row's final tags (recorded as adjudicated)",
    )


def _add_db_url(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db-url",
        metavar="URL",
        help="run gold and predictions on a server: postgresql://user@host:port/dbname or mysql://…, all "
        "databases in that one, or {db_id} in the name for one each; queries are read in its dialect "
        '(needs pip install "sqltriage[engines]"; docs/engines.md)',
    )
    p.add_argument(
        "--scratch-url",
        metavar="URL",
        help="with --db-url and --neighbours: the same URL with a login that may create schemas (PostgreSQL) "
        "or databases (MySQL), to load the neighbour databases into (default: the --db-url login)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sqltriage",
        description="Triage the errors of text-to-SQL models. With no command, opens the app on the bundled sample.",
    )
    from sqltriage.core import __version__

    parser.add_argument("--version", action="version", version=f"sqltriage {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("open", help="open the app on a dataset and models' predictions")
    _add_inputs(p, dataset_required=False)
    p.add_argument("--workspace", metavar="FILE", help="workspace file (default: ./<dataset>.sqltriage.db)")
    p.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="evaluation processes (default: cores)"
    )
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="per-query timeout")
    _add_neighbour_options(p)
    _add_db_url(p)
    _add_team_options(p)

    p = sub.add_parser("check", help="validate and summarise inputs without evaluating")
    _add_inputs(p)
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")

    p = sub.add_parser("eval", help="evaluate models' predictions and print the metrics")
    _add_inputs(p)
    p.add_argument("--workspace", metavar="FILE", help="workspace file (default: ./<dataset>.sqltriage.db)")
    p.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="evaluation processes (default: cores)"
    )
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="per-query timeout")
    p.add_argument(
        "--features",
        action="store_true",
        help="after the metrics, compute the question features if they are not cached yet (spaCy; "
        "cached for every workspace of this dataset)",
    )
    p.add_argument("--pipeline", metavar="NAME", help="spaCy pipeline for question features")
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="evaluate on a Dask cluster: a scheduler address (tcp://HOST:PORT) or local:N worker processes "
        '(needs pip install "sqltriage[cluster]")',
    )
    _add_neighbour_options(p)
    _add_verify_options(p)
    _add_db_url(p)
    p.add_argument(
        "--ves",
        type=int,
        default=None,
        metavar="N",
        help="BIRD Mini-Dev's R-VES: run each pair whose results match N more times and score gold time over "
        "predicted time (a timing: its spread is reported; 0 = off, the default)",
    )
    p.add_argument(
        "--choose",
        choices=("first", "majority"),
        default=None,
        help="of k candidates per question, score the first (default) or the execution majority's",
    )
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")

    p = sub.add_parser(
        "neighbours", help="build the neighbour databases of a dataset's databases (for ex_ts), and say where"
    )
    _add_inputs(p)
    p.add_argument(
        "-K",
        "--neighbours",
        dest="neighbours",
        type=int,
        default=None,
        metavar="K",
        help="neighbour databases per database (default 10)",
    )
    p.add_argument("--seed", type=int, default=None, metavar="N", help="seed (default 0)")
    p.add_argument(
        "--out", metavar="DIR", help="cache folder (default: $XDG_CACHE_HOME/sqltriage/neighbours)"
    )
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")

    p = sub.add_parser(
        "export",
        help="export evaluations to CSV, JSON lines, Parquet or SQLite",
        epilog=EXPORT_WHERE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--workspace", required=True, metavar="FILE", help="workspace file made by eval or open")
    p.add_argument(
        "--out", required=True, metavar="FILE", help="file to write (.csv, .jsonl, .parquet, .sqlite)"
    )
    p.add_argument(
        "--format",
        choices=("csv", "jsonl", "parquet", "sqlite"),
        help="file format (default: from the --out file name)",
    )
    p.add_argument("--model", action="append", metavar="NAME", help="only this model (repeatable)")
    p.add_argument("--where", action="append", metavar="FILTER", help="a filter (repeatable; see below)")

    p = sub.add_parser("serve", help="serve the app to web browsers (textual-serve), on localhost by default")
    _add_inputs(p, dataset_required=False)
    p.add_argument("--workspace", metavar="FILE", help="workspace file (default: ./<dataset>.sqltriage.db)")
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)"
    )
    p.add_argument("--port", type=int, default=8000, metavar="N", help="port (default: 8000)")
    p.add_argument("--public-url", metavar="URL", help="the URL browsers reach the server at, behind a proxy")
    p.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="evaluation processes (default: cores)"
    )
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="per-query timeout")
    _add_team_options(p)
    p.add_argument(
        "--users",
        metavar="FILE",
        help="one `NAME TOKEN` per line: a browser must give its token (?token=… or the login page) and "
        "tags as NAME",
    )
    p.add_argument(
        "--no-auth",
        action="store_true",
        help="allow a non-loopback --host without --users: anyone who reaches the port tags as --annotator",
    )

    p = sub.add_parser(
        "diff", help="compare two queries: categories, EM, partial match, and results with --db"
    )
    p.add_argument("gold", metavar="GOLD_SQL")
    p.add_argument("pred", metavar="PRED_SQL")
    p.add_argument(
        "--db",
        metavar="FILE.sqlite|URL",
        help="run both queries on this database (read-only): a SQLite file, or postgresql://…/dbname or "
        "mysql://…/dbname (read in that dialect)",
    )
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="per-query timeout")
    p.add_argument(
        "--neighbours",
        type=int,
        default=0,
        metavar="K",
        help="also score ex_ts on K neighbour databases of --db (built from GOLD, cached) and show the "
        "minimal witness when one refutes an EX pass (default: 0, off)",
    )
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the neighbours (default 0)")
    p.add_argument(
        "--neighbour-cache", metavar="DIR", help="folder of the neighbour sets (default: user cache)"
    )
    _add_verify_options(p)
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")

    p = sub.add_parser(
        "cache",
        help="list what sqltriage keeps in the user cache folder; `cache prune` removes the least recently used",
    )
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    cache_sub = p.add_subparsers(dest="cache_command", metavar="prune")
    q = cache_sub.add_parser(
        "prune",
        help="remove least recently used entries (never one in use); by default down to the config's limit",
    )
    q.add_argument("--max-size", metavar="SIZE", help="keep at most this much (100KB, 500MB, 2GB)")
    q.add_argument(
        "--older-than", type=float, metavar="DAYS", help="remove entries unused for more than DAYS days"
    )
    q.add_argument("--json", action="store_true", help="one JSON document on stdout")

    p = sub.add_parser(
        "db",
        help="`db copy SOURCE --to URL`: SQLite databases into PostgreSQL or MySQL; `db generate DATASET --out "
        "DIR`: databases from the schema alone",
    )
    db_sub = p.add_subparsers(dest="db_command", metavar="copy|generate|drop-scratch")
    q = db_sub.add_parser(
        "generate",
        help="one SQLite database per db_id from the schema, the golds and the evidence, for a dataset without "
        "its files: DIR/<db_id>/<db_id>.sqlite (docs/judgement.md)",
    )
    _add_inputs(q)
    q.add_argument(
        "--out", required=True, metavar="DIR", help="the folder to write <db_id>/<db_id>.sqlite into"
    )
    q.add_argument("--seed", type=int, default=0, metavar="S", help="the generator's seed (default 0)")
    q.add_argument(
        "--rows",
        type=int,
        metavar="N",
        help="tables hold between a few and about twice N rows (default: about 20)",
    )
    q.add_argument("--json", action="store_true", help="one JSON document on stdout")
    q = db_sub.add_parser(
        "copy",
        help="load SQLite databases (a file, or a folder of <db_id>/<db_id>.sqlite) into a server, with types, "
        "keys and indexes (docs/engines.md)",
    )
    q.add_argument("source", metavar="SOURCE", help="a .sqlite file or a folder of <db_id>/<db_id>.sqlite")
    q.add_argument(
        "--to",
        required=True,
        metavar="URL",
        help="postgresql://user@host:port/dbname or mysql://…; {db_id} in the name: one database each",
    )
    q.add_argument("--replace", action="store_true", help="drop and copy again tables that are already there")
    q.add_argument(
        "--numbers-from-text",
        action="store_true",
        help="columns declared text that hold only numbers become numbers, so that queries comparing them "
        "with numbers work as on SQLite (Spider's `Year`); off by default (BIRD reads such columns as text)",
    )
    q.add_argument("--json", action="store_true", help="one JSON document on stdout")
    q = db_sub.add_parser(
        "drop-scratch",
        help="drop the scratch schemas (PostgreSQL) or databases (MySQL) named sqltriage_nb_… that "
        "`eval --db-url … --neighbours K` loaded the neighbour databases into (docs/engines.md)",
    )
    q.add_argument("url", metavar="URL", help="the --db-url (or --scratch-url) of the evaluation")
    q.add_argument("--json", action="store_true", help="one JSON document on stdout")

    p = sub.add_parser("analyze", help="the dataset-analysis report: query, database and question axes")
    _add_inputs(p)
    p.add_argument("--pipeline", metavar="NAME", help="spaCy pipeline for question features")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    _add_findings(sub)
    _add_team(sub)
    return parser


def _add_team(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """agreement, tags import, merge: several annotators on one study."""
    p = sub.add_parser("agreement", help="how far annotators agree: Cohen's κ per pair and tag, Fleiss' κ")
    p.add_argument("--workspace", required=True, metavar="FILE", help="workspace file made by eval or open")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")

    p = sub.add_parser("tags", help="`tags import FILE.csv`: tags made elsewhere, as one annotator's")
    tags_sub = p.add_subparsers(dest="tags_command", metavar="import", required=True)
    q = tags_sub.add_parser("import", help="import index,model,tags[,note] lines (all or nothing)")
    q.add_argument("file", metavar="FILE.csv")
    q.add_argument("--workspace", required=True, metavar="FILE", help="workspace file made by eval or open")
    q.add_argument("--annotator", metavar="NAME", help="whose tags these are (default: as for open)")
    q.add_argument("--adjudicate", action="store_true", help="the file's tags are the rows' final tags")

    p = sub.add_parser(
        "merge", help="merge two workspaces of one study tagged apart: every annotator's changes"
    )
    p.add_argument("a", metavar="A.db")
    p.add_argument("b", metavar="B.db")
    p.add_argument("--out", required=True, metavar="C.db", help="the merged workspace (a new file)")


def _add_findings(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """slices, compare, report: commands that read a workspace and never write it."""
    metric = {"choices": ("ex", "ex_ts", "em"), "default": "ex", "help": "the verdict (default: ex)"}
    p = sub.add_parser(
        "slices", help="where a model fails: the facet-value conjunctions with the most errors (SliceLine)"
    )
    p.add_argument("--workspace", required=True, metavar="FILE", help="workspace file made by eval or open")
    p.add_argument("--model", metavar="NAME", help="one model (default: every model, the model a facet)")
    p.add_argument("--metric", **metric)  # type: ignore[arg-type]
    p.add_argument(
        "--max-predicates", type=int, default=3, metavar="N", help="predicates per slice (default 3)"
    )
    p.add_argument(
        "--min-support",
        type=int,
        default=None,
        metavar="N",
        help="smallest slice, in rows (default: 1 %%, ≥ 10)",
    )
    p.add_argument("--top", type=int, default=10, metavar="K", help="slices to list (default 10)")
    p.add_argument(
        "--alpha",
        type=float,
        default=0.95,
        help="weight of error rate against size in the score (default 0.95)",
    )
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")

    p = sub.add_parser("compare", help="is the difference between two models real: McNemar and bootstrap")
    p.add_argument("a", metavar="A", help="a model of the workspace")
    p.add_argument("b", metavar="B", help="another model of the workspace")
    p.add_argument("--workspace", required=True, metavar="FILE", help="workspace file made by eval or open")
    p.add_argument("--metric", **metric)  # type: ignore[arg-type]
    p.add_argument("--rounds", type=int, default=2000, metavar="N", help="bootstrap resamples (default 2000)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="bootstrap seed (default 0)")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")

    p = sub.add_parser("report", help="a self-contained HTML report of a workspace, with the paper's figures")
    p.add_argument("--workspace", required=True, metavar="FILE", help="workspace file made by eval or open")
    p.add_argument("--out", required=True, metavar="FILE.html", help="the HTML file to write")
    p.add_argument("--figures", metavar="DIR", help="also write each figure there as SVG and PDF")
    p.add_argument("--metric", **metric)  # type: ignore[arg-type]
    p.add_argument("--seed", type=int, default=0, metavar="N", help="bootstrap seed (default 0)")


def main(argv: Sequence[str] | None = None) -> int:
    from sqltriage.core.processes import parent_from_environment

    parent_from_environment()  # a session of `sqltriage serve` ends with the server
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or "open"
    if args.command is None:
        args = parser.parse_args(["open", *(argv if argv is not None else sys.argv[1:])])
    from sqltriage.core.errors import SqlTriageError

    if command == "open":
        from sqltriage.tui.idle_gc import pause_during_start

        pause_during_start()  # on again once the first rows are drawn
    try:
        module = importlib.import_module(f"sqltriage.tui.commands.{command}_cmd")
        return int(module.run(args))
    except SqlTriageError as exc:
        print(f"sqltriage {command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"sqltriage {command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
