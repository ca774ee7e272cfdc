"""What a formula's arguments are, as the renderer's LaTeX reads them:

- a `\\tag`'s label is text (`\\text{(label)}`), read token by token: `\\^`, `\\_`, `\\&` and
  `$\\alpha$` there draw (the check refused the characters `^`, `_`, `&` wherever they were);

Each list is run through the renderer's LaTeX: it stops at every refused formula and draws
every accepted one.
"""

from __future__ import annotations

import pytest

from tests.latexcases import (
    assert_accepted,
    assert_build_draws,
    assert_latex_refuses,
    assert_refused_naming,
    needs_latex,
)

# (formula, what the message must name)
REFUSED = [
    ("x \\tag{a_b}", ["a \\tag's label is set as text", "'_' inside \\text{…}"]),
    ("x \\tag{a^2}", ["\\tag's label", "'^'"]),
    ("x \\tag{a&b}", ["\\tag's label", "'&' outside an environment"]),
    ("x \\tag{\\alpha}", ["\\tag's label", "'\\alpha' inside \\text{…}"]),
    ("x \\tag*{\\^}", ["\\tag's label", "\\^ in text puts an accent", "nothing follows"]),
    ("x \\tag{\\(x\\)^2}", ["\\tag's label", "'^'"]),
]

ACCEPTED = [
    "x \\tag{a\\^}", "x \\tag{a\\_b}", "x \\tag{a\\&b}", "x \\tag{a\\^{o}}", "x \\tag{\\^}",
    "x \\tag{$\\alpha$}", "x \\tag{\\(x^2\\)}", "x \\tag*{a\\_1}", "x \\tag{\\~a \\'e}",
]


@pytest.mark.parametrize("formula,words", REFUSED, ids=[f for f, _ in REFUSED])
def test_the_check_refuses_with_what_to_write(formula, words):
    assert_refused_naming(formula, words)


def test_the_check_accepts_what_latex_draws():
    assert_accepted(ACCEPTED)


@needs_latex
def test_latex_refuses_each_formula_the_check_refuses():
    assert_latex_refuses([f for f, _ in REFUSED])


@needs_latex
def test_the_build_draws_each_formula_the_check_accepts(tmp_path):
    assert_build_draws(ACCEPTED, tmp_path)
