"""A display formula with a blank line inside it, as Typora saves one (an empty line typed in
its math block) and LaTeX pasted from a paper holds.

Typora and Obsidian show `$$`, the formula, a blank line, more of it and `$$` as one formula.
In Markdown a blank line ends a paragraph, so kbtools (and GitHub) read two paragraphs of
text, each with a `$$` that closes nothing: the formula is never checked, drawn or indexed,
the chunker may cut between its halves, and `kb check` said "add a line $$ where the
formula ends" at both `$$`, which the author had written. Such a pair is one finding at the
opening `$$` (`math-unbalanced`), saying to delete the blank lines, which `kb check --fix`
does: a blank line means nothing inside TeX math (LaTeX refuses one: "Missing $ inserted").

A pair is two `$$` the scan found stray (`Scan.stray_dollars`), one after the other, each
alone on its line (indented under a list item or not; not in a quote, whose blank lines are
`>`), with only lines that hold no `$` between them, at least one of them blank.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kbtools.check.links import Edit

DOLLARS = "$$"


@dataclass(frozen=True)
class Gap:
    """A formula `opener`..`closer` (file lines of its `$$`) that `blank` lines split."""

    opener: int
    closer: int
    blank: tuple[int, ...]

    def message(self) -> str:
        lines = (f"line {self.blank[0]}" if len(self.blank) == 1
                 else f"lines {', '.join(map(str, self.blank))}")
        return (f"the formula from this '$$' to the one on line {self.closer} holds blank "
                f"{lines}, which ends it in Markdown (Typora and Obsidian show it whole): "
                "kbtools reads two paragraphs of text, no formula; delete the blank "
                f"{'line' if len(self.blank) == 1 else 'lines'} (`kb check --fix` does)")

    def edits(self, lines: list[str]) -> list[Edit]:
        """One edit per run of blank lines: from the end of the line above it to the end
        of the run's last line, deleted."""
        out: list[Edit] = []
        run: list[int] = []
        for n in [*self.blank, 0]:
            if run and n != run[-1] + 1:
                above = run[0] - 1
                old = "\n" + "\n".join(lines[m - 1] for m in run)
                out.append(Edit(above, len(lines[above - 1]) + 1, old, ""))
                run = []
            if n:
                run.append(n)
        return out


def formula_gaps(stray: Iterable[tuple[int, int]], lines: list[str]) -> list[Gap]:
    """The formulas split by blank lines among the stray `$$` (line, column) of a document
    whose file lines are `lines`."""
    found = sorted({line for line, _ in stray})
    out: list[Gap] = []
    i = 0
    while i + 1 < len(found):
        a, b = found[i], found[i + 1]
        between = range(a + 1, b)
        blank = tuple(n for n in between if not lines[n - 1].strip())
        if _alone(lines, a) and _alone(lines, b) and blank \
                and not any("$" in lines[n - 1] for n in between):
            out.append(Gap(a, b, blank))
            i += 2
        else:
            i += 1
    return out


def _alone(lines: list[str], line: int) -> bool:
    """Whether file line `line` holds `$$` and nothing else but indentation."""
    return 0 < line <= len(lines) and lines[line - 1].strip() == DOLLARS
