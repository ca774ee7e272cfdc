"""What `kb check` accepts, `kb build` draws: characters typed in formulas. Unicode
superscripts and subscripts in math are read as `^{…}`/`_{…}`; a character no font of the
renderer has is refused by the check at its line, with what to write, not left to fail in
LaTeX; the glyph table (kbtools/render/glyph_table.py) agrees with the installed LaTeX."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.errors import FindingsError
from kbtools.render import formula as fm
from kbtools.render.glyphs import bsmi_installed, drawn_in_text, needs_bsmi
from kbtools.render.latex_allow import latex_problem
from kbtools.render.latex_source import tex_source
from tests.kbfixtures import GOOD_FM

needs_latex = pytest.mark.skipif(fm.backend_problem() is not None,
                                 reason="LaTeX backend not installed (see docs/formulas.md)")
ROOT = Path(__file__).resolve().parent.parent
FIRST = GOOD_FM.count("\n") + 1  # the body's first line

# written by input methods; each must pass `kb check` and be drawn by `kb build`
TYPED = ["N = 120\\,kg·hm⁻²", "k = 3\\,m⁻¹", "x²³ + y₁₂", "H₂O", "x^² + a_₁",
         "\\mathrm{m⁻¹}", "T = 25℃ ² ½ € ‰ α ≤ ×", "\\text{温度 25℃，² ½ € ‰ é}",
         "\\text{面积}=100㎡", "① + Ⅸ"]
# characters the renderer has no glyph for: (formula, the character, what to write)
UNDRAWABLE = [("\\text{ℓ} = 5", "U+2113", "\\ell"),
              ("\\text{m⁻¹}", "U+207B", "^{-}"),
              ("\\text{H₂O}", "U+2082", "_{2}"),
              ("a ⊞ b", "U+229E", "LaTeX command"),
              ("\\text{✓ done}", "U+2713", "LaTeX command"),
              ("\\text{円}", "U+5186", "GB2312"),  # Japanese: neither gbsn nor bsmi
              ("x = 1 \\tag{ℓ}", "U+2113", "\\ell"),
              ("ﬃ = x", "", "")]  # drawn: LaTeX's own ligature (checked below, not refused)


def write_corpus(root: Path, formulas: list[str]) -> Path:
    corpus = root / "knowledge"
    corpus.mkdir(exist_ok=True)
    body = "".join(f"$$\n{f}\n$$\n\n" for f in formulas)
    (corpus / "doc.md").write_text(GOOD_FM + body, encoding="utf-8")
    (root / "kb.toml").write_text("")
    return corpus


def line_of(formula: str, formulas: list[str]) -> int:
    return FIRST + 4 * formulas.index(formula)  # the block's opening `$$`


@pytest.mark.parametrize("formula, latex", [
    ("kg·hm⁻²", "kg\\cdot hm^{-2}"), ("m⁻¹", "m^{-1}"), ("x²³", "x^{23}"),
    ("x²y³", "x^{2}y^{3}"), ("H₂O", "H_{2}O"),
    ("x₁²", "x_{1}^{2}"), ("x^²", "x^{{}^{2}}"), ("x _ ₁₀", "x _ {{}_{10}}"),
    ("\\text{x²}", "\\text{x²}"), ("\\mathrm{m⁻¹}", "\\mathrm{m^{-1}}"),
])
def test_unicode_scripts_in_math_are_read_as_tex_scripts(formula, latex):
    assert tex_source(formula) == latex
    assert latex_problem(formula) is None


def test_a_character_without_a_glyph_is_named_with_what_to_write():
    for formula, code, instead in UNDRAWABLE:
        problem = latex_problem(formula)
        if not code:
            assert problem is None, formula
            continue
        assert problem is not None and code in problem and instead in problem, (formula,
                                                                                problem)
        assert "\n" not in problem


def test_check_refuses_undrawable_characters_at_their_lines(tmp_path):
    formulas = [f for f, code, _ in UNDRAWABLE if code] + TYPED
    write_corpus(tmp_path, formulas)
    result = CliRunner().invoke(main, ["check", "--no-cache", str(tmp_path / "knowledge")])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == len(formulas) - len(TYPED), result.stdout  # the typed ones pass
    for (formula, code, instead), shown in zip(UNDRAWABLE, lines, strict=False):
        assert f"doc.md:{line_of(formula, formulas)}:" in shown and "math-invalid" in shown
        assert code in shown and instead in shown, shown


@needs_latex
def test_build_draws_what_the_check_accepts(tmp_path):
    corpus = write_corpus(tmp_path, TYPED)
    result = CliRunner().invoke(main, ["check", "--no-cache", str(corpus)])
    assert result.exit_code == 0, result.stdout
    build(load_config(tmp_path), BuildOptions(corpus=corpus, out=tmp_path / "dist",
                                              progress=False))
    failures: dict[str, str] = {}
    done = fm.render_formulas(TYPED, tmp_path / "svg", failures=failures)
    assert not failures and len(done) == len(TYPED), failures


@needs_latex
def test_build_refuses_undrawable_characters_at_their_lines(tmp_path):
    refused = [(f, code) for f, code, _ in UNDRAWABLE if code]
    formulas = [f for f, _ in refused]
    corpus = write_corpus(tmp_path, formulas)
    with pytest.raises(FindingsError) as err:
        build(load_config(tmp_path), BuildOptions(corpus=corpus, out=tmp_path / "dist",
                                                  progress=False))
    shown = [line for line in str(err.value).splitlines() if "math-invalid" in line]
    assert len(shown) == len(formulas), str(err.value)
    for (formula, code), line in zip(refused, shown, strict=True):  # named before LaTeX runs
        assert f"doc.md:{line_of(formula, formulas)}:" in line and code in line, line


def _svg_body(svg: bytes) -> bytes:
    return re.sub(rb"<title>.*?</title>", b"", svg, flags=re.S)


@needs_latex
def test_superscript_characters_draw_as_tex_superscripts(tmp_path):
    typed, written = "hm⁻² + x₁²³", "hm^{-2} + x_{1}^{23}"
    done = fm.render_formulas([typed, written], tmp_path)
    assert _svg_body((tmp_path / done[typed]).read_bytes()) == \
        _svg_body((tmp_path / done[written]).read_bytes())


def _script():
    spec = importlib.util.spec_from_file_location("make_glyph_table",
                                                  ROOT / "scripts" / "make_glyph_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_latex
def test_glyph_table_agrees_with_the_installed_latex(tmp_path):
    script = _script()
    every = script.candidates()
    sample = every[::997] + list("²½€‰℃°µé中αЖ→≤×·①Ⅸ㎡ⅰﬁ⁻ℓ♥⊞✓體溫濕積円・挥⁰₂")
    # each character in `\text{}` as the renderer gives it to LaTeX (體 in the bsmi font,
    # when installed: else it is refused, and its plain `\text{體}` not drawn)
    typed = script.document(sample, lambda c: tex_source(f"\\text{{{c}}}")
                            if bsmi_installed() or not needs_bsmi(c) else script.in_text(c))
    (tmp_path / "s.tex").write_text(typed, encoding="utf-8")
    subprocess.run(["latex", "-interaction=batchmode", "-no-shell-escape", "s.tex"],
                   cwd=tmp_path, env=script.latex_env(), capture_output=True, timeout=300,
                   check=False)
    log = (tmp_path / "s.log").read_bytes().decode("latin-1")
    assert len(script._MARK.findall(log)) == len(sample)
    drawn = script.drawn(log)
    wrong = [f"U+{ord(c):04X}" for c in sample if (c in drawn) != drawn_in_text(c)]
    assert not wrong, wrong
    assert 20 < len(drawn) < len(sample)  # the sample holds both kinds
