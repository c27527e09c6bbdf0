"""The bundled sample dataset that `sqltriage` opens with no arguments."""

from pathlib import Path

SAMPLE_DIR = Path(__file__).resolve().parent / "sample"
