"""Decision tables: Markdown tables read as rules, and inputs matched against them.

Owns the whole path from a table in a document to an answer:

- `units`, `words`: the units known and comparisons written in words, which `conditions` reads;
- `conditions`: one cell as a `Condition` (``<15``, ``15-20``, ``≥2000 h``, ``*``, text), and
  the number/text/header-unit normalisation cells and inputs share;
- `model`: `DecisionTable`, the annotation (``<!-- decision: inputs=…; outputs=… -->``) and
  `build_table`, which reads (header, rows) into rules or says the table is not one;
- `matching`: `match_rules` (inputs → matching rows, policy ``first``/``all``) and its
  `TableResult`, whose `to_dict()` is the JSON of `kb table eval` and the MCP tool, and
  `input_value`, the one conversion of an input given as JSON (API, MCP) to its text;
- `documents`: the decision tables of a Markdown document, choosing one, and
  `evaluate_table`, the document-level entry point.

The package exports the pure parts; the document-level functions are imported from
`kbtools.decision.documents`, so the query path (which evaluates the tables the build shipped
in the store, never Markdown) loads no Markdown or YAML parser on a cold question.
Overlap/gap analysis for ``kb check`` lives in `kbtools.check.decision_tables`; the CLI in
`kbtools.commands.table`. May import `kbtools.markdown`, `kbtools.corpus` and
`kbtools.errors` only (`conditions`, `model` and `matching` are pure); never check, build,
index, query, agents or the CLI.
"""

from kbtools.decision.conditions import (
    Condition,
    column_key,
    format_number,
    normalize_text,
    overflows,
    parse_condition,
    parse_number,
)
from kbtools.decision.matching import (
    NO_MATCH_MESSAGE,
    CellMatch,
    RowMatch,
    TableResult,
    input_value,
    match_rules,
)
from kbtools.decision.model import POLICIES, DecisionTable, build_table, parse_annotation

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
