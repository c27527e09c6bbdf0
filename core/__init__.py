"""Pure logic of sqltriage: no UI code is ever imported here (a test enforces it).

The packages, each one concern (docs/architecture.md is the map, with the allowed import directions):
sql (parsing and the metrics read off a parse), datasets (loading inputs), workspace (the study's file),
verdicts (execution, EX modes, the official verdict, gold audit, neighbour databases), questions (question
and database axes), suggest (suggested error causes), pipeline (running evaluations), triage (a person's
changes), reporting (reading evaluations for people). At the top: the shared records (model), the error
hierarchy (errors), child-process hygiene (processes) and the Python front door for notebooks (api).
"""

__version__ = "0.1.0"
