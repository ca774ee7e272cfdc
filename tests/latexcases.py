"""What every formula test file asks of its lists (tests/test_latex_*.py): the check's
one-line message for each refused formula, naming what to write; no message for each
accepted one; and the renderer's real LaTeX agreeing with both (it stops at each refused
formula, run alone, and the build draws every accepted one)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from kbtools.render import formula as fm
from kbtools.render.latex_allow import latex_problem
from kbtools.render.latex_source import tex_source
from kbtools.render.tex_sandbox import FORMULA_SECONDS, typeset

needs_latex = pytest.mark.skipif(fm.backend_problem() is not None,
                                 reason="LaTeX backend not installed (see docs/formulas.md)")


def assert_refused_naming(formula: str, words: Sequence[str]) -> None:
    """The check refuses `formula` in one line naming each of `words`."""
    problem = latex_problem(formula)
    assert problem is not None, formula
    assert "\n" not in problem
    for word in words:
        assert word in problem, (word, problem)


def assert_accepted(formulas: Sequence[str]) -> None:
    """The check passes every one of `formulas`."""
    assert {f: latex_problem(f) for f in formulas} == dict.fromkeys(formulas)


def assert_latex_refuses(formulas: Sequence[str]) -> None:
    """The renderer's LaTeX stops at each of `formulas`, each run alone."""
    drawn = []
    for formula in formulas:
        with tempfile.TemporaryDirectory() as tmp:
            if typeset([tex_source(formula)], Path(tmp), FORMULA_SECONDS).ok:
                drawn.append(formula)
    assert drawn == []


def assert_build_draws(formulas: Sequence[str], out: Path) -> None:
    """The build's renderer draws every one of `formulas` into `out`."""
    failures: dict[str, str] = {}
    done = fm.render_formulas(list(formulas), out, failures=failures)
    assert not failures and len(done) == len(formulas), failures


def list_tests(refused: Sequence[tuple[str, Sequence[str]]], accepted: Sequence[str]
               ) -> tuple[Callable[..., None], ...]:
    """The four tests of a file's lists, `refused` (each formula with the words its message
    names) and `accepted`, for the file to name (test_the_check_refuses_with_what_to_write,
    test_the_check_accepts_what_latex_draws, test_latex_refuses_each_formula_the_check_refuses,
    test_the_build_draws_each_formula_the_check_accepts): the check's verdicts, then the
    renderer's LaTeX agreeing with them."""

    @pytest.mark.parametrize(("formula", "words"), refused, ids=[f for f, _ in refused])
    def refuses(formula: str, words: Sequence[str]) -> None:
        assert_refused_naming(formula, words)

    def accepts() -> None:
        assert_accepted(accepted)

    @needs_latex
    def latex_refuses() -> None:
        """The check refuses only what the renderer's LaTeX stops at (each run alone)."""
        assert_latex_refuses([f for f, _ in refused])

    @needs_latex
    def build_draws(tmp_path: Path) -> None:
        assert_build_draws(accepted, tmp_path)

    return refuses, accepts, latex_refuses, build_draws


# LaTeX runs a sweep keeps going side by side: a sweep is hundreds of runs of ~0.2 s of CPU
# each, one after another (each formula that stops LaTeX ends a run), while the machine's
# other core often waits on a git or a server in the other pytest worker
SIDE_BY_SIDE = max(1, min(4, len(os.sched_getaffinity(0))))


def side_by_side(judge: Callable[[list[str]], dict[str, bool]], formulas: Sequence[str],
                 least: int = 40) -> dict[str, bool]:
    """`judge(part)` for `formulas` cut into consecutive parts (one per core, `least`
    formulas at least), the parts' LaTeX runs going side by side. Each part is judged as a
    call of `judge` on it alone judges it: a verdict never depends on another part."""
    ways = max(1, min(SIDE_BY_SIDE, len(formulas) // least))
    size = -(-len(formulas) // ways)
    parts = [list(formulas[at:at + size]) for at in range(0, len(formulas), size)]
    if len(parts) <= 1:
        return judge(list(formulas))
    with ThreadPoolExecutor(len(parts)) as pool:
        return {f: v for verdicts in pool.map(judge, parts) for f, v in verdicts.items()}


def latex_verdicts(formulas: Sequence[str], batch: int = 40) -> dict[str, bool]:
    """Whether the renderer's LaTeX draws each of `formulas`: run in batches that stop at the
    first error (`typeset`'s -halt-on-error), so no verdict is left over from an earlier
    formula's error; the rest of a batch runs again after the one that failed. (The
    formulas' parts `side_by_side`.)"""
    return side_by_side(lambda part: _verdicts_in_turn(part, batch), formulas)


def _verdicts_in_turn(formulas: Sequence[str], batch: int) -> dict[str, bool]:
    drawn: dict[str, bool] = {}
    pending = list(formulas)
    while pending:
        run, pending = pending[:batch], pending[batch:]
        with tempfile.TemporaryDirectory() as tmp:
            result = typeset([tex_source(f) for f in run], Path(tmp), FORMULA_SECONDS)
        drawn.update(dict.fromkeys(run[:result.done], True))
        if not result.ok:
            failed = result.culprit if result.culprit is not None else result.done
            drawn.update(dict.fromkeys(run[failed:failed + 1], False))
            pending = run[failed + 1:] + pending
    return drawn
