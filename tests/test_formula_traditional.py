"""Traditional Chinese in formulas (體積, 溫度, 濕度): drawn with the bsmi font when it is
installed, exactly as `kb check` accepts; everything else reaches LaTeX as before; without the
font, refused with the package to install, and the check cache knows the difference."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.cli import main
from kbtools.render import formula as fm
from kbtools.render import glyphs
from kbtools.render.glyph_table import BSMI
from kbtools.render.latex_allow import latex_problem
from kbtools.render.latex_source import tex_source
from tests.test_formula_glyphs import TYPED, line_of, write_corpus

needs_bsmi = pytest.mark.skipif(fm.backend_problem() is not None or not glyphs.bsmi_installed(),
                                reason="LaTeX or its bsmi font not installed (docs/formulas.md)")
TRADITIONAL = ["V_{\\text{體積}} = 2\\,m³", "\\text{溫度 25℃，濕度 60\\%}", "T_{溫} ≤ 30",
               "x = 1 \\tag{體}", "\\text{體温}"]


@contextmanager
def no_latex(tmp_path: Path) -> Iterator[None]:
    """A machine whose LaTeX is not found (no kpsewhich on PATH): no bsmi font."""
    path = os.environ.get("PATH", "")
    os.environ["PATH"] = str(tmp_path / "no-tex")
    glyphs.tex_files_found.cache_clear()
    try:
        yield
    finally:
        os.environ["PATH"] = path
        glyphs.tex_files_found.cache_clear()


@pytest.fixture
def without_bsmi(tmp_path: Path) -> Iterator[None]:
    with no_latex(tmp_path):
        yield


def test_only_characters_outside_the_default_fonts_are_set_in_bsmi():
    assert tex_source("\\text{溫度}") == "\\text{{\\CJKfamily{bsmi}溫}度}"
    assert tex_source("T_{溫}") == "T_{{\\text{{\\CJKfamily{bsmi}溫}}}}"
    assert tex_source("\\text{円}") == "\\text{円}"  # in no font: refused, left as written
    for formula in TYPED:  # simplified Chinese and the rest: given to LaTeX as before
        assert "CJKfamily" not in tex_source(formula), formula
    assert not any(glyphs.drawn_by_default(c) for c in BSMI)
    assert "體" in BSMI and "温" not in BSMI and "中" not in BSMI


_TEXT = st.text(st.sampled_from("體溫濕積度温中a é²ℓ円✓·"), max_size=12)


@settings(max_examples=600)
@given(_TEXT)
def test_text_reaches_latex_character_by_character(text):
    assert tex_source(f"\\text{{{text}}}") == \
        "\\text{" + "".join(map(glyphs.text_glyph, text)) + "}"


@needs_bsmi
def test_check_accepts_and_build_draws_traditional_chinese(tmp_path):
    corpus = write_corpus(tmp_path, TRADITIONAL)
    result = CliRunner().invoke(main, ["check", "--no-cache", str(corpus)])
    assert result.exit_code == 0, result.stdout
    failures: dict[str, str] = {}
    done = fm.render_formulas(TRADITIONAL, tmp_path / "svg", failures=failures)
    assert not failures and len(done) == len(TRADITIONAL), failures
    # a traditional character is drawn: not the same picture as its simplified twin
    pair = fm.render_formulas(["\\text{體}", "\\text{体}"], tmp_path / "pair")
    assert (tmp_path / "pair" / pair["\\text{體}"]).read_bytes() != \
        (tmp_path / "pair" / pair["\\text{体}"]).read_bytes()


@pytest.mark.usefixtures("without_bsmi")
def test_without_bsmi_traditional_chinese_is_refused_with_the_package():
    assert not glyphs.bsmi_installed()
    problem = latex_problem("\\text{體積}")
    assert problem is not None and "U+9AD4" in problem and "\n" not in problem
    assert glyphs.BSMI_PACKAGE in problem
    assert latex_problem("\\text{温度}") is None  # simplified: as before


def test_check_cache_follows_the_installed_fonts(tmp_path):
    """A check run with the bsmi font installed, then one without it (or the reverse): each
    judges traditional Chinese by the fonts it finds, never by the other's cached result."""
    formulas = ["\\text{體積}"]
    corpus = write_corpus(tmp_path, formulas)
    first = CliRunner().invoke(main, ["check", str(corpus)])
    with no_latex(tmp_path):
        second = CliRunner().invoke(main, ["check", str(corpus)])
    assert second.exit_code == 1, second.stdout
    assert f"doc.md:{line_of(formulas[0], formulas)}:" in second.stdout
    assert glyphs.BSMI_PACKAGE in second.stdout
    third = CliRunner().invoke(main, ["check", str(corpus)])
    assert third.exit_code == first.exit_code == (0 if glyphs.bsmi_installed() else 1)
