"""Document parts rendered into build artifacts, with deterministic bytes.

- `formula`: LaTeX formulas → content-addressed SVG files (``formulas/<sha256>.svg``), and
  `formula_problem`, what ``kb check`` reports for a formula without running LaTeX;
- `latex_allow`: the static allowlist check of a formula (`latex_problem`);
- `tex_sandbox`: LaTeX and dvisvgm runs boxed in (no shell, paranoid file access, limits);
- `svg_sanitize`: the SVG allowlist every formula SVG passes before it is written;
- `table_csv`: Markdown tables → CSV files (UTF-8 with BOM), their names, and the duplicate
  name check ``kb check`` reports.

Used by build (artifacts), check (the same checks earlier) and chunk (the artifact names).
May import `kbtools.markdown`, `kbtools.errors` and `kbtools.fsutil` only.
"""

from kbtools.render.formula import (
    formula_problem,
    formula_relpath,
    latex_problem,
    normalize_latex,
    render_formulas,
)
from kbtools.render.svg_sanitize import sanitize_svg
from kbtools.render.table_csv import csv_name, duplicate_csv_names, render_tables, table_csv

__all__ = [
    "csv_name",
    "duplicate_csv_names",
    "formula_problem",
    "formula_relpath",
    "latex_problem",
    "normalize_latex",
    "render_formulas",
    "render_tables",
    "sanitize_svg",
    "table_csv",
]
