"""Rendering of document parts into build artifacts: formulas to SVG, tables to CSV."""

from kbtools.render.formula import (
    formula_relpath,
    latex_problem,
    normalize_latex,
    render_formulas,
)
from kbtools.render.table_csv import csv_name, duplicate_csv_names, render_tables, table_csv

__all__ = [
    "csv_name",
    "duplicate_csv_names",
    "formula_relpath",
    "latex_problem",
    "normalize_latex",
    "render_formulas",
    "render_tables",
    "table_csv",
]
