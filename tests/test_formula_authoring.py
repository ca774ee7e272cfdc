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
    assert out.splitlines() == [
        f"knowledge/doc.md:{GOOD_FM.count(chr(10)) + line}:1: error: math-invalid: {said}"]


@needs_latex
@pytest.mark.parametrize("formula", ["ℓ = 5", "∆T = 3"])  # ℓ; INCREMENT (U+2206), no Δ
def test_math_symbols_typed_directly_that_the_check_accepts_are_drawn(tmp_path, formula):
    assert latex_problem(formula) is None
    failures: dict[str, str] = {}
    done = fm.render_formulas([formula], tmp_path, failures=failures)
    assert formula in done and not failures, failures
