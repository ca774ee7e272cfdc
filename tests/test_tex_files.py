"""The TeX files the formula renderer needs (`formula.backend_problem`) and the bsmi font
(`glyphs.bsmi_installed`) are asked of kpsewhich once per process, all at once: ``kb check``
asks of the font, a build of both. Here kpsewhich is a script on PATH that logs its call and
answers as an installation holding the files named in $TEX_HAS would."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtools.render import formula as fm
from kbtools.render import glyphs

KPSEWHICH = """#!/bin/sh
echo "$@" >> "$KPSE_LOG"
for name in "$@"; do
  case " $TEX_HAS " in *" $name "*) echo "/usr/share/texmf/tex/latex/x/$name";; esac
done
"""


@pytest.fixture
def tex(tmp_path: Path, monkeypatch) -> Iterator[Path]:
    """A PATH whose latex and dvisvgm are there (never run) and whose kpsewhich logs."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool, text in (("kpsewhich", KPSEWHICH), ("latex", "#!/bin/sh\n"),
                       ("dvisvgm", "#!/bin/sh\n")):
        (bin_dir / tool).write_text(text, encoding="utf-8")
        (bin_dir / tool).chmod(0o755)
    log = tmp_path / "kpsewhich.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.path.dirname(shutil.which('sh') or '/bin/sh')}")
    monkeypatch.setenv("KPSE_LOG", str(log))
    fm.backend_problem.cache_clear()
    glyphs.tex_files_found.cache_clear()
    yield log
    fm.backend_problem.cache_clear()
    glyphs.tex_files_found.cache_clear()


def _calls(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def test_the_renderer_and_the_font_ask_kpsewhich_once(tex: Path, monkeypatch):
    monkeypatch.setenv("TEX_HAS", " ".join(glyphs.TEX_FILES))
    assert glyphs.bsmi_installed()
    assert fm.backend_problem() is None
    assert glyphs.bsmi_installed() and fm.backend_problem() is None
    assert _calls(tex) == [" ".join(glyphs.TEX_FILES)]


def test_without_the_bsmi_font_the_renderer_still_renders(tex: Path, monkeypatch):
    monkeypatch.setenv("TEX_HAS", " ".join(glyphs.BACKEND_FILES))
    assert fm.backend_problem() is None
    assert not glyphs.bsmi_installed()
    assert len(_calls(tex)) == 1


@pytest.mark.parametrize("lacking", ["CJKutf8.sty", "amsmath.sty", "c70gbsn.fd"])
def test_a_missing_backend_file_is_said_whichever_others_are_found(tex: Path, monkeypatch,
                                                                  lacking: str):
    """Each file counts: the bsmi font's files found do not make up for a missing one."""
    monkeypatch.setenv("TEX_HAS", " ".join(f for f in glyphs.TEX_FILES if f != lacking))
    problem = fm.backend_problem()
    assert problem is not None and "CJKutf8/amsmath/gbsn fonts" in problem
    assert glyphs.bsmi_installed()
    assert len(_calls(tex)) == 1


def test_one_bsmi_file_is_not_the_font(tex: Path, monkeypatch):
    monkeypatch.setenv("TEX_HAS", " ".join([*glyphs.BACKEND_FILES, glyphs.BSMI_FILES[0]]))
    assert not glyphs.bsmi_installed()
    assert fm.backend_problem() is None
