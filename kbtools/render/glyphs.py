"""Which characters the formula renderer has glyphs for, and the Unicode sub/superscripts.

Every non-ASCII character of a formula reaches LaTeX as text (`latex_allow.tex_source`: in
`\\text{}`, or set as text when typed in math), inside the renderer's `CJK` environment:
LaTeX's utf8 input encoding draws the characters it defines (accented Latin letters, ², ½, €,
‰, ligatures …) and CJKutf8 hands the others to the `gbsn` font, which holds the GB2312 set
(Chinese, Greek, Cyrillic, ℃, ≤, ①, fullwidth forms …). So a character is drawn in text when
it is in GB2312 (less the few the font lacks) or in the small table of the others
(`glyph_table`, generated from the installed LaTeX by scripts/make_glyph_table.py). Anything
else stops LaTeX ("no glyph"), which ``kb check`` says beforehand (`latex_allow`).

Superscript and subscript characters typed in math (`m⁻¹`, `x₂`) are read as TeX's `^{…}`
and `_{…}` (`SUPERSCRIPTS`, `SUBSCRIPTS`), as MathJax draws them.
"""

from __future__ import annotations

from bisect import bisect_right

from kbtools.render.glyph_table import EXTRA, GB2312_MISSING

SUPERSCRIPTS: dict[str, str] = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿ", "0123456789+-=()in", strict=True))
SUBSCRIPTS: dict[str, str] = dict(zip("₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜ",
                                      "0123456789+-=()aeoxhklmnpst", strict=True))
_STARTS = [a for a, _ in EXTRA]


def drawn_in_text(ch: str) -> bool:
    """True when the renderer has a glyph for the character `ch` set as text."""
    if ch.isascii():
        return True
    i = bisect_right(_STARTS, ord(ch)) - 1
    if i >= 0 and ord(ch) <= EXTRA[i][1]:
        return True
    try:
        ch.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return ch not in GB2312_MISSING
