"""Text accents over text-mode commands (`latex_text.cedilla_heights`), and the OT1 letters.

In math `\\c` draws its cedilla unless what it boxes is exactly 1ex high; the check weighed
characters only and refused any command under it, so `\\c{\\S}`, `\\c{\\P}`, `\\c{\\dag}`,
`\\c{\\quad}` and `\\c{\\u A}` were refused though LaTeX draws them. Commands are now weighed
as the renderer's LaTeX sets them (`\\i`, `\\ae`, `\\oe`, `\\textmu` are 1ex high, spaces and
baseline dots lower, every other higher; an accent above makes what it is on higher), and
`\\c`'s argument is text as LaTeX sets it (a text symbol in it is no longer wrapped in
`\\text{}`, which stopped LaTeX). OT1's letters `\\ss \\o \\O \\ae \\AE \\oe \\OE \\aa \\AA \\l \\L
\\SS` are allowed (in math set as text, as the other text symbols): `\\text{Stra\\ss e}`,
`\\c{\\ss}`. Every text-mode command without arguments, and every text accent over each, is
swept through the renderer's LaTeX.
"""

from __future__ import annotations

import pytest

from kbtools.render.latex_allow import latex_problem
from kbtools.render.latex_text import TEXT_ACCENTS, TEXT_MODE, TEXT_MODE_NOT_SYMBOLS
from tests.latexcases import list_tests, needs_latex
from tests.test_latex_delims import latex_draws

REFUSED = [
    ("x \\c{\\i}", ["\\c is a text accent"]), ("x \\c{\\ae}", ["\\c is a text accent"]),
    ("x \\c{\\quad c}", ["\\c is a text accent"]), ("x \\c{\\oe .}", ["\\c is a text accent"]),
    ("x \\c{\\textmu}", ["\\c is a text accent"]), ("x \\u{\\S}", ["\\u is a text accent"]),
    ("x \\c{\\c c}", ["\\c is a text accent"]),
]
ACCEPTED = [
    "\\c{\\S}", "x \\c{\\P}", "x \\c{\\S c}", "x \\c{\\dag}", "x \\c{\\quad}", "x \\c{\\ldots}",
    "x \\c{\\textsection}", "x \\c{\\textdegree c}", "x \\c{A \\i}", "x \\c{\\u A}",
    "x \\c{\\r{a}}", "x \\c{\\c A}", "x \\.{\\i}", "x \\c{\\ss}", "x \\c{\\o}", "x \\c{\\L}",
    "\\text{Stra\\ss e}", "\\text{\\o re \\AE ra \\aa}", "x \\ss", "\\ss^2", "\\text{\\c{\\ae}}",
    "\\text{\\u{\\o} \\v{\\SS}}", "温度 \\c{\\S} 5", "\\frac{\\O}{\\l}",
]


(test_the_check_refuses_with_what_to_write, test_the_check_accepts_what_latex_draws,
 test_latex_refuses_each_formula_the_check_refuses,
 test_the_build_draws_each_formula_the_check_accepts) = list_tests(REFUSED, ACCEPTED)

SYMBOLS = sorted(TEXT_MODE - TEXT_MODE_NOT_SYMBOLS)


@needs_latex
def test_a_cedilla_over_each_text_command_is_judged_as_latex_judges_it():
    """`\\c` in math over each text-mode command without arguments, alone, beside a letter
    1ex high (c) and beside one lower (.), and each text accent over each command, in math
    and in text: the check accepts exactly what LaTeX draws."""
    formulas = [f"x \\c{{\\{w}{other}}}" for w in SYMBOLS for other in ("", " c", " .")]
    formulas += [f"x \\{a}{{\\{w}{other}}}" for a in sorted(TEXT_ACCENTS) for w in SYMBOLS
                 for other in ("", " A")]
    formulas += [f"\\text{{\\{a}{{\\{w}}}}}" for a in sorted(TEXT_ACCENTS) for w in SYMBOLS]
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


@needs_latex
@pytest.mark.parametrize("letter", "ss SS o O ae AE oe OE aa AA l L".split())
def test_each_ot1_letter_draws_where_the_check_accepts_it(letter):
    formulas = [f"x \\{letter}", f"\\text{{a\\{letter} b}}", f"x^{{\\{letter}}}",
                f"\\text{{\\'{{\\{letter}}}}}"]
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


def test_deeply_nested_accents_under_a_cedilla_get_an_answer_quickly():
    """Nesting is weighed to `MAX_NESTED_ACCENTS` levels, deeper is refused: no recursion
    past Python's limit (`kb check` would report "formula check failed")."""
    for formula in ("x \\c{" + "\\u{" * 3000 + "A" + "}" * 3001, "x \\c{" + "\\u " * 3000 + "A}"):
        problem = latex_problem(formula)
        assert problem is not None and "\n" not in problem
    assert latex_problem("x \\c{\\u{\\u{A}}}") is None
