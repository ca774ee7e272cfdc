"""Formulas as Typora and Obsidian authors write them: what `kb check` accepts, `kb build`
draws, and what the build cannot draw, the check refuses, naming the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.errors import FindingsError
from kbtools.render import formula as fm
from kbtools.render.latex_allow import inline_problem, latex_problem
from tests.kbfixtures import GOOD_FM

needs_latex = pytest.mark.skipif(fm.backend_problem() is not None,
                                 reason="LaTeX backend not installed (see docs/formulas.md)")

# the same tagged formula inline (line 2 of the body), as a block and as `$$…$$` in text
TAGGED = ("Inline: $a=b \\tag{1}$ here.\n\n$$\na=b \\tag{1}\n$$\n\n"
          "In text $$a=b \\tag{1}$$ too.\n")
TAG_LINE = (GOOD_FM + TAGGED).splitlines().index("Inline: $a=b \\tag{1}$ here.") + 1


def check(tmp_path: Path, body: str) -> tuple[int, str]:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir(exist_ok=True)
    (tmp_path / "knowledge" / "doc.md").write_text(GOOD_FM + body, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--no-cache", str(tmp_path / "knowledge")])
    return result.exit_code, result.stdout


def test_a_tag_in_inline_math_is_refused_and_only_there():
    assert inline_problem(r"a=b \tag{1}") is not None
    assert inline_problem(r"a=b \text{tag}") is None
    assert latex_problem(r"a=b \tag{1}") is None  # display math may hold it


def test_check_refuses_a_tag_in_inline_math_at_its_line(tmp_path):
    code, out = check(tmp_path, TAGGED)
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 1, out  # the display formulas holding the same LaTeX pass
    assert f"doc.md:{TAG_LINE}:" in lines[0] and "math-invalid" in lines[0]
    assert "\\tag in inline math" in lines[0] and "$$" in lines[0]


@needs_latex
def test_build_refuses_a_tag_in_inline_math_at_its_line(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "doc.md").write_text(GOOD_FM + TAGGED, encoding="utf-8")
    with pytest.raises(FindingsError) as err:
        build(load_config(tmp_path), BuildOptions(corpus=corpus, out=tmp_path / "dist",
                                                  progress=False))
    shown = [line for line in str(err.value).splitlines() if "math-invalid" in line]
    assert len(shown) == 1 and f"doc.md:{TAG_LINE}:" in shown[0], str(err.value)


@pytest.mark.parametrize("formula, package, instead", [
    (r"\ce{H2O}", "mhchem", r"\mathrm{H_2O}"),
    (r"\ce{CO2 + H2O -> H2CO3}", "mhchem", r"\mathrm{H_2O}"),
    (r"\SI{5}{kg}", "siunitx", r"5\,\mathrm{kg}"),
    (r"v = \unit{m/s}", "siunitx", r"\mathrm{m/s}"),
    (r"30\degree", "gensymb", r"^\circ"),
])
def test_commands_of_packages_the_renderer_lacks_say_what_to_write(tmp_path, formula, package,
                                                                  instead):
    code, out = check(tmp_path, f"温度 ${formula}$ 以上。\n")
    assert code == 1 and len(out.splitlines()) == 1, out
    assert package in out and instead in out and "not supported" in out
    assert f"doc.md:{GOOD_FM.count(chr(10)) + 1}:" in out


@pytest.mark.parametrize(("body", "line", "said"), [
    ("$$\nE = mc^2 \\label{eq:energy}\n$$\n", 1,
     "command \\label (an equation label for \\eqref, which pages do not number) is not "
     "supported in formulas; number the formula with \\tag{1} and write its number in the "
     "text: 式 (1)"),
    ("由式$\\eqref{eq:energy}$可知能量守恒。\n", 1,
     "command \\eqref (a reference to a \\label, which pages do not number) is not "
     "supported in formulas; write the number outside the formula, in the text: 见式 (1), "
     "see (1)"),
    ("Text.\n\n$$\n\\begin{aligned}\na &= b \\\\\nc &= d \\nonumber\n\\end{aligned}\n$$\n", 3,
     "command \\nonumber (an unnumbered line of numbered equations) is not supported in "
     "formulas; delete it: a formula without \\tag has no number")])
def test_typora_equation_numbering_says_what_to_write(tmp_path, body, line, said):
    """Typora numbers equations with MathJax's `\\label` and `\\eqref`; `kb check` said
    "command \\label is not allowed in formulas (see docs/formulas.md)", not what to write."""
    code, out = check(tmp_path, body)
    assert code == 1
    col = body.splitlines()[line - 1].index("$") + 1  # at its `$` (a block: its `$$`)
    assert out.splitlines() == [
        f"knowledge/doc.md:{GOOD_FM.count(chr(10)) + line}:{col}: error: math-invalid: {said}"]


@needs_latex
@pytest.mark.parametrize("formula", ["ℓ = 5", "∆T = 3"])  # ℓ; INCREMENT (U+2206), no Δ
def test_math_symbols_typed_directly_that_the_check_accepts_are_drawn(tmp_path, formula):
    assert latex_problem(formula) is None
    failures: dict[str, str] = {}
    done = fm.render_formulas([formula], tmp_path, failures=failures)
    assert formula in done and not failures, failures


# Typora keeps an empty line typed in a math block; Markdown ends the formula there
GAPPED_ZH = "喷液量按下式计算：\n\n$$\nQ = \\frac{q \\times 600}{v \\times b}\n\n\\tag{1}\n$$\n\n其中 q 为流量。\n"
GAPPED_EN = ("Steps:\n\n1. Measure the flow:\n\n   $$\n   q = \\frac{V}{t}\n\n   \n"
             "   \\quad (t \\text{ in min})\n\n   $$\n\n2. Done.\n")


@pytest.mark.parametrize(("body", "said"), [
    (GAPPED_ZH, "12:1: error: math-unbalanced: the formula from this '$$' to the one on line 16 "
                "holds blank line 14, which ends it in Markdown (Typora and Obsidian show it "
                "whole): kbtools reads two paragraphs of text, no formula; delete the blank line "
                "(`kb check --fix` does)"),
    (GAPPED_EN, "14:4: error: math-unbalanced: the formula from this '$$' to the one on line 20 "
                "holds blank lines 16, 17, 19, which ends it in Markdown (Typora and Obsidian "
                "show it whole): kbtools reads two paragraphs of text, no formula; delete the "
                "blank lines (`kb check --fix` does)")])
def test_a_formula_a_blank_line_splits_is_one_finding_that_fix_mends(tmp_path, body, said):
    """Both `$$` were named, each "add a line $$ where the formula ends", though the author
    had written both: the blank line between them was the cause."""
    assert GOOD_FM.count("\n") == 9  # (the lines above are file lines)
    assert check(tmp_path, body) == (1, f"knowledge/doc.md:{said}\n")
    fixed = CliRunner().invoke(main, ["check", "--no-cache", "--fix",
                                      str(tmp_path / "knowledge")])
    assert fixed.exit_code == 0, fixed.output
    text = (tmp_path / "knowledge" / "doc.md").read_text(encoding="utf-8")
    formula = text.split("$$")[1]
    assert all(line.strip() for line in formula.split("\n")[1:-1])  # no blank line inside
    assert text.replace("\n", "").replace(" ", "") == \
        (GOOD_FM + body).replace("\n", "").replace(" ", "")  # nothing else changed
    assert check(tmp_path, text[len(GOOD_FM):]) == (0, "")


def test_dollars_apart_with_text_between_are_named_each_as_before(tmp_path):
    code, out = check(tmp_path, "Price $$ 5.\n\nAnd $ 3 and $$ more.\n")
    assert code == 1 and len(out.splitlines()) == 2, out
    assert all("add a line $$ where the formula ends" in line for line in out.splitlines())
