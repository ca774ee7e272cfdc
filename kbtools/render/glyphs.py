"""Which characters the formula renderer has glyphs for, and the Unicode sub/superscripts.

Every non-ASCII character of a formula reaches LaTeX as text (`latex_source.tex_source`: in
`\\text{}`, or set as text when typed in math), inside the renderer's `CJK` environment:
LaTeX's utf8 input encoding draws the characters it defines (accented Latin letters, ², ½, €,
‰, ligatures …) and CJKutf8 hands the others to the `gbsn` font, which holds the GB2312 set
(Chinese, Greek, Cyrillic, ℃, ≤, ①, fullwidth forms …). So a character is drawn in text when
it is in GB2312 (less the few the font lacks) or in the small table of the others
(`glyph_table`, generated from the installed LaTeX by scripts/make_glyph_table.py). Anything
else stops LaTeX ("no glyph"), which ``kb check`` says beforehand (`latex_allow`).

Traditional Chinese outside GB2312 (體, 溫, 濕) is drawn with the `bsmi` font (Big5) when it
is installed (`bsmi_installed`, asked of kpsewhich with `formula.backend_problem`'s files): such a
character is set as `{\\CJKfamily{bsmi}體}` (`text_glyph`), every other one exactly as
before. `BSMI` (in `glyph_table`) holds what that font draws and the default one does not.

Superscript and subscript characters typed in math (`m⁻¹`, `x₂`) are read as TeX's `^{…}`
and `_{…}` (`SUPERSCRIPTS`, `SUBSCRIPTS`), as MathJax draws them.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from bisect import bisect_right

from kbtools.render.glyph_table import BSMI, EXTRA, GB2312_MISSING

BSMI_FAMILY = "bsmi"
BSMI_PACKAGE = "latex-cjk-chinese-arphic-bsmi00lp"
BSMI_FILES = ("c70bsmi.fd", "bsmiu9a.tfm")  # CJKutf8's font definition, one of its fonts

SUPERSCRIPTS: dict[str, str] = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿ", "0123456789+-=()in", strict=True))
SUBSCRIPTS: dict[str, str] = dict(zip("₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜ",
                                      "0123456789+-=()aeoxhklmnpst", strict=True))
_STARTS = [a for a, _ in EXTRA]
_BSMI = frozenset(BSMI)


def _in_ranges(ch: str, ranges: tuple[tuple[int, int], ...], starts: list[int]) -> bool:
    i = bisect_right(starts, ord(ch)) - 1
    return i >= 0 and ord(ch) <= ranges[i][1]


def drawn_in_text(ch: str) -> bool:
    """True when the renderer has a glyph for the character `ch` set as text (a
    traditional one only when the bsmi font is installed)."""
    return drawn_by_default(ch) or (needs_bsmi(ch) and bsmi_installed())


def needs_bsmi(ch: str) -> bool:
    """True when only the bsmi font draws `ch` (traditional Chinese outside GB2312)."""
    return ch in _BSMI and not drawn_by_default(ch)


def text_glyph(ch: str) -> str:
    """`ch` as LaTeX is given it in text: in the bsmi font when only that font has it."""
    return f"{{\\CJKfamily{{{BSMI_FAMILY}}}{ch}}}" if needs_bsmi(ch) else ch


# the TeX files the renderer needs (`formula.backend_problem`) and the bsmi font's
BACKEND_FILES = ("CJKutf8.sty", "amsmath.sty", "c70gbsn.fd")
TEX_FILES = (*BACKEND_FILES, *BSMI_FILES)


@functools.cache
def tex_files_found() -> frozenset[str]:
    """Which of `TEX_FILES` LaTeX finds on this machine: asked of kpsewhich once per process,
    all at once (empty when it is missing or fails)."""
    if shutil.which("kpsewhich") is None:
        return frozenset()
    try:
        found = subprocess.run(["kpsewhich", *TEX_FILES], capture_output=True, text=True,
                               timeout=20).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    names = {line.strip().replace("\\", "/").rsplit("/", 1)[-1] for line in found}
    return frozenset(names & set(TEX_FILES))


def bsmi_installed() -> bool:
    """Whether LaTeX finds the bsmi font (package `BSMI_PACKAGE`) on this machine."""
    return set(BSMI_FILES) <= tex_files_found()


def fonts_signature() -> str:
    """What `drawn_in_text` depends on besides the table: part of the check caches' key."""
    return f"{BSMI_FAMILY}={bsmi_installed()}"


def drawn_by_default(ch: str) -> bool:
    """True when the renderer's default fonts (LaTeX's utf8 encoding, gbsn) draw `ch`."""
    if ch.isascii() or _in_ranges(ch, EXTRA, _STARTS):
        return True
    try:
        ch.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return ch not in GB2312_MISSING
