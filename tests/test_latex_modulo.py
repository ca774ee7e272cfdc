"""`\\pmod` and `\\pod` as amsmath defines them: `\\pod{X}` is `(X)` and `\\pmod{X}` is `(mod X)`,
their argument set in the math around them (`latex_scripts.modulo_argument`).

`kb check` refused `a \\equiv b \\pmod` and `\\pmod^2` ("takes 1 argument and has fewer"):
LaTeX draws them, `\\pmod` taking the renderer's closing `$` or the `^` as its argument.
It passed `\\pmod\\limits` (LaTeX: "Limit controls must follow a math operator", after the
`(`), crashed on `\\boxed{\\pmod{n}}` (IndexError: "formula check failed"), and refused
`\\boxed{\\pmod{$n$}}` and `\\text{$\\pod{$n$}$}`, whose `$` sets text as at the formula's
top level. A generated sweep puts both commands, with arguments braced, unbraced, empty,
missing or holding `$…$`, followed by scripts, text or nothing, in nine places, and compares
the check's verdict with the renderer's LaTeX.
"""

from __future__ import annotations

import pytest

from kbtools.render.latex_allow import latex_problem
from tests.latexcases import list_tests, needs_latex
from tests.test_latex_delims import latex_draws

REFUSED = [
    ("\\pmod\\limits", ["\\limits", "operator"]), ("a \\pod\\nolimits", ["\\nolimits"]),
    ("{\\pmod}", ["\\pmod takes 1 argument"]), ("x^{\\pod}", ["\\pod takes 1 argument"]),
    ("\\pmod{n}^2^3", ["double superscript"]), ("\\pmod$y$", ["'$'"]),
    ("\\begin{aligned} a & \\pmod \\end{aligned}", ["\\pmod takes 1 argument"]),
    ("\\boxed{\\pmod{$n}}", ["'$' inside \\pmod{…}"]), ("{\\pmod{$n$}}", ["'$'"]),
]
ACCEPTED = [
    "a \\equiv b \\pmod n", "a \\equiv b \\pmod{n}", "\\pmod{n}^2", "\\pmod{n}_1^2",
    "a \\equiv b \\pmod", "x \\pod", "\\pmod^2", "\\pmod_2", "a \\pod^{2}", "\\pmod \\tag{1}",
    "\\boxed{\\pmod}", "\\boxed{a \\pod}", "\\left( \\pmod \\right)", "\\pmod $y$ z",
    "\\text{$\\pmod$}", "\\text{$\\pod^2$}", "x^{\\pmod^2}", "\\boxed{\\pmod{n}}",
    "\\boxed{\\pmod{$n$}}", "\\boxed{\\pod{a $n$ b} x}", "\\text{$\\pod{$n$}$}",
    "\\text{$\\pmod{$n$}^2$}", "\\substack{\\pod{a}}", "同余 a \\equiv b \\pmod{\\text{模}}",
]


(test_the_check_refuses_with_what_to_write, test_the_check_accepts_what_latex_draws,
 test_latex_refuses_each_formula_the_check_refuses,
 test_the_build_draws_each_formula_the_check_accepts) = list_tests(REFUSED, ACCEPTED)


ARGS = ["{n}", " n", "{$n$}", "{a $n$ b}", "{$n$ }", "\\alpha", "{}", ""]
AFTER = ["", "^2", "_2", "'", " x", "$y$", " $y$ z", "^{$y$}", "\\limits"]
PLACES = ["%s", "a \\equiv b %s", "{%s}", "\\left( %s \\right)",
          "\\begin{aligned} a & %s \\end{aligned}", "x^{%s}", "\\text{$%s$}", "\\boxed{%s}",
          "%s \\tag{1}"]


def test_every_mix_gets_an_answer_of_one_line():
    for command in ("\\pmod", "\\pod"):
        for formula in (p % (command + a + f) for a in ARGS for f in AFTER for p in PLACES):
            problem = latex_problem(formula)
            assert problem is None or (problem and "\n" not in problem), formula


@needs_latex
@pytest.mark.parametrize("command", ["\\pmod", "\\pod"])
def test_the_check_reads_a_modulo_as_latex_reads_it(command):
    """Each argument form, followed by each ending, in each place: the check accepts exactly
    what the renderer's LaTeX draws."""
    formulas = sorted({p % (command + a + f) for a in ARGS for f in AFTER for p in PLACES})
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn
