"""Pure logic of sqltriage: loaders, SQL analysis, execution, evaluation. Imports no UI code."""

__version__ = "0.1.0"
