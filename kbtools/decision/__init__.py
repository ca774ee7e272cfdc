"""Decision tables: Markdown tables read as rules, and inputs matched against them.

Owns the whole path from a table in a document to an answer:

- `units`, `words`: the units known and comparisons written in words, which `conditions` reads;
- `conditions`: one cell as a `Condition` (``<15``, ``15-20``, ``≥2000 h``, ``*``, text), and
  the number/text/header-unit normalisation cells and inputs share;
- `column_units`: the unit a column, a cell or an input value is in, an input value as a
  number in its column's unit, and the units refused;
- `model`: `DecisionTable`, the annotation (``<!-- decision: inputs=…; outputs=… -->``) and
  `build_table`, which reads (header, rows) into rules or says the table is not one;
- `matching`: `match_rules` (inputs → matching rows, policy ``first``/``all``) and its
  `TableResult`, whose `to_dict()` is the JSON of `kb table eval` and the MCP tool, and
  `input_value`, the one conversion of an input given as JSON (API, MCP) to its text;
- `documents`: the decision tables of a Markdown document, choosing one, and
  `evaluate_table`, the document-level entry point.

The package exports the pure parts, each imported at its first use (`__getattr__`), so
importing one light module (`units`, `numerals`) imports no other; the document-level
functions are imported from `kbtools.decision.documents`, so the query path (which evaluates the tables the build shipped
in the store, never Markdown) loads no Markdown or YAML parser on a cold question.
Overlap/gap analysis for ``kb check`` lives in `kbtools.check.decision_tables`; the CLI in
`kbtools.commands.table`. May import `kbtools.markdown`, `kbtools.corpus` and
`kbtools.errors` only (`conditions`, `model` and `matching` are pure); never check, build,
index, query, agents or the CLI.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kbtools.decision.cell_text import normalize_text
    from kbtools.decision.column_units import overflows, parse_number
    from kbtools.decision.conditions import Condition, format_number, parse_condition
    from kbtools.decision.headers import column_key
    from kbtools.decision.matching import (
        NO_MATCH_MESSAGE,
        CellMatch,
        RowMatch,
        TableResult,
        input_value,
        match_rules,
    )
    from kbtools.decision.model import POLICIES, DecisionTable, build_table, parse_annotation

# each exported name → the module that defines it, imported at the name's first use: a
# question's values and a `--where` unit read `numerals`, `units`, `words` and `cell_text`
# through this package, and importing it must not import `conditions`, `model` and
# `matching` with them (75-105 ms of a cold `kb query` whose index has no decision table)
_HOMES = {
    **dict.fromkeys(("Condition", "format_number", "parse_condition"), "conditions"),
    "column_key": "headers",
    "normalize_text": "cell_text",
    **dict.fromkeys(("overflows", "parse_number"), "column_units"),
    **dict.fromkeys(("NO_MATCH_MESSAGE", "CellMatch", "RowMatch", "TableResult", "input_value",
                     "match_rules"), "matching"),
    **dict.fromkeys(("POLICIES", "DecisionTable", "build_table", "parse_annotation"), "model"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    __import__(f"{__name__}.{home}")  # as an import statement does (`-X importtime` lists it)
    value = getattr(sys.modules[f"{__name__}.{home}"], name)
    globals()[name] = value
    return value


__all__ = [
    "NO_MATCH_MESSAGE",
    "POLICIES",
    "CellMatch",
    "Condition",
    "DecisionTable",
    "RowMatch",
    "TableResult",
    "build_table",
    "column_key",
    "format_number",
    "input_value",
    "match_rules",
    "normalize_text",
    "overflows",
    "parse_annotation",
    "parse_condition",
    "parse_number",
]
