"""Text mode in formulas, as the renderer's LaTeX reads it (`latex_source.pieces`,
`latex_structure`, `latex_text.accent_problem`):

- a text accent (`\\^`, `\\'`, `\\"`, `` \\` ``, `\\~`, `\\=`, `\\.`) in `\\text{}` takes the letter
  after it as its argument: with nothing there (`\\text{a\\^}`, `\\text{\\^ }`, `{\\^}b`), a `$`,
  another accent or a command that takes an argument, LaTeX stops; the check passed them;
- `\\(…\\)` in `\\text{}` is math again, as `$…$` is (`\\text{if \\(x>0\\)}` was refused);
- `\\boxed{…}` sets its argument as `$\\displaystyle …$`, where a `$` sets text again:
  `\\text{\\boxed{$x$}}` draws (x in text) and was refused.

Each list is run through the renderer's LaTeX; each accent is swept against every allowlisted
command, control symbol and ASCII character after it, and `$x$` in the argument of every
command in text, the check's verdict against LaTeX's.
"""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.cli import main
from kbtools.render.latex_allow import MAX_FORMULA_CHARS, latex_problem
from kbtools.render.latex_structure import ARGUMENTS
from kbtools.render.latex_text import TEXT_ACCENTS
from tests.kbfixtures import GOOD_FM
from tests.latexcases import (
    list_tests,
    needs_latex,
)
from tests.test_latex_delims import SWEPT, latex_draws

# (formula, what the message must name)
REFUSED = [
    ("\\text{a\\^}", ["\\^ in text puts an accent", "nothing follows",
                     "Argument of \\^ has an extra }", "write \\^{o} or \\^o", "\\^{}"]),
    ("\\text{a\\^ }", ["nothing follows"]), ("\\text{\\'}", ["\\' in text", "nothing"]),
    ("\\text{{\\\"}b}", ["\\\" in text", "nothing"]), ("\\text{\\~ } x", ["\\~ in text"]),
    ("\\text{\\`}", ["\\` in text"]), ("\\text{\\=}", ["\\= in text"]),
    ("\\text{\\.}", ["\\. in text"]), ("\\mbox{a \\^}", ["\\^ in text"]),
    ("\\text{\\^\\'e}", ["'\\'' follows", "You can't use a prefix"]),
    ("\\text{\\^\\textbf{o}}", ["'\\textbf' follows", "\\^{o}"]),
    ("\\text{a\\'\\hspace{1em}x}", ["'\\hspace' follows"]),
    ("\\text{\\^$x$}", ["'$' follows", "Improper \\spacefactor"]),
    ("\\text{\\^\\(x\\)}", ["'\\(' follows"]),
    ("\\text{\\boxed{\\^}}", ["\\^ is a text accent", "in math"]),
    ("\\( x \\)", ["command \\( opens math where it is on", "Bad math environment delimiter",
                   "\\text{if \\(x>0\\)}"]),
    ("\\text{\\) x}", ["command \\) closes no math", "\\text{if \\(x>0\\)}"]),
    ("\\text{if \\(x>0}", ["opens math that the text does not close", "\\text{if \\(x>0\\)}"]),
    ("\\text{a \\(\\frac{1}\\) b}", ["\\frac takes 2 arguments"]),
    ("\\text{\\(\\(x\\)\\)}", ["command \\( opens math where it is on"]),
    ("\\text{\\(x \\left( \\) \\right)}", ["'\\)' closes before the \\left"]),
    ("\\text{\\boxed{$x}}", ["'$' inside \\boxed{…} sets text", "\\boxed{$x$}"]),
    ("\\text{\\boxed{$x^2$}}", ["'^' inside \\text{…}"]),
    ("\\text{\\boxed{$\\frac12$}}", ["'\\frac' inside \\text{…}"]),
    ("\\boxed{{$x$}}", ["'$' inside a formula"]), ("\\text{a \\(x^\\) b}", ["'^' without"]),
]

ACCEPTED = [
    "\\text{a\\^{o}}", "\\text{a\\^o}", "\\text{\\'e}", "\\text{\\\"{u}}", "\\text{a\\^ o}",
    "\\text{\\^{}}", "\\text{\\^ {o}}", "\\text{\\`a \\~n \\=a \\.z}", "\\text{\\^\\ldots}",
    "\\text{\\^1}", "\\text{\\^{\\textbf{o}}}", "\\text{a\\^\\\\ b}",
    "\\text{if \\(x>0\\)}", "\\text{if \\(x^2 > \\frac{1}{2}\\), else}", "\\text{\\(α\\)}",
    "\\text{\\(\\text{\\(y\\)}\\)}", "\\text{\\(温\\)}", "\\textbf{a \\(x\\) b $y$}",
    "\\text{\\boxed{$x$}}", "\\text{\\boxed{a $b$ c}}", "\\boxed{$x$}", "\\boxed{$α$}",
    "\\text{\\boxed{α}}", "\\text{\\boxed{x^2}}", "\\text{\\boxed{$\\text{$x^2$}$}}",
    "\\text{\\boxed{$ {$y$} $}}", "\\text{\\boxed{$\\^o$}}", "\\boxed{$$x}",
]


(test_the_check_refuses_with_what_to_write, test_the_check_accepts_what_latex_draws,
 test_latex_refuses_each_formula_the_check_refuses,
 test_the_build_draws_each_formula_the_check_accepts) = list_tests(REFUSED, ACCEPTED)


@needs_latex
@pytest.mark.parametrize("accent", sorted(TEXT_ACCENTS))
def test_the_check_takes_after_an_accent_what_latex_takes(accent):
    """Every allowlisted command, control symbol and ASCII character after a text accent in
    `\\text{}`: the check accepts it exactly when LaTeX draws it."""
    blank = " " * accent.isalpha()  # `\\u x`, not the command `\\ux`
    formulas = [f"\\text{{a\\{accent}{blank}{t}{' ' * t[-1].isalpha()}x}}" for t in SWEPT]
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


@needs_latex
def test_math_in_an_argument_in_text_is_judged_as_latex_judges_it():
    """`$x$`, `\\(x\\)` and `x` in the argument of each command that takes one, in `\\text{}`:
    text mode's commands set their argument as text (`$x$` is math), `\\boxed` as math
    (`$x$` is text); the check accepts exactly what LaTeX draws."""
    formulas = [f"\\text{{\\{c}{{{inner}}}" + "{a}" * (n - 1) + "}"
                for c, n in sorted(ARGUMENTS.items()) for inner in ("$x$", "\\(x\\)", "x")
                if c not in ("multicolumn", "cline", "hspace")]  # no math there (`latex_args`)
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


# `$…$` in a formula is written in a block: inline math (`$…$`) cannot hold a `$`
BODY = ("# 公式\n\n$$\n\\text{if \\(x>0\\)} \\quad \\text{\\boxed{$x$}} \\quad \\text{\\^{o}}\n$$\n\n"
        "坏 $\\text{a\\^}$ 与 $\\text{\\(x}$。\n")
FIRST = GOOD_FM.count("\n") + 1  # the body's first line


def test_kb_check_names_file_line_and_what_to_write(tmp_path):
    corpus = tmp_path / "knowledge"
    corpus.mkdir()
    (corpus / "doc.md").write_text(GOOD_FM + BODY, encoding="utf-8")
    (tmp_path / "kb.toml").write_text("")
    result = CliRunner().invoke(main, ["check", "--no-cache", str(corpus)])
    assert result.exit_code == 1
    lines = sorted((line for line in result.stdout.splitlines() if "math-invalid" in line),
                   key=lambda line: "\\^" not in line)  # the accent first
    assert len(lines) == 2, result.stdout
    assert f"doc.md:{FIRST + 6}:" in lines[0] and "write \\^{o}" in lines[0], lines[0]
    assert f"doc.md:{FIRST + 6}:" in lines[1] and "\\text{if \\(x>0\\)}" in lines[1], lines[1]


# text in math in text, as long as a formula may be (`k` repeats): each piece read once or twice
GROWING = [
    lambda k: "\\text{\\(" * k + "x" + "\\)}" * k,
    lambda k: "\\text{\\boxed{$" * k + "x" + "$}}" * k,
    lambda k: "\\text{" + "\\^ " * k + "o}", lambda k: "\\text{" + "\\^{" * k + "}" * k + "}",
]
LONG = [grow((MAX_FORMULA_CHARS - len(grow(0))) // (len(grow(1)) - len(grow(0))))
        for grow in GROWING]


@pytest.mark.parametrize("formula", LONG, ids=range(len(LONG)))
def test_the_check_is_linear_in_the_formula(formula):
    start = time.thread_time()
    problem = latex_problem(formula)
    assert time.thread_time() - start < 1.0
    assert not (problem or "").startswith("formula is"), len(formula)


# what an author types around an accent, `\(`, `\)` or `\boxed` in text
PIECES = st.lists(st.sampled_from(["\\text{", "\\boxed{", "{", "}", "$", "\\(", "\\)", "\\^",
                                   "\\'", "\\~", "o", " ", "\\textbf", "\\frac", "^", "x",
                                   "\\alpha", "\\\\", "\\left(", "\\right)"]),
                  max_size=25).map("".join)


@settings(max_examples=600, deadline=500, suppress_health_check=[HealthCheck.too_slow])
@given(PIECES)
def test_any_mix_gets_an_answer_of_one_line(text):
    """No exception, one line or None; an accepted formula's first `\\(` sits in text (of
    `\\text{…}`, or between `$`s at the top level)."""
    problem = latex_problem(text)
    assert problem is None or (problem and "\n" not in problem)
    if problem is None and "\\(" in text:
        before = text.split("\\(")[0]
        assert "\\text{" in before or before.count("$") % 2 == 1, text
