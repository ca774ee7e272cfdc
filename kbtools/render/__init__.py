"""Document parts rendered into build artifacts, with deterministic bytes.

- `formula`: LaTeX formulas → content-addressed SVG files (``formulas/<sha256>.svg``), and
  `latex_problem`, the static check ``kb check`` runs without LaTeX;
- `table_csv`: Markdown tables → CSV files (UTF-8 with BOM), their names, and the duplicate
  name check ``kb check`` reports.

Used by build (artifacts), check (the same checks earlier) and chunk (the artifact names).
May import `kbtools.markdown`, `kbtools.errors` and `kbtools.fsutil` only.
"""

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
