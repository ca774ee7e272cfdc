"""What LaTeX refuses of how a formula's pieces fit together, `kb check` refuses first.

`x²^3` (a typed superscript, then `^`) passed `kb check` and stopped `kb build`'s LaTeX
("Double superscript"), as `x^2^3` and `x_1_2` did; so did `\\frac{1}`, `a & b`, `\\right)
x \\left(` and the other slips a Typora or Obsidian author makes (their MathJax draws most of
them). Each list below is checked against the real LaTeX the renderer runs: what the check
refuses, LaTeX refuses; what it accepts, the build draws.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.errors import FindingsError
from kbtools.render import formula as fm
from kbtools.render.latex_allow import latex_problem, tex_source
from kbtools.render.tex_sandbox import FORMULA_SECONDS, typeset
from tests.kbfixtures import GOOD_FM

needs_latex = pytest.mark.skipif(fm.backend_problem() is not None,
                                 reason="LaTeX backend not installed (see docs/formulas.md)")

# (formula, what the message must name): two scripts of one kind on one base, every spelling
DOUBLE = [
    ("x²^3", ["double superscript", "{x^2}^3", "x^{23}", "typed ²"]),
    ("x^2^3", ["double superscript", "{x^2}^3", "x^{23}"]),
    ("x_1_2", ["double subscript", "{x_1}_2", "x_{12}"]),
    ("x₁_2", ["double subscript", "{x_1}_2", "x_{12}"]),
    ("x^2²", ["double superscript", "{x^2}^2"]),
    ("x² ³", ["double superscript", "{x^2}^3"]),
    ("x^{2}^{3}", ["double superscript", "{x^2}^3", "x^{23}"]),
    ("x^2 ^3", ["double superscript"]),
    ("x^a_b^c", ["double superscript", "{x^a_b}^c"]),
    ("x_1^2_3", ["double subscript", "{x_1^2}_3"]),
    ("x'^2^3", ["double superscript", "prime"]),
    ("x^2'", ["double superscript", "prime", "{x^2}'"]),
    ("x′^2^3", ["double superscript"]),
    ("x' ^2", ["double superscript"]),
    ("x'_1^2", ["double superscript"]),
    ("\\sum^a^b", ["double superscript"]),
    ("\\int\\limits_a_b", ["double subscript"]),
    ("\\frac{1}{2}^3^4", ["double superscript", "{\\frac{1}{2}^3}^4"]),
    ("\\left( x \\right)^2^3", ["double superscript"]),
    ("\\overbrace{x}^{a}^{b}", ["double superscript"]),
    ("\\begin{aligned} a & x^\\alpha^\\beta \\end{aligned}", ["double superscript",
                                                            "x^{\\alpha\\beta}"]),
    ("{a_1_2}", ["double subscript"]),
]
# the other slips (unbalanced \left/\right, an argument missing, `&` outside columns, …)
OTHER = [
    ("\\frac{1}", ["\\frac takes 2 arguments", "\\frac{a}{b}"]),
    ("\\frac 1", ["\\frac takes 2"]),
    ("{\\dfrac{a}} + 1", ["\\dfrac takes 2"]),
    ("\\sqrt", ["\\sqrt{x}"]), ("\\sqrt[3]", ["\\sqrt[3]{x}"]),
    ("\\hat", ["\\hat{x}"]), ("\\mathrm", ["\\mathrm{x}"]), ("\\text", ["\\text{x}"]),
    ("\\binom{n}", ["\\binom{n}{k}"]), ("\\overset{a}", ["\\overset{a}{x}"]),
    ("x^", ["'^' without a superscript"]), ("x_", ["'_' without a subscript", "\\_"]),
    ("x^_2", ["'^' without"]), ("x_'", ["'_' without"]), ("{x^} y", ["'^' without"]),
    ("x^\\hat a", ["needs braces", "^{\\hat{…}}"]), ("x^\\sqrt{2}", ["needs braces"]),
    ("e_\\overline{x}", ["needs braces"]), ("x^\\dfrac12", ["needs braces"]),
    ("a & b", ["'&' outside", "\\&"]), ("{a & b}", ["'&' outside"]),
    ("\\text{R & D}", ["'&' outside"]),
    ("\\begin{matrix} a \\end{matrix} & b", ["'&' outside"]),
    ("\\begin{gathered} a & b \\end{gathered}", ["{gathered} has no columns"]),
    ("\\begin{cases} a & b & c \\end{cases}", ["{cases}"]),
    ("\\begin{array}{c} a & b \\end{array}", ["{array}"]),
    ("\\begin{matrix} " + " & ".join("abcdefghijk") + " \\end{matrix}", ["{matrix}"]),
    ("\\right) x \\left(", ["\\right without a \\left"]),
    ("\\left( \\begin{matrix} a \\right) \\end{matrix}", ["\\right without a \\left"]),
    ("{ \\left( } \\right)", ["'}' closes before the \\left"]),
    ("\\left( { \\right) }", ["\\right without a \\left"]),
    ("x \\middle| y", ["\\middle without a \\left"]),
    ("a\\'b", ["text accent", "\\acute{e}"]), ("a\\^b", ["text accent"]),
    ("a \\over b \\over c", ["\\over", "\\frac{a}{b}"]),
]
# written every day, drawn by LaTeX: the check must not refuse them
ACCEPTED = ["x'^2", "x''", "x'''^2", "x_1'", "x_1'^2", "x^{2}_{1}", "{x^2}^3", "x^{23}",
            "x²³", "x₁²", "x^2{}^3", "x^{a}{}^{b}", "a^2 \\, ^3", "x^2 \\displaystyle ^3",
            "\\hat{x}'", "\\text{x'}'", "\\text{it's 2}", "x^\\text{max}", "x_\\mathrm{T}",
            "x^\\frac12", "\\frac12", "\\frac a b", "\\frac{1}{}", "\\sqrt{}", "\\sqrt[3]{x}",
            "\\sum\\limits_a^b", "\\underbrace{x}_{a}", "\\left. x \\right|",
            "\\left( x \\middle| y \\right)^2", "\\begin{cases} a & b \\\\ c & d \\end{cases}",
            "\\begin{array}{c|cc} a & b & c \\end{array}",
            "\\begin{alignedat}{2} a & b & c & d \\end{alignedat}",
            "\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}^2",
            "a \\\\ b", "a \\& b", "\\text{R \\& D}", "a \\% b", "{a \\over b} + {c \\choose d}",
            "\\operatorname*{arg\\,max}_x f", "\\sideset{_a^b}{_c^d}\\sum", "'x",
            "x = 1 \\tag{1}", "\\text{\\'e}"]


@pytest.mark.parametrize("formula, words", DOUBLE + OTHER, ids=[f for f, _ in DOUBLE + OTHER])
def test_the_check_refuses_with_what_to_write(formula, words):
    problem = latex_problem(formula)
    assert problem is not None, formula
    assert "\n" not in problem
    for word in words:
        assert word in problem, (word, problem)


def test_the_check_accepts_what_latex_draws():
    assert {f: latex_problem(f) for f in ACCEPTED} == dict.fromkeys(ACCEPTED)


@needs_latex
def test_latex_refuses_each_formula_the_check_refuses():
    """The check refuses only what the renderer's LaTeX stops at (each run alone)."""
    drawn = []
    for formula, _ in DOUBLE + OTHER:
        with tempfile.TemporaryDirectory() as tmp:
            if typeset([tex_source(formula)], Path(tmp), FORMULA_SECONDS).ok:
                drawn.append(formula)
    assert drawn == []


@needs_latex
def test_the_build_draws_each_formula_the_check_accepts(tmp_path):
    failures: dict[str, str] = {}
    done = fm.render_formulas(ACCEPTED, tmp_path, failures=failures)
    assert not failures and len(done) == len(ACCEPTED), failures


BODY = "# 公式\n\n面积比 $x²^3$ 与\n\n$$\nx_1_2\n$$\n\n以及 $\\frac{1}$ 和 $a & b$。\n"
FIRST = GOOD_FM.count("\n") + 1  # the body's first line


def _corpus(root: Path) -> Path:
    corpus = root / "knowledge"
    corpus.mkdir()
    (corpus / "doc.md").write_text(GOOD_FM + BODY, encoding="utf-8")
    (root / "kb.toml").write_text("")
    return corpus


def test_kb_check_names_file_line_and_what_to_write(tmp_path):
    corpus = _corpus(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", str(corpus)])
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if "math-invalid" in line]
    assert len(lines) == 4, result.stdout
    expected = [(FIRST + 2, "{x^2}^3"), (FIRST + 4, "{x_1}_2"),  # a block: its opening `$$`
                (FIRST + 8, "\\&"), (FIRST + 8, "\\frac{a}{b}")]
    for line, (at, write) in zip(lines, expected, strict=True):
        assert f"doc.md:{at}:" in line and write in line, line


def test_kb_build_refuses_the_same_formulas_at_their_lines(tmp_path):
    corpus = _corpus(tmp_path)
    with pytest.raises(FindingsError) as err:
        build(load_config(tmp_path), BuildOptions(corpus=corpus, out=tmp_path / "dist",
                                                  progress=False))
    shown = [line for line in str(err.value).splitlines() if "math-invalid" in line]
    assert [s.split("doc.md:")[1].split(":")[0] for s in shown] == \
        [str(FIRST + 2), str(FIRST + 4), str(FIRST + 8), str(FIRST + 8)], str(err.value)
